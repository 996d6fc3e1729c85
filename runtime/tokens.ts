/**
 * Access-token lifecycles shared by every client of a registry: a cache per credential, early
 * renewal, single-flight renewal (any number of concurrent callers share one token request), and
 * compare-and-invalidate (a burst of "token expired" answers for the same token renews once).
 */

export interface TokenEntry {
  accessToken: string;
  /** Epoch milliseconds; undefined when the service did not say (then renewed only on reauth). */
  expiresAt?: number | undefined;
  refreshToken?: string | undefined;
}

export class TokenCache {
  private readonly entries = new Map<string, TokenEntry>();
  private readonly inflight = new Map<string, Promise<TokenEntry>>();

  peek(key: string): TokenEntry | undefined {
    return this.entries.get(key);
  }

  /** Seeds a cache entry (a stored authorization-code token) unless one is already known. */
  seed(key: string, entry: TokenEntry): void {
    if (!this.entries.has(key)) this.entries.set(key, entry);
  }

  /**
   * A token valid for at least `renewBeforeMs` more: the cached one, or the result of the one
   * renewal in flight for `key` (started here if none is).
   */
  get(key: string, renewBeforeMs: number, renew: (current: TokenEntry | undefined) => Promise<TokenEntry>): Promise<TokenEntry> {
    const entry = this.entries.get(key);
    if (entry && (entry.expiresAt === undefined || entry.expiresAt - renewBeforeMs > Date.now())) return Promise.resolve(entry);
    return this.renew(key, renew);
  }

  renew(key: string, renew: (current: TokenEntry | undefined) => Promise<TokenEntry>): Promise<TokenEntry> {
    const running = this.inflight.get(key);
    if (running) return running;
    const promise = (async () => {
      try {
        const entry = await renew(this.entries.get(key));
        this.entries.set(key, entry);
        return entry;
      } finally {
        this.inflight.delete(key);
      }
    })();
    this.inflight.set(key, promise);
    return promise;
  }

  /**
   * The service rejected `accessToken`. Marks it expired only if it is still the cached token, so
   * answers about an already-replaced token do not cause another renewal. Keeps the refresh token.
   * Returns whether the entry was invalidated.
   */
  invalidate(key: string, accessToken: string): boolean {
    const entry = this.entries.get(key);
    if (!entry || entry.accessToken !== accessToken) return false;
    this.entries.set(key, { ...entry, expiresAt: 0 });
    return true;
  }
}
