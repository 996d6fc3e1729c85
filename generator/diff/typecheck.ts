/**
 * The checker pass: for each operation whose schemas changed, walk what its client method takes
 * and what it returns in the old and the new declarations side by side, and decide each
 * difference with the TypeScript checker:
 *
 * - request side (parameters, body): a change is compatible when every old value is assignable to
 *   the new type (`isTypeAssignableTo(old, new)`);
 * - response side: compatible when the new type is assignable to the old one.
 *
 * A property gone from the new type is breaking on both sides even where assignability allows it:
 * a call that passes it as an object literal, or code that reads it, no longer compiles.
 */
import type TypeScript from "typescript";
import type { Change, ChangeKind } from "./change.js";
import type { TypedPair } from "./compare.js";
import { ts } from "../compiler.js";
import { nameRecursiveSchemas, nameRecursiveSchemasInText } from "../emit/recursive-types.js";
import { aliasNames, type PairFileParts, pairText } from "./pair-file.js";
import {
  declarationProgram,
  methodTypes,
  PAIR_FILE,
  pairProgram,
  parse,
  TARGET,
  type Declarations,
} from "./program.js";

type Side = "request" | "response";
type Event = "added" | "removed" | "required" | "optional" | "type" | "enum-added" | "enum-removed";

/** Deeper than any schema a consumer reads field by field; cycles stop earlier (seen pairs). */
const MAX_DEPTH = 12;

/**
 * The declarations to compare: the two clients with their types.ts (what `generate` has on disk and
 * is about to write), or one pair file (pair-file.ts, what `stepforge diff` writes).
 */
export type CheckerInput = { pairs: TypedPair[] } & (
  | { old: Declarations; now: Declarations; oldClass: string; newClass: string }
  | { pairFile: PairFileParts }
);

interface MethodTypes {
  input?: TypeScript.Type;
  output: TypeScript.Type;
}

/** The checker and, per pair, what its method takes and returns on each side. */
function sidesOf(input: CheckerInput): {
  checker: TypeScript.TypeChecker;
  sides: (pair: TypedPair, index: number) => [MethodTypes | undefined, MethodTypes | undefined];
} {
  if ("pairFile" in input) {
    const { checker, aliases } = pairProgram(pairFileOf(input.pairFile));
    const side = (name: "Old" | "New", index: number): MethodTypes | undefined => {
      const names = aliasNames(name, index);
      const [parameter, output] = [aliases.get(names.input), aliases.get(names.output)];
      return output ? { ...(parameter ? { input: parameter } : {}), output } : undefined;
    };
    return { checker, sides: (_, index) => [side("Old", index), side("New", index)] };
  }
  const program = declarationProgram(input.old, input.now);
  return {
    checker: program.checker,
    sides: (pair) => [
      methodTypes(program, program.oldClient, input.oldClass, pair.old.operationId),
      methodTypes(program, program.newClient, input.newClass, pair.now.operationId),
    ],
  };
}

/**
 * The pair file, parsed once: schemas that reach themselves through a union or array are named as
 * emit/types.ts names them, in the text of each side when there are any (rare), which is then
 * parsed again; without any, the file parsed to look for them is the one the program reads.
 */
function pairFileOf(parts: PairFileParts): string | TypeScript.SourceFile {
  const file = parse(PAIR_FILE, pairText(parts), TARGET);
  const sides = file.statements.filter(
    (s): s is TypeScript.ModuleDeclaration =>
      ts.isModuleDeclaration(s) && s.body !== undefined && ts.isModuleBlock(s.body),
  );
  const plain = sides.every((side) => {
    const statements = [...(side.body as TypeScript.ModuleBlock).statements];
    return nameRecursiveSchemas(statements) === statements;
  });
  if (plain) return file;
  const { oldTypes, newTypes } = parts;
  return pairText({
    ...parts,
    oldTypes: nameRecursiveSchemasInText(oldTypes),
    newTypes: nameRecursiveSchemasInText(newTypes),
  });
}

export function checkPairs(input: CheckerInput): Change[] {
  if (input.pairs.length === 0) return [];
  const { checker, sides } = sidesOf(input);
  const changes: Change[] = [];
  for (const [index, pair] of input.pairs.entries()) {
    const [before, after] = sides(pair, index);
    if (!before || !after) continue;
    const walker = new Walker(checker, pair, changes);
    if (before.input && after.input) walker.walk("request", before.input, after.input, [], 0);
    walker.walk("response", before.output, after.output, [], 0);
  }
  return changes;
}

const short = (text: string) => (text.length > 80 ? `${text.slice(0, 77)}...` : text);

class Walker {
  private readonly checker: TypeScript.TypeChecker;
  private readonly seen = new Map<TypeScript.Type, Set<TypeScript.Type>>();

