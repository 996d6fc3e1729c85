/**
 * A small checker pass for the checker's thread to run while it waits for the real one.
 *
 * The first pass a process runs is slow for a reason of its own: V8 runs TypeScript's parser and
 * checker in its interpreter until they have run enough to be compiled, so the first real pass of
 * a `stepforge diff` took about twice the CPU of a second one over the same input (Atlassian's
 * Trello spec: ~470 against ~250 ms). The thread has loaded the compiler long before the main
 * thread has checked both specs, and spends that time idle; passes over this input, which has the
 * shapes generated declarations have (objects, optional and required members, enums, arrays,
 * nullable and union members, maps, shared components, an operation's input and OperationData),
 * make that time the warm-up instead. Their changes are thrown away: nothing they compute reaches
 * a verdict (every pass builds its own program and checker; only the parsed library is shared).
 */
import type { OperationSurface } from "./surface.js";
import type { TypedPair } from "./compare.js";
import { writeDeclarations } from "./declarations.js";
import { pairAliases, type PairOperation } from "./pair-file.js";
import type { CheckerInput } from "./typecheck.js";

type Json = Record<string, unknown>;

const json = (schema: Json) => ({ content: { "application/json": { schema } } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A notes service, as a types document; `edited` is the version the pass compares it with. */
function notesDocument(edited: boolean): Json {
  const states = edited ? ["open", "closed", "draft"] : ["open", "closed", "archived"];
  const owner = {
    type: "object",
    required: ["name"],
    properties: { name: { type: "string" }, ...(edited ? {} : { email: { type: "string" } }) },
  };
  const note = {
    type: "object",
    required: ["id", "title", ...(edited ? ["state"] : [])],
    properties: {
      id: { type: "string" },
      title: { type: "string" },
      body: { type: edited ? "string" : ["string", "null"] },
      state: { type: "string", enum: states },
      tags: { type: "array", items: { type: "string" } },
      owner,
      meta: { type: "object", additionalProperties: { type: edited ? "number" : "string" } },
      pos: { oneOf: [{ type: "number" }, { type: "string", enum: edited ? ["top"] : ["top", "bottom"] }] },
      size: { type: edited ? "string" : "integer" },
    },
  };
  const input = {
    type: "object",
    required: ["title", ...(edited ? ["folder"] : [])],
    properties: {
      title: { type: "string" },
      body: { type: "string" },
      state: ref("State"),
      tags: { type: "array", items: { type: "string" } },
      ...(edited ? { folder: { type: "string" } } : {}),
    },
  };
  const id = { name: "id", in: "path", required: true, schema: { type: "string" } };
  return {
    openapi: "3.1.0",
    info: { title: "Notes", version: "1.0.0" },
    paths: {
      "/notes": {
        get: {
          operationId: "listNotes",
          parameters: [
            { name: "limit", in: "query", schema: { type: edited ? "string" : "integer" } },
            { name: "state", in: "query", required: edited, schema: ref("State") },
          ],
          responses: {
            200: json({
              type: "object",
              required: ["items"],
              properties: { items: { type: "array", items: ref("Note") }, next: { type: ["string", "null"] } },
            }),
          },
        },
        post: {
          operationId: "createNote",
          requestBody: { required: true, ...json(ref("NoteInput")) },
          responses: { 201: json(ref("Note")) },
        },
      },
      "/notes/{id}": {
        patch: {
          operationId: "updateNote",
          parameters: [id],
          requestBody: json(ref("NoteInput")),
          responses: { 200: json(ref("Note")) },
        },
      },
    },
    components: { schemas: { State: { type: "string", enum: states }, Note: note, NoteInput: input } },
  };
}

/** One compared operation: its surface (what the walk reads) and its side of the pair file. */
interface WarmOperation {
  surface: OperationSurface;
  side: PairOperation;
}

/** The members of an operation's input, as generator/emit/client.ts writes them. */
const inputMembers = (params: "params" | "params?", body?: "body" | "body?") => (alias: string) => [
  `${params}: ${alias}["parameters"]`,
  body ? `${body}: ${alias}["requestBody"]["content"]["application/json"]` : "body?: never",
  "signal?: AbortSignal",
];

function operations(edited: boolean): WarmOperation[] {
  const surface = (operationId: string, method: string, path: string, status: number): OperationSurface => ({
    operationId,
    method,
    path,
    parameters: [],
    response: { status, mediaType: "application/json", schema: "" },
  });
  return [
    { surface: surface("listNotes", "GET", "/notes", 200), params: edited ? "params" : "params?" },
    { surface: surface("createNote", "POST", "/notes", 201), params: "params?", body: "body" },
    { surface: surface("updateNote", "PATCH", "/notes/{id}", 200), params: "params", body: "body?" },
  ].map(({ surface, params, body }) => ({
    surface,
    side: {
      path: surface.path,
      method: surface.method,
      input: inputMembers(params as "params" | "params?", body as "body" | "body?" | undefined),
    },
  }));
}

/** The warm-up pass's input: the notes service against its edited version. */
export function warmUpInput(): CheckerInput {
  const [oldTypes, newTypes] = [false, true].map((edited) => writeDeclarations(notesDocument(edited)) ?? "") as [
    string,
    string,
  ];
  const [before, after] = [operations(false), operations(true)];
  const pairs: TypedPair[] = before.map((op, i) => ({ old: op.surface, now: after[i]!.surface, renames: new Map() }));
  const aliases = pairAliases(before.map((op, i) => [op.side, after[i]!.side] as const));
  return { pairFile: { oldTypes, newTypes, aliases }, pairs };
}
