/**
 * A project outside the repository whose `typescript` is a given release from the registry (6 or
 * 7), with the packed tarball, the code mode's peers and the README's overrides entry for
 * openapi-typescript; what test/project/typescript6.test.ts and typescript7.test.ts do in it.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { expect } from "vitest";
import { packageRoot } from "../../generator/package-root.js";
import { outsideEnv, run, type Run } from "../consumer/helpers.js";
import { packedTarball } from "../helpers/tarball.js";
import { BOOKSHELF } from "./helpers.js";

const root = packageRoot();
const env = outsideEnv(root);
export const say = (r: Run) => `${r.stdout}\n${r.stderr}`;
/** The versions stepforge is tested with (its devDependencies). */
export const pinned = (
  JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> }
).devDependencies;

const TRELLO_FIELDS =
  '{ apiKey: "0123456789abcdef0123456789abcdef", token: "ATTAmocktoken0123456789abcdef0123456789abcdef" }';

/** The README's first client example (the Trello client and a tool step against the mock), as a file. */
const README_CLIENT_APP = [
  'import { AuthError } from "stepforge/runtime";',
  'import { executeToolByName } from "stepforge/runtime/tools";',
  'import { TrelloClient, tools } from "stepforge/trello";',
  'import { startTrelloMock } from "stepforge/trello/mock";',
  "const mock = await startTrelloMock();",
  `const connection = { name: "work", fields: ${TRELLO_FIELDS} };`,
  "const trello = new TrelloClient({ connection, baseUrl: mock.url });",
  "try {",
  '  const [board] = await trello.getMemberBoards({ params: { path: { id: "me" } } });',
  "  const [list] = await trello.getBoardLists({ params: { path: { id: board!.id } } });",
  '  const card = await trello.createCard({ body: { idList: list!.id, name: "Write the report" } });',
  '  const step = await executeToolByName(tools, "trello_get_boards", { filter: "open" }, ' +
    "{ connection, baseUrl: mock.url });",
  "  console.log(card.name, step.ok);",
  "} catch (error) {",
  '  if (error instanceof AuthError) console.error("check the key and token:", error.message);',
  "  else throw error;",
  "} finally {",
  "  await mock.close();",
  "}",
].join("\n");

/** Code for `execute`: the member's boards, then a TypeScript 2023 library call on them. */
export const BOARDS = 'const boards = await services.trello.getMemberBoards({ params: { path: { id: "me" } } });\n';

/**
 * What the README tells such a project: openapi-typescript's peer range is typescript ^5, and npm
 * refuses it next to 6 or 7 unless the project says openapi-typescript uses its typescript.
 */
export const OPENAPI_TYPESCRIPT_OVERRIDE = { "openapi-typescript": { typescript: "$typescript" } };

type Answer = { isError?: boolean; answer: Record<string, unknown> };

export interface CompilerProject {
  dir: string;
  stepforge(...args: string[]): Promise<Run>;
  npm(...args: string[]): Promise<Run>;
  /** The project's own tsc prints `Version <major>.…`. */
  tscVersion(): Promise<string>;
  /** The project's own tsc compiles every .ts file of the project (into out/) without a word. */
  compiles(): Promise<void>;
  /** Runs a compiled file of out/ with Node. */
  node(file: string): Promise<Run>;
  /**
   * `execute` of each program in turn, in one session of `stepforge mcp --code --mock --service
   * trello` started from the project by the MCP SDK's stdio client (one server start for all).
   */
  execute(...codes: string[]): Promise<Answer[]>;
  /** The same, with `--service <service>` in place of trello (a service of the project's config). */
  executeOn(service: string, ...codes: string[]): Promise<Answer[]>;
  remove(): Promise<void>;
}

/** The README's client example compiles with the project's tsc (of `major`) and runs against the mock. */
export async function readmeClientRuns(project: CompilerProject, major: number): Promise<void> {
  expect(await project.tscVersion()).toMatch(new RegExp(`^Version ${major}\\.`));
  writeFileSync(join(project.dir, "app.ts"), README_CLIENT_APP);
  await project.compiles();
  const ran = await project.node("app.js");
  expect(ran.stdout.trim(), ran.stderr).toBe("Write the report true");
}

/**
 * Installs the project with npm's usual peer checks; the install must pass. `overrides: false`
 * leaves the README's overrides entry out (the user adds it when `init` says so).
 */
export async function compilerProject(
  typescript: string,
  options: { overrides?: boolean } = {},
): Promise<CompilerProject> {
  const packed = await packedTarball();
  const work = mkdtempSync(join(tmpdir(), `stepforge-ts${typescript.split(".")[0]}-`));
  const dir = join(work, "app");
  const bin = join(dir, "node_modules", ".bin", "stepforge");
  const tsc = join(dir, "node_modules", "typescript", "bin", "tsc");
  mkdirSync(join(dir, "specs"), { recursive: true });
  copyFileSync(BOOKSHELF, join(dir, "specs", "bookshelf.yaml"));
  const manifest = {
    name: "compiler-app",
    version: "1.0.0",
    private: true,
    type: "module",
    dependencies: {
      stepforge: `file:${packed.tarball}`,
      "quickjs-emscripten": pinned["quickjs-emscripten"],
      "@modelcontextprotocol/sdk": pinned["@modelcontextprotocol/sdk"],
    },
    devDependencies: { typescript, "@types/node": pinned["@types/node"] },
    ...(options.overrides === false ? {} : { overrides: OPENAPI_TYPESCRIPT_OVERRIDE }),
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, module: "nodenext", target: "es2022", outDir: "out", types: ["node"] },
      include: ["*.ts", "src"],
    }),
  );
  const npm = (...args: string[]) => run("npm", [...args, "--prefer-offline", "--no-audit", "--no-fund"], dir, env);
  // Before the peer range took 6 and 7, this failed with ERESOLVE.
  const install = await npm("install");
  expect(install.code, install.stderr).toBe(0);

  async function executeOn(service: string, ...codes: string[]): Promise<Answer[]> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "mcp", "--code", "--mock", "--service", service],
      cwd: dir,
      env: env as Record<string, string>,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: "compiler-project", version: "1.0.0" });
    try {
      await client.connect(transport);
      const answers = [];
      for (const code of codes) {
        const result = (await client.callTool({ name: "execute", arguments: { code } })) as {
          isError?: boolean;
          content: Array<{ text: string }>;
        };
        answers.push({
          isError: result.isError,
          answer: JSON.parse(result.content[0]!.text) as Record<string, unknown>,
        });
      }
      return answers;
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${stderr}`);
    } finally {
      await client.close();
    }
  }

  return {
    dir,
    npm,
    stepforge: (...args) => run(bin, args, dir, env),
    tscVersion: async () => (await run(process.execPath, [tsc, "--version"], dir, env)).stdout.trim(),
    async compiles() {
      const compiled = await run(process.execPath, [tsc, "-p", "."], dir, env);
      expect(say(compiled).trim()).toBe("");
      expect(compiled.code).toBe(0);
    },
    node: (file) => run(process.execPath, [join("out", file)], dir, env),
    execute: (...codes) => executeOn("trello", ...codes),
    executeOn,
    remove: () => rm(work, { recursive: true, force: true }),
  };
}
