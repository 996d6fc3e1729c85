/**
 * For the input-safety tests: a valid input for any step (drawn from its JSON Schema with sample
 * values that match the specs' patterns), the input fields that fill path parameters (found by
 * running the step's handler against a client that only records), and a fetch that counts what
 * was sent.
 */
import { canonicalSchema, type ToolDefinition } from "../../runtime/tools/index.js";
import type { Connection } from "../../runtime/index.js";
import { CARD, CONTENTSNARE, MARKETO, TRELLO, WORLDNEWS } from "../mock/helpers.js";

type Json = Record<string, unknown>;

export const CONNECTIONS: Record<string, Connection> = {
  trello: { name: "t", fields: { ...TRELLO } },
  marketo: { name: "m", fields: { ...MARKETO } },
  worldnews: { name: "w", fields: { ...WORLDNEWS } },
  contentsnare: { name: "c", fields: { ...CONTENTSNARE } },
};

/** Values that reach another address when sent as a path segment, in the encodings that get there. */
export const DOT_VALUES = [
  ".",
  "..",
  "%2e",
  "%2E%2e",
  ".%2e",
  "%252e%252e",
  "．．",
  "‥",
  "../members",
  "",
  "%2e%2e%2fme",
];

const STRING_SAMPLES = [
  CARD,
  "abcdEFGH",
  "2024-06-14T16:00:00Z",
  "2024-06-14",
  "ada@example.com",
  "https://example.com/page",
  "us",
  "en",
  "acc_abc123",
  "req_abc123",
  "52.5,13.4",
  "52.5,13.4,10",
  "1,2",
  "sample",
  "1",
];

function sample(schema: Json): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.anyOf)) return sample((schema.anyOf as Json[]).find((b) => b.type !== "null") ?? {});
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== "null") : schema.type;
  switch (type) {
    case "string": {
      const pattern = typeof schema.pattern === "string" ? new RegExp(schema.pattern) : undefined;
      const min = typeof schema.minLength === "number" ? schema.minLength : 0;
      const fits = STRING_SAMPLES.find(
        (s) =>
          (!pattern || pattern.test(s)) &&
          s.length >= min &&
          (schema.format !== "email" || s.includes("@")) &&
          (schema.format !== "uri" || s.startsWith("https:")),
      );
      return fits ?? "sample";
    }
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : 1;
    case "boolean":
      return true;
    case "array": {
      const n = typeof schema.minItems === "number" ? Math.max(schema.minItems, 1) : 1;
      return Array.from({ length: n }, () => sample((schema.items as Json) ?? {}));
    }
    case "object": {
      const props = (schema.properties as Record<string, Json>) ?? {};
      const required = (schema.required as string[]) ?? [];
      return Object.fromEntries(required.map((k) => [k, sample(props[k] ?? {})]));
    }
    default:
      return "sample";
  }
}

/** An input the step's schema accepts (required fields only); throws when none could be drawn. */
export function validInput(tool: ToolDefinition): Json {
  const input = sample(canonicalSchema(tool.input, "input")) as Json;
  if (tool.kind === "api_call") input.endpoint = "/x";
  const parsed = tool.input.safeParse(input);
  if (!parsed.success)
    throw new Error(`no valid sample input for ${tool.name}: ${JSON.stringify(parsed.error.issues.slice(0, 2))}`);
  return input;
}

/** The step's input fields whose value goes into a path parameter. */
export async function pathFields(tool: ToolDefinition): Promise<string[]> {
  if (tool.kind !== "operation") return [];
  const fields = Object.keys(tool.input.shape);
  const markers = Object.fromEntries(fields.map((f) => [f, `marker-${f}`]));
  let captured: Json = {};
  const recorder = {
    call: async (_op: string, init: { params?: { path?: Json } }) => void (captured = init.params?.path ?? {}),
  };
  await tool.handler(recorder as never, markers);
  const values = new Set(Object.values(captured));
  return fields.filter((f) => values.has(markers[f]));
}

/**
 * The real fetch, counting the requests handed to it: a refused input must leave the count at 0; a
 * request that does go out goes to a real server (the behavioural mock, or nothing on a closed port).
 */
export function countingFetch(): { fetch: typeof globalThis.fetch; count: () => number } {
  let n = 0;
  return {
    fetch: ((input, init) => {
      n++;
      return fetch(input, init);
    }) as typeof globalThis.fetch,
    count: () => n,
  };
}

/** `depth` nested objects. */
export function deep(depth: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}
