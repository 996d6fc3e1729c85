/**
 * `x-stepforge`: its schema (zod, in the runtime) and the cross-field rules zod cannot see: every
 * name the extension refers to must exist. `x-stepforge-triggers` is checked in ./triggers.ts.
 *
 * Every key a plain spec derives (id, title, connection, auth, errors, limits, and the mock's
 * credentials, error and answers) may be left out: what is missing is derived as for a spec
 * without the extension, so an author adds only what they want to change. Every problem is
 * reported in one run, in words (./zod-words.ts): the schema's issues and the cross-field ones
 * together, the latter checked on whatever parts of the extension are valid.
 */
import type { AuthSpec, ConnectionSpec, ServiceExtension } from "../../runtime/descriptor.js";
import {
  AuthSchema,
  ConnectionSchema,
  ErrorsSchema,
  ServiceExtensionSchema,
} from "../../runtime/descriptor-schemas.js";
import { MockServiceSchema, type MockService } from "../../runtime/mock/extension.js";
import type { DiagnosticCode } from "../catalogue.js";
import { asObject, isObject } from "../refs.js";
import { closest, describeValue, reportProtoKeys, type CheckContext, type Path, type Report } from "./context.js";
import { deriveAuth, deriveConnection, derivedBaseUrl, derivedServiceId, derivedTitle } from "./derive.js";
import {
  authFieldReferences,
  checkExtensionReferences,
  checkFieldPatterns,
  writtenFieldNames,
} from "./extension-references.js";
import { ROOT_EXTENSION } from "./extension-keys.js";
import { reportIssues } from "./zod-words.js";

/** `x-stepforge` as written: what a plain spec derives may be left out. */
const DeclaredMockSchema = MockServiceSchema.partial({ credentials: true, error: true, answers: true });
export const DeclaredExtensionSchema = ServiceExtensionSchema.partial({
  id: true,
  title: true,
  connection: true,
  auth: true,
  errors: true,
}).extend({
  mock: DeclaredMockSchema.optional(),
});

type Fields = ConnectionSpec["fields"];

/** The complete extension (declared keys, the rest derived), or undefined when it has errors (reported). */
export function checkServiceExtension(context: CheckContext, serviceId?: string): ServiceExtension | undefined {
  const raw = context.doc[ROOT_EXTENSION];
  if (!isObject(raw)) {
    const keys = Object.keys(DeclaredExtensionSchema.shape).join(", ");
    context.report(
      "SF120",
      [ROOT_EXTENSION],
      `${ROOT_EXTENSION}: expected a mapping of the service's settings (any of ${keys}), ` +
        `found ${describeValue(raw)}; write them under it, or remove it`,
    );
    return undefined;
  }
  reportProtoKeys(raw, [ROOT_EXTENSION], context);
  // Collected, then reported in the order they appear in the file.
  const found: Array<{ code: DiagnosticCode; path: Path; message: string }> = [];
  const report: Report = (code, path, message) => void found.push({ code, path, message });
  const parsed = DeclaredExtensionSchema.safeParse(raw);
  if (!parsed.success) reportIssues(parsed.error, [ROOT_EXTENSION], report, DeclaredExtensionSchema, raw);
  const { connection, auth } = connectionAndAuth(context, raw);
  // The cross-field rules run now on what is written, not after the schema's issues are fixed.
  checkExtensionReferences(
    {
      fields: connection ? Object.keys(connection.fields) : writtenFieldNames(raw.connection),
      baseUrl:
        connection?.baseUrl ??
        (typeof asObject(raw.connection)?.baseUrl === "string"
          ? (asObject(raw.connection)!.baseUrl as string)
          : undefined),
      auth: raw.auth,
      limits: raw.limits,
      paths: Object.keys(asObject(context.doc.paths) ?? {}),
    },
    report,
  );
  checkFieldPatterns(raw.connection, report);
  const place = (path: Path) => context.spec.locate(path);
  found.sort((a, b) => place(a.path).line - place(b.path).line || place(a.path).column - place(b.path).column);
  for (const f of found) context.report(f.code, f.path, f.message);
  if (!parsed.success || !connection || !auth) return undefined;

  const title = parsed.data.title ?? derivedTitle(context.doc);
  const id = parsed.data.id ?? derivedServiceId(context, title, serviceId);
  if (id === undefined) return undefined;
  const { mock: declaredMock, ...declared } = parsed.data;
  const extension: ServiceExtension = {
    ...declared,
    id,
    title,
    connection,
    auth,
    errors: declared.errors ?? ErrorsSchema.parse({}),
  };
  // A partly declared mock stays partial here: what it leaves out is inferred from the spec's REST
  // shape once the operations are known (check/index.ts, completeMock).
  if (declaredMock) extension.mock = declaredMock as MockService;
  return extension;
}

/**
 * The connection and auth: as declared, or derived as for a plain spec; undefined where one is
 * written but not valid (its issues are reported). A derived auth adds the fields it sends to a
 * declared connection (declared fields win); a derived connection holds the fields a declared
 * auth names.
 */
function connectionAndAuth(
  context: CheckContext,
  raw: Record<string, unknown>,
): { connection?: ConnectionSpec; auth?: AuthSpec } {
  const written = <T>(
    value: unknown,
    schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  ) => {
    if (value === undefined) return { derive: true as const };
    const r = schema.safeParse(value);
    return r.success ? { derive: false as const, data: r.data } : { derive: false as const };
  };
  const connection = written<ConnectionSpec>(raw.connection, ConnectionSchema);
  const auth = written<AuthSpec>(raw.auth, AuthSchema);
  if (connection.derive && auth.derive) return deriveConnection(context);
  if (auth.derive) {
    if (!connection.data) return {};
    const derivedFields: Fields = {};
    const derived = deriveAuth(context, derivedFields);
    return {
      connection: { ...connection.data, fields: { ...derivedFields, ...connection.data.fields } },
      auth: derived,
    };
  }
  if (connection.derive) {
    if (!auth.data) return {};
    const fields: Fields = {};
    const baseUrl = derivedBaseUrl(context.doc, fields);
    for (const { name } of authFieldReferences(auth.data)) {
      fields[name] ??= { description: `${name} (sent by x-stepforge.auth)`, secret: true, required: true };
    }
    return { connection: { baseUrl, fields }, auth: auth.data };
  }
  return { ...(connection.data ? { connection: connection.data } : {}), ...(auth.data ? { auth: auth.data } : {}) };
}
