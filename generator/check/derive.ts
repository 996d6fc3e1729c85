/**
 * A spec without `x-stepforge` (a foreign spec): its descriptor derived from `servers` and the
 * security requirements. Its mock is inferred from its REST shape (mock-infer.ts).
 *
 * Security: each requirement object of `security` is one alternative (OR) and becomes an auth
 * mode; the schemes inside one object are all required together (AND) and are all sent by that
 * mode. The first alternative is the default. Schemes stepforge cannot send are left out with a
 * warning (SF171).
 */
import type { Placement, ServiceExtension } from "../../runtime/descriptor.js";
import { asArray, asObject, type Json } from "../refs.js";
import type { CheckContext } from "./context.js";
import { jsonErrorMedia, MESSAGE_FIELDS } from "./error-media.js";

type Fields = ServiceExtension["connection"]["fields"];

/** The id rule of ServiceExtensionSchema (runtime/descriptor.ts), said in words. */
const SERVICE_ID = /^[a-z][a-z0-9]{1,30}$/;
const SERVICE_ID_RULE = "2 to 31 lower-case letters and digits, starting with a letter, e.g. myservice";

export function deriveExtension(context: CheckContext, serviceId: string | undefined): ServiceExtension | undefined {
  const title = derivedTitle(context.doc);
  const id = derivedServiceId(context, title, serviceId);
  if (id === undefined) return undefined;
  const { connection, auth } = deriveConnection(context);
  // What ServiceExtensionSchema.parse makes of the derived values (they meet its rules by construction),
  // written out so deriving needs no zod (parts.ts); test/check/extension-parts.test.ts compares the two.
  return {
    id,
    title,
    connection,
    auth,
    limits: [],
    errors: {
      messageFields: messageFieldsOf(context) ?? [...DEFAULT_MESSAGE_FIELDS],
      requestIdHeaders: [],
      retryAfterHeaders: ["retry-after"],
      codes: {},
      statuses: {},
    },
  };
}

/** The runtime's default message fields (ErrorsSchema, runtime/descriptor-schemas.ts), kept after the spec's own. */
const DEFAULT_MESSAGE_FIELDS = ["message", "error"];

/**
 * Where this spec's error bodies say what went wrong: the message-like fields its 4xx, 5xx and
 * default JSON responses declare (an RFC 7807 problem's `detail`, then `title`), most telling first,
 * then the runtime's defaults. Without them a problem+json answer became a bare "HTTP 422".
 * Undefined when the responses declare none (the defaults apply).
 */
function messageFieldsOf(context: CheckContext): string[] | undefined {
  const declared = new Set<string>();
  for (const item of Object.values(asObject(context.doc.paths) ?? {})) {
    for (const operation of Object.values(asObject(context.refs.deref(item)) ?? {})) {
      // The error responses the mock's inference reads too (mock-errors.ts).
      for (const { media } of jsonErrorMedia(context.refs, asObject(operation)))
        for (const property of context.refs.node(media.schema).properties) declared.add(property.name);
    }
  }
  const fields = MESSAGE_FIELDS.filter((f) => declared.has(f));
  if (fields.length === 0) return undefined;
  return [...fields, ...DEFAULT_MESSAGE_FIELDS.filter((f) => !fields.includes(f))];
}

/** The service's title from `info.title` (spaces folded), or "API". */
export function derivedTitle(doc: Json): string {
  const info = asObject(doc.info) ?? {};
  return typeof info.title === "string" && info.title.trim() ? info.title.trim().replace(/\s+/g, " ") : "API";
}

/** `serviceId` (--service) or an id made from the title; SF105 and undefined when it is not an id. */
export function derivedServiceId(
  context: CheckContext,
  title: string,
  serviceId: string | undefined,
): string | undefined {
  const id = serviceId ?? slug(title);
  if (SERVICE_ID.test(id)) return id;
  // Name what was refused: the --service value when one was passed, else the title.
  const message =
    serviceId !== undefined
      ? `--service "${serviceId}" is not a service id: ${SERVICE_ID_RULE}`
      : `cannot derive a service id from the title "${title}"; pass --service NAME (${SERVICE_ID_RULE})`;
  context.report("SF105", ["info", "title"], message);
  return undefined;
}

/**
 * The connection (base URL from the first server, a `baseUrl` field when it has no usable one)
 * and the auth (from the security requirements), as for a spec without `x-stepforge`.
 */
export function deriveConnection(context: CheckContext): Pick<ServiceExtension, "connection" | "auth"> {
  const fields: Fields = {};
  // The base URL first: its field (when it needs one) comes before the credentials.
  const baseUrl = derivedBaseUrl(context.doc, fields);
  return { connection: { baseUrl, fields }, auth: deriveAuth(context, fields) };
}

