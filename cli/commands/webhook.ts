/**
 * `stepforge webhook serve --port N --secret S --callback-url URL [--scope NAME=VALUE]... [--service S]
 *   [--host H] [--max-connections N] [--max-connections-per-address N] [--max-buffered-bytes N]
 *   [--max-buffered-bytes-per-address N] [--min-body-rate N] [--headers-timeout S] [--body-timeout S]
 *   [--dedupe-window S] [--state-dir DIR]`
 * (the secret may come from STEPFORGE_WEBHOOK_SECRET instead of --secret).
 *
 * Receives signed deliveries, verifies them, routes them to the service's webhook triggers and
 * prints each event as one JSON line. `--scope NAME=VALUE` limits the triggers scoped by NAME (a
 * scope the spec's `x-stepforge-triggers.scopes` declares) to those values; without it, every
 * value's events are printed. `--NAME VALUE` is an older spelling of the same, for each declared
 * scope (`--project ID` for a scope named project), kept with a note. Listens on 127.0.0.1 unless
 * --host says otherwise. The caps and timeouts are enforced as given (see
 * runtime/triggers/receiver.ts); delivery ids are remembered for the dedupe window in the shared
 * state (--state-dir, STEPFORGE_REDIS_URL or STEPFORGE_STATE_DIR), else in this process.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { createStateStore } from "../../runtime/state/config.js";
import type { TriggersExtension } from "../../runtime/triggers/extension.js";
import { createWebhookReceiver, RECEIVER_DEFAULTS } from "../../runtime/triggers/receiver.js";
import { ANY_SCOPE_VALUE, createTriggerRouter, type TriggerConfig } from "../../runtime/triggers/router.js";
import { createWebhookServer } from "../../runtime/triggers/server.js";
import { flagsOf, numberFlag, PORT, SCOPE_OPTIONS, urlFlag } from "../flags.js";
import { pickService, resolveScope } from "../project.js";
import { loadServices, type LoadedService } from "../services.js";
import { UsageError } from "../usage.js";

const USAGE = "stepforge webhook serve --port N --secret S --callback-url URL [--scope NAME=VALUE]...";

const OPTIONS = {
  ...SCOPE_OPTIONS,
  port: { type: "string" },
  secret: { type: "string" },
  "callback-url": { type: "string" },
  scope: { type: "string", multiple: true },
  service: { type: "string" },
  host: { type: "string", default: "127.0.0.1" },
  connection: { type: "string", default: "default" },
  "max-connections": { type: "string" },
  "max-connections-per-address": { type: "string" },
  "max-buffered-bytes": { type: "string" },
  "max-buffered-bytes-per-address": { type: "string" },
  "min-body-rate": { type: "string" },
  "headers-timeout": { type: "string" },
  "body-timeout": { type: "string" },
  "dedupe-window": { type: "string" },
  "state-dir": { type: "string" },
} as const satisfies ParseArgsConfig["options"];

export async function webhookCommand(
  argv: string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "serve") throw new UsageError(`unknown webhook command ${JSON.stringify(sub ?? "")}; use: ${USAGE}`);
  const service = await serviceOf(rest);
  const extension = service.triggers!;
  // Each declared scope NAME is also accepted as --NAME VALUE (the older spelling), unless a flag has that name.
  const aliases = Object.keys(extension.scopes).filter((name) => !(name in OPTIONS));
  const aliasOptions = Object.fromEntries(aliases.map((name) => [name, { type: "string", multiple: true } as const]));
  const { values } = flagsOf(rest, { ...OPTIONS, ...aliasOptions });
  const port = numberFlag("--port", values.port, PORT);
  if (port === undefined) throw new UsageError("--port N is required (0–65535; 0 picks a free port)");
  // The environment keeps the secret out of the process list, where --secret is visible to every local user.
  const secret = values.secret ?? process.env.STEPFORGE_WEBHOOK_SECRET;
  if (!secret)
    throw new UsageError(
      "--secret S (or STEPFORGE_WEBHOOK_SECRET) is required: " +
        "deliveries are verified with the app secret, never skipped",
    );
  if (!values["callback-url"])
    throw new UsageError(
      "--callback-url URL is required: the URL exactly as registered (it is part of what is signed)",
    );
  // Checked, not rewritten: the address is signed exactly as registered (a trailing slash included).
  urlFlag("--callback-url", values["callback-url"], "https://hooks.example.com/events");
  const given = scopeFlags(extension, values.scope ?? []);
  for (const name of aliases) {
    const old = (values as Record<string, unknown>)[name] as string[] | undefined;
    if (!old?.length) continue;
    err.write(`stepforge webhook: --${name} is an older spelling; use --scope ${name}=VALUE\n`);
    given.set(name, [...(given.get(name) ?? []), ...old]);
  }
  const router = createTriggerRouter(extension, webhookConfigs(extension, given, values.connection));
  const seconds = (flag: string, fallbackMs: number) =>
    number(flag, values[flag as keyof typeof values] as string | undefined, fallbackMs / 1000) * 1000;
  const count = (flag: keyof typeof OPTIONS, fallback: number) =>
    number(flag, values[flag] as string | undefined, fallback);
  // The one switch: --state-dir, else STEPFORGE_REDIS_URL / STEPFORGE_STATE_DIR, else this process.
  const state = createStateStore(values["state-dir"] ? { stateDir: values["state-dir"] } : {});
  const receiver = createWebhookReceiver({
    secret,
    callbackUrl: values["callback-url"],
    delivery: extension.delivery,
    onDelivery(payload) {
      for (const event of router.route(payload)) out.write(`${JSON.stringify(event)}\n`);
    },
    state,
    maxBufferedBytes: count("max-buffered-bytes", RECEIVER_DEFAULTS.maxBufferedBytes),
    maxBufferedBytesPerAddress: count("max-buffered-bytes-per-address", RECEIVER_DEFAULTS.maxBufferedBytesPerAddress),
    minBodyBytesPerSecond: count("min-body-rate", RECEIVER_DEFAULTS.minBodyBytesPerSecond),
    bodyTimeoutMs: seconds("body-timeout", RECEIVER_DEFAULTS.bodyTimeoutMs),
    dedupeWindowMs: seconds("dedupe-window", RECEIVER_DEFAULTS.dedupeWindowMs),
  });
  const server = createWebhookServer(receiver, {
    maxConnections: count("max-connections", RECEIVER_DEFAULTS.maxConnections),
    maxConnectionsPerAddress: count("max-connections-per-address", RECEIVER_DEFAULTS.maxConnectionsPerAddress),
    headersTimeoutMs: seconds("headers-timeout", RECEIVER_DEFAULTS.headersTimeoutMs),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, values.host, () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  err.write(
    `stepforge webhook: listening on http://${values.host}:${actualPort} ` +
      `for ${service.id} deliveries signed for ${values["callback-url"]}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () =>
      server.close(() => {
        void state.close().finally(resolve);
      });
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}

/**
 * The one service whose deliveries are served: --service S, or the only one in scope (the project's
 * services, the --spec files', else the bundled ones) that declares triggers.
 */
