/**
 * Servers at path and operation level: the most specific one wins (operation, then path, then the
 * document's), carried in the descriptor and followed by the client; on the declared host it
 * follows the base address actually used (here a loopback override), so the path prefix is what
 * tells where each call went.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceClient, createSharedState } from "../../../runtime/index.js";
import { json, loopback, type Loopback } from "../../tools/helpers.js";
import { clientOf, modelOf, ok, plainSpec } from "./helpers.js";

let server: Loopback;
beforeAll(async () => {
  server = await loopback((_req, res) => json(res, 200, {}));
});
afterAll(() => server.close());

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
});
