/**
 * The heavy half of the client's response validation (response-check.ts loads it on first use):
 * the service's response schemas, from its generated mock definition, and the validation proxy's
 * checker over them.
 */
import type { ServiceDescriptor } from "../descriptor.js";
import { registeredMock } from "../mock/registry.js";
import type { MockDefinition } from "../mock/types.js";
import { ConformanceChecker, conformanceFromMock } from "./conformance.js";
import type { BodyCheck, DriftFound, ValidateOptions } from "./response-check.js";

async function definitionFor(
  descriptor: ServiceDescriptor,
  schemas: ValidateOptions["schemas"],
): Promise<MockDefinition | undefined> {
  if (schemas) {
    const loaded = await schemas();
    return "mockDefinition" in loaded ? loaded.mockDefinition : loaded;
  }
  const known = registeredMock(descriptor.id);
  if (known) return known;
  // This package's own services: generated/<id>/mock.js beside the runtime (registers itself).
  if (!/^[a-z0-9][a-z0-9-]*$/.test(descriptor.id)) return undefined;
  try {
    await import(new URL(`../../generated/${descriptor.id}/mock.js`, import.meta.url).href);
  } catch {
    return undefined;
  }
  return registeredMock(descriptor.id);
}

export async function createBodyCheck(
  descriptor: ServiceDescriptor,
  schemas: ValidateOptions["schemas"],
): Promise<BodyCheck> {
  const definition = await definitionFor(descriptor, schemas);
  if (!definition) {
    process.emitWarning(
      `stepforge: answers of ${descriptor.id} are not validated: no response schemas found; ` +
        `import its generated mock.ts or pass validate: { mode, schemas: () => import("…/mock.js") }`,
      { code: "STEPFORGE_RESPONSE_DRIFT" },
    );
    return () => [];
  }
  // Formats by shape ("fast"): the format checks (date-time, uri) were half of each answer's check.
  // The validation proxy keeps the full ones: it reports once per exchange, not on a hot path.
  const checker = new ConformanceChecker(conformanceFromMock(definition), { formats: "fast" });
  const operations = checker.definition.operations;
  return (operationId, status, body) => {
    const op = Object.hasOwn(operations, operationId) ? operations[operationId] : undefined;
    if (!op) return [];
    return checker.checkParsedBody(op, status, body).map(
      (d): DriftFound => ({
        kind: d.kind,
        pointer: d.pointer,
        expected: d.expected,
        ...(d.got !== undefined ? { got: d.got } : {}),
      }),
    );
  };
}
