/**
 * The parts of the check stage that read the `x-stepforge` extensions with their zod schemas, or
 * build the behavioural mock. The stage (stage.ts) reaches them through its context, not through
 * imports: zod (~0.1 s to load, and as much again for the extension schemas), the mock's inference,
 * router and sampler stay out of its module graph. checkSpec (index.ts) gives it every part
 * (zod-parts.ts); `stepforge diff` of documents that write no extension and build no mock gives
 * NO_PARTS and loads none of it, since its check stage is on the path to its result.
 */
import type { ExtensionParts } from "./context.js";

export type { ExtensionParts, OperationExtensions } from "./context.js";

/**
 * For a lenient, surface-only check of a document where writesExtensions (extension-keys.ts) finds
 * no key: the stage asks for no part then, so asking is a caller's mistake, said as one.
 */
export const NO_PARTS: ExtensionParts = {
  serviceExtension: () => missing("x-stepforge"),
  operationExtensions: () => missing("an operation's x-stepforge-* keys"),
  operationTool: () => missing("x-stepforge-tool"),
  triggers: () => missing("x-stepforge-triggers"),
  routeConflicts: () => missing("the mock's routes"),
  mockSpec: () => missing("the mock"),
  mock: () => missing("the mock"),
};

function missing(what: string): never {
  throw new Error(`the check was given no parts for ${what}: check this document with checkSpec (check/index.ts)`);
}
