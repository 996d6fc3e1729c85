/**
 * SF192: an example that does not match its own schema (an enum value the enum does not list, a
 * required field missing, a string where the schema says number). The mock answers with examples
 * and tool docs show them, so a wrong one teaches a client the wrong shape. Strict specs are
 * refused; lenient ones get a warning at the example's place. Spectral's
 * `oas3-valid-media-example` reports the same defect in `lint`; this check is what `generate`
 * runs, so the two agree.
 *
 * Checked: examples of media types with a JSON (or unspecified) media type, of parameters and of
 * headers — the examples a mock, a client or a tool shows. Schemas are read as the mock's request
 * validator reads them (OpenAPI 3.0 spellings in JSON Schema 2020-12 terms, formats checked).
 */
import { createRequire } from "node:module";
import type { ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { requestComponents, requestSchema } from "../../runtime/mock/dialect.js";
import { asObject, isObject, type Json } from "../refs.js";
import type { CheckContext, Path } from "./context.js";
import { didYouMean } from "./suggest.js";

/**
 * Ajv and its formats, required on first use: a check that validates no example (`stepforge diff`)
 * does not load them (about a tenth of a second of the diff's own thread).
 */
const ajvModules = () => {
  const require = createRequire(import.meta.url);
  return {
    Ajv: (require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js")).Ajv2020,
    addFormats: require("ajv-formats") as (ajv: Ajv2020) => void,
  };
};

const SPEC_ID = "stepforge-spec.json";
/** Keys whose values are data or prose, never holding media types, parameters or headers. */
const DATA_KEYS = new Set(["example", "examples", "default", "enum", "const", "description"]);

export function checkExamples(context: CheckContext): void {
  let validator: ExampleValidator | undefined;
  // The mock ships only the components: refs elsewhere in the document are inlined, as there.
  const validate = (schema: unknown) =>
    (validator ??= validatorFor(context)).compile(context.refs.inlineOutside(schema));
  walk(context.doc, [], (node, at) => {
    const schema = node.schema;
    if (schema === undefined) return;
    const holder = at.at(-2);
    if (holder === "content" && !/json|\*\/\*/i.test(String(at.at(-1)))) return;
    if (node.example !== undefined) checkOne(context, validate, schema, node.example, [...at, "example"]);
    for (const [name, raw] of Object.entries(asObject(node.examples) ?? {})) {
      const example = asObject(context.refs.target(raw));
      if (example && Object.hasOwn(example, "value")) {
        const place: Path =
          isObject(raw) && typeof raw.$ref === "string"
            ? [...at, "examples", name]
            : [...at, "examples", name, "value"];
        checkOne(context, validate, schema, example.value, place);
      }
    }
  });
}

/** Calls `visit` on every media type, parameter and header object of the document. */
function walk(node: unknown, at: Path, visit: (node: Json, at: Path) => void): void {
  if (Array.isArray(node)) {
    node.forEach((child, i) => walk(child, [...at, i], visit));
    return;
  }
  if (!isObject(node)) return;
  const holder = at.at(-2);
  if (holder === "content" || holder === "headers" || holder === "parameters") visit(node, at);
  for (const [key, child] of Object.entries(node)) {
    if (DATA_KEYS.has(key) || key.startsWith("x-")) continue;
    walk(child, [...at, key], visit);
  }
}

function checkOne(
  context: CheckContext,
  validate: (schema: unknown) => ValidateFunction | undefined,
  schema: unknown,
  value: unknown,
  at: Path,
): void {
  const fn = validate(schema);
  if (!fn) return;
  let valid: boolean;
  try {
    valid = fn(value) as boolean;
  } catch {
    return; // a value the validator cannot read is not a finding about the example
  }
  if (valid) return;
  const error = fn.errors![0]!;
  const inside = error.instancePath
    .split("/")
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const where: Path = [...at, ...inside];
  const field = inside.length > 0 ? `"${inside.join(".")}"` : "the example";
  context.repair(
    "SF192",
    where,
    `example does not match its schema: ${field} ${wordsOf(error)}`,
    "fix the example or the schema",
    "left as written in tool docs; the mock never answers with it (it answers a valid " +
      "example of the response or a sample of the schema instead)",
  );
}

function wordsOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "enum": {
      const allowed = (params.allowedValues as unknown[]) ?? [];
      const shown = allowed.map((v) => JSON.stringify(v)).join(", ");
      const strings = allowed.filter((v): v is string => typeof v === "string");
      return `is not one of ${shown}${typeof error.data === "string" ? didYouMean(error.data, strings) : ""}`;
    }
    case "required":
      return `lacks the required field "${String(params.missingProperty)}"`;
    case "additionalProperties":
      return `has the field "${String(params.additionalProperty)}", which the schema does not allow`;
    case "type":
      return `is ${describe(error.data)}, expected ${String(params.type).replace(/,/g, " or ")}`;
    default:
      return error.message ?? "is invalid";
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  const shown = typeof value === "string" && value.length > 30 ? `${value.slice(0, 30)}…` : value;
  return `${typeof value === "string" ? "a string" : `a ${typeof value}`} (${JSON.stringify(shown)})`;
}

/**
 * Compiled validators, kept across checks of documents with the same components: Ajv compiles a
 * spec's component graph once (hundreds of milliseconds for a large spec), and lint, generate
 * --watch and tests check the same components again and again.
 */
const validators = new Map<string, ExampleValidator>();
const KEEP_VALIDATORS = 3;

function validatorFor(context: CheckContext): ExampleValidator {
  const key = JSON.stringify(context.doc.components ?? null);
  let validator = validators.get(key);
  if (validator) {
    validators.delete(key); // most recently used last
  } else {
    validator = new ExampleValidator(context.doc.components);
    if (validators.size >= KEEP_VALIDATORS) validators.delete(validators.keys().next().value!);
  }
  validators.set(key, validator);
  return validator;
}

/** Ajv over the document's components, one compiled function per schema (by its JSON). */
class ExampleValidator {
  private readonly ajv: Ajv2020 | undefined;
  private readonly compiled = new Map<string, ValidateFunction | undefined>();

  constructor(components: unknown) {
    try {
      const { Ajv, addFormats } = ajvModules();
      // inlineRefs off: each component compiles once, however many schemas refer to it.
      this.ajv = new Ajv({
        strict: false,
        logger: false,
        validateFormats: true,
        verbose: true,
        inlineRefs: false,
        code: { optimize: false },
      });
      addFormats(this.ajv);
      this.ajv.addSchema(
        { $id: SPEC_ID, components: requestComponents(components, SPEC_ID) },
        undefined,
        undefined,
        false,
      );
    } catch {
      this.ajv = undefined; // components Ajv cannot take: the examples are left unchecked
    }
  }

  /** `schema` as the mock reads it (refs outside #/components/ inlined by the caller). */
  compile(schema: unknown): ValidateFunction | undefined {
    if (!this.ajv) return undefined;
    const read = requestSchema(schema, SPEC_ID);
    const key = JSON.stringify(read);
    if (this.compiled.has(key)) return this.compiled.get(key);
    let fn: ValidateFunction | undefined;
    try {
      fn = this.ajv.compile(read as object);
    } catch {
      fn = undefined; // a schema Ajv cannot compile (a broken $ref, a pattern) is reported elsewhere
    }
    this.compiled.set(key, fn);
    return fn;
  }
}
