/**
 * The example the mock answers with: the first success example that matches its schema. One that
 * is not valid (`example: null` for an object, a required field missing, a text where the schema
 * says number) is never served; the mock answers the next valid example, or a sample of the schema
 * when none is valid. Reporting the invalid example is SF192's (examples.ts), once for every
 * example of the spec; this only picks what the mock serves, with the sampler's own checker so
 * that what it serves is what its answers are checked with.
 */
import { ProblemFinder } from "../../runtime/mock/problem.js";
import { pointerResolver } from "../../runtime/mock/sample.js";
import type { OperationModel } from "../model.js";
import { asObject, isObject, type Json } from "../refs.js";
import type { CheckContext, Path } from "./context.js";

/** A node and where it is, its `$ref` chain followed (the place a reader edits). */
function located(context: CheckContext, path: Path, node: unknown): { path: Path; node: unknown } {
  let at = path;
  let current = node;
  for (
    let i = 0;
    i < 20 && isObject(current) && typeof current.$ref === "string" && current.$ref.startsWith("#/");
    i++
  ) {
    const ref = current.$ref;
    at = ref
      .slice(2)
      .split("/")
      .map((p) => decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~"));
    current = context.refs.pointer(ref);
  }
  return { path: at, node: current };
}

/** The success media's examples in the order the mock would pick them, each with its place. */
function candidates(context: CheckContext, op: OperationModel): Array<{ path: Path; value: unknown }> {
  const mediaType = op.success.mediaType;
  if (!mediaType) return [];
  const item = located(context, ["paths", op.path], asObject(context.doc.paths)?.[op.path]);
  const operation = asObject(asObject(item.node)?.[op.method.toLowerCase()]);
  const responsePath: Path = [...item.path, op.method.toLowerCase(), "responses", String(op.success.status)];
  const response = located(context, responsePath, asObject(operation?.responses)?.[String(op.success.status)]);
  const mediaPath: Path = [...response.path, "content", mediaType];
  const media = asObject(asObject(asObject(response.node)?.content)?.[mediaType]);
  if (!media) return [];
  const out: Array<{ path: Path; value: unknown }> = [];
  if (Object.hasOwn(media, "example")) out.push({ path: [...mediaPath, "example"], value: media.example });
  for (const [name, raw] of Object.entries(asObject(media.examples) ?? {})) {
    const entry = located(context, [...mediaPath, "examples", name], raw);
    const example = asObject(entry.node);
    if (example && Object.hasOwn(example, "value")) out.push({ path: [...entry.path, "value"], value: example.value });
  }
  return out;
}

/**
 * Checks the success examples of every operation against the schema the mock answers with and
 * sets the one the mock serves (`op.mock.success.example`): the first valid, else none (a sample).
 */
export function checkMockExamples(context: CheckContext, operations: readonly OperationModel[]): void {
  const finder = new ProblemFinder(pointerResolver(context.doc));
  for (const op of operations) {
    const schema = op.success.schema;
    if (schema === undefined || op.mock.success.contentType === undefined || !/json/i.test(op.mock.success.contentType))
      continue;
    const examples = candidates(context, op);
    if (examples.length === 0) continue;
    let served: { value: unknown } | undefined;
    for (const candidate of examples) {
      let problem: ReturnType<ProblemFinder["find"]>;
      try {
        problem = finder.find(schema, candidate.value);
      } catch {
        problem = undefined; // a schema the checker cannot read (a $ref to nothing is SF107 already) judges nothing
      }
      if (!problem) {
        served = candidate;
        break;
      }
    }
    const mock = op.mock.success as Json;
    if (served) mock.example = structuredClone(served.value);
    else delete mock.example;
  }
}
