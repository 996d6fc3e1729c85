/**
 * A oneOf body whose branches are told apart by `const` alone (no `type` beside it, as OpenAPI 3.1
 * and a discriminator allow): found from outside, the tool step read `{ const: email }` as "any
 * value", so `{ channel: "email", phone }` matched the sms branch, was sent, and came back as a bare
 * 422 naming no field. The step now refuses it before sending, naming the field.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadService, type LoadedService } from "../../cli/services.js";
import { packageRoot } from "../../generator/package-root.js";
import { validateInput } from "../../runtime/tools/execute.js";
import { exportTools } from "../../runtime/tools/export.js";

const source = {
  id: "notes",
  specFile: join(import.meta.dirname, "fixtures", "notes-patch.yaml"),
  origin: "spec" as const,
};
let service: LoadedService;
const step = () => service.tools.find((t) => t.name === "notes_add_reminder")!;

beforeAll(async () => {
  service = await loadService(source, packageRoot());
});

describe("a oneOf body told apart by const", () => {
  it("takes each branch with its own constant", () => {
    expect(validateInput(step(), { note_id: "n1", body: { channel: "email", email: "a@b.example" } })).toMatchObject({
      ok: true,
    });
    expect(validateInput(step(), { note_id: "n1", body: { channel: "sms", phone: "+4412345678" } })).toMatchObject({
      ok: true,
    });
  });

  it("refuses a constant of one branch with the fields of another, before anything is sent", () => {
    const result = validateInput(step(), { note_id: "n1", body: { channel: "email", phone: "+4412345678" } });
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).toMatch(/body/);
    expect(validateInput(step(), { note_id: "n1", body: { channel: "fax", phone: "+4412345678" } }).ok).toBe(false);
  });

  it("exports the constants to the providers", () => {
    const [openai] = exportTools([step()], "openai").tools as Array<{ function: { parameters: unknown } }>;
    const text = JSON.stringify(openai!.function.parameters);
    expect(text).toContain('"const":"email"');
    expect(text).toContain('"const":"sms"');
  });
});
