/**
 * Connections and credentials, as the descriptor declares them: where api keys and tokens go on a
 * request, how OAuth 2.0 tokens are fetched (client credentials) or refreshed (authorization code),
 * and the browser address a user visits to mint a token (`authorizeUrl`).
 */
import type { Placement, ServiceDescriptor } from "../descriptor.js";
import { AuthError, createError, NetworkError, redact, redactUrl, TimeoutError } from "../errors.js";
import type { LimitOverrides } from "../limits/limits.js";
import type { TokenEntry } from "./tokens.js";

/** One named, connected account of a service. */
export interface Connection {
  name: string;
  /** Values of the fields the service's descriptor declares (`connection.fields`). */
  fields: Record<string, string>;
  /** For api-key services with several ways to send credentials: which one to use. */
  authMode?: string | undefined;
  /** This account's own limit numbers (a paid plan), by declared limit id. */
  limits?: LimitOverrides | undefined;
}

/** Field names the auth kind itself maintains (tokens an authorization-code flow rotates). */
export function managedFields(descriptor: ServiceDescriptor): string[] {
  const auth = descriptor.auth;
  if (auth.kind !== "oauth2-authorization-code") return [];
  return [auth.accessTokenField, auth.refreshTokenField, ...(auth.expiresAtField ? [auth.expiresAtField] : [])];
}

/** Every secret value of a connection, for redaction. */
export function secretValues(descriptor: ServiceDescriptor, connection: Connection): string[] {
  const names = new Set(
    Object.entries(descriptor.connection.fields)
      .filter(([, field]) => field.secret)
      .map(([name]) => name),
  );
  const auth = descriptor.auth;
  if (auth.kind === "oauth2-client-credentials" || auth.kind === "oauth2-authorization-code")
    names.add(auth.clientSecretField);
  if (auth.kind === "oauth2-authorization-code") {
    names.add(auth.accessTokenField);
    names.add(auth.refreshTokenField);
  }
  return [...names]
    .map((name) => connection.fields[name])
    .filter((v): v is string => typeof v === "string" && v.length > 0);
}

export function placementsFor(descriptor: ServiceDescriptor, connection: Connection): Placement[] {
  const auth = descriptor.auth;
  if (auth.kind === "api-key") {
    const mode = connection.authMode ?? auth.defaultMode;
    const placements = auth.modes[mode];
    if (!placements) {
      throw new Error(
        `${descriptor.id}: unknown auth mode "${mode}"; use one of ${Object.keys(auth.modes).join(", ")}`,
      );
    }
    return placements;
  }
  if (auth.kind === "none") return [];
  return [auth.send];
}

/** Query parameter names that carry credentials for this service (redacted from every URL shown). */
export function credentialQueryNames(descriptor: ServiceDescriptor): string[] {
  const auth = descriptor.auth;
  const placements =
    auth.kind === "api-key" ? Object.values(auth.modes).flat() : auth.kind === "none" ? [] : [auth.send];
  return [...new Set(placements.filter((p) => p.in === "query").map((p) => p.name))];
}

/**
 * The address a user opens in a browser to authorize this application, with the descriptor's
 * parameters filled from `values`. api-key services need an `authorize` block (Trello: expiration,
 * name, scope, response_type, key); authorization-code services use `authorizeUrl` with
 * client_id / redirect_uri / scope / state from `values` (`clientId` or the client id field,
 * `redirectUri`, `state`).
 */
export function authorizeUrl(descriptor: ServiceDescriptor, values: Record<string, string | undefined>): string {
  const auth = descriptor.auth;
  const fill = (template: string, where: string) =>
    template.replace(/\{([a-zA-Z][a-zA-Z0-9_]*)\}/g, (_, name: string) => {
      const value = values[name];
      if (value === undefined || value === "") {
        throw new Error(`${descriptor.title} authorize address: ${where} needs a value for "${name}"; pass ${name}`);
      }
      return value;
    });
  if (auth.kind === "api-key") {
    if (!auth.authorize) {
      throw new Error(
        `${descriptor.title} declares no authorize address (x-stepforge.auth.authorize); ` +
          `its credentials are entered directly`,
      );
    }
    const url = new URL(auth.authorize.url);
    for (const [name, template] of Object.entries(auth.authorize.query)) {
      url.searchParams.set(name, fill(template, `parameter "${name}"`));
    }
    return url.toString();
  }
  if (auth.kind === "oauth2-authorization-code") {
    const url = new URL(auth.authorizeUrl);
    const clientId = values.clientId ?? values[auth.clientIdField];
    if (!clientId)
      throw new Error(`${descriptor.title} authorize address needs the client id; pass ${auth.clientIdField}`);
    const redirectUri = values.redirectUri ?? values.redirect_uri;
    if (!redirectUri)
      throw new Error(
        `${descriptor.title} authorize address needs the redirect address registered with the app; pass redirectUri`,
      );
    url.searchParams.set("client_id", clientId);
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("response_type", "code");
    if (auth.scopes.length) url.searchParams.set("scope", auth.scopes.join(" "));
    if (values.state) url.searchParams.set("state", values.state);
    return url.toString();
  }
  throw new Error(`${descriptor.title} uses ${auth.kind}: there is no browser authorization step`);
}

