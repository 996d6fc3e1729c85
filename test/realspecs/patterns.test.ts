/**
 * One reading of a `pattern`: ECMA-262 with the `u` flag. A spec whose patterns were written for
 * JavaScript without `u` (`^[\w-.]+$`, `^\d+\:\d+$`) generates with SF163 warnings, and the tool
 * step, the client's call and the mock then agree on every value: before, the check stage read
 * them without `u`, the mock's validator with it, and the mock answered every POST with 500.
 */
import { describe, expect, it } from "vitest";
import { resolvePointer } from "../../generator/refs.js";
import { PATTERNS } from "./specs.js";
import { expectInvalidInput, refusal, serveSpecForFile } from "./helpers.js";

const served = serveSpecForFile("patterns", "slugs", PATTERNS);

describe("patterns read with the u flag everywhere", () => {
  it("generate warns with SF163 at each pattern, saying how it reads it; --strict refuses it", async () => {
    const warnings = served.generated.warnings.filter((w) => w.code === "SF163");
    expect(warnings.map((w) => w.pointer)).toEqual([
      "/paths/~1slugs/post/parameters/0/schema/pattern",
      "/paths/~1slugs/post/requestBody/content/application~1json/schema/properties/slug/pattern",
      "/paths/~1slugs/post/requestBody/content/application~1json/schema/properties/ratio/pattern",
    ]);
    for (const w of warnings) expect(resolvePointer(PATTERNS, `#${w.pointer}`)).toBeTypeOf("string");
    expect(warnings[0]!.message).toContain('read it as "^\\\\d+:\\\\d+$"');
    expect(warnings[1]!.message).toContain('read it as "^[\\\\w\\\\-.]+$"');
    expect(warnings[2]!.message).toContain("it is not checked");
    const refused = await refusal(served.work.dir, "slugs-strict", PATTERNS, {
      strict: true,
    });
    expect(refused.filter((d) => d.code === "SF163").map((d) => d.severity)).toEqual(["error", "error", "error"]);
    expect(refused[1]!.message).toContain('write it as "^[\\\\w\\\\-.]+$"');
  });

  it("a value the pattern allows passes the tool step and the mock", async () => {
    const ok = await served.step("slugs_create_slug", {
      slug: "release-1.2_final",
      at: "12:30",
    });
    expect(ok.ok, JSON.stringify(ok)).toBe(true);
    await expect(
      served.client.createSlug!({
        params: { query: { at: "9:05" } },
        body: { slug: "a.b-c" },
      }),
    ).resolves.toBeTypeOf("object");
  });

  it("a value it refuses is refused by the tool step and by the mock alike, naming the field", async () => {
    expectInvalidInput(await served.step("slugs_create_slug", { slug: "two words" }), "slug");
    await expect(served.client.createSlug!({ body: { slug: "two words" } })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("slug"),
    });
    expectInvalidInput(await served.step("slugs_create_slug", { slug: "ok", at: "12-30" }), "at");
    await expect(
      served.client.createSlug!({
        params: { query: { at: "12-30" } },
        body: { slug: "ok" },
      }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it("a pattern with no u reading is checked nowhere, so no part refuses what another accepts", async () => {
    const step = await served.step("slugs_create_slug", {
      slug: "ok",
      ratio: "zzz",
    });
    expect(step.ok, JSON.stringify(step)).toBe(true);
    await expect(served.client.createSlug!({ body: { slug: "ok", ratio: "zzz" } })).resolves.toBeTypeOf("object");
  });
});
