/**
 * The mock of a foreign spec with shapes real specs use and the mock once refused
 * (test/mock/fixtures/shapes.yaml), generated with `stepforge generate --spec` and served over
 * 127.0.0.1: sibling routes that name one position differently (it would not start), two
 * parameters in one segment (404), response schemas that $ref into #/paths with a cycle (the
 * generator overflowed its stack; the mock answered 500), and OpenAPI 3.0 spellings in a request
 * body (Ajv2020 threw: 500), a required readOnly field, a discriminated oneOf.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useFixtureMock } from "./fixture-mock.js";
import { call } from "./helpers.js";

const root = join(import.meta.dirname, "..", "..");
const out = join(root, "test", "mock", `.shapes-${process.pid}`);
const mockUrl = useFixtureMock("shapes", "shapes", out);

/** GET `path` was routed and answered 200 with an object that has a string `name` (User and File both do). */
async function expectNamedAt(path: string): Promise<void> {
  const answer = await call(mockUrl(), path);
  expect(answer.status, `${path}: ${answer.text}`).toBe(200);
  expect(typeof answer.json.name, path).toBe("string");
}

describe("a generated mock of a spec with real-world shapes", () => {
  it("routes sibling templates that name the same position differently", async () => {
    await expectNamedAt("/users/7");
    // The $ref into #/paths was inlined: the answer has the User shape it names.
    await expectNamedAt("/users/7/posts");
  });

  it("routes two parameters in one segment and checks each against its schema", async () => {
    await expectNamedAt("/files/report.png");
    const bad = await call(mockUrl(), "/files/report.gif");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain("ext");
  });

  it("ships no $ref the mock cannot resolve, and cuts the cycle through #/paths", () => {
    const text = readFileSync(join(out, "shapes", "mock.ts"), "utf8");
    expect(text).not.toContain("#/paths");
    const tools = readFileSync(join(out, "shapes", "tools.ts"), "utf8");
    expect(tools).toContain("recursive; its fields are not listed again");
  });

  it("reads 3.0 spellings, leaves readOnly fields out of requests and accepts a discriminated branch", async () => {
    const add = (json: unknown) => call(mockUrl(), "/pets", { method: "POST", json });
    expect((await add({ pet: { petType: "Dog", bark: true } })).status).toBe(201);
    expect((await add({ pet: { petType: "Cat" }, owner: null, age: 0.5 })).status).toBe(201);
    expect((await add({ pet: { petType: "Cat" }, owner: { name: "Ann" } })).status).toBe(201);
    const zero = await add({ pet: { petType: "Cat" }, age: 0 });
    expect(zero.status).toBe(400);
    expect(JSON.stringify(zero.json)).toContain("age");
    const ownerless = await add({ pet: { petType: "Cat" }, owner: {} });
    expect(ownerless.status).toBe(400);
    expect(JSON.stringify(ownerless.json)).toContain("owner");
    expect((await add({ owner: null })).status).toBe(400);
  });
});
