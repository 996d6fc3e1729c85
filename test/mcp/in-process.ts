/**
 * In-process MCP servers for the tests: the bundled catalogs, and Trello's mock accounts served
 * over Streamable HTTP (no `stepforge mcp` process to spawn).
 */
import { loadCatalogs } from "../../cli/commands/tools.js";
import type { ServiceCatalog } from "../../runtime/mcp/catalog.js";
import {
  Accounts,
  serveMcpHttp,
  startMockAccounts,
  StepforgeMcp,
  type McpHttpOptions,
  type MockAccounts,
  type StepforgeMcpOptions,
} from "../../runtime/mcp/index.js";

/** The bundled catalog of one service. */
export async function catalogsOf(service: string): Promise<ServiceCatalog[]> {
  return (await loadCatalogs()).filter((c) => c.id === service);
}

export interface ServedTrello {
  /** Where the MCP server answers. */
  url: string;
  /** The mock accounts it calls (their request counters). */
  mocks: MockAccounts;
  /** Stops the server, then the mocks. */
  close(): Promise<void>;
}

/**
 * Trello's mock accounts behind one in-process MCP server over HTTP on a free loopback port;
 * `mcp` and `http` add to its options (a result budget, a bearer token).
 */
export async function serveTrelloOverHttp(
  options: { mcp?: Partial<StepforgeMcpOptions>; http?: Partial<McpHttpOptions> } = {},
): Promise<ServedTrello> {
  const catalogs = await catalogsOf("trello");
  const mocks = await startMockAccounts(catalogs);
  try {
    const mcp = new StepforgeMcp({ catalogs, accounts: new Accounts(mocks.accounts), ...options.mcp });
    const http = await serveMcpHttp(() => mcp.createServer(), { port: 0, ...options.http });
    return {
      url: http.url,
      mocks,
      close: async () => {
        await http.close();
        await mocks.close();
      },
    };
  } catch (error) {
    await mocks.close();
    throw error;
  }
}
