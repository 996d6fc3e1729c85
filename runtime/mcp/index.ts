/**
 * The MCP server over the tool steps (`stepforge mcp`): catalogue selection by service and
 * toolset, accounts, the server (default or dynamic listing, results cut to a budget with a
 * cursor), Streamable HTTP, and mock accounts.
 */
export { Accounts, AccountsError, accountsFromFile } from "./accounts.js";
export type { Account, FileAccountsOptions } from "./accounts.js";
export { selectTools, toolsetsOf, SelectionError } from "./catalog.js";
export type { Selection, ServiceCatalog } from "./catalog.js";
export { CursorStore } from "./cursors.js";
export { serveTool, outputShape, CONNECTION_FIELD, RESULT_FIELDS_FIELD } from "./listing.js";
export type { ListedTool, ServedTool } from "./listing.js";
export { StepforgeMcp, DEFAULT_RESULT_BYTES, DEFAULT_MAX_LIMIT_WAIT_MS, CONTINUE_TOOL } from "./server.js";
export type { StepforgeMcpOptions, ToolSet } from "./server.js";
export { serveMcpHttp } from "./http.js";
export { isLoopbackHost } from "../internal/loopback.js";
export type { McpHttpOptions, RunningMcpHttp } from "./http.js";
export { startMockAccounts } from "./mock-accounts.js";
export type { MockAccounts } from "./mock-accounts.js";
