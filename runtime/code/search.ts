/**
 * `search`: the operations that fit a task, as the code calls them. Ranked on the method's name
 * (its words split), its summary and tags (the toolsets of its steps), its path, then its
 * description; shown as TypeScript: a doc line, the exact call signature, and the definitions of
 * the types it names (nested types too while they fit), so one search is enough to write the code.
 */
import type { ServiceDeclarations, OperationSignature } from "./declarations.js";
import { clientPath } from "./outcome.js";

export interface SearchEntry {
  op: OperationSignature;
  /** `GET /1/cards/{id}` */
  http: string;
  tags: string[];
  /** The client as the code names it (`services.trello`, or with several accounts one of them). */
  client: string;
  write: boolean;
}

export interface SearchRequest {
  query: string;
  service?: string | undefined;
  limit: number;
  /** Type names to show in full whatever the query matched. */
  types?: readonly string[] | undefined;
}

/** Characters of type definitions one answer may carry. */
const TYPES_BUDGET = 6_000;
/** A nested type is shown only when it is this short (a referenced id, a small record). */
const NESTED_TYPE_CHARS = 400;
const DESCRIPTION_CHARS = 240;

const words = (text: string) =>
  text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1)
    .map((w) => w.replace(/(ies|es|s)$/, (m) => (m === "ies" ? "y" : "")));

/**
 * The entries, best first, with a score above zero (every entry when the query has no words).
 * A word counts by where it matches and by how rare it is among the operations: in "move card to
 * another list", "move" names the one operation that moves cards, "card" and "list" half of them.
 */
export function rank(entries: readonly SearchEntry[], query: string, service?: string): SearchEntry[] {
  const wanted = [...new Set(words(query))];
  const indexed = entries.map((e) => ({
    e,
    head: new Set(words(`${e.op.method} ${e.op.summary}`)),
    tags: new Set(e.tags.flatMap(words)),
    path: new Set(words(e.http)),
    body: new Set(words(e.op.description)),
  }));
  const rarity = new Map(
    wanted.map((w) => {
      const df = indexed.filter((x) => x.head.has(w) || x.tags.has(w) || x.path.has(w) || x.body.has(w)).length;
      return [w, Math.log(1 + indexed.length / (1 + df))];
    }),
  );
  return indexed
    .filter((x) => service === undefined || x.e.op.service === service)
    .map((x) => {
      let score = wanted.length === 0 ? 1 : 0;
      for (const w of wanted) {
        // The best place a word matches, not the sum: a common word in every field of one
        // operation must not outweigh a rare word in the description of another.
        const where = x.head.has(w) ? 3 : x.tags.has(w) ? 2 : x.path.has(w) ? 1.5 : x.body.has(w) ? 1.2 : 0;
        score += where * rarity.get(w)!;
      }
      return { e: x.e, score };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score)
    .map((x) => x.e);
}

function short(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The answer's text: the operations, then the types they name. */
export function render(
  found: readonly SearchEntry[],
  matched: number,
  request: SearchRequest,
  declarations: readonly ServiceDeclarations[],
): string {
  const lines: string[] = [];
  const shown = found.slice(0, request.limit);
  if (request.query.trim() || shown.length) {
    const head = shown.length
      ? `${shown.length} of ${matched} operations for "${request.query}"`
      : `No operation matches "${request.query}"; try other words or fewer`;
    lines.push(`// ${head}. Call them in execute exactly as written.`);
  }
  for (const e of shown) {
    const doc = [e.op.summary, e.http, e.write ? "write" : "read", e.tags.length ? `tags: ${e.tags.join(", ")}` : ""]
      .filter(Boolean)
      .join(" — ");
    lines.push(`/** ${doc}${e.op.description ? `. ${short(e.op.description, DESCRIPTION_CHARS)}` : ""} */`);
    lines.push(`${e.client}.${e.op.signature}`);
  }
  // Types: those the operations name and those asked for, then short nested ones, within budget.
  const byService = new Map(declarations.map((d) => [d.id, d]));
  const queue: Array<{ service: string; name: string; nested: boolean }> = [];
  for (const e of shown) for (const name of e.op.typesUsed) queue.push({ service: e.op.service, name, nested: false });
  for (const name of request.types ?? []) {
    for (const d of declarations)
      if (d.aliases.has(name) && (request.service === undefined || d.id === request.service))
        queue.unshift({ service: d.id, name, nested: false });
  }
  const seen = new Set<string>();
  const left: string[] = [];
  const types: string[] = [];
  let used = 0;
  while (queue.length) {
    const { service, name, nested } = queue.shift()!;
    const key = `${service}.${name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const definition = byService.get(service)?.aliases.get(name);
    if (definition === undefined) continue;
    const text = `type ${name} = ${definition};`;
    if ((nested && text.length > NESTED_TYPE_CHARS) || used + text.length > TYPES_BUDGET) {
      if (!nested) left.push(name);
      continue;
    }
    used += text.length;
    types.push(text);
    const inner = [...byService.get(service)!.aliases.keys()].filter(
      (a) => a !== name && new RegExp(`\\b${a.replace(/\$/g, "\\$")}\\b`).test(definition),
    );
    for (const a of inner) queue.push({ service, name: a, nested: true });
  }
  if (types.length) lines.push("", ...types);
  if (left.length)
    lines.push(
      `// Not shown (too long for one answer): ${left.join(", ")}; ask search for them with types: ` +
        `[${left.map((n) => JSON.stringify(n)).join(", ")}].`,
    );
  if (request.types?.length) {
    const unknown = request.types.filter((n) => !declarations.some((d) => d.aliases.has(n)));
    if (unknown.length) lines.push(`// No type is named ${unknown.join(", ")}.`);
  }
  return lines.join("\n");
}

/** The search entries of every exposed method. */
export function searchEntries(
  declarations: readonly ServiceDeclarations[],
  http: (service: string, method: string) => string,
  tags: (service: string, method: string) => string[],
  write: (service: string, method: string) => boolean,
  accounts: (service: string) => readonly string[],
): SearchEntry[] {
  return declarations.flatMap((d) => {
    const names = accounts(d.id);
    const client = clientPath(d.id, names.length > 1 ? names[0] : undefined);
    return d.operations.map((op) => ({
      op,
      http: http(d.id, op.method),
      tags: tags(d.id, op.method),
      client,
      write: write(d.id, op.method),
    }));
  });
}
