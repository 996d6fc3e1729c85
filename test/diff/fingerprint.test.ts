/**
 * Schema fingerprints leave documentation keywords out only where they are keywords: a property
 * named `description` or `title`, or an enum value spelled like a keyword, is data, and a change to
 * it must reach the report (diff skips the checker for operations whose fingerprints are equal).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { EXTENSION_PARTS } from "../../generator/check/zod-parts.js";
import { checkForDiff } from "../../generator/diff/specs.js";
import { compareSurfaces } from "../../generator/diff/compare.js";
import { textIds } from "../../generator/diff/digest.js";
import { schemaFingerprinter, surfaceOf } from "../../generator/diff/surface.js";
import { loadSpecText } from "../../generator/load.js";
import { RefResolver } from "../../generator/refs.js";
import { type Json, reportLines } from "./report-lines.js";

const WIDGETS = parse(readFileSync(join(import.meta.dirname, "fixtures", "widgets.yaml"), "utf8")) as Json;

async function report(before: (doc: Json) => void, edit: (doc: Json) => void): Promise<string[]> {
  const old = structuredClone(WIDGETS);
  before(old);
  return reportLines(old, edit);
}

const widgetProps = (doc: Json) => doc.components.schemas.Widget.properties;

describe("fields named like documentation keywords", { timeout: 120_000 }, () => {
  it("a response field named description changing type is reported", async () => {
    const changes = await report(
      (d) => (widgetProps(d).description = { type: "string", description: "What the widget is for" }),
      (d) => (widgetProps(d).description = { type: "integer", description: "What the widget is for" }),
    );
    expect(changes).toMatchInlineSnapshot(`
      [
        "B response-type-changed listWidgets: response field [].description: string → number [checker]",
        "B response-type-changed createWidget: response field description: string → number [checker]",
        "B response-type-changed getWidget: response field description: string → number [checker]",
      ]
    `);
  });
  it("the documentation of that field changing is still nothing", async () => {
    const changes = await report(
      (d) => (widgetProps(d).description = { type: "string", description: "What the widget is for" }),
      (d) => (widgetProps(d).description = { type: "string", description: "What it does", title: "Purpose" }),
    );
    expect(changes).toEqual([]);
  });
});

describe("schemaFingerprinter", () => {
  const fingerprint = schemaFingerprinter(new RefResolver({ openapi: "3.1.0", paths: {} }));
  const base = { type: "object", properties: { title: { type: "string" } }, description: "a thing" };
  it("counts properties named like keywords and enum values spelled like them", () => {
    expect(fingerprint({ ...base, properties: { title: { type: "number" } } })).not.toBe(fingerprint(base));
    expect(fingerprint({ type: "object", properties: {} })).not.toBe(fingerprint(base));
    expect(fingerprint({ enum: [{ title: "a" }] })).not.toBe(fingerprint({ enum: [{ title: "b" }] }));
    expect(fingerprint({ default: { description: 1 } })).not.toBe(fingerprint({ default: { description: 2 } }));
  });
  it("leaves the keywords out, at any depth of schemas, and answers the same for the same object", () => {
    const documented = {
      ...base,
      title: "Thing",
      properties: { title: { type: "string", description: "its title", examples: ["x"] } },
    };
    expect(fingerprint(documented)).toBe(fingerprint(base));
    expect(fingerprint({ items: documented })).toBe(fingerprint({ items: base }));
    expect(fingerprint(documented)).toBe(fingerprint(structuredClone(documented)));
  });
  it("with diff's text ids (no sha256): one id per distinct schema, the same across both sides", () => {
    const ids = textIds();
    const refs = new RefResolver({ openapi: "3.1.0", paths: {} });
    const [old, now] = [schemaFingerprinter(refs, ids), schemaFingerprinter(refs, ids)];
    expect(now(structuredClone(base))).toBe(old(base));
    expect(now({ ...base, properties: { title: { type: "number" } } })).not.toBe(old(base));
    expect(old(base)).toMatch(/^~[0-9a-z]+$/);
  });
});

describe("a surface written with the older fingerprint scheme", () => {
  const surface = () =>
    surfaceOf(checkForDiff(loadSpecText("w.json", JSON.stringify(WIDGETS)), "widgets", EXTENSION_PARTS), "w.json");
  const kinds = (old: ReturnType<typeof surface>) =>
    compareSurfaces(old, surface()).changes.map((c) => `${c.kind} ${c.target}: ${c.detail}`);
  // Scheme 1 hashed a field named `title` out of its object: the same schema, another hash.
  const rehashed = (old: ReturnType<typeof surface>) => {
    for (const tool of old.tools) for (const field of tool.fields) field.schema.hash = `old-${field.schema.hash}`;
    return old;
  };
  it("is not taken for a change of every tool field", () => {
    const old = rehashed(surface());
    delete old.fingerprints;
    expect(kinds(old)).toEqual([]);
  });
  it("still reports a field whose types changed", () => {
    const old = rehashed(surface());
    delete old.fingerprints;
    old.tools.find((t) => t.name === "widgets_create_widget")!.fields.find((f) => f.name === "size")!.schema.types = [
      "string",
    ];
    expect(kinds(old)).toEqual(["tool-field-changed widgets_create_widget: field size: no longer accepts string"]);
  });
  it("compares hashes of one scheme", () => {
    expect(kinds(rehashed(surface())).length).toBeGreaterThan(0);
  });
});
