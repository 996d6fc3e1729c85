/**
 * Specs nobody here wrote: a spec without x-stepforge is generated leniently — each defect with one
 * safe repair is repaired and printed as a warning with file:line:col and a JSON pointer — and
 * `--strict` refuses the same spec. Security requirements: schemes in one requirement are sent
 * together (AND), requirements are alternatives (OR) and become modes. `generate --check` reports
 * files in the output folder that no spec generates.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { joinedPattern } from "../helpers/pattern.js";
import { stringify } from "yaml";
import { operationOf } from "../../runtime/client/client.js";
import { checkSpec } from "../../generator/check/index.js";
import { SpecError } from "../../generator/diagnostics.js";
import { loadSpecText } from "../../generator/load.js";
import { packageRoot } from "../../generator/package-root.js";
import { compare, generate } from "../../generator/pipeline.js";
import { runCli } from "../helpers/cli.js";
import { typecheckGenerated } from "../helpers/tsc.js";

const root = packageRoot();
const work = join(root, "test", ".tmp", "lenient");

const ok = (description = "ok") => ({
  "200": { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Card" } } } },
});

/** One of each repairable defect, in a JSON file as published specs are (one line: the pointer finds the place). */
const defective = {
  openapi: "3.0.3",
  info: { title: "Boards", version: "1" },
  servers: [{ url: "https://api.boards.example/1" }],
  security: [{ APIKey: [], APIToken: [] }, { oauth: [] }],
  components: {
    securitySchemes: {
      APIKey: { type: "apiKey", in: "query", name: "key" },
      APIToken: { type: "apiKey", in: "query", name: "token" },
      oauth: { type: "http", scheme: "bearer" },
    },
    schemas: {
      Card: {
        type: "object",
        properties: { id: { type: "string", "when it has one.": null }, code: { type: "string", pattern: "([" } },
      },
    },
  },
  paths: {
    "/cards/{idCard}/actions": { get: { operationId: "getCardActions", responses: ok() } },
    "/cards/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      get: { operationId: "getCard", responses: ok() },
      put: { operationId: "getCard", responses: ok() },
      delete: { operationId: "GetCard", responses: ok() },
    },
    "/boards": { get: { responses: ok() }, post: { operationId: "then", responses: ok() } },
  },
};

beforeAll(() => {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, "boards.json"), JSON.stringify(defective));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("lenient generation of a foreign spec", () => {
  it("repairs each defect and reports it as a warning with its place", async () => {
    const result = await generate({
      specFiles: [join(work, "boards.json")],
      outDir: join(work, "out"),
      projectRoot: root,
    });
    const warnings = result.warnings.map((w) => `${w.code} ${w.line}:${w.column} ${w.pointer} ${w.message}`);
    expect(warnings).toEqual([
      expect.stringMatching(
        joinedPattern([
          /^SF161 1:\d+ \/components\/schemas\/Card\/properties\/id\/when it has one\. /,
          /"when it has one\." is not a schema keyword/,
        ]),
      ),
      expect.stringMatching(
        joinedPattern([
          /^SF162 1:\d+ \/components\/schemas\/Card\/properties\/code\/pattern /,
          /pattern "\(\[" is not a valid JavaScript regular expression; it is not checked/,
        ]),
      ),
      expect.stringMatching(
        joinedPattern([
          /^SF113 1:\d+ \/paths\/~1cards~1\{idCard\}~1actions\/get /,
          /path parameter "\{idCard\}" is not declared; added it as a required string$/,
        ]),
      ),
      expect.stringMatching(
        joinedPattern([
          /^SF112 1:\d+ \/paths\/~1cards~1\{id\}\/put\/operationId operationId "getCard" /,
          /is also used by GET \/cards\/\{id\}.*; named this one "getCard2"$/,
        ]),
      ),
      expect.stringMatching(
        joinedPattern([
          /^SF118 1:\d+ \/paths\/~1cards~1\{id\}\/delete\/operationId operationId "GetCard" /,
          /differs only in case .*; both would make one type name; named this one "GetCard3"$/,
        ]),
      ),
      expect.stringMatching(
        /^SF117 1:\d+ \/paths\/~1boards\/get GET \/boards has no operationId; named it "getBoards"$/,
      ),
      expect.stringMatching(
        joinedPattern([
          /^SF111 1:\d+ \/paths\/~1boards\/post\/operationId operationId "then" /,
          /is a name the client cannot use .*; named this one "then2"$/,
        ]),
      ),
    ]);
    const model = result.models[0]!;
    expect(model.operations.map((o) => o.operationId)).toEqual([
      "getCardActions",
      "getCard",
      "getCard2",
      "GetCard3",
      "getBoards",
      "then2",
    ]);
    // AND: key and token together in one mode; OR: the bearer alternative is a second mode.
    expect(model.descriptor.auth).toEqual({
      kind: "api-key",
      modes: {
        apiKey_apiToken: [
          { in: "query", name: "key", value: "{apiKey}" },
          { in: "query", name: "token", value: "{apiToken}" },
        ],
        oauth: [{ in: "header", name: "Authorization", value: "Bearer {accessToken}" }],
      },
      defaultMode: "apiKey_apiToken",
    });
    expect(
      Object.fromEntries(Object.entries(model.descriptor.connection.fields).map(([k, f]) => [k, f.required])),
    ).toEqual({ apiKey: false, apiToken: false, accessToken: false });

    // The repaired names reach the types too, so the output type-checks.
    const { write } = await import("../../generator/pipeline.js");
    write(join(work, "out"), result.files, { wholeOutDir: false });
    const check = typecheckGenerated(join(work, "tsconfig.json"), [join(work, "out")]);
    expect(check.output).toBe("");
  });

  it("prints the repairs as warnings; --strict refuses the same spec", async () => {
    const lenient = await runCli("generate", "--spec", join(work, "boards.json"), "--out", join(work, "cli"));
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toMatch(
      joinedPattern([
        /boards\.json:1:\d+ warning SF113 path parameter "\{idCard\}" is not declared; /,
        /added it as a required string \(at \/paths\/~1cards~1\{idCard\}~1actions\/get\)/,
      ]),
    );
    const strict = await runCli(
      "generate",
      "--strict",
      "--spec",
      join(work, "boards.json"),
      "--out",
      join(work, "strict"),
    );
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/error SF113 .*\(refused: --strict\)/);
    expect(strict.stderr).toMatch(/error SF161 /);
    expect(strict.stderr).toContain("nothing was written");
  });
});

