/**
 * The behavioural mock's coordinator: one request through the service's pipeline, in the order the
 * real service applies it —
 *
 *   route → fault (drop) → credentials → limits → fault (delay, 5xx) → body and parameters
 *   → callback probe (webhook registrations) → referenced records → the action → quota charge.
 *
 * The parts live in their own modules: operation-routes.ts (the table of operations and their
 * routes), request-input.ts (body and query), auth.ts, admission.ts, validate.ts, store.ts,
 * actions/ (one function per action kind), paging.ts, webhooks.ts, answers.ts; server.ts puts
 * this on node:http. Nothing here knows which service it imitates.
 */
import type { Act } from "./actions/act.js";
import { ACTIONS } from "./actions/index.js";
import { Admission, type Ticket } from "./admission.js";
import { Answers } from "./answers.js";
import { Auth } from "./auth.js";
import { FaultInjector, prng, type FaultDecision } from "./faults.js";
import type { MockService } from "./extension-types.js";
import { type Operation, routeOperations } from "./operation-routes.js";
import { checkMockOptions } from "./options.js";
import { Pager } from "./paging.js";
import { Router } from "./router.js";
import { successSample } from "./samples.js";
import { Store } from "./store.js";
import { renderString, type Context } from "./template.js";
import {
  bump,
  emptyCounters,
  jsonReply,
  Reply,
  type MockCounters,
  type MockDefinition,
  type MockOptions,
  type MockState,
  type Rec,
} from "./types.js";
import { RecordShaper } from "./shape.js";
import { MAX_BODY_DEPTH, parseBody, queryObject } from "./request-input.js";
import { RequestValidator } from "./validate.js";
import { isLoopbackUrl } from "../internal/loopback.js";
import { Webhooks } from "./webhooks.js";

/** A request as the server hands it over. */
export interface MockRequest {
  method: string;
  /** Path and query, as sent (`/1/cards/abc?key=…`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** What to do with a request: send a reply (maybe slowly), or drop the connection. */
export type Outcome =
  | { drop: true }
  | {
      drop?: false;
      reply: Reply;
      slowBody?: { delayMs: number; chunkBytes: number } | undefined;
      ticket?: Ticket | undefined;
    };

/** A request past admission, on its way to an answer. */
interface Call {
  operation: Operation;
  ctx: Context;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: MockRequest["headers"];
  body: unknown;
  hasBody: boolean;
  badJson: boolean;
  tooDeep: boolean;
  fault: FaultDecision | undefined;
  ticket: Ticket;
}

const EMPTY_QUERY = new URLSearchParams();

export class MockEngine {
  readonly descriptor: MockDefinition["descriptor"];
  readonly model: MockService;
  readonly store: Store;
  readonly webhooks: Webhooks | undefined;
  private readonly router = new Router<Operation>();
  private readonly validator: RequestValidator;
  private readonly shaper: RecordShaper;
  private readonly answers: Answers;
  private readonly auth: Auth;
  private readonly admission: Admission;
  private readonly pager: Pager;
  /**
   * The methods the token endpoint answers: those the spec declares on its path, and the one stepforge's client uses.
   */
  private readonly tokenMethods: ReadonlySet<string>;
  private readonly clock: () => number;
  /** The seed of ids, request ids and samples (`data.idSeed`). */
  private readonly idSeed: number;
  private faults: FaultInjector | undefined;
  private counter: MockCounters = emptyCounters();
  private requestSeq = 0;
  private requestRandom: () => number;
  private lastNow = { ms: Number.NaN, iso: "" };

