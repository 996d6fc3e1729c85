/**
 * The credentials source of one client: what each attempt carries (the connection's fields placed
 * as the descriptor says, and for OAuth kinds an access token) and the token's life — fetched or
 * refreshed when due through the shared TokenCache (one renewal for every caller and process),
 * invalidated once when the service refuses it, and rotated tokens handed to the caller's store.
 * It also knows every secret value, so the rest of the pipeline can mask them.
 */
import type { ServiceDescriptor } from "../descriptor.js";
import { StepforgeError } from "../errors.js";
import { abortable } from "../internal/time.js";
import type { TokenEvent } from "../hooks.js";
import type { Events } from "../client/observer.js";
import type { ResolvedRetry } from "../client/retry.js";
import type { SharedState } from "../client/shared-state.js";
import {
  type Connection,
  credentialQueryNames,
  fetchClientCredentialsToken,
  parseExpiry,
  placementsFor,
  refreshAuthorizationCode,
  secretValues,
  type TokenRequestContext,
  tokenFields,
} from "./auth.js";
import type { ConnectionStore } from "./connections.js";
import { hashOf } from "../limits/limits.js";
import { fillTemplate } from "../internal/template.js";
import type { RenewalRetry, TokenEntry } from "./tokens.js";

/** The credentials of one attempt, filled in: query parameters and headers. */
interface Placed {
  /** `name=value&…`, encoded as URLSearchParams encodes (as `searchParams.set` would write them). */
  query: string;
  queryPairs: Array<[string, string]>;
  headerPairs: Array<[string, string]>;
  /** Credential cookies as one Cookie header value (`a=1; b=2`); empty when there are none. */
  cookies: string;
}

/** An attempt's address and headers with the credentials on. */
export interface Credentialed {
  url: string;
  headers: Headers | undefined;
}

/** The call a token is wanted for (named in events and errors). */
export interface TokenCall {
  readonly op: { operationId: string };
  readonly callId: string;
  readonly signal: AbortSignal | undefined;
}

export interface CredentialsOptions {
  descriptor: ServiceDescriptor;
  connection: Connection;
  /** The resolved, checked token endpoint (OAuth kinds). */
  tokenUrl: string | undefined;
  /** The account's key for limits (`accountScopes().connection`); authorization-code tokens are kept per account. */
  account: string;
  send: typeof fetch;
  retry: ResolvedRetry;
  /** Read on each use: the process-wide state may be replaced after it was closed. */
  shared: SharedState;
  events: Events;
  onTokens?: ((connectionName: string, fields: Record<string, string>) => void | Promise<void>) | undefined;
  store?: ConnectionStore | undefined;
}

export class CredentialsSource {
  /** Every secret value known (connection fields, tokens fetched since), for masking. */
  readonly secrets: Set<string>;
  /** Query parameter names that carry credentials (masked in every URL shown). */
  readonly queryNames: string[];
  /** Whether attempts carry an OAuth access token from the token cache. */
  readonly usesTokens: boolean;
  private readonly tokenKey: string;
  private readonly renewBeforeMs: number;
  private lastPlaced: { token: string | undefined; placed: Placed } | undefined;

  constructor(private readonly options: CredentialsOptions) {
    const { descriptor, connection } = options;
    const auth = descriptor.auth;
    this.secrets = new Set(secretValues(descriptor, connection));
    this.queryNames = credentialQueryNames(descriptor);
    this.usesTokens = auth.kind === "oauth2-client-credentials" || auth.kind === "oauth2-authorization-code";
    this.tokenKey = tokenKeyOf(descriptor, connection, options.tokenUrl, options.account);
    this.renewBeforeMs =
      auth.kind === "oauth2-client-credentials" || auth.kind === "oauth2-authorization-code"
        ? auth.renewBeforeSeconds * 1000
        : 0;
    const seeded = this.storedEntry(connection);
    if (seeded?.accessToken) options.shared.tokens.seed(this.tokenKey, seeded, this.renewBeforeMs);
  }

  /** The access token an attempt carries (OAuth kinds; undefined otherwise), renewed when due. */
  async accessToken(call: TokenCall): Promise<string | undefined> {
    if (!this.usesTokens) return undefined;
    const tokens = this.options.shared.tokens;
    const entry = await abortable(
      tokens.get(this.tokenKey, this.renewBeforeMs, this.renewer(call), this.renewalRetry(call)),
      call.signal,
    );
    this.secrets.add(entry.accessToken);
    if (entry.refreshToken) this.secrets.add(entry.refreshToken);
    return entry.accessToken;
  }

  /** The service refused `accessToken`: no call of this process uses it again (a burst renews once). */
  invalidate(accessToken: string, call: TokenCall): void {
    if (this.options.shared.tokens.invalidate(this.tokenKey, accessToken)) this.tokenEvent(call, "invalidated");
  }

