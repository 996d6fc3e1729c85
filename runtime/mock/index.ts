/**
 * Mocks for tests: the behavioural mock (stateful, auth, limits, paging, faults, webhooks) and the
 * Prism launcher for contract checks. A generated `mock.ts` registers its service when imported;
 * `startMock("<id>")` then starts it by name, or pass a `mockDefinition` directly.
 */
import { registeredMock, registeredMocks } from "./registry.js";
import { startMockServer } from "./server.js";
import type { MockDefinition, MockOptions, RunningMock } from "./types.js";

export { MockEngine } from "./engine.js";
export type { MockRequest, Outcome } from "./engine.js";
export { loadMock, registerMock, registeredMock, registeredMocks } from "./registry.js";
export { DEFAULT_MAX_BODY_BYTES, MockListenError, startMockServer } from "./server.js";
export type {
  MockAuthOptions,
  MockCounters,
  MockDataOptions,
  MockDefinition,
  MockHooks,
  MockLimitOptions,
  MockLimitOverride,
  MockOptions,
  MockServerOptions,
  MockState,
  MockWebhookOptions,
  RunningMock,
} from "./types.js";
export type { FaultOptions } from "./faults.js";
export type { MockOperation, MockOperationSpec, MockService } from "./extension-types.js";
export { startPrism } from "./prism.js";
export { createReplayer } from "./replay.js";
export type { Replayer } from "./replay.js";
export type { PrismOptions, RunningPrism } from "./prism.js";

/**
 * Starts the behavioural mock of a service: by id (any service whose generated `mock.js` this
 * process has imported) or from a generated `mockDefinition`.
 */
export async function startMock(service: string | MockDefinition, options: MockOptions = {}): Promise<RunningMock> {
  if (typeof service !== "string") return startMockServer(service, options);
  const definition = registeredMock(service);
  if (!definition) {
    const known = registeredMocks();
    throw new Error(
      `startMock: no mock registered for "${service}" (registered: ${known.length ? known.join(", ") : "none"}); ` +
        `import its generated mock.js first (it registers itself), or pass its mockDefinition`,
    );
  }
  return startMockServer(definition, options);
}
