/**
 * The outputs of test/realspecs' specs type-check under the project's strict settings, with a
 * consumer file each that calls the client the way the spec says it may be called: in one tsc
 * program. Fails without the fixes: `components["schemas"]["Tag"]["allOf"]["0"]` (TS2339), a
 * create call without the server's read-only `id` (TS2741), a schema that reaches itself through a
 * union or array (TS2502, its type `any`).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { typecheck } from "../helpers/tsc.js";
import { ROOT, generateSpec, workDir } from "./helpers.js";
import { BODIES, DEEP_REFS, NAMES, PATTERNS, READ_ONLY, RECURSIVE, TAGGED } from "./specs.js";

const CONNECTION = `{ connection: { name: "c", fields: {} } }`;

/** Per spec: what a consumer writes against its client (inside an async function). */
const CASES: Array<{ name: string; id: string; doc: object; calls: string }> = [
  {
    name: "deep",
    id: "deep",
    doc: DEEP_REFS,
    calls: `
      const tags = await client.listTags({ params: { query: { max: 3, schema: "full" } } });
      const name: string = tags[0]!.name;
      const tag = await client.createTag({ body: { name } });
      const leaf = await client.plantTree({ body: { value: "oak", next: { value: "ash" } } });
      return [tag.name, leaf.leaf?.next?.value];`,
  },
  {
    name: "pets",
    id: "pets",
    doc: READ_ONLY,
    calls: `
      const pet = await client.createPet({ body: { name: "Rex", secret: "s", owner: { name: "Ada" } } });
      const again = await client.getPet({ params: { path: { id: pet.id } } });
      const id: string = again.id;
      return [id, again.owner?.ownerId];`,
  },
  {
    name: "events",
    id: "events",
    doc: NAMES,
    calls: `
      const query = { "StartTime<": "2024", "StartTime>": "2020" };
      await client.listEvents({ params: { path: { id: "e1" }, query } });
      return [await client.getThing(), await client.GetThing2(), await client.delete_(), await client.then2()];`,
  },
  {
    name: "slugs",
    id: "slugs",
    doc: PATTERNS,
    calls: `return client.createSlug({ params: { query: { at: "9:05" } }, body: { slug: "a.b-c" } });`,
  },
  { name: "shop", id: "shop", doc: TAGGED, calls: `return client.getUser({ params: { path: { id: "u1" } } });` },
  {
    name: "uploads",
    id: "uploads",
    doc: BODIES,
    calls: `
      await client.addPet({ body: { name: "Rex", age: 3, tags: ["a"] } });
      return client.addNote({ body: "buy milk" });`,
  },
  {
    name: "recur",
    id: "recur",
    doc: RECURSIVE,
    calls: `
      const value = await client.putItem({ params: { path: { key: "k" } }, body: ["a", 1, [null, {}, ["b"]]] });
      // @ts-expect-error a symbol is no edge value (the type is checked, not any)
      await client.putItem({ params: { path: { key: "k" } }, body: [Symbol("x")] });
      const term = await client.evaluate({ body: ["x", [2, ["y"]]] });
      const tree = await client.addRoute({ body: ["a", ["b", "c"]] });
      return [value, term, tree.kids?.[0]?.kids];`,
  },
];

const work = workDir("typecheck");
beforeAll(async () => {
  for (const c of CASES) {
    await generateSpec(work.dir, c.name, c.doc);
    const pascal = c.id[0]!.toUpperCase() + c.id.slice(1);
    writeFileSync(
      join(work.dir, `${c.name}-consumer.ts`),
      [
        `import { create${pascal}Client } from "./${c.name}-out/${c.id}/client.js";`,
        `export async function use(): Promise<unknown> {`,
        `  const client = create${pascal}Client(${CONNECTION});`,
        c.calls,
        "}",
        "",
      ].join("\n"),
    );
  }
  const tsconfig = {
    extends: join(ROOT, "tsconfig.json"),
    compilerOptions: { rootDir: ROOT, noEmit: true },
    include: [`${work.dir}/**/*.ts`],
    exclude: [],
  };
  writeFileSync(join(work.dir, "tsconfig.json"), JSON.stringify(tsconfig));
}, 120_000);
afterAll(() => work.clean());

describe("outputs of real-world spec shapes", () => {
  it("type-check, with their consumers, under strict settings", () => {
    const result = typecheck(join(work.dir, "tsconfig.json"), { againstBuiltRuntime: true });
    expect(result.output).toBe("");
  }, 180_000);
});