/** The first server's URL with its variables' defaults; `{baseUrl}` (a field added) when there is none usable. */
export function derivedBaseUrl(doc: Json, fields: Fields): string {
  const server = asObject(asArray(doc.servers)[0]);
  const variables = asObject(server?.variables) ?? {};
  const url = (typeof server?.url === "string" ? server.url : "").replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const v = asObject(variables[name]);
    return typeof v?.default === "string" ? v.default : whole;
  });
  if (/^https?:\/\/[^{}\s]+$/.test(url)) return url;
  fields.baseUrl ??= { description: "Base address of the API", secret: false, required: true };
  return "{baseUrl}";
}

/** The auth from the security requirements; the connection fields it sends are added to `fields`. */
export function deriveAuth(context: CheckContext, fields: Fields): ServiceExtension["auth"] {
  const schemes = asObject(asObject(context.doc.components)?.securitySchemes) ?? {};
  const declared = asArray(context.doc.security)
    .map(asObject)
    .filter((r): r is Json => r !== undefined && Object.keys(r).length > 0);
  // Without top-level requirements, each declared scheme is an alternative of its own.
  const requirements =
    declared.length > 0 ? declared.map((r) => Object.keys(r)) : Object.keys(schemes).map((name) => [name]);
  const modes: Record<string, Placement[]> = {};
  const fieldOf = new Map<string, string>();
  const usedFields: string[][] = [];
  requirements.forEach((names, i) => {
    const placements: Placement[] = [];
    const fieldNames: string[] = [];
    for (const name of names) {
      const placement = placementOf(context, name, asObject(schemes[name]), fields, fieldOf, i);
      if (!placement) return; // this alternative cannot be satisfied
      placements.push(placement);
      fieldNames.push(fieldOf.get(name)!);
    }
    const mode = requirements.length === 1 ? "default" : uniqueName(modeName(names), modes);
    modes[mode] = placements;
    usedFields.push(fieldNames);
  });
  const modeNames = Object.keys(modes);
  if (modeNames.length === 0) return { kind: "none" };
  // A field only some alternatives need is optional: the connection fills the fields of its mode.
  for (const name of Object.keys(fields)) {
    if (name !== "baseUrl" && !usedFields.every((list) => list.includes(name))) fields[name]!.required = false;
  }
  return { kind: "api-key", modes, defaultMode: modeNames[0]! };
}

function placementOf(
  context: CheckContext,
  name: string,
  scheme: Json | undefined,
  fields: Fields,
  fieldOf: Map<string, string>,
  requirement: number,
): Placement | undefined {
  const at =
    context.doc.security === undefined ? ["components", "securitySchemes", name] : ["security", requirement, name];
  const field = (base: string, description: string) => {
    let known = fieldOf.get(name);
    if (!known) {
      known = base in fields ? uniqueName(camelWords(name) || "credential", fields) : base;
      fields[known] = { description, secret: true, required: true };
      fieldOf.set(name, known);
    }
    return known;
  };
  const type = scheme?.type;
  const httpScheme = String(scheme?.scheme ?? "").toLowerCase();
  if (
    type === "apiKey" &&
    typeof scheme!.name === "string" &&
    scheme!.name &&
    (scheme!.in === "query" || scheme!.in === "header" || scheme!.in === "cookie")
  ) {
    return { in: scheme!.in, name: scheme!.name, value: `{${field("apiKey", `API key (${name})`)}}` };
  }
  if ((type === "http" && httpScheme === "bearer") || type === "oauth2" || type === "openIdConnect") {
    return { in: "header", name: "Authorization", value: `Bearer {${field("accessToken", `Bearer token (${name})`)}}` };
  }
  if (type === "http" && httpScheme === "basic") {
    return {
      in: "header",
      name: "Authorization",
      value: `Basic {${field("basicCredentials", `base64 of user:password (${name})`)}}`,
    };
  }
  const what =
    scheme === undefined
      ? "is not declared under components.securitySchemes"
      : `(${String(type)}${scheme.in ? ` in ${String(scheme.in)}` : ""}${httpScheme ? ` ${httpScheme}` : ""}) ` +
        `cannot be sent by stepforge`;
  context.report(
    "SF171",
    at,
    `security scheme "${name}" ${what}; the requirement that names it is left out of the derived auth`,
    "warning",
  );
  return undefined;
}

/** `APIKey` → `apiKey`, `petstore_auth` → `petstoreAuth`. */
function camelWords(text: string): string {
  const words = text.match(/[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g) ?? [];
  const joined = words
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase()))
    .join("");
  return /^[a-z]/.test(joined) ? joined : "";
}

function modeName(schemes: string[]): string {
  return schemes.map((s) => camelWords(s) || "scheme").join("_") || "default";
}

function uniqueName(base: string, taken: Record<string, unknown>): string {
  let name = base;
  for (let i = 2; name in taken; i++) name = `${base}${i}`;
  return name;
}

function slug(title: string): string {
  const s = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "")
    .slice(0, 31);
  return /^[a-z]/.test(s) ? s : `api${s}`.slice(0, 31);
}
