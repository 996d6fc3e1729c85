/** generator/emit/client.ts */
import { describe, expect, it } from "vitest";
import { emitClient } from "../../../generator/emit/client.js";
import { body, context, modelOf } from "./fixture.js";

describe("emitClient", () => {
  it("one method per operation, typed from paths, with its doc comment", async () => {
    const model = modelOf((d) => {
      d.paths = { "/widgets/{id}": d.paths["/widgets/{id}"] };
      d.paths["/widgets/{id}"].get.description = "Ends */ here\nand goes on.";
    });
    const [file] = await emitClient(model, context);
    expect(body(file!.content)).toMatchInlineSnapshot(`
      "import { createClient } from "stepforge/runtime";
      import type { ClientOptions, OperationData, PageItem, PagingOptions, ServiceClient } from "stepforge/runtime";
      import { descriptor } from "./descriptor.js";
      import type { paths } from "./types.js";

      /** The getWidget operation as the spec describes it. */
      export type GetWidgetOperation = paths["/widgets/{id}"]["get"];
      /** What getWidget takes: parameters and body. */
      export type GetWidgetInput = { params: GetWidgetOperation["parameters"]; body?: never; signal?: AbortSignal };
      /** What getWidget returns on success. */
      export type GetWidgetData = OperationData<GetWidgetOperation>;

      /**
       * Typed client for Widgets: one method per operation of specs/widgets.yaml.
       *
       * Calls resolve to the success body or throw a StepforgeError subclass (auth, rate_limited, …).
       */
      export class WidgetsClient {
        /** The untyped service client underneath (descriptor, base address, call by id). */
        public readonly core: ServiceClient;

        constructor(options: ClientOptions) {
          this.core = createClient(descriptor, options);
        }

        /**
         * Get a widget
         *
         * \`GET /widgets/{id}\`
         *
         * Ends *\\/ here
         * and goes on.
         */
        getWidget(init: GetWidgetInput): Promise<GetWidgetData> {
          return this.core.call("getWidget", init) as Promise<GetWidgetData>;
        }
      }

      /** Creates a WidgetsClient for one named connection. */
      export function createWidgetsClient(options: ClientOptions): WidgetsClient {
        return new WidgetsClient(options);
      }
      "
    `);
  });

  it(
    "input types say what is required, from the model: parameters, a required, optional " +
      "or absent body, every media type",
    async () => {
      const model = modelOf((d) => {
        const json = (schema: unknown) => ({ schema });
        d.paths = {
          "/a": {
            post: {
              operationId: "required",
              requestBody: {
                required: true,
                content: {
                  "application/json": json({ type: "object" }),
                  "multipart/form-data": json({ type: "object" }),
                },
              },
              responses: { "204": { description: "none" } },
            },
          },
          "/b": {
            post: {
              operationId: "optional",
              parameters: [{ name: "q", in: "query", schema: { type: "string" } }],
              requestBody: { content: { "application/json": json({ type: "object" }) } },
              responses: { "204": { description: "none" } },
            },
          },
          "/c": {
            post: { operationId: "empty", requestBody: { content: {} }, responses: { "204": { description: "none" } } },
          },
        };
      });
      const [file] = await emitClient(model, context);
      const text = file!.content;
      expect(
        text.slice(text.indexOf("export type RequiredInput"), text.indexOf("/** What required returns")),
      ).toMatchInlineSnapshot(`
      "export type RequiredInput = {
        params?: RequiredOperation["parameters"];
        body: RequiredOperation["requestBody"]["content"]["application/json"] | RequiredOperation["requestBody"]["content"]["multipart/form-data"];
        signal?: AbortSignal;
      };
      "
    `);
      expect(text).toContain(
        `export type OptionalInput = {\n  params?: OptionalOperation["parameters"];\n  ` +
          `body?: NonNullable<OptionalOperation["requestBody"]>["content"]["application/json"];`,
      );
      expect(text).toContain(
        `export type EmptyInput = { params?: EmptyOperation["parameters"]; body?: never; signal?: AbortSignal };`,
      );
    },
  );

  it("a type name the module already declares is numbered, not duplicated", async () => {
    const model = modelOf((d) => {
      d.paths = { "/operation": { get: { operationId: "operation", responses: { "204": { description: "none" } } } } };
    });
    const [file] = await emitClient(model, context);
    expect(file!.content).toContain("export type OperationData2 = OperationData<OperationOperation>;");
  });
});
