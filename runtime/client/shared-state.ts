/**
 * Budgets and tokens shared by every client that uses the same object: limits are counted per
 * connection (or per declared credential field) across all of them, and one token serves them all.
 * Through `store` they are shared with other processes too: a folder (this machine) or Redis
 * (every machine). Clients share `defaultSharedState` unless given their own.
 */
import { TokenCache } from "../credentials/tokens.js";
import { type Limiter, LimitRegistry } from "../limits/limits.js";
import { SharedLimitRegistry } from "../limits/shared.js";
import { createStateStore, type StateConfig } from "../state/config.js";
import type { StateStore } from "../state/types.js";

export interface SharedState {
  /** Where state shared with other processes lives (memory: this process only). */
  store: StateStore;
  /** In this process (`LimitRegistry`), or across processes (`SharedLimitRegistry` over the store). */
  limits: Limiter;
  tokens: TokenCache;
}

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

let processState: SharedState | undefined;

/**
 * The process-wide state clients use when none is passed, built on first use (so the environment
 * is read when the first client needs it, not when this module is imported).
 */
export const defaultSharedState: SharedState = {
  get store() {
    return (processState ??= createSharedState()).store;
  },
  get limits() {
    return (processState ??= createSharedState()).limits;
  },
  get tokens() {
    return (processState ??= createSharedState()).tokens;
  },
};

/** Closes the process-wide state's store (a Redis connection), if one was opened; the next use opens a new one. */
export async function closeDefaultSharedState(): Promise<void> {
  const state = processState;
  processState = undefined;
  await state?.store.close();
}
