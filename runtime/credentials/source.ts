/**
 * The OAuth flows of a client's credentials: on top of the placed connection fields
 * (placing.ts), an access token fetched or refreshed when due through the shared TokenCache (one
 * renewal for every caller and process), invalidated once when the service refuses it, and
 * rotated tokens handed to the caller's store. Only clients whose spec declares an OAuth flow
 * import this (generated code passes `oauthCredentials` to the client), so the others' bundles
 * carry neither the token requests, the token cache nor the in-memory store behind it.
 */
import type { ServiceDescriptor } from "../descriptor.js";
import { StepforgeError } from "../errors.js";
import { abortable } from "../internal/time.js";
import type { TokenEvent } from "../hooks.js";
import { memoryTokenState, useMemoryTokens } from "../client/shared-state.js";
import {
  type Connection,
  fetchClientCredentialsToken,
  parseExpiry,
  refreshAuthorizationCode,
  type TokenRequestContext,
  tokenFields,
} from "./auth.js";
import { hashOf } from "../limits/limits.js";
import { type CredentialsFlow, type CredentialsOptions, PlacedCredentials, type TokenCall } from "./placing.js";
import type { RenewalRetry, TokenEntry } from "./tokens.js";

export type { Credentialed, CredentialsOptions, TokenCall } from "./placing.js";

export class CredentialsSource extends PlacedCredentials {
  override readonly usesTokens: boolean;
  private readonly tokenKey: string;
  private readonly renewBeforeMs: number;

  constructor(options: CredentialsOptions) {
    super(options);
    const { descriptor, connection } = options;
    const auth = descriptor.auth;
    this.usesTokens = auth.kind === "oauth2-client-credentials" || auth.kind === "oauth2-authorization-code";
    // The process's own state builds its token cache only when a client with a token flow asks.
    if (this.usesTokens) useMemoryTokens(memoryTokenState);
    this.tokenKey = tokenKeyOf(descriptor, connection, options.tokenUrl, options.account);
    this.renewBeforeMs =
      auth.kind === "oauth2-client-credentials" || auth.kind === "oauth2-authorization-code"
        ? auth.renewBeforeSeconds * 1000
        : 0;
    const seeded = this.storedEntry(connection);
    if (seeded?.accessToken) options.shared.tokens.seed(this.tokenKey, seeded, this.renewBeforeMs);
  }

  /** The access token an attempt carries (OAuth kinds; undefined otherwise), renewed when due. */
  override async accessToken(call: TokenCall): Promise<string | undefined> {
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
  override invalidate(accessToken: string, call: TokenCall): void {
    if (this.options.shared.tokens.invalidate(this.tokenKey, accessToken)) this.tokenEvent(call, "invalidated");
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

/** Not expired, with a second to spare for the request that will carry it. */
function stillValid(entry: TokenEntry): boolean {
  return entry.expiresAt === undefined || entry.expiresAt > Date.now() + 1000;
}

/** The credentials part of a spec that declares an OAuth flow (client credentials, authorization code). */
export const oauthCredentials: CredentialsFlow = (options) => new CredentialsSource(options);
