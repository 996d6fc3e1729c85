/**
 * A project on TypeScript 6 (the last release of the JavaScript compiler, before the native 7), from
 * the packed tarball with the registry's typescript@6.0.3 (test/project/compiler-project.ts):
 * stepforge installs beside it with npm's usual peer checks; the README's client code compiles with
 * its tsc and runs; and `mcp --code` checks an agent's code with the project's own compiler (no
 * ts-morph: TypeScript 6 has the JavaScript API), for the MCP SDK's stdio client.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BOARDS, compilerProject, readmeClientRuns, type CompilerProject } from "./compiler-project.js";

let project: CompilerProject;

beforeAll(async () => {
  project = await compilerProject("6.0.3");
}, 600_000);

afterAll(async () => {
  await project?.remove();
}, 60_000);

describe("a project on TypeScript 6, from the tarball", { timeout: 240_000, sequential: true }, () => {
  it("compiles the README's client code with TypeScript 6's tsc, and it runs against the mock", async () => {
    await readmeClientRuns(project, 6);
  });

  it("mcp --code checks and runs an agent's code with the project's own TypeScript 6", async () => {
    const [ok, wrong] = await project.execute(
      `${BOARDS}return boards.map((b) => b.name).findLast(Boolean);`,
      `${BOARDS}return boards[0]!.nam;`,
    );
    expect(ok!.isError, JSON.stringify(ok!.answer)).toBeFalsy();
    expect(ok!.answer).toMatchObject({ result: expect.any(String), calls: 1 });
    expect(wrong!.answer).toMatchObject({ kind: "type_error", diagnostics: [{ line: 2, code: "TS2551" }] });
  });
});
