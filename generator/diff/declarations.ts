/**
 * types.ts for the checker, written straight from a types document: the declarations
 * openapi-typescript 7 writes with the options of generator/emit/types.ts, for the keywords
 * stepforge's specs use, as text without comments or indentation. `stepforge diff` then loads
 * neither openapi-typescript nor the Redocly core it validates and bundles every document with,
 * which was half of a diff that reaches the checker (docs/regeneration.md, Timings).
 *
 * It follows openapi-typescript's transforms rule for rule (parentheses, the dedupe of repeated
 * keywords in a union, `| null` for `nullable`, `Record<string, never>` for an empty object,
 * WithRequired for `allOf` with `required`, the order of the top-level declarations), because the
 * checker's verdicts and the types it prints in the report come from these declarations.
 * test/diff/declarations.test.ts holds both to the same tokens on every spec in the repository.
 * What it does not write (discriminators, pattern properties, `$defs`, external references, a
 * keyword of the wrong shape) throws Unwritten, and the caller asks openapi-typescript instead.
 */
import { isObject, type Json } from "../refs.js";
import {
  BOOLEAN,
  EMPTY_RECORD,
  intersection,
  literal,
  member,
  METHODS,
  NEVER,
  NULL,
  nullable,
  NUMBER,
  objectOf,
  PARAMETER_PLACES,
  primitiveKey,
  print,
  STRING,
  type TypeNode,
  union,
  UNKNOWN,
} from "./type-nodes.js";

export class Unwritten extends Error {}

/** The segments of an internal `$ref` (parseRef: `~1`, `~0`, then %-escapes; empty segments dropped). */
function pointerOf(ref: string): string[] {
  const [uri, pointer = ""] = ref.split("#/");
  if (uri !== "" && uri !== "#") throw new Unwritten(`external reference ${ref}`);
  try {
    return pointer
      .split("/")
      .map((s) => decodeURIComponent(s.replace(/~1/g, "/").replace(/~0/g, "~")))
      .filter(Boolean);
  } catch {
    throw new Unwritten(`malformed reference ${ref}`);
  }
}

/**
 * Writes the type text of a component (`["components", "schemas", "Card"]`) or of an operation's
 * parameters (`["operations", "getCard", "parameters"]`) with `write`, or names another type for it
 * (shared-components.ts shares some between the two sides of a pair file).
 */
export type PartHook = (path: readonly string[], write: () => string) => string;

export class DeclarationWriter {
  /** Declarations after components, in the order first needed: `operations`, WithRequired. */
  private readonly footer: string[] = [];
  private readonly operations: string[] = [];

  constructor(
    private readonly doc: Json,
    private readonly part: PartHook = (_path, write) => write(),
  ) {}

  /** The whole types.ts; throws Unwritten for what only openapi-typescript writes. */
  write(): string {
    const doc = this.doc;
    if (JSON.stringify(doc).includes('"discriminator"')) throw new Unwritten("discriminator");
    const declare = (name: string, members: string[] | undefined) =>
      members && members.length > 0
        ? `export interface ${name} { ${members.join(" ")} }`
        : `export type ${name} = Record<string, never>;`;
    const paths = isObject(doc.paths) ? this.pathsOf(doc.paths) : undefined;
    // Webhooks are path items by name, with no `$ref` of their own (transformWebhooksObject).
    const webhooks = isObject(doc.webhooks)
      ? Object.entries(doc.webhooks).map(([name, item]) => member(name, false, this.pathItem(this.objectOrThrow(item))))
      : undefined;
    const components = isObject(doc.components) ? this.componentsOf(doc.components) : undefined;
    if (doc.$defs && typeof doc.$defs === "object") throw new Unwritten("$defs");
    const out = [declare("paths", paths), declare("webhooks", webhooks), declare("components", components)];
    out.push("export type $defs = Record<string, never>;");
    for (const name of this.footer) {
      out.push(name === "operations" ? declare("operations", this.operations) : WITH_REQUIRED);
    }
    if (!this.footer.includes("operations")) out.push("export type operations = Record<string, never>;");
    return `${out.join("\n")}\n`;
  }

