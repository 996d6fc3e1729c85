/**
 * A user's spec whose update is a JSON merge patch (RFC 7396) and whose create takes JSON:API's
 * media type only (test/tools/fixtures/notes-patch.yaml, written for this test). Found from outside
 * on such a spec: a step's `memo: null` (clear the memo) was dropped as "not given", so the call
 * succeeded and the memo stayed; and every JSON body went out as application/json, which a
 * merge-patch or JSON:API server refuses (JSON:API answers 415).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMockDefinition, loadService, type LoadedService } from "../../cli/services.js";
import { packageRoot } from "../../generator/package-root.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { exportTools } from "../../runtime/tools/export.js";
import { executeToolByName } from "../../runtime/tools/index.js";

const source = {
  id: "notes",
  specFile: join(import.meta.dirname, "fixtures", "notes-patch.yaml"),
  origin: "spec" as const,
};
const connection = { name: "main", fields: { apiKey: "notes-key-0123" } };
let service: LoadedService;
let mock: RunningMock;
let recorder: Server;
let recorderUrl: string;
const seen: Array<{ method: string; headers: IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  service = await loadService(source, packageRoot());
  mock = await startMock(await loadMockDefinition(source, packageRoot()));
  recorder = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      seen.push({ method: req.method!, headers: req.headers, body });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ id: "n1", title: "t", memo: null }));
    });
  });
  await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
  const address = recorder.address() as { port: number };
  recorderUrl = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await mock?.close();
  await new Promise((resolve) => recorder?.close(resolve));
});

const run = (step: string, input: Record<string, unknown>, baseUrl: string) =>
  executeToolByName(service.tools, step, input, { connection, baseUrl });

describe("a JSON merge patch step", () => {
  it("sends a null the schema takes (it removes the field) and keeps dropping the nulls it refuses", async () => {
    const created = await run("notes_create_note", { title: "Call the bank", memo: "before Friday" }, mock.url);
    expect(created).toMatchObject({ ok: true, data: { title: "Call the bank", memo: "before Friday" } });
    const id = (created as { data: { id: string } }).data.id;
    // `title: null` is refused by the schema (a string): dropped as "not given", as a strict-mode model means it.
    const cleared = await run("notes_update_note", { note_id: id, memo: null, title: null }, mock.url);
    expect(cleared).toMatchObject({ ok: true });
    const read = await run("notes_get_note", { note_id: id }, mock.url);
    expect(read).toMatchObject({ ok: true, data: { title: "Call the bank" } });
    expect((read as { data: { memo?: unknown } }).data.memo ?? null).toBeNull();
  });

  it("goes out under the media type the spec names, the null in its body", async () => {
    seen.length = 0;
    expect(await run("notes_update_note", { note_id: "n1", memo: null }, recorderUrl)).toMatchObject({ ok: true });
    expect(await run("notes_create_note", { title: "x", memo: null }, recorderUrl)).toMatchObject({ ok: true });
    expect(seen.map((s) => [s.method, s.headers["content-type"], JSON.parse(s.body)])).toEqual([
      ["PATCH", "application/merge-patch+json", { memo: null }],
      // Not a merge patch: null is "not given" there, as before.
      ["POST", "application/vnd.api+json", { title: "x" }],
    ]);
  });

  it("is exported to OpenAI without strict mode, saying why (strict mode sends null for every field left out)", () => {
    const exported = exportTools(service.tools, "openai");
    const patch = exported.tools.find(
      (t) => (t as { function: { name: string } }).function.name === "notes_update_note",
    );
    expect(patch).toMatchObject({ function: { strict: false } });
    expect(exported.nonStrict).toContainEqual({
      name: "notes_update_note",
      reasons: [expect.stringMatching(/^its body is a JSON merge patch, where null removes a field/)],
    });
    const create = exported.tools.find(
      (t) => (t as { function: { name: string } }).function.name === "notes_create_note",
    );
    expect(create).toMatchObject({ function: { strict: true } });
  });
});
