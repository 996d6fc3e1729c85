/**
 * The behavioural mock's state: records per resource (insertion order), relations between
 * records (a static list's members), ids, positions, and the start state (spec examples, a state
 * file). Records are mutated in place by the actions, which call `touch` so the serialised copy
 * kept for fast reads is dropped.
 */
import { getPath, keyOf, numberOf } from "../internal/values.js";
import { IdMaker } from "./ids.js";
import type { MockOperationSpec, MockResource, MockService } from "./extension-types.js";
import type { MockState, Rec } from "./types.js";

export class Store {
  private tables = new Map<string, Map<string, Rec>>();
  private links = new Map<string, Map<string, Set<string>>>();
  private readonly bytes = new WeakMap<Rec, Buffer>();
  readonly ids: IdMaker;

  constructor(
    private readonly service: string,
    private readonly model: MockService,
    idSeed = 1,
  ) {
    this.ids = new IdMaker(idSeed);
  }

  spec(resource: string): MockResource {
    // Own keys only: a name from a URL or a state file such as `constructor` is not a resource.
    const spec = Object.hasOwn(this.model.resources, resource) ? this.model.resources[resource] : undefined;
    if (!spec)
      throw new Error(
        `${this.service} mock: unknown resource "${resource}" (resources: ` +
          `${Object.keys(this.model.resources).join(", ") || "none"})`,
      );
    return spec;
  }

  table(resource: string): Map<string, Rec> {
    let t = this.tables.get(resource);
    if (!t) {
      this.spec(resource);
      t = new Map();
      this.tables.set(resource, t);
    }
    return t;
  }

  newId(resource: string): string | number {
    return this.ids.next(resource, this.spec(resource).id);
  }

  put(resource: string, record: Rec): void {
    const id = record[this.spec(resource).idField];
    if (id === undefined || id === null) return;
    this.table(resource).set(keyOf(id), record);
    if (typeof id === "number") this.ids.saw(resource, id);
    this.touch(record);
  }

  /** The record with this id (or, with `key`, the first whose `key` field has this value). */
  find(resource: string, id: unknown, key?: string): Rec | undefined {
    if (id === undefined || id === null) return undefined;
    const table = this.table(resource);
    const wanted = keyOf(id);
    if (!key || key === this.spec(resource).idField) return table.get(wanted);
    for (const r of table.values()) if (keyOf(getPath(r, key)) === wanted) return r;
    return undefined;
  }

  /** Any record of any resource but `except` with this id (a webhook's model). */
  findAnywhere(id: string, except?: string): Rec | undefined {
    for (const [name, table] of this.tables) if (name !== except && table.has(id)) return table.get(id);
    return undefined;
  }

  remove(resource: string, record: Rec): void {
    this.table(resource).delete(keyOf(record[this.spec(resource).idField]));
  }

  /**
   * The records of a resource (under one parent when given, its id in `parentField`, by default the
   * resource's), in position order when it has one.
   */
  all(resource: string, parent?: string, parentField = this.spec(resource).parentField): Rec[] {
    const spec = this.spec(resource);
    let items = [...this.table(resource).values()];
    if (parent !== undefined && parentField) items = items.filter((r) => keyOf(getPath(r, parentField)) === parent);
    const pos = spec.position?.field;
    if (pos) items.sort((a, b) => numberOf(a[pos] ?? 0) - numberOf(b[pos] ?? 0));
    return items;
  }

  /** Drops the serialised copy of a record that changed. */
  touch(record: Rec): void {
    this.bytes.delete(record);
  }

  /** The record as JSON bytes, kept until it changes (reads are most of a mock's traffic). */
  serialised(record: Rec): Buffer {
    let b = this.bytes.get(record);
    if (!b) this.bytes.set(record, (b = Buffer.from(JSON.stringify(record))));
    return b;
  }

