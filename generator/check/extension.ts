/**
 * `x-stepforge`: its schema (zod, in the runtime) and the cross-field rules zod cannot see: every
 * name the extension refers to must exist. `x-stepforge-triggers` is checked in ./triggers.ts.
 */
import { ServiceExtensionSchema, type ServiceExtension } from "../../runtime/descriptor.js";
import { templateFields } from "../../runtime/internal/template.js";
import { checkTimeZone } from "../../runtime/internal/time.js";
import { asObject } from "../refs.js";
import { closest, reportProtoKeys, reportZod, type CheckContext, type Path, type Report } from "./context.js";
import { METHODS, OPERATION_EXTENSIONS } from "./operations.js";
import { TRIGGERS_EXTENSION } from "./triggers.js";

export const ROOT_EXTENSION = "x-stepforge";

/** The parsed `x-stepforge`, or undefined when it does not match its schema (reported). */
export function checkServiceExtension(context: CheckContext): ServiceExtension | undefined {
  const parsed = ServiceExtensionSchema.safeParse(context.doc[ROOT_EXTENSION]);
  reportProtoKeys(context.doc[ROOT_EXTENSION], [ROOT_EXTENSION], context);
  if (!parsed.success) {
    reportZod(parsed.error, [ROOT_EXTENSION], context.report);
    return undefined;
  }
  checkReferences(parsed.data, context.report);
  checkLimitVocabulary(parsed.data, Object.keys(asObject(context.doc.paths) ?? {}), context.report);
  return parsed.data;
}

/**
 * Limit settings that would silently do nothing: a reset zone Intl does not know, a `per: path:`
 * parameter no operation's path has, a penalty on a quota (refused until its reset anyway).
 */
function checkLimitVocabulary(ext: ServiceExtension, pathTemplates: string[], report: Report): void {
  ext.limits.forEach((limit, i) => {
    if ("resetTimeZone" in limit) {
      try {
        checkTimeZone(limit.resetTimeZone);
      } catch (error) {
        report("SF125", [ROOT_EXTENSION, "limits", i, "resetTimeZone"], `limit "${limit.id}": ${(error as Error).message}`);
      }
    }
    if (limit.per.startsWith("path:")) {
      const name = limit.per.slice("path:".length);
      if (!pathTemplates.some((p) => p.includes(`{${name}}`))) {
        report("SF126", [ROOT_EXTENSION, "limits", i, "per"], `limit "${limit.id}" counts per path parameter "${name}", but no operation's path has {${name}}; name a path parameter (for example path:idBoard) or use per: connection`);
      }
    }
    if (limit.penaltySeconds !== undefined && limit.kind !== "window" && limit.kind !== "concurrency") {
      report("SF127", [ROOT_EXTENSION, "limits", i, "penaltySeconds"], `limit "${limit.id}" (${limit.kind}) is refused until its reset anyway, so penaltySeconds would do nothing; remove it`);
    }
  });
}

function checkReferences(ext: ServiceExtension, report: Report): void {
  const fields = new Set(Object.keys(ext.connection.fields));
  const known = [...fields].join(", ") || "(none)";
  const needField = (name: string, path: Path) => {
    if (!fields.has(name)) report("SF121", [ROOT_EXTENSION, ...path], `"${name}" is not a connection field; declare it under x-stepforge.connection.fields (known: ${known})`);
  };
  for (const name of templateFields(ext.connection.baseUrl)) needField(name, ["connection", "baseUrl"]);
  const auth = ext.auth;
  if (auth.kind === "api-key") {
    if (!auth.modes[auth.defaultMode]) report("SF122", [ROOT_EXTENSION, "auth", "defaultMode"], `defaultMode "${auth.defaultMode}" is not one of the modes (${Object.keys(auth.modes).join(", ")})`);
    for (const [mode, placements] of Object.entries(auth.modes)) {
      placements.forEach((p, i) => {
        for (const name of templateFields(p.value)) needField(name, ["auth", "modes", mode, i, "value"]);
      });
    }
  } else if (auth.kind !== "none") {
    needField(auth.clientIdField, ["auth", "clientIdField"]);
    needField(auth.clientSecretField, ["auth", "clientSecretField"]);
    for (const name of templateFields(auth.send.value)) if (name !== "accessToken") needField(name, ["auth", "send", "value"]);
    if (auth.kind === "oauth2-client-credentials") {
      for (const name of templateFields(auth.tokenUrl)) needField(name, ["auth", "tokenUrl"]);
    } else {
      needField(auth.accessTokenField, ["auth", "accessTokenField"]);
      needField(auth.refreshTokenField, ["auth", "refreshTokenField"]);
      if (auth.expiresAtField) needField(auth.expiresAtField, ["auth", "expiresAtField"]);
    }
  }
  const ids = new Set<string>();
  ext.limits.forEach((limit, i) => {
    if (limit.per.startsWith("field:")) needField(limit.per.slice("field:".length), ["limits", i, "per"]);
    if (ids.has(limit.id)) report("SF123", [ROOT_EXTENSION, "limits", i, "id"], `limit id "${limit.id}" is used twice; give each limit its own id`);
    ids.add(limit.id);
  });
  for (const [name, field] of Object.entries(ext.connection.fields)) {
    if (field.pattern === undefined) continue;
    try {
      new RegExp(field.pattern);
    } catch {
      report("SF124", [ROOT_EXTENSION, "connection", "fields", name, "pattern"], `pattern of "${name}" is not a valid regular expression`);
    }
  }
}

/** An `x-stepforge…` key the schemas do not know is almost always a typo; say what was meant. */
export function checkUnknownExtensions(context: CheckContext): void {
  const { doc, report } = context;
  for (const key of Object.keys(doc)) {
    if (key.startsWith("x-stepforge") && key !== ROOT_EXTENSION && key !== TRIGGERS_EXTENSION) {
      report("SF108", [key], `unknown extension "${key}" at the root; the root takes only "${ROOT_EXTENSION}" and "${TRIGGERS_EXTENSION}"`);
    }
  }
  for (const [path, rawItem] of Object.entries(asObject(doc.paths) ?? {})) {
    const item = asObject(rawItem) ?? {};
    for (const method of METHODS) {
      const op = asObject(item[method]);
      if (!op) continue;
      for (const key of Object.keys(op)) {
        if (key.startsWith("x-stepforge") && !OPERATION_EXTENSIONS.includes(key)) {
          const hint = closest(key, OPERATION_EXTENSIONS);
          report("SF109", ["paths", path, method, key], `unknown extension "${key}"${hint ? `; did you mean "${hint}"?` : ""} (operations take ${OPERATION_EXTENSIONS.join(", ")})`);
        }
      }
    }
  }
}
