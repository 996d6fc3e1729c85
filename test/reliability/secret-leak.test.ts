/**
 * Secret-leak scan (issue 7, reliability suite part 3).
 *
 * Every secret the specs declare (`x-stepforge.connection.fields[*].secret: true`: Trello apiKey
 * and token, Marketo clientSecret, World News apiKey, Content Snare clientSecret, accessToken and
 * refreshToken), plus Trello's webhook secret, an OAuth authorization code and a password in a
 * hostile base address, is replaced by a marker (see markers.ts). Realistic flows then run in
 * process and through the CLI (in process and as a real process) against the behavioural mocks,
 * configured to accept the markers, and against failing and hostile endpoints. Everything the
 * flows show is captured: errors in every printable form (message, String, JSON, stack, own
 * properties, cause chain, util.inspect at full depth), every hook event, tool results, console.*
 * and process.stdout/stderr writes, process warnings, CLI stdout and stderr. The scan fails when a
 * marker, in any encoding or in part, or a token a mock issued during the run, appears in any of
 * that, in generated/, in a freshly generated client, in a snapshot file or in a file a flow wrote.
 *
 * Deliberate exceptions: the connection store is a credential store (it must hold the secrets; its
 * mode must be 0600 instead), `exchangeAuthorizationCode` returns the tokens to store, and
 * `stepforge auth trello-url` prints the API key in the authorize address (its purpose); only its
 * `key` parameter may carry the key.
 */
import { afterAll, beforeAll, describe } from "vitest";
import "../mock/register.js";
import { cliInProcessFlows } from "./secret-leak/cli-in-process.js";
import { cliProcessFlows } from "./secret-leak/cli-process.js";
import { setUpCliFixtures } from "./secret-leak/cli-setup.js";
import { hostileFlows } from "./secret-leak/flows-hostile.js";
import { serviceFlows } from "./secret-leak/flows-services.js";
import { storeAndWebhookFlows } from "./secret-leak/flows-store-webhooks.js";
import { trelloFlows } from "./secret-leak/flows-trello.js";
import { setUpLeakScan, tearDownLeakScan } from "./secret-leak/harness.js";
import { outputAndFileChecks } from "./secret-leak/output.js";
import { scannerSelfChecks } from "./secret-leak/scanner.js";

// One file, one process: the last checks scan what every flow before them captured and wrote.
beforeAll(setUpLeakScan);
afterAll(tearDownLeakScan);

describe("the scanner (self-check: the scan can fail)", () => {
  scannerSelfChecks();
});

describe("secret-leak scan: flows in process", () => {
  trelloFlows();
  hostileFlows();
  serviceFlows();
  storeAndWebhookFlows();
});

describe("secret-leak scan: the CLI", () => {
  beforeAll(setUpCliFixtures);
  cliInProcessFlows();
  cliProcessFlows();
});

describe("secret-leak scan: process output and files", () => {
  outputAndFileChecks();
});
