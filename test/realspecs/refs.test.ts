/**
 * `$ref` to any JSON pointer of the document, and schemas found by position: a spec whose
 * references point inside other nodes (`#/components/schemas/Tag/allOf/0`,
 * `#/components/parameters/limit/schema`, `#/paths/…/schema`, a self-reference through a nested
 * node) and whose parameter component is named `schema`. It generates leniently without a warning
 * and under `--strict`, its types name only schema components, and its tool step and client call
 * the mock, which checks what the referenced schemas say.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEEP_REFS } from "./specs.js";
import { expectInvalidInput, inputSchema, refusal, schemaNames, serveSpecForFile } from "./helpers.js";

const served = serveSpecForFile("refs", "deep", DEEP_REFS);

describe("$ref to any pointer of the document", () => {
  it("generates without a warning, and --strict accepts the parameter component named schema", async () => {
    expect(served.generated.warnings.map((w) => `${w.code} ${w.message}`)).toEqual([]);
    expect(await refusal(served.work.dir, "deep-strict", DEEP_REFS, { strict: true })).toEqual([]);
  });

  it("types.ts names schema components only, never a path inside one", () => {
    const types = readFileSync(join(served.generated.out, "deep", "types.ts"), "utf8");
    expect(types).not.toMatch(/\]\["(allOf|properties|0)"\]|\["limit"\]\["schema"\]/);
    expect(types).toContain('"application/json": components["schemas"]["Tag_allOf_0"][]');
    expect(types).toContain('max?: components["schemas"]["parameters_limit_schema"]');
    expect(schemaNames(served)).toEqual([
      "Tag",
      "Issue",
      "Tree",
      "Tree_properties_leaf",
      "parameters_limit_schema",
      "Tag_allOf_0",
    ]);
  });

  it("the tool step checks the referenced parameter schema, and the mock the referenced body schema", async () => {
    const list = served.tools.find((t) => t.name === "deep_list_tags")!;
    expect(inputSchema(list).properties.max).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 50,
    });
    expect(inputSchema(list).properties.schema).toMatchObject({
      enum: ["full", "short"],
    });
    const refused = await served.step("deep_list_tags", { max: 0 });
    expectInvalidInput(refused);
    const listed = await served.step("deep_list_tags", {
      max: 3,
      schema: "full",
    });
    expect(listed.ok, JSON.stringify(listed)).toBe(true);
    for (const tag of (listed as { data: { items: Array<{ name: string }> } }).data.items)
      expect(tag.name.length).toBeGreaterThanOrEqual(2);

    const created = (await served.client.createTag!({
      body: { name: "urgent" },
    })) as { name: string };
    expect(created.name.length).toBeGreaterThanOrEqual(2);
    // The mock validates against Tag/allOf/0 (name of two characters or more).
    await expect(served.client.createTag!({ body: { name: "u" } })).rejects.toMatchObject({ status: 400 });
    const step = await served.step("deep_create_tag", { name: "x" });
    expectInvalidInput(step);
  });

  it("a property that is allOf of its own schema is cut in the tool step (it recursed without end)", async () => {
    const create = served.tools.find((t) => t.name === "deep_create_issue")!;
    const parent = inputSchema(create).properties.parent as { properties: Record<string, { description?: string }> };
    expect(Object.keys(parent.properties)).toEqual(["key", "parent"]);
    expect(parent.properties.parent!.description).toMatch(/recursive/);
    const created = await served.step("deep_create_issue", { key: "A-2", parent: { key: "A-1" } });
    expect(created.ok, JSON.stringify(created)).toBe(true);
  });

  it("a schema that refers to itself through a nested node is cut in the tool step and sent whole", async () => {
    const plant = served.tools.find((t) => t.name === "deep_plant_tree")!;
    expect(Object.keys(inputSchema(plant).properties)).toEqual(["value", "next"]);
    const planted = await served.step("deep_plant_tree", {
      value: "oak",
      next: { value: "ash", next: { value: "elm" } },
    });
    expect(planted.ok, JSON.stringify(planted)).toBe(true);
  });
});
