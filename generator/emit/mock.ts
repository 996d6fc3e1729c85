/**
 * mock.ts of a service: the behavioural mock's definition (descriptor, mock model, and per
 * operation the parameters, body schema and success example it validates and answers with) and a
 * `start<Service>Mock(options)` function. The engine is runtime/mock; this file only carries data.
 *
 * A spec without `x-stepforge.mock` still gets a mock: every operation answers its example after
 * auth, limits and validation, with a generic JSON error shape.
 */
import { MockOperationSchema, type MockOperationSpec, type MockService } from "../../runtime/mock/model.js";
import type { ServiceModel } from "../model.js";
import { codeHeader, pascal, runtimeModule, type Emitter } from "./file.js";

type Json = Record<string, unknown>;

const asObject = (v: unknown): Json | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined);

function resolve(doc: Json, value: unknown, depth = 0): unknown {
  const obj = asObject(value);
  if (obj && typeof obj.$ref === "string" && obj.$ref.startsWith("#/") && depth < 20) {
    let node: unknown = doc;
    for (const raw of obj.$ref.slice(2).split("/")) node = asObject(node)?.[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
    return resolve(doc, node, depth + 1);
  }
  return value;
}

const DOC_KEYS = new Set(["description", "summary", "example", "examples", "externalDocs", "title", "x-stepforge-seed"]);
const NAME_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);

/** A schema without its prose and examples (the mock validates with it; it does not print it). */
function lean(node: unknown, namesHere = false): unknown {
  if (Array.isArray(node)) return node.map((n) => lean(n));
  const obj = asObject(node);
  if (!obj) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) {
    if (!namesHere && (DOC_KEYS.has(k) || k.startsWith("x-"))) continue;
    out[k] = namesHere ? lean(v) : lean(v, NAME_MAPS.has(k));
  }
  return out;
}

function exampleOf(media: Json | undefined, doc: Json): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const examples = asObject(media.examples);
  const first = examples ? asObject(resolve(doc, Object.values(examples)[0])) : undefined;
  return first?.value;
}

function operationSpecs(model: ServiceModel): Record<string, MockOperationSpec> {
  const doc = model.spec.data as Json;
  const paths = asObject(doc.paths) ?? {};
  const out: Record<string, MockOperationSpec> = {};
  for (const op of model.operations) {
    const item = asObject(paths[op.path]) ?? {};
    const raw = asObject(item[op.method.toLowerCase()]) ?? {};
    const params = new Map<string, MockOperationSpec["parameters"][number]>();
    for (const p of [...((item.parameters as unknown[]) ?? []), ...((raw.parameters as unknown[]) ?? [])]) {
      const r = asObject(resolve(doc, p));
      if (!r || typeof r.name !== "string") continue;
      const where = r.in as MockOperationSpec["parameters"][number]["in"];
      params.set(`${where}:${r.name}`, {
        name: r.name,
        in: where,
        required: r.required === true || where === "path",
        ...(r.schema !== undefined ? { schema: lean(r.schema) } : {}),
        ...(r.explode === false || (r.style !== undefined && r.style !== "form") ? { explode: r.explode === true } : {}),
      });
    }
    const body = asObject(resolve(doc, raw.requestBody));
    const content = asObject(body?.content) ?? {};
    const jsonType = Object.keys(content).find((t) => /json/.test(t));
    const responses = asObject(raw.responses) ?? {};
    const successCode = Object.keys(responses).filter((c) => /^2\d\d$/.test(c)).sort()[0] ?? "200";
    const success = asObject(resolve(doc, responses[successCode]));
    const successContent = asObject(success?.content) ?? {};
    const successType = Object.keys(successContent)[0];
    const mockExt = raw["x-stepforge-mock"];
    out[op.operationId] = {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      parameters: [...params.values()],
      ...(body
        ? { body: { required: body.required === true, contentTypes: Object.keys(content), ...(jsonType && asObject(content[jsonType])?.schema !== undefined ? { schema: lean(asObject(content[jsonType])!.schema) } : {}) } }
        : {}),
      success: {
        status: Number(successCode),
        ...(successType ? { contentType: successType } : {}),
        ...(successType ? { example: exampleOf(asObject(successContent[successType]), doc) } : {}),
        ...(successType && asObject(successContent[successType])?.schema !== undefined ? { schema: lean(asObject(successContent[successType])!.schema) } : {}),
      },
      ...(mockExt !== undefined ? { mock: MockOperationSchema.parse(mockExt) } : {}),
    };
  }
  return out;
}

/** The mock model of a spec without `x-stepforge.mock`: examples, generic errors, made-up credentials. */
function derivedMock(model: ServiceModel): MockService {
  const credentials: Record<string, string> = {};
  for (const [name, f] of Object.entries(model.descriptor.connection.fields)) credentials[name] = f.example ?? `mock-${name}`;
  return {
    credentials,
    error: { contentType: "application/json", body: { message: "{message}" } },
    answers: {},
    limits: {},
    envelopes: {},
    pageSize: 100,
    resources: {},
  } as MockService;
}


export const emitMock: Emitter = (model, context) => {
  const name = pascal(model.id);
  const mock = model.descriptor.mock;
  const components = lean(asObject((model.spec.data as Json).components) ?? {});
  const lines = [
    codeHeader(context.specLabel),
    `import { registerMock, startMockServer } from ${JSON.stringify(runtimeModule(context, "mock"))};`,
    `import type { MockDefinition, MockOptions, RunningMock } from ${JSON.stringify(runtimeModule(context, "mock"))};`,
    `import { descriptor } from "./descriptor.js";`,
    "",
    `/** The behavioural mock of ${model.title}, from ${context.specLabel}: descriptor, mock model, operations and schemas. */`,
    "export const mockDefinition: MockDefinition = registerMock({",
    "  descriptor,",
    mock ? "  mock: descriptor.mock!," : `  mock: ${JSON.stringify(derivedMock(model))},`,
    `  operations: ${JSON.stringify(operationSpecs(model), null, 2).replace(/\n/g, "\n  ")},`,
    `  components: ${JSON.stringify(components)},`,
    "});",
    "",
    `/** Starts the ${model.title} mock on 127.0.0.1 (a free port unless \`options.port\`); \`close()\` stops it. */`,
    `export function start${name}Mock(options: MockOptions = {}): Promise<RunningMock> {`,
    "  return startMockServer(mockDefinition, options);",
    "}",
    "",
  ];
  return [{ path: `${model.id}/mock.ts`, content: lines.join("\n"), ownEntry: true }];
};
