/**
 * Shared state across processes (the state layer): limits and tokens kept in the store a config
 * names — a folder for the processes of one machine, Redis for every machine — so that many
 * workers on one account share one budget and one token. Loaded by importing
 * `stepforge/runtime/state` (index.ts), which also lets the environment choose the default store.
 */
import type { SharedState } from "../client/shared-state.js";
import { TokenCache } from "../credentials/tokens.js";
import { LimitRegistry } from "../limits/limits.js";
import { SharedLimitRegistry } from "../limits/shared.js";
import { createStateStore, type StateConfig } from "./config.js";

/**
 * New shared state. The store is the one `config` names (`store`, `redisUrl`, `stateDir`); with
 * none named, `STEPFORGE_REDIS_URL` or `STEPFORGE_STATE_DIR` from the environment; else memory.
 */
export function createSharedState(config: StateConfig = {}): SharedState {
  const store = createStateStore(config);
  // One process: the in-process limiter (nothing to share, no store round trips per call).
  const limits = store.backend === "memory" ? new LimitRegistry() : new SharedLimitRegistry(store);
  return { store, limits, tokens: new TokenCache({ store }) };
}
