/**
 * The behavioural mock engine: one node:http server per service, built from the service descriptor
 * (auth, limits, paging, error rules), the mock model of the spec (`x-stepforge.mock` and
 * `x-stepforge-mock`) and the spec's schemas and examples. It keeps state in memory, validates
 * requests, enforces auth and limits with the service's own answers, pages, injects seeded faults
 * and delivers signed webhooks. Nothing here knows which service it imitates.
 */
import { hmacOf } from "../hmac.js";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { LimitSpec, OperationDescriptor, ServiceDescriptor } from "../descriptor.js";
import { FaultInjector, prng, type FaultDecision, type FaultOptions } from "./faults.js";
import type { MockAnswer, MockErrorTemplate, MockOperationSpec, MockService, MockSituation } from "./model.js";
import { getPath, render, renderString, setPath, type Context } from "./template.js";
import { RequestValidator, type Problem } from "./validate.js";

/** What a generated `mock.ts` hands the engine. */
export interface MockDefinition {
  descriptor: ServiceDescriptor;
  /** The spec's `x-stepforge.mock`, or one the generator derived for a spec without it. */
  mock: MockService;
  operations: Record<string, MockOperationSpec>;
  /** The spec's `components` (schemas for `$ref`s in validation). */
  components: unknown;
}

/** A limit's numbers for this mock, over the descriptor's (shrink windows in tests and benchmarks). */
export interface MockLimitOverride {
  requests?: number;
  windowSeconds?: number;
  max?: number;
  /** header-quota limits: points per day. */
  points?: number;
  disabled?: boolean;
}

export interface MockOptions {
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Accepted credentials (connection field values); default: the spec's `x-stepforge.mock.credentials`. */
  credentials?: Record<string, string> | Array<Record<string, string>>;
  /** Per limit id of the descriptor. */
  limits?: Record<string, MockLimitOverride>;
  /** Lifetime of issued access tokens, in seconds. */
  tokenLifetimeSeconds?: number;
  /** Authorization code the token endpoint accepts (authorization-code services). */
  authorizationCode?: string;
  faults?: FaultOptions;
  /** Key of webhook signatures (Trello: the application secret). */
  webhookSecret?: string;
  /** Milliseconds since the epoch; tests pass a clock they move by hand. */
  clock?: () => number;
  /** Fill resources from the spec's examples (default true). */
  seedData?: boolean;
  /** Seed of generated ids (default 1), so a run's ids repeat. */
  idSeed?: number;
  /** Called for every accepted request after limits and before the answer (tests hold requests here). */
  beforeRespond?: (info: { operationId: string; method: string; path: string }) => void | Promise<void>;
}

export interface MockCounters {
  requests: number;
  byOperation: Record<string, number>;
  creates: Record<string, number>;
  updates: Record<string, number>;
  deletes: Record<string, number>;
  rateLimited: number;
  rejections: Record<string, number>;
  authFailures: number;
  validationFailures: number;
  tokensIssued: number;
  faults: { dropped: number; errors: number; delayed: number; slowBodies: number };
  webhookDeliveries: number;
  webhookFailures: number;
  inFlight: number;
}

export interface RunningMock {
  service: string;
  url: string;
  port: number;
  /** A copy of what the mock received so far. */
  counters(): MockCounters;
  /** The records of one resource, in creation order (copies). */
  records(resource: string): Array<Record<string, unknown>>;
  /** Clears state (re-seeding it), counters, limits and tokens. */
  reset(): void;
  close(): Promise<void>;
}

type Rec = Record<string, unknown>;
type AuthResult = { ok: true; credential: Record<string, string>; index: number } | { ok: false; situation: MockSituation };

class Reply {
  constructor(
    readonly status: number,
    readonly body: Buffer,
    readonly headers: Record<string, string>,
  ) {}
}

const DEFAULT_ANSWERS: Record<MockSituation, MockAnswer> = {
  badRequest: { status: 400, message: "{detail}" },
  invalidJson: { status: 400, message: "the request body is not valid JSON" },
  noRoute: { status: 404, message: "Cannot {method} {path}" },
  notFound: { status: 404, message: "not found" },
  unauthorized: { status: 401, message: "unauthorized" },
  expiredToken: { status: 401, message: "token expired" },
  server: { status: 500, message: "internal error" },
  webhookRejected: { status: 400, message: "callback did not answer 200" },
  tokenRejected: { status: 401, message: "invalid client credentials" },
};

function emptyCounters(): MockCounters {
  return {
    requests: 0,
    byOperation: {},
    creates: {},
    updates: {},
    deletes: {},
    rateLimited: 0,
    rejections: {},
    authFailures: 0,
    validationFailures: 0,
    tokensIssued: 0,
    faults: { dropped: 0, errors: 0, delayed: 0, slowBodies: 0 },
    webhookDeliveries: 0,
    webhookFailures: 0,
    inFlight: 0,
  };
}

const bump = (map: Record<string, number>, key: string) => (map[key] = (map[key] ?? 0) + 1);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Route {
  op: MockOperationSpec;
  desc: OperationDescriptor;
  regex: RegExp;
  names: string[];
  literal: number;
}

function compileRoute(op: MockOperationSpec, desc: OperationDescriptor): Route {
  const names: string[] = [];
  let literal = 0;
  const source = op.path.replace(/\{([^}]+)\}|[^{]+/g, (m, name: string | undefined) => {
    if (name) {
      names.push(name);
      return "([^/]+?)";
    }
    literal += m.length;
    return m.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  });
  return { op, desc, regex: new RegExp(`^${source}$`), names, literal };
}