  constructor(
    private readonly definition: MockDefinition,
    private readonly options: MockOptions = {},
  ) {
    const { descriptor, mock: model } = definition;
    checkMockOptions(descriptor.id, options);
    this.descriptor = descriptor;
    this.model = model;
    this.clock = options.clock ?? Date.now;
    this.idSeed = options.data?.idSeed ?? 1;
    this.store = new Store(descriptor.id, model, this.idSeed);
    this.answers = new Answers(model);
    const creds = options.auth?.credentials ?? model.credentials;
    this.auth = new Auth(
      descriptor,
      model,
      Array.isArray(creds) ? creds : [creds],
      this.store.ids,
      this.clock,
      options.auth ?? {},
    );
    this.admission = new Admission(
      definition,
      options.limits ?? {},
      model,
      this.answers,
      () => this.counter,
      this.clock,
    );
    this.pager = new Pager(model);
    this.validator = new RequestValidator(definition.components);
    this.shaper = new RecordShaper(definition.components, this.validator, this.idSeed);
    this.webhooks = model.webhooks
      ? new Webhooks(model.webhooks, this.store, () => this.counter, {
          secret: options.webhooks?.secret ?? "mock-webhook-secret",
          retryDelaysMs: options.webhooks?.retryDelaysMs,
          clock: this.clock,
        })
      : undefined;
    routeOperations(definition, this.store, this.router);
    const declared = Object.values(definition.operations)
      .filter((op) => op.path === this.auth.tokenPath)
      .map((op) => op.method.toUpperCase());
    this.tokenMethods = new Set([
      ...declared,
      descriptor.auth.kind === "oauth2-client-credentials" ? descriptor.auth.tokenMethod : "POST",
    ]);
    this.faults = options.faults ? new FaultInjector(options.faults) : undefined;
    this.requestRandom = prng(this.idSeed);
    this.start();
  }

  /** The start state: the spec's examples (unless `data.fromExamples: false`), then the state file's records. */
  private start(): void {
    const data = this.options.data;
    if (data?.fromExamples !== false) this.store.seedFromExamples(this.definition.operations);
    if (data?.state) this.store.load(data.state);
  }

  records(resource: string): Rec[] {
    return [...this.store.table(resource).values()].map((r) => structuredClone(r));
  }

  dumpState(): MockState {
    return this.store.dump();
  }

  counters(): MockCounters {
    return structuredClone(this.counter);
  }

  reset(): void {
    this.store.clear();
    this.counter = emptyCounters();
    this.admission.reset();
    this.auth.reset();
    this.webhooks?.reset();
    this.requestRandom = prng(this.idSeed);
    this.faults = this.options.faults ? new FaultInjector(this.options.faults) : undefined;
    this.start();
  }

  async close(): Promise<void> {
    await this.webhooks?.close();
  }

  private now(): { ms: number; iso: string } {
    const ms = this.clock();
    if (ms !== this.lastNow.ms) this.lastNow = { ms, iso: new Date(ms).toISOString() };
    return this.lastNow;
  }

  private requestId(): string {
    let tail = "";
    for (let i = 0; i < 11; i++) tail += "0123456789abcdef"[Math.floor(this.requestRandom() * 16)];
    return `${(++this.requestSeq).toString(16)}#${tail}`;
  }

  /** One request, start to finish; synchronous unless a delay, a hook or a probe has to wait. */
  handle(req: MockRequest): Outcome | Promise<Outcome> {
    const q = req.url.indexOf("?");
    const pathname = q < 0 ? req.url : req.url.slice(0, q);
    const query = q < 0 ? EMPTY_QUERY : new URLSearchParams(req.url.slice(q + 1));
    const method = req.method.toUpperCase();
    this.counter.requests++;
    const now = this.now();
    const ctx: Context = {
      method,
      path: pathname,
      requestId: this.requestId(),
      now: now.iso,
      nowSeconds: Math.floor(now.ms / 1000),
      actorId: this.model.actorId,
    };

    const { body, badJson, tooDeep } = parseBody(req);

    if (this.auth.tokenPath !== undefined && pathname === this.auth.tokenPath) {
      // Another method on the token path is a route the service does not have (Marketo's is GET).
      return {
        reply: this.tokenMethods.has(method) ? this.tokenEndpoint(query, body, ctx) : this.answers.of("noRoute", ctx),
      };
    }

    // HEAD is GET without the body (HTTP's rule; node:http leaves the body of a HEAD answer out).
    const match =
      this.router.match(method, pathname) ?? (method === "HEAD" ? this.router.match("GET", pathname) : undefined);
    if (!match) return { reply: this.answers.of("noRoute", ctx) };
    const operation = match.value;
    bump(this.counter.byOperation, operation.op.operationId);

    const fault = this.faults?.decide(operation.op.operationId);
    if (fault?.drop) {
      this.counter.faults.dropped++;
      return { drop: true };
    }
    const caller = this.auth.check({ query, headers: req.headers });
    if (!caller.ok) {
      this.counter.authFailures++;
      return { reply: this.answers.of(caller.situation, ctx) };
    }
    const ticket = this.admission.admit(
      { limitClass: operation.desc.limitClass, pathParams: match.params, path: pathname },
      caller,
      ctx,
    );
    if (ticket instanceof Reply) return { reply: ticket };
    this.counter.inFlight++;
    ctx.path = match.params;
    ctx.query = queryObject(query);
    ctx.body = body;
    ctx.route = pathname;
    // Links to the next page are absolute when the request named a plain host (`127.0.0.1:4120`).
    const host = req.headers.host;
    if (typeof host === "string" && /^[A-Za-z0-9.\-:[\]]{1,255}$/.test(host)) ctx.origin = `http://${host}`;
    ctx.credential = caller.credential;
    const call: Call = {
      operation,
      ctx,
      params: match.params,
      query,
      headers: req.headers,
      body,
      hasBody: req.body.length > 0,
      badJson,
      tooDeep: tooDeep === true,
      fault,
      ticket,
    };

    let wait: Promise<unknown> | undefined;
    if (fault?.latencyMs) {
      this.counter.faults.delayed++;
      wait = new Promise<void>((r) => setTimeout(r, fault.latencyMs));
    }
    const beforeRespond = this.options.hooks?.beforeRespond;
    if (beforeRespond) {
      let hook: void | Promise<void>;
      try {
        hook = beforeRespond({ operationId: operation.op.operationId, method, path: pathname });
      } catch (error) {
        return this.failure(call, error); // past admission: the ticket must go back
      }
      if (hook instanceof Promise) wait = wait ? Promise.all([wait, hook]) : hook;
    }
    if (!wait) return this.guarded(call);
    // A failed hook is the mock's failure too: answered like one, and the ticket still goes back.
    return wait.then(
      () => this.guarded(call),
      (error: unknown) => this.failure(call, error),
    );
  }

