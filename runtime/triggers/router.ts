/**
 * From a verified delivery to trigger events: each configured trigger checks its match rule, its
 * scope and its option filters, and gets one normalised event per delivery it accepts. An event
 * carries `refs` keyed by the names the spec gives them (`delivery.refs`), never by fixed nouns.
 */
import * as z from "zod";
import { firstPath, getPath } from "../internal/values.js";
import type { Delivery, RefSpec, TriggerSpec, TriggersExtension, WebhookTriggerSpec } from "./extension-types.js";

export interface TriggerConfig {
  /** Trigger name, e.g. trello_card_moved. */
  trigger: string;
  /** The named connection the trigger uses (chosen by the platform, never by a payload). */
  connection: string;
  /**
   * The values of the trigger's scope, under the scope's name (`{ project: ["…"] }`): what its
   * webhooks are registered on and its polls list. A trigger whose scope names a reference fires
   * only for events whose reference is one of them ({@link ANY_SCOPE_VALUE}: every one).
   */
  scope?: Record<string, string[]> | undefined;
  options?: Record<string, unknown>;
}

export interface Ref {
  id: string;
  name?: string | undefined;
}

export interface TriggerEvent {
  trigger: string;
  connection: string;
  eventId: string;
  type: string;
  time: string;
  /** What the event points at, by the spec's reference names; a reference the event lacks is absent. */
  refs: Record<string, Ref>;
  /** The service's own record of what happened (`delivery.recordPath`, or the polled item). */
  raw: unknown;
}

/** A scope value that stands for every value the connection can see (`webhook serve` without `--scope`). */
export const ANY_SCOPE_VALUE = "*";

export class TriggerConfigError extends Error {
  override name = "TriggerConfigError";
}

/** The scope values a configuration gives a trigger, or the scope's declared default, or none. */
export function scopeValues(extension: TriggersExtension, trigger: TriggerSpec, config: TriggerConfig): string[] {
  if (!trigger.scope) return [];
  return config.scope?.[trigger.scope] ?? extension.scopes[trigger.scope]?.default ?? [];
}

/**
 * Whether a trigger cannot run without scope values: its webhook events are kept by their scope
 * reference, or its poll fills a path parameter with them — unless the scope has a default.
 */
function needsScopeValues(extension: TriggersExtension, trigger: TriggerSpec): boolean {
  const scope = trigger.scope ? extension.scopes[trigger.scope] : undefined;
  if (!scope || scope.default) return false;
  if (trigger.kind === "webhook") return scope.ref !== undefined;
  return Object.values(trigger.pathParams).includes(`{${trigger.scope}}`);
}

/** The zod schema of one trigger's configuration (its scope values + its declared options). */
function configSchema(extension: TriggersExtension, trigger: TriggerSpec) {
  const options: Record<string, z.ZodType> = {};
  for (const [name, option] of Object.entries(trigger.options)) {
    let schema: z.ZodType;
    if (option.type === "number") schema = z.number().nonnegative();
    else if (option.type === "enum-list" && option.values)
      schema = z.array(z.enum(option.values as [string, ...string[]]));
    else schema = z.array(z.string().min(1));
    // An option's declared default fills a configuration that leaves it out.
    if (option.required) options[name] = schema;
    else options[name] = option.default !== undefined ? schema.default(option.default as never) : schema.optional();
  }
  const scope: Record<string, z.ZodType> = {};
  if (trigger.scope) {
    const what = extension.scopes[trigger.scope]?.description ?? trigger.scope;
    const needed = `give a list of at least one value; it holds: ${what}`;
    const values = z.array(z.string().min(1), { error: needed });
    scope[trigger.scope] = needsScopeValues(extension, trigger) ? values.min(1, needed) : values.optional();
  }
  return z
    .object({
      trigger: z.literal(trigger.name),
      connection: z.string().min(1),
      // prefault: an absent object is parsed too, so a missing required scope is named
      scope: z.object(scope).strict().prefault({}),
      options: z.object(options).strict().prefault({}),
    })
    .strict();
}

/** Checks a configuration against its trigger; errors name the field and what to change. */
export function validateConfig(extension: TriggersExtension, config: unknown): TriggerConfig {
  const name = (config as { trigger?: unknown } | null)?.trigger;
  const trigger = extension.triggers.find((t) => t.name === name);
  if (!trigger) {
    const names = extension.triggers.map((t) => t.name).join(", ");
    throw new TriggerConfigError(`unknown trigger ${JSON.stringify(name)}; use one of ${names}`);
  }
  const parsed = configSchema(extension, trigger).safeParse(config);
  if (!parsed.success) {
    // A key the configuration should not have is named first: it is often where a value went astray.
    const issues = parsed.error.issues;
    const first = issues.find((i) => i.code === "unrecognized_keys") ?? issues[0]!;
    const where = first.path.join(".") || "config";
    const stray = first.code === "unrecognized_keys" ? first.keys : [];
    throw new TriggerConfigError(`${trigger.name}: ${where}: ${first.message}${strayHint(trigger, first.path, stray)}`);
  }
  return parsed.data as TriggerConfig;
}

