/**
 * The credentials every client places on its attempts: the connection's fields filled into the
 * query parameters, headers or cookies the descriptor declares (an api key, a static bearer token).
 * This is all a client whose spec declares no OAuth flow needs; the OAuth flows (a token fetched,
 * cached, renewed and rotated) extend it in source.ts, which only clients whose spec declares
 * such a flow import (issue 22: the Trello client's bundle carries no token code).
 * It also knows every secret value, so the rest of the pipeline can mask them.
 */
import type { ServiceDescriptor } from "../descriptor.js";
import type { Events } from "../client/observer.js";
import type { ResolvedRetry } from "../client/retry.js";
import type { SharedState } from "../client/shared-state.js";
import { fillTemplate } from "../internal/template.js";
import { type Connection, credentialQueryNames, placementsFor, secretValues } from "./auth.js";
import type { ConnectionStore } from "./connections.js";

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

/** What the request pipeline asks of a client's credentials (transport.ts). */
export interface Credentials {
  /** Every secret value known (connection fields, tokens fetched since), for masking. */
  readonly secrets: Set<string>;
  /** Query parameter names that carry credentials (masked in every URL shown). */
  readonly queryNames: string[];
  /** Whether attempts carry an OAuth access token from the token cache. */
  readonly usesTokens: boolean;
  /** The access token an attempt carries (OAuth kinds; undefined otherwise), renewed when due. */
  accessToken(call: TokenCall): Promise<string | undefined>;
  /** The service refused `accessToken`: no call of this process uses it again. */
  invalidate(accessToken: string, call: TokenCall): void;
  /** An attempt's address and headers with the credentials (and the access token) on. */
  place(url: string, headers: Headers | undefined, accessToken: string | undefined): Credentialed;
}

/**
 * How a client gets its credentials part: `placedCredentials` for specs without an OAuth flow,
 * `oauthCredentials` (source.ts) for those with one. Generated clients pass the one their spec needs.
 */
export type CredentialsFlow = (options: CredentialsOptions) => Credentials;

/** Credentials placed from the connection's fields as they are: no token to fetch or renew. */
export class PlacedCredentials implements Credentials {
  readonly secrets: Set<string>;
  readonly queryNames: string[];
  readonly usesTokens: boolean = false;
  private lastPlaced: { token: string | undefined; placed: Placed } | undefined;

  constructor(protected readonly options: CredentialsOptions) {
    const { descriptor, connection } = options;
    this.secrets = new Set(secretValues(descriptor, connection));
    this.queryNames = credentialQueryNames(descriptor);
  }

  accessToken(_call: TokenCall): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  invalidate(_accessToken: string, _call: TokenCall): void {}

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
}

/** The credentials part of a spec without an OAuth flow. */
export const placedCredentials: CredentialsFlow = (options) => new PlacedCredentials(options);

function sameName(a: string, b: string, caseless: boolean): boolean {
  return caseless ? a.toLowerCase() === b.toLowerCase() : a === b;
}
