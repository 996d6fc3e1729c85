/**
 * Named connections (connected accounts) per service, validated against the descriptor's
 * `connection.fields`, kept in memory, in a JSON file only its owner can read (mode 0600, written
 * atomically: a crash leaves the old file or the new one, never half of either), or as records of
 * a shared state store (Redis: every machine sees the same connections).
 *
 * Many processes may share one store. Every change is made to one connection, under a lock that
 * spans processes (the file's lock file, or a lock in the state store), on a fresh read: a process
 * never writes other connections back from an earlier copy. `rotate` renews an OAuth connection's
 * tokens while holding that lock, so two processes never spend the same refresh token.
 *
 * Error messages name the connection, the field and the fix, and never the value of a secret field.
 */
import { randomUUID } from "node:crypto";
import { withFileLock } from "../state/file-lock.js";
import type { StateStore } from "../state/types.js";
import { chmod, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { ServiceDescriptor } from "../descriptor.js";
import { ConnectionError, redactUrl } from "../errors.js";
import { type Connection, managedFields } from "./auth.js";
import { effectiveLimits } from "../limits/limits.js";
import { templateFields } from "../internal/template.js";

const CONNECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface ValidateOptions {
  /** Fields not checked against their pattern (the base-address fields when a base URL override is in force). */
  skipPatternFor?: Iterable<string>;
}

/** Every problem with `connection`, as messages that name the field and the fix. */
export function connectionProblems(
  descriptor: ServiceDescriptor,
  connection: Connection,
  options: ValidateOptions = {},
): Array<{ field?: string; message: string }> {
  const problems: Array<{ field?: string; message: string }> = [];
  const who = `${descriptor.title} connection "${connection.name}"`;
  if (typeof connection.name !== "string" || !CONNECTION_NAME.test(connection.name)) {
    problems.push({
      message:
        `${descriptor.title}: connection name must be 1-64 letters, digits, "_", "." ` +
        `or "-", starting with a letter or digit`,
    });
  }
  const declared = descriptor.connection.fields;
  const managed = new Set(managedFields(descriptor));
  const skip = new Set(options.skipPatternFor ?? []);
  const fields = connection.fields ?? {};
  for (const [name, spec] of Object.entries(declared)) {
    const value = fields[name];
    if (value === undefined || value === "") {
      if (spec.required && !managed.has(name)) {
        problems.push({
          field: name,
          message: `${who}: field "${name}" is missing (${spec.description}); add "${name}" to the connection`,
        });
      }
      continue;
    }
    if (typeof value !== "string") {
      problems.push({ field: name, message: `${who}: field "${name}" must be a string` });
      continue;
    }
    if (spec.pattern && !skip.has(name) && !new RegExp(spec.pattern).test(value)) {
      const shown = spec.secret ? "the value (not shown)" : `"${withoutUserInfo(value)}"`;
      const example = spec.example && !spec.secret ? `, for example "${spec.example}"` : "";
      problems.push({
        field: name,
        message:
          `${who}: field "${name}" is not valid: ${shown} does not match ${spec.pattern}; ` +
          `set it to ${spec.description.replace(/\.$/, "")}${example}`,
      });
    }
  }
  for (const name of Object.keys(fields)) {
    if (!(name in declared) && !managed.has(name)) {
      problems.push({
        field: name,
        message:
          `${who}: "${name}" is not a field of ${descriptor.title}; remove it (the ` +
          `fields are ${Object.keys(declared).join(", ")})`,
      });
    }
  }
  const auth = descriptor.auth;
  if (auth.kind === "api-key" && connection.authMode !== undefined && !(connection.authMode in auth.modes)) {
    problems.push({
      message: `${who}: authMode "${connection.authMode}" is unknown; use one of ${Object.keys(auth.modes).join(", ")}`,
    });
  }
  if (connection.limits) {
    try {
      effectiveLimits(descriptor, connection.limits);
    } catch (error) {
      problems.push({ message: `${who}: ${(error as Error).message}` });
    }
  }
  return problems;
}

/** A non-secret value fit for a message: an address loses its user information (`user:password@`). */
function withoutUserInfo(value: string): string {
  try {
    const url = new URL(value);
    if (url.username || url.password) return redactUrl(value);
  } catch {
    /* not an address */
  }
  return value;
}

/** Throws a ConnectionError for the first problem (all of them listed in its message). */
export function validateConnection(
  descriptor: ServiceDescriptor,
  connection: Connection,
  options: ValidateOptions = {},
): void {
  const problems = connectionProblems(descriptor, connection, options);
  if (problems.length === 0) return;
  const message = problems.length === 1 ? problems[0]!.message : problems.map((p) => p.message).join("; ");
  throw new ConnectionError(message, { service: descriptor.id, operation: "", field: problems[0]!.field });
}

/** Fields that only shape the base address (skipped by pattern checks when the address is overridden). */
export function baseUrlFields(descriptor: ServiceDescriptor): string[] {
  return templateFields(descriptor.connection.baseUrl);
}

export interface ConnectionRef {
  service: string;
  name: string;
}

export interface ConnectionStore {
  get(service: string, name: string): Promise<Connection | undefined>;
  list(service?: string): Promise<ConnectionRef[]>;
  /** Validates against the descriptor, then adds or replaces the connection. */
  put(descriptor: ServiceDescriptor, connection: Connection): Promise<void>;
  /** Merges fields into a stored connection (rotated tokens); no-op when it is not stored. */
  updateFields(service: string, name: string, fields: Record<string, string>): Promise<void>;
  remove(service: string, name: string): Promise<boolean>;
  /**
   * Runs `step` with the freshest stored copy of one connection while no other process (sharing
   * the store) can rotate or change it; merges the fields `step` returns into the stored connection.
   * Stores without it are updated with `updateFields` after the fact (no protection across processes).
   */
  rotate?<T>(
    service: string,
    name: string,
    step: (stored: Connection | undefined) => Promise<RotationStep<T>>,
  ): Promise<T>;
}

/** What a rotation step decided: fields to merge into the stored connection (none: leave it), and its result. */
export interface RotationStep<T> {
  fields?: Record<string, string> | undefined;
  result: T;
}

/** Loads a connection or explains which ones exist. */
export async function requireConnection(
  store: ConnectionStore,
  descriptor: ServiceDescriptor,
  name: string,
): Promise<Connection> {
  const connection = await store.get(descriptor.id, name);
  if (connection) return connection;
  const known = (await store.list(descriptor.id)).map((r) => r.name);
  throw new ConnectionError(
    `${descriptor.title} has no connection "${name}"; ` +
      `${known.length ? `use one of ${known.join(", ")}` : "add one first"}`,
    { service: descriptor.id, operation: "" },
  );
}

type Data = Record<string, Record<string, Connection>>;

function copy(connection: Connection): Connection {
  return JSON.parse(JSON.stringify(connection)) as Connection;
}

abstract class BaseStore implements ConnectionStore {
  private chain: Promise<unknown> = Promise.resolve();
  protected abstract load(): Promise<Data>;
  protected abstract save(data: Data): Promise<void>;

  /** Runs read-modify-write steps one at a time (subclasses widen this to other processes). */
  protected exclusive<T>(step: () => Promise<T>): Promise<T> {
    const next = this.chain.then(step, step);
    this.chain = next.catch(() => undefined);
    return next;
  }

  // Reads take no lock: every write replaces the whole file at once, so a read sees one version.
  async get(service: string, name: string): Promise<Connection | undefined> {
    const found = (await this.load())[service]?.[name];
    return found ? copy(found) : undefined;
  }

  async list(service?: string): Promise<ConnectionRef[]> {
    const data = await this.load();
    return Object.entries(data)
      .filter(([s]) => service === undefined || s === service)
      .flatMap(([s, byName]) =>
        Object.keys(byName)
          .sort()
          .map((name) => ({ service: s, name })),
      );
  }

  async put(descriptor: ServiceDescriptor, connection: Connection): Promise<void> {
    validateConnection(descriptor, connection);
    return this.exclusive(async () => {
      const data = await this.load();
      (data[descriptor.id] ??= {})[connection.name] = copy(connection);
      await this.save(data);
    });
  }

  updateFields(service: string, name: string, fields: Record<string, string>): Promise<void> {
    return this.exclusive(async () => {
      const data = await this.load();
      const found = data[service]?.[name];
      if (!found) return;
      found.fields = { ...found.fields, ...fields };
      await this.save(data);
    });
  }

  remove(service: string, name: string): Promise<boolean> {
    return this.exclusive(async () => {
      const data = await this.load();
      if (!data[service]?.[name]) return false;
      delete data[service][name];
      if (Object.keys(data[service]).length === 0) delete data[service];
      await this.save(data);
      return true;
    });
  }

  rotate<T>(
    service: string,
    name: string,
    step: (stored: Connection | undefined) => Promise<RotationStep<T>>,
  ): Promise<T> {
    return this.exclusive(async () => {
      const before = (await this.load())[service]?.[name];
      const outcome = await step(before ? copy(before) : undefined);
      if (outcome.fields && before) {
        // Re-read: only this connection changes, from the file as it is now; and only if nobody
        // changed it meanwhile (possible only if our lock was taken over): never overwrite newer tokens.
        const data = await this.load();
        const found = data[service]?.[name];
        if (found && JSON.stringify(found.fields) === JSON.stringify(before.fields)) {
          found.fields = { ...found.fields, ...outcome.fields };
          await this.save(data);
        }
      }
      return outcome.result;
    });
  }
}

export class MemoryConnectionStore extends BaseStore {
  private data: Data = {};
  constructor(initial: Array<{ service: string; connection: Connection }> = []) {
    super();
    for (const { service, connection } of initial) (this.data[service] ??= {})[connection.name] = copy(connection);
  }
  protected async load(): Promise<Data> {
    return JSON.parse(JSON.stringify(this.data)) as Data;
  }
  protected async save(data: Data): Promise<void> {
    this.data = JSON.parse(JSON.stringify(data)) as Data;
  }
}

/**
 * Connections in a JSON file: `{ "version": 1, "connections": { service: { name: Connection } } }`.
 * Written to a temporary file (mode 0600) in the same folder, flushed, then renamed over the old
 * one. A file that others can read is refused until its mode is fixed. Every change holds the
 * file's lock (`<file>.lock`, see state/file-lock.ts) from its read to its rename, so processes
 * sharing the file change one connection at a time and never write back a stale copy of another.
 */
export class FileConnectionStore extends BaseStore {
  constructor(
    readonly path: string,
    /**
     * Longest wait for another process's change or token renewal (default 2 min: a renewal may wait on a slow token
     * endpoint).
     */
    readonly lockTimeoutMs = 120_000,
  ) {
    super();
  }

  protected override exclusive<T>(step: () => Promise<T>): Promise<T> {
    // A lock is held across a token request, so it is taken over only after 30 s without a sign of life.
    return withFileLock(this.path, step, {
      timeoutMs: this.lockTimeoutMs,
      staleMs: 30_000,
      tolerateTakeover: true,
    }).catch((error: unknown) => {
      if ((error as Error).name === "FileLockTimeoutError")
        throw new ConnectionError((error as Error).message, { service: "", operation: "" });
      throw error;
    });
  }

  protected async load(): Promise<Data> {
    let text: string;
    try {
      if (process.platform !== "win32") {
        const info = await stat(this.path);
        if ((info.mode & 0o077) !== 0) {
          throw new ConnectionError(
            `connection file ${this.path} can be read by other users (mode ${(info.mode & 0o777).toString(8)}); ` +
              `run: chmod 600 ${this.path}`,
            { service: "", operation: "" },
          );
        }
      }
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // The parser's message quotes the file's text, which holds secrets: say only where.
      throw new ConnectionError(
        `connection file ${this.path} is not valid JSON; fix it or move it away and add the connections again`,
        {
          service: "",
          operation: "",
        },
      );
    }
    const connections = (parsed as { connections?: unknown })?.connections;
    if (!connections || typeof connections !== "object" || Array.isArray(connections)) {
      throw new ConnectionError(
        `connection file ${this.path} has no "connections" object; expected { "version": 1, ` +
          `"connections": { "<service>": { "<name>": {...} } } }`,
        {
          service: "",
          operation: "",
        },
      );
    }
    return connections as Data;
  }

  protected async save(data: Data): Promise<void> {
    const dir = dirname(this.path);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = join(dir, `.${basename(this.path)}.${process.pid}.${randomUUID()}.tmp`);
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(`${JSON.stringify({ version: 1, connections: data }, null, 2)}\n`, "utf8");
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temp, { force: true });
      throw error;
    }
    await handle.close();
    try {
      await chmod(temp, 0o600);
      await rename(temp, this.path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }
}

/**
 * Connections as records of a state store (`connection:<service>:<name>`), so every process on
 * every machine sharing the store (Redis) sees one set of connections. Each change is a
 * compare-and-swap on the record's version; `rotate` holds a lock in the store (with a fencing
 * token) across the token request, and writes only while that lock is still its own.
 */
export class StateConnectionStore implements ConnectionStore {
  constructor(
    readonly state: StateStore,
    /** A rotation lock lapses this long after its holder stopped renewing it (default 15 s). */
    readonly lockTtlMs = 15_000,
  ) {}

  private key(service: string, name: string): string {
    return `connection:${encodeURIComponent(service)}:${encodeURIComponent(name)}`;
  }

  async get(service: string, name: string): Promise<Connection | undefined> {
    return (await this.state.get<Connection>(this.key(service, name)))?.value;
  }

  async list(service?: string): Promise<ConnectionRef[]> {
    const prefix = service === undefined ? "connection:" : `connection:${encodeURIComponent(service)}:`;
    return (await this.state.keys(prefix)).map((key) => {
      const [, s, n] = key.split(":");
      return { service: decodeURIComponent(s!), name: decodeURIComponent(n!) };
    });
  }

  async put(descriptor: ServiceDescriptor, connection: Connection): Promise<void> {
    validateConnection(descriptor, connection);
    await this.state.set(this.key(descriptor.id, connection.name), copy(connection));
  }

  async updateFields(service: string, name: string, fields: Record<string, string>): Promise<void> {
    const key = this.key(service, name);
    for (;;) {
      const found = await this.state.get<Connection>(key);
      if (!found) return;
      const next = { ...found.value, fields: { ...found.value.fields, ...fields } };
      if ((await this.state.set(key, next, { ifVersion: found.version })).ok) return;
    }
  }

  async remove(service: string, name: string): Promise<boolean> {
    return this.state.delete(this.key(service, name));
  }

  async rotate<T>(
    service: string,
    name: string,
    step: (stored: Connection | undefined) => Promise<RotationStep<T>>,
  ): Promise<T> {
    const key = this.key(service, name);
    const lockKey = `connection-rotation:${encodeURIComponent(service)}:${encodeURIComponent(name)}`;
    let pause = 10;
    for (;;) {
      const grant = await this.state.lock(lockKey, this.lockTtlMs);
      if (!("token" in grant)) {
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(1, Math.min(pause, grant.heldUntil - this.state.clock.now()))),
        );
        pause = Math.min(pause * 2, 50);
        continue;
      }
      const keepAlive = setInterval(
        () => void this.state.renewLock(grant, this.lockTtlMs).catch(() => undefined),
        Math.max(1000, this.lockTtlMs / 3),
      );
      keepAlive.unref?.();
      try {
        const before = await this.state.get<Connection>(key);
        const outcome = await step(before ? copy(before.value) : undefined);
        if (outcome.fields && before) {
          const next = { ...before.value, fields: { ...before.value.fields, ...outcome.fields } };
          // Fenced: a holder whose lock lapsed mid-renewal does not overwrite what the next holder wrote.
          const written = await this.state.set(key, next, { fence: { lock: lockKey, token: grant.token } });
          if (!written.ok) {
            // Lost the lock: still the newest tokens unless the record moved on since our read.
            await this.state.set(key, next, { ifVersion: before.version });
          }
        }
        return outcome.result;
      } finally {
        clearInterval(keepAlive);
        await this.state.unlock(grant).catch(() => undefined);
      }
    }
  }
}
