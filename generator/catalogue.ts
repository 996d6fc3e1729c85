/**
 * Every diagnostic code the generator reports, with its stage and what it means. This is the one
 * list: `report()` takes only these codes (a type error otherwise), and test/generator/catalogue
 * compares it with docs/diagnostics.md, so an undocumented code fails the suite.
 */
export const CATALOGUE = {
  SF001: { stage: "load", summary: "The spec file cannot be read (missing, permissions)." },
  SF002: {
    stage: "load",
    summary:
      "Not valid YAML/JSON (one diagnostic per syntax error, at its line, with a hint), or a key written twice in one mapping (each one reported), or too many alias expansions, or nesting deeper than 256 levels.",
  },
  SF003: { stage: "load", summary: "The document is not an object." },
  SF101: {
    stage: "check",
    summary: "Not OpenAPI 3.0/3.1: Swagger 2 must be converted first; a newer 3.x (3.2) written as 3.1.",
  },
  SF102: { stage: "check", summary: "`info.title` missing." },
  SF103: {
    stage: "check",
    summary: "No `paths` object (OpenAPI 3.1 documents with `webhooks` or `components` may leave it out).",
  },
  SF104: {
    stage: "check",
    summary: "`paths` holds no operation. Lenient: a warning, and the output has the types and an empty client.",
  },
  SF105: {
    stage: "check",
    summary:
      "No service id can be derived from the title, or the `--service NAME` given is not one (2 to 31 lower-case letters and digits, starting with a letter).",
  },
  SF106: { stage: "check", summary: "External `$ref` (another file); bundle the spec into one file." },
  SF107: {
    stage: "check",
    summary: "Internal `$ref` points at nothing; the message names the nearest existing target (did you mean).",
  },
  SF108: { stage: "check", summary: "Unknown `x-stepforge…` key at the root." },
  SF109: { stage: "check", summary: "Unknown `x-stepforge…` key on an operation (with the closest known name)." },
  SF110: {
    stage: "check",
    summary: "A path that does not start with `/`, or holds a `%` that starts no %-escape (write `%25`).",
  },
  SF111: {
    stage: "check",
    summary:
      "An operationId that makes no usable method name (not a string, not an identifier, a reserved word, `then`, `constructor`, …). Lenient: renamed, with a warning.",
  },
  SF112: {
    stage: "check",
    summary:
      "Two operations with the same operationId (after normalising `get-x` → `getX`). Lenient: the later one is numbered, with a warning.",
  },
  SF113: {
    stage: "check",
    summary:
      "A `{param}` in the path with no `in: path` parameter. Lenient: a required string parameter is added, with a warning.",
  },
  SF114: { stage: "check", summary: "An `in: path` parameter the path does not contain." },
  SF115: {
    stage: "check",
    summary:
      "A malformed parameter: `parameters` is not a list, or an entry is not an object with a string `name` and an `in` of `path`, `query`, `header` or `cookie`. Lenient: the parameter is left out (it cannot be sent), with a warning.",
  },
  SF116: {
    stage: "check",
    summary:
      "A path item or an operation (`get:`, `post:`, ...) that is not an object, or a path item `$ref` that leads to none (a cycle, or a non-object).",
  },
  SF117: {
    stage: "check",
    summary: "An operation without an operationId. Lenient: one is derived from the method and path, with a warning.",
  },
  SF118: {
    stage: "check",
    summary:
      "Two operationIds that differ only in case (`getFoo`, `GetFoo`): they would make one type name. Lenient: the later one is numbered, with a warning.",
  },
  SF119: {
    stage: "check",
    summary:
      "An operation with a method fetch refuses to send (`trace`). Lenient: left out of the client, tool steps and mock, with a warning.",
  },
  SF120: {
    stage: "check",
    summary:
      "An `x-stepforge` extension does not match its schema (unknown key, wrong type, bad value); the message names the key, the value expected in words and the fix, with the nearest name for a typo. Every problem is reported in one run.",
  },
  SF121: { stage: "check", summary: "An extension refers to a connection field that is not declared." },
  SF122: { stage: "check", summary: "`auth.defaultMode` is not one of `auth.modes`." },
  SF123: { stage: "check", summary: "Two limits with the same id." },
  SF124: { stage: "check", summary: "A connection field `pattern` is not a valid regular expression." },
  SF125: { stage: "check", summary: "A limit's `resetTimeZone` is not an IANA time zone this Node knows." },
  SF126: { stage: "check", summary: "A limit counts `per: path:NAME`, but no operation's path has `{NAME}`." },
  SF127: { stage: "check", summary: "`penaltySeconds` on a quota (it is refused until its reset anyway)." },
  SF131: { stage: "check", summary: "`x-stepforge-paging` names a parameter the operation does not have." },
  SF141: { stage: "check", summary: "Two specs declare the same service id." },
  SF151: { stage: "check", summary: "`x-stepforge-triggers` names an operation the spec does not have." },
  SF152: { stage: "check", summary: "Two triggers with the same name." },
  SF153: { stage: "check", summary: "A webhook trigger filter names an option the trigger does not declare." },
  SF154: {
    stage: "check",
    summary:
      "A trigger names a scope `scopes` does not declare, or a scope names a reference `delivery.refs` does not declare.",
  },
  SF155: {
    stage: "check",
    summary:
      "A trigger's operation parameter is wrong: not a path parameter of the operation, a path parameter left without a value, or a `{NAME}` value that is not the trigger's scope.",
  },
  SF156: {
    stage: "check",
    summary:
      "Warning: the spec describes OpenAPI `webhooks` but declares no `x-stepforge-triggers`, so no trigger is made from them (how deliveries are registered, signed and routed is not in OpenAPI).",
  },
  SF161: {
    stage: "check",
    summary:
      "A schema keyword JSON Schema and OpenAPI do not define (often a YAML flow mapping split at a comma: `{ description: a, b }` makes a key `b`). Error in specs with `x-stepforge`, warning in foreign ones (the keyword is ignored).",
  },
  SF162: {
    stage: "check",
    summary:
      "A schema `pattern` (or `patternProperties` name) that is not a valid JavaScript regular expression, with or without the `u` flag. Error in specs with `x-stepforge`; in foreign ones a warning, and the pattern is not checked anywhere (tool steps, mock).",
  },
  SF163: {
    stage: "check",
    summary:
      "A schema `pattern` (or `patternProperties` name) that compiles only without the `u` flag; JSON Schema, the mock and the tool steps read patterns with it. Lenient: respelled when the meaning stays (`[\\w-.]` → `[\\w\\-.]`, `\\:` → `:`), otherwise not checked anywhere; a warning either way. Strict: an error with the spelling to write.",
  },
  SF171: {
    stage: "check",
    summary:
      "Foreign spec: a security scheme stepforge cannot send (e.g. mutual TLS, or an http scheme other than basic and bearer); the derived auth leaves it out.",
  },
  SF172: {
    stage: "check",
    summary:
      "A request body with no JSON media type: the client sends application/x-www-form-urlencoded as form fields, multipart/* as parts (files as Blob/Uint8Array) and any other type as the string or bytes given; the tool step takes form fields, multipart parts (files as base64 or text), bytes as base64 and text, and leaves any other body out. A warning, given only where one of them does not send the body as the spec says.",
  },
  SF173: {
    stage: "check",
    summary:
      "A cookie parameter: neither the client nor the tool step sends cookies (set a Cookie header on the call). A warning.",
  },
  SF191: {
    stage: "check",
    summary:
      "An `in: path` parameter without `required: true` (OpenAPI requires it). Lenient: read as required (as the client, types and mock already do), with a warning.",
  },
  SF192: {
    stage: "check",
    summary:
      "An example (of a media type, parameter or header) that does not match its schema: an enum value not listed, a required field missing, a wrong type. Error in specs with `x-stepforge`, warning in foreign ones (the example is left as written).",
  },
  SF193: {
    stage: "check",
    summary:
      "Two operations on one route whose path parameters' schemas admit the same values (`/cards/{filter}` beside `/cards/{idCard}`, both plain strings; OpenAPI forbids such paths), so the mock cannot tell them apart. Strict: an error naming both and the fix (an `enum`, `pattern` or `format` on one). Lenient: the mock answers both with the earlier one, with a warning.",
  },
  SF201: { stage: "emit", summary: "openapi-typescript could not type the spec (its message follows)." },
  SF301: {
    stage: "check",
    summary:
      "A tool step (`x-stepforge-tool`, `x-stepforge.tools`) names a field or operation that does not exist, hides a required field, or gives two steps or fields one name.",
  },
} as const satisfies Record<string, { stage: "load" | "check" | "emit"; summary: string }>;

export type DiagnosticCode = keyof typeof CATALOGUE;