async function serviceOf(args: string[]): Promise<LoadedService> {
  // Only the flags that choose the service; the rest are parsed strictly once its scopes are known.
  const { values } = parseArgs({ args, options: { ...SCOPE_OPTIONS, service: { type: "string" } }, strict: false });
  const wanted = typeof values.service === "string" ? values.service : undefined;
  const scope = await resolveScope({
    specs: values.spec as string[] | undefined,
    project: values.project as string | undefined,
  });
  const sources = wanted === undefined ? scope.services : [pickService(scope, wanted)];
  const withTriggers = (await loadServices(sources, process.cwd(), { triggers: true })).filter((s) => s.triggers);
  if (withTriggers.length !== 1) {
    const names = withTriggers.map((s) => s.id).join(", ");
    throw new UsageError(
      wanted
        ? `service "${wanted}" declares no triggers`
        : withTriggers.length === 0
          ? `none of ${sources.map((s) => s.id).join(", ")} declares triggers (x-stepforge-triggers)`
          : `several services declare triggers; pick one with --service (${names})`,
    );
  }
  return withTriggers[0]!;
}

/** `--scope NAME=VALUE` flags by scope name; a name the spec does not declare is a usage error naming those it does. */
function scopeFlags(extension: TriggersExtension, flags: string[]): Map<string, string[]> {
  const declared = Object.keys(extension.scopes);
  const given = new Map<string, string[]>();
  for (const flag of flags) {
    const eq = flag.indexOf("=");
    const name = eq < 0 ? flag : flag.slice(0, eq);
    const value = eq < 0 ? "" : flag.slice(eq + 1);
    if (!declared.includes(name)) {
      throw new UsageError(
        `--scope ${flag}: "${name}" is not a scope of these triggers; use one of: ${declared.join(", ") || "(none)"}`,
      );
    }
    if (value === "") throw new UsageError(`--scope ${flag}: give a value, as in --scope ${name}=VALUE`);
    given.set(name, [...(given.get(name) ?? []), value]);
  }
  return given;
}

/**
 * One configuration per webhook trigger. A scope given on the command line limits its triggers to
 * those values; a scope not given stands for every value when it filters events, else none.
 */
function webhookConfigs(
  extension: TriggersExtension,
  given: Map<string, string[]>,
  connection: string,
): TriggerConfig[] {
  return extension.triggers
    .filter((t) => t.kind === "webhook")
    .map((t) => {
      const config: TriggerConfig = { trigger: t.name, connection };
      if (!t.scope) return config;
      const values = given.get(t.scope) ?? (extension.scopes[t.scope]?.ref ? [ANY_SCOPE_VALUE] : []);
      return { ...config, scope: { [t.scope]: values } };
    });
}

/** A positive number flag (a usage error naming the flag otherwise); the default when absent. */
function number(flag: string, raw: string | undefined, fallback: number): number {
  return numberFlag(`--${flag}`, raw, { what: "a positive number", min: 0, aboveMin: true }) ?? fallback;
}