  /**
   * An attempt's address and headers with the connection's credentials (and the access token) on:
   * a credential query parameter replaces one of the same name, a header likewise. The request's
   * own headers are not changed (a retry starts from them again).
   */
  place(url: string, headers: Headers | undefined, accessToken: string | undefined): Credentialed {
    const placed = this.placed(accessToken);
    let out = url;
    if (placed.queryPairs.length > 0) {
      if (!url.includes("?") && !url.includes("#")) out = `${url}?${placed.query}`;
      else {
        const parsed = new URL(url);
        for (const [name, value] of placed.queryPairs) parsed.searchParams.set(name, value);
        out = parsed.href;
      }
    }
    if (placed.headerPairs.length === 0 && !placed.cookies) return { url: out, headers };
    const withCredentials = new Headers(headers);
    for (const [name, value] of placed.headerPairs) withCredentials.set(name, value);
    if (placed.cookies) {
      // The call's own cookies stay; the credential cookies follow them.
      const own = withCredentials.get("cookie");
      withCredentials.set("cookie", own ? `${own}; ${placed.cookies}` : placed.cookies);
    }
    return { url: out, headers: withCredentials };
  }

  /** The filled placements: once for static credentials, once per access token for OAuth kinds. */
  private placed(accessToken: string | undefined): Placed {
    const cached = this.lastPlaced;
    if (cached && cached.token === accessToken) return cached.placed;
    const { descriptor, connection } = this.options;
    // A connection may hold its own "accessToken" field (a bearer scheme derived from a plain
    // spec): only an OAuth token fetched for this call replaces it, never an absent one.
    const values = accessToken === undefined ? connection.fields : { ...connection.fields, accessToken };
    const queryPairs: Array<[string, string]> = [];
    const headerPairs: Array<[string, string]> = [];
    const cookiePairs: Array<[string, string]> = [];
    for (const placement of placementsFor(descriptor, connection)) {
      const value = fillTemplate(placement.value, values, `${descriptor.id} credentials`);
      const pairs = placement.in === "query" ? queryPairs : placement.in === "cookie" ? cookiePairs : headerPairs;
      // A later placement of the same name replaces the earlier one in place, as setting it twice would.
      const same = pairs.findIndex(([name]) => sameName(name, placement.name, placement.in === "header"));
      if (same >= 0) pairs[same] = [placement.name, value];
      else pairs.push([placement.name, value]);
    }
    // Cookies travel together in one header (RFC 6265: `a=1; b=2`), values as given.
    const cookies = cookiePairs.map(([name, value]) => `${name}=${value}`).join("; ");
    const placed = { query: new URLSearchParams(queryPairs).toString(), queryPairs, headerPairs, cookies };
    this.lastPlaced = { token: accessToken, placed };
    return placed;
  }

  private tokenEvent(call: TokenCall, action: TokenEvent["action"], expiresAt?: number): void {
    const { events } = this.options;
    if (!events.active) return;
    const when = expiresAt ? new Date(expiresAt).toISOString() : undefined;
    events.emit({
      type: "token",
      ...events.base,
      callId: call.callId,
      operation: call.op.operationId,
      action,
      expiresAt: when,
    });
  }

  /** The token an authorization-code connection holds (as given, or as stored). */
  private storedEntry(c: Connection | undefined): TokenEntry | undefined {
    const auth = this.options.descriptor.auth;
    if (auth.kind !== "oauth2-authorization-code" || !c) return undefined;
    const accessToken = c.fields[auth.accessTokenField];
    const refreshToken = c.fields[auth.refreshTokenField] || undefined;
    if (!accessToken && !refreshToken) return undefined;
    const expiresAt = auth.expiresAtField ? parseExpiry(c.fields[auth.expiresAtField]) : undefined;
    return { accessToken: accessToken ?? "", refreshToken, expiresAt };
  }

  private async persistTokens(
    entry: TokenEntry,
    oldRefreshToken: string | undefined,
    call: TokenCall,
    stored: boolean,
  ): Promise<void> {
    const { descriptor, connection, onTokens, store } = this.options;
    const fields = tokenFields(descriptor, entry);
    const rotated = oldRefreshToken !== undefined && entry.refreshToken !== oldRefreshToken;
    if (rotated) this.tokenEvent(call, "rotated");
    try {
      await onTokens?.(connection.name, fields);
      if (!stored) await store?.updateFields(descriptor.id, connection.name, fields);
    } catch {
      // The new tokens stay in the shared cache and keep working in this process; the event tells
      // the caller its store did not take them.
      this.tokenEvent(call, "failed");
    }
  }

