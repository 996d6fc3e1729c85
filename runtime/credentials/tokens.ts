/**
 * Access-token lifecycles shared by every client of a cache, and through its state store by every
 * process that shares the store (memory: this process; a folder: this machine; Redis: everywhere).
 *
 * - A token is renewed `renewBeforeMs` before it expires. A token the service hands out with less
 *   life than that (Marketo returns the same token with its remaining lifetime) is used until it
 *   really expires: renewed once, not on every call.
 * - One renewal at a time per credential: callers in a process share one promise, and processes
 *   share one renewal through a lock in the state store. The lock expires (a dead holder frees it)
 *   and carries a fencing token: a holder that lost the lock cannot overwrite a newer token.
 *   Before renewing, the holder re-reads the shared record (another process may just have renewed).
 * - A failing token endpoint gets one shared attempt with backoff and jitter, not one per caller:
 *   the holder retries, everyone else waits for it.
 * - A token the service refused is not used again by this process (compare-and-invalidate: a burst
 *   of "token expired" answers for the same token renews once).
 *
 * Shared records hold tokens (values, never key names: keys carry a hash of the credential key).
 */
import { MemoryStateStore } from "../state/memory.js";
import { hashed } from "../state/keys.js";
import type { LockGrant, StateStore, StoredRecord } from "../state/types.js";

export interface TokenEntry {
  accessToken: string;
  /** Epoch milliseconds; undefined when the service did not say (then renewed only on reauth). */
  expiresAt?: number | undefined;
  refreshToken?: string | undefined;
  /** When to renew (epoch ms); set by the cache. */
  renewAt?: number | undefined;
}

/** How the one shared renewal retries a failing token endpoint. */
export interface RenewalRetry {
  /** Retries after the first try (default 3). */
  attempts?: number | undefined;
  /** Delay before retry n (0-based), jitter included (default: 250 ms doubling, ±50 %). */
  delayMs?: ((retry: number) => number) | undefined;
  /** Whether a failure is worth retrying (default: `error.retryable === true`). */
  retryable?: ((error: unknown) => boolean) | undefined;
  /** Told before each retry (for retry events). */
  onRetry?: ((error: unknown, retry: number, delayMs: number) => void) | undefined;
}

export interface TokenCacheOptions {
  /** Where renewals are coordinated and tokens shared (default: this process only). */
  store?: StateStore | undefined;
  /**
   * A renewal lock lapses this long after its holder stopped renewing it (default 15 s: a dead holder blocks no one for
   * longer).
   */
  lockTtlMs?: number | undefined;
}

interface LocalEntry {
  entry: TokenEntry;
  /** An access token the service refused: never adopted again from the shared record. */
  rejected?: string | undefined;
}

const defaultDelay = (retry: number) => Math.min(250 * 2 ** retry, 5000) * (0.5 + Math.random());
const defaultRetryable = (error: unknown) => (error as { retryable?: unknown })?.retryable === true;

/** When `entry` is due for renewal. */
function dueAt(entry: TokenEntry): number {
  if (entry.renewAt !== undefined) return entry.renewAt;
  return entry.expiresAt ?? Infinity;
}

/**
 * `entry` (just handed out) with its renewal time: `renewBeforeMs` before it expires. A token with
 * less life than that is used until a moment before it expires (up to a second, so it does not
 * lapse on its way), and a token the service handed back unchanged (`previous`) until it expires:
 * asking again before then would only bring the same token back.
 */
export function scheduleRenewal(
  entry: TokenEntry,
  renewBeforeMs: number,
  previous?: TokenEntry,
  now = Date.now(),
): TokenEntry {
  if (entry.expiresAt === undefined) return { ...entry, renewAt: undefined };
  const early = entry.expiresAt - renewBeforeMs;
  if (early > now) return { ...entry, renewAt: early };
  if (previous?.accessToken === entry.accessToken) return { ...entry, renewAt: entry.expiresAt };
  return { ...entry, renewAt: entry.expiresAt - Math.min(1000, Math.max(0, entry.expiresAt - now) / 2) };
}

export class TokenCache {
  readonly store: StateStore;
  private readonly lockTtlMs: number;
  private readonly local = new Map<string, LocalEntry>();
  private readonly inflight = new Map<string, Promise<TokenEntry>>();

  constructor(options: TokenCacheOptions | StateStore = {}) {
    const o: TokenCacheOptions = "admit" in options ? { store: options } : options;
    this.store = o.store ?? new MemoryStateStore();
    this.lockTtlMs = o.lockTtlMs ?? 15_000;
  }

  peek(key: string): TokenEntry | undefined {
    return this.local.get(key)?.entry;
  }

  /**
   * Seeds a cache entry (a stored authorization-code token) unless one is already known here. A
   * stored token inside the renewal margin is due now: the service will issue a fresh one.
   */
  seed(key: string, entry: TokenEntry, renewBeforeMs = 0): void {
    if (this.local.has(key)) return;
    this.local.set(key, {
      entry: { ...entry, renewAt: entry.expiresAt === undefined ? undefined : entry.expiresAt - renewBeforeMs },
    });
  }

  /**
   * A usable token: the cached one while it is not due, else the result of the one renewal in
   * flight for `key` (started here if none is; across processes, one holder renews).
   */
  get(
    key: string,
    renewBeforeMs: number,
    renew: (current: TokenEntry | undefined) => Promise<TokenEntry>,
    retry: RenewalRetry = {},
  ): Promise<TokenEntry> {
    const found = this.local.get(key);
    if (found && dueAt(found.entry) > Date.now() && found.entry.accessToken !== found.rejected)
      return Promise.resolve(found.entry);
    return this.renew(key, renew, renewBeforeMs, retry);
  }

