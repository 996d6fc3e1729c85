/**
 * Who is calling: the credentials a request carries, checked against the accepted connection
 * values (API keys in their placements, or a bearer token the mock issued), and the token
 * endpoint of OAuth services (client credentials, authorization code, refresh, rotation, expiry).
 */
import type { ServiceDescriptor } from "../descriptor.js";
import { setOwn } from "../internal/values.js";
import type { IdMaker } from "./ids.js";
import type { MockService, MockSituation } from "./extension-types.js";
import { render, type Context } from "./template.js";
import type { MockAuthOptions, Rec } from "./types.js";

export type Caller = { credential: Record<string, string>; index: number };
export type AuthResult = ({ ok: true } & Caller) | { ok: false; situation: MockSituation };

/** Where a credential is read from in a request. */
export interface CredentialSource {
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => values[name] ?? "");
}

/** The path of a token endpoint given as a template under the base address or as an absolute URL. */
export function tokenPathOf(descriptor: ServiceDescriptor): string | undefined {
  const auth = descriptor.auth;
  if (auth.kind !== "oauth2-client-credentials" && auth.kind !== "oauth2-authorization-code") return undefined;
  const base = descriptor.connection.baseUrl.replace(/\/+$/, "");
  if (auth.tokenUrl.startsWith(base)) return auth.tokenUrl.slice(base.length) || "/";
  try {
    return new URL(auth.tokenUrl).pathname;
  } catch {
    return auth.tokenUrl.replace(/^\{[^}]+\}/, "");
  }
}

type Placement = { in: "query" | "header" | "cookie"; name: string; value: string };

function read(from: CredentialSource, p: { in: string; name: string }): string | undefined {
  if (p.in === "query") return from.query.get(p.name) ?? undefined;
  if (p.in === "cookie") return cookieValue(from.headers.cookie, p.name);
  const h = from.headers[p.name.toLowerCase()];
  return Array.isArray(h) ? h[0] : h;
}

/** A cookie's value from the request's Cookie header(s) (`a=1; b=2`). */
function cookieValue(header: string | string[] | undefined, name: string): string | undefined {
  for (const line of [header ?? []].flat()) {
    for (const pair of line.split(";")) {
      const at = pair.indexOf("=");
      if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
    }
  }
  return undefined;
}

/**
 * A placement's template as a pattern: `Bearer {accessToken}` takes `Bearer ` (the scheme in any
 * case, as HTTP reads it) and one word without spaces; `{apiKey}` any non-empty value.
 */
function shapeOf(p: { in: string; name: string; value: string }): {
  from: Placement;
  pattern: RegExp;
  fields: string[];
} {
  const fields: string[] = [];
  let source = "";
  let last = 0;
  for (const m of p.value.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    source += p.value.slice(last, m.index).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    source += "(\\S+)";
    fields.push(m[1]!);
    last = m.index + m[0].length;
  }
  source += p.value.slice(last).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const from: Placement = {
    in: p.in as Placement["in"],
    name: p.in === "header" ? p.name.toLowerCase() : p.name,
    value: p.value,
  };
  return { from, pattern: new RegExp(`^${source}$`, "i"), fields };
}

/** The fields a request's credentials fill, when every placement of the mode carries a well-formed value. */
function wellFormed(
  from: CredentialSource,
  shape: Array<{ from: Placement; pattern: RegExp; fields: string[] }>,
): Record<string, string> | undefined {
  const credential: Record<string, string> = {};
  for (const { from: p, pattern, fields } of shape) {
    const sent = read(from, p);
    const m = sent === undefined ? null : pattern.exec(sent.trim());
    if (!m) return undefined;
    fields.forEach((name, i) => setOwn(credential, name, m[i + 1]!));
    // Basic credentials are base64 of user:password.
    if (/^basic /i.test(p.value) && !basicPair(m[1]!)) return undefined;
  }
  return credential;
}

function basicPair(text: string): boolean {
  return /^[A-Za-z0-9+/]+={0,2}$/.test(text) && Buffer.from(text, "base64").toString("utf8").includes(":");
}

export class Auth {
  /** api-key services: per credential, per mode, the exact values each placement must carry. */
  private readonly keyModes: Array<{ index: number; placements: Placement[] }> = [];
  /** anyCredential: per mode, each placement's shape (its template as a pattern of its fields). */
  private readonly shapes: Array<Array<{ from: Placement; pattern: RegExp; fields: string[] }>> = [];
  /** anyCredential: an index per distinct credential seen, after the configured ones (limits count per index). */
  private readonly seen = new Map<string, number>();
  private accessTokens = new Map<string, { index: number; expiresAt: number }>();
  private refreshTokens = new Map<number, string>();
  readonly tokenPath: string | undefined;

  constructor(
    private readonly descriptor: ServiceDescriptor,
    private readonly model: MockService,
    readonly credentials: Array<Record<string, string>>,
    private readonly ids: IdMaker,
    private readonly clock: () => number,
    private readonly options: MockAuthOptions,
  ) {
    this.tokenPath = tokenPathOf(descriptor);
    const auth = descriptor.auth;
    if (auth.kind === "api-key" && model.anyCredential) {
      for (const placements of Object.values(auth.modes)) this.shapes.push(placements.map(shapeOf));
    }
    if (auth.kind === "api-key") {
      for (const [index, credential] of credentials.entries()) {
        for (const placements of Object.values(auth.modes)) {
          this.keyModes.push({
            index,
            placements: placements.map((p) => ({
              in: p.in as "query" | "header",
              name: p.in === "header" ? p.name.toLowerCase() : p.name,
              value: fill(p.value, credential),
            })),
          });
        }
      }
    }
  }

