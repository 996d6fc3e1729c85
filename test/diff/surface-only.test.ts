/**
 * `stepforge diff` checks each spec for its public surface only (checkSpec's `surfaceOnly`): the
 * mock is neither inferred nor given its examples, and a lenient check skips the mock's route
 * conflicts. The surface must be the one generate's full check gives, and what a strict check
 * refuses must still be refused.
 */
import { describe, expect, it } from "vitest";
import { checkSpec } from "../../generator/check/index.js";
import { surfaceOf } from "../../generator/diff/surface.js";
import { EXTENSION_PARTS } from "../../generator/check/zod-parts.js";
import { checkForDiff } from "../../generator/diff/specs.js";
import { loadSpecFile, loadSpecText } from "../../generator/load.js";
import { TRELLO_OFFICIAL } from "./trello-planted.js";

const ok = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };
const param = (name: string) => ({ name, in: "path", required: true, schema: { type: "string" } });
const get = (operationId: string, ...parameters: unknown[]) => ({ get: { operationId, parameters, responses: ok } });

/** Two routes no path parameter's schema tells apart (SF193), with or without `x-stepforge`. */
function conflicting(declared: boolean): string {
  const extension = {
    id: "routes",
    title: "Routes",
    connection: { baseUrl: "https://x.test", fields: {} },
    auth: { kind: "none" },
  };
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Routes", version: "1" },
    servers: [{ url: "https://x.test" }],
    ...(declared ? { "x-stepforge": extension } : {}),
    paths: {
      "/boards/{idBoard}/cards/{filter}": get("listCards", param("idBoard"), param("filter")),
      "/boards/{idBoard}/cards/{idCard}": get("getCard", param("idBoard"), param("idCard")),
    },
  });
}

describe("diff's check of a spec for its surface", { timeout: 120_000 }, () => {
  it("builds no mock, and the surface is the one the full check gives (Atlassian's Trello spec)", () => {
    const spec = loadSpecFile(TRELLO_OFFICIAL);
    const model = checkForDiff(spec, "trello", EXTENSION_PARTS);
    expect(model).not.toHaveProperty("mock");
    const full = checkSpec(spec, { serviceId: "trello", strict: false, lenientExamples: false });
    expect(full.mock.resources).not.toEqual({});
    expect(surfaceOf(model, "trello.json")).toEqual(surfaceOf(full, "trello.json"));
  });

  it("still refuses two routes the mock cannot tell apart in a strict spec (SF193)", () => {
    expect(() => checkForDiff(loadSpecText("routes.json", conflicting(true)), undefined, EXTENSION_PARTS)).toThrow(
      /SF193 getCard .* listCards/,
    );
    // Lenient, the conflict is only a warning (diff shows none): both operations are compared.
    const lenient = checkForDiff(loadSpecText("routes.json", conflicting(false)), "routes", EXTENSION_PARTS);
    expect(lenient.operations.map((op) => op.operationId)).toEqual(["listCards", "getCard"]);
  });
});
