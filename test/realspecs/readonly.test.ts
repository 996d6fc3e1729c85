/**
 * readOnly and writeOnly: a read-only property is never a tool input (also when it is read-only
 * through `allOf: [{ $ref }]`, the spelling that made a body property `connection` an input and the
 * MCP server unconstructible), nor required in the request types; a write-only one is never in a
 * step's output. The request type is checked by tsc in typecheck.test.ts (a create call without
 * the server's `id` compiles).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalSchema } from "../../runtime/tools/export.js";
import { READ_ONLY } from "./specs.js";
import { expectInvalidInput, inputSchema, schemaNames, serveSpecForFile } from "./helpers.js";

const served = serveSpecForFile("readonly", "pets", READ_ONLY);

describe("read-only and write-only properties", () => {
  it("read-only properties are never tool inputs, at any depth, however they are marked", () => {
    const create = served.tools.find((t) => t.name === "pets_create_pet")!;
    const input = inputSchema(create);
    expect(Object.keys(input.properties)).toEqual(["name", "secret", "owner"]);
    expect(input.required).toEqual(["name"]);
    expect(Object.keys((input.properties.owner as { properties: object }).properties)).toEqual(["name"]);
  });

  it("write-only properties are never in a step's output", () => {
    const get = served.tools.find((t) => t.name === "pets_get_pet")!;
    const output = canonicalSchema(get.output, "output") as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(output.properties)).toEqual(["id", "name", "connection", "owner"]);
  });

  it("the request type refers to a write variant without the read-only requirements; responses keep the schema", () => {
    const types = readFileSync(join(served.generated.out, "pets", "types.ts"), "utf8");
    expect(types).toMatch(/"application\/json": components\["schemas"\]\["PetWrite"\];/);
    const variant = types.slice(types.indexOf("PetWrite: {"), types.indexOf("};", types.indexOf("PetWrite: {")));
    expect(variant).toMatch(/id\?: /);
    expect(variant).toMatch(/connection\?: /);
    expect(variant).toContain('owner?: components["schemas"]["OwnerWrite"]');
    // The model's own document is untouched: tool steps and the mock read the spec's schemas.
    expect(schemaNames(served)).toEqual(["Id", "Connection", "Owner", "Pet"]);
  });

  it("a create without the server's fields goes through the tool step, the client and the mock", async () => {
    const created = await served.step("pets_create_pet", {
      name: "Rex",
      secret: "s3cret",
      owner: { name: "Ada" },
    });
    expect(created.ok, JSON.stringify(created)).toBe(true);
    const refused = await served.step("pets_create_pet", {
      name: "Rex",
      id: "p1",
    });
    expectInvalidInput(refused);
    await expect(
      served.client.createPet!({
        body: { name: "Rex", owner: { name: "Ada" } },
      }),
    ).resolves.toBeTypeOf("object");
  });
});
