/**
 * Hostile request data against the behavioural mock: bodies nesting thousands of levels, values
 * with own `toString` / `__proto__` keys, repeated parameters. Each used to answer 500 or corrupt
 * the stored state for every later call.
 */
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import {
  MockEngine,
  registeredMock,
  startMock,
  type MockDefinition,
  type MockOperationSpec,
  type Outcome,
} from "../../runtime/mock/index.js";
import { call, LIST, MARKETO, marketoAuth, TRELLO_AUTH, useMocks, WORLDNEWS } from "./helpers.js";

const mock = useMocks();

/** Writes `data` on a raw connection and reads until the server closes it (or 5 s pass: `timedOut`). */
function raw(port: number, data: string): Promise<{ text: string; timedOut: boolean; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, timedOut: true, ms: Date.now() - started });
    }, 5000);
    socket.on("data", (d) => (text += d.toString("utf8")));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ text, timedOut: false, ms: Date.now() - started });
    });
    socket.on("error", () => undefined);
    socket.write(data);
  });
}

/** `{"a":{"a":…{"a":1}…}}`, `depth` objects deep. */
const nested = (depth: number): string => '{"a":'.repeat(depth - 1) + '{"a":1' + "}".repeat(depth);

/** Trello's mock with getCard's own mock changed by `change` (to break it, or to make it echo). */
function trelloWithGetCard(change: Partial<NonNullable<MockOperationSpec["mock"]>>): MockDefinition {
  const trello = registeredMock("trello")!;
  const operations = Object.fromEntries(
    Object.entries(trello.operations).map(([id, op]) => [
      id,
      id === "getCard" ? { ...op, mock: { ...op.mock!, ...change } } : op,
    ]),
  );
  return { ...trello, operations } as MockDefinition;
}

describe("deeply nested bodies", () => {
  it(
    "marketo: a lead nesting 100k levels is refused with a badRequest before it is " + "stored; reads keep working",
    async () => {
      const m = await mock("marketo");
      const headers = { ...(await marketoAuth(m.url)), "content-type": "application/json" };
      const body =
        `{"action":"createOnly","lookupField":"email","input":[{"email":"deep@example.com","deep":` +
        `${nested(100_000)}}]}`;
      const r = await call(m.url, "/rest/v1/leads.json", { method: "POST", headers, body });
      expect(r.status).toBe(200); // Marketo answers errors with 200 and success: false
      expect(r.json).toMatchObject({
        success: false,
        errors: [{ code: "1003", message: "Invalid value for body: the body nests deeper than 64 levels" }],
      });
      expect(m.records("lead").some((l) => l.email === "deep@example.com")).toBe(false);
      expect(
        (await call(m.url, "/rest/v1/leads.json?filterType=email&filterValues=deep@example.com", { headers })).json,
      ).toMatchObject({ success: true, result: [] });
      expect((await call(m.url, "/__mock/state")).status).toBe(200);
    },
  );

  it("trello: 2000 levels in a card body answer 400, not 500; 64 levels are accepted", async () => {
    const m = await mock("trello");
    const deep = await call(m.url, `/1/cards?${TRELLO_AUTH}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"idList":"${LIST}","name":"deep","desc":"[[[{","x":${nested(2000)}}`,
    });
    expect(deep.status).toBe(400);
    expect(deep.text).toBe("invalid value for body");
    // Brackets inside strings do not count; the body itself is one level.
    const ok = await call(m.url, `/1/cards?${TRELLO_AUTH}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"idList":"${LIST}","name":"[[[{\\"","x":${nested(63)}}`,
    });
    expect(ok.status).toBe(200);
    expect(m.records("card").map((c) => c.name)).not.toContain("deep");
  });
});

