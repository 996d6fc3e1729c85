/**
 * The mocks of public specs nobody here wrote, inferred from their REST shape: the World News API's
 * official spec, Atlassian's official Trello spec (test/corpus/specs) and the petstore of
 * @readme/oas-examples. Every operation is called over 127.0.0.1 with a request sampled from its
 * own schemas — creates first, then reads, changes and lists of the records they made, deletes
 * last — and every answer must be valid against the schema the spec declares for its status.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { getPath } from "../../runtime/internal/values.js";
import { registeredMock, startMock, type MockOperationSpec, type RunningMock } from "../../runtime/mock/index.js";
import { pointerResolver, sampleFromSchema } from "../../runtime/mock/sample.js";
import { generateSpec, type GeneratedSpec } from "./generated.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CASES = [
  {
    label: "worldnews-official",
    file: join(ROOT, "test", "corpus", "specs", "world-news-api-openapi-3.json"),
    // Not "worldnews": test files share a process, where the bundled World News mock has that id.
    id: "worldnewsofficial",
  },
  {
    label: "trello-official",
    file: join(ROOT, "test", "corpus", "specs", "trello-openapi.json"),
    id: "trelloofficial",
  },
  {
    label: "petstore",
    file: join(ROOT, "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json"),
    id: "petstore",
  },
];

interface Outcome {
  op: string;
  status: number;
  problem?: string;
  /** A record under a parent no create could make (a 404 is then the right answer). */
  orphan?: boolean;
}

/** Credentials in every placement of the default auth mode: any well-formed value is accepted. */
function credentials(descriptor: ServiceDescriptor): {
  query: Record<string, string>;
  headers: Record<string, string>;
} {
  const query: Record<string, string> = {};
  const headers: Record<string, string> = {};
  if (descriptor.auth.kind !== "api-key") return { query, headers };
  for (const p of descriptor.auth.modes[descriptor.auth.defaultMode]!) {
    const value = p.value.replace(/\{[^}]+\}/g, () =>
      /^basic /i.test(p.value) ? Buffer.from("user:pass").toString("base64") : "any-value-0123",
    );
    (p.in === "query" ? query : headers)[p.name] = value;
  }
  return { query, headers };
}

/** The spec's JSON response schema for this status (or `default`), from the spec as written. */
function responseSchema(doc: Record<string, unknown>, op: MockOperationSpec, status: number): unknown {
  const resolve = pointerResolver(doc);
  const item = (doc.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>)[op.path]!;
  const responses = item[op.method.toLowerCase()]?.responses ?? {};
  let response = (responses[String(status)] ?? (status >= 400 ? responses.default : undefined)) as
    | { $ref?: string; content?: Record<string, { schema?: unknown }> }
    | undefined;
  if (response?.$ref) response = resolve(response.$ref) as typeof response;
  const json = Object.entries(response?.content ?? {}).find(([type]) => /json/i.test(type));
  return json?.[1].schema;
}