/** A key the configuration should not have: say where scope values go instead. */
function strayHint(trigger: TriggerSpec, path: PropertyKey[], keys: string[]): string {
  if (keys.length === 0 || (path.length > 0 && path[0] !== "scope")) return "";
  if (!trigger.scope) return `; ${trigger.name} has no scope (it watches the whole account)`;
  return `; ${trigger.name} is scoped by "${trigger.scope}": give its values as scope.${trigger.scope}`;
}

/** A reference from a value: an id (string or number), or an object with an id field (and a name). */
export function ref(value: unknown, spec: Pick<RefSpec, "idField" | "nameFields">): Ref | undefined {
  const id = idOf(value);
  if (id !== undefined) return { id };
  if (!value || typeof value !== "object") return undefined;
  const own = idOf(getPath(value, spec.idField));
  if (own === undefined) return undefined;
  const name = spec.nameFields.map((field) => getPath(value, field)).find((v) => typeof v === "string");
  return { id: own, name: name as string | undefined };
}

function idOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  return typeof value === "number" && Number.isFinite(value) ? String(value) : undefined;
}

/** Every declared reference found in `value`, by name. */
export function refsOf(specs: Record<string, RefSpec>, value: unknown): Record<string, Ref> {
  const refs: Record<string, Ref> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const found = ref(firstPath(value, spec.paths), spec);
    if (found) refs[name] = found;
  }
  return refs;
}

export function normalise(delivery: Delivery, payload: unknown, trigger: string, connection: string): TriggerEvent {
  return {
    trigger,
    connection,
    eventId: String(getPath(payload, delivery.eventIdPath)),
    type: String(getPath(payload, delivery.eventTypePath)),
    time: String(getPath(payload, delivery.timePath)),
    refs: refsOf(delivery.refs, payload),
    raw: (delivery.recordPath ? getPath(payload, delivery.recordPath) : undefined) ?? payload,
  };
}

export function matches(
  extension: TriggersExtension,
  trigger: WebhookTriggerSpec,
  config: TriggerConfig,
  payload: unknown,
): boolean {
  for (const condition of trigger.match) {
    const value = getPath(payload, condition.path);
    if (condition.exists !== undefined && (value !== undefined && value !== null) !== condition.exists) return false;
    if (condition.in !== undefined && !condition.in.includes(value as string | number | boolean)) return false;
  }
  const scopeRef = trigger.scope ? extension.scopes[trigger.scope]?.ref : undefined;
  if (scopeRef) {
    const spec = extension.delivery.refs[scopeRef];
    const values = scopeValues(extension, trigger, config);
    const found = spec ? ref(firstPath(payload, spec.paths), spec) : undefined;
    if (!found || !(values.includes(found.id) || values.includes(ANY_SCOPE_VALUE))) return false;
  }
  for (const filter of trigger.filters) {
    const wanted = config.options?.[filter.option];
    if (!Array.isArray(wanted) || wanted.length === 0) continue;
    const values = filter.paths
      .map((p) => getPath(payload, p))
      .map((v) => (v && typeof v === "object" ? (v as { id?: unknown }).id : v));
    if (!values.some((v) => wanted.includes(v))) return false;
  }
  return true;
}

/** Routes verified deliveries to the configured webhook triggers. */
export function createTriggerRouter(extension: TriggersExtension, configs: unknown[]) {
  const enabled = configs.map((c) => validateConfig(extension, c));
  const byName = new Map(extension.triggers.map((t) => [t.name, t] as const));
  for (const config of enabled) {
    if (byName.get(config.trigger)!.kind !== "webhook") {
      throw new TriggerConfigError(
        `${config.trigger} is a polling trigger; run it with a poller, not the webhook router`,
      );
    }
  }
  return {
    configs: enabled,
    route(payload: unknown): TriggerEvent[] {
      const events: TriggerEvent[] = [];
      for (const config of enabled) {
        const trigger = byName.get(config.trigger) as WebhookTriggerSpec;
        if (matches(extension, trigger, config, payload)) {
          events.push(normalise(extension.delivery, payload, trigger.name, config.connection));
        }
      }
      return events;
    },
  };
}
