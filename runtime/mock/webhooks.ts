/**
 * Webhooks as the service sends them: the probe of a new registration's callback, signed
 * deliveries of every change a registration watches, retries of failed deliveries with the
 * registration's failure count (Trello's `consecutiveFailures` / `firstConsecutiveFailDate`), and
 * removal of a registration whose callback answers the "gone" status.
 */
import { hmacOf } from "../internal/hmac.js";
import { isLoopbackUrl } from "../internal/loopback.js";
import { getPath, keyOf, numberOf } from "../internal/values.js";
import type { MockWebhooks } from "./extension-types.js";
import type { Store } from "./store.js";
import { render, type Context } from "./template.js";
import type { MockCounters, Rec } from "./types.js";

export class Webhooks {
  private readonly pending = new Set<Promise<void>>();
  private readonly timers = new Set<{ timer: NodeJS.Timeout; done: () => void }>();
  private closed = false;

  constructor(
    private readonly spec: MockWebhooks,
    private readonly store: Store,
    private readonly counters: () => MockCounters,
    private readonly options: { secret: string; retryDelaysMs?: number[] | undefined; clock: () => number },
  ) {}

  get resource(): string {
    return this.spec.resource;
  }

  /** The callback a registration request names. */
  callbackOf(body: unknown): string | undefined {
    if (!body || typeof body !== "object") return undefined;
    const callback = getPath(body, this.spec.callbackField);
    return typeof callback === "string" ? callback : undefined;
  }

  /** Whether this service calls a new registration's callback before accepting it. */
  get probes(): boolean {
    return this.spec.probeMethod !== undefined;
  }

  /** Sends the probe; the status the callback answered (0: no answer, or not a loopback callback). */
  async probe(callback: string): Promise<number> {
    if (!isLoopbackUrl(callback)) return 0;
    try {
      // A redirect is the callback's answer, not an address to follow: following it would reach
      // hosts the loopback check never saw.
      const r = await fetch(callback, {
        method: this.spec.probeMethod!,
        redirect: "manual",
        signal: AbortSignal.timeout(5000),
      });
      await r.body?.cancel();
      return r.status;
    } catch {
      return 0;
    }
  }

  /** Delivers `event` to every active registration whose model the change concerns. */
  fire(event: string, eventData: unknown, record: Rec | undefined, ctx: Context, resource: string | undefined): void {
    const wh = this.spec;
    const hooks = [...this.store.table(wh.resource).values()].filter(
      (h) => !wh.activeField || h[wh.activeField] !== false,
    );
    if (hooks.length === 0) return;
    const subject: Rec = record ?? { path: ctx.path };
    const ids = new Set<string>();
    for (const f of wh.matchFields) {
      const v = getPath(subject, f);
      if (v !== undefined && v !== null) ids.add(keyOf(v));
    }
    for (const p of Object.values((ctx.path ?? {}) as Rec)) ids.add(keyOf(p));
    const data = render(eventData ?? (resource ? { [resource]: "{record}" } : {}), { ...ctx, record });
    for (const hook of hooks) {
      const modelId = keyOf(hook[wh.modelField]);
      if (!ids.has(modelId)) continue;
      const model = this.store.findAnywhere(modelId, wh.resource) ?? { id: modelId };
      const payload = render(wh.payload, {
        ...ctx,
        event,
        eventData: data,
        model,
        webhook: hook,
        newId: this.store.ids.chars(24),
        record,
      });
      this.track(this.deliver(hook, JSON.stringify(payload)));
    }
  }

  private track(task: Promise<void>): void {
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }

  private delays(): number[] {
    return this.options.retryDelaysMs ?? (this.spec.retry?.delaysSeconds ?? []).map((s) => s * 1000);
  }

  private async deliver(hook: Rec, body: string): Promise<void> {
    const wh = this.spec;
    const callback = keyOf(getPath(hook, wh.callbackField));
    const signature = hmacOf(
      wh.signature.algorithm,
      wh.signature.encoding,
      this.options.secret,
      wh.signature.message.map((part) => (part === "body" ? body : callback)),
    );
    const delays = this.delays();
    for (let attempt = 0; ; attempt++) {
      const status = await this.send(callback, signature, body);
      const c = this.counters();
      if (status >= 200 && status < 300) {
        c.webhookDeliveries++;
        this.recordOutcome(hook, true);
        return;
      }
      c.webhookFailures++;
      this.recordOutcome(hook, false);
      if (wh.goneStatus !== undefined && status === wh.goneStatus) {
        this.store.remove(wh.resource, hook);
        return;
      }
      if (
        attempt >= delays.length ||
        this.closed ||
        !this.store.table(wh.resource).has(keyOf(hook[this.store.spec(wh.resource).idField]))
      )
        return;
      c.webhookRetries++;
      if (!(await this.wait(delays[attempt]!))) return;
    }
  }

  private async send(callback: string, signature: string, body: string): Promise<number> {
    // A registration loaded from a state file never passed the registration check.
    if (!isLoopbackUrl(callback)) return 0;
    try {
      const r = await fetch(callback, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/json", [this.spec.signature.header]: signature },
        body,
        signal: AbortSignal.timeout((this.spec.retry?.timeoutSeconds ?? 10) * 1000),
      });
      await r.body?.cancel();
      return r.status;
    } catch {
      return 0;
    }
  }

  /** Trello counts failures in a row on the registration and resets them on a delivery. */
  private recordOutcome(hook: Rec, delivered: boolean): void {
    const retry = this.spec.retry;
    if (!retry) return;
    if (retry.failuresField)
      hook[retry.failuresField] = delivered ? 0 : (numberOf(hook[retry.failuresField] ?? 0) || 0) + 1;
    if (retry.firstFailureField) {
      if (delivered) hook[retry.firstFailureField] = null;
      else hook[retry.firstFailureField] ??= new Date(this.options.clock()).toISOString();
    }
    this.store.touch(hook);
  }

  /** Resolves true after `ms`, or false at once when the mock closes. */
  private wait(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.timers.delete(entry);
          resolve(true);
        }, ms),
        done: () => resolve(false),
      };
      this.timers.add(entry);
    });
  }

  /** Stops retries and waits for deliveries in flight. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) {
      clearTimeout(t.timer);
      t.done();
    }
    this.timers.clear();
    await Promise.allSettled([...this.pending]);
  }

  reset(): void {
    for (const t of this.timers) {
      clearTimeout(t.timer);
      t.done();
    }
    this.timers.clear();
  }
}
