/**
 * Request bodies the spec gives no JSON media type: the generator records the media type in the
 * descriptor (requestMediaType) and the client sends form bodies as form fields and octet-stream
 * bodies as the bytes given, each with its Content-Type, to a loopback server that records them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { checkSpec } from "../../generator/check/index.js";
import { loadSpecText } from "../../generator/load.js";
import { createServiceClient, createSharedState } from "../../runtime/index.js";
import { json, loopback, type Loopback } from "../tools/helpers.js";

const body = (type: string, schema: unknown) => ({ required: true, content: { [type]: { schema } } });
const done = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };
const spec = {
  openapi: "3.0.3",
  info: { title: "Bodies", version: "1" },
  servers: [{ url: "https://api.example.com" }],
  paths: {
    "/form": {
      post: {
        operationId: "submitForm",
        requestBody: body("application/x-www-form-urlencoded", {
          type: "object",
          properties: { user: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
        }),
        responses: done,
      },
    },
    "/raw": {
      put: {
        operationId: "putRaw",
        requestBody: body("application/octet-stream", { type: "string", format: "binary" }),
        responses: done,
      },
    },
    "/upload": {
      post: { operationId: "upload", requestBody: body("multipart/form-data", { type: "object" }), responses: done },
    },
  },
};

let server: Loopback;
beforeAll(async () => {
  server = await loopback((_req, res) => json(res, 200, {}));
});
afterAll(() => server.close());

const model = checkSpec(loadSpecText("bodies.yaml", stringify(spec)));
const client = () =>
  createServiceClient(model.descriptor, {
    connection: { name: "t", fields: {} },
    baseUrl: server.url,
    shared: createSharedState(),
  });

describe("request bodies that are not JSON", () => {
  it("records the media type in the descriptor", () => {
    expect(Object.values(model.descriptor.operations).map((o) => o.requestMediaType)).toEqual([
      "application/x-www-form-urlencoded",
      "application/octet-stream",
      "multipart/form-data",
    ]);
  });

  it("sends a form body as form fields, arrays repeating the key", async () => {
    await client().call("submitForm", { body: { user: "a b&c", tags: ["x", "y"], skipped: undefined } });
    const sent = server.received.at(-1)!;
    expect(sent.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(sent.body).toBe("user=a+b%26c&tags=x&tags=y");
  });

  it("sends an octet-stream body as the bytes given (string, Uint8Array, ArrayBuffer, Blob)", async () => {
    const bytes = new TextEncoder().encode("raw\u0001bytes");
    for (const given of ["raw\u0001bytes", bytes, bytes.buffer, new Blob([bytes])]) {
      await client().call("putRaw", { body: given });
      const sent = server.received.at(-1)!;
      expect(sent.headers["content-type"]).toBe("application/octet-stream");
      expect(sent.body).toBe("raw\u0001bytes");
    }
  });

  it("a Content-Type the call sets wins; a multipart body is sent as parts", async () => {
    await client().call("putRaw", { body: "x", headers: { "Content-Type": "image/png" } });
    expect(server.received.at(-1)!.headers["content-type"]).toBe("image/png");
    await client().call("upload", { body: { a: 1 } });
    expect(server.received.at(-1)!.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(server.received.at(-1)!.body).toContain('name="a"\r\n\r\n1\r\n');
  });
});
