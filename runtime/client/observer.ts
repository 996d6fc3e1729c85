/**
 * The pipeline's one outlet for events: the caller's hooks (request-level events) and observers
 * (every event), given to the client, and the hooks one call brings along (`CallOptions.hooks`),
 * which see that call's events only. When none is given, `active` is false and the parts build no
 * event at all, so a client nobody watches pays nothing for being watchable.
 *
 * A call's own hooks are found by the call id every event carries, so the parts that emit (the
 * admission's throttle, the credentials' token events, the answer check's drift) need not know
 * which call brought hooks.
 */
import { randomBytes } from "node:crypto";
import { emit, type Hooks, type Observer, type PipelineEvent, type RuntimeEvent } from "../hooks.js";

type EventType = PipelineEvent["type"];

const REQUEST_LEVEL = new Set<EventType>(["request", "response", "retry", "throttle", "token", "drift"]);
const ALL_TYPES: readonly EventType[] = [
  ...REQUEST_LEVEL,
  "call_start",
  "call_end",
  "attempt_start",
  "attempt_end",
  "budget",
];

/** Distinguishes this process's call ids from another's in a shared log. */
const PROCESS_PREFIX = randomBytes(4).toString("hex");
let sequence = 0;

/** A call id unique in this process and unlikely to repeat in another: `<process>-<counter>`. */
export function newCallId(): string {
  sequence++;
  return `${PROCESS_PREFIX}-${sequence.toString(36)}`;
}

export class Events {
  /**
   * Whether anyone listens; parts skip building events when not. True while a call with its own
   * hooks is in flight (another call's events are then built for nobody: a rare, harmless cost).
   */
  active: boolean;
  /** What every event of this client starts with. */
  readonly base: { service: string; connection: string };
  private readonly hooks: Hooks | undefined;
  private readonly observers: readonly Observer[];
  /** Whether the client's own hooks or observers listen. */
  private readonly watched: boolean;
  /** The hooks of calls in flight that brought their own, by call id. */
  private readonly callHooks = new Map<string, Hooks>();
  /** The event types the client's own hooks and observers read (an observer may name fewer). */
  private readonly read: ReadonlySet<EventType>;

  constructor(
    base: { service: string; connection: string },
    hooks: Hooks | undefined,
    observers: readonly Observer[] = [],
  ) {
    this.base = base;
    this.hooks = hooks;
    this.observers = observers;
    this.watched = hooks !== undefined || observers.length > 0;
    this.active = this.watched;
    const read = new Set<EventType>(hooks ? REQUEST_LEVEL : []);
    for (const observer of observers) for (const type of observer.eventTypes ?? ALL_TYPES) read.add(type);
    this.read = read;
  }

  /**
   * Whether anyone reads events of `type`: the pipeline skips building the ones nobody reads (a
   * tracer reads no request or response event, so no attempt's address is masked for it).
   */
  wants(type: EventType): boolean {
    if (!this.active) return false;
    return this.read.has(type) || (this.callHooks.size > 0 && REQUEST_LEVEL.has(type));
  }

  /** `hooks` receive the events of call `callId` until `detach`. */
  attach(callId: string, hooks: Hooks): void {
    this.callHooks.set(callId, hooks);
    this.active = true;
  }

  detach(callId: string): void {
    this.callHooks.delete(callId);
    this.active = this.watched || this.callHooks.size > 0;
  }

  emit(event: PipelineEvent): void {
    if (REQUEST_LEVEL.has(event.type)) {
      if (this.hooks) emit(this.hooks, event as RuntimeEvent);
      const own = this.callHooks.size > 0 ? this.callHooks.get(event.callId) : undefined;
      if (own) emit(own, event as RuntimeEvent);
    }
    for (const observer of this.observers) {
      try {
        observer.onEvent(event);
      } catch {
        // Observability must not change behaviour.
      }
    }
  }
}
