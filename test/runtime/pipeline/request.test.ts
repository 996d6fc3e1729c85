/**
 * Request building (runtime/client/request.ts): the address, headers and body of one call, built
 * once from the operation descriptor and the call's params and body, before any credential.
 */
import { describe, expect, it } from "vitest";
import { adHocOperation, type BuilderWire, RequestBuilder } from "../../../runtime/client/request.js";
import { declaredWire } from "../../../runtime/client/wire.js";
import type { OperationDescriptor } from "../../../runtime/index.js";

const BASE = "https://api.board.example";
/** The declared wire formats (wire.ts), as a client whose spec declares them builds them. */
const WIRE: BuilderWire = { ...declaredWire, serverBase: (server) => server };
const get = (path: string, extra: Partial<OperationDescriptor> = {}): OperationDescriptor => ({
  operationId: "op",
  method: "GET",
  path,
  idempotent: true,
  limitClass: "read",
  ...extra,
});

describe("RequestBuilder.build", () => {
  it("fills the path, encodes every value, and serialises the query", () => {
    const request = new RequestBuilder(BASE).build(get("/1/boards/{id}/cards"), {
      params: { path: { id: "a/b c" }, query: { filter: "open", fields: ["name", "idList"], skip: undefined } },
    });
    expect(request.method).toBe("GET");
    expect(request.url).toBe(`${BASE}/1/boards/a%2Fb%20c/cards?filter=open&fields=name&fields=idList`);
    expect(request.pathValues).toEqual({ id: "a/b c" });
  });

  it("sends explode:false arrays as one delimited value, by style", () => {
    const op = get("/leads", {
      serialization: { query: { ids: { explode: false }, tags: { style: "pipeDelimited" } } },
    });
    const request = new RequestBuilder(BASE, WIRE).build(op, {
      params: { query: { ids: [1, 2], tags: ["a", "b"], other: ["x", "y"] } },
    });
    expect(request.url).toBe(`${BASE}/leads?ids=1,2&tags=a|b&other=x&other=y`);
  });

  it("builds no Headers at all for a call that sends none (the credentials part adds its own)", () => {
    expect(new RequestBuilder(BASE).build(get("/x"), {}).headers).toBeUndefined();
  });

  it("gives a JSON body its content type, keeps the caller's headers, and serialises the body once", () => {
    const post = get("/cards", { method: "POST", idempotent: false, limitClass: "write" });
    const request = new RequestBuilder(BASE).build(post, {
      body: { name: "Card" },
      headers: { "X-Trace": "t1" },
      params: { header: { "X-Tenant": "acme" } },
    });
    expect(request.body).toBe('{"name":"Card"}');
    expect(Object.fromEntries(request.headers!)).toEqual({
      "content-type": "application/json",
      "x-trace": "t1",
      "x-tenant": "acme",
    });
  });

  it("sends a form body as form fields when the operation declares that media type", () => {
    const form = get("/submit", { method: "POST", requestMediaType: "application/x-www-form-urlencoded" });
    const request = new RequestBuilder(BASE, WIRE).build(form, { body: { user: "a b", tags: ["x", "y"], none: null } });
    expect(request.body).toBe("user=a+b&tags=x&tags=y");
    expect(request.headers!.get("content-type")).toBe("application/x-www-form-urlencoded");
  });
});

describe("RequestBuilder.unsafePathValue", () => {
  const builder = new RequestBuilder(BASE);
  const op = get("/1/members/{id}/boards/{idBoard}");

  it("refuses values that would reach another address, naming the parameter", () => {
    expect(builder.unsafePathValue(op, { params: { path: { id: "..", idBoard: "b" } } })).toMatchObject({ name: "id" });
    expect(builder.unsafePathValue(op, { params: { path: { id: "me", idBoard: "%2e%2e" } } })).toMatchObject({
      name: "idBoard",
    });
    expect(builder.unsafePathValue(op, { params: { path: { id: "me" } } })).toMatchObject({
      name: "idBoard",
      problem: "it is missing",
    });
  });

  it("accepts ordinary ids, including ones with spaces or a dot inside", () => {
    expect(
      builder.unsafePathValue(op, { params: { path: { id: "me", idBoard: "6123a9f0c4b5d6e7f8091a2b" } } }),
    ).toBeUndefined();
    expect(builder.unsafePathValue(op, { params: { path: { id: "a.b", idBoard: "x y" } } })).toBeUndefined();
  });
});

describe("adHocOperation", () => {
  it("declares a request to any path: reads are idempotent, POST and PATCH are not", () => {
    expect(adHocOperation("apiCall", "GET", "/1/x")).toEqual({
      operationId: "apiCall",
      method: "GET",
      path: "/1/x",
      idempotent: true,
      limitClass: "read",
    });
    expect(adHocOperation("apiCall", "PUT", "/1/x")).toMatchObject({ idempotent: true, limitClass: "write" });
    expect(adHocOperation("apiCall", "POST", "/1/x")).toMatchObject({ idempotent: false, limitClass: "write" });
    expect(adHocOperation("apiCall", "PATCH", "/1/x")).toMatchObject({ idempotent: false });
  });
});
