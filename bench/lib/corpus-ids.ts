/**
 * How bench/corpus.ts chooses the ids in a sampled call's path, as a user (or an agent) does: an
 * id sampled from a schema names no record, so before calling `GET /projects/{projectId}/issues/{issueId}`
 * one learns each id from the parent collection, left to right:
 *
 * 1. the collection is the path up to the parameter's segment (`/projects`, then
 *    `/projects/{projectId}/issues` with the id just found), matched to the spec's operations by
 *    shape (`{}` for each parameter, whatever its name); when no operation has that shape, one whose
 *    path differs only in its leading version segment (Vercel lists `/v9/projects` and reads
 *    `/v10/projects/{idOrName}/domains`) — the first in spec order;
 * 2. its list operation (`GET` on the collection) is called through the typed client with its
 *    required parameters sampled from the spec; the first record of the answer (the answer itself
 *    when it is a list, else its first property that is a list of objects) gives the id: its field
 *    named like the parameter, else `id`, `key`, `uuid`, `name`;
 * 3. when there is no list operation, or it fails or lists nothing, its create operation (`POST`
 *    on the collection) is called with a body sampled from the spec, and the id is read from the
 *    record it answers (or from the answer's `data`) the same way;
 * 4. when neither gives one, the sampled value stays, the call is made as it is and counts as
 *    failed if it fails: `missing` names the parameters without a learned id, for the failure line.
 *
 * Only whole-segment parameters (`/{id}`, not `/{name}.json`) are learned this way. Each call
 * learns its ids afresh (a record the client call deleted is not handed to the MCP call).
 */

type Json = Record<string, unknown>;

export interface OperationPlace {
  path: string;
  method: string;
}

/** Calls an operation through the typed client with path ids given; answers its decoded body. */
export type Call = (operationId: string, pathIds: Record<string, string>) => Promise<unknown>;

export interface LearnedIds {
  ids: Record<string, string>;
  /** Path parameters no list or create operation gave an id for. */
  missing: string[];
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const shape = (path: string) => path.replace(/\{[^{}/]+\}/g, "{}");
const versionless = (path: string) => shape(path).replace(/^\/v\d+(\.\d+)?(?=\/)/, "/v*");
const paramNames = (path: string) => [...path.matchAll(/\{([^{}/]+)\}/g)].map((m) => m[1]!);
const ID_FIELDS = ["id", "key", "uuid", "name"];

/** The records of a list answer: the answer when it is a list, else its first property that is a list of objects. */
function recordsOf(answer: unknown): Json[] {
  if (Array.isArray(answer)) return answer.filter(isObject);
  if (!isObject(answer)) return [];
  for (const value of Object.values(answer))
    if (Array.isArray(value) && value.some(isObject)) return value.filter(isObject);
  for (const value of Object.values(answer)) if (isObject(value)) return recordsOf(value);
  return [];
}

function idOf(record: unknown, parameter: string): string | undefined {
  if (!isObject(record)) return undefined;
  for (const field of [parameter, ...ID_FIELDS]) {
    const value = record[field];
    if ((typeof value === "string" && value !== "") || typeof value === "number") return String(value);
  }
  return isObject(record.data) ? idOf(record.data, parameter) : undefined;
}

export class IdFinder {
  /** Operations by method and path shape: the first in spec order wins. */
  private readonly byShape = new Map<string, { id: string; path: string }>();

  constructor(
    operations: Record<string, OperationPlace>,
    private readonly call: Call,
  ) {
    for (const [id, op] of Object.entries(operations)) {
      for (const key of [
        `${op.method.toUpperCase()} ${shape(op.path)}`,
        `${op.method.toUpperCase()} ${versionless(op.path)}`,
      ])
        if (!this.byShape.has(key)) this.byShape.set(key, { id, path: op.path });
    }
  }

  private operation(method: string, collection: string) {
    return (
      this.byShape.get(`${method} ${shape(collection)}`) ?? this.byShape.get(`${method} ${versionless(collection)}`)
    );
  }

  async learn(path: string): Promise<LearnedIds> {
    const ids: Record<string, string> = {};
    const missing: string[] = [];
    const segments = path.split("/");
    for (let i = 0; i < segments.length; i++) {
      const whole = /^\{([^{}]+)\}$/.exec(segments[i]!);
      if (!whole) continue;
      const collection = segments.slice(0, i).join("/");
      const id =
        (await this.fromList(collection, whole[1]!, ids)) ?? (await this.fromCreate(collection, whole[1]!, ids));
      if (id === undefined) missing.push(whole[1]!);
      else ids[whole[1]!] = id;
    }
    return { ids, missing };
  }

  /** The ids known so far, renamed to the parameter names `path` uses at the same positions. */
  private idsFor(path: string, known: Record<string, string>, collection: string): Record<string, string> {
    const knownValues = paramNames(collection).map((name) => known[name]);
    const out: Record<string, string> = {};
    paramNames(path).forEach((name, k) => {
      if (knownValues[k] !== undefined) out[name] = knownValues[k]!;
    });
    return out;
  }

  private async fromList(collection: string, parameter: string, known: Record<string, string>) {
    const list = this.operation("GET", collection);
    if (!list) return undefined;
    try {
      const answer = await this.call(list.id, this.idsFor(list.path, known, collection));
      for (const record of recordsOf(answer)) {
        const id = idOf(record, parameter);
        if (id !== undefined) return id;
      }
    } catch {
      // A list that fails gives no id; the create operation may.
    }
    return undefined;
  }

  private async fromCreate(collection: string, parameter: string, known: Record<string, string>) {
    const create = this.operation("POST", collection);
    if (!create) return undefined;
    try {
      return idOf(await this.call(create.id, this.idsFor(create.path, known, collection)), parameter);
    } catch {
      return undefined;
    }
  }
}

/** The input field of a tool step that carries path parameter `name` (field names follow docs/generator.md). */
export function pathField(properties: Json, name: string): string | undefined {
  const plain = name.replace(/[^A-Za-z0-9_]/g, "_");
  return [name, plain, `path_${plain}`].find((field) => field in properties);
}
