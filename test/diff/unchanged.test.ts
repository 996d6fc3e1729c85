/**
 * generator/diff/unchanged.ts: which operations `stepforge diff` writes as the same stub on both
 * sides, which components it drops, and the documents it leaves whole. (That the report stays the
 * same is shown on every kind of change by report-lines.ts and on a published spec by
 * trello-official.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { stubUnchanged as stub } from "../../generator/diff/unchanged.js";
import { openapiDocument } from "../helpers/spec.js";

type Json = Record<string, any>;
/** The stubbed documents, typed loosely for reading. */
const stubUnchanged = (old: Json, now: Json) => stub(old, now) as { old: Json; now: Json; stubs: number } | undefined;
const ok = (ref: string) => ({
  "200": { description: "ok", content: { "application/json": { schema: { $ref: ref } } } },
});

function doc(): Json {
  return openapiDocument("Shop", {
    paths: {
      "/orders/{id}": {
        get: {
          operationId: "getOrder",
          tags: ["orders"],
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string" } },
            { name: "fields", in: "query", schema: { type: "string" } },
          ],
          responses: ok("#/components/schemas/Order"),
        },
      },
      "/pets": { get: { operationId: "listPets", responses: ok("#/components/schemas/Pet") } },
      "/notes": { get: { operationId: "listNotes", responses: ok("#/components/schemas/Note") } },
    },
    components: {
      schemas: {
        Order: { type: "object", properties: { line: { $ref: "#/components/schemas/Line" } } },
        Line: { type: "object", properties: { qty: { type: "integer" } } },
        Pet: {
          oneOf: [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }],
          discriminator: { propertyName: "kind", mapping: { cat: "Cat", dog: "#/components/schemas/Dog" } },
        },
        Cat: { type: "object", properties: { kind: { type: "string" } } },
        Dog: { type: "object", properties: { kind: { type: "string" } } },
        Note: { type: "string" },
        Unused: { type: "string" },
      },
    },
  });
}

describe("stubbing the operations a diff cannot find changed", () => {
  it("stubs an operation whose text and components are the same, keeping its names and path parameters", () => {
    const now = doc();
    now.components.schemas.Note = { type: "string", maxLength: 10 };
    const stubbed = stubUnchanged(doc(), now)!;
    expect(stubbed.stubs).toBe(2);
    const stub = stubbed.now.paths["/orders/{id}"].get;
    expect(stub).toEqual(stubbed.old.paths["/orders/{id}"].get);
    expect(stub).toEqual({
      operationId: "getOrder",
      tags: ["orders"],
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: { "200": { description: "unchanged" } },
    });
    // The changed operation stays whole on each side.
    expect(stubbed.now.paths["/notes"].get).toEqual(now.paths["/notes"].get);
    // Nothing left reaches Order, Line, the pets or the unused schema: gone from both sides alike.
    expect(Object.keys(stubbed.now.components.schemas)).toEqual(["Note"]);
    expect(Object.keys(stubbed.old.components.schemas)).toEqual(["Note"]);
  });

  it("follows a change through the components that use it, to every operation reaching it", () => {
    const now = doc();
    now.components.schemas.Line.properties.qty = { type: "number" };
    const stubbed = stubUnchanged(doc(), now)!;
    expect(stubbed.now.paths["/orders/{id}"].get.responses).toEqual(now.paths["/orders/{id}"].get.responses);
    expect(Object.keys(stubbed.now.components.schemas)).toEqual(["Order", "Line"]);
    expect(stubbed.stubs).toBe(2);
  });

  it("keeps the schemas a discriminator mapping names by bare name", () => {
    // Cat is named by no $ref, only by the mapping; the edit is elsewhere in Pet's tree.
    const old = doc();
    old.components.schemas.Pet.oneOf = [{ $ref: "#/components/schemas/Dog" }];
    const now = structuredClone(old);
    now.components.schemas.Dog.properties.bark = { type: "boolean" };
    const stubbed = stubUnchanged(old, now)!;
    expect(Object.keys(stubbed.now.components.schemas)).toEqual(["Pet", "Cat", "Dog"]);
    expect(Object.keys(stubbed.old.components.schemas)).toEqual(["Pet", "Cat", "Dog"]);
  });

  it(
    "leaves whole a spec with x-stepforge, an operation with an x-stepforge key, or a " + "reference it cannot follow",
    () => {
      const edited = () => {
        const now = doc();
        now.components.schemas.Note = { type: "integer" };
        return now;
      };
      expect(stubUnchanged({ ...doc(), "x-stepforge": {} }, edited())).toBeUndefined();
      for (const ref of [
        "other.yaml#/Order",
        "#/paths/~1pets/get",
        "#/components/schemas/Or%64er",
        "#/components/schemas/Nope",
      ]) {
        const old = doc();
        old.paths["/orders/{id}"].get.responses = ok(ref);
        expect(stubUnchanged(old, edited()), ref).toBeUndefined();
      }
      const tooled = doc();
      tooled.paths["/pets"].get["x-stepforge-tool"] = { name: "pets" };
      const now = structuredClone(tooled);
      now.components.schemas.Note = { type: "integer" };
      expect(stubUnchanged(tooled, now)!.now.paths["/pets"].get).toEqual(tooled.paths["/pets"].get);
    },
  );

  it("reads a `mapping` that is no discriminator's (an extension's) as naming nothing, and still stubs", () => {
    const old = doc();
    old.paths["/pets"].get["x-vendor"] = { mapping: { account_sid: "sid" } };
    const now = structuredClone(old);
    now.components.schemas.Note = { type: "integer" };
    expect(stubUnchanged(old, now)!.stubs).toBe(2);
  });

  it("gives up when no operation is left alone", () => {
    const now = doc();
    for (const item of Object.values(now.paths) as Json[]) item.get.summary = "edited";
    expect(stubUnchanged(doc(), now)).toBeUndefined();
  });
});