  /**
   * The position a record takes from what the request asked (`top`, `bottom`, a number, or
   * nothing), among the records sharing its `within` field.
   */
  position(resource: string, record: Rec, requested: unknown): number | undefined {
    const p = this.spec(resource).position;
    if (!p) return undefined;
    if (typeof requested === "number" && Number.isFinite(requested)) return requested;
    if (typeof requested === "string" && requested.trim() !== "" && Number.isFinite(Number(requested)))
      return Number(requested);
    if (requested !== undefined && requested !== "top" && requested !== "bottom") return undefined;
    const group = p.within ? getPath(record, p.within) : undefined;
    const siblings = [...this.table(resource).values()]
      .filter((r) => r !== record && (!p.within || getPath(r, p.within) === group))
      .map((r) => numberOf(r[p.field]))
      .filter(Number.isFinite);
    if (siblings.length === 0) return p.step;
    return requested === "top" ? Math.min(...siblings) / 2 : Math.max(...siblings) + p.step;
  }

  relation(name: string, owner: string): Set<string> {
    let byOwner = this.links.get(name);
    if (!byOwner) this.links.set(name, (byOwner = new Map()));
    let set = byOwner.get(owner);
    if (!set) byOwner.set(owner, (set = new Set()));
    return set;
  }

  clear(): void {
    this.tables.clear();
    this.links.clear();
    this.ids.reset();
  }

  /** Fills resources from the operations' success examples, as the spec's `seed` lists say. */
  seedFromExamples(operations: Record<string, MockOperationSpec>): void {
    for (const [name, res] of Object.entries(this.model.resources)) {
      this.table(name);
      for (const s of res.seed) {
        // Own keys only: a seed naming "toString" must not find Object.prototype.toString.
        const op = Object.hasOwn(operations, s.operation) ? operations[s.operation] : undefined;
        if (!op)
          throw new Error(`${this.service} mock: resource "${name}" seeds from unknown operation "${s.operation}"`);
        const found = s.items ? getPath(op.success.example, s.items) : op.success.example;
        const records = Array.isArray(found) ? [...found] : found ? [found] : [];
        if (s.newestFirst) records.reverse();
        for (const record of records) {
          if (record && typeof record === "object" && !this.find(name, (record as Rec)[res.idField]))
            this.put(name, structuredClone(record as Rec));
        }
      }
    }
  }

  /** Loads a state file's records (replacing records with the same id); errors name the resource and record. */
  load(state: MockState): void {
    if (!state || typeof state !== "object" || typeof state.records !== "object" || state.records === null) {
      throw new Error(`${this.service} mock state: expected {"records": {"<resource>": [ … ]}}`);
    }
    for (const [resource, records] of Object.entries(state.records)) {
      if (!Object.hasOwn(this.model.resources, resource)) {
        throw new Error(
          `${this.service} mock state: unknown resource "${resource}" (resources: ` +
            `${Object.keys(this.model.resources).join(", ") || "none"})`,
        );
      }
      if (!Array.isArray(records))
        throw new Error(`${this.service} mock state: records.${resource} must be an array of records`);
      const idField = this.spec(resource).idField;
      records.forEach((r, i) => {
        if (!r || typeof r !== "object" || Array.isArray(r) || r[idField] === undefined || r[idField] === null) {
          throw new Error(`${this.service} mock state: records.${resource}[${i}] needs an "${idField}"`);
        }
        this.put(resource, structuredClone(r));
      });
    }
    for (const [name, owners] of Object.entries(state.relations ?? {})) {
      for (const [owner, keys] of Object.entries(owners))
        for (const k of keys) this.relation(name, owner).add(keyOf(k));
    }
  }

  dump(): MockState {
    const records: Record<string, Rec[]> = {};
    for (const name of Object.keys(this.model.resources))
      records[name] = [...this.table(name).values()].map((r) => structuredClone(r));
    const relations: Record<string, Record<string, string[]>> = {};
    for (const [name, byOwner] of this.links)
      relations[name] = Object.fromEntries([...byOwner].map(([o, s]) => [o, [...s]]));
    return { records, relations };
  }
}
