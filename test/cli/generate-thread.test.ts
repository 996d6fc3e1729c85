/**
 * A cold `generate` from the built CLI makes types.ts on the generate thread (cli/generate-thread.ts)
 * and compiles into dist/ there: the main thread never loads the TypeScript compiler, and the files
 * are the same bytes the in-process pipeline writes.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";
import { packageRoot } from "../../generator/package-root.js";

const root = packageRoot();
const work = mkdtempSync(join(tmpdir(), "stepforge-thread-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

it("types.ts from the generate thread is the in-process one, and this thread loads no compiler", () => {
  const dist = pathToFileURL(join(root, "dist")).href;
  const request = {
    specFiles: [join(root, "specs", "worldnews.yaml")],
    outDir: join(root, "generated"),
    projectRoot: root,
  };
  const script = [
    `import { createRequire } from "node:module";`,
    `const { generate } = await import("${dist}/generator/pipeline.js");`,
    `const { startGenerateThread } = await import("${dist}/cli/generate-thread.js");`,
    `const request = ${JSON.stringify(request)};`,
    `const thread = startGenerateThread(undefined);`,
    `const threaded = await generate({ ...request, typesElsewhere: thread.types });`,
    `await thread.stop();`,
    `const cached = Object.keys(createRequire(import.meta.url).cache);`,
    `const loaded = cached.some((f) => f.includes("/node_modules/typescript/"));`,
    `const inProcess = await generate(request);`,
    `const same = JSON.stringify(threaded.files) === JSON.stringify(inProcess.files);`,
    `console.log(JSON.stringify({ loaded, same, files: threaded.files.length }));`,
  ].join("\n");
  // A file, not --input-type: a worker inherits the process's flags, and that one takes no file.
  writeFileSync(join(work, "run.mjs"), script);
  const run = spawnSync(process.execPath, [join(work, "run.mjs")], { encoding: "utf8", cwd: root });
  expect(run.stderr).toBe("");
  const result = JSON.parse(run.stdout) as { loaded: boolean; same: boolean; files: number };
  expect(result).toEqual({ loaded: false, same: true, files: expect.any(Number) });
  expect(result.files).toBeGreaterThan(5);
});

it("on one core there is no thread: the work stays in-process", () => {
  const dist = pathToFileURL(join(root, "dist")).href;
  const script = [
    `const { startGenerateThread } = await import("${dist}/cli/generate-thread.js");`,
    `const one = startGenerateThread(undefined, 1);`,
    `const two = startGenerateThread(undefined, 2);`,
    `await one?.stop();`,
    `await two?.stop();`,
    `console.log(JSON.stringify({ one: one === undefined, two: two !== undefined }));`,
  ].join("\n");
  writeFileSync(join(work, "cores.mjs"), script);
  const run = spawnSync(process.execPath, [join(work, "cores.mjs")], { encoding: "utf8", cwd: root, timeout: 60_000 });
  expect(run.stderr).toBe("");
  expect(JSON.parse(run.stdout)).toEqual({ one: true, two: true });
});

it("generate starts its thread before loading yaml: a checkout without a config does not read it first", () => {
  const dist = pathToFileURL(join(root, "dist")).href;
  const script = [
    `import { createRequire } from "node:module";`,
    `const { loadProject } = await import("${dist}/cli/config/load.js");`,
    `await import("${dist}/cli/commands/generate.js");`,
    `const none = await loadProject(${JSON.stringify(work)});`,
    `const cached = Object.keys(createRequire(import.meta.url).cache);`,
    `const yaml = cached.some((f) => f.includes("/node_modules/yaml/"));`,
    `console.log(JSON.stringify({ none: none === undefined, yaml }));`,
  ].join("\n");
  writeFileSync(join(work, "early.mjs"), script);
  const run = spawnSync(process.execPath, [join(work, "early.mjs")], { encoding: "utf8", cwd: root, timeout: 60_000 });
  expect(run.stderr).toBe("");
  expect(JSON.parse(run.stdout)).toEqual({ none: true, yaml: false });
});
