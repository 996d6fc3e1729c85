/**
 * Two operations on one route shape (`/boards/{idBoard}/cards/{filter}` beside `.../{idCard}`, as
 * APIs.guru's Trello copy declares): the mock's router tells them apart by the parameter's schema
 * (an enum before a pattern before a number before any text), and only routes no schema tells
 * apart are SF193 — an error when strict, a warning when lenient, with the mock answering both
 * with the earlier operation. Each spec is checked in process and its mock started on 127.0.0.1.
 */
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { checkSpec } from "../../generator/check/index.js";
import { SpecError } from "../../generator/diagnostics.js";
import { loadSpecText } from "../../generator/load.js";
import { startMock } from "../../runtime/mock/index.js";
import { RouteConflict, Router } from "../../runtime/mock/router.js";
import { segmentKind } from "../../runtime/mock/segments.js";

const ok = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };
const param = (name: string, schema: unknown) => ({ name, in: "path", required: true, schema });
const get = (operationId: string, ...parameters: unknown[]) => ({ get: { operationId, parameters, responses: ok } });

function spec(paths: Record<string, unknown>) {
  return { openapi: "3.0.3", info: { title: "Routes", version: "1" }, servers: [{ url: "https://x.test" }], paths };
}

const check = (paths: Record<string, unknown>, strict = false) =>
  checkSpec(loadSpecText("routes.yaml", stringify(spec(paths))), { strict });

/** Which operation the started mock routed each path to. */
async function routed(paths: Record<string, unknown>, requests: string[]): Promise<string[]> {
  const model = check(paths);
  const operations = Object.fromEntries(model.operations.map((op) => [op.operationId, op.mock]));
  const mock = await startMock({ descriptor: model.descriptor, mock: model.mock, operations, components: {} });
  try {
    const seen: string[] = [];
    for (const path of requests) {
      const before = mock.counters().byOperation;
      await (await fetch(mock.url + path)).arrayBuffer();
      const after = mock.counters().byOperation;
      seen.push(Object.keys(after).find((id) => after[id] !== before[id]) ?? "no route");
    }
    return seen;
  } finally {
    await mock.close();
  }
}

describe("the mock's router reads path parameters' schemas", () => {
  it("tells an enum segment from a plain string, and a number from a string, whichever comes first", async () => {
    const paths = {
      "/boards/{idBoard}/cards/{idCard}": get("getCard", param("idBoard", {}), param("idCard", { type: "string" })),
      "/boards/{idBoard}/cards/{filter}": get(
        "listCards",
        param("idBoard", {}),
        param("filter", { type: "string", enum: ["all", "open", "closed"] }),
      ),
      "/items/{name}": get("itemByName", param("name", { type: "string" })),
      "/items/{number}": get("itemByNumber", param("number", { type: "integer" })),
    };
    expect(check(paths).warnings.map((w) => w.code)).not.toContain("SF193");
    expect(
      await routed(paths, ["/boards/b1/cards/open", "/boards/b1/cards/6123a9f0", "/items/42", "/items/forty-two"]),
    ).toEqual(["listCards", "getCard", "itemByNumber", "itemByName"]);
  });

  it("answers two routes no schema tells apart with the earlier one (lenient, SF193 warning)", async () => {
    const paths = {
      "/boards/{idBoard}/cards/{filter}": get("listCards", param("idBoard", {}), param("filter", { type: "string" })),
      "/boards/{idBoard}/cards/{idCard}": get("getCard", param("idBoard", {}), param("idCard", { type: "string" })),
    };
    const warning = check(paths).warnings.find((w) => w.code === "SF193");
    expect(warning?.message).toMatch(/getCard .* and listCards .*the mock answers both with listCards/);
    expect(await routed(paths, ["/boards/b1/cards/open", "/boards/b1/cards/abc"])).toEqual(["listCards", "listCards"]);
    let refused: unknown;
    try {
      check(paths, true);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(SpecError);
    expect(String((refused as Error).message)).toMatch(/SF193.*getCard.*listCards.*`enum`, a `pattern` or a `format`/s);
  });

  it("throws a RouteConflict naming both values for a hand-written definition", () => {
    const router = new Router<string>();
    router.add("GET", "/a/{x}", "first", String, new Map([["x", segmentKind({ pattern: "^[0-9a-f]{24}$" })]]));
    router.add("GET", "/a/{y}", "second");
    expect(router.match("GET", "/a/6123a9f0c4b5d6e7f8091a2b")?.value).toBe("first");
    expect(router.match("GET", "/a/open")?.value).toBe("second");
    expect(() => router.add("GET", "/a/{z}", "third")).toThrow(RouteConflict);
    expect(() => router.add("GET", "/a/{z}", "third")).toThrow(/second and third cannot be told apart/);
  });
});
