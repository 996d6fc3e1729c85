/**
 * Safe regeneration as a consumer meets it: the packed tarball installed into a temporary project
 * outside the repository (with the optional tools generate and migrate need), which generates a
 * client from its own spec, calls it and a tool step against the generated behavioural mock, and
 * then lives through spec edits:
 *
 * 1. an operation and a query parameter renamed: generate reports both, tsc fails, `migrate
 *    --dry-run` shows the rewrite, `migrate` makes it, tsc passes, the program runs, and a second
 *    `migrate` changes nothing;
 * 2. an operation the program calls removed: `migrate` names the call with file:line:col, exit 1;
 * 3. `generate --fail-on-breaking`: a compatible edit exits 0, a breaking one exits 1 and writes nothing.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { joinedPattern } from "../helpers/pattern.js";
import { packageRoot } from "../../generator/package-root.js";
import { outsideEnv, run, type Run } from "../consumer/helpers.js";
import { packedTarball, writeAppManifest } from "../helpers/tarball.js";

const root = packageRoot();
const env = outsideEnv(root);
const work = mkdtempSync(join(tmpdir(), "stepforge-regen-"));
const project = join(work, "consumer");
const spec = join(project, "api.yaml");
const main = join(project, "src", "main.ts");

const PROGRAM =
  `import { executeToolByName } from "stepforge/runtime/tools";
import { WidgetsClient, tools } from "./api/widgets/index.js";
import { startWidgetsMock } from "./api/widgets/mock.js";

const mock = await startWidgetsMock();
try {
  const client = new WidgetsClient({ connection: { name: "test", fields: {} }, baseUrl: mock.url });
  const created = await client.createWidget({ body: { name: "gear", size: 3 } });
  const id = created.id;
  const found = await client.getWidget({ params: { path: { id } } });
  const listed = await client.listWidgets({ params: { query: { limit: 5, color: "red" } } });
  const viaTool = await executeToolByName(tools, "widgets_get_widget", { id }, ` +
  // one line of the program, so the line numbers migrate reports stay those the tests name
  `{ connection: { name: "test", fields: {} }, baseUrl: mock.url });
  await client.deleteWidget({ params: { path: { id } } });
  console.log(JSON.stringify({ found: typeof found.name, listed: Array.isArray(listed), tool: viaTool.ok }));
} finally {
  await mock.close();
}
`;

const stepforge = (...args: string[]) => run(join(project, "node_modules", ".bin", "stepforge"), args, project, env);
const generate = (...flags: string[]) =>
  stepforge("generate", "--spec", "api.yaml", "--out", "src/api", "--service", "widgets", ...flags);
const tsc = () =>
  run(process.execPath, [join(project, "node_modules", "typescript", "bin", "tsc"), "-p", "."], project, env);
const edit = (from: string | RegExp, to: string) => writeFileSync(spec, readFileSync(spec, "utf8").replace(from, to));
const say = (r: Run) => `${r.stdout}\n${r.stderr}`;

beforeAll(async () => {
  const packed = await packedTarball();
  mkdirSync(join(project, "src"), { recursive: true });
  const tools = ["openapi-typescript", "handlebars", "typescript", "ts-morph", "diff"];
  writeAppManifest(project, "regen-consumer", packed.tarball, tools);
  const tsconfig = {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      skipLibCheck: true,
      outDir: "dist",
      rootDir: "src",
      types: [],
    },
    include: ["src"],
  };
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  copyFileSync(join(import.meta.dirname, "fixtures", "widgets.yaml"), spec);
  writeFileSync(main, PROGRAM);
  const install = await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], project, env);
  expect(install.code, install.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("a consumer project across spec edits", { timeout: 300_000 }, () => {
  it("generates, compiles and runs against the generated mock", async () => {
    const first = await generate();
    expect(first.code, say(first)).toBe(0);
    expect(first.stdout).toContain("widgets: service added (4 operations, 4 tool steps)");
    const compiled = await tsc();
    expect(compiled.code, say(compiled)).toBe(0);
    const ran = await run(process.execPath, ["dist/main.js"], project, env);
    expect(ran.stdout.trim()).toBe('{"found":"string","listed":true,"tool":true}');
  });

  it(
    "renamed operation and parameter: reported, migrated, compiled, run; a second migrate " + "changes nothing",
    async () => {
      edit("operationId: getWidget", "operationId: fetchWidget");
      edit("- name: limit", "- name: max");
      const regenerated = await generate();
      expect(regenerated.code, say(regenerated)).toBe(0);
      expect(regenerated.stdout).toMatch(
        joinedPattern([
          /breaking +operation-renamed +fetchWidget: getWidget → fetchWidget \(GET \/widgets\/\{id\}\) /,
          /\(stepforge migrate updates call sites\)/,
        ]),
      );
      expect(regenerated.stdout).toMatch(/breaking +parameter-renamed +listWidgets: query parameter limit → max/);
      expect(regenerated.stdout).toContain("suggested version 2.0.0 (major; was 1.2.0)");
      const broken = await tsc();
      expect(broken.code).not.toBe(0);
      expect(broken.stdout).toContain("Property 'getWidget' does not exist on type 'WidgetsClient'");

      const dry = await stepforge("migrate", "--dry-run");
      expect(dry.code, say(dry)).toBe(0);
      expect(dry.stdout).toContain("\n-  const found = await client.getWidget({ params: { path: { id } } });\n");
      expect(dry.stdout).toContain("\n+  const found = await client.fetchWidget({ params: { path: { id } } });\n");
      expect(dry.stdout).toContain(
        '+  const listed = await client.listWidgets({ params: { query: { max: 5, color: "red" } } });',
      );
      expect(readFileSync(main, "utf8")).toBe(PROGRAM);

      const migrated = await stepforge("migrate");
      expect(migrated.code, say(migrated)).toBe(0);
      expect(migrated.stdout).toContain("src/main.ts:10:30 getWidget → fetchWidget");
      expect(migrated.stdout).toContain("src/main.ts:11:64 listWidgets: query parameter limit → max");
      expect(migrated.stdout).toContain("src/main.ts:12:50 tool widgets_get_widget → widgets_fetch_widget");
      const compiled = await tsc();
      expect(compiled.code, say(compiled)).toBe(0);
      const ran = await run(process.execPath, ["dist/main.js"], project, env);
      expect(ran.stdout.trim(), ran.stderr).toBe('{"found":"string","listed":true,"tool":true}');

      const after = readFileSync(main, "utf8");
      const again = await stepforge("migrate");
      expect(again.code, say(again)).toBe(0);
      expect(again.stdout).toContain("rewrote 0 call sites in 0 files (widgets)");
      expect(readFileSync(main, "utf8")).toBe(after);
    },
  );

  it("removed operation: migrate names the call it cannot fix and exits 1", async () => {
    const text = readFileSync(spec, "utf8");
    writeFileSync(spec, text.slice(0, text.indexOf("    delete:")) + text.slice(text.indexOf("components:")));
    const regenerated = await generate();
    expect(regenerated.stdout).toMatch(/breaking +operation-removed +deleteWidget: DELETE \/widgets\/\{id\} removed/);
    const migrated = await stepforge("migrate");
    expect(migrated.code).toBe(1);
    expect(migrated.stderr).toContain(
      "src/main.ts:13:16 cannot fix: widgets: operation deleteWidget (DELETE /widgets/{id}) was removed from the spec",
    );
  });

  it("--fail-on-breaking: 0 on a compatible edit, 1 on a breaking one (and nothing written)", async () => {
    edit(
      "        - name: color",
      "        - name: page\n          in: query\n          schema: { type: integer }\n        - name: color",
    );
    const compatible = await generate("--fail-on-breaking");
    expect(compatible.code, say(compatible)).toBe(0);
    expect(compatible.stdout).toMatch(
      /compatible +parameter-added +listWidgets: query parameter page: optional number/,
    );

    const client = readFileSync(join(project, "src", "api", "widgets", "client.ts"), "utf8");
    edit("required: [name]", "required: [name, size]");
    const breaking = await generate("--fail-on-breaking");
    expect(breaking.code).toBe(1);
    expect(breaking.stdout).toMatch(/breaking +request-field-required +createWidget: request field size: now required/);
    expect(breaking.stderr).toMatch(/breaking changes? \(listed above\); nothing was written \(--fail-on-breaking\)/);
    expect(readFileSync(join(project, "src", "api", "widgets", "client.ts"), "utf8")).toBe(client);
  });
});
