/**
 * The small specs of test/realspecs, one per class of real-world spec shape (issue 20). Each test
 * file takes its spec through generate → client and tool step → mock; typecheck.test.ts compiles
 * all their outputs, with a consumer file each, in one tsc program.
 */
import { openapiDocument } from "../helpers/spec.js";

const json = (schema: unknown) => ({ "application/json": { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const text = (extra: object = {}) => ({ type: "string", ...extra });
/** A spec of this OpenAPI version and title (version 1), with a server at api.<title>.example. */
const spec = <Document extends object>(openapi: "3.0.3" | "3.1.0", title: string, document: Document) =>
  openapiDocument(title, { servers: [{ url: `https://api.${title.toLowerCase()}.example` }], ...document }, openapi);
const ok = {
  "200": {
    description: "ok",
    content: json({ type: "object", properties: { ok: { type: "boolean" } } }),
  },
};

/** refs.test.ts: references into other nodes' insides, and a parameter component named `schema`. */
export const DEEP_REFS = spec("3.0.3", "Deep", {
  components: {
    parameters: {
      // A parameter component named like a keyword: a parameter, not a schema.
      schema: {
        name: "schema",
        in: "query",
        schema: { type: "string", enum: ["full", "short"] },
      },
      limit: {
        name: "limit",
        in: "query",
        schema: { type: "integer", minimum: 1, maximum: 50 },
      },
    },
    schemas: {
      Tag: {
        allOf: [
          {
            type: "object",
            required: ["name"],
            properties: { name: { type: "string", minLength: 2 } },
          },
          { type: "object", properties: { colour: { type: "string" } } },
        ],
      },
      // Jira's shape: a property that is allOf of the schema it sits in.
      Issue: {
        type: "object",
        properties: { key: { type: "string" }, parent: { allOf: [{ $ref: "#/components/schemas/Issue" }] } },
      },
      Tree: {
        type: "object",
        properties: {
          leaf: {
            type: "object",
            properties: {
              value: { type: "string" },
              next: { $ref: "#/components/schemas/Tree/properties/leaf" },
            },
          },
        },
      },
    },
  },
  paths: {
    "/tags": {
      get: {
        operationId: "listTags",
        parameters: [
          { $ref: "#/components/parameters/schema" },
          {
            name: "max",
            in: "query",
            schema: { $ref: "#/components/parameters/limit/schema" },
          },
        ],
        responses: {
          "200": {
            description: "The tags",
            content: json({
              type: "array",
              items: { $ref: "#/components/schemas/Tag/allOf/0" },
            }),
          },
        },
      },
      post: {
        operationId: "createTag",
        requestBody: {
          required: true,
          content: json({ $ref: "#/components/schemas/Tag/allOf/0" }),
        },
        responses: {
          "201": {
            description: "Created",
            content: json({
              $ref: "#/paths/~1tags/post/requestBody/content/application~1json/schema",
            }),
          },
        },
      },
    },
    "/issues": {
      post: {
        operationId: "createIssue",
        requestBody: { required: true, content: json({ $ref: "#/components/schemas/Issue" }) },
        responses: { "201": { description: "Created", content: json({ $ref: "#/components/schemas/Issue" }) } },
      },
    },
    "/trees": {
      post: {
        operationId: "plantTree",
        requestBody: {
          required: true,
          content: json({ $ref: "#/components/schemas/Tree/properties/leaf" }),
        },
        responses: {
          "201": {
            description: "Planted",
            content: json({ $ref: "#/components/schemas/Tree" }),
          },
        },
      },
    },
  },
});

/** patterns.test.ts: patterns written for JavaScript without the u flag. */
export const PATTERNS = spec("3.0.3", "Slugs", {
  paths: {
    "/slugs": {
      post: {
        operationId: "createSlug",
        parameters: [{ name: "at", in: "query", schema: text({ pattern: "^\\d+\\:\\d+$" }) }],
        requestBody: {
          required: true,
          content: json({
            type: "object",
            required: ["slug"],
            properties: {
              slug: text({ pattern: "^[\\w-.]+$" }),
              // Valid only without u, and no spelling keeps its meaning with it: not checked.
              ratio: text({ pattern: "(?=a)*b" }),
            },
          }),
        },
        responses: {
          "201": { description: "Created", content: json({ type: "object", properties: { slug: text() } }) },
        },
      },
    },
  },
});

export const LONG = `filter_by_the_date_on_which_the_record_was_last_modified_by_anyone_${"x".repeat(20)}`;

/** names.test.ts: wire names with symbols, case collisions, reserved words. */
export const NAMES = spec("3.0.3", "Events", {
  paths: {
    "/events/{id}": {
      get: {
        operationId: "listEvents",
        parameters: [
          { name: "id", in: "path", required: true, schema: text() },
          { name: "StartTime", in: "query", schema: text() },
          // The mock refuses the call unless this one arrives under its own name.
          { name: "StartTime<", in: "query", required: true, schema: text({ pattern: "^\\d{4}$" }) },
          { name: "StartTime>", in: "query", schema: text() },
          { name: "ID", in: "query", schema: text() },
          { name: "$top", in: "query", schema: { type: "integer" } },
          { name: "2fa", in: "query", schema: text() },
          { name: LONG, in: "query", schema: text() },
          { name: `${LONG}_2`, in: "query", schema: text() },
          { name: "filter[created][gte]", in: "query", schema: text() },
        ],
        responses: ok,
      },
    },
    "/things": {
      get: { operationId: "getThing", responses: ok },
      post: { operationId: "GetThing", responses: ok },
      put: { operationId: "delete", responses: ok },
      patch: { operationId: "then", responses: ok },
    },
  },
});

/** readonly.test.ts: read-only properties (directly, through a $ref, through allOf) and a write-only one. */
export const READ_ONLY = spec("3.0.3", "Pets", {
  components: {
    schemas: {
      Id: { type: "string", readOnly: true },
      Connection: {
        type: "object",
        readOnly: true,
        properties: { provider: { type: "string" } },
      },
      Owner: {
        type: "object",
        required: ["ownerId", "name"],
        properties: {
          ownerId: { type: "string", readOnly: true },
          name: { type: "string" },
        },
      },
      Pet: {
        type: "object",
        required: ["id", "name", "connection"],
        properties: {
          id: ref("Id"),
          name: { type: "string" },
          connection: { allOf: [ref("Connection")] },
          secret: { type: "string", writeOnly: true },
          owner: ref("Owner"),
        },
      },
    },
  },
  paths: {
    "/pets": {
      post: {
        operationId: "createPet",
        requestBody: { required: true, content: json(ref("Pet")) },
        responses: {
          "201": { description: "The pet", content: json(ref("Pet")) },
        },
      },
    },
    "/pets/{id}": {
      get: {
        operationId: "getPet",
        parameters: [
          {
            name: "id",
            in: "path",
            required: true,
            schema: { type: "string" },
          },
        ],
        responses: {
          "200": { description: "The pet", content: json(ref("Pet")) },
        },
      },
    },
  },
});

/** toolsets.test.ts: tags (declared, undeclared, colliding, odd), an untagged operation under a version prefix. */
export const TAGGED = spec("3.1.0", "Shop", {
  tags: [
    { name: "Store", description: "Orders and stock.\n\nMore words that a toolset list does not need." },
    { name: "Pets", description: "Everything about your pets" },
    { name: "Unused", description: "No operation uses this tag." },
  ],
  paths: {
    "/pets": {
      get: { operationId: "listPets", tags: ["Pets"], responses: ok },
      post: { operationId: "addPet", tags: ["Pets", "Store"], responses: ok },
    },
    "/store/order": { post: { operationId: "placeOrder", tags: ["Store"], responses: ok } },
    "/accounts": {
      get: { operationId: "listAccounts", tags: ["User Accounts"], responses: ok },
      post: { operationId: "openAccount", tags: ["user-accounts"], responses: ok },
    },
    "/everything": { get: { operationId: "getEverything", tags: ["all"], responses: ok } },
    "/codes": { get: { operationId: "listCodes", tags: ["2FA"], responses: ok } },
    "/v1/users/{id}": {
      get: {
        operationId: "getUser",
        parameters: [{ name: "id", in: "path", required: true, schema: text() }],
        responses: ok,
      },
    },
  },
});

/** bodies.test.ts: request bodies that are not JSON (form fields, multipart with files, bytes, text). */
export const BODIES = spec("3.1.0", "Uploads", {
  paths: {
    "/pets": {
      post: {
        operationId: "addPet",
        requestBody: {
          required: true,
          content: {
            "application/x-www-form-urlencoded": {
              schema: {
                type: "object",
                required: ["name"],
                properties: {
                  name: { type: "string", description: "The pet's name." },
                  age: { type: "integer", minimum: 0 },
                  tags: { type: "array", items: { type: "string" } },
                  id: { type: "string", readOnly: true },
                },
              },
            },
          },
        },
        responses: ok,
      },
    },
    "/photos": {
      post: {
        operationId: "uploadPhoto",
        requestBody: {
          required: true,
          content: {
            "multipart/form-data": {
              schema: {
                type: "object",
                required: ["photo"],
                properties: {
                  caption: { type: "string" },
                  photo: { type: "string", format: "binary", description: "The picture." },
                  thumbs: { type: "array", items: { type: "string", contentMediaType: "image/jpeg" } },
                  meta: { type: "object", properties: { album: { type: "string" } } },
                },
              },
              encoding: { photo: { contentType: "image/png" } },
            },
          },
        },
        responses: ok,
      },
    },
    "/blobs/{id}": {
      put: {
        operationId: "putBlob",
        parameters: [{ name: "id", in: "path", required: true, schema: text() }],
        requestBody: {
          required: true,
          content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
        },
        responses: ok,
      },
    },
    "/notes": {
      post: {
        operationId: "addNote",
        requestBody: { content: { "text/plain": { schema: { type: "string", maxLength: 500 } } } },
        responses: ok,
      },
    },
  },
});

/**
 * typecheck.test.ts: schemas that reach themselves through a union, array or tuple rather than an
 * object's property (Vercel's EdgeConfigItemValue; an Expr ↔ Term pair; a route as a nested pair).
 */
export const RECURSIVE = spec("3.1.0", "Recur", {
  components: {
    schemas: {
      "edge-value": {
        type: "null",
        oneOf: [text(), { type: "number" }, { type: "object" }, { type: "array", items: ref("edge-value") }],
      },
      Expr: { oneOf: [{ type: "number" }, { type: "array", items: ref("Term") }] },
      Term: { oneOf: [text(), { type: "array", items: ref("Expr") }] },
      Route: { oneOf: [text(), { type: "array", prefixItems: [text(), ref("Route")] }] },
      // Recursion through an object's property is resolved lazily already: left as it is.
      Node: { type: "object", properties: { kids: { type: "array", items: ref("Node") } } },
    },
  },
  paths: {
    "/items/{key}": {
      put: {
        operationId: "putItem",
        parameters: [{ name: "key", in: "path", required: true, schema: text() }],
        requestBody: { required: true, content: json(ref("edge-value")) },
        responses: { "200": { description: "The value", content: json(ref("edge-value")) } },
      },
    },
    "/eval": {
      post: {
        operationId: "evaluate",
        requestBody: { required: true, content: json(ref("Expr")) },
        responses: { "200": { description: "The term", content: json(ref("Term")) } },
      },
    },
    "/routes": {
      post: {
        operationId: "addRoute",
        requestBody: { required: true, content: json(ref("Route")) },
        responses: { "200": { description: "The tree", content: json(ref("Node")) } },
      },
    },
  },
});
