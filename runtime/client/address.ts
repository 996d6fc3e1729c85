/**
 * Where a client's requests go: the connection as the service's admin page shows it made usable
 * (declared suffixes trimmed), the base address and the OAuth token endpoint resolved from it, and
 * both checked before anything is sent.
 */
import type { ServiceDescriptor } from "../descriptor.js";
import { ConnectionError, redactUrl } from "../errors.js";
import type { Connection } from "../credentials/auth.js";
import { fillTemplate } from "../internal/template.js";

export function resolveBaseUrl(descriptor: ServiceDescriptor, connection: Connection, override?: string): string {
  const raw =
    override ?? fillTemplate(descriptor.connection.baseUrl, connection.fields, `${descriptor.id} base address`);
  return raw.replace(/\/+$/, "");
}

/**
 * Checks an address before anything is sent to it: it must parse, carry no user information
 * (`user:password@`: fetch cannot send it, and the error it would throw quotes the whole address,
 * password and credential query included) and, unless it is an explicit override, use https.
 */
export function checkAddress(
  descriptor: ServiceDescriptor,
  address: string,
  what: string,
  field: string | undefined,
  options: { https: boolean },
): void {
  const refuse = (problem: string) =>
    new ConnectionError(`${descriptor.title}: the ${what} ${problem}`, {
      service: descriptor.id,
      operation: "",
      field,
    });
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    // An override that does not parse fails at the first request, with the address named.
    if (!options.https) return;
    throw refuse(`is not a valid address${field ? `; check the connection field "${field}"` : ""}`);
  }
  if (url.username || url.password) {
    const where = field ? ` from the connection field "${field}"` : "";
    throw refuse(
      `${redactUrl(address)} contains user information (user:password@), which is never sent; remove it${where}`,
    );
  }
  if (options.https && url.protocol !== "https:") {
    const fix = "credentials are only sent over https (use the baseUrl option for a local mock)";
    throw refuse(`${redactUrl(address)} is not https; ${fix}`);
  }
}

/** The token endpoint for OAuth kinds; follows a base-address override when it lives under the base address. */
export function resolveTokenUrl(
  descriptor: ServiceDescriptor,
  connection: Connection,
  baseOverride?: string,
  tokenOverride?: string,
): string | undefined {
  const auth = descriptor.auth;
  if (auth.kind !== "oauth2-client-credentials" && auth.kind !== "oauth2-authorization-code") return undefined;
  if (tokenOverride) return tokenOverride;
  const template = auth.tokenUrl;
  const baseTemplate = descriptor.connection.baseUrl.replace(/\/+$/, "");
  const base = baseOverride?.replace(/\/+$/, "");
  if (base !== undefined && template.startsWith(baseTemplate)) return base + template.slice(baseTemplate.length);
  const filled = fillTemplate(template, connection.fields, `${descriptor.id} token address`);
  if (base !== undefined) {
    try {
      const declared = resolveBaseUrl(descriptor, connection);
      if (filled.startsWith(declared)) return base + filled.slice(declared.length);
    } catch {
      /* the declared base needs fields the override made unnecessary */
    }
  }
  return filled;
}

/**
 * The connection with each field's declared `trimSuffix` (and trailing slashes on it) removed, so
 * a value pasted as shown in the service's admin page works.
 */
export function normaliseConnection(descriptor: ServiceDescriptor, connection: Connection): Connection {
  let fields = connection.fields;
  for (const [name, spec] of Object.entries(descriptor.connection.fields)) {
    const value = fields[name];
    if (!spec.trimSuffix || typeof value !== "string") continue;
    let trimmed = value.replace(/\/+$/, "");
    if (trimmed.endsWith(spec.trimSuffix)) trimmed = trimmed.slice(0, -spec.trimSuffix.length).replace(/\/+$/, "");
    if (trimmed !== value) fields = { ...fields, [name]: trimmed };
  }
  return fields === connection.fields ? connection : { ...connection, fields };
}

/**
 * Where an operation's own server (OpenAPI `servers` at path or operation level, the descriptor's
 * `server`) sits relative to the service's declared base address:
 * - `under`: below the declared base (`https://api.box.com/2.0/uploads` under `…/2.0`): the rest is
 *   added to whatever base is used;
 * - `path`: a relative server (`/batch`), or an absolute one whose place cannot be tied to the base:
 *   its path on the origin of the base used;
 * - `elsewhere`: another host; `url` is where the service itself takes these requests.
 * The client sends by this, and a mock serves each operation at the path it gives, so the two agree.
 */
export type ServerPlace =
  | { kind: "under"; rest: string }
  | { kind: "path"; path: string }
  | { kind: "elsewhere"; url: URL; path: string };

export function serverPlace(server: string, declaredBase: string | undefined): ServerPlace {
  const trim = (p: string) => p.replace(/\/+$/, "");
  const relative = !/^[a-z][a-z0-9+.-]*:/i.test(server);
  let declared: URL | undefined;
  try {
    declared = declaredBase === undefined ? undefined : new URL(declaredBase);
  } catch {
    /* a template not filled (a base made of connection fields) */
  }
  let url: URL;
  try {
    url = new URL(server, declared?.origin ?? "http://declared.invalid");
  } catch {
    return { kind: "path", path: "" };
  }
  if (relative) return { kind: "path", path: trim(url.pathname) };
  if (declared && url.origin === declared.origin) {
    const base = trim(declared.pathname);
    const path = trim(url.pathname);
    if (path === base || path.startsWith(`${base}/`)) return { kind: "under", rest: path.slice(base.length) };
    return { kind: "path", path };
  }
  return { kind: "elsewhere", url, path: trim(url.pathname) };
}

/**
 * The path a mock (one origin, the declared base's path left out) serves an operation at;
 * `declaredBase` is the service's base address as declared (`descriptor.connection.baseUrl`).
 */
export function servedPath(declaredBase: string, server: string | undefined, path: string): string {
  if (server === undefined) return path;
  const place = serverPlace(server, declaredBase);
  return (place.kind === "under" ? place.rest : place.path) + path;
}

/**
 * Where an operation with its own server sends its requests (see {@link serverPlace}): under the
 * declared base, the base used plus the rest; a relative server or one on the declared host, its
 * path on the base's origin; another host as declared, and then only over https — unless the base
 * is an override (a mock, a proxy): then every call follows it, and none leaves for a host the
 * caller did not name.
 */
export function operationBase(
  descriptor: ServiceDescriptor,
  connection: Connection,
  server: string,
  baseUrl: string,
  overridden: boolean,
): string {
  let declared: string | undefined;
  try {
    declared = resolveBaseUrl(descriptor, connection);
  } catch {
    /* the declared base needs fields an override made unnecessary */
  }
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return baseUrl;
  }
  const place = serverPlace(server, declared);
  if (place.kind === "under") return `${baseUrl.replace(/\/+$/, "")}${place.rest}`;
  if (place.kind === "path" || overridden) return base.origin + place.path;
  checkAddress(descriptor, place.url.href, `server of an operation`, undefined, { https: true });
  return place.url.href.replace(/\/+$/, "");
}
