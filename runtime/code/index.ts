/**
 * Code mode (`stepforge mcp --code`): `search` and `execute` over the typed clients, the agent's
 * TypeScript type-checked against the generated declarations and run in a QuickJS sandbox whose
 * only way out is the runtime client of the server's accounts.
 */
export { CodeMode } from "./mode.js";
export { createCodeMode } from "./prepare.js";
export type { CodeModeOptions } from "./prepare.js";
export { CodeModeSetupError, loadCodeServices } from "./load.js";
export type { CodeService } from "./load.js";
export { DEFAULT_BUDGETS } from "./protocol.js";
export type { SandboxBudgets, SandboxFailureKind } from "./protocol.js";
export type { WriteRecord } from "./bridge.js";
export type { CodeCheck } from "./outcome.js";
export { exportCodeTools } from "./export.js";