describe("generate --check", () => {
  it("reports a stray file in the output folder, without removing it", async () => {
    const spec = join(work, "boards.json");
    const out = join(work, "check");
    const result = await generate({ specFiles: [spec], outDir: out, projectRoot: root });
    const { write } = await import("../../generator/pipeline.js");
    write(out, result.files, { wholeOutDir: true });
    writeFileSync(join(out, "boards", "notes.ts"), "export const mine = 1;\n");
    const drift = compare(out, result.files, { wholeOutDir: true });
    expect(drift).toEqual({ changed: [], missing: [], extra: [], stray: ["boards/notes.ts"] });
    expect(write(out, result.files, { wholeOutDir: true }).stray).toEqual(["boards/notes.ts"]);
  });
});

/** A foreign spec (no x-stepforge) with these paths, checked leniently. */
function foreign(paths: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const doc = {
    openapi: "3.0.3",
    info: { title: "Xx", version: "1" },
    servers: [{ url: "https://api.example.com" }],
    paths,
    ...extra,
  };
  return checkSpec(loadSpecText("xx.yaml", stringify(doc)));
}
const noContent = { "200": { description: "ok" } };
/** An operation that only answers 200 with no content: what a test needs when only its id matters. */
const op = (operationId: string) => ({ operationId, responses: noContent });

describe("names the language itself calls", () => {
  it(
    "renames operationIds that are Object.prototype members or toJSON: JSON.stringify or " +
      "`${client}` would send a request",
    () => {
      const model = foreign({ "/c": { get: op("toString"), post: op("toJSON"), put: op("valueOf") } });
      expect(model.operations.map((o) => o.operationId)).toEqual(["toString2", "valueOf2", "toJSON2"]);
      expect(model.warnings.map((w) => `${w.code} ${w.pointer}`)).toEqual([
        "SF111 /paths/~1c/get/operationId",
        "SF111 /paths/~1c/put/operationId",
        "SF111 /paths/~1c/post/operationId",
      ]);
      expect(Object.keys(model.descriptor.operations)).toEqual(["toString2", "valueOf2", "toJSON2"]);
      // The runtime looks operations up by own key: an inherited member is no operation.
      expect(() => operationOf(model.descriptor, "toString")).toThrow(/has no operation "toString"/);
      expect(() => operationOf(model.descriptor, "hasOwnProperty")).toThrow(/has no operation/);
    },
  );
});

