/**
 * Operation ids: each operation's method name on the client, from its operationId (made an
 * identifier) or derived from its method and path, claimed in the client's name table; a missing,
 * invalid, duplicate or case-colliding id is repaired (lenient) or reported (strict), and the
 * repair is written into the types document too.
 */
import { type NameTable, startsIdentifier, toIdentifier } from "../names.js";
import type { Json } from "../refs.js";
import { describeValue, type CheckContext, type Path } from "./context.js";
import { type TypesDocument, typesOperation } from "./types-document.js";

/**
 * What the generated client class declares itself, or what must never be a method: `then` makes a
 * thenable client; the Object.prototype members and `toJSON` are called by the language itself
 * (`${client}`, JSON.stringify, ==), so a method of that name would send a request.
 */
export const CLIENT_RESERVED = [
  "core",
  "constructor",
  "descriptor",
  "then",
  "__proto__",
  "prototype",
  "toJSON",
  "toString",
  "toLocaleString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
];

/** The method name of an operation, repaired (lenient) or reported (strict); undefined when refused outright. */
export function operationIdOf(
  context: CheckContext,
  names: NameTable,
  op: Json,
  method: string,
  path: string,
  at: Path,
  types: TypesDocument,
): string | undefined {
  const where = `${method.toUpperCase()} ${path}`;
  if (op.operationId !== undefined && typeof op.operationId !== "string") {
    context.report(
      "SF111",
      [...at, "operationId"],
      `operationId must be a string, not ${describeValue(op.operationId)}; write it in lowerCamelCase`,
    );
    return undefined;
  }
  const written = op.operationId as string | undefined;
  // Public specs often use ids like "get-stations"; the method becomes getStations (a spelling, not a defect).
  const wanted = written !== undefined ? toIdentifier(written) : deriveOperationId(method, path);
  if (written === undefined)
    context.repair("SF117", at, `${where} has no operationId`, "add one in lowerCamelCase", `named it "${wanted}"`);
  else if (!startsIdentifier(written.trim()))
    context.repair(
      "SF111",
      [...at, "operationId"],
      `operationId "${written}" does not make a method name`,
      "rename it in lowerCamelCase",
      `named it "${wanted}"`,
    );
  const holder = names.ownerOf(wanted);
  const claim = names.claim(wanted, `${where} ("${wanted}")`);
  if (claim.name !== wanted) {
    const shown = written ?? wanted;
    const fix = `named this one "${claim.name}"`;
    if (holder === undefined || holder.startsWith("the generated code")) {
      context.repair(
        "SF111",
        [...at, "operationId"],
        `operationId "${shown}" is a name the client cannot use (${claim.changed})`,
        "rename it",
        fix,
      );
    } else if (holder.endsWith(`("${wanted}")`)) {
      context.repair(
        "SF112",
        [...at, "operationId"],
        `operationId "${shown}" is also used by ${holder}; every operation needs its own`,
        "rename one",
        fix,
      );
    } else {
      context.repair(
        "SF118",
        [...at, "operationId"],
        `operationId "${shown}" differs only in case from ${holder}; both would make one type name`,
        "rename one",
        fix,
      );
    }
  }
  if (claim.name !== written) {
    types.patch((copy) => {
      const target = typesOperation(copy, path, method);
      if (target) target.operationId = claim.name;
    });
  }
  return claim.name;
}

export function deriveOperationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .map((seg) => seg.replace(/[{}]/g, "").replace(/\.[a-z]+$/i, ""))
    .flatMap((seg) => seg.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  const camel = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
  const id = method.toLowerCase() + camel;
  return /^[A-Za-z_$]/.test(id) ? id : `op${id}`;
}
