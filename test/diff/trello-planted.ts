/**
 * Planted changes in a copy of Atlassian's official Trello spec (test/corpus/specs/trello-openapi.json),
 * each with the change the report must contain. Used by test/diff/trello-official.test.ts and
 * bench/regen.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const TRELLO_OFFICIAL = join(import.meta.dirname, "..", "corpus", "specs", "trello-openapi.json");

type Json = Record<string, any>;

export interface Planted {
  /** What was edited, in words. */
  edit: string;
  /** The change the report must list: kind, breaking, target operation, and text in its detail. */
  expect: { kind: string; breaking: boolean; target: string; detail: string };
}

/** The official spec with every planted change applied, and the list of what must be found. */
export function plantedTrello(): { text: string; planted: Planted[] } {
  const doc = JSON.parse(readFileSync(TRELLO_OFFICIAL, "utf8")) as Json;
  const paths = doc.paths as Json;
  const schemas = doc.components.schemas as Json;
  const planted: Planted[] = [];
  const plant = (edit: string, expect: Planted["expect"], apply: () => void) => {
    apply();
    planted.push({ edit, expect });
  };

  plant(
    "operationId of POST /cards renamed",
    { kind: "operation-renamed", breaking: true, target: "createCard", detail: "postCards → createCard" },
    () => {
      paths["/cards"].post.operationId = "create-card";
    },
  );
  plant(
    "DELETE /actions/{id} removed",
    { kind: "operation-removed", breaking: true, target: "deleteActionsId", detail: "DELETE /actions/{id}" },
    () => {
      delete paths["/actions/{id}"].delete;
    },
  );
  plant(
    "GET /cards/{id}/planted added",
    { kind: "operation-added", breaking: false, target: "getCardsIdPlanted", detail: "GET /cards/{id}/planted" },
    () => {
      paths["/cards/{id}/planted"] = {
        get: {
          operationId: "get-cards-id-planted",
          summary: "A planted operation",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": {
              description: "ok",
              content: { "application/json": { schema: { type: "object", properties: { ok: { type: "boolean" } } } } },
            },
          },
        },
      };
    },
  );
  const getAction = paths["/actions/{id}"].get;
  plant(
    "query parameter display of GET /actions/{id} removed",
    { kind: "parameter-removed", breaking: true, target: "getActionsId", detail: "query parameter display" },
    () => {
      getAction.parameters = getAction.parameters.filter((p: Json) => p.name !== "display");
    },
  );
  const putCard = paths["/cards/{id}"].put;
  plant(
    "required query parameter planted added to PUT /cards/{id}",
    { kind: "parameter-added", breaking: true, target: "putCardsId", detail: "query parameter planted: required" },
    () => {
      putCard.parameters.push({ name: "planted", in: "query", required: true, schema: { type: "string" } });
    },
  );
  const postCards = paths["/cards"].post;
  plant(
    "query parameter name of POST /cards made required",
    { kind: "parameter-required", breaking: true, target: "createCard", detail: "query parameter name" },
    () => {
      postCards.parameters.find((p: Json) => p.name === "name").required = true;
    },
  );
  const putBoard = paths["/boards/{id}"].put;
  plant(
    "query parameter desc of PUT /boards/{id} renamed to description",
    {
      kind: "parameter-renamed",
      breaking: true,
      target: "putBoardsId",
      detail: "query parameter desc → description",
    },
    () => {
      putBoard.parameters.find((p: Json) => p.name === "desc").name = "description";
    },
  );
  plant(
    "path parameter id of GET /actions/{id}/board renamed to idAction",
    {
      kind: "parameter-renamed",
      breaking: true,
      target: "getActionsIdBoard",
      detail: "path parameter id → idAction",
    },
    () => {
      const item = paths["/actions/{id}/board"];
      item.get.parameters.find((p: Json) => p.name === "id").name = "idAction";
      delete paths["/actions/{id}/board"];
      paths["/actions/{idAction}/board"] = item;
    },
  );
  plant(
    "enum value bottom of posStringOrNumber removed (request)",
    { kind: "parameter-type-changed", breaking: true, target: "postChecklists", detail: "query parameter pos" },
    () => {
      schemas.posStringOrNumber.oneOf[0].enum = ["top"];
    },
  );
  plant(
    "response field desc of Card removed",
    { kind: "response-field-removed", breaking: true, target: "getCardsId", detail: "response field desc: removed" },
    () => {
      delete schemas.Card.properties.desc;
    },
  );
  plant(
    "response field closed of Card changed from boolean to string",
    {
      kind: "response-type-changed",
      breaking: true,
      target: "getCardsId",
      detail: "response field closed: boolean → string",
    },
    () => {
      schemas.Card.properties.closed = { type: "string" };
    },
  );
  plant(
    "enum value `lost` added to CheckItem.state (response)",
    {
      kind: "response-enum-value-added",
      breaking: true,
      target: "putCardsIdcardChecklistIdchecklistCheckitemIdcheckitem",
      detail: 'value "lost" added',
    },
    () => {
      schemas.CheckItem.properties.state.enum.push("lost");
    },
  );
  plant(
    "response field planted added to Board",
    {
      kind: "response-field-added",
      breaking: false,
      target: "getActionsIdBoard",
      detail: "response field planted: optional",
    },
    () => {
      schemas.Board.properties.planted = { type: "string" };
    },
  );
  plant(
    "request field pos of PUT /customFields/{id} made required",
    {
      kind: "request-field-required",
      breaking: true,
      target: "putCustomfieldsId",
      detail: "request field pos: now required",
    },
    () => {
      paths["/customFields/{id}"].put.requestBody.content["application/json"].schema.required = ["pos"];
    },
  );
  plant(
    "optional request field planted added to POST /actions/{idAction}/reactions",
    {
      kind: "request-field-added",
      breaking: false,
      target: "postActionsIdactionReactions",
      detail: "request field planted: optional",
    },
    () => {
      paths["/actions/{idAction}/reactions"].post.requestBody.content["application/json"].schema.properties.planted = {
        type: "string",
      };
    },
  );
  return { text: JSON.stringify(doc), planted };
}
