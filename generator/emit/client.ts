/**
 * client.ts of a service: a class with one method per operation. Its types come from the
 * openapi-typescript `paths` (so a wrong path, a missing required parameter or a wrong body field
 * is a compile error) and its behaviour from the runtime (`createClient`), which reads the
 * descriptor. The client is given only the runtime parts its spec needs, as values — the OAuth
 * flows when the spec's auth is an OAuth kind, paging when an operation pages, the declared wire
 * formats when an operation declares styles, a non-JSON body or its own server, the quota counting
 * when a limit is a daily, monthly or header quota — so a bundle of a
 * client without them carries none of them (issue 22). Method names are the model's operationIds (made
 * safe by the check stage's name table); the type names beside them go through this module's own
 * table.
 *
 * Each input type is written out from the model — whether parameters are required, which media
 * types the body takes — as plain indexed access into `paths`. The runtime's `OperationInit<Op>`
 * works the same out with conditional types; a consumer's compiler paid for resolving those 255
 * times on the official Trello spec (~0.18 s of every type-check).
 */
import { declaredQuotaOf, declaredWireOf } from "../../runtime/descriptor.js";
import type { SurfaceModel, SurfaceOperation } from "../model.js";
import { NameTable } from "../names.js";
import { ident, jsdoc, str, WIDTH } from "../print.js";
import { moduleText, pascal, type Emitter } from "./file.js";

/** Names this module imports or declares besides the per-operation ones. */
const IMPORTED = [
  "createClient",
  "oauthCredentials",
  "iteratePages",
  "declaredWire",
  "quotaCounting",
  "ClientOptions",
  "OperationData",
  "PageItem",
  "PagingOptions",
  "ServiceClient",
  "descriptor",
  "paths",
];

function docLines(op: SurfaceOperation): string {
  const lines = [op.summary, "", `\`${op.method} ${op.path}\``];
  if (op.description) lines.push("", op.description);
  if (op.seed?.differs) lines.push("", `Seed: "${op.seed.name}". ${op.seed.differs}`);
  if (op.deprecated) lines.push("", "@deprecated The service marks this operation deprecated.");
  return lines.join("\n");
}

/** The runtime parts (ClientParts: name and the runtime's value) the spec needs beyond the core. */
function clientParts(model: SurfaceModel): Array<[string, string]> {
  const { auth, operations } = model.descriptor;
  const parts: Array<[string, string]> = [];
  if (auth.kind === "oauth2-client-credentials" || auth.kind === "oauth2-authorization-code")
    parts.push(["credentials", "oauthCredentials"]);
  if (Object.values(operations).some((op) => op.paging)) parts.push(["paging", "iteratePages"]);
  if (Object.values(operations).some((op) => declaredWireOf(op) !== undefined)) parts.push(["wire", "declaredWire"]);
  if (declaredQuotaOf(model.descriptor.limits)) parts.push(["quotas", "quotaCounting"]);
  return parts;
}

/** The constructor's line that builds the core with the spec's parts, wrapped when it is long. */
function coreLine(parts: Array<[string, string]>): string {
  const given = parts.map(([name, value]) => `${name}: ${value}`).join(", ");
  const one = `    this.core = createClient(descriptor, options${parts.length ? `, { ${given} }` : ""});`;
  if (one.length <= WIDTH) return one;
  return [
    "    this.core = createClient(descriptor, options, {",
    ...parts.map(([k, v]) => `      ${k}: ${v},`),
    "    });",
  ].join("\n");
}

/**
 * What an operation takes, as openapi-fetch's `ParamsOption & RequestBodyOption` would work it out:
 * `params` required when any parameter is, the body as the union of its media types' schemas
 * (optional when the spec says so, `never` when there is none), and an abort signal.
 */
export function inputType(op: SurfaceOperation, operation: string): string[] {
  const members = [`${op.parameters.some((p) => p.required) ? "params" : "params?"}: ${operation}["parameters"]`];
  const types = op.body?.contentTypes ?? [];
  if (!op.body || types.length === 0) members.push("body?: never");
  else {
    const holder = op.body.required ? `${operation}["requestBody"]` : `NonNullable<${operation}["requestBody"]>`;
    members.push(
      `${op.body.required ? "body" : "body?"}: ` +
        `${types.map((type) => `${holder}["content"][${str(type)}]`).join(" | ")}`,
    );
  }
  members.push("signal?: AbortSignal");
  return members;
}