  /** A `$ref` as openapi-typescript indexes it: `components["schemas"]["Card"]`, `properties` skipped. */
  private reference(ref: string, resolved?: unknown): TypeNode {
    const pointer = pointerOf(ref);
    if (pointer.length === 0) throw new Unwritten(`reference ${ref}`);
    const index = (s: string) => `[${JSON.stringify(s)}]`;
    let text = `${pointer[0]}${pointer.slice(1, 3).map(index).join("")}`;
    const rest = pointer.slice(3);
    const parameter = isObject(resolved) && !resolved.$ref && resolved.in;
    rest.forEach((segment, i) => {
      if (segment === "properties") return;
      if (parameter && i === rest.length - 1) text += index(String(resolved.in)) + index(String(resolved.name));
      else text += index(segment);
    });
    return { kind: "reference", text };
  }

  /** What a `$ref` points at, as openapi-typescript's resolveRef (a falsy step is "not found"). */
  private resolve(ref: string): unknown {
    let node: unknown = this.doc;
    for (const key of pointerOf(ref)) {
      const next = isObject(node) || Array.isArray(node) ? (node as Json)[key] : undefined;
      if (!next) return undefined;
      node = next;
    }
    return node;
  }

  private schema(schema: unknown): TypeNode {
    if (!schema) return NEVER;
    if (schema === true) return UNKNOWN;
    if (!isObject(schema)) throw new Unwritten("a schema that is not an object");
    if ("$ref" in schema) return this.reference(String(schema.$ref));
    if (schema.const !== null && schema.const !== undefined) return literal(schema.const);
    const isObjectType = "type" in schema && schema.type === "object";
    if (
      Array.isArray(schema.enum) &&
      !isObjectType &&
      !("properties" in schema) &&
      !("additionalProperties" in schema)
    ) {
      const values = schema.enum.map(literal);
      if ((Array.isArray(schema.type) && schema.type.includes("null")) || schema.nullable) values.push(NULL);
      return union(values);
    }
    let type: TypeNode | undefined;
    const core = this.core(schema);
    const allOf = this.allOf(schema.allOf ?? [], schema.required);
    if (core || allOf.length > 0) {
      type = intersection([...(core ? [core] : []), ...(allOf.length > 0 ? [intersection(allOf)] : [])]);
    }
    const anyOf = this.list(schema.anyOf).map((item) => this.schema(item));
    if (anyOf.length > 0) type = union([...(type ? [type] : []), ...anyOf]);
    const oneOfItems = schema.oneOf || (isObjectType && schema.enum) || [];
    const oneOf = this.list(oneOfItems).map((item) => this.schema(item));
    if (oneOf.length > 0) {
      type = oneOf.every((t) => primitiveKey(t) !== undefined)
        ? union([...(type ? [type] : []), ...oneOf])
        : intersection([...(type ? [type] : []), union(oneOf)]);
    }
    type ??= "type" in schema ? EMPTY_RECORD : UNKNOWN;
    return type !== UNKNOWN && schema.nullable ? nullable(type) : type;
  }

  private list(value: unknown): unknown[] {
    if (value === undefined || value === null || value === false) return [];
    if (!Array.isArray(value)) throw new Unwritten("a composition that is not a list");
    return value;
  }

  private allOf(items: unknown, required: unknown): TypeNode[] {
    return this.list(items).map((item) => {
      if (!isObject(item)) throw new Unwritten("an allOf entry that is not an object");
      if ("$ref" in item) {
        const type = this.reference(String(item.$ref));
        const resolved = this.resolve(String(item.$ref));
        if (!isObject(resolved) || !("properties" in resolved)) return type;
        const properties = isObject(resolved.properties) ? resolved.properties : {};
        const keys = this.required(required).filter((key) => Boolean(properties[key]));
        if (keys.length === 0) return type;
        if (!this.footer.includes("WithRequired")) this.footer.push("WithRequired");
        return { kind: "reference", text: `WithRequired<${print(type)}, ${print(union(keys.map(literal)))}>` };
      }
      const own = Array.isArray(item.required) ? (item.required as string[]) : [];
      return this.schema({ ...item, required: [...this.required(required), ...own] });
    });
  }

