/**
 * Response validation in the client (`validate: "off" | "warn" | "strict"`): a success body is
 * checked against the spec's schema for its operation and status, with the validation proxy's
 * checker (conformance.ts: the mock's JSON Schema dialect, closed objects).
 *
 * This file is what the client imports; it holds no schema and no validator. The validator (Ajv)
 * and the service's response schemas (its generated `mock.ts`) are loaded on the first answer
 * checked (response-validator.ts), so a client that never validates does not load them, and a
 * bundle of the client does not carry them.
 *
 * - `warn`: each difference is a `drift` event (hooks' `onDrift`, observers, the logger, the call's
 *   span); with nobody listening, a process warning once per operation and pointer.
 * - `strict`: as warn, then the call fails with a `ResponseDriftError` when a difference breaks
 *   the typed contract (anything but a field the spec does not list: services add fields).
 */
import type { ServiceDescriptor } from "../descriptor.js";
import { StepforgeError } from "../errors.js";
import type { MockDefinition } from "../mock/types.js";
import type { AnswerValidation, CallState, ClientContext } from "../client/context.js";

export type ValidateMode = "off" | "warn" | "strict";

export interface ValidateOptions {
  mode: ValidateMode;
  /**
   * Where the response schemas come from: the service's generated mock module, e.g.
   * `() => import("./generated/acme/mock.js")`. Default: the mock registered for the service (any
   * imported `mock.ts` registers itself), else this package's bundled one.
   */
  schemas?: (() => Promise<{ mockDefinition: MockDefinition } | MockDefinition>) | undefined;
}

export type ValidateOption = ValidateMode | ValidateOptions;

/** At most this many drift events per answer: a list of a thousand wrong items says it in twenty. */
export const MAX_DRIFT_EVENTS = 20;

/**
 * The mode `option` asks for. Default: `warn` when NODE_ENV is `development`, else `off` — an unset
 * NODE_ENV is how most production processes run, and validating costs a schema load and a check per
 * answer that production should opt into (`validate: "warn"`).
 */
export function validateModeOf(option: ValidateOption | undefined, nodeEnv = process.env.NODE_ENV): ValidateMode {
  const mode = typeof option === "object" ? option.mode : option;
  if (mode !== undefined) {
    if (mode !== "off" && mode !== "warn" && mode !== "strict")
      throw new TypeError(`validate must be "off", "warn" or "strict", not ${JSON.stringify(mode)}`);
    return mode;
  }
  return nodeEnv === "development" ? "warn" : "off";
}

/** One way an answer differs from the spec; the JSON type seen, never the value. */
export interface DriftFound {
  kind: string;
  pointer: string;
  expected: string;
  got?: string | undefined;
}

/** A success answer that breaks the spec's schema, under `validate: "strict"`. Not retryable. */
export class ResponseDriftError extends StepforgeError {
  readonly differences: DriftFound[];
  constructor(message: string, details: ConstructorParameters<typeof StepforgeError>[2], differences: DriftFound[]) {
    super("server", message, { ...details, code: RESPONSE_DRIFT, retryable: false });
    this.name = "ResponseDriftError";
    this.differences = differences;
  }
  override toJSON() {
    return { ...super.toJSON(), differences: this.differences };
  }
}

export const RESPONSE_DRIFT = "RESPONSE_DRIFT";

/** Checks one answer; loaded lazily (response-validator.ts). */
export type BodyCheck = (operationId: string, status: number, body: unknown) => DriftFound[];

const warned = new Set<string>();
const VALIDATOR = "./response-validator.js";
/**
 * The validator module's shape, said here rather than as `typeof import(…)`: the client's
 * declarations would then reach the validator's (Ajv, the mock model, zod) in every compile.
 */
interface ValidatorModule {
  createBodyCheck(descriptor: ServiceDescriptor, schemas: ValidateOptions["schemas"]): Promise<BodyCheck>;
}

/** One compiled checker per service for every client of it (compiling the schemas is the costly part). */
const shared = new WeakMap<ServiceDescriptor, Promise<BodyCheck>>();

function bodyCheckFor(descriptor: ServiceDescriptor, schemas: ValidateOptions["schemas"]): Promise<BodyCheck> {
  // A computed address, so a bundler leaves Ajv and the schemas out of an application's bundle.
  const load = () =>
    (import(new URL(VALIDATOR, import.meta.url).href) as Promise<ValidatorModule>).then((m) =>
      m.createBodyCheck(descriptor, schemas),
    );
  if (schemas) return load();
  let found = shared.get(descriptor);
  if (!found) shared.set(descriptor, (found = load()));
  return found;
}

/** The client's answer validation for `option`, or undefined when off (then nothing is loaded). */
export function answerValidation(
  descriptor: ServiceDescriptor,
  option: ValidateOption | undefined,
): AnswerValidation | undefined {
  const mode = validateModeOf(option);
  if (mode === "off") return undefined;
  const schemas = typeof option === "object" ? option.schemas : undefined;
  let check: BodyCheck | undefined;
  let loading: Promise<BodyCheck> | undefined;
  const checked = (found: DriftFound[], ctx: ClientContext, call: CallState, status: number, body: unknown) => {
    if (found.length === 0) return body;
    report(ctx, call, status, found);
    const breaking = found.filter((d) => d.kind !== "undocumented-field");
    if (mode === "strict" && breaking.length > 0) throw driftError(ctx, call, status, breaking);
    return body;
  };
  return (ctx, call, status, body) => {
    // Once loaded, synchronous: no promise per answer (the call's own promise carries a throw).
    if (check) return checked(check(call.op.operationId, status, body), ctx, call, status, body);
    loading ??= bodyCheckFor(descriptor, schemas);
    return loading.then((loaded) => {
      check = loaded;
      return checked(loaded(call.op.operationId, status, body), ctx, call, status, body);
    });
  };
}

function report(ctx: ClientContext, call: CallState, status: number, found: DriftFound[]): void {
  const operation = call.op.operationId;
  for (const d of found.slice(0, MAX_DRIFT_EVENTS)) {
    if (ctx.events.active) {
      ctx.events.emit({ type: "drift", ...ctx.events.base, callId: call.callId, operation, status, ...d });
      continue;
    }
    const key = `${ctx.descriptor.id}\u0000${operation}\u0000${d.pointer}\u0000${d.kind}`;
    if (warned.has(key)) continue;
    warned.add(key);
    process.emitWarning(`${describe(ctx, call)}: the answer differs from the spec: ${line(d)}`, {
      code: "STEPFORGE_RESPONSE_DRIFT",
    });
  }
}

const describe = (ctx: ClientContext, call: CallState) => `${ctx.descriptor.title} ${call.op.operationId}`;
const line = (d: DriftFound) => `${d.pointer || "/"} expected ${d.expected}${d.got ? `, got ${d.got}` : ""}`;

function driftError(ctx: ClientContext, call: CallState, status: number, breaking: DriftFound[]): ResponseDriftError {
  const shown = breaking.slice(0, 3).map(line).join("; ");
  const more = breaking.length > 3 ? ` and ${breaking.length - 3} more` : "";
  return new ResponseDriftError(
    `${describe(ctx, call)}: the answer does not match the spec (${shown}${more}); ` +
      `the service changed or the spec is wrong: fix the spec, or set validate: "warn" to let such answers through`,
    { service: ctx.descriptor.id, operation: call.op.operationId, status, retries: call.retries },
    breaking,
  );
}