  reset(): void {
    this.seen.clear();
    this.accessTokens.clear();
    this.refreshTokens.clear();
  }

  /** Whether the request carries credentials the mock accepts, and whose. */
  check(from: CredentialSource): AuthResult {
    const auth = this.descriptor.auth;
    if (auth.kind === "none") return { ok: true, credential: this.credentials[0] ?? {}, index: 0 };
    if (auth.kind === "api-key") {
      for (const mode of this.keyModes) {
        let all = true;
        for (const p of mode.placements) if (read(from, p) !== p.value) all = false;
        if (all) return { ok: true, credential: this.credentials[mode.index]!, index: mode.index };
      }
      for (const shape of this.shapes) {
        const credential = wellFormed(from, shape);
        if (!credential) continue;
        const key = JSON.stringify(credential);
        let index = this.seen.get(key);
        if (index === undefined) this.seen.set(key, (index = this.credentials.length + this.seen.size));
        return { ok: true, credential, index };
      }
      return { ok: false, situation: "unauthorized" };
    }
    const sent = read(from, auth.send);
    const [before, after = ""] = auth.send.value.split("{accessToken}") as [string, string | undefined];
    if (!sent || !sent.startsWith(before) || !sent.endsWith(after)) return { ok: false, situation: "unauthorized" };
    const token = sent.slice(before.length, sent.length - after.length);
    this.initialTokens();
    const entry = this.accessTokens.get(token);
    if (!entry) return { ok: false, situation: "unauthorized" };
    if (entry.expiresAt <= this.clock()) return { ok: false, situation: "expiredToken" };
    return { ok: true, credential: this.credentials[entry.index]!, index: entry.index };
  }

  private lifetimeMs(): number {
    return (this.options.tokenLifetimeSeconds ?? this.model.token?.lifetimeSeconds ?? 3600) * 1000;
  }

  /** Authorization-code services start with the connection's own access and refresh tokens. */
  private initialTokens(): void {
    const auth = this.descriptor.auth;
    if (auth.kind !== "oauth2-authorization-code" || this.refreshTokens.size > 0) return;
    for (const [index, c] of this.credentials.entries()) {
      const access = c[auth.accessTokenField];
      if (access && !this.accessTokens.has(access))
        this.accessTokens.set(access, { index, expiresAt: this.clock() + this.lifetimeMs() });
      const refresh = c[auth.refreshTokenField];
      if (refresh) this.refreshTokens.set(index, refresh);
    }
  }

  private issue(index: number, ctx: Context): { body: unknown; issued: boolean } {
    const t = this.model.token;
    const now = this.clock();
    let access: string | undefined;
    let expiresAt = now + this.lifetimeMs();
    if (t?.reuseUntilExpiry) {
      for (const [token, e] of this.accessTokens) {
        if (e.index === index && e.expiresAt > now) {
          access = token;
          expiresAt = e.expiresAt;
        }
      }
    }
    const issued = !access;
    if (!access) {
      const h = this.ids.chars(32);
      access = fill(t?.format ?? "{uuid}", {
        uuid: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
        hex: h,
      });
      this.accessTokens.set(access, { index, expiresAt });
    }
    const auth = this.descriptor.auth;
    let refreshToken: string | undefined;
    if (auth.kind === "oauth2-authorization-code") {
      refreshToken = this.refreshTokens.get(index);
      if (!refreshToken || auth.rotatesRefreshToken) refreshToken = this.ids.chars(40);
      this.refreshTokens.set(index, refreshToken);
    }
    const body = render(t?.response ?? { access_token: "{accessToken}", expires_in: "{expiresIn}" }, {
      ...ctx,
      accessToken: access,
      refreshToken,
      expiresIn: Math.max(0, Math.floor((expiresAt - now) / 1000)),
      nowSeconds: Math.floor(now / 1000),
    });
    return { body, issued };
  }

  /** The token endpoint: a token body, or why the request was refused. */
  token(
    query: URLSearchParams,
    body: unknown,
    ctx: Context,
  ): { ok: true; body: unknown; issued: boolean } | { ok: false; detail: string } {
    const auth = this.descriptor.auth;
    if (auth.kind !== "oauth2-client-credentials" && auth.kind !== "oauth2-authorization-code")
      return { ok: false, detail: "no token endpoint" };
    const params: Rec =
      auth.kind === "oauth2-client-credentials" && auth.credentialsIn === "query"
        ? Object.fromEntries(query)
        : { ...Object.fromEntries(query), ...(body && typeof body === "object" ? (body as Rec) : {}) };
    const index = this.credentials.findIndex(
      (c) => c[auth.clientIdField] === params.client_id && c[auth.clientSecretField] === params.client_secret,
    );
    if (index < 0) return { ok: false, detail: "bad client credentials" };
    if (auth.kind === "oauth2-client-credentials") {
      if (params.grant_type !== "client_credentials") return { ok: false, detail: "unsupported grant_type" };
      return { ok: true, ...this.issue(index, ctx) };
    }
    this.initialTokens();
    if (params.grant_type === "refresh_token") {
      if (!params.refresh_token || this.refreshTokens.get(index) !== params.refresh_token)
        return { ok: false, detail: "invalid refresh token" };
      return { ok: true, ...this.issue(index, ctx) };
    }
    if (params.grant_type === "authorization_code") {
      if (params.code !== (this.options.authorizationCode ?? "mock-authorization-code"))
        return { ok: false, detail: "invalid authorization code" };
      return { ok: true, ...this.issue(index, ctx) };
    }
    return { ok: false, detail: "unsupported grant_type" };
  }
}