describe("values with their own toString", () => {
  const POISON = { toString: null };

  it(
    "marketo: a lookup value or a stored field like {toString: null} is data, not a 500; " +
      "later filters keep working",
    async () => {
      const m = await mock("marketo");
      const headers = await marketoAuth(m.url);
      const sync = (input: unknown[]) =>
        call(m.url, "/rest/v1/leads.json", {
          method: "POST",
          headers,
          json: { action: "createOrUpdate", lookupField: "custom", input },
        });
      const first = await sync([{ custom: POISON, email: "poison@example.com" }]);
      expect(first.status).toBe(200);
      expect(first.json).toMatchObject({ success: true, result: [{ status: "created" }] });
      // The same object value finds the same lead.
      expect((await sync([{ custom: POISON, firstName: "Again" }])).json).toMatchObject({
        success: true,
        result: [{ id: first.json.result[0].id, status: "updated" }],
      });
      const filtered = await call(m.url, "/rest/v1/leads.json?filterType=custom&filterValues=a", { headers });
      expect(filtered.status).toBe(200);
      expect(filtered.json).toMatchObject({ success: true, result: [] });
    },
  );

  it(
    "trello: a card with an object idCard is created and announced to a webhook, and can " + "be changed and deleted",
    async () => {
      const m = await mock("trello", { webhooks: { retryDelaysMs: [] } });
      // A registration from a state file: its callback is never answered (port 9 on loopback is closed).
      const state = {
        records: {
          webhook: [
            { id: "5f0000000000000000000001", idModel: LIST, callbackURL: "http://127.0.0.1:9/hook", active: true },
          ],
        },
      };
      const watched = await mock("trello", { data: { state }, webhooks: { retryDelaysMs: [] } });
      for (const mk of [m, watched]) {
        const card = await call(mk.url, `/1/cards?${TRELLO_AUTH}`, {
          method: "POST",
          json: { idList: LIST, name: "odd", idCard: POISON },
        });
        expect(card.status).toBe(200);
        expect(
          (await call(mk.url, `/1/cards/${card.json.id}?${TRELLO_AUTH}`, { method: "PUT", json: { name: "renamed" } }))
            .status,
        ).toBe(200);
        expect((await call(mk.url, `/1/cards/${card.json.id}?${TRELLO_AUTH}`, { method: "DELETE" })).status).toBe(200);
      }
    },
  );

  it(
    "trello: a stored position like {toString: null} (from a state file) does not break " + "the list's order",
    async () => {
      const state = {
        records: { card: [{ id: "5f0000000000000000000002", idList: LIST, name: "odd pos", pos: POISON }] },
      };
      const m = await mock("trello", { data: { state } });
      const cards = await call(m.url, `/1/lists/${LIST}/cards?${TRELLO_AUTH}`);
      expect(cards.status).toBe(200);
      expect(cards.json.map((c: { name: string }) => c.name)).toContain("odd pos");
    },
  );
});

