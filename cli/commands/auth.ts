/**
 * `stepforge auth <service>-url --FLAG VALUE ...` (e.g. `stepforge auth trello-url --key KEY --app-name NAME`):
 * prints the address where a user authorizes a token, built from the spec's declared authorize
 * block. Flags become the template's values (kebab-case to camelCase; `--key` is the API key).
 */
import { authorizeUrl } from "../../runtime/credentials/auth.js";
import { generatedServices } from "../services.js";
import { UsageError } from "../usage.js";

const ALIASES: Record<string, string> = { key: "apiKey" };

export async function authCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const [sub, ...rest] = argv;
  const services = generatedServices();
  const service = services.find((s) => sub === `${s.id}-url`);
  if (!service) {
    throw new UsageError(`unknown auth command ${JSON.stringify(sub ?? "")}; use one of ${services.map((s) => `${s.id}-url`).join(", ")}`);
  }
  const values: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i]!;
    const value = rest[i + 1];
    // A stray value is not repeated: it may be the API key given without --key.
    if (!flag.startsWith("--")) throw new UsageError(`expected --name value pairs, got a value without a --name before it (argument ${i + 1})`);
    if (value === undefined || value.startsWith("--")) throw new UsageError(`expected --name value pairs, got ${JSON.stringify(flag)} without a value`);
    const name = flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    values[ALIASES[name] ?? name] = value;
  }
  try {
    out.write(`${authorizeUrl(service.descriptor, values)}\n`);
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/pass (\w+)/, (_, n: string) => `pass --${n.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`));
  }
  return 0;
}
