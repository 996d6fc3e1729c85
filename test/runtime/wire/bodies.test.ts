/**
 * Request bodies in every media type a spec declares (JSON, form fields, multipart with files,
 * bytes, text) and responses read by theirs (JSON as JSON, text as text, binary as bytes, never
 * UTF-8-decoded): a plain spec checked in-process, called through the client, against a loopback
 * server that keeps and sends raw bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tools as trelloTools } from "../../../generated/trello/tools.js";
import { executeTool } from "../../../runtime/tools/index.js";
import { bytesServer, clientOf, plainSpec } from "./helpers.js";

type Server = Awaited<ReturnType<typeof bytesServer>>;
/** Bytes that are not valid UTF-8: decoding them as text would change them. */
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0x80]);

let server: Server;
beforeAll(async () => {
  server = await bytesServer((req, res) => {
    const answer = req.url.pathname.slice("/answer/".length);
    if (answer === "png") {
      res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from(PNG));
    } else if (answer === "octet") {
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.from(PNG));
    } else if (answer === "text") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("plain words é");
    } else res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  });
});
afterAll(() => server.close());

const done = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };
const takes = (operationId: string, type: string, schema: unknown) => ({
  post: { operationId, requestBody: { required: true, content: { [type]: { schema } } }, responses: done },
});
const answers = (operationId: string, type: string, schema: unknown) => ({
  get: { operationId, responses: { "200": { description: "ok", content: { [type]: { schema } } } } },
});
const binary = { type: "string", format: "binary" };
const spec = plainSpec({
  paths: {
    "/json": takes("sendJson", "application/json", { type: "object" }),
    "/form": takes("sendForm", "application/x-www-form-urlencoded", { type: "object" }),
    "/multipart": takes("sendMultipart", "multipart/form-data", {
      type: "object",
      properties: {
        title: { type: "string" },
        meta: { type: "object" },
        file: binary,
        more: { type: "array", items: binary },
      },
    }),
    "/bytes": takes("sendBytes", "application/octet-stream", binary),
    "/text": takes("sendText", "text/plain", { type: "string" }),
    "/csv": takes("sendCsv", "text/csv", { type: "string" }),
    "/answer/png": answers("getPng", "image/png", binary),
    "/answer/octet": answers("getOctet", "application/octet-stream", binary),
    "/answer/text": answers("getText", "text/plain", { type: "string" }),
    "/answer/json": answers("getJson", "application/json", { type: "object" }),
  },
});
const client = () => clientOf(spec, server.url);
const last = () => server.received.at(-1)!;

/** The parts of the last multipart request, parsed by the platform's own multipart reader. */
async function lastParts(): Promise<FormData> {
  const sent = last();
  return new Response(new Uint8Array(sent.bytes), {
    headers: { "content-type": sent.headers["content-type"]! },
  }).formData();
}

describe("request bodies by declared media type", () => {
  it("JSON", async () => {
    await client().call("sendJson", { body: { a: [1, "x"] } });
    expect(last().headers["content-type"]).toBe("application/json");
    expect(last().bytes.toString()).toBe('{"a":[1,"x"]}');
  });

  it("form fields", async () => {
    await client().call("sendForm", { body: { user: "a b", tags: ["x", "y"] } });
    expect(last().headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(last().bytes.toString()).toBe("user=a+b&tags=x&tags=y");
  });

  it("multipart/form-data: text fields, JSON for objects, files from Blob, File and Uint8Array", async () => {
    const file = new File([PNG], "pic.png", { type: "image/png" });
    await client().call("sendMultipart", {
      body: { title: "Report", meta: { n: 1 }, file, more: [PNG, new Blob([PNG])] },
    });
    expect(last().headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const parts = await lastParts();
    expect(parts.get("title")).toBe("Report");
    expect(parts.get("meta")).toBe('{"n":1}');
    const sentFile = parts.get("file") as File;
    expect(sentFile.name).toBe("pic.png");
    expect(sentFile.type).toBe("image/png");
    expect(new Uint8Array(await sentFile.arrayBuffer())).toEqual(PNG);
    const more = parts.getAll("more") as File[];
    expect(more).toHaveLength(2);
    for (const part of more) expect(new Uint8Array(await part.arrayBuffer())).toEqual(PNG);
  });

  it("application/octet-stream: the bytes as given", async () => {
    await client().call("sendBytes", { body: PNG });
    expect(last().headers["content-type"]).toBe("application/octet-stream");
    expect(new Uint8Array(last().bytes)).toEqual(PNG);
  });

  it("text/plain and text/csv: the string as given, not JSON-quoted", async () => {
    await client().call("sendText", { body: 'say "hi"' });
    expect(last().headers["content-type"]).toBe("text/plain");
    expect(last().bytes.toString()).toBe('say "hi"');
    await client().call("sendCsv", { body: "a,b\n1,2\n" });
    expect(last().headers["content-type"]).toBe("text/csv");
    expect(last().bytes.toString()).toBe("a,b\n1,2\n");
  });
});

describe("responses by their media type", () => {
  it("binary (image/png, application/octet-stream) as a Blob of the exact bytes", async () => {
    for (const op of ["getPng", "getOctet"]) {
      const body = await client().call(op);
      expect(body).toBeInstanceOf(Blob);
      expect(new Uint8Array(await (body as Blob).arrayBuffer())).toEqual(PNG);
    }
    expect(((await client().call("getPng")) as Blob).type).toBe("image/png");
  });

  it("a tool step hands a binary answer to the model as its type, size and base64 bytes (not `{}`)", async () => {
    const apiCall = trelloTools.find((t) => t.name === "trello_api_call")!;
    const result = await executeTool(
      apiCall,
      { method: "GET", endpoint: "/answer/png" },
      { connection: { name: "t", fields: {} }, client: client() },
    );
    expect(result).toEqual({
      ok: true,
      data: { contentType: "image/png", bytes: PNG.length, base64: Buffer.from(PNG).toString("base64") },
    });
  });

  it("text as text, JSON as JSON", async () => {
    expect(await client().call("getText")).toBe("plain words é");
    expect(await client().call("getJson")).toEqual({ ok: true });
  });
});
