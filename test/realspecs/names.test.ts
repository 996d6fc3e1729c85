/**
 * Names from any wire name: parameters `StartTime`, `StartTime<` and `StartTime>` on one operation
 * refused the spec even in lenient mode (SF301, with a pointer to a nonexistent
 * `…/x-stepforge-tool/fields`). Tool fields, methods and types are now named deterministically
 * and uniquely from symbols, case collisions and reserved words, the wire mapping keeps the real
 * name, and the calls reach the mock under it.
 */
import { describe, expect, it } from "vitest";
import { resolvePointer } from "../../generator/refs.js";
import { NAMES } from "./specs.js";
import { expectInvalidInput, generateSpec, inputSchema, refusal, serveSpecForFile } from "./helpers.js";

const served = serveSpecForFile("names", "events", NAMES);

describe("names from any wire name", () => {
  it("a lenient spec is never refused for names: only the operationId repairs are warned, each at a real place", () => {
    expect(served.generated.warnings.map((w) => w.code)).toEqual(["SF111", "SF118", "SF111"]);
    for (const w of served.generated.warnings) expect(resolvePointer(NAMES, `#${w.pointer}`), w.pointer).toBeDefined();
    expect(served.generated.model.operations.map((o) => o.operationId)).toEqual([
      "listEvents",
      "getThing",
      "delete_",
      "GetThing2",
      "then2",
    ]);
  });

  it("every field gets a distinct, valid, deterministic name; the wire mapping keeps the real one", () => {
    const step = served.generated.model.toolSteps.find((s) => s.name === "events_list_events")!;
    const names = step.fields.map((f) => f.name);
    expect(names.slice(0, 8)).toEqual([
      "id",
      "StartTime",
      "StartTime_lt",
      "StartTime_gt",
      "query_ID",
      "top",
      "f_2fa",
      expect.stringMatching(/^filter_by_the_date.*_[0-9a-z]{6}$/),
    ]);
    expect(names[9]).toBe("filter_created_gte");
    for (const name of names) expect(name).toMatch(/^[A-Za-z][A-Za-z0-9_]{0,63}$/);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
    expect(step.wire.query.map(([wire, source]) => [wire, source.from === "input" ? source.field : ""])).toEqual(
      NAMES.paths["/events/{id}"].get.parameters.slice(1).map((p, i) => [p.name, names[i + 1]]),
    );
    const tool = served.tools.find((t) => t.name === "events_list_events")!;
    expect(Object.keys(inputSchema(tool).properties)).toEqual(names);
    expect(inputSchema(tool).required).toEqual(["id", "StartTime_lt"]);
  });

  it("a call through the tool step and the client reaches the mock under the wire names", async () => {
    const viaStep = await served.step("events_list_events", {
      id: "e1",
      StartTime_lt: "2024",
      StartTime_gt: "2020",
      query_ID: "x",
      top: 3,
    });
    expect(viaStep.ok, JSON.stringify(viaStep)).toBe(true);
    // Sent as StartTime>: the mock checks StartTime< only, so a wrong wire name fails here.
    expectInvalidInput(await served.step("events_list_events", { id: "e1", StartTime_lt: "20x4" }), "StartTime_lt");
    await expect(
      served.client.listEvents!({
        params: { path: { id: "e1" }, query: { "StartTime<": "1999" } },
      }),
    ).resolves.toMatchObject({});
    await expect(
      served.client.listEvents!({
        params: { path: { id: "e1" }, query: { StartTime: "1999" } },
      }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it("a parameter without a name (Notion's spec has one) is left out with a warning, not a refusal", async () => {
    const doc = structuredClone(NAMES);
    doc.paths["/events/{id}"].get.parameters.push({ name: "", in: "header", schema: { type: "string" } });
    const { model, warnings } = await generateSpec(served.work.dir, "events-nameless", doc);
    const warning = warnings.find((w) => w.code === "SF115")!;
    expect(warning.pointer).toBe("/paths/~1events~1{id}/get/parameters/10");
    expect(warning.message).toContain("left it out");
    expect(model.operations[0]!.parameters).toHaveLength(10);
    expect(await refusal(served.work.dir, "events-nameless-strict", doc, { strict: true })).toContainEqual(
      expect.objectContaining({ code: "SF115", severity: "error" }),
    );
  });

  it("a name the spec's own x-stepforge-tool gives twice is refused at the field it names", async () => {
    const doc = structuredClone(NAMES) as typeof NAMES & Record<string, unknown>;
    Object.assign(doc.paths["/events/{id}"].get, {
      "x-stepforge-tool": { fields: { StartTime: { from: "StartTime_gt" } } },
    });
    const diagnostics = (await refusal(served.work.dir, "events-renamed", doc)).filter((d) => d.severity === "error");
    expect(diagnostics.map((d) => `${d.code} ${d.pointer}`)).toEqual([
      "SF301 /paths/~1events~1{id}/get/x-stepforge-tool/fields/StartTime",
    ]);
    expect(resolvePointer(doc, `#${diagnostics[0]!.pointer}`)).toBeDefined();
  });
});
