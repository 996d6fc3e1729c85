/**
 * Budgets and tokens shared by every client that uses the same object: limits are counted per
 * connection (or per declared credential field) across all of them, and one token serves them all.
 * Clients share `defaultSharedState` unless given their own (`shared`).
 *
 * This file holds only the in-process kind. Sharing with other processes — a folder (this machine)
 * or Redis (every machine) — is the state layer (`createSharedState` in runtime/state/shared.ts),
 * loaded by importing `stepforge/runtime/state`; only then does the environment's
 * STEPFORGE_REDIS_URL or STEPFORGE_STATE_DIR reach the default state (see layers.ts).
 *
 * The process's own default state builds its store and token cache on first use, from the maker
 * an OAuth client hands over (`useMemoryTokens`, credentials/source.ts): only OAuth clients use
 * them, and naming them here would put the token cache and the in-memory store in every bundle.
 */
import { TokenCache } from "../credentials/tokens.js";
import { type Limiter, LimitRegistry } from "../limits/limits.js";
import { REDIS_URL_ENV, STATE_DIR_ENV } from "../state/env.js";
import { MemoryStateStore } from "../state/memory.js";
import type { Clock, StateStore } from "../state/types.js";
import { missingLayer, STATE_ENTRY } from "./missing-layer.js";

export interface SharedState {
  /** Where state shared with other processes lives (memory: this process only). */
  store: StateStore;
  /** In this process (`LimitRegistry`), or across processes (`SharedLimitRegistry` over the store). */
  limits: Limiter;
  tokens: TokenCache;
}

/** State for this process only: the in-process limiter (no store round trips per call). */
export function localSharedState(clock?: Clock): SharedState {
  return { limits: new LimitRegistry(), ...memoryTokenState(clock) };
}

/** An in-memory store and the token cache over it. */
export function memoryTokenState(clock?: Clock): Pick<SharedState, "store" | "tokens"> {
  const store = new MemoryStateStore(clock);
  return { store, tokens: new TokenCache({ store }) };
}

type MemoryTokens = () => Pick<SharedState, "store" | "tokens">;
let memoryTokens: MemoryTokens | undefined;

/** Hands the process's own state the way to build its store and token cache (OAuth clients do). */
export function useMemoryTokens(make: MemoryTokens): void {
  memoryTokens ??= make;
}

/**
 * This process's own state: the limiter at once; the store and the token cache when first read
 * (only OAuth clients read them, and such a client has handed over their maker by then).
 */
class ProcessLocalState implements SharedState {
  readonly limits = new LimitRegistry();
  private memory: Pick<SharedState, "store" | "tokens"> | undefined;

  get store(): StateStore {
    return this.built().store;
  }
  get tokens(): TokenCache {
    return this.built().tokens;
  }
  /** Closes the store if one was built (nothing to close otherwise). */
  async close(): Promise<void> {
    await this.memory?.store.close();
  }
  private built(): Pick<SharedState, "store" | "tokens"> {
    if (this.memory) return this.memory;
    // Nothing in the package reads these without handing over the maker first.
    if (!memoryTokens)
      throw new Error(
        "defaultSharedState: this process's own state builds its store and token cache for OAuth clients " +
          "only; pass `shared: localSharedState()` (or createSharedState()) to read a store of your own",
      );
    this.memory = memoryTokens();
    return this.memory;
  }
}

/** The state layer (layers.ts): how the environment's choice of store is built, once registered. */
export interface StateLayer {
  /** The process-wide state as the environment asks (STEPFORGE_REDIS_URL, STEPFORGE_STATE_DIR). */
  fromEnvironment(): SharedState;
}

let stateLayer: StateLayer | undefined;

/** Registers the state layer (the `stepforge/runtime/state` entry does, when imported). */
export function useStateLayer(layer: StateLayer): void {
  stateLayer = layer;
}

let processState: SharedState | undefined;

/** The process-wide state: the state layer's when loaded, else this process's own. */
function processWide(): SharedState {
  if (processState) return processState;
  if (stateLayer) return (processState = stateLayer.fromEnvironment());
  // Per-process limits where the operator asked for shared ones would overrun them without a word.
  for (const name of [REDIS_URL_ENV, STATE_DIR_ENV]) {
    if (process.env[name]?.trim())
      throw missingLayer(`${name} is set`, STATE_ENTRY, `(or unset ${name} to keep limits and tokens in this process)`);
  }
  return (processState = new ProcessLocalState());
}

/**
 * The process-wide state clients use when none is passed, built on first use (so the environment
 * is read when the first call needs it, not when this module is imported).
 */
export const defaultSharedState: SharedState = {
  get store() {
    return processWide().store;
  },
  get limits() {
    return processWide().limits;
  },
  get tokens() {
    return processWide().tokens;
  },
};

/** Closes the process-wide state's store (a Redis connection), if one was opened; the next use opens a new one. */
export async function closeDefaultSharedState(): Promise<void> {
  const state = processState;
  processState = undefined;
  if (state instanceof ProcessLocalState) await state.close();
  else await state?.store.close();
}