/** The path of a token endpoint given as a template under the base address or as an absolute URL. */
function tokenPath(descriptor: ServiceDescriptor): string | undefined {
  const auth = descriptor.auth;
  if (auth.kind !== "oauth2-client-credentials" && auth.kind !== "oauth2-authorization-code") return undefined;
  const base = descriptor.connection.baseUrl.replace(/\/+$/, "");
  if (auth.tokenUrl.startsWith(base)) return auth.tokenUrl.slice(base.length) || "/";
  try {
    return new URL(auth.tokenUrl).pathname;
  } catch {
    return auth.tokenUrl.replace(/^\{[^}]+\}/, "");
  }
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => values[name] ?? "");
}

function dayIn(ms: number, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(ms);
  } catch {
    return new Date(ms).toISOString().slice(0, 10);
  }
}

function splitValues(v: unknown): unknown[] {
  if (v === undefined || v === null || v === "") return [];
  if (Array.isArray(v)) return v;
  if (typeof v === "string") return v.split(",").map((s) => s.trim()).filter(Boolean);
  return [v];
}

export class MockEngine {
  readonly descriptor: ServiceDescriptor;
  readonly model: MockService;
  private readonly routes: Route[];
  private readonly validator: RequestValidator;
  private readonly clock: () => number;
  private readonly credentials: Array<Record<string, string>>;
  private readonly tokenPath: string | undefined;
  private readonly limits: Array<LimitSpec & { override: MockLimitOverride }>;
  private faults: FaultInjector | undefined;
  private random: () => number;

