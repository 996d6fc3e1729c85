/**
 * The pipeline's one outlet for events: the caller's hooks (request-level events) and observers
 * (every event). When neither is given, `active` is false and the parts build no event at all, so
 * a client nobody watches pays nothing for being watchable.
 */
import { randomBytes } from "node:crypto";
import { emit, type Hooks, type Observer, type PipelineEvent, type RuntimeEvent } from "../hooks.js";

const REQUEST_LEVEL = new Set<PipelineEvent["type"]>(["request", "response", "retry", "throttle", "token", "drift"]);

/** Distinguishes this process's call ids from another's in a shared log. */
const PROCESS_PREFIX = randomBytes(4).toString("hex");
let sequence = 0;

/** A call id unique in this process and unlikely to repeat in another: `<process>-<counter>`. */
export function newCallId(): string {
  sequence++;
  return `${PROCESS_PREFIX}-${sequence.toString(36)}`;
}

export class Events {
  /** Whether anyone listens; parts skip building events when not. */
  readonly active: boolean;
  /** What every event of this client starts with. */
  readonly base: { service: string; connection: string };
  private readonly hooks: Hooks | undefined;
  private readonly observers: readonly Observer[];

  constructor(
    base: { service: string; connection: string },
    hooks: Hooks | undefined,
    observers: readonly Observer[] = [],
  ) {
    this.base = base;
    this.hooks = hooks;
    this.observers = observers;
    this.active = hooks !== undefined || observers.length > 0;
  }

  emit(event: PipelineEvent): void {
    if (this.hooks && REQUEST_LEVEL.has(event.type)) emit(this.hooks, event as RuntimeEvent);
    for (const observer of this.observers) {
      try {
        observer.onEvent(event);
      } catch {
        // Observability must not change behaviour.
      }
    }
  }
}
