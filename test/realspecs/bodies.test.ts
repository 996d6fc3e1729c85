/**
 * Request bodies an agent can send: form-urlencoded bodies were left out of tool steps (SF172; one
 * public spec lost the inputs of 467 of 468 operations). Steps now take form fields as fields,
 * multipart file parts as `{ base64 | text, filename?, contentType? }` (capped, with a clear error),
 * raw bytes as base64 and text as text, and hand the client what it sends: an object of fields,
 * FormData, bytes, a string. Form fields go end to end against the mock; what each step puts on
 * the wire is read back from a recording server on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSharedState } from "../../runtime/index.js";
import {
  executeTool,
  MAX_FILE_BYTES,
  type OperationToolDefinition,
  type ToolResult,
} from "../../runtime/tools/index.js";
import { json, loopback, type Loopback } from "../tools/helpers.js";
import { expectInvalidInput, inputSchema, serveSpecForFile } from "./helpers.js";
import { BODIES } from "./specs.js";

const served = serveSpecForFile("bodies", "uploads", BODIES);
let recorder: Loopback;

beforeAll(async () => {
  recorder = await loopback((_req, res) => json(res, 200, { ok: true }));
});
afterAll(async () => {
  await recorder?.close();
});

const tool = (name: string) => served.tools.find((t) => t.name === name) as OperationToolDefinition;
const b64 = (text: string) => Buffer.from(text).toString("base64");

/** Runs a step against the recording server; the request it received. */
async function sent(name: string, input: unknown): Promise<{ result: ToolResult; contentType: string; body: string }> {
  const before = recorder.received.length;
  const context = {
    connection: { name: "t", fields: {} },
    baseUrl: recorder.url,
    shared: createSharedState(),
    retry: { attempts: 0 },
  };
  const result = await executeTool(tool(name), input, context);
  expect(recorder.received.length, JSON.stringify(result)).toBe(before + 1);
  const request = recorder.received.at(-1)!;
  return { result, contentType: String(request.headers["content-type"]), body: request.body };
}

describe("request bodies that are not JSON", () => {
  it("each body becomes inputs: form fields, multipart parts with files, base64 bytes, text", () => {
    const fields = (name: string) => Object.keys(inputSchema(tool(name)).properties);
    expect(fields("uploads_add_pet")).toEqual(["name", "age", "tags"]);
    expect(inputSchema(tool("uploads_add_pet")).required).toEqual(["name"]);
    expect(fields("uploads_upload_photo")).toEqual(["caption", "photo", "thumbs", "meta"]);
    const photo = inputSchema(tool("uploads_upload_photo")).properties.photo as {
      properties: object;
      description: string;
    };
    expect(Object.keys(photo.properties)).toEqual(["base64", "text", "filename", "contentType"]);
    expect(photo.description).toMatch(/^The picture\. A file: \{ base64 \} or \{ text \}/);
    expect(fields("uploads_put_blob")).toEqual(["id", "body"]);
    expect(fields("uploads_add_note")).toEqual(["body"]);
    // Form fields, multipart parts, bytes and text are sent as the spec says by client and step alike: no warning left.
    expect(served.generated.warnings.map((w) => `${w.code} ${w.pointer}`)).toEqual([]);
  });

  it("form fields go through the step to the mock, as form fields on the wire", async () => {
    const viaMock = await served.step("uploads_add_pet", { name: "Rex", age: 3, tags: ["a", "b"] });
    expect(viaMock.ok, JSON.stringify(viaMock)).toBe(true);
    const { result, contentType, body } = await sent("uploads_add_pet", { name: "Rex", age: 3, tags: ["a", "b"] });
    expect(result.ok).toBe(true);
    expect(contentType).toBe("application/x-www-form-urlencoded");
    expect(body).toBe("name=Rex&age=3&tags=a&tags=b");
    expectInvalidInput(await served.step("uploads_add_pet", { age: 3 }), "name");
  });

  it("multipart: files from base64 or text with their names and types, lists repeated, objects as JSON", async () => {
    const input = {
      caption: "Rex at the beach",
      photo: { base64: b64("PNG-BYTES"), filename: "rex.png" },
      thumbs: [{ text: "thumb one", filename: "t1.jpg" }, { base64: b64("thumb two") }],
      meta: { album: "summer" },
    };
    const { result, contentType, body } = await sent("uploads_upload_photo", input);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    const form = await new Response(body, { headers: { "content-type": contentType } }).formData();
    expect(form.get("caption")).toBe("Rex at the beach");
    const photo = form.get("photo") as File;
    expect([photo.name, photo.type, await photo.text()]).toEqual(["rex.png", "image/png", "PNG-BYTES"]);
    const thumbs = form.getAll("thumbs") as File[];
    expect(await Promise.all(thumbs.map(async (t) => [t.name, t.type, await t.text()]))).toEqual([
      ["t1.jpg", "text/plain", "thumb one"],
      ["thumbs", "application/octet-stream", "thumb two"],
    ]);
    expect(JSON.parse(String(form.get("meta")))).toEqual({ album: "summer" });
  });

  it("a file part takes base64 or text, not both, and at most MAX_FILE_BYTES (the error names the field)", async () => {
    const both = await served.step("uploads_upload_photo", { photo: { base64: b64("x"), text: "x" } });
    expect(both).toMatchObject({
      ok: false,
      error: {
        kind: "invalid_input",
        fields: [{ path: "photo", message: expect.stringContaining("base64 or as text") }],
      },
    });
    const big = Buffer.alloc(MAX_FILE_BYTES + 3, 1).toString("base64");
    const over = await served.step("uploads_upload_photo", { photo: { base64: big } });
    expect(over).toMatchObject({
      ok: false,
      error: {
        kind: "invalid_input",
        fields: [{ path: "photo.base64", message: expect.stringContaining(`at most ${MAX_FILE_BYTES} bytes`) }],
      },
    });
    const notBase64 = await served.step("uploads_put_blob", { id: "b1", body: "not base64!" });
    expectInvalidInput(notBase64, "body");
  });

  it("raw bytes arrive as the bytes the base64 holds", async () => {
    const { result, contentType, body } = await sent("uploads_put_blob", { id: "b1", body: b64("hello bytes") });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect([contentType, body]).toEqual(["application/octet-stream", "hello bytes"]);
  });

  it("text is handed to the client as the text itself (the client's text encoding is the pipeline's)", async () => {
    let given: unknown;
    const client = { call: async (_operation: string, init: { body?: unknown }) => ((given = init.body), {}) };
    await tool("uploads_add_note").handler(client as never, { body: "buy milk" });
    expect(given).toBe("buy milk");
  });
});
