/** A mock generated from a spec of test/mock/fixtures through the CLI (its own file: it loads the whole CLI). */
import { join } from "node:path";
import { expect } from "vitest";
import { loadMock } from "../../runtime/mock/index.js";
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
