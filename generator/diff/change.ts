/**
 * One change of a service's public surface, and the table that says what each kind of change is:
 * breaking or compatible, and how that is decided. docs/regeneration.md prints the same table.
 */

export type ChangeKind =
  | "operation-added"
  | "operation-removed"
  | "operation-renamed"
  | "operation-moved"
  | "operation-deprecated"
  | "parameter-added"
  | "parameter-removed"
  | "parameter-renamed"
  | "parameter-required"
  | "parameter-optional"
  | "parameter-type-changed"
  | "parameter-enum-value-added"
  | "parameter-enum-value-removed"
  | "request-body-added"
  | "request-body-removed"
  | "request-field-added"
  | "request-field-removed"
  | "request-field-required"
  | "request-field-optional"
  | "request-type-changed"
  | "request-enum-value-added"
  | "request-enum-value-removed"
  | "response-field-added"
  | "response-field-removed"
  | "response-field-required"
  | "response-field-optional"
  | "response-type-changed"
  | "response-enum-value-added"
  | "response-enum-value-removed"
  | "tool-added"
  | "tool-removed"
  | "tool-renamed"
  | "tool-field-added"
  | "tool-field-removed"
  | "tool-field-required"
  | "tool-field-optional"
  | "tool-field-changed"
  | "tool-description-changed"
  | "tool-annotations-changed"
  | "toolset-added"
  | "toolset-removed"
  | "toolset-changed"
  | "trigger-added"
  | "trigger-removed"
  | "trigger-changed"
  | "trigger-description-changed"
  | "auth-changed"
  | "auth-mode-added"
  | "auth-mode-removed"
  | "connection-field-added"
  | "connection-field-removed"
  | "connection-field-required"
  | "base-url-changed";

/**
 * How a verdict is reached. `checker`: the TypeScript checker over the old and new declarations
 * (request: every old value must be assignable to the new type; response: the new type must be
 * assignable to the old one). `declarations`: a name consumers write is gone from the declarations.
 * `model`: the check stage's model (tool steps, triggers, auth are data, not declarations).
 */
export type Decision = "checker" | "declarations" | "model";

export interface Change {
  kind: ChangeKind;
  breaking: boolean;
  decidedBy: Decision;
  /** The operation, tool step, trigger or toolset it is about (its new name when it has one). */
  target: string;
  /** What changed, one line, without the target. */
  detail: string;
  /** `stepforge migrate` rewrites call sites for it. */
  migratable?: true;
}

export interface ServiceReport {
  service: string;
  /** The service is new (no previous surface) or gone (no new one). */
  status: "changed" | "added" | "removed";
  changes: Change[];
  /** Operations whose declarations the checker compared. */
  checked: number;
}

type Usually = "breaking" | "compatible" | "either";

/** A kind's usual verdict and how it is decided. */
export interface Classification {
  usually: Usually;
  how: string;
}

const breaking = (how: string): Classification => ({ usually: "breaking", how });
const compatible = (how: string): Classification => ({ usually: "compatible", how });
/** Breaking or not depending on the change itself (required or optional, narrower or wider): `how` says which. */
const either = (how: string): Classification => ({ usually: "either", how });