describe("request body size", () => {
  const head = (lines: string[]) =>
    [
      `POST /1/cards?${TRELLO_AUTH} HTTP/1.1`,
      "Host: 127.0.0.1",
      "Content-Type: application/json",
      ...lines,
      "",
      "",
    ].join("\r\n");

  it(
    "a declared length over the cap is answered 413 at once, without reading the body, " + "and the connection closed",
    async () => {
      const m = await mock("trello");
      // 20 MiB declared, none of it sent: the answer cannot wait for the body.
      const r = await raw(m.port, head(["Content-Length: 20971520"]));
      expect(r.timedOut).toBe(false);
      expect(r.text).toMatch(/^HTTP\/1\.1 413 /);
      expect(r.text.toLowerCase()).toContain("connection: close");
      expect(r.text).toContain('{"error":"request body larger than 10485760 bytes"}');
      expect(m.records("card").length).toBe((await mock("trello")).records("card").length);
    },
  );

  it("a chunked body is counted as it arrives; a body within the cap is served", async () => {
    const m = await mock("trello", { server: { maxBodyBytes: 1024 } });
    const chunk = `{"idList":"${LIST}","name":"${"x".repeat(2000)}"}`;
    const r = await raw(m.port, head(["Transfer-Encoding: chunked"]) + `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    expect(r.timedOut).toBe(false);
    expect(r.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(r.text).toContain('{"error":"request body larger than 1024 bytes"}');
    expect(m.records("card").some((c) => String(c.name).startsWith("xxx"))).toBe(false);
    const small = await call(m.url, `/1/cards?${TRELLO_AUTH}`, {
      method: "POST",
      json: { idList: LIST, name: "small" },
    });
    expect(small.status).toBe(200);
  });

  it(
    "a spec's tooLarge answer gives the 413 the service's shape; a cap that is not a " + "positive number is refused",
    async () => {
      const trello = registeredMock("trello")!;
      const definition: MockDefinition = {
        ...trello,
        mock: {
          ...trello.mock,
          answers: {
            ...trello.mock.answers,
            tooLarge: { status: 413, message: "request entity too large (over {limit} bytes)" },
          },
        },
      };
      const m = await mock(definition, { server: { maxBodyBytes: 100 } });
      const r = await raw(m.port, head(["Content-Length: 101"]));
      expect(r.text).toMatch(/^HTTP\/1\.1 413 /);
      expect(r.text.endsWith("\r\n\r\nrequest entity too large (over 100 bytes)")).toBe(true);
      await expect(startMock("trello", { server: { maxBodyBytes: 0 } })).rejects.toThrow(
        "maxBodyBytes must be a positive whole number of bytes",
      );
    },
  );
});

describe("query parameters are read one way", () => {
  const search = async (url: string, query: string) =>
    call(url, `/search-news?text=electric&${query}`, { headers: { "x-api-key": WORLDNEWS.apiKey } });

  it("worldnews: a single-valued parameter given twice is a badRequest naming it", async () => {
    const m = await mock("worldnews", { limits: { off: true } });
    // The checks saw the last offset (0), the paging used the first (over the 10000 maximum).
    const twice = await search(m.url, "offset=100000000&offset=0");
    expect(twice.status).toBe(400);
    expect(JSON.stringify(twice.json)).toContain("offset is given more than once");
    expect((await search(m.url, "offset=0&offset=0")).status).toBe(400);
    expect((await search(m.url, "offset=0")).status).toBe(200);
  });

  it("worldnews: the number the checks read is the number the paging uses", async () => {
    const m = await mock("worldnews", { limits: { off: true } });
    const exp = await search(m.url, "offset=1e3");
    expect(exp.status).toBe(200);
    expect(exp.json.offset).toBe(1000);
    for (const odd of ["offset=0x10", "offset=Infinity", "offset=12abc", "number=0b11"])
      expect((await search(m.url, odd)).status, odd).toBe(400);
    expect((await search(m.url, "offset=2&number=3")).json).toMatchObject({ offset: 2, number: 3 });
  });
});

describe("__proto__ keys in upserted records", () => {
  const upsertBody = (input: string) => `{"action":"createOrUpdate","lookupField":"email","input":[${input}]}`;

  it("marketo: an update with a __proto__ key leaves the stored lead's prototype alone", async () => {
    // The engine itself, to look at the stored record: copies handed out (records(), JSON) lose prototypes.
    const engine = new MockEngine(registeredMock("marketo")!);
    const send = async (method: string, url: string, body = "", headers: Record<string, string> = {}) => {
      const outcome = (await engine.handle({
        method,
        url,
        headers: { "content-type": "application/json", ...headers },
        body: Buffer.from(body),
      })) as Extract<Outcome, { reply: unknown }>;
      return JSON.parse(outcome.reply.body.toString("utf8"));
    };
    const token = (
      await send(
        "GET",
        `/identity/oauth/token?grant_type=client_credentials&client_id=${MARKETO.clientId}&client_secret=` +
          `${MARKETO.clientSecret}`,
      )
    ).access_token;
    const auth = { authorization: `Bearer ${token}` };
    const created = await send("POST", "/rest/v1/leads.json", upsertBody('{"email":"proto@example.com"}'), auth);
    const updated = await send(
      "POST",
      "/rest/v1/leads.json",
      upsertBody('{"email":"proto@example.com","__proto__":{"polluted":true},"constructor":{"x":1},"lastName":"P"}'),
      auth,
    );
    expect(updated).toMatchObject({ success: true, result: [{ id: created.result[0].id, status: "updated" }] });
    const lead = [...engine.store.table("lead").values()].find((l) => l.email === "proto@example.com")!;
    expect(Object.getPrototypeOf(lead)).toBe(Object.prototype);
    expect((lead as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(lead)).not.toContain("constructor");
    expect(lead.lastName).toBe("P");
    await engine.close();
  });

  it("marketo: a created lead does not keep a __proto__ key", async () => {
    const m = await mock("marketo");
    const headers = { ...(await marketoAuth(m.url)), "content-type": "application/json" };
    const r = await call(m.url, "/rest/v1/leads.json", {
      method: "POST",
      headers,
      body: upsertBody('{"email":"proto2@example.com","__proto__":{"polluted":true}}'),
    });
    expect(r.json).toMatchObject({ success: true, result: [{ status: "created" }] });
    const lead = m.records("lead").find((l) => l.email === "proto2@example.com")!;
    expect(Object.hasOwn(lead, "__proto__")).toBe(false);
    expect((await call(m.url, "/__mock/state")).text).not.toContain("polluted");
  });
});

describe("the mock's own failures", () => {
  const SECRET_DETAIL = "internal-detail-7f3a";
  const failures: string[] = [];
  const onFailure = (error: unknown, request: { method: string; path: string }) =>
    void failures.push(`${request.method} ${request.path} ${(error as Error).message}`);

  it(
    "marketo: a throw answers 500 in the service's JSON error body, without the " +
      "exception's text, and tells onFailure",
    async () => {
      failures.length = 0;
      let mode: "throw" | "reject" = "throw";
      const m = await mock("marketo", {
        hooks: {
          onFailure,
          beforeRespond: (info) => {
            if (info.operationId !== "getLeads") return;
            if (mode === "throw") throw new Error(SECRET_DETAIL);
            return Promise.reject(new Error(SECRET_DETAIL));
          },
        },
      });
      const headers = await marketoAuth(m.url);
      for (const next of ["throw", "reject"] as const) {
        mode = next;
        const r = await call(m.url, "/rest/v1/leads.json?filterType=email&filterValues=a@example.com", { headers });
        expect(r.status, next).toBe(500);
        expect(r.type).toBe("application/json");
        expect(r.json).toMatchObject({ success: false, errors: [{ message: "internal error" }] });
        expect(r.text).not.toContain(SECRET_DETAIL);
        expect(r.text).not.toContain("Bad Gateway");
      }
      // Reported without the query (it may hold credentials); the ticket went back each time.
      expect(failures).toEqual([
        `GET /rest/v1/leads.json ${SECRET_DETAIL}`,
        `GET /rest/v1/leads.json ${SECRET_DETAIL}`,
      ]);
      expect(m.counters().inFlight).toBe(0);
    },
  );

  it("trello: a throw inside an action answers the service's own 500 text", async () => {
    failures.length = 0;
    // An operation whose action cannot run (a read without a resource) stands in for a bug in the mock.
    const m = await mock(trelloWithGetCard({ resource: undefined }), { hooks: { onFailure } });
    const r = await call(m.url, `/1/cards/6123a9f0c4b5d6e7f8091a2b?${TRELLO_AUTH}`);
    expect([r.status, r.text]).toEqual([500, "Internal Server Error"]);
    expect(failures).toEqual(["GET /1/cards/6123a9f0c4b5d6e7f8091a2b getCard: action read needs a resource"]);
  });
});

describe("control routes and state files name resources by own keys", () => {
  it(
    "/__mock/records/<name> of an Object.prototype member is an unknown route; a state " + "file naming one is refused",
    async () => {
      const m = await mock("trello");
      expect((await call(m.url, "/__mock/records/card")).status).toBe(200);
      for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
        const r = await call(m.url, `/__mock/records/${name}`);
        expect(r.status, name).toBe(404);
        expect(r.json.error).toBe("unknown mock control route");
      }
      await expect(
        startMock("trello", { data: { state: { records: JSON.parse('{"constructor": []}') } } }),
      ).rejects.toThrow('unknown resource "constructor"');
    },
  );
});

describe("a body that is not an object", () => {
  it("trello: an array, string, number or null body is a badRequest naming the body", async () => {
    const m = await mock("trello");
    for (const body of ["[]", '"text"', "null", "7"]) {
      const r = await call(m.url, `/1/cards?${TRELLO_AUTH}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect([r.status, r.text], body).toEqual([400, "invalid value for body"]);
    }
  });
});