/** An object type on one line when it fits, else one member per line. */
function objectType(head: string, members: string[]): string {
  const one = `${head}{ ${members.join("; ")} };`;
  return one.length <= WIDTH ? one : `${head}{\n${members.map((m) => `  ${m};\n`).join("")}};`;
}

export const emitClient: Emitter<SurfaceModel> = (model, context) => {
  const className = `${pascal(model.id)}Client`;
  const names = new NameTable([...IMPORTED, className, `create${className}`]);
  const runtime = str(context.runtimeImport);
  const parts = clientParts(model);
  const body = [
    `import { ${["createClient", ...parts.map(([, value]) => value)].join(", ")} } from ${runtime};`,
    `import type { ClientOptions, OperationData, PageItem, PagingOptions, ServiceClient } from ${runtime};`,
    `import { descriptor } from "./descriptor.js";`,
    `import type { paths } from "./types.js";`,
    "",
  ];
  const methods: string[] = [];
  const operationIds = new Set(model.operations.map((op) => op.operationId));
  for (const op of model.operations) {
    const base = pascal(op.operationId);
    const [operation, input, data] = ["Operation", "Input", "Data"].map((suffix) =>
      ident(names.claim(`${base}${suffix}`, op.operationId).name),
    );
    body.push(
      jsdoc(`The ${op.operationId} operation as the spec describes it.`),
      `export type ${operation} = paths[${str(op.path)}][${str(op.method.toLowerCase())}];`,
      jsdoc(`What ${op.operationId} takes: parameters and body.`),
      objectType(`export type ${input} = `, inputType(op, operation!)),
      jsdoc(`What ${op.operationId} returns on success.`),
      `export type ${data} = OperationData<${operation}>;`,
    );
    methods.push(
      [
        jsdoc(docLines(op), "  "),
        `  ${ident(op.operationId)}(init: ${input}${op.requiresInput ? "" : " = {}"}): Promise<${data}> {`,
        `    return this.core.call(${str(op.operationId)}, init) as Promise<${data}>;`,
        "  }",
      ].join("\n"),
    );
    const itemsMethod = `${op.operationId}Items`;
    if (op.paging && !operationIds.has(itemsMethod)) {
      const item = ident(names.claim(`${base}Item`, `${op.operationId}#item`).name);
      body.push(
        jsdoc(`One item of ${op.operationId}'s pages (its \`${op.paging.itemsField}\`).`),
        `export type ${item} = PageItem<${data}, ${str(op.paging.itemsField)}>;`,
      );
      methods.push(
        [
          jsdoc(
            `Every item of ${op.operationId}, page after page (${op.paging.style} paging).\n\nStops after ` +
              `\`maxPages\` (100 unless given; \`Infinity\` reads all) or \`maxItems\`.`,
            "  ",
          ),
          `  ${ident(itemsMethod)}(init: ${input}${op.requiresInput ? "" : " = {}"}, paging?: PagingOptions): ` +
            `AsyncIterable<${item}> {`,
          `    return this.core.items(${str(op.operationId)}, init, paging) as AsyncIterable<${item}>;`,
          "  }",
        ].join("\n"),
      );
    }
  }
  body.push(
    "",
    jsdoc(
      `Typed client for ${model.title}: one method per operation of ${context.specLabel}.\n\nCalls ` +
        `resolve to the success body or throw a StepforgeError subclass (auth, rate_limited, ` +
        `…).`,
    ),
    `export class ${className} {`,
    jsdoc("The untyped service client underneath (descriptor, base address, call by id).", "  "),
    "  public readonly core: ServiceClient;",
    "",
    "  constructor(options: ClientOptions) {",
    coreLine(parts),
    "  }",
    ...methods.flatMap((method) => ["", method]),
    "}",
    "",
    jsdoc(`Creates a ${className} for one named connection.`),
    `export function create${className}(options: ClientOptions): ${className} {`,
    `  return new ${className}(options);`,
    "}",
  );
  return [{ path: `${model.id}/client.ts`, content: moduleText(context.specLabel, body) }];
};