  renew(
    key: string,
    renew: (current: TokenEntry | undefined) => Promise<TokenEntry>,
    renewBeforeMs = 0,
    retry: RenewalRetry = {},
  ): Promise<TokenEntry> {
    const running = this.inflight.get(key);
    if (running) return running;
    const promise = this.renewShared(key, renew, renewBeforeMs, retry).finally(() => this.inflight.delete(key));
    this.inflight.set(key, promise);
    return promise;
  }

  /**
   * The service rejected `accessToken`. Marks it unusable only if it is still the cached token, so
   * answers about an already-replaced token do not cause another renewal. Keeps the refresh token.
   * Returns whether the entry was invalidated.
   */
  invalidate(key: string, accessToken: string): boolean {
    const found = this.local.get(key);
    if (!found || found.entry.accessToken !== accessToken) return false;
    found.rejected = accessToken;
    return true;
  }

  private usable(key: string, entry: TokenEntry | undefined): entry is TokenEntry {
    if (!entry) return false;
    if (entry.accessToken === this.local.get(key)?.rejected) return false;
    return dueAt(entry) > Date.now();
  }

  private adopt(key: string, entry: TokenEntry): TokenEntry {
    const rejected = this.local.get(key)?.rejected;
    this.local.set(key, { entry, rejected: rejected === entry.accessToken ? rejected : undefined });
    return entry;
  }

  private async renewShared(
    key: string,
    renew: (current: TokenEntry | undefined) => Promise<TokenEntry>,
    renewBeforeMs: number,
    retry: RenewalRetry,
  ): Promise<TokenEntry> {
    const id = hashed(key);
    const recordKey = `token:${id}`;
    const lockKey = `token-renewal:${id}`;
    let pause = 10;
    for (;;) {
      const shared = await this.store.get<TokenEntry>(recordKey);
      if (this.usable(key, shared?.value)) return this.adopt(key, shared.value);
      const grant = await this.store.lock(lockKey, this.lockTtlMs);
      if (!("token" in grant)) {
        // Another process is renewing (or backing off after a failure): wait for it, then look again.
        const wait = Math.max(1, Math.min(pause, grant.heldUntil - this.store.clock.now()));
        pause = Math.min(pause * 2, 50);
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      return this.renewHolding(key, grant, recordKey, renew, renewBeforeMs, retry);
    }
  }

  private async renewHolding(
    key: string,
    grant: LockGrant,
    recordKey: string,
    renew: (current: TokenEntry | undefined) => Promise<TokenEntry>,
    renewBeforeMs: number,
    retry: RenewalRetry,
  ): Promise<TokenEntry> {
    let released = false;
    const keepAlive = setInterval(
      () => {
        void this.store.renewLock(grant, this.lockTtlMs).catch(() => undefined);
      },
      Math.max(1000, this.lockTtlMs / 3),
    );
    keepAlive.unref?.();
    try {
      // Someone may have renewed between our read and our lock.
      const before: StoredRecord<TokenEntry> | undefined = await this.store.get<TokenEntry>(recordKey);
      if (this.usable(key, before?.value)) return this.adopt(key, before.value);
      const current = before?.value ?? this.local.get(key)?.entry;
      const attempts = retry.attempts ?? 3;
      const delayMs = retry.delayMs ?? defaultDelay;
      const retryable = retry.retryable ?? defaultRetryable;
      let fresh: TokenEntry;
      let reread = false;
      for (let n = 0; ; n++) {
        try {
          fresh = scheduleRenewal(await renew(current), renewBeforeMs, current);
          break;
        } catch (error) {
          if (!retryable(error) && !reread) {
            // Refused (a spent refresh token): read the shared record once more before giving up;
            // a holder whose lock lapsed may have rotated it a moment ago.
            reread = true;
            const again: TokenEntry | undefined = (await this.store.get<TokenEntry>(recordKey).catch(() => undefined))
              ?.value;
            if (this.usable(key, again)) return this.adopt(key, again);
            const other = again as TokenEntry | undefined;
            if (other?.refreshToken && other.refreshToken !== current?.refreshToken) {
              try {
                fresh = scheduleRenewal(await renew(other), renewBeforeMs, other);
                break;
              } catch {
                throw error;
              }
            }
          }
          if (!retryable(error) || n >= attempts) {
            // Hold the lock a little longer: the next process to try waits out a backoff too.
            if (retryable(error)) {
              clearInterval(keepAlive);
              await this.store.renewLock(grant, Math.ceil(delayMs(n))).catch(() => undefined);
              released = true;
            }
            throw error;
          }
          const wait = delayMs(n);
          try {
            retry.onRetry?.(error, n, wait);
          } catch {
            /* hooks never break renewals */
          }
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
      // A refresh token is the account: keep it until replaced. A bare access token may lapse.
      const ttlMs =
        fresh.refreshToken || fresh.expiresAt === undefined
          ? undefined
          : Math.max(1000, fresh.expiresAt - Date.now() + 60_000);
      let written = await this.store.set(recordKey, fresh, { fence: { lock: grant.key, token: grant.token }, ttlMs });
      if (!written.ok && written.reason === "fence") {
        // We lost the lock while renewing. Our token is still the newest unless the new holder wrote one.
        written = await this.store.set(recordKey, fresh, { ifVersion: before?.version ?? 0, ttlMs });
        if (!written.ok && this.usable(key, written.current?.value)) return this.adopt(key, written.current.value);
      }
      return this.adopt(key, fresh);
    } finally {
      clearInterval(keepAlive);
      if (!released) await this.store.unlock(grant).catch(() => undefined);
    }
  }
}
