/**
 * Mocks for tests: the behavioural mock engine (stateful, auth, limits, paging, faults, webhooks)
 * and the Prism launcher for contract checks. Other projects import `startMock` from here, or a
 * service's own `start<Service>Mock` from its generated `mock.ts`.
 */
import { existsSync } from "node:fs";
import { startMockServer, type MockDefinition, type MockOptions, type RunningMock } from "./engine.js";

export { MockEngine, startMockServer } from "./engine.js";
export type { MockCounters, MockDefinition, MockLimitOverride, MockOptions, RunningMock } from "./engine.js";
export type { FaultOptions } from "./faults.js";
export { MockOperationSchema, MockServiceSchema } from "./model.js";
export type { MockOperation, MockOperationSpec, MockService } from "./model.js";
export { startPrism } from "./prism.js";
export type { PrismOptions, RunningPrism } from "./prism.js";

/**
 * The generated mock definition of one of this package's services (descriptor, mock model with its
 * credentials, operations, schemas): generated/<id>/mock.js beside dist/runtime, or mock.ts from
 * source (tsx, vitest).
 */
export async function loadMockDefinition(service: string): Promise<MockDefinition> {
  if (!/^[a-z][a-z0-9]{1,30}$/.test(service)) throw new Error(`startMock: "${service}" is not a service id`);
  const file = ["js", "ts"].map((ext) => new URL(`../../generated/${service}/mock.${ext}`, import.meta.url)).find((u) => existsSync(u));
  if (!file) throw new Error(`startMock: no generated mock for "${service}"; run \`stepforge generate\`, or pass the service's mockDefinition`);
  const module = (await import(file.href)) as { mockDefinition?: MockDefinition };
  if (!module.mockDefinition) throw new Error(`startMock: generated/${service}/mock.js exports no mockDefinition`);
  return module.mockDefinition;
}

/**
 * Starts the behavioural mock of a service: by id (`"trello"`, one of this package's generated
 * services) or from a generated `mockDefinition` (any spec, including your own).
 */
export async function startMock(service: string | MockDefinition, options: MockOptions = {}): Promise<RunningMock> {
  return startMockServer(typeof service === "string" ? await loadMockDefinition(service) : service, options);
}