/** Every kind with its usual verdict and how it is decided (the checker may override `usually`). */
export const CLASSIFICATION: Record<ChangeKind, Classification> = {
  "operation-added": compatible("model: a new method on the client"),
  "operation-removed": breaking("declarations: the method is gone from the client"),
  "operation-renamed": breaking(
    "declarations: same method and path, new operationId, so a new method name (migrate renames calls)",
  ),
  "operation-moved": compatible("model: same operationId at a new method or path; the client method keeps its name"),
  "operation-deprecated": compatible("model: marked deprecated"),
  "parameter-added": either("checker: breaking when required (an old call lacks it)"),
  "parameter-removed": breaking("declarations: the name is gone, so a call passing it no longer compiles"),
  "parameter-renamed": breaking(
    "declarations: same place (path position, or the only query/header swap with the same schema), " +
      "new name (migrate renames keys)",
  ),
  "parameter-required": breaking("checker: an old call may leave it out"),
  "parameter-optional": compatible("checker: old calls still fit"),
  "parameter-type-changed": either("checker: breaking unless the old type is assignable to the new"),
  "parameter-enum-value-added": compatible("checker: the old union is assignable to the new"),
  "parameter-enum-value-removed": breaking("checker: an old value is no longer assignable"),
  "request-body-added": either("checker: breaking when required"),
  "request-body-removed": breaking("checker: a call passing a body no longer compiles"),
  "request-field-added": either("checker: breaking when required"),
  "request-field-removed": breaking("declarations: the name is gone, so a call passing it no longer compiles"),
  "request-field-required": breaking("checker: an old value may leave it out"),
  "request-field-optional": compatible("checker: old values still fit"),
  "request-type-changed": either(
    "checker: breaking unless the old type is assignable to the new (narrower is breaking)",
  ),
  "request-enum-value-added": compatible("checker: the old union is assignable to the new"),
  "request-enum-value-removed": breaking("checker: an old value is no longer assignable"),
  "response-field-added": compatible("checker: the new type is assignable to the old"),
  "response-field-removed": breaking("declarations: code reading it no longer compiles"),
  "response-field-required": compatible("checker: the new type is assignable to the old"),
  "response-field-optional": breaking("checker: a value may now be missing"),
  "response-type-changed": either("checker: breaking unless the new type is assignable to the old (wider is breaking)"),
  "response-enum-value-added": breaking(
    "checker: a new value is not assignable to the old union (an exhaustive switch breaks)",
  ),
  "response-enum-value-removed": compatible("checker: the new union is assignable to the old"),
  "tool-added": compatible("model: a new step"),
  "tool-removed": breaking("model: an agent or a toolset naming it fails"),
  "tool-renamed": breaking("model: same operation, new step name (migrate rewrites executeToolByName names)"),
  "tool-field-added": either("model: breaking when required (an agent's old arguments lack it)"),
  "tool-field-removed": breaking("model: steps refuse unknown fields, so old arguments fail"),
  "tool-field-required": breaking("model: old arguments may leave it out"),
  "tool-field-optional": compatible("model: old arguments still fit"),
  "tool-field-changed": either("model: breaking when its type list or enum lost a member"),
  "tool-description-changed": compatible("model: what the step tells a model changed; review prompts that rely on it"),
  "tool-annotations-changed": either(
    "model: breaking when a read-only step becomes a write (it leaves read-only servers)",
  ),
  "toolset-added": compatible("model"),
  "toolset-removed": breaking("model: --toolsets naming it fails"),
  "toolset-changed": either("model: breaking when a step left it"),
  "trigger-added": compatible("model"),
  "trigger-removed": breaking("model: subscriptions to it fail"),
  "trigger-changed": breaking("model: kind, options or what makes it fire changed"),
  "trigger-description-changed": compatible("model"),
  "auth-changed": breaking("model: another kind of auth; every connection needs new fields"),
  "auth-mode-added": compatible("model"),
  "auth-mode-removed": breaking("model: connections choosing it fail"),
  "connection-field-added": either("model: breaking when required (stored connections lack it)"),
  "connection-field-removed": compatible("model: the value is no longer read"),
  "connection-field-required": breaking("model: stored connections may lack it"),
  "base-url-changed": compatible("model: calls go to the new address"),
};

export type Bump = "major" | "minor" | "patch" | "none";

/** The semver bump a set of changes asks for: breaking → major, any other surface change → minor. */
export function bumpFor(changes: readonly Change[]): Bump {
  if (changes.some((c) => c.breaking)) return "major";
  if (changes.some((c) => !/description-changed$|^operation-deprecated$|^base-url-changed$/.test(c.kind)))
    return "minor";
  return changes.length > 0 ? "patch" : "none";
}

/**
 * The version after `bump`. Below 1.0.0 a breaking change bumps the minor and anything else the
 * patch: that is how npm's caret ranges read 0.x versions (^0.3.1 accepts 0.3.x only).
 */
export function nextVersion(version: string, bump: Bump): string | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return undefined;
  let [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const level = major === 0 && bump !== "none" ? (bump === "major" ? "minor" : "patch") : bump;
  if (level === "major") [major, minor, patch] = [major + 1, 0, 0];
  else if (level === "minor") [minor, patch] = [minor + 1, 0];
  else if (level === "patch") patch += 1;
  return `${major}.${minor}.${patch}`;
}
