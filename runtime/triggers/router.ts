/**
 * From a verified delivery to trigger events: each configured trigger checks its match rule, its
 * boards and its option filters, and gets one normalised event per delivery it accepts.
 */
import * as z from "zod";
import type { Delivery, TriggerSpec, TriggersExtension, WebhookTriggerSpec } from "./model.js";
import { firstPath, getPath } from "../internal/values.js";

export interface TriggerConfig {
  /** Trigger name, e.g. trello_card_moved. */
  trigger: string;
  /** The named connection the trigger uses (chosen by the platform, never by a payload). */
  connection: string;
  /** Board ids it is configured for; it fires only for these. */
  boards: string[];
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
  board?: Ref | undefined;
  list?: Ref | undefined;
  card?: Ref | undefined;
  member?: Ref | undefined;
  /** The service's own record of what happened (for Trello: the action). */
  raw: unknown;
}

/** A board id that stands for every board the connection can see (used by `webhook serve` without --board). */
export const ALL_BOARDS = "*";

export class TriggerConfigError extends Error {
  override name = "TriggerConfigError";
}

/** The zod schema of one trigger's configuration (boards + its declared options). */
export function configSchema(trigger: TriggerSpec) {
  const options: Record<string, z.ZodType> = {};
  for (const [name, option] of Object.entries(trigger.options)) {
    let schema: z.ZodType;
    if (option.type === "number") schema = z.number().nonnegative();
    else if (option.type === "enum-list" && option.values) schema = z.array(z.enum(option.values as [string, ...string[]]));
    else schema = z.array(z.string().min(1));
    // An option's declared default fills a configuration that leaves it out.
    options[name] = option.required ? schema : option.default !== undefined ? schema.default(option.default as never) : schema.optional();
  }
  const needsBoards = trigger.kind !== "poll-feed" && !(trigger.kind === "webhook" && trigger.watch === "member");
  return z
    .object({
      trigger: z.literal(trigger.name),
      connection: z.string().min(1),
      boards: needsBoards ? z.array(z.string().min(1)).min(1, "configure at least one board: a trigger fires only for its boards") : z.array(z.string()).default([]),
      // prefault: an absent options object is parsed too, so option defaults apply
      options: z.object(options).strict().prefault({}),
    })
    .strict();
}

/** Checks a configuration against its trigger; errors name the field and what to change. */
export function validateConfig(extension: TriggersExtension, config: unknown): TriggerConfig {
  const name = (config as { trigger?: unknown } | null)?.trigger;
  const trigger = extension.triggers.find((t) => t.name === name);
  if (!trigger) {
    throw new TriggerConfigError(`unknown trigger ${JSON.stringify(name)}; use one of ${extension.triggers.map((t) => t.name).join(", ")}`);
  }
  const parsed = configSchema(trigger).safeParse(config);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new TriggerConfigError(`${trigger.name}: ${first.path.join(".") || "config"}: ${first.message}`);
  }
  return parsed.data as TriggerConfig;
}

/** A reference from a payload value: an id string, or an object with an id (and a name). */
export function ref(value: unknown): Ref | undefined {
  if (typeof value === "string") return { id: value };
  if (value && typeof value === "object" && typeof (value as { id?: unknown }).id === "string") {
    const v = value as { id: string; name?: unknown; fullName?: unknown };
    const name = typeof v.name === "string" ? v.name : typeof v.fullName === "string" ? v.fullName : undefined;
    return { id: v.id, name };
  }
  return undefined;
}

export function normalise(delivery: Delivery, payload: unknown, trigger: string, connection: string): TriggerEvent {
  const refs = delivery.refs;
  const root = delivery.eventIdPath.split(".")[0]!;
  return {
    trigger,
    connection,
    eventId: String(getPath(payload, delivery.eventIdPath)),
    type: String(getPath(payload, delivery.eventTypePath)),
    time: String(getPath(payload, delivery.timePath)),
    board: refs.board ? ref(firstPath(payload, refs.board)) : undefined,
    list: refs.list ? ref(firstPath(payload, refs.list)) : undefined,
    card: refs.card ? ref(firstPath(payload, refs.card)) : undefined,
    member: refs.member ? ref(firstPath(payload, refs.member)) : undefined,
    raw: getPath(payload, root) ?? payload,
  };
}

export function matches(trigger: WebhookTriggerSpec, config: TriggerConfig, delivery: Delivery, payload: unknown): boolean {
  for (const condition of trigger.match) {
    const value = getPath(payload, condition.path);
    if (condition.exists !== undefined && (value !== undefined && value !== null) !== condition.exists) return false;
    if (condition.in !== undefined && !condition.in.includes(value as string | number | boolean)) return false;
  }
  if (trigger.watch === "boards") {
    const board = ref(firstPath(payload, delivery.refs.board ?? []));
    if (!board || !(config.boards.includes(board.id) || config.boards.includes(ALL_BOARDS))) return false;
  }
  for (const filter of trigger.filters) {
    const wanted = config.options?.[filter.option];
    if (!Array.isArray(wanted) || wanted.length === 0) continue;
    const values = filter.paths.map((p) => getPath(payload, p)).map((v) => (v && typeof v === "object" ? (v as { id?: unknown }).id : v));
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
      throw new TriggerConfigError(`${config.trigger} is a polling trigger; run it with a poller, not the webhook router`);
    }
  }
  return {
    configs: enabled,
    route(payload: unknown): TriggerEvent[] {
      const events: TriggerEvent[] = [];
      for (const config of enabled) {
        const trigger = byName.get(config.trigger) as WebhookTriggerSpec;
        if (matches(trigger, config, extension.delivery, payload)) events.push(normalise(extension.delivery, payload, trigger.name, config.connection));
      }
      return events;
    },
  };
}
