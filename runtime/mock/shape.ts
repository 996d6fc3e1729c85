/**
 * Records shaped by their resource's schema (`resources.<r>.schema`): what keeps the answers of a
 * mock whose behaviour was inferred valid against the spec's response schemas, whatever the
 * request sent.
 *
 * - `complete`: a created or changed record gets a sampled value for each required field the
 *   request did not give (an id-less `createdAt`, a read-only `status`), and a top-level value the
 *   schema refuses is replaced by a sample (a text where the response has a number). The id and
 *   parent fields are kept, turned into the schema's type where they are digits (`"7"` → 7).
 * - `output`: a copy without the fields a closed schema (`additionalProperties: false`) does not
 *   declare, such as the parent field the mock keeps for nested lists; the record itself when there
 *   is nothing to leave out.
 *
 * Only the top level is shaped: its properties come from the schema with `$ref`s followed and
 * `allOf` members merged; nested values are checked as a whole against their property's schema.
 */
import { getPath } from "../internal/values.js";
import { typesOf } from "./dialect.js";
import { pointerResolver, sampleFromSchema } from "./sample.js";
import type { Rec } from "./types.js";
import type { RequestValidator } from "./validate.js";

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => v !== null && typeof v === "object" && !Array.isArray(v);

/** The top level of a record schema: its properties, required names and, when closed, the names it allows. */
export interface RecordView {
  properties: Map<string, unknown>;
  required: string[];
  closed?: Set<string> | undefined;
}

/** The top level of `schema`, `$ref`s followed (each once) and `allOf` members merged. */
export function recordView(schema: unknown, resolve: (ref: string) => unknown): RecordView {
  const view: RecordView = { properties: new Map(), required: [] };
  const entered = new Set<string>();
  const visit = (node: unknown): void => {
    if (!isNode(node)) return;
    if (typeof node.$ref === "string") {
      if (entered.has(node.$ref)) return;
      entered.add(node.$ref);
      let target: unknown;
      try {
        target = resolve(node.$ref);
      } catch {
        return; // a reference the shipped components lack: nothing to learn from it
      }
      visit(target);
    }
    const properties = isNode(node.properties) ? node.properties : {};
    for (const [name, sub] of Object.entries(properties)) {
      const known = view.properties.get(name);
      view.properties.set(name, known === undefined ? sub : { allOf: [known, sub] });
    }
    if (Array.isArray(node.required))
      for (const name of node.required)
        if (typeof name === "string" && !view.required.includes(name)) view.required.push(name);
    if (node.additionalProperties === false) {
      const declared = new Set(Object.keys(properties));
      view.closed = view.closed ? new Set([...view.closed].filter((k) => declared.has(k))) : declared;
    }
    if (Array.isArray(node.allOf)) for (const member of node.allOf) visit(member);
  };
  visit(schema);
  return view;
}

export class RecordShaper {
  private readonly resolve: (ref: string) => unknown;
  private readonly views = new Map<string, RecordView>();

  constructor(
    components: unknown,
    private readonly validator: RequestValidator,
    private readonly seed: number,
  ) {
    this.resolve = pointerResolver({ components });
  }

  /** The top level of `schema`, worked out once per `key` (a resource, an operation). */
  view(key: string, schema: unknown): RecordView {
    let view = this.views.get(key);
    if (!view) this.views.set(key, (view = recordView(schema, this.resolve)));
    return view;
  }

  /** Fills and repairs `record` in place; `keep` are fields the mock owns (id, parent, lookup key). */
  complete(resource: string, schema: unknown, record: Rec, keep: readonly string[]): void {
    const view = this.view(`resource:${resource}`, schema);
    const id = String(getPath(record, keep[0] ?? "id") ?? "");
    const sample = (name: string, sub: unknown) =>
      sampleFromSchema(sub ?? {}, { seed: `${this.seed}:${resource}:${id}:${name}`, resolve: this.resolve });
    for (const name of keep) {
      const sub = view.properties.get(name);
      if (sub !== undefined && Object.hasOwn(record, name)) record[name] = this.typed(record[name], sub);
    }
    for (const name of view.required) {
      if (!Object.hasOwn(record, name)) record[name] = sample(name, view.properties.get(name));
    }
    for (const [name, sub] of view.properties) {
      if (keep.includes(name) || !Object.hasOwn(record, name)) continue;
      if (!this.validator.accepts(`${resource}.${name}`, sub, record[name])) record[name] = sample(name, sub);
    }
  }

  /** The record as answered: without the fields a closed schema leaves out (a copy then). */
  output(resource: string, schema: unknown, record: Rec): Rec {
    const closed = this.view(`resource:${resource}`, schema).closed;
    if (!closed || Object.keys(record).every((k) => closed.has(k))) return record;
    const out: Rec = {};
    for (const [k, v] of Object.entries(record)) if (closed.has(k)) out[k] = v;
    return out;
  }

  /** A path segment's text as the property's type wants it: digits become a number for a numeric field. */
  private typed(value: unknown, schema: unknown): unknown {
    let node = schema;
    for (let i = 0; i < 8 && isNode(node) && typeof node.$ref === "string"; i++) {
      try {
        node = this.resolve(node.$ref);
      } catch {
        return value;
      }
    }
    const types = isNode(node) ? (typesOf(node) ?? []) : [];
    if (
      typeof value === "string" &&
      (types.includes("integer") || types.includes("number")) &&
      !types.includes("string")
    ) {
      const n = Number(value);
      if (value.trim() !== "" && Number.isFinite(n)) return n;
    }
    if (
      typeof value === "number" &&
      types.includes("string") &&
      !types.includes("number") &&
      !types.includes("integer")
    )
      return String(value);
    return value;
  }
}
