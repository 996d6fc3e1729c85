/** Small valid specs to mutate in tests. */
import { stringify } from "yaml";

/** A response with one widget (a new object each time: tests mutate the spec they get). */
function oneWidget(description: string): Record<string, unknown> {
  const example = { id: "w1", name: "a" };
  return { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Widget" }, example } } };
}

export function minimalSpec(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: { title: "Widgets", version: "1.0.0" },
    servers: [{ url: "https://api.widgets.example" }],
    "x-stepforge": {
      id: "widgets",
      title: "Widgets",
      connection: {
        baseUrl: "https://api.widgets.example",
        fields: { apiKey: { description: "API key", secret: true } },
      },
      auth: {
        kind: "api-key",
        modes: { header: [{ in: "header", name: "x-api-key", value: "{apiKey}" }] },
        defaultMode: "header",
      },
      limits: [
        {
          id: "rate",
          kind: "window",
          requests: 10,
          windowSeconds: 1,
          description: "10 per second",
          rejection: { status: 429 },
        },
      ],
      errors: { statuses: { "429": { kind: "rate_limited", retry: true, description: "slow down" } } },
    },
    paths: {
      "/widgets": {
        get: {
          operationId: "listWidgets",
          summary: "List widgets",
          tags: ["widgets"],
          parameters: [
            { name: "offset", in: "query", schema: { type: "integer" } },
            { name: "limit", in: "query", schema: { type: "integer" } },
          ],
          "x-stepforge-paging": {
            style: "offset",
            offsetParam: "offset",
            limitParam: "limit",
            itemsField: "items",
            maxLimit: 100,
          },
          responses: {
            "200": {
              description: "ok",
              content: {
                "application/json": { schema: { $ref: "#/components/schemas/WidgetList" }, example: { items: [] } },
              },
            },
          },
        },
        post: {
          operationId: "createWidget",
          summary: "Create a widget",
          tags: ["widgets"],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/NewWidget" } } },
          },
          responses: {
            "201": oneWidget("created"),
          },
        },
      },
      "/widgets/{id}": {
        get: {
          operationId: "getWidget",
          summary: "Get a widget",
          tags: ["widgets"],
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": oneWidget("ok"),
          },
        },
      },
    },
    components: {
      schemas: {
        Widget: {
          type: "object",
          required: ["id", "name"],
          properties: { id: { type: "string" }, name: { type: "string" }, colour: { type: ["string", "null"] } },
        },
        NewWidget: {
          type: "object",
          required: ["name"],
          properties: { name: { type: "string" }, colour: { type: "string" } },
        },
        WidgetList: {
          type: "object",
          properties: { items: { type: "array", items: { $ref: "#/components/schemas/Widget" } } },
        },
      },
    },
    ...overrides,
  };
}

/**
 * An OpenAPI document of this title (version 1) around `parts` (paths, components, servers, …), for
 * tests that need only the shape OpenAPI asks of every document and none of x-stepforge.
 */
export function openapiDocument<Parts extends object>(title: string, parts: Parts, openapi = "3.1.0") {
  return { openapi, info: { title, version: "1" }, ...parts };
}

export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0 });
}