  private store = new Map<string, Map<string, Rec>>();
  private links = new Map<string, Map<string, Set<string>>>();
  private intIds = new Map<string, number>();
  private counter = emptyCounters();
  private windows = new Map<string, number[]>();
  private inFlight = new Map<string, number>();
  private daily = new Map<string, number>();
  private points = new Map<string, number>();
  private accessTokens = new Map<string, { index: number; expiresAt: number }>();
  private refreshTokens = new Map<number, string>();
  private requestSeq = 0;
  readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly definition: MockDefinition,
    private readonly options: MockOptions = {},
  ) {
    this.descriptor = definition.descriptor;
    const model = definition.mock;
    this.model = model;
    this.clock = options.clock ?? Date.now;
    const creds = options.credentials ?? model.credentials;
    this.credentials = Array.isArray(creds) ? creds : [creds];
    this.tokenPath = tokenPath(this.descriptor);
    this.routes = Object.values(definition.operations)
      .map((op) => compileRoute(op, this.descriptor.operations[op.operationId]!))
      .sort((a, b) => b.literal - a.literal);
    this.validator = new RequestValidator(definition.components);
    const overrides = options.limits ?? {};
    for (const id of Object.keys(overrides)) {
      if (!this.descriptor.limits.some((l) => l.id === id)) {
        throw new Error(`${this.descriptor.id} mock: no limit "${id}" (limits: ${this.descriptor.limits.map((l) => l.id).join(", ") || "none"})`);
      }
    }
    this.limits = this.descriptor.limits.map((l) => ({ ...l, override: overrides[l.id] ?? {} })).filter((l) => !l.override.disabled);
    this.faults = options.faults ? new FaultInjector(options.faults) : undefined;
    this.random = prng(options.idSeed ?? 1);
    this.seed();
  }

  // ---- state ----------------------------------------------------------------------------------

  private table(resource: string): Map<string, Rec> {
    let t = this.store.get(resource);
    if (!t) {
      if (!this.model.resources[resource]) throw new Error(`${this.descriptor.id} mock: unknown resource "${resource}"`);
      t = new Map();
      this.store.set(resource, t);
    }
    return t;
  }

  private hex(n: number): string {
    let s = "";
    while (s.length < n) s += Math.floor(this.random() * 16).toString(16);
    return s;
  }

  private newId(resource: string): string | number {
    const spec = this.model.resources[resource]!;
    switch (spec.id.format) {
      case "hex24":
        return this.hex(24);
      case "integer": {
        const next = (this.intIds.get(resource) ?? (spec.id.start ?? 1) - 1) + 1;
        this.intIds.set(resource, next);
        return next;
      }
      case "prefixed":
        return `${spec.id.prefix ?? ""}${this.hex(16)}`;
      case "uuid": {
        const h = this.hex(32);
        return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
      }
    }
  }

  private put(resource: string, record: Rec): void {
    const spec = this.model.resources[resource]!;
    const id = record[spec.idField];
    if (id === undefined || id === null) return;
    this.table(resource).set(String(id), record);
    if (typeof id === "number" && id > (this.intIds.get(resource) ?? 0)) this.intIds.set(resource, id);
  }

  private find(resource: string, id: unknown): Rec | undefined {
    return id === undefined ? undefined : this.table(resource).get(String(id));
  }

  private seed(): void {
    if (this.options.seedData === false) return;
    for (const [name, res] of Object.entries(this.model.resources)) {
      this.table(name);
      for (const s of res.seed) {
        const op = this.definition.operations[s.operation];
        if (!op) throw new Error(`${this.descriptor.id} mock: resource "${name}" seeds from unknown operation "${s.operation}"`);
        const found = s.items ? getPath(op.success.example, s.items) : op.success.example;
        for (const record of Array.isArray(found) ? found : found ? [found] : []) {
          if (record && typeof record === "object" && !this.find(name, (record as Rec)[res.idField])) this.put(name, structuredClone(record as Rec));
        }
      }
    }
  }

  records(resource: string): Rec[] {
    return [...this.table(resource).values()].map((r) => structuredClone(r));
  }

  counters(): MockCounters {
    return structuredClone(this.counter);
  }

  reset(): void {
    this.store.clear();
    this.links.clear();
    this.intIds.clear();
    this.counter = emptyCounters();
    this.windows.clear();
    this.inFlight.clear();
    this.daily.clear();
    this.points.clear();
    this.accessTokens.clear();
    this.refreshTokens.clear();
    this.random = prng(this.options.idSeed ?? 1);
    this.faults = this.options.faults ? new FaultInjector(this.options.faults) : undefined;
    this.seed();
  }

  // ---- answers --------------------------------------------------------------------------------

  private errorReply(answer: MockAnswer, ctx: Context, headers: Record<string, string> = {}, template?: MockErrorTemplate): Reply {
    const t = template ?? answer.template ?? this.model.error;
    const message = renderString(answer.message, ctx) ?? answer.message;
    const vars = { ...ctx, message, code: answer.code, status: answer.status };
    const status = t.status ?? answer.status ?? 400;
    const body = render(t.body, vars);
    const text = typeof body === "string" && !/json/.test(t.contentType) ? body : JSON.stringify(body);
    const extra = Object.fromEntries(Object.entries(t.headers ?? {}).map(([k, v]) => [k, renderString(v, vars) ?? ""]));
    return new Reply(status, Buffer.from(text), { "content-type": t.contentType, ...extra, ...headers });
  }

  private answer(situation: MockSituation, ctx: Context, extra: Context = {}): Reply {
    const answer = this.model.answers[situation] ?? DEFAULT_ANSWERS[situation];
    return this.errorReply(answer, { ...ctx, ...extra });
  }

  private json(status: number, body: unknown, contentType = "application/json"): Reply {
    if (body === undefined) return new Reply(status, Buffer.alloc(0), {});
    const text = typeof body === "string" && !/json/.test(contentType) ? body : JSON.stringify(body);
    return new Reply(status, Buffer.from(text), { "content-type": contentType });
  }

  // ---- auth -----------------------------------------------------------------------------------

  private authenticate(req: IncomingMessage, url: URL): AuthResult {
    const auth = this.descriptor.auth;
    if (auth.kind === "none") return { ok: true, credential: this.credentials[0] ?? {}, index: 0 };
    const read = (p: { in: "query" | "header"; name: string }) =>
      p.in === "query" ? url.searchParams.get(p.name) ?? undefined : (req.headers[p.name.toLowerCase()] as string | undefined);
    if (auth.kind === "api-key") {
      for (const [index, credential] of this.credentials.entries()) {
        for (const placements of Object.values(auth.modes)) {
          if (placements.every((p) => read(p) === fill(p.value, credential))) return { ok: true, credential, index };
        }
      }
      return { ok: false, situation: "unauthorized" };
    }
    const sent = read(auth.send);
    const [before, after] = auth.send.value.split("{accessToken}") as [string, string | undefined];
    if (!sent || !sent.startsWith(before) || !sent.endsWith(after ?? "")) return { ok: false, situation: "unauthorized" };
    const token = sent.slice(before.length, sent.length - (after ?? "").length);
    this.initialTokens();
    const entry = this.accessTokens.get(token);
    if (!entry) return { ok: false, situation: "unauthorized" };
    if (entry.expiresAt <= this.clock()) return { ok: false, situation: "expiredToken" };
    return { ok: true, credential: this.credentials[entry.index]!, index: entry.index };
  }

  private lifetimeMs(): number {
    return (this.options.tokenLifetimeSeconds ?? this.model.token?.lifetimeSeconds ?? 3600) * 1000;
  }

  /** Authorization-code services start with the connection's own access and refresh tokens. */
  private initialTokens(): void {
    const auth = this.descriptor.auth;
    if (auth.kind !== "oauth2-authorization-code" || this.refreshTokens.size > 0) return;
    for (const [index, c] of this.credentials.entries()) {
      const access = c[auth.accessTokenField];
      if (access && !this.accessTokens.has(access)) this.accessTokens.set(access, { index, expiresAt: this.clock() + this.lifetimeMs() });
      const refresh = c[auth.refreshTokenField];
      if (refresh) this.refreshTokens.set(index, refresh);
    }
  }

  private issueToken(index: number, ctx: Context): Reply {
    const t = this.model.token;
    const now = this.clock();
    let access: string | undefined;
    let expiresAt = now + this.lifetimeMs();
    if (t?.reuseUntilExpiry) {
      for (const [token, e] of this.accessTokens) {
        if (e.index === index && e.expiresAt > now) {
          access = token;
          expiresAt = e.expiresAt;
        }
      }
    }
    if (!access) {
      const h = this.hex(32);
      access = fill(t?.format ?? "{uuid}", { uuid: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`, hex: h });
      this.accessTokens.set(access, { index, expiresAt });
      this.counter.tokensIssued++;
    }
    const auth = this.descriptor.auth;
    let refreshToken: string | undefined;
    if (auth.kind === "oauth2-authorization-code") {
      refreshToken = this.refreshTokens.get(index);
      if (!refreshToken || auth.rotatesRefreshToken) refreshToken = this.hex(40);
      this.refreshTokens.set(index, refreshToken);
    }
    const body = render(t?.response ?? { access_token: "{accessToken}", expires_in: "{expiresIn}" }, {
      ...ctx,
      accessToken: access,
      refreshToken,
      expiresIn: Math.max(0, Math.floor((expiresAt - now) / 1000)),
      nowSeconds: Math.floor(now / 1000),
    });
    return this.json(200, body);
  }

  private tokenEndpoint(url: URL, req: IncomingMessage, body: unknown, ctx: Context): Reply {
    const auth = this.descriptor.auth;
    if (auth.kind !== "oauth2-client-credentials" && auth.kind !== "oauth2-authorization-code") return this.answer("noRoute", ctx);
    const params: Record<string, unknown> =
      auth.kind === "oauth2-client-credentials" && auth.credentialsIn === "query"
        ? Object.fromEntries(url.searchParams)
        : { ...Object.fromEntries(url.searchParams), ...(body && typeof body === "object" ? (body as Rec) : {}) };
    void req;
    const index = this.credentials.findIndex((c) => c[auth.clientIdField] === params.client_id && c[auth.clientSecretField] === params.client_secret);
    const reject = (detail: string) => {
      this.counter.authFailures++;
      return this.answer("tokenRejected", ctx, { detail });
    };
    if (index < 0) return reject("bad client credentials");
    if (auth.kind === "oauth2-client-credentials") {
      if (params.grant_type !== "client_credentials") return reject("unsupported grant_type");
      return this.issueToken(index, ctx);
    }
    this.initialTokens();
    if (params.grant_type === "refresh_token") {
      if (!params.refresh_token || this.refreshTokens.get(index) !== params.refresh_token) return reject("invalid refresh token");
      return this.issueToken(index, ctx);
    }
    if (params.grant_type === "authorization_code") {
      if (params.code !== (this.options.authorizationCode ?? "mock-authorization-code")) return reject("invalid authorization code");
      return this.issueToken(index, ctx);
    }
    return reject("unsupported grant_type");
  }

  // ---- limits ---------------------------------------------------------------------------------

  private limitKey(limit: LimitSpec, auth: { credential: Record<string, string>; index: number }): string {
    if (limit.per === "connection") return `${limit.id}:c${auth.index}`;
    const field = limit.per.slice("field:".length);
    return `${limit.id}:${auth.credential[field] ?? "instance"}`;
  }

  /** Takes room under every limit, or answers with the first limit that has none. */
  private admit(route: Route, path: string, auth: { credential: Record<string, string>; index: number }, ctx: Context): { release: () => void; quota?: { key: string; points: number; limit: LimitSpec } } | Reply {
    const now = this.clock();
    const applicable = this.limits.filter(
      (l) => (l.applies === "all" || l.applies === route.desc.limitClass) && (!l.pathPrefix || path.startsWith(l.pathPrefix)),
    );
    const reject = (limit: LimitSpec, retryAfterSeconds?: number) => {
      this.counter.rateLimited++;
      bump(this.counter.rejections, limit.id);
      const la = this.model.limits[limit.id];
      const answer: MockAnswer = {
        status: limit.rejection.status,
        code: la?.code ?? limit.rejection.code,
        message: la?.message ?? limit.description,
        template: la?.template,
      };
      const headers: Record<string, string> = {};
      if (la?.retryAfter && retryAfterSeconds !== undefined) headers["retry-after"] = String(Math.max(1, retryAfterSeconds));
      const numbers = { requests: limit.kind === "window" || limit.kind === "daily-quota" ? this.number(limit, "requests") : undefined, windowSeconds: limit.kind === "window" ? this.number(limit, "windowSeconds") : undefined, max: limit.kind === "concurrency" ? this.number(limit, "max") : undefined };
      return this.errorReply(answer, { ...ctx, limit: { ...limit, ...numbers } }, headers);
    };
    const windows: Array<[string, number[]]> = [];
    let quota: { key: string; points: number; limit: LimitSpec } | undefined;
    for (const limit of applicable) {
      const key = this.limitKey(limit, auth);
      if (limit.kind === "window") {
        const ms = this.number(limit, "windowSeconds") * 1000;
        const list = (this.windows.get(key) ?? []).filter((t) => t > now - ms);
        this.windows.set(key, list);
        if (list.length >= this.number(limit, "requests")) return reject(limit, Math.ceil((list[0]! + ms - now) / 1000));
        windows.push([key, list]);
      } else if (limit.kind === "concurrency") {
        if ((this.inFlight.get(key) ?? 0) >= this.number(limit, "max")) return reject(limit, 1);
      } else if (limit.kind === "daily-quota") {
        const dkey = `${key}:${dayIn(now, limit.resetTimeZone)}`;
        if ((this.daily.get(dkey) ?? 0) >= this.number(limit, "requests")) return reject(limit);
      } else if (limit.kind === "header-quota") {
        const qkey = `${key}:${dayIn(now, limit.resetTimeZone)}`;
        const allowed = limit.override.points ?? this.model.quota?.points ?? Number.POSITIVE_INFINITY;
        if ((this.points.get(qkey) ?? 0) >= allowed) return reject(limit);
        quota = { key: qkey, points: allowed, limit };
      }
    }
    for (const [, list] of windows) list.push(now);
    const held: string[] = [];
    for (const limit of applicable) {
      const key = this.limitKey(limit, auth);
      if (limit.kind === "concurrency") {
        this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
        held.push(key);
      } else if (limit.kind === "daily-quota") {
        const dkey = `${key}:${dayIn(now, limit.resetTimeZone)}`;
        this.daily.set(dkey, (this.daily.get(dkey) ?? 0) + 1);
      }
    }
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        for (const key of held) this.inFlight.set(key, (this.inFlight.get(key) ?? 1) - 1);
      },
      ...(quota ? { quota } : {}),
    };
  }

  private number(limit: LimitSpec & { override?: MockLimitOverride }, key: "requests" | "windowSeconds" | "max"): number {
    const o = (limit as { override?: MockLimitOverride }).override?.[key];
    return o ?? ((limit as unknown as Record<string, number>)[key] ?? 0);
  }

  // ---- the request ----------------------------------------------------------------------------

  async handle(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = (req.method ?? "GET").toUpperCase();
    if (url.pathname.startsWith("/__mock/")) return this.control(url, method, res);
    this.counter.requests++;
    this.requestSeq++;
    const ctx: Context = {
      method,
      path: url.pathname,
      requestId: `${this.requestSeq.toString(16)}#${this.hex(11)}`,
      now: new Date(this.clock()).toISOString(),
      nowSeconds: Math.floor(this.clock() / 1000),
      actorId: this.model.actorId,
    };

    let body: unknown;
    let badJson = false;
    if (raw.length > 0) {
      const type = String(req.headers["content-type"] ?? "");
      if (type.includes("application/x-www-form-urlencoded")) body = Object.fromEntries(new URLSearchParams(raw.toString("utf8")));
      else {
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch {
          badJson = true;
        }
      }
    }

    if (this.tokenPath && url.pathname === this.tokenPath) return send(res, this.tokenEndpoint(url, req, body, ctx));

    let route: Route | undefined;
    let match: RegExpExecArray | null = null;
    for (const r of this.routes) {
      if (r.op.method.toUpperCase() !== method) continue;
      match = r.regex.exec(url.pathname);
      if (match) {
        route = r;
        break;
      }
    }
    if (!route || !match) return send(res, this.answer("noRoute", ctx));
    const op = route.op;
    bump(this.counter.byOperation, op.operationId);

    const fault: FaultDecision | undefined = this.faults?.decide(op.operationId);
    if (fault?.drop) {
      this.counter.faults.dropped++;
      req.socket.destroy();
      return;
    }

    const auth = this.authenticate(req, url);
    if (!auth.ok) {
      this.counter.authFailures++;
      return send(res, this.answer(auth.situation, ctx));
    }
    const admitted = this.admit(route, url.pathname, auth, ctx);
    if (admitted instanceof Reply) return send(res, admitted);
    res.once("close", admitted.release);
    this.counter.inFlight++;
    res.once("close", () => this.counter.inFlight--);
    try {
      if (fault?.latencyMs) {
        this.counter.faults.delayed++;
        await sleep(fault.latencyMs);
      }
      await this.options.beforeRespond?.({ operationId: op.operationId, method, path: url.pathname });
      if (fault?.errorStatus) {
        this.counter.faults.errors++;
        const server = this.model.answers.server ?? DEFAULT_ANSWERS.server;
        return send(res, this.errorReply({ ...server, status: fault.errorStatus }, ctx));
      }

      const path = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)]));
      const query: Rec = {};
      for (const key of new Set(url.searchParams.keys())) query[key] = url.searchParams.getAll(key).join(",");
      Object.assign(ctx, { path, query, body, route: url.pathname, credential: auth.credential });
      if (badJson) {
        this.counter.validationFailures++;
        return send(res, this.answer("invalidJson", ctx));
      }
      const problem: Problem | undefined = this.validator.check(op, { path, query: url.searchParams, headers: req.headers, body, hasBody: raw.length > 0 });
      if (problem) {
        this.counter.validationFailures++;
        return send(res, this.answer("badRequest", ctx, { field: problem.field, detail: problem.detail }));
      }
      const reply = this.act(route, ctx);
      if (admitted.quota) this.chargeQuota(admitted.quota, reply, ctx);
      return send(res, reply, fault?.slowBody ? (this.counter.faults.slowBodies++, fault.slowBody) : undefined);
    } catch (error) {
      return send(res, this.errorReply({ ...(this.model.answers.server ?? DEFAULT_ANSWERS.server), status: 500 }, { ...ctx, detail: (error as Error).message }));
    }
  }

  private chargeQuota(quota: { key: string; points: number; limit: LimitSpec }, reply: Reply, ctx: Context): void {
    if (quota.limit.kind !== "header-quota") return;
    const q = this.model.quota;
    const results = typeof ctx.resultCount === "number" ? ctx.resultCount : 0;
    const cost = Math.round(((q?.perCall ?? 1) + (q?.perResult ?? 0) * results) * 100) / 100;
    const used = Math.round(((this.points.get(quota.key) ?? 0) + cost) * 100) / 100;
    this.points.set(quota.key, used);
    if (quota.limit.costHeader) reply.headers[quota.limit.costHeader.toLowerCase()] = String(cost);
    if (quota.limit.usedHeader) reply.headers[quota.limit.usedHeader.toLowerCase()] = String(used);
    if (Number.isFinite(quota.points)) reply.headers[quota.limit.remainingHeader.toLowerCase()] = String(Math.max(0, Math.round((quota.points - used) * 100) / 100));
  }

  private control(url: URL, method: string, res: ServerResponse): void {
    if (url.pathname === "/__mock/counters" && method === "GET") return send(res, this.json(200, this.counters()));
    if (url.pathname === "/__mock/reset" && method === "POST") {
      this.reset();
      return send(res, this.json(200, { reset: true }));
    }
    const resource = /^\/__mock\/records\/([A-Za-z0-9_]+)$/.exec(url.pathname)?.[1];
    if (resource && method === "GET" && this.model.resources[resource]) return send(res, this.json(200, this.records(resource)));
    send(res, this.json(404, { error: "unknown mock control route" }));
  }

  // ---- actions --------------------------------------------------------------------------------

  private act(route: Route, ctx: Context): Reply {
    const op = route.op;
    const m = op.mock ?? { action: "example" as const, refs: {}, from: "body", set: {}, where: {}, newestFirst: false, statuses: {} };
    const status = op.success.status;
    const contentType = op.success.contentType ?? "application/json";
    const example = () => (op.success.example === undefined ? undefined : structuredClone(op.success.example));

    ctx.example = example();
    const refs: Rec = {};
    ctx.ref = refs;
    for (const [name, ref] of Object.entries(m.refs)) {
      const id = renderString(ref.id, ctx);
      const record = this.find(ref.resource, id);
      if (!record && ref.missing) return this.answer(ref.missing, ctx, { field: ref.field ?? name, detail: `${ref.field ?? name} not found` });
      refs[name] = record;
    }
    if (m.action === "example") {
      const out = m.respond !== undefined ? render(m.respond, ctx) : example();
      if (m.event) this.fire(m.event, m.eventData, undefined, ctx, m.resource);
      return this.json(status, out, contentType);
    }
    const resource = m.resource;
    if (!resource) throw new Error(`${this.descriptor.id} mock: ${op.operationId} needs a resource for action ${m.action}`);
    const spec = this.model.resources[resource]!;
    const recordReply = (record: Rec | undefined) =>
      this.json(status, render(m.respond ?? this.model.envelopes.record ?? "{record}", { ...ctx, record }), contentType);
    const fields = (): Rec => {
      const src = m.from === "none" ? {} : getPath(ctx, m.from);
      return src && typeof src === "object" && !Array.isArray(src) ? structuredClone(src as Rec) : {};
    };
    const applySet = (record: Rec) => {
      for (const [path, t] of Object.entries(m.set)) {
        const v = render(t, { ...ctx, record });
        if (v !== undefined) setPath(record, path, v);
      }
    };
    const target = () => {
      const id = renderString(m.id ?? "{path.id}", ctx);
      return this.find(resource, id);
    };

    switch (m.action) {
      case "create": {
        if (this.model.webhooks?.resource === resource) {
          const rejected = this.probeSync(ctx);
          if (rejected) return rejected;
        }
        const id = this.newId(resource);
        ctx.newId = id;
        const record: Rec = { ...(render(spec.defaults, ctx) as Rec), ...fields(), [spec.idField]: id };
        applySet(record);
        if (spec.createdField) record[spec.createdField] = ctx.now;
        if (spec.updatedField) record[spec.updatedField] = ctx.now;
        this.put(resource, record);
        bump(this.counter.creates, resource);
        if (m.event) this.fire(m.event, m.eventData, record, ctx, resource);
        return recordReply(record);
      }
      case "read": {
        const record = target();
        return record ? recordReply(record) : this.answer("notFound", ctx, { field: "id" });
      }
      case "update": {
        const record = target();
        if (!record) return this.answer("notFound", ctx, { field: "id" });
        const old = structuredClone(record);
        Object.assign(record, fields(), { [spec.idField]: record[spec.idField] });
        applySet(record);
        if (spec.updatedField) record[spec.updatedField] = ctx.now;
        bump(this.counter.updates, resource);
        if (m.event) this.fire(m.event, m.eventData, record, { ...ctx, old, ...changes(old, record) }, resource);
        return recordReply(record);
      }
      case "delete": {
        const record = target();
        if (!record) return this.answer("notFound", ctx, { field: "id" });
        this.table(resource).delete(String(record[spec.idField]));
        bump(this.counter.deletes, resource);
        if (m.event) this.fire(m.event, m.eventData, record, ctx, resource);
        return this.json(status, m.respond !== undefined ? render(m.respond, { ...ctx, record }) : example(), contentType);
      }
      case "push":
      case "pull": {
        const record = target();
        if (!record) return this.answer("notFound", ctx, { field: "id" });
        ctx.newId = this.newId(resource);
        const value = render(m.value ?? "{body.value}", { ...ctx, record });
        const list = Array.isArray(getPath(record, m.field!)) ? (getPath(record, m.field!) as unknown[]) : [];
        const has = (v: unknown) => list.some((x) => JSON.stringify(x) === JSON.stringify(v) || (x && typeof x === "object" && v && typeof v === "object" && (x as Rec).id !== undefined && (x as Rec).id === (v as Rec).id));
        if (m.action === "push" && !has(value)) list.push(value);
        const next = m.action === "pull" ? list.filter((x) => !(JSON.stringify(x) === JSON.stringify(value))) : list;
        setPath(record, m.field!, next);
        bump(this.counter.updates, resource);
        if (m.event) this.fire(m.event, m.eventData, record, { ...ctx, value }, resource);
        return this.json(status, render(m.respond ?? this.model.envelopes.record ?? "{record}", { ...ctx, record, value }), contentType);
      }
      case "list": {
        const items = this.filter(resource, m.where, m.newestFirst, ctx);
        return this.listReply(route, items, m.respond, ctx, status, contentType);
      }
      case "upsert": {
        const inputs = splitValues(getPath(ctx, m.inputs ?? "body.input"));
        const lookup = renderString(m.lookupField, ctx) || m.key || spec.idField;
        const results = inputs.map((input) => {
          const inRec = (input && typeof input === "object" ? input : { [lookup]: input }) as Rec;
          const existing = inRec[lookup] === undefined ? undefined : [...this.table(resource).values()].find((r) => r[lookup] === inRec[lookup]);
          let record: Rec;
          let outcome: string;
          if (existing) {
            Object.assign(existing, inRec, { [spec.idField]: existing[spec.idField] });
            if (spec.updatedField) existing[spec.updatedField] = ctx.now;
            record = existing;
            outcome = m.statuses.updated ?? "updated";
            bump(this.counter.updates, resource);
          } else {
            const id = this.newId(resource);
            record = { ...(render(spec.defaults, { ...ctx, newId: id }) as Rec), ...inRec, [spec.idField]: id };
            if (spec.createdField) record[spec.createdField] = ctx.now;
            if (spec.updatedField) record[spec.updatedField] = ctx.now;
            this.put(resource, record);
            outcome = m.statuses.created ?? "created";
            bump(this.counter.creates, resource);
          }
          return render(m.result ?? { id: "{record.id}", status: "{status}" }, { ...ctx, input: inRec, record, status: outcome });
        });
        return this.json(status, render(m.respond ?? this.model.envelopes.list ?? "{items}", { ...ctx, items: results }), contentType);
      }
      case "link":
      case "unlink":
      case "isLinked": {
        const owner = renderString(m.owner, ctx) ?? "";
        const set = this.relation(m.relation!, owner);
        const inputs = splitValues(getPath(ctx, m.inputs ?? "body.input"));
        const results = inputs.map((input) => {
          let key = input && typeof input === "object" ? (input as Rec)[m.key ?? spec.idField] : input;
          if (spec.id.format === "integer" && typeof key === "string" && /^\d+$/.test(key)) key = Number(key);
          const record = this.find(resource, key);
          const rctx = { ...ctx, input, key, record };
          if (!record) return render(m.missingResult ?? { id: "{key}", status: "skipped" }, rctx);
          const k = String(key);
          let outcome: string;
          if (m.action === "link") {
            set.add(k);
            outcome = m.statuses.linked ?? "added";
          } else if (m.action === "unlink") {
            if (!set.has(k)) return render(m.missingResult ?? { id: "{key}", status: "skipped" }, rctx);
            set.delete(k);
            outcome = m.statuses.unlinked ?? "removed";
          } else outcome = set.has(k) ? m.statuses.member ?? "memberof" : m.statuses.notMember ?? "notmemberof";
          return render(m.result ?? { id: "{key}", status: "{status}" }, { ...rctx, status: outcome });
        });
        return this.json(status, render(m.respond ?? this.model.envelopes.list ?? "{items}", { ...ctx, items: results }), contentType);
      }
      case "linked": {
        const owner = renderString(m.owner, ctx) ?? "";
        const keys = this.relation(m.relation!, owner);
        const items = [...keys].map((k) => this.find(resource, k)).filter((r): r is Rec => r !== undefined);
        return this.listReply(route, items, m.respond, ctx, status, contentType);
      }
    }
    return this.json(status, example(), contentType);
  }

  private relation(name: string, owner: string): Set<string> {
    let byOwner = this.links.get(name);
    if (!byOwner) this.links.set(name, (byOwner = new Map()));
    let set = byOwner.get(owner);
    if (!set) byOwner.set(owner, (set = new Set()));
    return set;
  }

  private filter(resource: string, where: Record<string, string>, newestFirst: boolean, ctx: Context): Rec[] {
    const conditions = Object.entries(where)
      .map(([field, t]) => [renderString(field, ctx) ?? field, splitValues(render(t, ctx)).map(String)] as const)
      .filter(([field, values]) => values.length > 0 && field !== "");
    const items = [...this.table(resource).values()].filter((r) =>
      conditions.every(([field, values]) => {
        const contains = field.startsWith("~");
        const fields = (contains ? field.slice(1) : field).split("|");
        return fields.some((f) => {
          const v = getPath(r, f);
          const have = Array.isArray(v) ? v.map(String) : v === undefined || v === null ? [] : [String(v)];
          return contains
            ? have.some((h) => values.some((want) => h.toLowerCase().includes(want.toLowerCase())))
            : have.some((h) => values.includes(h));
        });
      }),
    );
    return newestFirst ? items.reverse() : items;
  }

  private listReply(route: Route, all: Rec[], respond: unknown, ctx: Context, status: number, contentType: string): Reply {
    const paging = route.desc.paging;
    let items = all;
    const page: Rec = { total: all.length };
    const query = (ctx.query ?? {}) as Rec;
    const int = (v: unknown) => (v === undefined || v === "" ? undefined : Number.parseInt(String(v), 10));
    if (paging?.style === "offset") {
      const offset = Math.max(0, int(query[paging.offsetParam]) ?? 0);
      const limit = Math.min(paging.maxLimit, Math.max(1, int(query[paging.limitParam]) ?? paging.maxLimit));
      items = all.slice(offset, offset + limit);
      Object.assign(page, { offset, limit, count: items.length });
    } else if (paging?.style === "token") {
      const token = query[paging.tokenParam];
      let start = 0;
      if (token !== undefined && token !== "") {
        const decoded = /^o(\d+)$/.exec(Buffer.from(String(token), "base64url").toString("utf8"));
        if (!decoded) return this.answer("badRequest", ctx, { field: paging.tokenParam, detail: `${paging.tokenParam} is not a valid paging token` });
        start = Number(decoded[1]);
      }
      const size = Math.max(1, int(paging.sizeParam ? query[paging.sizeParam] : undefined) ?? this.model.pageSize);
      items = all.slice(start, start + size);
      const more = start + size < all.length;
      Object.assign(page, { offset: start, limit: size, count: items.length, more, nextToken: more ? Buffer.from(`o${start + size}`).toString("base64url") : undefined });
    }
    ctx.resultCount = items.length;
    return this.json(status, render(respond ?? this.model.envelopes.list ?? "{items}", { ...ctx, items, page }), contentType);
  }

  // ---- webhooks -------------------------------------------------------------------------------

  private probeResults = new Map<string, number>();

  /** The probe runs before the request is handled (see `prepare`); here its result is read. */
  private probeSync(ctx: Context): Reply | undefined {
    const wh = this.model.webhooks!;
    const callback = getPath(ctx, `body.${wh.callbackField}`);
    if (!wh.probeMethod || typeof callback !== "string") return undefined;
    const status = this.probeResults.get(callback);
    this.probeResults.delete(callback);
    if (status === 200) return undefined;
    return this.answer("webhookRejected", ctx, { callbackUrl: callback, probeStatus: status ?? "no answer", field: wh.callbackField });
  }

  /** Sends the probe of a webhook registration (async), so `act` can stay synchronous. */
  async prepare(route: Route | undefined, body: unknown): Promise<void> {
    const wh = this.model.webhooks;
    if (!route || !wh?.probeMethod || route.op.mock?.action !== "create" || route.op.mock.resource !== wh.resource) return;
    const callback = body && typeof body === "object" ? getPath(body, wh.callbackField) : undefined;
    if (typeof callback !== "string") return;
    let status = 0;
    try {
      const r = await fetch(callback, { method: wh.probeMethod, signal: AbortSignal.timeout(5000) });
      status = r.status;
      await r.body?.cancel();
    } catch {
      status = 0;
    }
    this.probeResults.set(callback, status);
  }

  findRoute(method: string, pathname: string): Route | undefined {
    return this.routes.find((r) => r.op.method.toUpperCase() === method && r.regex.test(pathname));
  }

  private fire(event: string, eventData: unknown, record: Rec | undefined, ctx: Context, resource: string | undefined): void {
    const wh = this.model.webhooks;
    if (!wh) return;
    const hooks = [...this.table(wh.resource).values()].filter((h) => !wh.activeField || h[wh.activeField] !== false);
    if (hooks.length === 0) return;
    const subject: Rec = record ?? { path: ctx.path };
    const ids = new Set<string>();
    for (const f of wh.matchFields) {
      const v = getPath(subject, f);
      if (v !== undefined && v !== null) ids.add(String(v));
    }
    for (const p of Object.values((ctx.path ?? {}) as Rec)) ids.add(String(p));
    const data = render(eventData ?? (resource ? { [resource]: "{record}" } : {}), { ...ctx, record });
    for (const hook of hooks) {
      const modelId = String(hook[wh.modelField]);
      if (!ids.has(modelId)) continue;
      const model = this.findAnywhere(modelId) ?? { id: modelId };
      const payload = render(wh.payload, { ...ctx, event, eventData: data, model, webhook: hook, newId: this.hex(24), record });
      this.deliver(hook, wh.callbackField, JSON.stringify(payload));
    }
  }

  private findAnywhere(id: string): Rec | undefined {
    for (const [name, table] of this.store) if (name !== this.model.webhooks?.resource && table.has(id)) return table.get(id);
    return undefined;
  }

  private deliver(hook: Rec, callbackField: string, body: string): void {
    const wh = this.model.webhooks!;
    const callback = String(getPath(hook, callbackField));
    const secret = this.options.webhookSecret ?? "mock-webhook-secret";
    const signature = hmacOf(wh.signature.algorithm, wh.signature.encoding, secret, wh.signature.message.map((part) => (part === "body" ? body : callback)));
    const task = (async () => {
      try {
        const r = await fetch(callback, {
          method: "POST",
          headers: { "content-type": "application/json", [wh.signature.header]: signature },
          body,
          signal: AbortSignal.timeout(10_000),
        });
        await r.body?.cancel();
        if (r.ok) this.counter.webhookDeliveries++;
        else {
          this.counter.webhookFailures++;
          if (wh.goneStatus !== undefined && r.status === wh.goneStatus) this.table(wh.resource).delete(String(hook[this.model.resources[wh.resource]!.idField]));
        }
      } catch {
        this.counter.webhookFailures++;
      }
    })();
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, reply: Reply, slow?: { delayMs: number; chunkBytes: number }): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(reply.status, { ...reply.headers, "content-length": String(reply.body.length) });
  if (!slow || reply.body.length === 0) {
    res.end(reply.body);
    return;
  }
  void (async () => {
    for (let i = 0; i < reply.body.length; i += slow.chunkBytes) {
      if (res.destroyed) return;
      res.write(reply.body.subarray(i, i + slow.chunkBytes));
      await sleep(slow.delayMs);
    }
    res.end();
  })();
}

