/**
 * The check stage without its parts (generator/check/parts.ts): `stepforge diff` of plain specs
 * checks with NO_PARTS, so neither zod nor the mock's modules load on the way to its report. What
 * it gives must be what the whole check gives, and what it loads must stay out of reach.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { OperationExtensionsSchema, ServiceExtensionSchema } from "../../runtime/descriptor-schemas.js";
import { checkSpec } from "../../generator/check/index.js";
import { OPERATION_EXTENSIONS, writesExtensions } from "../../generator/check/extension-keys.js";
import { NO_PARTS } from "../../generator/check/parts.js";
import { checkStage } from "../../generator/check/stage.js";
import { EXTENSION_PARTS } from "../../generator/check/zod-parts.js";
import { partsForDiff } from "../../generator/diff/specs.js";
import { loadSpecFile, loadSpecText } from "../../generator/load.js";
import { minimalSpec } from "../helpers/spec.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
const CORPUS = ["trello-openapi.json", "world-news-api-openapi-3.json"].map((f) =>
  join(ROOT, "test", "corpus", "specs", f),
);

/** A plain spec with each kind of security a derived descriptor knows, and problem+json errors. */
function securedSpec(): Record<string, any> {
  const doc = minimalSpec() as Record<string, any>;
  delete doc["x-stepforge"];
  for (const item of Object.values(doc.paths as Record<string, any>))
    for (const op of Object.values(item as Record<string, any>))
      for (const key of Object.keys(op)) if (key.startsWith("x-stepforge")) delete op[key];
  doc.servers = [{ url: "https://{region}.example.com/v1", variables: { region: { default: "eu" } } }];
  doc.components = {
    ...doc.components,
    securitySchemes: {
      APIKey: { type: "apiKey", in: "header", name: "X-Key" },
      bearer: { type: "http", scheme: "bearer" },
      basic: { type: "http", scheme: "basic" },
    },
  };
  doc.security = [{ APIKey: [] }, { bearer: [], basic: [] }];
  const problem = { type: "object", properties: { detail: { type: "string" }, title: { type: "string" } } };
  doc.paths["/widgets"].get.responses["422"] = {
    description: "refused",
    content: { "application/problem+json": { schema: problem } },
  };
  return doc;
}

const plainSpecs = () => [
  ...CORPUS.map((file) => loadSpecFile(file)),
  loadSpecText("secured.json", JSON.stringify(securedSpec())),
  loadSpecText("untitled.json", JSON.stringify({ ...securedSpec(), servers: [], security: [] })),
];

describe("the check stage without its parts", () => {
  it("derives the descriptor ServiceExtensionSchema would make of the derived values", () => {
    for (const spec of plainSpecs()) {
      const { operations: _operations, ...derived } = checkSpec(spec, { serviceId: "plain" }).descriptor;
      // What deriving computes, with every default left to the schema, as it was before it wrote them out.
      const { id, title, connection, auth, errors } = derived;
      const parsed = ServiceExtensionSchema.parse({
        id,
        title,
        connection,
        auth,
        errors: { messageFields: errors.messageFields },
      });
      // Key order too: descriptors are written out as JSON.
      expect(JSON.stringify(derived), spec.file).toBe(JSON.stringify(parsed));
    }
  });

  it("gives a plain spec the surface model the whole check gives", () => {
    const options = { serviceId: "plain", strict: false, lenientExamples: false, surfaceOnly: true } as const;
    for (const spec of plainSpecs()) {
      expect(writesExtensions(spec.data), spec.file).toBe(false);
      const { refs: _a, ...without } = checkStage(spec, options, NO_PARTS);
      const { refs: _b, ...whole } = checkStage(spec, options, EXTENSION_PARTS);
      expect(without, spec.file).toEqual(whole);
    }
  });

  it("names every key of OperationExtensionsSchema, in its order", () => {
    expect(OPERATION_EXTENSIONS).toEqual(Object.keys(OperationExtensionsSchema.shape));
  });

  it("is what diff checks with only when neither spec writes an extension", async () => {
    const plain = loadSpecText("plain.json", JSON.stringify(securedSpec()));
    expect(await partsForDiff(plain, plain)).toBe(NO_PARTS);
    const written = (edit: (doc: Record<string, any>) => void) => {
      const doc = securedSpec();
      edit(doc);
      return loadSpecText("written.json", JSON.stringify(doc));
    };
    for (const spec of [
      written((doc) => (doc["x-stepforge"] = { id: "widgets" })),
      written((doc) => (doc["x-stepforge-triggers"] = {})),
      written((doc) => (doc.paths["/widgets"].get["x-stepforge-idempotent"] = false)),
      written((doc) => (doc.paths["/widgets"]["x-stepforge-typo"] = true)),
    ])
      expect(await partsForDiff(plain, spec)).toBe(EXTENSION_PARTS);
    // A part asked of NO_PARTS is a caller's mistake, said as one.
    expect(() => NO_PARTS.operationTool({})).toThrow(/no parts for x-stepforge-tool/);
  });

  it("leaves zod and the mock's modules out of the module graph diff loads to check", () => {
    const reached = runtimeImportsFrom(join(ROOT, "generator", "diff", "specs.ts"));
    const unwanted = [...reached].filter((file) =>
      /^(zod|randexp|ajv|ajv-formats)(\/|$)|runtime\/(descriptor-schemas|mock\/(model|sample|router))\.ts$/.test(
        file.replace(`${ROOT}/`, ""),
      ),
    );
    expect(unwanted).toEqual([]);
    // The walk does reach the stage (a walk that found nothing would pass too).
    expect(reached).toContain(join(ROOT, "generator", "check", "stage.ts"));
  });
});

/**
 * The modules a source file loads when it is imported: its static imports and re-exports, but
 * not `import type` (erased) nor `import()` (loaded when called), followed through this
 * repository's sources; a package is named by its specifier and not followed.
 */
function runtimeImportsFrom(entry: string): Set<string> {
  const reached = new Set<string>();
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.add(file);
    if (!file.endsWith(".ts")) return;
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/^(?:import|export)\s+(?!type\s)(?:[^;"']*?\s+from\s+)?["']([^"']+)["']/gm)) {
      const specifier = match[1]!;
      if (specifier.startsWith("node:")) continue;
      visit(specifier.startsWith(".") ? resolve(dirname(file), specifier).replace(/\.js$/, ".ts") : specifier);
    }
  };
  visit(entry);
  return reached;
}
