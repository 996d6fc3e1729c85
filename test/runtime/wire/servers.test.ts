/**
 * Servers at path and operation level: the most specific one wins (operation, then path, then the
 * document's), carried in the descriptor and followed by the client; on the declared host it
 * follows the base address actually used (here a loopback override), so the path prefix is what
 * tells where each call went.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceClient, createSharedState } from "../../../runtime/index.js";
import { startMock } from "../../../runtime/mock/index.js";
import { json, loopback, type Loopback } from "../../tools/helpers.js";
import { clientOf, modelOf, ok, plainSpec } from "./helpers.js";

let server: Loopback;
beforeAll(async () => {
  server = await loopback((_req, res) => json(res, 200, {}));
});
afterAll(() => server.close());

const idParam = { name: "id", in: "path", required: true, schema: { type: "string" } };

const spec = plainSpec({
  servers: [{ url: "https://api.example.com/v1" }],
  paths: {
    "/plain": { get: { operationId: "plain", responses: ok } },
    "/files": {
      servers: [{ url: "https://api.example.com/v2" }],
      get: { operationId: "listFiles", responses: ok },
      post: {
        operationId: "uploadFile",
        servers: [{ url: "https://api.example.com/{area}", variables: { area: { default: "upload" } } }],
        responses: ok,
      },
    },
    "/jobs": { get: { operationId: "listJobs", servers: [{ url: "/batch" }], responses: ok } },
  },
});

describe("servers at path and operation level", () => {
  it("the descriptor carries each operation's own server", () => {
    const ops = modelOf(spec).descriptor.operations;
    expect(ops.plain!.server).toBeUndefined();
    expect(ops.listFiles!.server).toBe("https://api.example.com/v2");
    expect(ops.uploadFile!.server).toBe("https://api.example.com/upload");
    expect(ops.listJobs!.server).toBe("/batch");
  });

  it("the client sends each call to the most specific server", async () => {
    const client = clientOf(spec, `${server.url}/v1`);
    const pathOf = async (op: string) => {
      await client.call(op);
      return server.received.at(-1)!.url.pathname;
    };
    expect(await pathOf("plain")).toBe("/v1/plain");
    expect(await pathOf("listFiles")).toBe("/v2/files");
    expect(await pathOf("uploadFile")).toBe("/upload/files");
    expect(await pathOf("listJobs")).toBe("/batch/jobs");
  });

  it("a server on another host is used as declared, and only over https", async () => {
    const other = plainSpec({
      paths: { "/x": { get: { operationId: "x", servers: [{ url: "http://files.example.com" }], responses: ok } } },
    });
    const descriptor = modelOf(other).descriptor;
    const client = createServiceClient(descriptor, {
      connection: { name: "t", fields: {} },
      shared: createSharedState(),
    });
    await expect(client.call("x")).rejects.toThrow(/http:\/\/files\.example\.com\/ is not https/);
  });

  it("pointed at the spec's mock (the baseUrl override), every call reaches the mock", async () => {
    // Box declares uploads on upload.box.com beside api.box.com/2.0: a client pointed at a mock sent
    // those to the real host (DNS, TLS, the credential) and the mock never saw them.
    const boxLike = plainSpec({
      servers: [{ url: "https://api.box.example/2.0" }],
      paths: {
        "/files/{id}": { get: { operationId: "getFile", parameters: [idParam], responses: ok } },
        "/files/content": {
          post: { operationId: "uploadFile", servers: [{ url: "https://upload.box.example/api/2.0" }], responses: ok },
        },
        "/users/me": { get: { operationId: "me", servers: [{ url: "https://api.box.example/2.0" }], responses: ok } },
        "/oauth2/token": {
          post: { operationId: "token", servers: [{ url: "https://api.box.example" }], responses: ok },
        },
      },
    });
    const model = modelOf(boxLike);
    const operations = Object.fromEntries(model.operations.map((op) => [op.operationId, op.mock]));
    const mock = await startMock({ descriptor: model.descriptor, mock: model.mock, operations, components: {} });
    try {
      const client = createServiceClient(model.descriptor, {
        connection: { name: "t", fields: {} },
        baseUrl: mock.url,
        shared: createSharedState(),
      });
      for (const op of ["uploadFile", "me", "token"]) await client.call(op);
      expect(mock.counters().byOperation).toMatchObject({ uploadFile: 1, me: 1, token: 1 });
    } finally {
      await mock.close();
    }
  });
});
