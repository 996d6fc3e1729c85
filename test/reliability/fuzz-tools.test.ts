/**
 * Property-based fuzzing of every tool step's input validation (all four services).
 *
 * (a) Invalid input — not an object, a required field missing, a field of the wrong type or out of
 *     its bounds/pattern/enum (huge strings included), an extra key ("__proto__", "constructor",
 *     long and odd names), or anything at all — is refused with the runtime's `invalid_input`
 *     result naming the offending field; nothing is thrown, nothing is fetched, no built-in
 *     prototype changes.
 * (b) Input generated from the step's own JSON Schema (the export the model sees) passes
 *     validation: the call goes on to the (stubbed) network and never comes back as `invalid_input`
 *     or `internal`.
 *
 * The fetch is a stub that records addresses: no request leaves the process.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSharedState } from "../../runtime/index.js";
import {
  canonicalSchema,
  credentialQueryNames,
  executeTool,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from "../../runtime/tools/index.js";
import { tools as contentsnare } from "../../generated/contentsnare/tools.js";
import { tools as marketo } from "../../generated/marketo/tools.js";
import { tools as trello } from "../../generated/trello/tools.js";
import { tools as worldnews } from "../../generated/worldnews/tools.js";
import { connections } from "../tools/helpers.js";
import {
  assertPrototypesClean,
  ownObject,
  PROTO_KEYS,
  prototypeSnapshot,
  recordingFetch,
  runs,
  SEED,
  validArb,
  wrongArb,
  type JsonSchema,
} from "./arbitraries.js";

const ALL: ToolDefinition[] = [...contentsnare, ...marketo, ...trello, ...worldnews];
/** Never reached: every request goes through the recording stub; a stray real fetch would hit a closed port. */
const BASE = "http://127.0.0.1:9";
const INVALID_RUNS = runs(40);
const VALID_RUNS = runs(25);

type Json = Record<string, unknown>;

function context(tool: ToolDefinition, fetch: typeof globalThis.fetch): ToolContext {
  return {
    connection: connections[tool.service]!,
    baseUrl: BASE,
    fetch,
    shared: createSharedState(),
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxTotalWaitMs: 10, random: () => 0 },
  };
}

/** Runs the step; a throw (instead of a result) fails the property. */
async function run(tool: ToolDefinition, input: unknown): Promise<{ result: ToolResult; urls: string[] }> {
  const recorder = recordingFetch();
  let result: ToolResult;
  try {
    result = await executeTool(tool, input, context(tool, recorder.fetch));
  } catch (error) {
    throw new Error(`executeTool threw instead of returning a result: ${String(error)}`);
  }
  // A result object, always JSON-serialisable.
  expect(typeof result.ok).toBe("boolean");
  JSON.stringify(result);
  for (const url of recorder.urls) expect(url.startsWith(`${BASE}/`), url).toBe(true);
  return { result, urls: recorder.urls };
}

/**
 * Valid input for a step: from its JSON Schema, plus the API Call step's runtime rules (guarded endpoint, no body on
 * GET, no credential names).
 */
function validInputArb(tool: ToolDefinition, schema: JsonSchema): fc.Arbitrary<Json> {
  const base = validArb(schema) as fc.Arbitrary<Json>;
  if (tool.kind !== "api_call") return base;
  const { config } = tool;
  const reserved = new Set(credentialQueryNames(tool.descriptor).map((n) => n.toLowerCase()));
  const endpoints = config.examples.length ? config.examples : ["/"];
  return fc.tuple(base, fc.constantFrom(...endpoints)).map(([input, endpoint]) => {
    const out: Json = { ...input, endpoint };
    if (out.method === "GET" && config.bodyField) delete out[config.bodyField];
    if (config.queryField && out[config.queryField]) {
      out[config.queryField] = Object.fromEntries(
        Object.entries(out[config.queryField] as Json).filter(([k]) => !reserved.has(k.toLowerCase())),
      );
    }
    return out;
  });
}

interface Case {
  label: string;
  input: unknown;
  /** The field every reported error must name ("" = the input as a whole); undefined: any field, or valid by chance. */
  field?: string;
  message?: RegExp;
}

