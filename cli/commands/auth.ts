/**
 * `stepforge auth <service>-url --FLAG VALUE ...` (e.g. `stepforge auth trello-url --key KEY --app-name NAME`):
 * prints the address where a user authorizes a token, built from the spec's declared authorize
 * block. The flags are exactly the values that block leaves open, in kebab-case (`{appName}` is
 * `--app-name`; `{apiKey}` is `--key`); anything else is a usage error naming the flag, so a value
 * the spec fixes (Trello's scope and expiration) is never silently ignored.
 */
import { parseArgs } from "node:util";
import { authorizeUrl } from "../../runtime/credentials/auth.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { templateFields } from "../../runtime/internal/template.js";
import { flagsOf, SCOPE_OPTIONS } from "../flags.js";
import { reachable, resolveScope } from "../project.js";
import { loadService } from "../services.js";
import { UsageError } from "../usage.js";

/** Template values with a flag name of their own (the usage line's). */
const FLAG_NAMES: Record<string, string> = { apiKey: "key" };

const kebab = (name: string) => FLAG_NAMES[name] ?? name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The values the service's authorize address needs, and what it fixes (for the error of a flag it does not take). */
function openValues(descriptor: ServiceDescriptor): { names: string[]; fixed: string[] } {
  const auth = descriptor.auth;
  if (auth.kind === "api-key" && auth.authorize) {
    const query = Object.entries(auth.authorize.query);
    const names = [...new Set([...templateFields(auth.authorize.url), ...query.flatMap(([, t]) => templateFields(t))])];
    return { names, fixed: query.filter(([, t]) => templateFields(t).length === 0).map(([k, t]) => `${k}=${t}`) };
  }
  if (auth.kind === "oauth2-authorization-code") return { names: ["clientId", "redirectUri", "state"], fixed: [] };
  throw new UsageError(`${descriptor.id} has no browser authorization step (its credentials are entered directly)`);
}

export async function authCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const [sub, ...rest] = argv;
  // --spec/--project say where the service is; they come before the template's own flags are known.
  const { values: where } = parseArgs({ args: rest, options: SCOPE_OPTIONS, strict: false, allowPositionals: true });
  const scope = await resolveScope({
    specs: where.spec as string[] | undefined,
    project: where.project as string | undefined,
  });
  const candidates = reachable(scope);
  const source = candidates.find((s) => sub === `${s.id}-url`);
  if (!source) {
    throw new UsageError(
      `unknown auth command ${JSON.stringify(sub ?? "")}; ` +
        `use one of ${candidates.map((s) => `${s.id}-url`).join(", ")}`,
    );
  }
  const { descriptor } = await loadService(source, process.cwd(), {});
  const { names, fixed } = openValues(descriptor);
  const options = Object.fromEntries([
    ...names.map((n) => [kebab(n), { type: "string" }] as const),
    ...Object.entries(SCOPE_OPTIONS),
  ]);
  // --api-key is the key's spelling derived from its name; --key is the one the usage shows.
  if (names.includes("apiKey")) options["api-key"] = { type: "string" };
  const takes = names.map((n) => `--${kebab(n)}`).join(", ");
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = flagsOf(rest, options));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw error;
    const flag = /'(--?[^']*)'/.exec((error as Error).message)?.[1] ?? "that flag";
    const fixedNote = fixed.length ? ` (the spec fixes ${fixed.join(", ")})` : "";
    throw new UsageError(`unknown flag ${flag}: ${sub} takes ${takes}${fixedNote}`);
  }
  const given: Record<string, string> = {};
  for (const name of names) {
    const value = values[kebab(name)] ?? (name === "apiKey" ? values["api-key"] : undefined);
    if (typeof value === "string") given[name] = value;
  }
  try {
    out.write(`${authorizeUrl(descriptor, given)}\n`);
  } catch (error) {
    // The runtime names the template value; the command line names its flag.
    throw new UsageError((error as Error).message.replace(/pass (\w+)$/, (_, n: string) => `pass --${kebab(n)}`));
  }
  return 0;
}
