/**
 * The shared-state layer (see types.ts): one interface, backends in memory, in a folder, on Redis,
 * and the switch that picks one (config.ts). This is the `stepforge/runtime/state` entry: importing
 * it lets STEPFORGE_REDIS_URL and STEPFORGE_STATE_DIR choose the state every client shares by
 * default (runtime/client/layers.ts); a client bundle without this import carries none of it.
 */
import { useStateLayer } from "../client/layers.js";
import { createSharedState } from "./shared.js";

export * from "./types.js";
export { MemoryStateStore } from "./memory.js";
export { FileStateStore, type FileStateOptions } from "./file.js";
export { RedisStateStore, type RedisStateOptions } from "./redis.js";
export { withLocalFallback, type FallbackOptions } from "./fallback.js";
export {
  checkStateEnv,
  createStateStore,
  stateConfigFromEnv,
  type StateConfig,
  REDIS_URL_ENV,
  STATE_DIR_ENV,
  STATE_FALLBACK_ENV,
  STATE_WAIT_ENV,
} from "./config.js";
export { withFileLock, FileLockTimeoutError } from "./file-lock.js";
export { hashed, stateKey } from "./keys.js";
export { createSharedState } from "./shared.js";
export {
  defaultSharedState,
  closeDefaultSharedState,
  localSharedState,
  type SharedState,
} from "../client/shared-state.js";

useStateLayer({ fromEnvironment: () => createSharedState() });