function invalidCases(tool: ToolDefinition, schema: JsonSchema, valid: fc.Arbitrary<Json>): fc.Arbitrary<Case> {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = ((schema.required ?? []) as string[]).filter((k) => Object.hasOwn(props, k));
  const known = new Set(Object.keys(props));
  const cases: fc.Arbitrary<Case>[] = [];

  // Not an object at all (null/undefined mean "no fields" and are not here).
  cases.push(
    fc
      .oneof(
        fc.string({ maxLength: 20 }),
        fc.integer(),
        fc.double(),
        fc.boolean(),
        fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 3 }),
        fc.constant("x".repeat(1_000_000)),
        fc.constantFrom(...PROTO_KEYS),
      )
      .map((input) => ({ label: "not an object", input, field: "", message: /JSON object/ })),
  );

  // A required field missing.
  if (required.length) {
    cases.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([input, key]) => {
        const copy = { ...input };
        delete copy[key];
        return { label: "missing required", input: copy, field: key, message: /required/ };
      }),
    );
  }

  // One field of the wrong type, out of bounds, off its pattern or enum (huge strings included).
  const wrongable = Object.entries(props)
    .map(([key, s]) => [key, wrongArb(s)] as const)
    .filter((e): e is readonly [string, fc.Arbitrary<unknown>] => e[1] !== undefined);
  if (wrongable.length) {
    cases.push(
      fc
        .constantFrom(...wrongable)
        .chain(([key, wrong]) => fc.tuple(valid, fc.constant(key), wrong))
        .map(([input, key, value]) => ({
          label: "wrong value",
          input: ownObject([...Object.entries(input).filter(([k]) => k !== key), [key, value]]),
          field: key,
        })),
    );
  }

  // An extra key: prototype names, odd and huge names. (A null value means "not given" and is dropped, so it is not
  // used.)
  const extraKey = fc
    .oneof(
      fc.constantFrom(...PROTO_KEYS),
      fc.string({ minLength: 1, maxLength: 20 }),
      fc.constant("k".repeat(10_000)),
      fc.constant("a.b"),
      fc.constant(""),
    )
    .filter((k) => !known.has(k));
  const extraValue = fc.anything({ maxDepth: 2 }).filter((v) => v !== null && v !== undefined);
  cases.push(
    fc.tuple(valid, extraKey, extraValue).map(([input, key, value]) => ({
      label: "extra key",
      input: ownObject([...Object.entries(input), [key, value]]),
      field: key,
    })),
  );

  // Prototype-pollution attempts carrying the step's own required fields (they must not count as given).
  if (required.length) {
    cases.push(
      valid.map((input) => ({
        label: "fields smuggled in __proto__",
        input: ownObject([["__proto__", input]]),
        field: undefined,
        message: undefined,
      })),
    );
  }

  // Anything at all, with prototype keys among the object keys.
  cases.push(
    fc
      .anything({
        maxDepth: 3,
        key: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...PROTO_KEYS)),
        withNullPrototype: true,
        withMap: true,
        withSet: true,
        withDate: true,
        withTypedArray: true,
      })
      .map((input) => ({ label: "anything", input })),
  );
  return fc.oneof(...cases);
}

describe("regressions the fuzzing found", () => {
  const step = (name: string) => ALL.find((t) => t.name === name)!;
  const CARD = "6123a9f0c4b5d6e7f8091a2b";

  it(
    'required fields smuggled in a "__proto__" key do not count as given (dropNulls used ' +
      "to make it the prototype)",
    async () => {
      const { result, urls } = await run(
        step("trello_create_card"),
        JSON.parse(`{"__proto__": {"idList": "${CARD}"}}`),
      );
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.fields.map((f) => f.path).sort()).toEqual(["__proto__", "idList"]);
      expect(urls).toEqual([]);
      const other = await run(step("trello_get_boards"), JSON.parse(`{"__proto__": 5}`));
      expect(other.result.ok).toBe(false);
    },
  );

  it('a "__proto__" key inside a free-form map (API Call body, query) is refused, not silently dropped', async () => {
    const { result, urls } = await run(
      step("trello_api_call"),
      JSON.parse(
        `{"method": "POST", "endpoint": "/1/cards", "body": {"__proto__": {"a": 1}, "b": ` +
          `2}, "query_parameters": {"__proto__": "x"}}`,
      ),
    );
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.error.fields.map((f) => f.path)).toEqual(["body.__proto__", "query_parameters.__proto__"]);
    expect(urls).toEqual([]);
  });

  it("a missing enum field is said to be required", async () => {
    const { result } = await run(step("worldnews_api_call"), { endpoint: "/search-news" });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.error.fields).toEqual([{ path: "method", message: 'required: give one of "GET", "POST"' }]);
  });

  it("a null the schema accepts is not blamed when another field is wrong", async () => {
    const { result } = await run(step("trello_create_label"), { color: null, idBoard: CARD });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.fields.map((f) => f.path)).toEqual(["name"]);
  });
});

