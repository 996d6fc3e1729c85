/**
 * Parameter serialisation as OpenAPI defines it (style, explode, content), in the query, the path
 * and headers: each parameter declared in a plain spec, checked in-process, called through the
 * client, and read back from the raw request line and headers the loopback server received.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, loopback, type Loopback } from "../../tools/helpers.js";
import { clientOf, ok, plainSpec } from "./helpers.js";

let server: Loopback;
beforeAll(async () => {
  server = await loopback((_req, res) => json(res, 200, {}));
});
afterAll(() => server.close());

const obj = { type: "object", properties: { x: { type: "integer" }, y: { type: "integer" } } };
const arr = { type: "array", items: { type: "string" } };
const q = (name: string, schema: unknown, extra: object = {}) => ({ name, in: "query", schema, ...extra });
const spec = plainSpec({
  paths: {
    "/search": {
      get: {
        operationId: "search",
        parameters: [
          q("point", obj),
          q("box", obj, { explode: false }),
          q("ids", arr, { style: "spaceDelimited", explode: false }),
          q("tags", arr, { style: "pipeDelimited", explode: false }),
          q("csv", arr, { explode: false }),
          q("filter", obj, { style: "deepObject", explode: true }),
          { name: "where", in: "query", content: { "application/json": { schema: obj } } },
          q("list", arr),
          { name: "X-Ids", in: "header", schema: arr },
          { name: "X-Obj", in: "header", schema: obj },
          { name: "X-Exploded", in: "header", schema: obj, explode: true },
          { name: "X-Json", in: "header", content: { "application/json": { schema: obj } } },
        ],
        responses: ok,
      },
    },
    "/simple/{a}/{o}/label{l}/matrix{m}/{j}": {
      get: {
        operationId: "styles",
        parameters: [
          { name: "a", in: "path", required: true, schema: arr },
          { name: "o", in: "path", required: true, schema: obj, explode: true },
          { name: "l", in: "path", required: true, schema: arr, style: "label" },
          { name: "m", in: "path", required: true, schema: arr, style: "matrix", explode: true },
          { name: "j", in: "path", required: true, content: { "application/json": { schema: obj } } },
        ],
        responses: ok,
      },
    },
  },
});
const client = () => clientOf(spec, server.url);
const rawQuery = () => server.received.at(-1)!.url.search.slice(1).split("&");

describe("query parameters", () => {
  it("form, exploded object: each property its own pair (x=1&y=2), not point[x]=1", async () => {
    await client().call("search", { params: { query: { point: { x: 1, y: 2 } } } });
    expect(rawQuery()).toEqual(["x=1", "y=2"]);
  });

  it("form, explode false object: point=x,1,y,2", async () => {
    await client().call("search", { params: { query: { box: { x: 1, y: 2 } } } });
    expect(rawQuery()).toEqual(["box=x,1,y,2"]);
  });

  it("spaceDelimited, pipeDelimited and form explode false arrays", async () => {
    await client().call("search", { params: { query: { ids: ["a", "b"], tags: ["c", "d"], csv: ["e", "f"] } } });
    expect(rawQuery()).toEqual(["ids=a%20b", "tags=c|d", "csv=e,f"]);
  });

  it("deepObject: filter[x]=1", async () => {
    await client().call("search", { params: { query: { filter: { x: 1, y: 2 } } } });
    expect(rawQuery()).toEqual(["filter[x]=1", "filter[y]=2"]);
  });

  it("content application/json: the value JSON-encoded", async () => {
    await client().call("search", { params: { query: { where: { x: 1 } } } });
    expect(server.received.at(-1)!.url.searchParams.get("where")).toBe('{"x":1}');
  });

  it("form exploded array: the key repeated", async () => {
    await client().call("search", { params: { query: { list: ["a", "b"] } } });
    expect(rawQuery()).toEqual(["list=a", "list=b"]);
  });
});

describe("header parameters (simple style)", () => {
  it("arrays comma-joined, objects by explode, content JSON-encoded", async () => {
    const header = { "X-Ids": ["a", "b"], "X-Obj": { x: 1, y: 2 }, "X-Exploded": { x: 1, y: 2 }, "X-Json": { x: 1 } };
    await client().call("search", { params: { header } });
    const headers = server.received.at(-1)!.headers;
    expect(headers["x-ids"]).toBe("a,b");
    expect(headers["x-obj"]).toBe("x,1,y,2");
    expect(headers["x-exploded"]).toBe("x=1,y=2");
    expect(headers["x-json"]).toBe('{"x":1}');
  });
});

describe("path parameters", () => {
  it("simple, label, matrix and content JSON", async () => {
    const path = { a: ["p", "q"], o: { x: 1, y: 2 }, l: ["r", "s"], m: ["t", "u"], j: { x: 1 } };
    await client().call("styles", { params: { path } });
    const sent = server.received.at(-1)!.url.pathname;
    expect(sent).toBe(`/simple/p,q/x=1,y=2/label.r,s/matrix;m=t;m=u/${encodeURIComponent('{"x":1}')}`);
  });
});