describe.each(CASES)("$label: every answer of the inferred mock is valid against its schema", ({ label, file, id }) => {
  let g: GeneratedSpec;
  let m: RunningMock;
  const outcomes: Outcome[] = [];
  const unsendable: string[] = [];

  beforeAll(async () => {
    g = await generateSpec(file, label, id);
    m = await startMock(id, { limits: { off: true } });
    const definition = registeredMock(id)!;
    const resolve = pointerResolver(g.doc);
    const { query: authQuery, headers: authHeaders } = credentials(definition.descriptor);
    const ops = Object.values(definition.operations);
    // Creates first (parents before what is created under them), deletes last.
    const order = (op: MockOperationSpec) =>
      (({ create: 0, delete: 2 })[op.mock?.action as string] ?? 1) * 100 + op.path.split("/").length;
    for (const op of [...ops].sort((a, b) => order(a) - order(b))) {
      const sample = (schema: unknown, where: string) =>
        sampleFromSchema(schema ?? { type: "string" }, { seed: `${op.operationId}:${where}`, resolve });
      // A record this operation names: one the creates made, found by the operation's own lookup.
      const resource = op.mock?.resource;
      const parentField = op.mock?.parentField;
      const records = resource && op.mock?.action !== "create" ? m.records(resource) : [];
      // Under a parent: a record kept under one; an operation naming no record needs only the parent.
      const underParent = parentField ? records.filter((r) => getPath(r, parentField) !== undefined) : records;
      const record = underParent.at(-1);
      // A record no create could make (under that parent), or that an earlier delete removed: 404 is right.
      let orphan = op.mock?.id !== undefined && record === undefined;
      const refOf = (name: string) => Object.values(op.mock?.refs ?? {}).find((r) => r.id === `{path.${name}}`);
      const pathValue = (name: string, schema: unknown): unknown => {
        if (record && op.mock?.id === `{path.${name}}`)
          return getPath(record, op.mock.key ?? definition.mock.resources[resource!]!.idField);
        if (record && op.mock?.parent === `{path.${name}}` && parentField) {
          // Created through a route whose parameter takes other values (a member's name, here its id).
          const parent = getPath(record, parentField);
          if (g.validator.compile(schema ?? {})(parent)) return parent;
          orphan = true;
        }
        const ref = refOf(name);
        const owner = ref && m.records(ref.resource).at(-1);
        if (owner) return getPath(owner, definition.mock.resources[ref.resource]!.idField);
        return sample(schema, name);
      };
      // A parameter the spec types as an object (or a list of objects) in a path or query has no wire form.
      const scalar = (schema: unknown) => {
        const s = JSON.stringify(sample(schema, "probe"));
        return !s.startsWith("{") && !s.startsWith("[{");
      };
      if (op.parameters.some((p) => (p.in === "path" || (p.required && p.in === "query")) && !scalar(p.schema))) {
        unsendable.push(`${op.method} ${op.path}`);
        continue;
      }
      let path = op.path;
      const query = new URLSearchParams(authQuery);
      const headers: Record<string, string> = { ...authHeaders };
      for (const p of op.parameters) {
        if (p.in === "path")
          path = path.replace(`{${p.name}}`, encodeURIComponent(String(pathValue(p.name, p.schema))));
        else if (p.required && p.in === "query") {
          const v = sample(p.schema, p.name);
          for (const one of Array.isArray(v) ? v : [v])
            query.append(p.name, typeof one === "object" ? JSON.stringify(one) : String(one));
        } else if (p.required && p.in === "header") headers[p.name] = String(sample(p.schema, p.name));
      }
      let body: string | undefined;
      if (op.body?.schema !== undefined) {
        headers["content-type"] = "application/json";
        body = JSON.stringify(sample(op.body.schema, "body"));
      } else if (op.body?.required) {
        headers["content-type"] = "application/x-www-form-urlencoded";
        body = "note=sampled";
      }
      const r = await fetch(`${m.url}${path}?${query}`, {
        method: op.method,
        headers,
        ...(body !== undefined ? { body } : {}),
      });
      const text = await r.text();
      const outcome: Outcome = { op: `${op.method} ${op.path}`, status: r.status, ...(orphan ? { orphan } : {}) };
      const schema = responseSchema(g.doc, op, r.status);
      if (schema !== undefined && text !== "") {
        const check = g.validator.compile(schema);
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          outcome.problem = `not JSON: ${text.slice(0, 80)}`;
        }
        if (!outcome.problem && !check(value))
          outcome.problem = `${JSON.stringify(check.errors?.[0])} in ${text.slice(0, 300)}`;
      } else if (schema !== undefined && r.status < 300 && ![204, 205].includes(r.status))
        outcome.problem = "an empty body where the spec gives a schema";
      outcomes.push(outcome);
    }
  }, 300_000);

  afterAll(async () => {
    if (process.env.DEBUG_PUBLIC) {
      const summary = {
        operations: outcomes.length + unsendable.length,
        ok: outcomes.filter((o) => o.status < 300).length,
        orphans: outcomes.filter((o) => o.orphan).length,
        unsendable,
      };
      (await import("node:fs")).writeFileSync(
        `/tmp/public-${label}.json`,
        JSON.stringify({ summary, failed: outcomes.filter((o) => o.problem || o.status >= 300) }, null, 1),
      );
    }
    await m?.close();
    g?.remove();
  });

  it("answers every operation, each answer valid against the schema of its status", () => {
    expect(outcomes.length + unsendable.length).toBe(Object.keys(registeredMock(id)!.operations).length);
    expect(unsendable.length).toBeLessThanOrEqual(3);
    expect(outcomes.filter((o) => o.problem).map((o) => `${o.op} ${o.status}: ${o.problem}`)).toEqual([]);
  });

  it("answers each sampled request with a success (the records the creates made are found)", () => {
    const failed = outcomes.filter((o) => o.status >= 300 && !(o.status === 404 && o.orphan));
    expect(failed.map((o) => `${o.op} ${o.status}`)).toEqual([]);
  });
});