describe("every tool step's input validation (property-based)", () => {
  it("covers every generated step of the four services", () => {
    expect(new Set(ALL.map((t) => t.service))).toEqual(new Set(["contentsnare", "marketo", "trello", "worldnews"]));
    expect(ALL.length).toBeGreaterThanOrEqual(80);
  });

  describe.each(ALL.map((t) => [t.name, t] as const))("%s", (_name, tool) => {
    const schema = canonicalSchema(tool.input, "input");
    const valid = validInputArb(tool, schema);
    const required = (schema.required ?? []) as string[];

    it("refuses invalid input with invalid_input naming the field; nothing thrown, fetched or polluted", async () => {
      const before = prototypeSnapshot();
      await fc.assert(
        fc.asyncProperty(invalidCases(tool, schema, valid), async (c) => {
          const { result, urls } = await run(tool, c.input);
          assertPrototypesClean(before);
          if (c.label === "anything") {
            // Valid by chance is possible (a step without required fields takes {}); a refusal must be a typed one.
            if (!result.ok && result.error.kind === "invalid_input") expect(urls).toEqual([]);
            if (!result.ok) expect(result.error.kind).not.toBe("internal");
            return;
          }
          expect(result.ok, c.label).toBe(false);
          if (result.ok) return;
          const { error } = result;
          expect(error.kind, c.label).toBe("invalid_input");
          expect(error.retryable).toBe(false);
          expect(error.tool).toBe(tool.name);
          expect(urls, `${c.label}: nothing may be sent`).toEqual([]);
          expect(error.fields.length).toBeGreaterThan(0);
          for (const f of error.fields) {
            expect(typeof f.path).toBe("string");
            expect(typeof f.message).toBe("string");
            expect(f.message.length).toBeGreaterThan(0);
          }
          if (c.label === "fields smuggled in __proto__") {
            // Either the "__proto__" key or a missing required field is named: never accepted.
            expect(error.fields.some((f) => f.path === "__proto__" || required.includes(f.path))).toBe(true);
            return;
          }
          if (c.field !== undefined) {
            const named = (p: string) => p === c.field || (c.field !== "" && p.startsWith(`${c.field}.`));
            expect(
              error.fields.every((f) => named(f.path)),
              `${c.label}: ${JSON.stringify(error.fields.map((f) => f.path))} should all ` +
                `name ${JSON.stringify(c.field)}`,
            ).toBe(true);
            if (c.field !== "" && c.field.length < 200) expect(error.message).toContain(c.field);
          }
          if (c.message) expect(error.fields.some((f) => c.message!.test(f.message))).toBe(true);
        }),
        { seed: SEED, numRuns: INVALID_RUNS },
      );
    });

    it("passes validation for every input generated from its JSON Schema", async () => {
      const before = prototypeSnapshot();
      await fc.assert(
        fc.asyncProperty(valid, async (input) => {
          const { result, urls } = await run(tool, input);
          assertPrototypesClean(before);
          if (!result.ok) {
            expect(result.error.kind, JSON.stringify(result.error)).not.toBe("invalid_input");
            expect(result.error.kind, JSON.stringify(result.error)).not.toBe("internal");
          }
          // It went on to the (stubbed) network.
          expect(urls.length).toBeGreaterThan(0);
        }),
        { seed: SEED, numRuns: VALID_RUNS },
      );
    });
  });
});
