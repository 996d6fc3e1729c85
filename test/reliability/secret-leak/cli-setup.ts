/** What the CLI flows share: the mocks they call and the connection files they read. */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { descriptor as contentsnareDescriptor } from "../../../generated/contentsnare/descriptor.js";
import { FileConnectionStore } from "../../../runtime/index.js";
import {
  capture,
  contentsnareMockCredentials,
  dir,
  M,
  MARKETO_CLIENT_ID,
  marketoFields,
  mockWithProxy,
  storeFiles,
  trelloCredentials,
} from "./harness.js";
export let plainFile: string;
export let revokedFile: string;
export let storeFile: string;
export let trelloUrl: string;
export let worldnewsUrl: string;
export let marketoUrl: string;
export let csUrl: string;

export async function setUpCliFixtures(): Promise<void> {
  trelloUrl = (await mockWithProxy("trello", { auth: { credentials: trelloCredentials } })).url;
  worldnewsUrl = (await mockWithProxy("worldnews", { auth: { credentials: { apiKey: M.worldnewsApiKey.value } } })).url;
  marketoUrl = (
    await mockWithProxy("marketo", {
      auth: { credentials: { clientId: MARKETO_CLIENT_ID, clientSecret: M.marketoClientSecret.value } },
    })
  ).url;
  csUrl = (await mockWithProxy("contentsnare", { auth: { credentials: contentsnareMockCredentials } })).url;
  const cliDir = join(dir, "cli");
  await mkdir(cliDir, { recursive: true });
  plainFile = join(cliDir, "plain.json");
  await writeFile(
    plainFile,
    JSON.stringify({
      work: { service: "trello", fields: trelloCredentials },
      news: { service: "worldnews", fields: { apiKey: M.worldnewsApiKey.value } },
      mkto: { service: "marketo", fields: marketoFields },
    }),
    { mode: 0o600 },
  );
  storeFiles.push(plainFile);
  revokedFile = join(cliDir, "revoked.json");
  storeFiles.push(revokedFile);
  await writeFile(
    revokedFile,
    JSON.stringify({
      work: { service: "trello", fields: { ...trelloCredentials, token: M.trelloRevokedToken.value } },
      news: { service: "worldnews", fields: { apiKey: M.worldnewsWrongKey.value } },
      mkto: { service: "marketo", fields: { ...marketoFields, clientSecret: M.marketoWrongSecret.value } },
    }),
    { mode: 0o600 },
  );
  storeFile = join(cliDir, "store.json");
  storeFiles.push(storeFile);
  await new FileConnectionStore(storeFile).put(contentsnareDescriptor, {
    name: "snare",
    fields: { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value },
  });
}

/** Records a CLI run (both streams). */
export function record(source: string, r: { stdout: string; stderr: string; code: number | null }) {
  capture.add(`${source} stdout`, r.stdout);
  capture.add(`${source} stderr`, r.stderr);
  return r;
}

/**
 * The argv of `stepforge call TOOL --input JSON [--connections FILE] --base-url URL`, in that order: the flows
 * run the same call shape with other tools, inputs, connection files and mocks.
 */
export function callArgv(tool: string, input: unknown, connections: string | undefined, baseUrl: string): string[] {
  const input_ = typeof input === "string" ? input : JSON.stringify(input);
  const files = connections === undefined ? [] : ["--connections", connections];
  return ["call", tool, "--input", input_, ...files, "--base-url", baseUrl];
}

/** The argv of `stepforge webhook serve --port 0 --secret SECRET …more` with the Trello webhook secret. */
export function webhookServeArgv(...more: string[]): string[] {
  return ["webhook", "serve", "--port", "0", "--secret", M.trelloWebhookSecret.value, ...more];
}
