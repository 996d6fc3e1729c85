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
 * Where an operation with its own server (OpenAPI `servers` at path or operation level, the
 * descriptor's `server`) sends its requests: a relative server under the base address's origin; an
 * absolute one on the declared base's origin follows the base actually used (a connection's
 * instance, an override such as a mock); any other as declared, and then only over https unless
 * the client's base is an override. Undefined when the operation has no server of its own.
 */
export function operationBase(
  descriptor: ServiceDescriptor,
  connection: Connection,
  server: string,
  baseUrl: string,
  overridden: boolean,
): string {
  const base = new URL(baseUrl);
  let url: URL;
  try {
    url = new URL(server, base.origin);
  } catch {
    return baseUrl;
  }
  let declaredOrigin: string | undefined;
  try {
    declaredOrigin = new URL(resolveBaseUrl(descriptor, connection)).origin;
  } catch {
    /* the declared base needs fields an override made unnecessary */
  }
  const relative = !/^[a-z][a-z0-9+.-]*:/i.test(server);
  if (relative || url.origin === declaredOrigin) return (base.origin + url.pathname).replace(/\/+$/, "");
  checkAddress(descriptor, url.href, `server of an operation`, undefined, { https: !overridden });
  return url.href.replace(/\/+$/, "");
}
