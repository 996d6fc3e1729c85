/**
 * The MCP server over the tool steps (`stepforge mcp`): catalogue selection by service and
 * toolset (path groups where a spec declares none), accounts, the server (default or dynamic
 * listing, the listing budget and client profiles, results cut to a budget with a cursor),
 * Streamable HTTP, and mock accounts.
 */
export { Accounts, AccountsError, accountsFromFile } from "./accounts.js";
export type { Account, FileAccountsOptions } from "./accounts.js";
export { selectTools, toolsetsOf, toolsetsOfCatalog, SelectionError } from "./catalog.js";
export { pathToolsets } from "./path-toolsets.js";
export { CLIENT_NAMES, CLIENT_PROFILES, DEFAULT_LISTING_BUDGET, clientProfile, clientToolName } from "./budget.js";
export type { ClientName, ClientProfile, ListingBudget } from "./budget.js";
export type { Selection, ServiceCatalog } from "./catalog.js";
export { CursorStore } from "./cursors.js";
export { serveTool, serveTools, outputShape, CONNECTION_FIELD, RESULT_FIELDS_FIELD } from "./listing.js";
export type { ListedTool, ServedTool } from "./listing.js";
export { StepforgeMcp, DEFAULT_RESULT_BYTES, DEFAULT_MAX_LIMIT_WAIT_MS, CONTINUE_TOOL, SERVER_NAME } from "./server.js";
export type { StepforgeMcpOptions, ToolSet } from "./server.js";
export { serveMcpHttp } from "./http.js";
export { isLoopbackHost } from "../internal/loopback.js";
export type { McpHttpOptions, RunningMcpHttp } from "./http.js";
export { startMockAccounts } from "./mock-accounts.js";
export type { MockAccounts } from "./mock-accounts.js";