describe("methods the client cannot send", () => {
  it("leaves a TRACE operation out with a warning (fetch refuses the method), not silently", () => {
    const model = foreign({ "/t": { get: op("look"), trace: op("echo") } });
    expect(model.operations.map((o) => o.operationId)).toEqual(["look"]);
    expect(model.warnings.map((w) => `${w.code} ${w.pointer} ${w.message}`)).toEqual([
      "SF119 /paths/~1t/trace TRACE /t cannot be sent: fetch refuses the TRACE method; " +
        "left it out of the client, the tool steps and the mock",
    ]);
  });
});

describe("path items that are $refs", () => {
  it(
    "follows a path item $ref (3.1 components.pathItems, or another path) to its " +
      "operations, and types the repairs",
    async () => {
      const doc = {
        openapi: "3.1.0",
        info: { title: "Xx", version: "1" },
        servers: [{ url: "https://api.example.com" }],
        paths: {
          "/other": { get: op("other") },
          "/shared": { $ref: "#/components/pathItems/Shared" },
          "/item/{id}": { $ref: "#/paths/~1other" },
        },
        components: {
          pathItems: {
            Shared: {
              get: {
                operationId: "sharedGet",
                parameters: [{ name: "limit", in: "query", schema: { type: "integer" } }],
                responses: noContent,
              },
            },
          },
        },
      };
      const file = join(work, "pathref.json");
      writeFileSync(file, JSON.stringify(doc));
      const result = await generate({ specFiles: [file], outDir: join(work, "pathref"), projectRoot: root });
      const model = result.models[0]!;
      expect(
        model.operations.map((o) => `${o.method} ${o.path} ${o.operationId} ${o.parameters.map((p) => p.name)}`),
      ).toEqual(["GET /other other ", "GET /shared sharedGet limit", "GET /item/{id} other2 id"]);
      expect(model.warnings.map((w) => `${w.code} ${w.pointer}`)).toEqual([
        "SF112 /paths/~1item~1{id}/get/operationId",
        "SF113 /paths/~1item~1{id}/get",
      ]);
      // The added {id} reaches the types of /item/{id} only, not the shared item.
      const { write } = await import("../../generator/pipeline.js");
      write(join(work, "pathref"), result.files, { wholeOutDir: false });
      expect(typecheckGenerated(join(work, "tsconfig.pathref.json"), [join(work, "pathref")]).output).toBe("");
      expect(result.files.find((f) => f.path.endsWith("types.ts"))!.content).toMatch(
        /other2: \{\s+parameters: \{\s+query\?: never;\s+header\?: never;\s+path: \{\s+id: string;/,
      );
    },
  );

  it("names the path whose $ref leads to no path item", () => {
    const model = () =>
      foreign({ "/a": { $ref: "#/paths/~1b" }, "/b": { $ref: "#/paths/~1a" }, "/c": { $ref: "#/info/title" } });
    expect(() => model()).toThrow(SpecError);
    try {
      model();
    } catch (error) {
      expect((error as SpecError).diagnostics.map((d) => `${d.code} ${d.pointer} ${d.message}`)).toEqual([
        'SF116 /paths/~1a/$ref path item "/a" refers to "#/paths/~1b", which must be an ' +
          "object of operations (get, post, ...), not a chain of $refs that never ends",
        'SF116 /paths/~1b/$ref path item "/b" refers to "#/paths/~1a", which must be an ' +
          "object of operations (get, post, ...), not a chain of $refs that never ends",
        'SF116 /paths/~1c/$ref path item "/c" refers to "#/info/title", which must be an ' +
          'object of operations (get, post, ...), not a string ("Xx")',
      ]);
    }
  });
});

describe("what the client cannot send as the spec says is said, not mis-sent silently", () => {
  const form = (type: string, schema: unknown = { type: "object", properties: { user: { type: "string" } } }) => ({
    required: true,
    content: { [type]: { schema } },
  });

  it("warns (SF172) for each request body with no JSON media type, naming the operation and the media type", () => {
    const model = foreign({
      "/upload": { post: { operationId: "upload", requestBody: form("multipart/form-data"), responses: noContent } },
      "/form": {
        post: {
          operationId: "submitForm",
          requestBody: form("application/x-www-form-urlencoded"),
          responses: noContent,
        },
      },
      "/raw": {
        put: {
          operationId: "putRaw",
          requestBody: form("application/octet-stream", { type: "string", format: "binary" }),
          responses: noContent,
        },
      },
      "/json": {
        post: {
          operationId: "postJson",
          requestBody: { content: { "application/json": {}, "multipart/form-data": {} } },
          responses: noContent,
        },
      },
    });
    // Form fields, multipart parts and bytes are sent right by the client and the tool step alike: no warning.
    expect(model.warnings.map((w) => `${w.code} ${w.pointer} ${w.message}`)).toEqual([]);
  });

  it(
    "a header parameter becomes a tool input field sent in its header; a cookie parameter " + "is a warning (SF173)",
    () => {
      const model = foreign(
        {
          "/files/{name}": {
            get: {
              operationId: "getFile",
              parameters: [
                { name: "name", in: "path", required: true, schema: { type: "string" } },
                { name: "X-Request-ID", in: "header", required: true, schema: { type: "string" } },
                { name: "If-None-Match", in: "header", schema: { type: "string" } },
                // Sent by the connection or the client, never asked of the model.
                { name: "X-Api-Key", in: "header", required: true, schema: { type: "string" } },
                { name: "Authorization", in: "header", required: true, schema: { type: "string" } },
                { name: "session", in: "cookie", required: true, schema: { type: "string" } },
              ],
              responses: noContent,
            },
          },
        },
        {
          components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "X-API-Key" } } },
          security: [{ key: [] }],
        },
      );
      const [step] = model.toolSteps;
      expect(step!.fields.map((f) => `${f.name}${f.required ? "" : "?"}`)).toEqual([
        "name",
        "X_Request_ID",
        "If_None_Match?",
      ]);
      expect(step!.wire.header).toEqual([
        ["X-Request-ID", { from: "input", field: "X_Request_ID" }],
        ["If-None-Match", { from: "input", field: "If_None_Match" }],
      ]);
      expect(model.warnings.map((w) => `${w.code} ${w.pointer} ${w.message}`)).toEqual([
        "SF173 /paths/~1files~1{name}/get/parameters GET /files/{name} (getFile) has the " +
          'cookie parameter "session" (required): neither the client nor the tool step sends ' +
          "cookies; set a Cookie header on the call",
      ]);
    },
  );
});