  constructor(
    checker: TypeScript.TypeChecker,
    private readonly pair: TypedPair,
    private readonly out: Change[],
  ) {
    this.checker = checker;
  }

  /** The checker's verdict: does the change break the side it is on? */
  private breaks(side: Side, old: TypeScript.Type, now: TypeScript.Type): boolean {
    return side === "request" ? !this.checker.isTypeAssignableTo(old, now) : !this.checker.isTypeAssignableTo(now, old);
  }

  walk(side: Side, old: TypeScript.Type, now: TypeScript.Type, path: string[], depth: number): void {
    if (old === now || depth > MAX_DEPTH) return;
    const seen = this.seen.get(old) ?? new Set();
    if (seen.has(now)) return;
    this.seen.set(old, seen.add(now));
    const c = this.checker;
    // null is a value of its own; undefined is the optional-ness walkObject already reports.
    if (path.length > 0 && this.hasNull(old) !== this.hasNull(now)) {
      this.report(
        side,
        path,
        "type",
        this.breaks(side, old, now),
        this.hasNull(now) ? "now nullable" : "no longer nullable",
      );
    }
    const [o, n] = [c.getNonNullableType(old), c.getNonNullableType(now)];
    if (o === n) return;
    if (this.isObject(o, n) && this.isObject(n, o)) this.walkObject(side, o, n, path, depth);
    else if (c.isArrayType(o) && c.isArrayType(n)) {
      this.walk(
        side,
        c.getTypeArguments(o as TypeScript.TypeReference)[0]!,
        c.getTypeArguments(n as TypeScript.TypeReference)[0]!,
        [...path, "[]"],
        depth + 1,
      );
    } else if (this.literals(o) && this.literals(n)) this.walkEnum(side, o, n, path);
    else if (!c.isTypeAssignableTo(o, n) || !c.isTypeAssignableTo(n, o)) {
      this.report(side, path, "type", this.breaks(side, o, n), `${this.show(o)} → ${this.show(n)}`);
    }
  }

  private walkObject(side: Side, o: TypeScript.Type, n: TypeScript.Type, path: string[], depth: number): void {
    const c = this.checker;
    const oldProps = new Map(c.getPropertiesOfType(o).map((p) => [p.name, p]));
    const newProps = c.getPropertiesOfType(n);
    // Renamed parameters are compared with each other (parameter-renamed is the surface pass's).
    const renamedFrom = (name: string) =>
      path.length === 2 && path[0] === "params" ? this.pair.renames.get(`${path[1]} ${name}`) : undefined;
    const matchedOld = new Set<string>();
    for (const prop of newProps) {
      const was = oldProps.get(renamedFrom(prop.name) ?? prop.name);
      const at = [...path, prop.name];
      const type = c.getTypeOfSymbol(prop);
      if (!was) {
        const required = !(prop.flags & ts.SymbolFlags.Optional);
        // A new property breaks a request when an old value, which lacks it, is no longer accepted.
        const breaking = side === "request" ? !c.isTypeAssignableTo(c.getUndefinedType(), type) : false;
        if (!this.isNever(type))
          this.report(
            side,
            at,
            "added",
            breaking,
            `${required ? "required" : "optional"} ${this.show(c.getNonNullableType(type))}`,
          );
        continue;
      }
      matchedOld.add(was.name);
      const wasType = c.getTypeOfSymbol(was);
      // A body that appears or goes (`body?: never` on the other side) is one change, not one per field.
      if (
        path.length === 0 &&
        this.isNever(c.getNonNullableType(wasType)) !== this.isNever(c.getNonNullableType(type))
      ) {
        if (this.isNever(c.getNonNullableType(type))) this.report(side, at, "removed", true, "removed");
        else
          this.report(
            side,
            at,
            "added",
            side === "request" && !c.isTypeAssignableTo(c.getUndefinedType(), type),
            `${prop.flags & ts.SymbolFlags.Optional ? "optional" : "required"} ` +
              `${this.show(c.getNonNullableType(type))}`,
          );
        continue;
      }
      const [wasOptional, isOptional] = [
        Boolean(was.flags & ts.SymbolFlags.Optional),
        Boolean(prop.flags & ts.SymbolFlags.Optional),
      ];
      if (wasOptional !== isOptional)
        this.report(
          side,
          at,
          isOptional ? "optional" : "required",
          this.breaks(side, wasType, type),
          isOptional ? "now optional" : "now required",
        );
      this.walk(side, wasType, type, at, depth + 1);
    }
    for (const [name, prop] of oldProps) {
      if (!matchedOld.has(name) && !this.isNever(c.getTypeOfSymbol(prop)))
        this.report(side, [...path, name], "removed", true, "removed");
    }
    const [oi, ni] = [c.getIndexInfosOfType(o), c.getIndexInfosOfType(n)];
    if (oi[0] && ni[0]) this.walk(side, oi[0].type, ni[0].type, [...path, "*"], depth + 1);
  }

