import { describe, expect, it } from "vitest";
import { refusedFor } from "../helpers/refused.js";
import type { Diagnostic } from "../../generator/diagnostics.js";
import { loadSpecText } from "../../generator/load.js";
import { checkSpec as validateSpec } from "../../generator/check/index.js";
import { toIdentifier as identifierOf } from "../../generator/names.js";
import { minimalSpec, toYaml } from "../helpers/spec.js";

function validate(doc: unknown) {
  return validateSpec(loadSpecText("spec.yaml", toYaml(doc)));
}

const problems = (doc: unknown): Diagnostic[] => refusedFor("spec.yaml", toYaml(doc));

/** The minimal spec with one change made by `edit`. */
function mutated(edit: (doc: any) => void) {
  const doc = minimalSpec();
  edit(doc);
  return doc;
}

describe("validate: the model", () => {
  it("builds the model and the runtime descriptor from a valid spec", () => {
    const model = validate(minimalSpec());
    expect(model.id).toBe("widgets");
    expect(model.operations.map((o) => `${o.method} ${o.path} ${o.operationId}`)).toEqual([
      "GET /widgets listWidgets",
      "POST /widgets createWidget",
      "GET /widgets/{id} getWidget",
    ]);
    const [list, create, get] = model.operations;
    expect(list).toMatchObject({
      requiresInput: false,
      idempotent: true,
      limitClass: "read",
      paging: { style: "offset" },
    });
    expect(create).toMatchObject({ requiresInput: true, idempotent: false, limitClass: "write", bodyRequired: true });
    expect(get!.requiresInput).toBe(true);
    expect(model.descriptor.operations.createWidget).toEqual({
      operationId: "createWidget",
      method: "POST",
      path: "/widgets",
      idempotent: false,
      limitClass: "write",
    });
    // Defaults from the schema are applied, not left for the runtime to guess.
    expect(model.descriptor.limits[0]).toMatchObject({ applies: "all", per: "connection" });
  });

  it("honours idempotency and limit-class overrides", () => {
    const model = validate(
      mutated((d) =>
        Object.assign(d.paths["/widgets"].post, { "x-stepforge-idempotent": true, "x-stepforge-limit-class": "read" }),
      ),
    );
    expect(model.descriptor.operations.createWidget).toMatchObject({ idempotent: true, limitClass: "read" });
  });

  it("turns operationIds like get-stations into method names; a missing one is an error in a strict spec", () => {
    expect(identifierOf("get-stations")).toBe("getStations");
    expect(identifierOf("List pets")).toBe("listPets");
    expect(identifierOf("List_Pets")).toBe("List_Pets");
    const model = validate(mutated((d) => (d.paths["/widgets"].get.operationId = "list-widgets")));
    expect(model.operations.map((o) => o.operationId)).toEqual(["listWidgets", "createWidget", "getWidget"]);
    const [p] = problems(mutated((d) => delete d.paths["/widgets/{id}"].get.operationId));
    expect(p).toMatchObject({ code: "SF117", severity: "error", pointer: "/paths/~1widgets~1{id}/get" });
  });
});

