/** A mock generated from a spec of test/mock/fixtures through the CLI (its own file: it loads the whole CLI). */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { loadMock, startMock, type RunningMock } from "../../runtime/mock/index.js";
import { runCli } from "../helpers/cli.js";

/**
 * Generates test/mock/fixtures/FIXTURE.yaml into `out` with the CLI (`generate --spec … --no-cache`)
 * and loads its mock module, which registers the service `id` for `startMock`.
 */
export async function generateFixtureMock(fixture: string, id: string, out: string): Promise<void> {
  const spec = join(import.meta.dirname, "fixtures", `${fixture}.yaml`);
  const generated = await runCli("generate", "--spec", spec, "--out", out, "--no-cache");
  expect(generated.code, generated.stderr).toBe(0);
  await loadMock(join(out, id, "mock.ts"));
}

/**
 * A test file's own fixture mock: generated into `out` and started before its tests (limits off,
 * the tests send bursts), stopped and `out` removed after them. Gives the running mock's URL.
 */
export function useFixtureMock(fixture: string, id: string, out: string): () => string {
  let running: RunningMock | undefined;
  beforeAll(async () => {
    await generateFixtureMock(fixture, id, out);
    running = await startMock(id, { limits: { off: true } });
  }, 60_000);
  afterAll(async () => {
    await running?.close();
    rmSync(out, { recursive: true, force: true });
  });
  return () => {
    if (!running) throw new Error(`the ${id} fixture mock is not running (its beforeAll failed)`);
    return running.url;
  };
}
