import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ConnectionError,
  connectionProblems,
  FileConnectionStore,
  MemoryConnectionStore,
  requireConnection,
  validateConnection,
} from "../../runtime/index.js";
import { apiKeyConnection, apiKeyService, KEY, TOKEN, thrownBy } from "./helpers.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "stepforge-conn-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("connection validation", () => {
  const d = apiKeyService();

  it("accepts a complete connection", () => {
    expect(connectionProblems(d, apiKeyConnection())).toEqual([]);
  });

  it("names a missing field and how to fix it", () => {
    const problems = connectionProblems(d, { name: "main", fields: { apiKey: KEY } });
    expect(problems).toEqual([
      {
        field: "token",
        message: 'Board connection "main": field "token" is missing (API token); add "token" to the connection',
      },
    ]);
  });

  it("names a malformed secret field without echoing its value", () => {
    const fields = { apiKey: "short!SECRETVALUE", token: TOKEN };
    const error = thrownBy(() => validateConnection(d, { name: "main", fields }), ConnectionError);
    expect(error.field).toBe("apiKey");
    expect(String(error)).toContain('field "apiKey" is not valid');
    expect(String(error)).toContain("^[0-9a-zA-Z_]{8,}$");
    for (const text of [String(error), JSON.stringify(error), error.stack ?? ""])
      expect(text).not.toContain("SECRETVALUE");
  });

  it("names unknown fields, a bad auth mode and a bad connection name", () => {
    const messages = connectionProblems(d, {
      name: "bad name",
      fields: { apiKey: KEY, token: TOKEN, apikey: "x" },
      authMode: "cookie",
    }).map((p) => p.message);
    expect(messages).toEqual([
      expect.stringContaining("connection name must be"),
      expect.stringContaining('"apikey" is not a field of Board; remove it (the fields are apiKey, token)'),
      expect.stringContaining('authMode "cookie" is unknown; use one of query, header'),
    ]);
  });
});

describe("file connection store", () => {
  it("writes owner-only (0600), atomically, and reads back", async () => {
    const path = join(dir, "nested", "connections.json");
    const store = new FileConnectionStore(path);
    await store.put(apiKeyService(), apiKeyConnection("work"));
    await store.put(apiKeyService(), apiKeyConnection("home", { token: "TOKEN-HOME" }));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, "nested"))).toEqual(["connections.json"]); // no temporary file left behind
    const again = new FileConnectionStore(path);
    expect(await again.list("board")).toEqual([
      { service: "board", name: "home" },
      { service: "board", name: "work" },
    ]);
    expect((await again.get("board", "home"))!.fields.token).toBe("TOKEN-HOME");
    const saved = JSON.parse(await readFile(path, "utf8"));
    expect(saved.version).toBe(1);
  });

  it("keeps rotated tokens and removes connections", async () => {
    const path = join(dir, "c.json");
    const store = new FileConnectionStore(path);
    await store.put(apiKeyService(), apiKeyConnection("work"));
    await Promise.all([
      store.updateFields("board", "work", { token: "T2" }),
      store.updateFields("board", "work", { token: "T3" }),
    ]);
    expect((await store.get("board", "work"))!.fields).toEqual({ apiKey: KEY, token: "T3" });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await store.remove("board", "work")).toBe(true);
    expect(await store.get("board", "work")).toBeUndefined();
  });

  it("refuses to store an invalid connection, leaving the file as it was", async () => {
    const path = join(dir, "c.json");
    const store = new FileConnectionStore(path);
    await store.put(apiKeyService(), apiKeyConnection("work"));
    const before = await readFile(path, "utf8");
    await expect(store.put(apiKeyService(), { name: "bad", fields: { apiKey: KEY } })).rejects.toThrow(
      /field "token" is missing/,
    );
    expect(await readFile(path, "utf8")).toBe(before);
  });

  it("refuses a file other users can read, naming the fix", async () => {
    const path = join(dir, "c.json");
    await writeFile(path, JSON.stringify({ version: 1, connections: {} }));
    await chmod(path, 0o644);
    await expect(new FileConnectionStore(path).list()).rejects.toThrow(`run: chmod 600 ${path}`);
  });

  it("reports a corrupt file without quoting its contents", async () => {
    const path = join(dir, "c.json");
    await writeFile(path, '{"connections": {"board": {"x": {"fields": {"token": "LEAKEDMARKER"', { mode: 0o600 });
    const error = (await new FileConnectionStore(path).list().catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("is not valid JSON");
    expect(String(error) + JSON.stringify(error) + error.stack).not.toContain("LEAKEDMARKER");
  });

  it("explains a missing connection with the names that exist", async () => {
    const store = new MemoryConnectionStore([{ service: "board", connection: apiKeyConnection("work") }]);
    await expect(requireConnection(store, apiKeyService(), "home")).rejects.toThrow(
      'Board has no connection "home"; use one of work',
    );
  });
});