/** Starts the mock of one service on 127.0.0.1. */
export async function startMockServer(definition: MockDefinition, options: MockOptions = {}): Promise<RunningMock> {
  const engine = new MockEngine(definition, options);
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      if (req.method === "POST" && engine.model.webhooks?.probeMethod) {
        // A webhook registration probes its callback first; that is asynchronous, the rest is not.
        let body: unknown;
        try {
          body = raw.length ? JSON.parse(raw.toString("utf8")) : undefined;
        } catch {
          body = undefined;
        }
        await engine.prepare(engine.findRoute("POST", new URL(req.url ?? "/", "http://127.0.0.1").pathname), body);
      }
      await engine.handle(req, res, raw);
    })().catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(`mock failure: ${(error as Error).message}`);
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    service: definition.descriptor.id,
    url: `http://127.0.0.1:${port}`,
    port,
    counters: () => engine.counters(),
    records: (resource) => engine.records(resource),
    reset: () => engine.reset(),
    close: () =>
      (closed ??= (async () => {
        await Promise.allSettled([...engine.pending]);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const s of sockets) s.destroy();
        });
      })()),
  };
}

/** What an update changed: the previous (`changed`) and new (`changedTo`) values of each changed field. */
function changes(before: Record<string, unknown>, after: Record<string, unknown>): { changed?: Record<string, unknown>; changedTo?: Record<string, unknown> } {
  const changed: Record<string, unknown> = {};
  const changedTo: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key]) === JSON.stringify(after[key])) continue;
    changed[key] = before[key] ?? null;
    changedTo[key] = after[key] ?? null;
  }
  return Object.keys(changed).length ? { changed, changedTo } : {};
}
