/**
 * mock.ts of a service: the behavioural mock's definition (descriptor, the mock model — service
 * behaviour from `x-stepforge.mock` or a derived one — and per operation the parameters, body
 * schema and success example it validates and answers with) and a `start<Service>Mock(options)`
 * function. Importing it registers the service with the mock registry. The engine is runtime/mock;
 * this file only carries data, all of it from the model, as JSON text (print.ts `jsonData`).
 */
import { lean } from "../schema.js";
import { call, constStatement, jsdoc, jsonData, obj, str } from "../print.js";
import { moduleText, pascal, runtimeModule, type Emitter } from "./file.js";

export const emitMock: Emitter = (model, context) => {
  const name = `start${pascal(model.id)}Mock`;
  const mock = str(runtimeModule(context, "mock"));
  // A limit's refusal message is its description unless the mock gives one; clients' descriptors
  // ship no descriptions (emit/descriptor.ts), so the mock carries each text in its own data.
  const limitTexts = Object.fromEntries(
    model.descriptor.limits.map((l) => [l.id, { message: l.description, retryAfter: false }]),
  );
  const data = {
    mock: { ...model.mock, limits: { ...limitTexts, ...model.mock.limits } },
    operations: Object.fromEntries(model.operations.map((op) => [op.operationId, op.mock])),
    components: lean(model.refs.inlineOutside(model.components)),
  };
  const body = [
    `import { registerMock, startMockServer } from ${mock};`,
    `import type { MockDefinition, MockOptions, RunningMock } from ${mock};`,
    `import { descriptor } from "./descriptor.js";`,
    "",
    jsdoc(
      `What the mock of ${model.title} does, from ${context.specLabel}: the mock model, ` +
        `each operation's parameters, body schema and success answer, and the spec's ` +
        `schemas.\n\n` +
        "Written as JSON text: a type-checker scans it as one string instead of checking " +
        "thousands of nodes in every project that compiles this module.",
    ),
    `const mockData: Omit<MockDefinition, "descriptor"> = ${jsonData(data)};`,
    "",
    jsdoc(`The behavioural mock of ${model.title}: its descriptor and the data above.`),
    // Importing the module registers the service, so `startMock("<id>")` finds it by name.
    constStatement("mockDefinition", call("registerMock", obj([["descriptor"], ["...mockData"]])), {
      exported: true,
      type: "MockDefinition",
    }),
    "",
    jsdoc(
      `Starts the ${model.title} mock on 127.0.0.1 (a free port unless \`options.server.port\`); \`close()\` stops it.`,
    ),
    `export function ${name}(options: MockOptions = {}): Promise<RunningMock> {`,
    "  return startMockServer(mockDefinition, options);",
    "}",
  ];
  return [{ path: `${model.id}/mock.ts`, content: moduleText(context.specLabel, body), ownEntry: true }];
};