/** What a token request needs from the client that makes it. */
export interface TokenRequestContext {
  descriptor: ServiceDescriptor;
  connection: Connection;
  fetch: typeof fetch;
  /** Resolved (and already validated) token endpoint. */
  tokenUrl: string;
  timeoutMs: number;
  /** Values to redact from anything this produces. */
  secrets: Set<string>;
  /** The operation the token is needed for (named in errors). */
  operation: string;
}

/** Parses an expiry stored in a connection: ISO 8601, epoch seconds or epoch milliseconds. */
export function parseExpiry(value: string | undefined): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value)) {
    const n = Number(value);
    return n < 1e12 ? n * 1000 : n;
  }
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

async function tokenRequest(
  ctx: TokenRequestContext,
  params: Record<string, string>,
  method: "GET" | "POST",
  placeIn: "query" | "form" | "json",
): Promise<TokenEntry> {
  const { descriptor } = ctx;
  const url = new URL(ctx.tokenUrl);
  const headers = new Headers({ accept: "application/json" });
  let body: string | undefined;
  if (placeIn === "query") for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  else if (placeIn === "form") {
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(params).toString();
  } else {
    headers.set("content-type", "application/json");
    body = JSON.stringify(params);
  }
  const where = redactUrl(ctx.tokenUrl, ctx.secrets);
  const details = { service: descriptor.id, operation: ctx.operation };
  let response: Response;
  let text: string;
  try {
    response = await ctx.fetch(url, {
      method,
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(ctx.timeoutMs),
    });
    text = await response.text();
  } catch (cause) {
    if (cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError")) {
      throw new TimeoutError(
        "timeout",
        `${descriptor.title}: the token endpoint ${where} did not answer within ${ctx.timeoutMs} ms`,
        { ...details, retryable: true },
      );
    }
    const reason =
      cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause);
    throw new NetworkError(
      "network",
      redact(`${descriptor.title}: could not reach the token endpoint ${where}: ${reason}`, ctx.secrets),
      { ...details, retryable: true },
    );
  }
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object") json = parsed as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  if (!response.ok || !json || typeof json.access_token !== "string" || json.access_token === "") {
    const said = [json?.error, json?.error_description, json?.message].filter((v) => typeof v === "string").join(": ");
    const status = response.status;
    const kind = status >= 500 ? "server" : status === 429 ? "rate_limited" : "auth";
    const hint =
      kind === "auth"
        ? ` check the connection "${ctx.connection.name}" credentials` +
          (descriptor.auth.kind === "oauth2-authorization-code"
            ? " (reconnect the account if the refresh token was revoked)"
            : "")
        : "";
    const message = response.ok
      ? `${descriptor.title}: the token endpoint ${where} answered without an access_token`
      : `${descriptor.title}: the token endpoint ${where} refused the request (HTTP ${status}` +
        `${said ? `: ${said}` : ""});${hint}`;
    throw createError(kind, redact(message, ctx.secrets), { ...details, status, retryable: kind !== "auth" });
  }
  const expiresIn =
    typeof json.expires_in === "number"
      ? json.expires_in
      : typeof json.expires_in === "string"
        ? Number(json.expires_in)
        : undefined;
  const entry: TokenEntry = {
    accessToken: json.access_token,
    expiresAt: expiresIn !== undefined && Number.isFinite(expiresIn) ? Date.now() + expiresIn * 1000 : undefined,
    refreshToken: typeof json.refresh_token === "string" && json.refresh_token ? json.refresh_token : undefined,
  };
  ctx.secrets.add(entry.accessToken);
  if (entry.refreshToken) ctx.secrets.add(entry.refreshToken);
  return entry;
}