describe("query keys named like Object.prototype members", () => {
  it("reach templates as the values sent", async () => {
    // getCard answering with its query: the spec has no parameter of these names, so a template stands in.
    const echo = { c: "{query.constructor}", t: "{query.toString}", p: "{query.__proto__}", v: "{query.valueOf}" };
    const m = await mock(trelloWithGetCard({ respond: echo }));
    const r = await call(
      m.url,
      `/1/cards/6123a9f0c4b5d6e7f8091a2b?${TRELLO_AUTH}&constructor=a&toString=b&__proto__=c&valueOf=d&valueOf=e`,
    );
    expect([r.status, r.json]).toEqual([200, { c: "a", t: "b", p: "c", v: "d,e" }]);
  });
});

describe("HEAD", () => {
  it(
    "trello: HEAD on a GET route answers as GET does, without the body; elsewhere it is " + "an unknown route",
    async () => {
      const m = await mock("trello");
      const get = await call(m.url, `/1/cards/6123a9f0c4b5d6e7f8091a2b?${TRELLO_AUTH}`);
      const head = await call(m.url, `/1/cards/6123a9f0c4b5d6e7f8091a2b?${TRELLO_AUTH}`, { method: "HEAD" });
      expect([head.status, head.text, head.headers.get("content-length"), head.type]).toEqual([
        200,
        "",
        String(Buffer.byteLength(get.text)),
        get.type,
      ]);
      expect((await call(m.url, `/1/nosuch?${TRELLO_AUTH}`, { method: "HEAD" })).status).toBe(404);
      expect((await call(m.url, `/1/cards/6123a9f0c4b5d6e7f8091a2b`, { method: "HEAD" })).status).toBe(401);
    },
  );
});

describe("token endpoints answer their own method only", () => {
  it("marketo's GET and contentsnare's POST; any other method is the service's unknown route", async () => {
    const marketo = await mock("marketo");
    const query = `grant_type=client_credentials&client_id=${MARKETO.clientId}&client_secret=${MARKETO.clientSecret}`;
    expect((await call(marketo.url, `/identity/oauth/token?${query}`)).json.access_token).toBeTruthy();
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const r = await call(marketo.url, `/identity/oauth/token?${query}`, { method });
      expect(r.json, method).toMatchObject({ success: false, errors: [{ code: "610" }] });
    }
    expect(marketo.counters().tokensIssued).toBe(1);

    const snare = await mock("contentsnare");
    const body = { grant_type: "refresh_token", refresh_token: "nope", client_id: "x", client_secret: "y" };
    // refused, but by the token endpoint
    expect((await call(snare.url, "/oauth/token", { method: "POST", json: body })).status).toBe(400);
    for (const method of ["GET", "PUT", "DELETE"])
      expect((await call(snare.url, `/oauth/token?grant_type=client_credentials`, { method })).status, method).toBe(
        404,
      );
  });
});
