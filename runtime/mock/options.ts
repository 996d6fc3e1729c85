/**
 * Checks the shape of MockOptions before a mock starts. TypeScript catches a misplaced field at
 * compile time, but a JavaScript caller (or one that casts) would have `{ port: 4110 }` or
 * `limits: { perToken: … }` ignored without a word and a mock that does something else than asked;
 * so an unknown field is an error that names it and the place it belongs.
 */
import type { MockOptions } from "./types.js";

/** The fields of each group (faults are checked by the fault injector, clock is a function). */
const GROUPS: Record<string, readonly string[] | undefined> = {
  server: ["port", "maxBodyBytes"],
  auth: ["credentials", "tokenLifetimeSeconds", "authorizationCode"],
  limits: ["overrides", "off", "scale"],
  webhooks: ["secret", "retryDelaysMs"],
  data: ["fromExamples", "state", "idSeed"],
  hooks: ["onFailure", "beforeRespond", "replay"],
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
    const fields = GROUPS[key];
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
