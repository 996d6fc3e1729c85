/**
 * Through the generated typed client against the generated mock: a plain spec with bearer auth
 * (issue 20's repro: a connection holding only an access token) and one with an apiKey cookie,
 * each generated as `generate --spec` writes it, its mock started and called.
 */
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSharedState } from "../../../runtime/index.js";
import type { MockOptions, RunningMock } from "../../../runtime/mock/index.js";
import { generateSpec, workDir } from "../../realspecs/helpers.js";
import { plainSpec } from "./helpers.js";

const work = workDir("wire-generated");
afterAll(() => work.clean());

const ping = {
  "/ping": {
    get: {
      operationId: "ping",
      responses: {
        "200": {
          description: "ok",
          content: { "application/json": { schema: { type: "object", properties: { ok: { type: "boolean" } } } } },
        },
      },
    },
  },
};

async function callPing(name: string, scheme: object, fields: Record<string, string>) {
  const spec = { ...plainSpec({ paths: ping, components: { securitySchemes: { s: scheme } }, security: [{ s: [] }] }) };
  spec.info = { title: name, version: "1" };
  const generated = await generateSpec(work.dir, name, spec);
  const load = (module: string) =>
    import(pathToFileURL(join(generated.out, name, `${module}.ts`)).href) as Promise<Record<string, unknown>>;
  const [clientModule, mockModule] = await Promise.all([load("client"), load("mock")]);
  const pascal = name[0]!.toUpperCase() + name.slice(1);
  const start = mockModule[`start${pascal}Mock`] as (options: MockOptions) => Promise<RunningMock>;
  const mock = await start({ limits: { off: true } });
  try {
    const create = clientModule[`create${pascal}Client`] as (options: object) => { ping(): Promise<unknown> };
    const client = create({ connection: { name: "m", fields }, baseUrl: mock.url, shared: createSharedState() });
    return { result: await client.ping(), counters: mock.counters() };
  } finally {
    await mock.close();
  }
}

describe("generated client and mock", () => {
  it("bearer: a connection with only an access token calls (issue 20)", async () => {
    const { result } = await callPing("mini", { type: "http", scheme: "bearer" }, { accessToken: "tok" });
    expect(result).toBeDefined();
  }, 60_000);

  it("apiKey in a cookie: the mock accepts the credential the client sends", async () => {
    const { result } = await callPing("crumb", { type: "apiKey", in: "cookie", name: "SID" }, { apiKey: "key-1" });
    expect(result).toBeDefined();
  }, 60_000);
});
