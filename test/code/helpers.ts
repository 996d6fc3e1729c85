/**
 * For the code mode's tests: the four services' catalogues and generated declarations, mock
 * accounts started in this process, and an MCP SDK client connected in memory to a StepforgeMcp
 * serving the steps (direct), the meta-tools (dynamic) or code mode.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import "../mock/register.js";
import { loadCatalogs } from "../../cli/commands/tools.js";
import {
  createCodeMode,
  loadCodeServices,
  type CodeMode,
  type CodeModeOptions,
  type CodeService,
} from "../../runtime/code/index.js";
import { Accounts, startMockAccounts, StepforgeMcp, type Account, type MockAccounts } from "../../runtime/mcp/index.js";
import type { ServiceCatalog } from "../../runtime/mcp/catalog.js";
import type { StepforgeMcpOptions } from "../../runtime/mcp/server.js";

export const GENERATED = fileURLToPath(new URL("../../generated/", import.meta.url));

let catalogs: Promise<ServiceCatalog[]> | undefined;
export function bundledCatalogs(): Promise<ServiceCatalog[]> {
  catalogs ??= loadCatalogs();
  return catalogs;
}

export async function bundledServices(): Promise<CodeService[]> {
  return loadCodeServices(await bundledCatalogs(), GENERATED);
}

/** The mocks of these services (all four by default), each with its one "mock" account. */
export async function mockAccounts(ids?: string[]): Promise<MockAccounts> {
  const all = await bundledCatalogs();
  return startMockAccounts(ids ? all.filter((c) => ids.includes(c.id)) : all);
}

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

/** An SDK client talking to `mcp` through an in-memory transport pair. */
export async function connect(mcp: StepforgeMcp): Promise<Connected> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = mcp.createServer();
  await server.connect(serverSide);
  const client = new Client({ name: "stepforge-code-test", version: "1.0.0" });
  await client.connect(clientSide);
  return { client, close: async () => void (await Promise.allSettled([client.close(), server.close()])) };
}

export type Mode = "direct" | "dynamic" | "code";

export interface Served extends Connected {
  mcp: StepforgeMcp;
  code?: CodeMode | undefined;
}

/** A server in one mode over these accounts, and a client connected to it. */
export async function serve(
  mode: Mode,
  accounts: Array<[string, Account[]]>,
  options: Partial<StepforgeMcpOptions> & { code?: Partial<CodeModeOptions> } = {},
): Promise<Served> {
  const all = await bundledCatalogs();
  const { code: codeOptions, ...rest } = options;
  const code =
    mode === "code"
      ? await createCodeMode({
          services: await bundledServices(),
          connections: new Accounts(accounts),
          ...rest,
          ...codeOptions,
        })
      : undefined;
  await code?.ready();
  const mcp = new StepforgeMcp({
    catalogs: all,
    accounts: new Accounts(accounts),
    dynamic: mode === "dynamic",
    toolSet: code,
    // "direct" is every step listed as a tool, the comparison's baseline: the listing budget (which
    // would serve the meta-tools over 120 KB, as the four services with output schemas are) is off.
    ...(mode === "direct" ? { budget: false as const } : {}),
    ...rest,
  });
  const connected = await connect(mcp);
  return {
    ...connected,
    mcp,
    code,
    close: async () => {
      await connected.close();
      await code?.close();
    },
  };
}

/** The text blocks of a tools/call result. */
export function texts(result: unknown): string[] {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.filter((c) => c.type === "text").map((c) => c.text ?? "");
}

/** The first text block parsed as JSON. */
export function json<T = Record<string, unknown>>(result: unknown): T {
  return JSON.parse(texts(result)[0]!) as T;
}