  /**
   * The answer to a body over the size cap (server.ts never reads it): the spec's `tooLarge`
   * answer, or a plain JSON 413 — the service's general error template may have a status of its
   * own (Marketo's 200), which would hide that nothing was done.
   */
  tooLarge(method: string, url: string, limit: number): Reply {
    this.counter.requests++;
    this.counter.validationFailures++;
    const pathname = url.split("?")[0]!;
    if (!this.model.answers.tooLarge) return jsonReply(413, { error: `request body larger than ${limit} bytes` });
    const ctx: Context = {
      method: method.toUpperCase(),
      path: pathname,
      requestId: this.requestId(),
      now: this.now().iso,
      limit,
    };
    return this.answers.of("tooLarge", ctx);
  }

  /** The request is answered (or its connection gone): give back what admission lent it. */
  done(outcome: Outcome): void {
    if (outcome.drop || !outcome.ticket) return;
    const ticket = outcome.ticket;
    outcome.ticket = undefined;
    this.counter.inFlight--;
    ticket.release();
  }

  /** A failure inside the mock answers 500 in the service's shape, never a dropped socket. */
  private guarded(call: Call): Outcome | Promise<Outcome> {
    try {
      const out = this.validated(call);
      return out instanceof Promise ? out.catch((e: unknown) => this.failure(call, e)) : out;
    } catch (error) {
      return this.failure(call, error);
    }
  }

  private failure(call: Call, error: unknown): Outcome {
    const { ctx } = call;
    this.report(error, ctx.method as string, ctx.route as string);
    return { reply: this.answers.internal(ctx), ticket: call.ticket };
  }

  /** A failure outside a call's pipeline (server.ts): the same 500, for a request not yet read into a call. */
  failed(method: string, url: string, error: unknown): Reply {
    const pathname = url.split("?")[0]!;
    this.report(error, method.toUpperCase(), pathname);
    return this.answers.internal({
      method: method.toUpperCase(),
      path: pathname,
      requestId: this.requestId(),
      now: this.now().iso,
    });
  }

  private report(error: unknown, method: string, path: string): void {
    const onFailure = this.options.hooks?.onFailure;
    if (onFailure) return onFailure(error, { method, path });
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`${this.descriptor.id} mock: internal failure answering ${method} ${path}: ${text}\n`);
  }