describe("validate: errors name the place and the fix", () => {
  it("a typo in an x-stepforge key is an error at its line, not a silent default", () => {
    const doc = mutated((d) => {
      d["x-stepforge"].limits[0].windowSecond = 1;
    });
    const [p] = problems(doc);
    expect(p).toMatchObject({ code: "SF120", file: "spec.yaml" });
    expect(p!.message).toContain('unknown key "windowSecond"; did you mean "windowSeconds"?');
    const line =
      toYaml(doc)
        .split("\n")
        .findIndex((l) => /\bwindowSecond:/.test(l)) + 1;
    expect(p!.line).toBe(line);
  });

  it("a wrong value type names the field", () => {
    const [p] = problems(mutated((d) => (d["x-stepforge"].limits[0].requests = "ten")));
    expect(p!.message).toBe(
      "x-stepforge.limits[0].requests: expected a whole number above 0, found a string " +
        '("ten"); write a number, without quotes',
    );
  });

  it("an unknown auth kind is refused", () => {
    const [p] = problems(mutated((d) => (d["x-stepforge"].auth.kind = "api_key")));
    expect(p!.code).toBe("SF120");
    expect(p!.message).toContain("x-stepforge.auth.kind");
  });

  it("a misspelt operation extension suggests the right name", () => {
    const [p] = problems(mutated((d) => (d.paths["/widgets"].get["x-stepforge-pagging"] = {})));
    expect(p).toMatchObject({ code: "SF109" });
    expect(p!.message).toContain('did you mean "x-stepforge-paging"');
  });

  it("placeholders and limits must name connection fields", () => {
    const list = problems(
      mutated((d) => {
        d["x-stepforge"].auth.modes.header[0].value = "{apiKye}";
        d["x-stepforge"].limits[0].per = "field:token";
      }),
    );
    expect(list.map((p) => p.code)).toEqual(["SF121", "SF121"]);
    expect(list[0]!.message).toContain('"apiKye" is not a connection field');
  });

  it("paging must name real parameters", () => {
    const [p] = problems(mutated((d) => (d.paths["/widgets"].get["x-stepforge-paging"].offsetParam = "start")));
    expect(p).toMatchObject({ code: "SF131" });
    expect(p!.message).toContain('offsetParam "start" is not a parameter');
  });

  it("undeclared path parameters and broken references are found in one pass", () => {
    const list = problems(
      mutated((d) => {
        d.paths["/widgets/{id}"].get.parameters = [];
        d.paths["/widgets"].post.requestBody.content["application/json"].schema.$ref = "#/components/schemas/Nope";
      }),
    );
    expect(list.map((p) => p.code).sort()).toEqual(["SF107", "SF113"]);
  });

  it("duplicate operationIds are refused", () => {
    const [p] = problems(mutated((d) => (d.paths["/widgets/{id}"].get.operationId = "listWidgets")));
    expect(p).toMatchObject({ code: "SF112" });
    expect(p!.message).toContain("GET /widgets");
  });

  it("Swagger 2 and missing paths are refused with what to do", () => {
    expect(problems({ swagger: "2.0", info: { title: "x", version: "1" }, paths: {} })[0]!.message).toContain(
      "convert the document to OpenAPI 3",
    );
    expect(problems({ openapi: "3.1.0", info: { title: "x", version: "1" } })[0]!.code).toBe("SF103");
  });

  it("tool-step problems (SF301) come from the check stage that lint and generate share", () => {
    const list = problems(
      mutated((d) => (d.paths["/widgets"].post["x-stepforge-tool"] = { fixed: { nope: 1 }, omit: ["name"] })),
    );
    expect(list.map((p) => `${p.code} ${p.pointer}`)).toEqual([
      "SF301 /paths/~1widgets/post/x-stepforge-tool/fixed/nope",
      "SF301 /paths/~1widgets/post/x-stepforge-tool/omit",
    ]);
  });

  it("unknown schema keywords are errors in a strict spec, pointing at the key", () => {
    const [p] = problems(mutated((d) => (d.components.schemas.Widget.properties.id["when it has one."] = null)));
    expect(p).toMatchObject({
      code: "SF161",
      severity: "error",
      pointer: "/components/schemas/Widget/properties/id/when it has one.",
    });
    expect(p!.message).toContain("YAML flow mapping");
  });

  it("external references are refused until bundled", () => {
    const [p] = problems(
      mutated(
        (d) => (d.paths["/widgets"].post.requestBody.content["application/json"].schema = { $ref: "other.yaml#/X" }),
      ),
    );
    expect(p).toMatchObject({ code: "SF106" });
  });
});

describe("validate: foreign specs without x-stepforge", () => {
  it("derives id, base address and api-key auth from the spec", () => {
    const doc = minimalSpec();
    delete doc["x-stepforge"];
    for (const op of [doc.paths as any].flatMap((p) => Object.values(p).flatMap((i: any) => Object.values(i))))
      delete (op as any)["x-stepforge-paging"];
    (doc as any).components.securitySchemes = { key: { type: "apiKey", in: "query", name: "api_key" } };
    (doc as any).security = [{ key: [] }];
    const model = validate(doc);
    expect(model.declared).toBe(false);
    expect(model.descriptor).toMatchObject({
      id: "widgets",
      connection: { baseUrl: "https://api.widgets.example", fields: { apiKey: { secret: true } } },
      auth: { kind: "api-key", modes: { default: [{ in: "query", name: "api_key", value: "{apiKey}" }] } },
    });
  });

  it("a spec without servers gets a baseUrl connection field", () => {
    const doc = minimalSpec();
    delete doc["x-stepforge"];
    delete doc.servers;
    delete (doc as any).paths["/widgets"].get["x-stepforge-paging"];
    const model = validate(doc);
    expect(model.descriptor.connection).toMatchObject({ baseUrl: "{baseUrl}", fields: { baseUrl: { secret: false } } });
    expect(model.descriptor.auth.kind).toBe("none");
  });
});

describe("validate: OpenAPI webhooks without x-stepforge-triggers", () => {
  // Found from outside: a user's spec with `webhooks` generated no trigger and said nothing.
  it("warns that no trigger is made from them, naming them and where to declare one", () => {
    const doc = mutated((d) => {
      d.webhooks = {
        invoicePaid: { post: { requestBody: { content: {} }, responses: { "200": { description: "ok" } } } },
      };
    });
    const model = validate(doc);
    expect(model.triggers).toBeUndefined();
    expect(model.warnings.filter((w) => w.code === "SF156").map((w) => [w.pointer, w.message])).toEqual([
      [
        "/webhooks",
        expect.stringMatching(
          /^the spec describes a webhook \(invoicePaid\) but no x-stepforge-triggers, so no trigger/,
        ),
      ],
    ]);
    // Without webhooks, no warning.
    expect(validate(minimalSpec()).warnings.filter((w) => w.code === "SF156")).toEqual([]);
  });
});
