/**
 * What a compared operation resolves to, written for the pair file (pair-file.ts) as a plain indexed
 * access (`Op["responses"][200]["content"]["application/json"]`) when that is what the runtime's
 * `OperationData<Op>` comes to, and left to `OperationData<Op>` otherwise.
 *
 * Why: `OperationData` is a conditional type over a mapped type over template-literal keys; the
 * first pass of a diff instantiates it once per side of each compared operation with the checker's
 * code for all three still cold, which was about a third of the checker pass on the planted Trello
 * edit. The indexed access names the very same type (the checker hands back the same type object:
 * test/diff/answer-type.test.ts compares them on every operation of the specs it reads), so every
 * verdict and every printed type stays as it was.
 *
 * The rule mirrors runtime/client/operation-types.ts as declarations.ts writes a types.ts: exactly
 * one response key among the success statuses (`200` as a number key, `"2XX"` as a string key),
 * and that response's content either absent (its `content`, `undefined`) or with exactly one media
 * type whose name ends in `/json` (that media type's body). Anything else (two success statuses,
 * no JSON media type among several) keeps `OperationData`.
 */
import { isObject, resolvePointer, type Json } from "../refs.js";
import { str } from "../print.js";

/** SuccessStatus of operation-types.ts, as keys of the responses object declarations.ts writes. */
const SUCCESS_NUMBERS = new Set([200, 201, 202, 203, 204, 206, 207]);

/** A response key the way `keyof` sees it after declarations.ts printed it (type-nodes.ts propertyName). */
function isSuccessKey(code: string): boolean {
  const numeric = String(Number(code)) === code && code[0] !== "-";
  return numeric ? SUCCESS_NUMBERS.has(Number(code)) : code === "2XX";
}

/** Follows `$ref`s inside the types document (a response may name a component that names another). */
function target(doc: Json, node: unknown): unknown {
  const seen = new Set<string>();
  while (isObject(node) && typeof node.$ref === "string" && node.$ref.startsWith("#/") && !seen.has(node.$ref)) {
    seen.add(node.$ref);
    node = resolvePointer(doc, node.$ref);
  }
  return node;
}

/**
 * The output type of `method path` in the types document `doc`, given the alias of its operation
 * entry (`OldOp3`): the indexed access when the rule above holds, else `OperationData<alias>`.
 */
export function answerType(doc: Json, path: string, method: string, operationAlias: string): string {
  const fallback = `OperationData<${operationAlias}>`;
  const item = isObject(doc.paths) ? target(doc, doc.paths[path]) : undefined;
  const operation = isObject(item) ? target(doc, item[method.toLowerCase()]) : undefined;
  const responses = isObject(operation) ? operation.responses : undefined;
  if (!isObject(responses)) return fallback;
  const success = Object.keys(responses).filter(isSuccessKey);
  if (success.length !== 1) return fallback;
  const response = target(doc, responses[success[0]!]);
  if (!isObject(response)) return fallback;
  const content = `${operationAlias}["responses"][${str(success[0]!)}]["content"]`;
  // No media type: declarations.ts writes `content?: never`, which OperationData answers as is.
  if (response.content === undefined || (isObject(response.content) && Object.keys(response.content).length === 0))
    return content;
  if (!isObject(response.content)) return fallback;
  const json = Object.keys(response.content).filter((mediaType) => mediaType.endsWith("/json"));
  return json.length === 1 ? `${content}[${str(json[0]!)}]` : fallback;
}