  private walkEnum(side: Side, o: TypeScript.Type, n: TypeScript.Type, path: string[]): void {
    const members = (t: TypeScript.Type) => (t.isUnion() ? t.types : [t]);
    for (const value of members(o)) {
      if (!this.checker.isTypeAssignableTo(value, n))
        this.report(side, path, "enum-removed", side === "request", `value ${this.show(value)} removed`);
    }
    for (const value of members(n)) {
      if (!this.checker.isTypeAssignableTo(value, o))
        this.report(side, path, "enum-added", side === "response", `value ${this.show(value)} added`);
    }
  }

  /** An object type with properties (or `never`, read as "no properties", when the other side is one). */
  private isObject(t: TypeScript.Type, other: TypeScript.Type): boolean {
    if (this.isNever(t)) return this.isObject(other, t) && !this.isNever(other);
    if (t.isIntersection()) return t.types.every((m) => this.isObject(m, other));
    return (
      Boolean(t.flags & ts.TypeFlags.Object) &&
      !this.checker.isArrayType(t) &&
      !this.checker.isTupleType(t) &&
      t.getCallSignatures().length === 0
    );
  }

  private isNever(t: TypeScript.Type): boolean {
    return Boolean(t.flags & ts.TypeFlags.Never);
  }

  /** A literal or a union of literals (an enum); `boolean` is not one. */
  private literals(t: TypeScript.Type): boolean {
    if (t.flags & ts.TypeFlags.Boolean) return false;
    const members = t.isUnion() ? t.types : [t];
    return members.every((m) => m.isLiteral() || Boolean(m.flags & ts.TypeFlags.BooleanLiteral));
  }

  private hasNull(t: TypeScript.Type): boolean {
    return (t.isUnion() ? t.types : [t]).some((m) => m.flags & ts.TypeFlags.Null);
  }

  private show(t: TypeScript.Type): string {
    return short(
      this.checker.typeToString(
        t,
        undefined,
        ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope,
      ),
    );
  }

  private report(side: Side, path: string[], event: Event, breaking: boolean, detail: string): void {
    const placed = placeOf(side, path, event);
    if (!placed) return;
    this.out.push({
      kind: placed.kind,
      breaking,
      decidedBy: event === "removed" ? "declarations" : "checker",
      target: this.pair.now.operationId,
      detail: `${placed.subject}: ${detail}`,
    });
  }
}

const FIELD_KIND: Record<Event, string> = {
  added: "field-added",
  removed: "field-removed",
  required: "field-required",
  optional: "field-optional",
  type: "type-changed",
  "enum-added": "enum-value-added",
  "enum-removed": "enum-value-removed",
};

const dotted = (path: string[]) => path.join(".").replace(/\.\[\]/g, "[]");

/** The kind and the words for a change at `path` of a method's input or output; undefined: implied by another. */
function placeOf(side: Side, path: string[], event: Event): { kind: ChangeKind; subject: string } | undefined {
  if (side === "response")
    return {
      kind: `response-${FIELD_KIND[event]}` as ChangeKind,
      subject: path.length > 0 ? `response field ${dotted(path)}` : "response",
    };
  const [head, place, name, ...rest] = path;
  if (head === "params") {
    // `params` and `params.query` turning required or optional follow from a parameter's change.
    if (name === undefined) return undefined;
    const subject = `${place} parameter ${dotted([name, ...rest])}`;
    if (rest.length > 0)
      return {
        kind: event.startsWith("enum") ? (`parameter-${FIELD_KIND[event]}` as ChangeKind) : "parameter-type-changed",
        subject,
      };
    const kind = {
      added: "parameter-added",
      removed: "parameter-removed",
      required: "parameter-required",
      optional: "parameter-optional",
      type: "parameter-type-changed",
      "enum-added": "parameter-enum-value-added",
      "enum-removed": "parameter-enum-value-removed",
    }[event];
    return { kind: kind as ChangeKind, subject };
  }
  if (head === "body") {
    if (path.length === 1) {
      if (event === "added" || event === "removed") return { kind: `request-body-${event}`, subject: "request body" };
      return {
        kind: event === "type" ? "request-type-changed" : (`request-${FIELD_KIND[event]}` as ChangeKind),
        subject: "request body",
      };
    }
    return { kind: `request-${FIELD_KIND[event]}` as ChangeKind, subject: `request field ${dotted(path.slice(1))}` };
  }
  if (head === "signal") return undefined;
  return { kind: "request-type-changed", subject: path.length > 0 ? `request ${dotted(path)}` : "request" };
}
