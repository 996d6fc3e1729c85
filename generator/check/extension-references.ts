/**
 * The rules of `x-stepforge` that zod cannot see: every connection field, mode and path parameter
 * the extension names must exist, and limit settings must do something. They read the extension
 * as written, leniently (a limit with a schema error elsewhere still has its `per` checked), so
 * they are reported in the same run as the schema's issues instead of only after those are fixed.
 */
import { templateFields } from "../../runtime/internal/template.js";
import { checkTimeZone } from "../../runtime/internal/time.js";
import { asArray, asObject } from "../refs.js";
import type { Path, Report } from "./context.js";
import { nearest } from "./suggest.js";

const ROOT = "x-stepforge";

export interface FieldReference {
  name: string;
  /** Where it is named, under x-stepforge. */
  path: Path;
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Every connection field an auth (as written, or parsed) names, and where. */
export function authFieldReferences(auth: unknown): FieldReference[] {
  const a = asObject(auth);
  if (!a) return [];
  const refs: FieldReference[] = [];
  const add = (name: string | undefined, path: Path) => {
    if (name) refs.push({ name, path: ["auth", ...path] });
  };
  const templated = (value: unknown, path: Path, except: string[] = []) => {
    for (const name of templateFields(text(value) ?? "")) if (!except.includes(name)) add(name, path);
  };
  if (a.kind === "api-key") {
    for (const [mode, placements] of Object.entries(asObject(a.modes) ?? {})) {
      asArray(placements).forEach((p, i) => templated(asObject(p)?.value, ["modes", mode, i, "value"]));
    }
  } else if (typeof a.kind === "string" && a.kind.startsWith("oauth2-")) {
    add(text(a.clientIdField), ["clientIdField"]);
    add(text(a.clientSecretField), ["clientSecretField"]);
    templated(asObject(a.send)?.value, ["send", "value"], ["accessToken"]);
    if (a.kind === "oauth2-client-credentials") {
      templated(a.tokenUrl, ["tokenUrl"]);
    } else {
      add(text(a.accessTokenField), ["accessTokenField"]);
      add(text(a.refreshTokenField), ["refreshTokenField"]);
      add(text(a.expiresAtField), ["expiresAtField"]);
    }
  }
  return refs;
}

export interface ReferenceView {
  /** The connection's field names; undefined when the connection is written but cannot be read. */
  fields: string[] | undefined;
  baseUrl: string | undefined;
  /** The auth as written (undefined when derived: it names only fields it added). */
  auth: unknown;
  /** The limits as written. */
  limits: unknown;
  /** Every path template of the spec. */
  paths: string[];
}

export function checkExtensionReferences(view: ReferenceView, report: Report): void {
  const { fields } = view;
  const needField = (name: string, path: Path) => {
    if (!fields || fields.includes(name)) return;
    const known = fields.join(", ") || "(none)";
    const hint = nearest(name, fields);
    const fix = hint ? `did you mean "${hint}"?` : "declare it under x-stepforge.connection.fields";
    report("SF121", [ROOT, ...path], `"${name}" is not a connection field; ${fix} (known: ${known})`);
  };
  for (const name of templateFields(view.baseUrl ?? "")) needField(name, ["connection", "baseUrl"]);
  const auth = asObject(view.auth);
  if (auth?.kind === "api-key" && typeof auth.defaultMode === "string" && asObject(auth.modes)) {
    const modes = Object.keys(asObject(auth.modes)!);
    if (!modes.includes(auth.defaultMode)) {
      const hint = nearest(auth.defaultMode, modes);
      const fix = hint ? `did you mean "${hint}"?` : "name one of them, or add the mode under modes";
      report(
        "SF122",
        [ROOT, "auth", "defaultMode"],
        `defaultMode "${auth.defaultMode}" is not one of the modes (${modes.join(", ")}); ${fix}`,
      );
    }
  }
  for (const { name, path } of authFieldReferences(view.auth)) needField(name, path);
  const ids = new Set<string>();
  asArray(view.limits).forEach((raw, i) => {
    const limit = asObject(raw);
    if (!limit) return;
    const per = text(limit.per);
    if (per?.startsWith("field:")) needField(per.slice("field:".length), ["limits", i, "per"]);
    const id = text(limit.id);
    if (id !== undefined && ids.has(id))
      report("SF123", [ROOT, "limits", i, "id"], `limit id "${id}" is used twice; give each limit its own id`);
    if (id !== undefined) ids.add(id);
    checkLimitSettings(limit, i, view.paths, report);
  });
}

/**
 * Limit settings that would silently do nothing: a reset zone Intl does not know, a `per: path:`
 * parameter no operation's path has, a penalty on a quota (refused until its reset anyway).
 */
function checkLimitSettings(limit: Record<string, unknown>, i: number, paths: string[], report: Report): void {
  const name = text(limit.id) ?? `#${i}`;
  const zone = text(limit.resetTimeZone);
  if (zone !== undefined) {
    try {
      checkTimeZone(zone);
    } catch (error) {
      report("SF125", [ROOT, "limits", i, "resetTimeZone"], `limit "${name}": ${(error as Error).message}`);
    }
  }
  const per = text(limit.per);
  if (per?.startsWith("path:")) {
    const parameter = per.slice("path:".length);
    if (!paths.some((p) => p.includes(`{${parameter}}`))) {
      const names = [...new Set(paths.flatMap((p) => [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)))];
      const hint = nearest(parameter, names);
      const fix = hint
        ? `did you mean path:${hint}?`
        : "name a path parameter (for example path:idBoard) or use per: connection";
      report(
        "SF126",
        [ROOT, "limits", i, "per"],
        `limit "${name}" counts per path parameter "${parameter}", but no operation's path has {${parameter}}; ${fix}`,
      );
    }
  }
  if (
    limit.penaltySeconds !== undefined &&
    typeof limit.kind === "string" &&
    limit.kind !== "window" &&
    limit.kind !== "concurrency"
  ) {
    report(
      "SF127",
      [ROOT, "limits", i, "penaltySeconds"],
      `limit "${name}" (${limit.kind}) is refused until its reset anyway, ` +
        "so penaltySeconds would do nothing; remove it",
    );
  }
}

/** The field names of a connection as written, when it can be read. */
export function writtenFieldNames(connection: unknown): string[] | undefined {
  const fields = asObject(asObject(connection)?.fields);
  return fields ? Object.keys(fields) : undefined;
}

/** The connection fields a connection pattern names that do not compile (SF124), as written. */
export function checkFieldPatterns(connection: unknown, report: Report): void {
  for (const [name, field] of Object.entries(asObject(asObject(connection)?.fields) ?? {})) {
    const pattern = asObject(field)?.pattern;
    if (typeof pattern !== "string") continue;
    try {
      new RegExp(pattern);
    } catch {
      report(
        "SF124",
        [ROOT, "connection", "fields", name, "pattern"],
        `pattern of "${name}" is not a valid regular expression`,
      );
    }
  }
}