  private required(value: unknown): string[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw new Unwritten("required that is not a list");
    return value as string[];
  }

  /** transformSchemaObjectCore: the schema's own type, before composition; undefined when it has none. */
  private core(schema: Json): TypeNode | undefined {
    const type = "type" in schema ? schema.type : undefined;
    if (type) {
      if (type === "null") return NULL;
      if (type === "string") return STRING;
      if (type === "number" || type === "integer") return NUMBER;
      if (type === "boolean") return BOOLEAN;
      if (type === "array") return this.array(schema);
      if (Array.isArray(type)) return this.typeList(schema, type);
    }
    const members: string[] = [];
    if (schema.properties && !isObject(schema.properties)) throw new Unwritten("properties is not an object");
    const properties = isObject(schema.properties) ? Object.entries(schema.properties) : [];
    const additional = "additionalProperties" in schema && schema.additionalProperties;
    if (schema.patternProperties || schema.$defs) throw new Unwritten("patternProperties or $defs");
    if (additional && typeof additional === "object" && !isObject(additional)) {
      throw new Unwritten("additionalProperties is not a schema");
    }
    if (properties.length === 0 && !additional) return undefined;
    const required = this.required(schema.required);
    for (const [key, value] of properties) {
      if ((typeof value !== "object" && typeof value !== "boolean") || Array.isArray(value) || value === null) {
        throw new Unwritten(`property ${key} is not a schema`);
      }
      const ref = typeof value === "object" && "$ref" in value && value.$ref;
      const readOnly = typeof value === "object" && "readOnly" in value && Boolean(value.readOnly);
      const type = ref ? this.reference(String(ref)) : this.schema(value);
      members.push(member(key, !required.includes(key), type, readOnly));
    }
    const index: TypeNode[] = [];
    if (isObject(additional) && Object.keys(additional).length > 0) index.push(this.schema(additional));
    if (additional === true || (isObject(additional) && Object.keys(additional).length === 0)) index.push(UNKNOWN);
    if (index.length === 0) return members.length > 0 ? objectOf(members) : undefined;
    const signature = objectOf([`[key: string]: ${print(union(index))};`]);
    return intersection([...(members.length > 0 ? [objectOf(members)] : []), signature]);
  }

  private array(schema: Json): TypeNode {
    let item: TypeNode = UNKNOWN;
    const items = schema.items;
    if (schema.prefixItems || Array.isArray(items)) {
      const prefix = this.list(schema.prefixItems ?? items);
      item = { kind: "tuple", elements: prefix.map((entry) => this.schema(entry)) };
    } else if (items) {
      const nested = isObject(items) && "type" in items && items.type === "array";
      item = nested ? { kind: "array", element: this.schema(items) } : this.schema(items);
    }
    return item.kind === "tuple" || item.kind === "array" ? item : { kind: "array", element: item };
  }

  /** `type: [a, b]` (OpenAPI 3.1): one member per type, `null` as NULL. */
  private typeList(schema: Json, types: unknown[]): TypeNode {
    const members: TypeNode[] = [];
    const oneOf = Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
    for (const t of types) {
      const simple = typeof t === "string" && ["boolean", "string", "number", "integer", "null"].includes(t);
      if (oneOf && simple && oneOf.some((o) => isObject(o) && "type" in o && o.type === t)) continue;
      if (t === "null" || t === null) members.push(NULL);
      else members.push(this.schema(oneOf ? { ...schema, type: t, oneOf: undefined } : { ...schema, type: t }));
    }
    return union(members);
  }

