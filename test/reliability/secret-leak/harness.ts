/** The secret-leak scan's shared state: the markers, the capture, the flows' options and the scan itself. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { packageRoot } from "../../../generator/package-root.js";
import {
  type ClientOptions,
  createServiceClient,
  createSharedState,
  type ServiceDescriptor,
} from "../../../runtime/index.js";
import { startMock, type MockOptions, type RunningMock } from "../../../runtime/mock/index.js";
import { executeTool, type ToolContext, type ToolDefinition, type ToolResult } from "../../../runtime/tools/index.js";
import { createMarkers, describeLeaks, type Leak, type Marker, needlesFor, scanText, textMarker } from "../markers.js";
import {
  Capture,
  captureProcessOutput,
  recordingProxy,
  runCliProcess,
  type ProcessResult,
} from "../secret-leak-helpers.js";
export const BOARD = "60d5ecb74e2a1b3c4d5e6f70";
export const LIST = "60d5ecb74e2a1b3c4d5e6f72";
export const MARKETO_ENDPOINT = "https://123-ABC-456.mktorest.com";
export const MARKETO_CLIENT_ID = "5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61";
export const CS_CLIENT_ID = "cs-client-id-leakscan";

export const M = createMarkers();
export const wrongCode = textMarker("contentsnare.wrongAuthorizationCode");
export const allMarkers: Marker[] = [...Object.values(M), wrongCode];
/** Tokens the mocks issued during the run (learned by the recording proxies). */
export const issued: Array<{ kind: string; value: string }> = [];
export const capture = new Capture();
let restoreOutput: () => void = () => undefined;
export let dir: string;
export const closers: Array<() => Promise<void>> = [];
/** Files the flows wrote that must be scanned (the connection stores are checked separately). */
export const writtenDirs: string[] = [];
export const storeFiles: string[] = [];
export let generated: Promise<ProcessResult & { out: string }>;

export const needles = () => needlesFor(allMarkers, issued);

/** Scans everything captured so far (and not yet scanned). */
let scanned = 0;
function leaksSoFar(): Leak[] {
  const n = needles();
  const leaks = capture.entries.slice(scanned).flatMap((e) => scanText(e.source, e.text, n));
  scanned = capture.entries.length;
  return leaks;
}
export function expectNoLeaks(): void {
  const leaks = leaksSoFar();
  expect(leaks, `secret markers leaked:\n${describeLeaks(leaks)}`).toEqual([]);
}

export async function opened<T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> {
  const t = await thing;
  closers.push(() => t.close());
  return t;
}

export const quietLimits = (d: ServiceDescriptor) =>
  Object.fromEntries(d.limits.map((l) => [l.id, { disabled: true }]));
export const fastRetry = {
  attempts: 2,
  baseDelayMs: 1,
  maxDelayMs: 5,
  maxTotalWaitMs: 500,
  random: () => 0,
  timeoutMs: 5_000,
};

export function options(
  source: string,
  descriptor: ServiceDescriptor,
  fields: Record<string, string>,
  baseUrl: string | undefined,
  extra: Partial<ClientOptions> = {},
): ToolContext {
  return {
    connection: { name: `${descriptor.id}-leakscan`, fields },
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    shared: createSharedState(),
    limits: quietLimits(descriptor),
    retry: fastRetry,
    hooks: capture.hooks(source),
    ...extra,
  };
}

/** Runs a tool step and records its result (tool steps never throw; a throw is recorded too). */
export async function step(
  source: string,
  tool: ToolDefinition,
  input: unknown,
  context: ToolContext,
): Promise<ToolResult> {
  const r = await capture.run(source, () => executeTool(tool, input, { ...context, hooks: capture.hooks(source) }));
  if (!r.ok) throw new Error(`${source}: executeTool threw (it must return a result)`);
  return r.value;
}

/** Calls one operation through a service client built for the flow; records the result or the error. */
export async function clientCall(
  source: string,
  descriptor: ServiceDescriptor,
  context: ToolContext,
  operationId: string,
  init: object = {},
) {
  return capture.run(source, () =>
    createServiceClient(descriptor, { ...context, hooks: capture.hooks(source) }).call(operationId, init),
  );
}

export async function mockWithProxy(
  service: string,
  mockOptions: MockOptions,
): Promise<{ mock: RunningMock; url: string }> {
  const mock = await opened(startMock(service, mockOptions));
  const proxy = await opened(recordingProxy(mock.url, issued));
  return { mock, url: proxy.url };
}

export const trelloCredentials = { apiKey: M.trelloApiKey.value, token: M.trelloToken.value };
export const marketoFields = {
  endpoint: MARKETO_ENDPOINT,
  clientId: MARKETO_CLIENT_ID,
  clientSecret: M.marketoClientSecret.value,
};
export const contentsnareMockCredentials = {
  clientId: CS_CLIENT_ID,
  clientSecret: M.contentsnareClientSecret.value,
  accessToken: M.contentsnareServerAccessToken.value,
  refreshToken: M.contentsnareRefreshToken.value,
};

/** Opens the scan: a temporary folder, the output capture and the generator run as a real process. */
export async function setUpLeakScan(): Promise<void> {
  dir = await mkdtemp(join(tmpdir(), "stepforge-leakscan-"));
  writtenDirs.push(dir);
  restoreOutput = captureProcessOutput(capture);
  // The generator as a real process, with markers in its environment (it must pick none up).
  const out = join(dir, "generated-trello");
  generated = runCliProcess(
    ["generate", "--spec", join(packageRoot(), "specs", "trello.yaml"), "--out", out, "--no-cache"],
    {
      TRELLO_TOKEN: M.trelloToken.value,
      TRELLO_API_KEY: M.trelloApiKey.value,
      STEPFORGE_WEBHOOK_SECRET: M.trelloWebhookSecret.value,
    },
    25_000,
  ).then((r) => ({ ...r, out }));
}

/** Closes what the flows opened and removes the temporary folder. */
export async function tearDownLeakScan(): Promise<void> {
  restoreOutput();
  await Promise.allSettled(closers.splice(0).map((close) => close()));
  await generated?.catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
}

/** Stops capturing console and stream writes (before the scan of what was printed). */
export function stopOutputCapture(): void {
  restoreOutput();
  restoreOutput = () => undefined;
}
