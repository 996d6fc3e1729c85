/**
 * The body of a success answer the spec gives no template for: the operation's example, or —
 * when the spec has none — a sample made from the response schema (`sampleFromSchema`, seeded),
 * so a typed response is never answered with an empty body. A sample is made once per operation
 * and seed, then copied.
 */
import type { MockOperationSpec } from "./extension-types.js";
import { pointerResolver, sampleFromSchema } from "./sample.js";

const cache = new WeakMap<MockOperationSpec, { seed: number; value: unknown }>();

/** A fresh copy of the operation's example (or schema sample); undefined when it has neither. */
export function successSample(op: MockOperationSpec, components: unknown, seed: number): unknown {
  if (op.success.example !== undefined) return structuredClone(op.success.example);
  if (op.success.schema === undefined) return undefined;
  let hit = cache.get(op);
  if (!hit || hit.seed !== seed) {
    const value = sampleFromSchema(op.success.schema, {
      seed: `${seed}:${op.operationId}`,
      resolve: pointerResolver({ components }),
    });
    cache.set(op, (hit = { seed, value }));
  }
  return structuredClone(hit.value);
}