  /** Injected 5xx, then the body and parameters against the spec, then the callback probe. */
  private validated(call: Call): Outcome | Promise<Outcome> {
    const { ctx, ticket } = call;
    if (call.fault?.errorStatus) {
      this.counter.faults.errors++;
      return { reply: this.answers.server(call.fault.errorStatus, ctx), ticket };
    }
    if (call.badJson) {
      this.counter.validationFailures++;
      return { reply: this.answers.of("invalidJson", ctx), ticket };
    }
    if (call.tooDeep) {
      this.counter.validationFailures++;
      return {
        reply: this.answers.of("badRequest", ctx, {
          field: "body",
          detail: `the body nests deeper than ${MAX_BODY_DEPTH} levels`,
        }),
        ticket,
      };
    }
    const problem = this.validator.check(call.operation.op, {
      path: call.params,
      query: call.query,
      headers: call.headers,
      body: call.body,
      hasBody: call.hasBody,
    });
    if (problem) {
      this.counter.validationFailures++;
      return { reply: this.answers.of("badRequest", ctx, { field: problem.field, detail: problem.detail }), ticket };
    }
    const webhooks = this.webhooks;
    const callback = call.operation.registersWebhook ? webhooks!.callbackOf(call.body) : undefined;
    if (callback === undefined) return this.answer(call);
    const field = this.model.webhooks!.callbackField;
    const rejected = (probeStatus: unknown): Outcome => ({
      reply: this.answers.of("webhookRejected", ctx, { callbackUrl: callback, probeStatus, field }),
      ticket,
    });
    // Never contacted: see isLoopbackUrl.
    if (!isLoopbackUrl(callback))
      return rejected(
        `no answer (the mock calls only loopback callbacks: ${field} must be on 127.0.0.0/8, ::1 or localhost)`,
      );
    if (!webhooks!.probes) return this.answer(call);
    // The service calls the callback before it accepts the registration; only a 200 will do.
    return webhooks!
      .probe(callback)
      .then((status) => (status === 200 ? this.answer(call) : rejected(status || "no answer")));
  }

  /** Referenced records, then the action, then the quota charge. */
  private answer(call: Call): Outcome {
    const { operation, ctx, ticket } = call;
    const { op, desc, m } = operation;
    let example: unknown = null;
    const exampleOf = () =>
      example === null
        ? (example = successSample(op, this.definition.components, this.idSeed))
        : structuredClone(example);
    if (operation.usesExample) ctx.example = exampleOf();
    const refs: Rec = {};
    ctx.ref = refs;
    for (const [name, ref] of Object.entries(m.refs)) {
      const record = this.store.find(ref.resource, renderString(ref.id, ctx));
      if (!record && ref.missing)
        return {
          reply: this.answers.of(ref.missing, ctx, {
            field: ref.field ?? name,
            detail: `${ref.field ?? name} not found`,
          }),
          ticket,
        };
      refs[name] = record;
    }
    const act: Act = {
      op,
      desc,
      m,
      ctx,
      status: op.success.status,
      contentType: op.success.contentType ?? "application/json",
      model: this.model,
      store: this.store,
      answers: this.answers,
      pager: this.pager,
      webhooks: this.webhooks,
      counters: this.counter,
      example: exampleOf,
      parent: m.parent !== undefined ? renderString(m.parent, ctx) : undefined,
      parentField: m.parentField ?? (m.resource ? this.store.spec(m.resource).parentField : undefined),
      shaper: this.shaper,
    };
    const reply = ACTIONS[m.action](act);
    // A success the spec gives a media type but no body (`examples: {}`, no schema): an empty body
    // still says what it is, unless the status has no body at all.
    if (
      reply.body.length === 0 &&
      op.success.contentType &&
      reply.status === op.success.status &&
      !NO_BODY.includes(reply.status)
    ) {
      reply.headers["content-type"] ??= op.success.contentType;
    }
    if (ticket.quotas) this.admission.charge(ticket, reply, typeof ctx.resultCount === "number" ? ctx.resultCount : 0);
    let slowBody: { delayMs: number; chunkBytes: number } | undefined;
    if (call.fault?.slowBody) {
      this.counter.faults.slowBodies++;
      slowBody = call.fault.slowBody;
    }
    return { reply, slowBody, ticket };
  }

  private tokenEndpoint(query: URLSearchParams, body: unknown, ctx: Context): Reply {
    const result = this.auth.token(query, body, ctx);
    if (!result.ok) {
      if (result.detail === "no token endpoint") return this.answers.of("noRoute", ctx);
      this.counter.authFailures++;
      return this.answers.of("tokenRejected", ctx, { detail: result.detail });
    }
    if (result.issued) this.counter.tokensIssued++;
    return jsonReply(200, result.body);
  }
}

/** Statuses HTTP sends without a body (and so without a content type). */
const NO_BODY = [204, 205, 304];
