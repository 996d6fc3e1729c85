/** What every check shares: the document, the one `$ref` resolver, strictness and the reporter. */
import type { z } from "zod";
import { protoKeyPaths } from "../../runtime/internal/values.js";
import type { DiagnosticCode } from "../catalogue.js";
import { toPointer, type Diagnostic, type Severity } from "../diagnostics.js";
import type { LoadedSpec } from "../load.js";
import type { Json, RefResolver } from "../refs.js";
import type { ServiceExtension } from "../../runtime/descriptor.js";
import type { OperationExtensionsSchema } from "../../runtime/descriptor-schemas.js";
import type { MockOperationSpec } from "../../runtime/mock/extension.js";
import type { OperationTool } from "../../runtime/tools/extension.js";
import type { TriggersExtension } from "../../runtime/triggers/extension.js";
import type { OperationModel, ServiceModel } from "../model.js";

export type Path = Array<string | number>;
export type Report = (code: DiagnosticCode, path: Path, message: string, severity?: Severity) => void;

export interface CheckContext {
  spec: LoadedSpec;
  doc: Json;
  refs: RefResolver;
  /**
   * Strict: defects are errors (specs with x-stepforge, or `--strict`). Lenient: defects with one
   * safe repair are repaired and reported as warnings.
   */
  strict: boolean;
  report: Report;
  /** A defect with a safe repair: an error saying how to fix it when strict, else a warning saying what was done. */
  repair: (code: DiagnosticCode, path: Path, problem: string, fix: string, repaired: string) => void;
  diagnostics: Diagnostic[];
  /** What reads the extensions with zod and builds the mock (parts.ts). */
  parts: ExtensionParts;
}

export type OperationExtensions = ReturnType<typeof OperationExtensionsSchema.parse>;

/** What the stage reaches through its context instead of importing it (parts.ts says why). */
export interface ExtensionParts {
  /** `x-stepforge` checked, with what it leaves out derived (extension.ts); undefined when it has errors. */
  serviceExtension(context: CheckContext, serviceId: string | undefined): ServiceExtension | undefined;
  /** An operation's `x-stepforge-*` keys (some written) parsed; `{}` when they do not match (reported). */
  operationExtensions(context: CheckContext, written: Json, at: Path): OperationExtensions;
  /** A written `x-stepforge-tool`, or undefined when it does not match its schema (checkToolSteps reports it). */
  operationTool(raw: unknown): OperationTool | undefined;
  /** A written `x-stepforge-triggers`, or undefined when it does not match its schema (reported). */
  triggers(context: CheckContext, raw: unknown, at: Path): TriggersExtension | undefined;
  /** SF193: operations the mock's router cannot tell apart (routes.ts). */
  routeConflicts(context: CheckContext, operations: OperationModel[], baseUrl: string): void;
  /** What the mock gets of an operation (mock-operation.ts). */
  mockSpec(op: Omit<OperationModel, "mock">, ext: unknown, context: CheckContext): MockOperationSpec;
  /** The mock of a checked spec: its examples picked, and what the spec does not declare inferred. */
  mock(
    context: CheckContext,
    modelDoc: Json,
    extension: ServiceExtension,
    operations: OperationModel[],
  ): Pick<ServiceModel, "mock" | "mockExplain">;
}

export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "empty";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value} (${JSON.stringify(value)?.slice(0, 40)})`;
}

export function reportZod(error: z.ZodError, base: Path, report: Report): void {
  for (const issue of error.issues) {
    const path: Path = [...base, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    const where = path.join(".");
    let message: string;
    if (issue.code === "unrecognized_keys") {
      message = `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(", ")} in ${where}; remove or correct them`;
      // Point at the offending key itself, not at the object holding it.
      path.push(issue.keys[0]!);
    } else {
      message = `${where}: ${issue.message}`;
    }
    report("SF120", path, message);
  }
}

/** A `__proto__` key in an extension is always a mistake; reported where the schema did not already. */
export function reportProtoKeys(value: unknown, at: Path, context: CheckContext): void {
  for (const key of protoKeyPaths(value)) {
    const path = [...at, ...key];
    if (!context.diagnostics.some((d) => d.pointer === toPointer(path)))
      context.report("SF120", path, `${path.slice(0, -1).join(".")}: "__proto__" is not allowed as a key; remove it`);
  }
}

export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 4;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** Edit distance (insert, delete, replace one character), case-sensitive. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const kept = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = kept;
    }
  }
  return row[b.length]!;
}
