/**
 * Checks the shape of MockOptions before a mock starts. TypeScript catches a misplaced field at
 * compile time, but a JavaScript caller (or one that casts) would have `{ port: 4110 }` or
 * `limits: { perToken: … }` ignored without a word and a mock that does something else than asked;
 * so an unknown field is an error that names it and the place it belongs.
 */
import type { MockOptions } from "./types.js";

type Groups = Required<MockOptions>;

/** Every field of a group's type, each once: a field added to the type and not here fails to compile. */
type AllFields<G> = { [K in keyof G]-?: K }[keyof G];
function fieldsOf<G>() {
  return <const F extends readonly AllFields<G>[]>(
    fields: F & ([AllFields<G>] extends [F[number]] ? unknown : { missing: Exclude<AllFields<G>, F[number]> }),
  ): readonly string[] => fields as readonly string[];
}

/** The fields of each group, checked against MockOptions (faults: the fault injector checks; clock is a function). */
const GROUPS: { [K in keyof Groups]: readonly string[] | undefined } = {
  server: fieldsOf<Groups["server"]>()(["port", "maxBodyBytes"]),
  auth: fieldsOf<Groups["auth"]>()(["credentials", "tokenLifetimeSeconds", "authorizationCode"]),
  limits: fieldsOf<Groups["limits"]>()(["overrides", "off", "scale"]),
  webhooks: fieldsOf<Groups["webhooks"]>()(["secret", "retryDelaysMs"]),
  data: fieldsOf<Groups["data"]>()(["fromExamples", "state", "idSeed"]),
  hooks: fieldsOf<Groups["hooks"]>()(["onFailure", "beforeRespond", "replay"]),
  faults: undefined,
  clock: undefined,
};

/** Where each field of the options' earlier, flat shape lives now. */
const FLAT_FIELDS: Record<string, string> = {
  port: "server.port",
  maxBodyBytes: "server.maxBodyBytes",
  credentials: "auth.credentials",
  tokenLifetimeSeconds: "auth.tokenLifetimeSeconds",
  authorizationCode: "auth.authorizationCode",
  noLimits: "limits.off",
  limitScale: "limits.scale",
  webhookSecret: "webhooks.secret",
  webhookRetryDelaysMs: "webhooks.retryDelaysMs",
  seedData: "data.fromExamples",
  state: "data.state",
  idSeed: "data.idSeed",
  onFailure: "hooks.onFailure",
  beforeRespond: "hooks.beforeRespond",
  replay: "hooks.replay",
};

/** Throws on a field MockOptions does not have, naming where it belongs when that is known. */
export function checkMockOptions(service: string, options: MockOptions): void {
  const where = `${service} mock: options`;
  for (const [key, value] of Object.entries(options)) {
    if (!Object.hasOwn(GROUPS, key)) {
      const moved = FLAT_FIELDS[key];
      const fix = moved ? `set ${moved} instead` : `the options are ${Object.keys(GROUPS).join(", ")}`;
      throw new Error(`${where}.${key} is not an option; ${fix}`);
    }
    const fields = GROUPS[key as keyof Groups];
    if (!fields || value === undefined) continue;
    if (value === null || typeof value !== "object" || Array.isArray(value))
      throw new Error(`${where}.${key} must be an object of ${fields.join(", ")}`);
    for (const field of Object.keys(value)) {
      if (fields.includes(field)) continue;
      // A limit id where the overrides go: the earlier `limits` was the overrides themselves.
      const fix =
        key === "limits" ? `a limit's numbers go under limits.overrides.${field}` : `${key} takes ${fields.join(", ")}`;
      throw new Error(`${where}.${key}.${field} is not an option; ${fix}`);
    }
  }
}