  private renewer(call: TokenCall) {
    return async (current: TokenEntry | undefined): Promise<TokenEntry> => {
      const { descriptor, connection, send, retry, tokenUrl, store } = this.options;
      const auth = descriptor.auth;
      const ctx: TokenRequestContext = {
        descriptor,
        connection,
        fetch: send,
        tokenUrl: tokenUrl!,
        timeoutMs: retry.timeoutMs,
        secrets: this.secrets,
        operation: call.op.operationId,
      };
      if (auth.kind === "oauth2-client-credentials") {
        const entry = await fetchClientCredentialsToken(ctx);
        this.tokenEvent(call, "fetched", entry.expiresAt);
        return entry;
      }
      if (store?.rotate) {
        // Renew under the store's lock (other processes wait), from the freshest stored tokens.
        const outcome = await store.rotate(descriptor.id, connection.name, async (stored) => {
          const latest = this.storedEntry(stored);
          if (latest?.accessToken && latest.accessToken !== current?.accessToken && stillValid(latest)) {
            // Another process already renewed: use its token, send nothing.
            return { result: { entry: latest, refreshed: false, from: current?.refreshToken } };
          }
          const from = latest ?? current;
          const entry = await this.refreshOnce(ctx, from, call);
          return {
            fields: tokenFields(descriptor, entry),
            result: { entry, refreshed: true, from: from?.refreshToken },
          };
        });
        if (outcome.refreshed) await this.persistTokens(outcome.entry, outcome.from, call, true);
        return outcome.entry;
      }
      const fromConnection =
        auth.kind === "oauth2-authorization-code" ? connection.fields[auth.refreshTokenField] : undefined;
      const oldRefreshToken = current?.refreshToken ?? fromConnection;
      const entry = await this.refreshOnce(ctx, current, call);
      await this.persistTokens(entry, oldRefreshToken, call, false);
      return entry;
    };
  }

  /**
   * One refresh. When the service refuses the refresh token (invalid_grant), the store is read once
   * more before the connection is declared dead: another worker may have rotated it a moment ago.
   */
  private async refreshOnce(
    ctx: TokenRequestContext,
    from: TokenEntry | undefined,
    call: TokenCall,
  ): Promise<TokenEntry> {
    const { descriptor, connection, store } = this.options;
    try {
      const entry = await refreshAuthorizationCode(ctx, from);
      this.tokenEvent(call, "refreshed", entry.expiresAt);
      return entry;
    } catch (error) {
      if (!(error instanceof StepforgeError) || error.kind !== "auth" || !store) throw error;
      const latest = this.storedEntry(await store.get(descriptor.id, connection.name).catch(() => undefined));
      if (!latest || latest.refreshToken === from?.refreshToken) throw error;
      if (latest.accessToken && latest.accessToken !== from?.accessToken && stillValid(latest)) return latest;
      const entry = await refreshAuthorizationCode(ctx, latest);
      this.tokenEvent(call, "refreshed", entry.expiresAt);
      return entry;
    }
  }

  /** One shared attempt at the token endpoint: retried with backoff by whoever renews, waited for by everyone else. */
  private renewalRetry(call: TokenCall): RenewalRetry {
    const { retry, events } = this.options;
    return {
      attempts: retry.attempts,
      // Equal jitter (half fixed, half random): one attempt speaks for every caller, so its waits
      // should add up to a predictable span that rides out a short outage.
      delayMs: (n) => {
        const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** n);
        return Math.round(ceiling / 2 + (retry.random() * ceiling) / 2);
      },
      retryable: (error) => error instanceof StepforgeError && error.retryable,
      onRetry: (error, n, delayMs) => {
        if (!events.active) return;
        const reason = `token ${error instanceof StepforgeError ? error.kind : "error"}`;
        const operation = call.op.operationId;
        events.emit({
          type: "retry",
          ...events.base,
          callId: call.callId,
          operation,
          attempt: n,
          delayMs,
          reason,
          retryAfter: false,
        });
      },
    };
  }
}

/**
 * Whose token a cache entry is: a client-credentials token belongs to the client id, its secret
 * (a connection with the right id but a wrong secret must not get another's token) and the
 * endpoint; an authorization-code token to the account.
 */
function tokenKeyOf(
  descriptor: ServiceDescriptor,
  connection: Connection,
  tokenUrl: string | undefined,
  account: string,
): string {
  const auth = descriptor.auth;
  if (auth.kind !== "oauth2-client-credentials") return `${descriptor.id}|ac|${account}`;
  const fields = connection.fields;
  const client = `${fields[auth.clientIdField] ?? ""}\n${fields[auth.clientSecretField] ?? ""}`;
  return `${descriptor.id}|cc|${hashOf(`${client}\n${tokenUrl}`)}`;
}

function sameName(a: string, b: string, caseless: boolean): boolean {
  return caseless ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** Not expired, with a second to spare for the request that will carry it. */
function stillValid(entry: TokenEntry): boolean {
  return entry.expiresAt === undefined || entry.expiresAt > Date.now() + 1000;
}
