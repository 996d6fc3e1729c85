/**
 * Every diagnostic code the generator reports, with its stage and what it means. This is the one
 * list: `report()` takes only these codes (a type error otherwise), and test/generator/catalogue
 * compares it with docs/diagnostics.md, so an undocumented code fails the suite.
 */

/** Each stage's codes and what they mean. */
const BY_STAGE = {
  load: {
    SF001: "The spec file cannot be read (missing, permissions).",
    SF002:
      "Not valid YAML/JSON (one diagnostic per syntax error, at its line, with a hint), or " +
      "a key written twice in one mapping (each one reported), or too many alias " +
      "expansions, or nesting deeper than 256 levels.",
    SF003: "The document is not an object.",
  },
  check: {
    SF101: "Not OpenAPI 3.0/3.1: Swagger 2 must be converted first; a newer 3.x (3.2) written as 3.1.",
    SF102: "`info.title` missing.",
    SF103: "No `paths` object (OpenAPI 3.1 documents with `webhooks` or `components` may leave it out).",
    SF104: "`paths` holds no operation. Lenient: a warning, and the output has the types and an empty client.",
    SF105:
      "No service id can be derived from the title, or the `--service NAME` given is not " +
      "one (2 to 31 lower-case letters and digits, starting with a letter).",
    SF106: "External `$ref` (another file); bundle the spec into one file.",
    SF107: "Internal `$ref` points at nothing; the message names the nearest existing target (did you mean).",
    SF108: "Unknown `x-stepforge…` key at the root.",
    SF109: "Unknown `x-stepforge…` key on an operation (with the closest known name).",
    SF110: "A path that does not start with `/`, or holds a `%` that starts no %-escape (write `%25`).",
    SF111:
      "An operationId that makes no usable method name (not a string, not an identifier, a " +
      "reserved word, `then`, `constructor`, …). Lenient: renamed, with a warning.",
    SF112:
      "Two operations with the same operationId (after normalising `get-x` → `getX`). " +
      "Lenient: the later one is numbered, with a warning.",
    SF113:
      "A `{param}` in the path with no `in: path` parameter. Lenient: a required string " +
      "parameter is added, with a warning.",
    SF114: "An `in: path` parameter the path does not contain.",
    SF115:
      "A malformed parameter: `parameters` is not a list, or an entry is not an object " +
      "with a string `name` and an `in` of `path`, `query`, `header` or `cookie`. Lenient: " +
      "the parameter is left out (it cannot be sent), with a warning.",
    SF116:
      "A path item or an operation (`get:`, `post:`, ...) that is not an object, or a path " +
      "item `$ref` that leads to none (a cycle, or a non-object).",
    SF117: "An operation without an operationId. Lenient: one is derived from the method and path, with a warning.",
    SF118:
      "Two operationIds that differ only in case (`getFoo`, `GetFoo`): they would make one " +
      "type name. Lenient: the later one is numbered, with a warning.",
    SF119:
      "An operation with a method fetch refuses to send (`trace`). Lenient: left out of " +
      "the client, tool steps and mock, with a warning.",
    SF120:
      "An `x-stepforge` extension does not match its schema (unknown key, wrong type, bad " +
      "value); the message names the key, the value expected in words and the fix, with " +
      "the nearest name for a typo. Every problem is reported in one run.",
    SF121: "An extension refers to a connection field that is not declared.",
    SF122: "`auth.defaultMode` is not one of `auth.modes`.",
    SF123: "Two limits with the same id.",
    SF124: "A connection field `pattern` is not a valid regular expression.",
    SF125: "A limit's `resetTimeZone` is not an IANA time zone this Node knows.",
    SF126: "A limit counts `per: path:NAME`, but no operation's path has `{NAME}`.",
    SF127: "`penaltySeconds` on a quota (it is refused until its reset anyway).",
    SF131: "`x-stepforge-paging` names a parameter the operation does not have.",
    SF141: "Two specs declare the same service id.",
    SF151: "`x-stepforge-triggers` names an operation the spec does not have.",
    SF152: "Two triggers with the same name.",
    SF153: "A webhook trigger filter names an option the trigger does not declare.",
    SF154:
      "A trigger names a scope `scopes` does not declare, or a scope names a reference " +
      "`delivery.refs` does not declare.",
    SF155:
      "A trigger's operation parameter is wrong: not a path parameter of the operation, a " +
      "path parameter left without a value, or a `{NAME}` value that is not the trigger's " +
      "scope.",
    SF156:
      "Warning: the spec describes OpenAPI `webhooks` but declares no " +
      "`x-stepforge-triggers`, so no trigger is made from them (how deliveries are " +
      "registered, signed and routed is not in OpenAPI).",
    SF161:
      "A schema keyword JSON Schema and OpenAPI do not define (often a YAML flow mapping " +
      "split at a comma: `{ description: a, b }` makes a key `b`). Error in specs with " +
      "`x-stepforge`, warning in foreign ones (the keyword is ignored).",
    SF162:
      "A schema `pattern` (or `patternProperties` name) that is not a valid JavaScript " +
      "regular expression, with or without the `u` flag. Error in specs with " +
      "`x-stepforge`; in foreign ones a warning, and the pattern is not checked anywhere " +
      "(tool steps, mock).",
    SF163:
      "A schema `pattern` (or `patternProperties` name) that compiles only without the `u` " +
      "flag; JSON Schema, the mock and the tool steps read patterns with it. Lenient: " +
      "respelled when the meaning stays (`[\\w-.]` → `[\\w\\-.]`, `\\:` → `:`), otherwise " +
      "not checked anywhere; a warning either way. Strict: an error with the spelling to " +
      "write.",
    SF171:
      "Foreign spec: a security scheme stepforge cannot send (e.g. mutual TLS, or an http " +
      "scheme other than basic and bearer); the derived auth leaves it out.",
    SF172:
      "A request body with no JSON media type: the client sends " +
      "application/x-www-form-urlencoded as form fields, multipart/* as parts (files as " +
      "Blob/Uint8Array) and any other type as the string or bytes given; the tool step " +
      "takes form fields, multipart parts (files as base64 or text), bytes as base64 and " +
      "text, and leaves any other body out. A warning, given only where one of them does " +
      "not send the body as the spec says.",
    SF173:
      "A cookie parameter: neither the client nor the tool step sends cookies (set a " +
      "Cookie header on the call). A warning.",
    SF191:
      "An `in: path` parameter without `required: true` (OpenAPI requires it). Lenient: " +
      "read as required (as the client, types and mock already do), with a warning.",
    SF192:
      "An example (of a media type, parameter or header) that does not match its schema: " +
      "an enum value not listed, a required field missing, a wrong type. Error in specs " +
      "with `x-stepforge`, warning in foreign ones (the example is left as written).",
    SF193:
      "Two operations on one route whose path parameters' schemas admit the same values " +
      "(`/cards/{filter}` beside `/cards/{idCard}`, both plain strings; OpenAPI forbids " +
      "such paths), so the mock cannot tell them apart. Strict: an error naming both and " +
      "the fix (an `enum`, `pattern` or `format` on one). Lenient: the mock answers both " +
      "with the earlier one, with a warning.",
    SF301:
      "A tool step (`x-stepforge-tool`, `x-stepforge.tools`) names a field or operation " +
      "that does not exist, hides a required field, or gives two steps or fields one name.",
  },
  emit: {
    SF201: "openapi-typescript could not type the spec (its message follows).",
  },
} as const satisfies Record<Stage, Record<string, string>>;

type Stage = "load" | "check" | "emit";
export type DiagnosticCode = { [S in Stage]: keyof (typeof BY_STAGE)[S] }[Stage];

/** Every code with its stage and what it means (docs/diagnostics.md has one row for each). */
export const CATALOGUE = Object.fromEntries(
  Object.entries(BY_STAGE).flatMap(([stage, codes]) =>
    Object.entries(codes).map(([code, summary]) => [code, { stage: stage as Stage, summary }]),
  ),
) as Record<DiagnosticCode, { stage: Stage; summary: string }>;
