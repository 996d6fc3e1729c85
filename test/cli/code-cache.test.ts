/**
 * The generate thread's code cache (generator/code-cache.ts): a first load writes V8's code for the file
 * after it ran, the next load uses it, and data that does not fit (another file's, garbage, a
 * changed source) is refused and rewritten, never an error. A folder that cannot be written only
 * loses the cache.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { cacheFileOf, cacheHeaderOf, requireWithCodeCache } from "../../generator/code-cache.js";

const work = mkdtempSync(join(tmpdir(), "stepforge-code-cache-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A CommonJS file that requires a built-in and exports a function, as the compiler does. */
function moduleFile(name: string, body = "exports.twice = (n) => n * 2;"): string {
  const file = join(work, `${name}.cjs`);
  writeFileSync(file, `const { join } = require("node:path");\nexports.joined = join("a", "b");\n${body}\n`);
  return file;
}

/** Loads `file` afresh (as a new process would): out of require.cache first. */
function load(file: string, cacheDir: string) {
  delete createRequire(file).cache[file];
  return requireWithCodeCache(file, cacheDir);
}

it("writes the code after a first load, uses it on the next, and later requires get the same module", () => {
  const file = moduleFile("plain");
  const cacheDir = join(work, "cache");
  const first = load(file, cacheDir);
  expect(first.state).toBe("missing");
  expect((first.exports as { twice(n: number): number }).twice(21)).toBe(42);
  expect(createRequire(file)(file)).toBe(first.exports);
  first.save();
  expect(readFileSync(cacheFileOf(cacheDir, file)).length).toBeGreaterThan(100);
  const second = load(file, cacheDir);
  expect(second.state).toBe("accepted");
  expect(second.exports).toMatchObject({ joined: join("a", "b") });
});

it("refuses data that does not fit the file and rewrites it; a changed source is not read with old data", () => {
  // A file this process never compiled: V8 would otherwise take its code from memory, unasked.
  const file = moduleFile("refused");
  const cacheDir = join(work, "refused-cache");
  mkdirSync(cacheDir, { recursive: true });
  const cacheFile = cacheFileOf(cacheDir, file);
  // The right header with bytes V8 did not write: V8 refuses them, the module still loads.
  writeFileSync(cacheFile, Buffer.concat([Buffer.from(cacheHeaderOf(file)), Buffer.from("not V8's code cache")]));
  const garbage = load(file, cacheDir);
  expect(garbage.state).toBe("rejected");
  expect((garbage.exports as { twice(n: number): number }).twice(2)).toBe(4);
  garbage.save();
  expect(load(file, cacheDir).state).toBe("accepted");
  // An edited file (another size and mtime) does not use the data of the old one.
  moduleFile("refused", "exports.twice = (n) => n + n;");
  utimesSync(file, new Date(), new Date(Date.now() + 5000));
  const edited = load(file, cacheDir);
  expect(edited.state).toBe("missing");
  expect((edited.exports as { twice(n: number): number }).twice(5)).toBe(10);
});

it("a cache folder that cannot be made costs only the cache", () => {
  const file = moduleFile("unwritable");
  // A file where the folder should be: mkdir fails even for root, which a read-only mode does not stop.
  const cacheDir = join(work, "not-a-folder");
  writeFileSync(cacheDir, "");
  const loaded = load(file, cacheDir);
  expect(() => loaded.save()).not.toThrow();
  const again = load(file, cacheDir);
  expect(again.state).toBe("missing");
  expect((again.exports as { twice(n: number): number }).twice(3)).toBe(6);
});

it("a file that throws while loading is not left in require.cache", () => {
  const file = join(work, "throws.cjs");
  writeFileSync(file, 'throw new Error("boom");\n');
  expect(() => load(file, join(work, "throws-cache"))).toThrow("boom");
  expect(createRequire(file).cache[file]).toBeUndefined();
});

it("reads an ASCII file byte for byte and any other as UTF-8: the module's strings come out as written", () => {
  const ascii = moduleFile("ascii", 'exports.text = "plain \\u00e9 text";');
  const utf8 = moduleFile("utf8", 'exports.text = "écrit — ✓ 𝑥";');
  const cacheDir = join(work, "text-cache");
  expect((load(ascii, cacheDir).exports as { text: string }).text).toBe("plain é text");
  expect((load(utf8, cacheDir).exports as { text: string }).text).toBe("écrit — ✓ 𝑥");
});
