/**
 * Turning whatever went wrong into a `ToolError` a model can act on: zod issues become field-level
 * errors that name the field and the fix; runtime errors keep their kind and retryability and get
 * a sentence on what to do next. Messages carry no secrets (runtime errors are redacted at the
 * source; input echoes are limited to the model's own values).
 */
import type { z } from "zod";
import { getPath } from "../internal/values.js";
import { ConnectionError, StepforgeError } from "../errors.js";
import { UNSAFE_PATH_VALUE } from "../client/client.js";
import { pathValueProblem } from "../internal/path-values.js";
import type { ToolCheck } from "./extension-types.js";
import type { StepSchemaError, ToolCheckAdvice, ToolDefinition, ToolError, ToolFieldError } from "./types.js";

function pathOf(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => (typeof p === "symbol" ? String(p) : String(p))).join(".");
}

function describeExpected(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") return issue.expected;
  return "a valid value";
}

/**
 * One message per issue, phrased as a fix. `known` lists the accepted top-level fields; `input`
 * is what was validated (to tell a missing field from a wrong one).
 */
export function fieldErrors(error: StepSchemaError, known: string[], input?: unknown): ToolFieldError[] {
  const out: ToolFieldError[] = [];
  // Step schemas are zod's (define.ts), so their issues are zod's: each code with its own fields.
  for (const issue of error.issues as readonly z.core.$ZodIssue[]) {
    const path = pathOf(issue.path);
    switch (issue.code) {
      case "unrecognized_keys": {
        for (const key of issue.keys) {
          const where = path ? `${path}.${key}` : key;
          const list = path ? "" : ` The fields are: ${known.join(", ")}.`;
          out.push({
            path: where,
            message: `"${key}" is not a field of this step; remove it or use the right name.${list}`,
          });
        }
        break;
      }
      case "invalid_type": {
        const received = "input" in issue ? (issue as { input?: unknown }).input : getPath(input, issue.path);
        if (received === undefined) out.push({ path, message: `required: give ${describeExpected(issue)}` });
        else
          out.push({
            path,
            message:
              `must be ${issue.expected}, not ` +
              `${received === null ? "null" : Array.isArray(received) ? "an array" : typeof received}`,
          });
        break;
      }
      case "invalid_value": {
        const values = issue.values.map((v) => JSON.stringify(v)).join(", ");
        // A missing enum field is reported by zod as a wrong value; say it is required.
        const missing = input !== undefined && getPath(input, issue.path) === undefined;
        out.push({ path, message: missing ? `required: give one of ${values}` : `must be one of ${values}` });
        break;
      }
      case "invalid_format":
        out.push({ path, message: formatMessage(issue) });
        break;
      case "too_small":
      case "too_big":
        out.push({ path, message: issue.message.replace(/^Too (small|big): expected /, "must be ") });
        break;
      case "invalid_union":
        out.push({
          path,
          message: "does not match any accepted form; check the field's description for the formats it takes",
        });
        break;
      default:
        out.push({ path, message: issue.message });
    }
  }
  return out;
}

function formatMessage(issue: z.core.$ZodIssue & { code: "invalid_format" }): string {
  const format = issue.format;
  if (format === "regex")
    return (
      `has the wrong format: must match ` +
      `${(issue as { pattern?: string }).pattern ?? "the pattern in its description"}`
    );
  if (format === "email") return "must be an e-mail address such as ada@example.com";
  if (format === "url") return "must be an absolute URL such as https://example.com/page";
  if (format === "date") return "must be a date in YYYY-MM-DD form, e.g. 2024-06-14";
  if (format === "datetime") return "must be an ISO-8601 date-time such as 2024-06-14T16:00:00Z";
  return issue.message;
}

export function invalidInput(fields: ToolFieldError[], tool: string, service: string): ToolError {
  // A field's message may end a sentence of its own ("The fields are: a, b."): no second full stop.
  const list = fields
    .map((f) => `${f.path || "(input)"}: ${f.message}`)
    .join("; ")
    .replace(/\.$/, "");
  return {
    kind: "invalid_input",
    message: `The input for ${tool} is not valid — ${list}. Correct these fields and call the step again.`,
    retryable: false,
    fields,
    service,
    tool,
  };
}

const NEXT_STEP: Record<string, string> = {
  auth:
    "The connection's credentials were refused; changing the input will not help. Tell " +
    "the user to reconnect the account.",
  permission: "The account may not do this; changing the input will not help unless another resource was meant.",
  not_found: "Check the ids in the input (list the parent resource first to find valid ids).",
  validation: "The service refused the input; correct the named values and call again.",
  conflict: "The resource's current state does not allow this; read it again before retrying.",
  rate_limited: "The service's rate limit was reached; wait and call again.",
  quota_exhausted: "The account's quota is used up; calls will fail until it resets.",
  timeout: "The service did not answer in time; the call may be repeated.",
  network: "The service could not be reached; the call may be repeated later.",
  server: "The service failed; the call may be repeated later.",
};

/**
 * The values at `path` in a step's input: `a.b.0.c` reads one value; `a[].c` maps over the list
 * at `a` (a list comes back). Own properties only (getPath).
 */