describe("messages say what was refused and why", () => {
  const refused = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      if (error instanceof SpecError) return error.diagnostics.map((d) => `${d.code} ${d.message}`);
      throw error;
    }
    throw new Error("expected a SpecError");
  };
  const spec = (extra: Record<string, unknown> = {}) =>
    stringify({
      openapi: "3.0.3",
      info: { title: "Xx", version: "1" },
      paths: { "/a": { get: op("a") } },
      ...extra,
    });

  it("names the --service value and the rule, instead of asking for --service", () => {
    for (const service of ["My-Svc", "a"]) {
      expect(refused(() => checkSpec(loadSpecText("xx.yaml", spec()), { serviceId: service }))).toEqual([
        `SF105 --service "${service}" is not a service id: 2 to 31 lower-case letters and ` +
          `digits, starting with a letter, e.g. myservice`,
      ]);
    }
    expect(refused(() => checkSpec(loadSpecText("xx.yaml", spec({ info: { title: "A", version: "1" } }))))).toEqual([
      'SF105 cannot derive a service id from the title "A"; pass --service NAME (2 to 31 ' +
        "lower-case letters and digits, starting with a letter, e.g. myservice)",
    ]);
  });

  it("says which OpenAPI versions are read when the document is a newer 3.x", () => {
    expect(refused(() => checkSpec(loadSpecText("xx.yaml", spec({ openapi: "3.2.0" }))))).toEqual([
      'SF101 expected "openapi: 3.1.x" (or 3.0.x), found "3.2.0"; stepforge reads OpenAPI ' +
        "3.0.x and 3.1.x; write the document as 3.1",
    ]);
  });

  it("keeps an operationId that is a Unicode identifier as written; tool names get its base letters", () => {
    const model = foreign({
      "/a": { get: op("ñandú_über") },
      "/b": { get: op("日本語 テスト") },
    });
    expect(model.operations.map((o) => o.operationId)).toEqual(["ñandú_über", "日本語テスト"]);
    expect(model.warnings).toEqual([]);
    expect(model.toolSteps[0]!.name).toBe("xx_nandu_uber");
  });
});
