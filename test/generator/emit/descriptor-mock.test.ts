/** generator/emit/descriptor.ts and generator/emit/mock.ts: data modules, the mock section only in mock.ts. */
import { describe, expect, it } from "vitest";
import { emitDescriptor } from "../../../generator/emit/descriptor.js";
import { emitMock } from "../../../generator/emit/mock.js";
import { body, context, modelOf } from "./fixture.js";

describe("emitDescriptor", () => {
  it("prints the descriptor as an object literal without the mock section", async () => {
    const model = modelOf((d) => {
      d["x-stepforge"].mock = {
        credentials: { apiKey: "k" },
        error: { contentType: "application/json", body: { message: "{message}" } },
        answers: {},
        limits: {},
        envelopes: {},
        resources: {},
      };
      d.paths = { "/widgets/{id}": d.paths["/widgets/{id}"] };
    });
    const [file] = await emitDescriptor(model, context);
    expect(file!.content).not.toContain("mock");
    expect(body(file!.content)).toMatchInlineSnapshot(`
      "import { type ServiceDescriptor, withOperationDefaults } from "stepforge/runtime";

      /**
       * Everything the runtime needs to know about Widgets: auth, limits, error meanings and operations, from the spec's x-stepforge extensions.
       */
      export const descriptor: ServiceDescriptor = {
        id: "widgets",
        title: "Widgets",
        connection: {
          baseUrl: "https://api.widgets.example",
          fields: { apiKey: { description: "API key", secret: true, required: true } },
        },
        auth: {
          kind: "api-key",
          modes: { header: [{ in: "header", name: "x-api-key", value: "{apiKey}" }] },
          defaultMode: "header",
        },
        limits: [
          {
            kind: "window",
            id: "rate",
            applies: "all",
            per: "connection",
            rejection: { status: 429 },
            requests: 10,
            windowSeconds: 1,
          },
        ],
        errors: {
          messageFields: ["message", "error"],
          requestIdHeaders: [],
          retryAfterHeaders: ["retry-after"],
          codes: {},
          statuses: { "429": { kind: "rate_limited", retry: true, reauth: false } },
        },
        operations: withOperationDefaults({ getWidget: { method: "GET", path: "/widgets/{id}" } }),
      };
      "
    `);
  });
});

describe("emitMock", () => {
  it("carries the mock model and each operation's parameters, body schema and success example", async () => {
    const model = modelOf((d) => {
      d.paths = { "/widgets/{id}": d.paths["/widgets/{id}"] };
      d.components.schemas = { Widget: d.components.schemas.Widget };
    });
    const [file] = await emitMock(model, context);
    expect(body(file!.content)).toMatchInlineSnapshot(`
      "import { registerMock, startMockServer } from "stepforge/runtime/mock";
      import type { MockDefinition, MockOptions, RunningMock } from "stepforge/runtime/mock";
      import { descriptor } from "./descriptor.js";

      /**
       * What the mock of Widgets does, from specs/widgets.yaml: the mock model, each operation's parameters, body schema and success answer, and the spec's schemas.
       *
       * Written as JSON text: a type-checker scans it as one string instead of checking thousands of nodes in every project that compiles this module.
       */
      const mockData: Omit<MockDefinition, "descriptor"> = JSON.parse(\`
        {
          "mock": {
            "credentials": { "apiKey": "mock-apiKey" },
            "anyCredential": true,
            "error": { "contentType": "application/json", "body": { "message": "{message}" } },
            "answers": {},
            "limits": { "rate": { "message": "10 per second", "retryAfter": false } },
            "envelopes": {},
            "pageSize": 100,
            "resources": {}
          },
          "operations": {
            "getWidget": {
              "operationId": "getWidget",
              "method": "GET",
              "path": "/widgets/{id}",
              "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string" } }],
              "success": {
                "status": 200,
                "contentType": "application/json",
                "example": { "id": "w1", "name": "a" },
                "schema": { "$ref": "#/components/schemas/Widget" }
              }
            }
          },
          "components": {
            "schemas": {
              "Widget": {
                "type": "object",
                "required": ["id", "name"],
                "properties": {
                  "id": { "type": "string" },
                  "name": { "type": "string" },
                  "colour": { "type": ["string", "null"] }
                }
              }
            }
          }
        }
      \`);

      /** The behavioural mock of Widgets: its descriptor and the data above. */
      export const mockDefinition: MockDefinition = registerMock({ descriptor, ...mockData });

      /** Starts the Widgets mock on 127.0.0.1 (a free port unless \`options.server.port\`); \`close()\` stops it. */
      export function startWidgetsMock(options: MockOptions = {}): Promise<RunningMock> {
        return startMockServer(mockDefinition, options);
      }
      "
    `);
  });
});
