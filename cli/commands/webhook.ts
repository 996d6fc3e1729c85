/**
 * `stepforge webhook serve --port N --secret S --callback-url URL [--board ID]... [--service S] [--host H]
 *   [--max-connections N] [--max-buffered-bytes N] [--headers-timeout S] [--body-timeout S]
 *   [--dedupe-window S] [--state-dir DIR]`
 * (the secret may come from STEPFORGE_WEBHOOK_SECRET instead of --secret).
 *
 * Receives signed deliveries, verifies them, routes them to the service's webhook triggers
 * (limited to the given boards) and prints each event as one JSON line. Without --board, every
 * board's events are printed. Listens on 127.0.0.1 unless --host says otherwise. The caps and
 * timeouts are enforced as given (see runtime/triggers/receiver.ts); delivery ids are remembered
 * for the dedupe window in the shared state (--state-dir, STEPFORGE_REDIS_URL or
 * STEPFORGE_STATE_DIR), else in this process.
 */
import { parseArgs } from "node:util";
import { createStateStore } from "../../runtime/state/config.js";
import { createWebhookReceiver, createWebhookServer, RECEIVER_DEFAULTS } from "../../runtime/triggers/receiver.js";
import { ALL_BOARDS, createTriggerRouter } from "../../runtime/triggers/router.js";
import { generatedServices } from "../services.js";
import { UsageError } from "../usage.js";

export async function webhookCommand(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "serve") throw new UsageError(`unknown webhook command ${JSON.stringify(sub ?? "")}; use: stepforge webhook serve --port N --secret S --callback-url URL [--board ID]...`);
  const { values } = parseArgs({
    args: rest,
    options: {
      port: { type: "string" },
      secret: { type: "string" },
      "callback-url": { type: "string" },
      board: { type: "string", multiple: true },
      service: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      connection: { type: "string", default: "default" },
      "max-connections": { type: "string" },
      "max-buffered-bytes": { type: "string" },
      "headers-timeout": { type: "string" },
      "body-timeout": { type: "string" },
      "dedupe-window": { type: "string" },
      "state-dir": { type: "string" },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError("--port N is required (0–65535)");
  // The environment keeps the secret out of the process list, where --secret is visible to every local user.
  const secret = values.secret ?? process.env.STEPFORGE_WEBHOOK_SECRET;
  if (!secret) throw new UsageError("--secret S (or STEPFORGE_WEBHOOK_SECRET) is required: deliveries are verified with the app secret, never skipped");
  if (!values["callback-url"]) throw new UsageError("--callback-url URL is required: the URL exactly as registered (it is part of what is signed)");
  const withTriggers = generatedServices().filter((s) => s.triggers && (!values.service || s.id === values.service));
  if (withTriggers.length !== 1) {
    throw new UsageError(values.service ? `service "${values.service}" declares no triggers` : `several services declare triggers; pick one with --service (${withTriggers.map((s) => s.id).join(", ")})`);
  }
  const extension = withTriggers[0]!.triggers!;
  // Without --board, every board's events are printed.
  const boards = values.board?.length ? values.board : [ALL_BOARDS];
  const configs = extension.triggers
    .filter((t) => t.kind === "webhook")
    .map((t) => ({ trigger: t.name, connection: values.connection, boards: t.kind === "webhook" && t.watch === "member" ? [] : boards }));
  const router = createTriggerRouter(extension, configs);
  const seconds = (flag: string, fallbackMs: number) => number(flag, values[flag as keyof typeof values] as string | undefined, fallbackMs / 1000) * 1000;
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
    maxBufferedBytes: number("max-buffered-bytes", values["max-buffered-bytes"], RECEIVER_DEFAULTS.maxBufferedBytes),
    bodyTimeoutMs: seconds("body-timeout", RECEIVER_DEFAULTS.bodyTimeoutMs),
    dedupeWindowMs: seconds("dedupe-window", RECEIVER_DEFAULTS.dedupeWindowMs),
  });
  const server = createWebhookServer(receiver, {
    maxConnections: number("max-connections", values["max-connections"], RECEIVER_DEFAULTS.maxConnections),
    headersTimeoutMs: seconds("headers-timeout", RECEIVER_DEFAULTS.headersTimeoutMs),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, values.host, () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  err.write(`stepforge webhook: listening on http://${values.host}:${actualPort} for ${withTriggers[0]!.id} deliveries signed for ${values["callback-url"]}\n`);
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

/** A positive number flag (a usage error naming the flag otherwise); the default when absent. */
function number(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value) || value <= 0) throw new UsageError(`--${flag} must be a positive number`);
  return value;
}