function required(ctx: TokenRequestContext, field: string): string {
  const value = ctx.connection.fields[field];
  if (!value) {
    throw new AuthError(
      "auth",
      `${ctx.descriptor.title} connection "${ctx.connection.name}" has no "${field}"; add it to the connection`,
      {
        service: ctx.descriptor.id,
        operation: ctx.operation,
      },
    );
  }
  return value;
}

/** OAuth 2.0 client credentials: a new access token from the token endpoint. */
export function fetchClientCredentialsToken(ctx: TokenRequestContext): Promise<TokenEntry> {
  const auth = ctx.descriptor.auth;
  if (auth.kind !== "oauth2-client-credentials") throw new Error("not a client-credentials service");
  const params = {
    grant_type: "client_credentials",
    client_id: required(ctx, auth.clientIdField),
    client_secret: required(ctx, auth.clientSecretField),
  };
  return tokenRequest(ctx, params, auth.tokenMethod, auth.credentialsIn);
}

/** OAuth 2.0 authorization code: a new access token (and, if it rotates, refresh token) from a refresh token. */
export async function refreshAuthorizationCode(
  ctx: TokenRequestContext,
  current: TokenEntry | undefined,
): Promise<TokenEntry> {
  const auth = ctx.descriptor.auth;
  if (auth.kind !== "oauth2-authorization-code") throw new Error("not an authorization-code service");
  const refreshToken = current?.refreshToken ?? ctx.connection.fields[auth.refreshTokenField];
  if (!refreshToken) {
    throw new AuthError(
      "auth",
      `${ctx.descriptor.title} connection "${ctx.connection.name}" has no usable access ` +
        `token and no "${auth.refreshTokenField}"; connect the account again`,
      { service: ctx.descriptor.id, operation: ctx.operation },
    );
  }
  const params = {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: required(ctx, auth.clientIdField),
    client_secret: required(ctx, auth.clientSecretField),
  };
  const entry = await tokenRequest(ctx, params, "POST", auth.credentialsIn);
  // A service that does not rotate (or did not this time) keeps the old refresh token valid.
  return { ...entry, refreshToken: entry.refreshToken ?? refreshToken };
}

/**
 * OAuth 2.0 authorization code: trades the code the browser brought back for the first tokens.
 * Returns the connection fields to store (access token, refresh token, expiry).
 */
export async function exchangeAuthorizationCode(
  descriptor: ServiceDescriptor,
  options: {
    connection: Connection;
    code: string;
    redirectUri: string;
    fetch?: typeof fetch;
    tokenUrl?: string;
    timeoutMs?: number;
  },
): Promise<Record<string, string>> {
  const auth = descriptor.auth;
  if (auth.kind !== "oauth2-authorization-code")
    throw new Error(`${descriptor.title} does not use the OAuth 2.0 authorization-code flow`);
  const ctx: TokenRequestContext = {
    descriptor,
    connection: options.connection,
    fetch: options.fetch ?? globalThis.fetch,
    tokenUrl: options.tokenUrl ?? auth.tokenUrl,
    timeoutMs: options.timeoutMs ?? 30_000,
    secrets: new Set([...secretValues(descriptor, options.connection), options.code]),
    operation: "authorize",
  };
  const params = {
    grant_type: "authorization_code",
    code: options.code,
    redirect_uri: options.redirectUri,
    client_id: required(ctx, auth.clientIdField),
    client_secret: required(ctx, auth.clientSecretField),
  };
  return tokenFields(descriptor, await tokenRequest(ctx, params, "POST", auth.credentialsIn));
}

/** The connection fields an authorization-code token lives in, for the caller's store. */
export function tokenFields(descriptor: ServiceDescriptor, entry: TokenEntry): Record<string, string> {
  const auth = descriptor.auth;
  if (auth.kind !== "oauth2-authorization-code") return {};
  const fields: Record<string, string> = { [auth.accessTokenField]: entry.accessToken };
  if (entry.refreshToken) fields[auth.refreshTokenField] = entry.refreshToken;
  if (auth.expiresAtField && entry.expiresAt !== undefined)
    fields[auth.expiresAtField] = new Date(entry.expiresAt).toISOString();
  return fields;
}