export function valuesAt(input: unknown, path: string): unknown {
  const [head, ...rest] = path.split("[]");
  const base = getPath(input, head!.replace(/\.$/, ""));
  if (rest.length === 0) return base;
  if (!Array.isArray(base)) return undefined;
  const tail = rest.join("[]").replace(/^\./, "");
  const out = base.map((item) => (tail ? valuesAt(item, tail) : item)).flat();
  return out.filter((v) => v !== undefined);
}

/** The declared check of a write, filled in with what this call sent. */
export function checkAdvice(check: ToolCheck, input: unknown): ToolCheckAdvice {
  const fill = (spec: Record<string, string | { value: unknown }>) =>
    Object.fromEntries(
      Object.entries(spec).map(([field, from]) => [
        field,
        typeof from === "string" ? valuesAt(input, from) : from.value,
      ]),
    );
  return { step: check.step, input: fill(check.input), match: fill(check.match) };
}

/**
 * The fields a write's record has, as the advice after an unknown outcome states them (here and in
 * code mode): `idList = "a" and name one of ["x","y"]`.
 */
export function matchText(match: Record<string, unknown>): string {
  return Object.entries(match)
    .map(
      ([field, value]) =>
        `${field} ${Array.isArray(value) ? `one of ${JSON.stringify(value)}` : `= ${JSON.stringify(value)}`}`,
    )
    .join(" and ");
}

function unknownOutcomeAdvice(tool: string, check: ToolCheckAdvice | undefined): string {
  const head =
    `The request was sent, but no usable answer came back, so it may or may not ` +
    `have been applied. Do not call ${tool} again yet: `;
  if (!check)
    return (
      `${head}first read the records it would have changed with a read step of this ` +
      `service, and call ${tool} again only if the change is not there.`
    );
  return (
    `${head}first call ${check.step} with ${JSON.stringify(check.input)} and look for ` +
    `a record with ${matchText(check.match)}. Call ${tool} again only if there is none.`
  );
}

/** What the step knows beyond its name: the definition (for its `check`) and the validated input. */
export interface ErrorSource {
  definition?: ToolDefinition | undefined;
  input?: unknown;
}

/** A thrown error (from the client, the limits, the connection check) as a ToolError. */
export function toolErrorFrom(
  error: unknown,
  tool: string,
  service: string,
  inputFields: string[] = [],
  source: ErrorSource = {},
): ToolError {
  if (error instanceof StepforgeError && error.code === UNSAFE_PATH_VALUE) {
    // The client names the path parameter; the model knows its own field, which holds the value.
    const input = source.input && typeof source.input === "object" ? (source.input as Record<string, unknown>) : {};
    const culprits = Object.entries(input).filter(
      ([, v]) => (typeof v === "string" || typeof v === "number") && pathValueProblem(v) !== undefined,
    );
    const reason = error.message.replace(/^[^:]*: /, "");
    const fields = culprits.length
      ? culprits.map(([f, v]) => ({ path: f, message: `refused: ${pathValueProblem(v)}; give a real id or name` }))
      : [{ path: "", message: reason }];
    return invalidInput(fields, tool, service);
  }
  if (error instanceof StepforgeError && error.outcomeUnknown) {
    const check = source.definition?.check ? checkAdvice(source.definition.check, source.input) : undefined;
    return {
      kind: error.kind,
      message: `${error.message}. ${unknownOutcomeAdvice(tool, check)}`,
      retryable: false,
      outcome: "unknown",
      ...(check ? { check } : {}),
      fields: [],
      service,
      tool,
      status: error.status,
      code: error.code,
      requestId: error.requestId,
    };
  }
  if (error instanceof ConnectionError) {
    return {
      kind: "connection",
      message:
        `${error.message}. This is a problem of the connection the caller ` +
        `configured, not of the input; it cannot be fixed by the model.`,
      retryable: false,
      fields: [],
      service,
      tool,
    };
  }
  if (error instanceof StepforgeError) {
    const hint = NEXT_STEP[error.kind] ?? "";
    const wait = error.retryAfterMs !== undefined ? ` Wait at least ${Math.ceil(error.retryAfterMs / 1000)} s.` : "";
    const resets = error.resetsAt ? ` It resets at ${error.resetsAt}.` : "";
    // A service's validation message that names an input field is pinned to that field.
    const fields: ToolFieldError[] =
      error.kind === "validation"
        ? inputFields
            .filter((f) => new RegExp(`\\b${f.replace(/[^A-Za-z0-9_]/g, "")}\\b`).test(error.message))
            .map((f) => ({ path: f, message: error.message }))
        : [];
    return {
      kind: error.kind,
      message: `${error.message}. ${hint}${wait}${resets}`.replace(/\.\. /g, ". ").trim(),
      retryable: error.retryable,
      fields,
      service,
      tool,
      status: error.status,
      code: error.code,
      requestId: error.requestId,
      retryAfterMs: error.retryAfterMs,
      resetsAt: error.resetsAt,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  // fillTemplate and similar connection-shape failures name a field, never a value.
  if (/the connection has no value for/.test(message)) {
    return {
      kind: "connection",
      message: `${message}. This is a problem of the caller's connection, not of the input.`,
      retryable: false,
      fields: [],
      service,
      tool,
    };
  }
  return {
    kind: "internal",
    message: `The step failed unexpectedly: ${message}`,
    retryable: false,
    fields: [],
    service,
    tool,
  };
}
