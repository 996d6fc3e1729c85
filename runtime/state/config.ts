/**
 * Which state store a process uses: the one switch. An explicit choice in code wins; otherwise
 * `STEPFORGE_REDIS_URL` (every process on every machine that reaches that Redis shares state), then
 * `STEPFORGE_STATE_DIR` (every process on this machine sharing that folder), else memory (this
 * process only, as before). `STEPFORGE_STATE_FALLBACK=local` is the explicit opt-in to per-process
 * state while the shared store is unreachable (see fallback.ts); `STEPFORGE_STATE_WAIT_MS` bounds the
 * wait for an unreachable Redis (default 5000).
 */
import { withLocalFallback, type FallbackOptions } from "./fallback.js";
import { FileStateStore } from "./file.js";
import { MemoryStateStore } from "./memory.js";
import { RedisStateStore, type RedisStateOptions } from "./redis.js";
import type { Clock, StateStore } from "./types.js";
import { REDIS_URL_ENV, STATE_DIR_ENV, STATE_FALLBACK_ENV, STATE_WAIT_ENV } from "./env.js";

export interface StateConfig {
  /** A store built by the caller (wins over everything else). */
  store?: StateStore | undefined;
  /** Share state through this Redis (`redis://[:password@]host:port[/db]`, `rediss://` for TLS). */
  redisUrl?: string | undefined;
  /** Share state with the other processes on this machine through this folder. */
  stateDir?: string | undefined;
  /** Opt-in: use per-process state while the shared store is unreachable, instead of failing. */
  fallbackToLocal?: boolean | FallbackOptions | undefined;
  /** Redis: longest wait for a connection or an answer before StateUnavailableError (default 5 s). */
  unreachableAfterMs?: number | undefined;
  /** Redis: key prefix (default "stepforge:"). */
  prefix?: string | undefined;
  redis?: RedisStateOptions["redis"];
  clock?: Clock | undefined;
}

export { REDIS_URL_ENV, STATE_DIR_ENV, STATE_FALLBACK_ENV, STATE_WAIT_ENV };

/** What the environment asks for, as a StateConfig (empty when it asks for nothing). */
export function stateConfigFromEnv(env: NodeJS.ProcessEnv = process.env): StateConfig {
  const config: StateConfig = {};
  const url = env[REDIS_URL_ENV]?.trim();
  const dir = env[STATE_DIR_ENV]?.trim();
  if (url) config.redisUrl = url;
  else if (dir) config.stateDir = dir;
  const wait = env[STATE_WAIT_ENV]?.trim();
  if (wait) {
    const ms = Number(wait);
    if (!Number.isInteger(ms) || ms <= 0)
      throw new Error(
        `${STATE_WAIT_ENV}="${wait}" must be a whole number of milliseconds above 0 (the ` +
          `longest wait for an unreachable Redis)`,
      );
    config.unreachableAfterMs = ms;
  }
  const fallback = env[STATE_FALLBACK_ENV]?.trim();
  if (fallback === "local") config.fallbackToLocal = true;
  else if (fallback)
    throw new Error(
      `${STATE_FALLBACK_ENV}="${fallback}" is not understood; set it to "local" (or unset ` +
        `it to fail when the shared state is unreachable)`,
    );
  return config;
}

/** Throws an error naming the variable and the fix when the environment's state settings are wrong. */
export function checkStateEnv(env: NodeJS.ProcessEnv = process.env): void {
  const config = stateConfigFromEnv(env);
  if (config.redisUrl) checkRedisUrl(config.redisUrl);
}

function checkRedisUrl(url: string): void {
  if (!/^rediss?:\/\/[^/]/.test(url))
    throw new Error(
      `the Redis address must look like redis://host:6379 or rediss://host:6380 (check ${REDIS_URL_ENV})`,
    );
}

/** Builds the store a config asks for; with neither Redis nor a folder in it, asks the environment. */
export function createStateStore(config: StateConfig = {}, env: NodeJS.ProcessEnv = process.env): StateStore {
  if (config.store) return config.store;
  const chosen = config.redisUrl || config.stateDir ? config : { ...stateConfigFromEnv(env), ...definedOnly(config) };
  let store: StateStore;
  if (chosen.redisUrl) {
    checkRedisUrl(chosen.redisUrl);
    store = new RedisStateStore(chosen.redisUrl, {
      clock: chosen.clock,
      prefix: chosen.prefix,
      unreachableAfterMs: chosen.unreachableAfterMs,
      redis: chosen.redis,
    });
  } else if (chosen.stateDir) {
    store = new FileStateStore(chosen.stateDir, { clock: chosen.clock });
  } else {
    return new MemoryStateStore(chosen.clock);
  }
  if (!chosen.fallbackToLocal) return store;
  return withLocalFallback(store, typeof chosen.fallbackToLocal === "object" ? chosen.fallbackToLocal : {});
}

function definedOnly(config: StateConfig): StateConfig {
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as StateConfig;
}
