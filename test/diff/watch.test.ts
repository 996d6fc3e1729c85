/**
 * `stepforge generate --watch` as a child process over copies of the four project specs: a save
 * regenerates only the saved spec's service and prints its change report; a spec saved broken
 * prints its diagnostics and keeps the last output; the fix is picked up.
 */
import { type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../generator/package-root.js";
import { startUntil, stop } from "../consumer/helpers.js";

const root = packageRoot();
const work = mkdtempSync(join(tmpdir(), "stepforge-watch-"));
const specs = readdirSync(join(root, "specs"))
  .filter((f) => f.endsWith(".yaml"))
  .sort();
for (const spec of specs) cpSync(join(root, "specs", spec), join(work, spec));
const out = join(work, "out");
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child) await stop(child);
  await rm(work, { recursive: true, force: true });
});

/** Resolves once `output()` has `text` after `from` characters (the watch prints as it goes). */
async function waitFor(output: () => string, text: string, from: number, ms = 120_000): Promise<string> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const tail = output().slice(from);
    if (tail.includes(text)) return tail;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no "${text}" in: ${output().slice(from)}`);
}

describe("generate --watch", { timeout: 300_000 }, () => {
  it("regenerates only the saved spec's service, reports its changes, survives a broken save", async () => {
    const args = [
      join(root, "bin", "stepforge.js"),
      "generate",
      "--watch",
      ...specs.flatMap((s) => ["--spec", join(work, s)]),
      "--out",
      out,
    ];
    const started = await startUntil(process.execPath, args, work, process.env, "watching 4 specs", 180_000);
    child = started.child;
    // Both streams in arrival order (startUntil's output() puts stderr after stdout).
    let log = started.output();
    for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (c: Buffer) => (log += c.toString()));
    const output = () => log;
    expect(output()).toContain("generated contentsnare, marketo, trello, worldnews into");
    const trelloClient = join(out, "trello", "client.ts");
    const trelloWritten = statSync(trelloClient).mtimeMs;

    let from = output().length;
    const file = join(work, "worldnews.yaml");
    const original = readFileSync(file, "utf8");
    writeFileSync(file, original.replace("enum: [ASC, DESC]", "enum: [ASC, DESC, RANDOM]"));
    const round = await waitFor(output, "generated worldnews into", from);
    expect(round).toMatch(
      /compatible +parameter-enum-value-added +searchNews: query parameter sort-direction: value "RANDOM" added/,
    );
    expect(round).toContain("worldnews: 2 API changes, 0 breaking");
    expect(round).toMatch(
      /compatible +tool-field-changed +worldnews_search_news: field sort_direction: accepts more values/,
    );
    expect(readFileSync(join(out, "worldnews", "types.ts"), "utf8")).toContain('"RANDOM"');
    expect(statSync(trelloClient).mtimeMs).toBe(trelloWritten);

    from = output().length;
    writeFileSync(file, original.replace("enum: [ASC, DESC]", "enum: [ASC, DESC"));
    const broken = await waitFor(output, "the last good output stays", from);
    expect(broken).toContain("worldnews.yaml");
    expect(readFileSync(join(out, "worldnews", "types.ts"), "utf8")).toContain('"RANDOM"');

    from = output().length;
    writeFileSync(file, original);
    const fixed = await waitFor(output, "generated worldnews into", from);
    expect(fixed).toMatch(
      /breaking +parameter-enum-value-removed +searchNews: query parameter sort-direction: value "RANDOM" removed/,
    );
    expect(readFileSync(join(out, "worldnews", "types.ts"), "utf8")).not.toContain('"RANDOM"');
    expect(await stop(child)).toBe(0);
    child = undefined;
  });
});
