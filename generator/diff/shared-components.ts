/**
 * Both sides' types.ts for the pair file (pair-file.ts), with what they declare alike written once.
 * A component, or an operation's parameters, whose declaration is the same text on both sides and
 * references only such components, is the same type on both: the new side names the old side's
 * (`Old.components[…]`, `Old.operations[…]["parameters"]`) instead of declaring it again. An edit
 * usually touches a few schemas that many operations reach, so most of what the compared
 * operations reach is unchanged (their parameters, most often); the checker then parses it once and
 * meets one type where it met two equal ones, which the walk in typecheck.ts passes over at once
 * (`old === now`). The verdict on what did change is the checker's as before: the changed
 * components, and every component that reaches one, are still declared on each side.
 */
import type { Json } from "../refs.js";
import { type PartHook, writeDeclarations } from "./declarations.js";

/** A part of types.ts by its path (`["components", "schemas", "Card"]`), as one map key. */
const keyOf = (path: readonly string[]) => JSON.stringify(path);

/**
 * An indexed reference as declarations.ts writes one (`components["schemas"]["Card"]["id"]`):
 * an identifier, then indexes that are JSON strings. A string literal's own quotes are escaped in
 * the text, so one never matches.
 */
const REFERENCE = /([A-Za-z_$][\w$]*)((?:\["(?:[^"\\]|\\.)*"\])+)/g;
const INDEX = /\["((?:[^"\\]|\\.)*)"\]/g;

/** The components a declaration references, or undefined when it references anything else. */
function referencesOf(text: string): string[] | undefined {
  const found: string[] = [];
  for (const [, root, indexes] of text.matchAll(REFERENCE)) {
    if (root !== "components") return undefined;
    const [section, name] = [...indexes!.matchAll(INDEX)].map(([, segment]) => JSON.parse(`"${segment}"`) as string);
    if (section === undefined || name === undefined) return undefined;
    found.push(keyOf(["components", section, name]));
  }
  return found;
}

/**
 * The components to share: declared alike on both sides, and referencing only components that
 * are themselves shared (dropped until nothing changes, so a change reaches everything above it).
 */
function sharedComponents(old: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>): Set<string> {
  const references = new Map<string, string[]>();
  for (const [key, text] of now) {
    const found = old.get(key) === text ? referencesOf(text) : undefined;
    if (found) references.set(key, found);
  }
  const shared = new Set(references.keys());
  for (let dropped = true; dropped; ) {
    dropped = false;
    for (const key of shared) {
      if (references.get(key)!.every((ref) => shared.has(ref))) continue;
      shared.delete(key);
      dropped = true;
    }
  }
  return shared;
}

/**
 * types.ts of both sides as declarations.ts writes them, the new one naming `oldNamespace`'s
 * declaration of every shared component; undefined when declarations.ts writes either not.
 */
export function writeSharedTypes(
  oldDoc: Json,
  newDoc: Json,
  oldNamespace: string,
): { oldTypes: string; newTypes: string } | undefined {
  const recorder = (into: Map<string, string>): PartHook => {
    return (path, write) => {
      const text = write();
      into.set(keyOf(path), text);
      return text;
    };
  };
  const [oldTexts, newTexts] = [new Map<string, string>(), new Map<string, string>()];
  const oldTypes = writeDeclarations(oldDoc, recorder(oldTexts));
  const whole = writeDeclarations(newDoc, recorder(newTexts));
  if (oldTypes === undefined || whole === undefined) return undefined;
  const shared = sharedComponents(oldTexts, newTexts);
  if (shared.size === 0) return { oldTypes, newTypes: whole };
  const index = (segment: string) => `[${JSON.stringify(segment)}]`;
  const newTypes = writeDeclarations(newDoc, (path, write) =>
    shared.has(keyOf(path)) ? `${oldNamespace}.${path[0]}${path.slice(1).map(index).join("")}` : write(),
  );
  return newTypes === undefined ? undefined : { oldTypes, newTypes };
}
