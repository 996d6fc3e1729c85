/**
 * The one source file the checker pass of `stepforge diff` reads: both sides' types.ts (written by
 * declarations.ts for the compared operations only), each in a namespace of its own, and for each
 * compared operation the two types its client method has — what it takes and what it resolves to —
 * written as generator/emit/client.ts writes them, as exported aliases (`OldIn3`, `NewOut3`).
 *
 * One file instead of two clients and two types modules: the clients are mostly JSDoc and method
 * bodies that decide nothing, and each module is one more file to parse, bind and resolve imports of.
 */
import { inputType } from "../emit/client.js";
import { answerType } from "./answer-type.js";
import type { SurfaceModel, SurfaceOperation } from "../model.js";
import { str } from "../print.js";
import type { TypedPair } from "./compare.js";

export interface PairSide {
  model: SurfaceModel;
  /** types.ts of the compared operations, as declarations.ts writes it. */
  types: string;
}

type SideName = "Old" | "New";

/** The namespace of the old side's types.ts, which the new side's may name (shared-components.ts). */
export const OLD_NAMESPACE: SideName = "Old";

/** One side of one compared operation: where it is in `paths` and the members of its input type. */
export interface PairOperation {
  path: string;
  method: string;
  /** The input type's members, given the name of the operation's alias (client.ts's inputType). */
  input: (operationAlias: string) => string[];
  /** What its method resolves to, given the same name (answer-type.ts). */
  output: (operationAlias: string) => string;
}

/** The aliases of pair `index` on one side (typecheck.ts looks them up by these names). */
export const aliasNames = (side: SideName, index: number) => ({
  input: `${side}In${index}`,
  output: `${side}Out${index}`,
});

/**
 * The pair file in parts that cross to the checker's thread as plain text: both sides' types.ts as
 * written (schemas that reach themselves are named there, where TypeScript is loaded) and the
 * aliases of each compared operation.
 */
export interface PairFileParts {
  oldTypes: string;
  newTypes: string;
  aliases: string;
}

/** The aliases of each compared operation's sides. */
export function pairAliases(
  operations: ReadonlyArray<readonly [PairOperation | undefined, PairOperation | undefined]>,
): string {
  const lines: string[] = [];
  operations.forEach((sides, index) => {
    (["Old", "New"] as const).forEach((name, i) => {
      const op = sides[i];
      if (!op) return;
      const operation = `${name}Op${index}`;
      const { input, output } = aliasNames(name, index);
      lines.push(
        `type ${operation} = ${name}.paths[${str(op.path)}][${str(op.method.toLowerCase())}];`,
        `export type ${input} = { ${op.input(operation).join("; ")} };`,
        `export type ${output} = ${op.output(operation)};`,
      );
    });
  });
  return lines.join("\n");
}

/** The pair file's text: the two types.ts in their namespaces, then the aliases. */
export function pairText(parts: PairFileParts): string {
  const lines = ['import type { OperationData } from "stepforge/runtime";'];
  lines.push(
    `declare namespace ${OLD_NAMESPACE} {`,
    parts.oldTypes,
    "}",
    "declare namespace New {",
    parts.newTypes,
    "}",
  );
  if (parts.aliases) lines.push(parts.aliases);
  return `${lines.join("\n")}\n`;
}

const sideOf = (model: SurfaceModel, operationId: string): PairOperation | undefined => {
  const op: SurfaceOperation | undefined = model.operations.find((o) => o.operationId === operationId);
  if (!op) return undefined;
  const output = (alias: string) => answerType(model.typesDocument, op.path, op.method, alias);
  return { path: op.path, method: op.method, input: (alias) => inputType(op, alias), output };
};

/** The pair file's parts for two checked specs and the compared pairs. */
export function pairFileParts(old: PairSide, now: PairSide, pairs: readonly TypedPair[]): PairFileParts {
  const operations = pairs.map(
    (pair) => [sideOf(old.model, pair.old.operationId), sideOf(now.model, pair.now.operationId)] as const,
  );
  return { oldTypes: old.types, newTypes: now.types, aliases: pairAliases(operations) };
}