  private pathsOf(paths: Json): string[] {
    const members: string[] = [];
    for (const [url, item] of Object.entries(paths)) {
      if (!item || typeof item !== "object") continue;
      if (!isObject(item)) throw new Unwritten(`path ${url} is not an object`);
      const type = "$ref" in item ? this.reference(String(item.$ref)) : this.pathItem(item);
      members.push(member(url, false, type));
    }
    return members;
  }

  private pathItem(item: Json): TypeNode {
    const members = [`parameters: ${this.parameters(this.list(item.parameters))};`];
    for (const method of METHODS) {
      const op = item[method];
      if (!op) {
        members.push(`${method}?: never;`);
        continue;
      }
      if (!isObject(op)) throw new Unwritten(`operation ${method} is not an object`);
      if ("$ref" in op) {
        members.push(member(method, false, this.reference(String(op.$ref))));
        continue;
      }
      // Path-level parameters first, an operation's own replacing one of the same place and name.
      const keyed = new Map<string, unknown>();
      for (const parameter of [...this.list(item.parameters), ...this.list(op.parameters)]) {
        const p = isObject(parameter) && "$ref" in parameter ? this.resolve(String(parameter.$ref)) : parameter;
        keyed.set(`${(p as Json | undefined)?.in}-${(p as Json | undefined)?.name}`, parameter);
      }
      const operation = { ...op, parameters: [...keyed.values()] };
      if (op.operationId && typeof op.operationId !== "string") throw new Unwritten("operationId is not a string");
      if (typeof op.operationId === "string" && op.operationId !== "") {
        const id = op.operationId.replace(/#/g, "/");
        if (!this.footer.includes("operations")) this.footer.push("operations");
        // Pushed before the operation's own members are written, as openapi-typescript's footer is.
        const at = this.operations.push("") - 1;
        this.operations[at] = member(id, false, objectOf(this.operation(operation, id)));
        members.push(
          member(method, false, this.reference(`#/operations/${id.replace(/~/g, "~0").replace(/\//g, "~1")}`)),
        );
      } else members.push(member(method, false, objectOf(this.operation(operation))));
    }
    return objectOf(members);
  }

  private operation(op: Json, id?: string): string[] {
    const parameters = () => this.parameters(this.list(op.parameters));
    const members =
      id === undefined
        ? [`parameters: ${parameters()};`]
        : [`parameters: ${this.part(["operations", id, "parameters"], parameters)};`];
    const body = op.requestBody;
    if (body) {
      if (!isObject(body)) throw new Unwritten("requestBody is not an object");
      const type = "$ref" in body ? this.reference(String(body.$ref)) : this.requestBody(body);
      const resolved = "$ref" in body ? this.resolve(String(body.$ref)) : body;
      members.push(member("requestBody", !(isObject(resolved) && resolved.required), type));
    } else members.push("requestBody?: never;");
    members.push(member("responses", false, this.responses(op.responses ?? {})));
    return members;
  }

  /** The type of an operation's or a path item's `parameters`. */
  private parameters(list: unknown[]): string {
    const places = PARAMETER_PLACES.map((place) => {
      const members: Array<{ text: string; optional: boolean }> = [];
      for (const original of list) {
        const isRef = isObject(original) && "$ref" in original;
        const resolved = isRef ? this.resolve(String(original.$ref)) : original;
        if (!isObject(resolved) || resolved.in !== place) continue;
        const optional = place !== "path" && !resolved.required;
        const type = isRef
          ? this.reference(String((original as Json).$ref), resolved)
          : resolved.schema
            ? this.schema(resolved.schema)
            : STRING;
        members.push({ text: member(String(resolved.name), optional, type), optional });
      }
      const allOptional = members.every((m) => m.optional);
      const type = members.length > 0 ? objectOf(members.map((m) => m.text)) : NEVER;
      return `${place}${allOptional ? "?" : ""}: ${print(type)};`;
    });
    return `{ ${places.join(" ")} }`;
  }

  private content(content: unknown, refAsSchema: boolean): string[] {
    if (!content) return [];
    if (!isObject(content)) throw new Unwritten("content is not an object");
    return Object.entries(content).map(([mediaType, media]) => {
      if (!isObject(media)) throw new Unwritten(`media type ${mediaType} is not an object`);
      const type =
        refAsSchema && "$ref" in media ? this.schema(media) : media.schema ? this.schema(media.schema) : UNKNOWN;
      return member(mediaType, false, type);
    });
  }

  private requestBody(body: Json): TypeNode {
    const media = this.content(body.content ?? {}, true);
    return objectOf([`content: ${print(objectOf(media.length > 0 ? media : ['"*/*"?: never;']))};`]);
  }

  private responses(responses: unknown): TypeNode {
    if (!isObject(responses)) throw new Unwritten("responses is not an object");
    const members = Object.entries(responses).map(([code, response]) => {
      if (!isObject(response)) throw new Unwritten(`response ${code} is not an object`);
      return member(code, false, "$ref" in response ? this.reference(String(response.$ref)) : this.response(response));
    });
    return members.length > 0 ? objectOf(members) : NEVER;
  }

  private response(response: Json): TypeNode {
    const headers: string[] = [];
    const declared = response.headers || {};
    if (!isObject(declared)) throw new Unwritten("headers is not an object");
    for (const [name, header] of Object.entries(declared)) {
      if (!isObject(header)) throw new Unwritten(`header ${name} is not an object`);
      const isRef = "$ref" in header;
      headers.push(
        member(name, !(isRef || header.required), isRef ? this.reference(String(header.$ref)) : this.header(header)),
      );
    }
    headers.push("[name: string]: unknown;");
    const media = this.content(response.content, false);
    const content = media.length > 0 ? `content: ${print(objectOf(media))};` : "content?: never;";
    return objectOf([`headers: ${print(objectOf(headers))};`, content]);
  }

  private header(header: Json): TypeNode {
    if (header.schema) return this.schema(header.schema);
    if (header.content) return objectOf(this.content(header.content, true));
    return UNKNOWN;
  }

  private componentsOf(components: Json): string[] {
    const sections: Array<[string, (item: unknown) => TypeNode]> = [
      ["schemas", (item) => this.schema(item)],
      ["responses", (item) => this.response(this.objectOrThrow(item))],
      [
        "parameters",
        (item) => (this.objectOrThrow(item).schema ? this.schema(this.objectOrThrow(item).schema) : STRING),
      ],
      ["requestBodies", (item) => this.requestBody(this.objectOrThrow(item))],
      ["headers", (item) => this.header(this.objectOrThrow(item))],
      ["pathItems", (item) => this.pathItem(this.objectOrThrow(item))],
    ];
    return sections.map(([section, write]) => {
      const entries = Object.entries(isObject(components[section]) ? components[section] : {});
      const typeOf = (name: string, item: unknown): TypeNode => ({
        kind: "reference",
        text: this.part(["components", section, name], () => print(write(item))),
      });
      const members = entries.map(([name, item]) => member(name, false, typeOf(name, item)));
      return `${section}: ${members.length > 0 ? print(objectOf(members)) : "never"};`;
    });
  }

  private objectOrThrow(value: unknown): Json {
    if (!isObject(value)) throw new Unwritten("a component that is not an object");
    return value;
  }
}

/** openapi-typescript's helper for `allOf` of a `$ref` with `required` keys. */
const WITH_REQUIRED = "type WithRequired<T, K extends keyof T> = T & { [P in K]-?: T[P]; };";

/** types.ts of `doc` for the checker, or undefined when openapi-typescript must write it. */
export function writeDeclarations(doc: Json, part?: PartHook): string | undefined {
  try {
    return new DeclarationWriter(doc, part).write();
  } catch (error) {
    if (error instanceof Unwritten) return undefined;
    throw error;
  }
}
