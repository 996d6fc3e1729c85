/**
 * A lost write's check in the code's own terms. The spec declares a write's check on its tool
 * step (`x-stepforge-tool.check`: run step S with fields taken from the write's input, look for a
 * record whose fields match); the code calls client methods, so the check is restated as a client
 * call: `services.trello.getListCards({ params: { path: { id: "…" } } })`, look for `name = "…"`.
 *
 * A step's mapping from its fields to a call (which field goes to which path, query or body
 * member) lives in its handler. It is read by calling the handler with a stand-in client that only
 * records the call, once with a marker value in every field (the write: where does each field
 * land?) and once with the check's input (the check step: what call is it?). Nothing is sent.
 */
import { checkAdvice, matchText } from "../tools/errors.js";
import type { ServiceClient } from "../client/client.js";
import type { OperationToolDefinition, ToolDefinition } from "../tools/types.js";

type Json = Record<string, unknown>;

export interface CodeCheck {
  /** The call to make first, as the code writes it. */
  call: string;
  init: Json;
  /** A record in its answer is the write's when these fields equal these values (a list: one of them). */
  match: Json;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The call a step's handler makes for `input`, recorded by a client that sends nothing. */
async function recordedCall(
  step: OperationToolDefinition,
  input: Json,
): Promise<{ operationId: string; init: Json } | undefined> {
  let recorded: { operationId: string; init: Json } | undefined;
  const recorder = {
    call: (operationId: string, init: object = {}) => {
      recorded = { operationId, init: init as Json };
      return Promise.resolve(undefined);
    },
  } as unknown as ServiceClient;
  try {
    await step.handler(recorder, input);
  } catch {
    return undefined;
  }
  return recorded;
}

/** `value` without undefined members and without objects left empty (`query: {}` of unset fields). */
function pruned(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    const kept = pruned(child);
    if (kept === undefined || (isObject(kept) && Object.keys(kept).length === 0)) continue;
    out[key] = kept;
  }
  return out;
}

/** Every string leaf of `value` with its path. */
function leaves(value: unknown, path: string[] = [], out: Array<[string[], unknown]> = []): Array<[string[], unknown]> {
  if (isObject(value)) for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], out);
  else out.push([path, value]);
  return out;
}

function at(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const key of path) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** The step's input this call corresponds to: each field read from where the step puts it. */
async function stepInputOf(step: OperationToolDefinition, init: Json): Promise<Json | undefined> {
  const marker = (field: string) => `\u0000stepforge-field:${field}`;
  const probe = Object.fromEntries(Object.keys(step.input.shape).map((f) => [f, marker(f)]));
  const recorded = await recordedCall(step, probe);
  if (!recorded) return undefined;
  const input: Json = {};
  for (const [path, value] of leaves(recorded.init)) {
    if (typeof value !== "string" || !value.startsWith("\u0000stepforge-field:")) continue;
    const found = at(init, path);
    if (found !== undefined) input[value.slice("\u0000stepforge-field:".length)] = found;
  }
  return input;
}

/**
 * The check of a write made through `services.<service>.<method>(init)`, when a step of that
 * operation declares one and its check step is a call of the same service; undefined otherwise.
 */
export async function codeCheck(
  service: string,
  method: string,
  init: Json,
  steps: readonly ToolDefinition[],
  account?: string,
): Promise<CodeCheck | undefined> {
  const operations = steps.filter((s): s is OperationToolDefinition => s.kind === "operation");
  const write = operations.find((s) => s.operationId === method && s.check);
  if (!write?.check) return undefined;
  const checkStep = operations.find((s) => s.name === write.check!.step);
  if (!checkStep) return undefined;
  const input = await stepInputOf(write, init);
  if (!input) return undefined;
  const advice = checkAdvice(write.check, input);
  const call = await recordedCall(checkStep, advice.input as Json);
  if (!call) return undefined;
  return {
    call: `${clientPath(service, account)}.${call.operationId}`,
    init: pruned(call.init) as Json,
    match: advice.match as Json,
  };
}

/** How the code names a client: `services.trello`, `services.trello.work`, `services.trello["my team"]`. */
export function clientPath(service: string, account?: string): string {
  const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`);
  return `services${key(service)}${account === undefined ? "" : key(account)}`;
}

/** The sentence an unknown outcome carries: do not repeat the write before the check. */
export function unknownOutcomeAdvice(label: string, check: CodeCheck | undefined): string {
  const head =
    `The request was sent but no usable answer came back, so it may or may not have been applied. Do ` +
    `not call ${label} again yet: `;
  if (!check)
    return `${head}first read the records it would have changed, and call it again only if the change is not there.`;
  return (
    `${head}first call ${check.call}(${JSON.stringify(check.init)}) and look for a record with ` +
    `${matchText(check.match)}; call it again only if there is none.`
  );
}
