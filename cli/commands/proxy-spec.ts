/**
 * What the validation proxy checks against, read from a spec file: the check stage's model (the
 * same one `generate` emits from, so parameters and bodies are read exactly as the client and the
 * mock read them) plus every response the spec declares for each operation, not only the success
 * answer the mock carries.
 */
import { relative } from "node:path";
import { checkSpec } from "../../generator/check/index.js";
import { lean } from "../../generator/schema.js";
import { loadSpecFile } from "../../generator/load.js";
import type { ServiceModel } from "../../generator/model.js";
import type { ConformanceDefinition, DeclaredResponse } from "../../runtime/observe/conformance.js";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
const JSON_MEDIA = /^application\/(.+\+)?json$|\+json$/i;

/** Every declared response of an operation: its media types and its JSON schema. */
function responsesOf(model: ServiceModel, path: string, method: string): Record<string, DeclaredResponse> | undefined {
  const paths = model.spec.data.paths;
  if (!isObject(paths)) return undefined;
  const item = model.refs.deref(paths[path]);
  const operation = item[method.toLowerCase()];
  if (!isObject(operation)) return undefined;
  const responses = model.refs.deref(operation.responses);
  const out: Record<string, DeclaredResponse> = {};
  for (const [code, raw] of Object.entries(responses)) {
    const content = model.refs.deref(raw).content;
    const media = isObject(content) ? content : {};
    const types = Object.keys(media);
    const json = types.find((t) => JSON_MEDIA.test(t.split(";")[0]!.trim()));
    const schema = json ? model.refs.deref(media[json]).schema : undefined;
    out[code] = {
      contentTypes: types,
      ...(schema !== undefined ? { schema: lean(model.refs.inlineOutside(schema)) } : {}),
    };
  }
  return out;
}

/** The conformance definition of a checked spec. */
export function conformanceFromModel(model: ServiceModel): ConformanceDefinition {
  const operations: ConformanceDefinition["operations"] = {};
  for (const op of model.operations) {
    const m = op.mock;
    // A repaired foreign spec may have moved the operation; its success answer is still known.
    const responses = responsesOf(model, op.path, op.method) ?? {
      [String(m.success.status)]: {
        contentTypes: m.success.contentType ? [m.success.contentType] : [],
        ...(m.success.schema !== undefined ? { schema: m.success.schema } : {}),
      },
    };
    operations[op.operationId] = {
      operationId: op.operationId,
      method: m.method,
      path: m.path,
      parameters: m.parameters,
      ...(m.body ? { body: m.body } : {}),
      responses,
    };
  }
  return { descriptor: model.descriptor, operations, components: lean(model.refs.inlineOutside(model.components)) };
}

/** Loads and checks `file` (a SpecError names every problem with file:line:col). */
export function conformanceFromSpec(
  file: string,
  serviceId?: string,
): { definition: ConformanceDefinition; label: string } {
  const model = checkSpec(loadSpecFile(file), serviceId ? { serviceId } : {});
  const label = relative(process.cwd(), file) || file;
  return { definition: conformanceFromModel(model), label: label.startsWith("..") ? file : label };
}
