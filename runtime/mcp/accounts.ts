/**
 * The accounts a server calls the services with: per service, one or more named connections, each
 * with the context its calls run in (credentials, base address, the process's shared limits and
 * tokens). With several accounts for a service every step of it takes a `stepforge_connection`
 * field, and a call names the account; the model never sees credentials, only the names.
 *
 * Connections come from a connections file (`--connections FILE` or $STEPFORGE_CONNECTIONS), in
 * either form `stepforge call` reads:
 * - the runtime's store: `{ "version": 1, "connections": { "<service>": { "<name>": { "name", "fields" } } } }`
 *   (mode 0600; rotated OAuth tokens are written back);
 * - a plain map: `{ "<name>": { "service": "trello", "fields": { … }, "authMode"?: …, "limits"?: … } }`.
 *
 * Either form may give a connection a `baseUrl` (beside its `fields`): its calls go there instead of
 * the service's address (a staging server, a local mock). `--base-url SERVICE=URL` wins over it.
 * A field the service's address is built from (Marketo's `endpoint`) that such a connection leaves
 * out is filled with it, so pointing a connection at a local mock needs no made-up instance address.
 */
import { readFile } from "node:fs/promises";
import type { Connection } from "../credentials/auth.js";
import { baseUrlFields, FileConnectionStore } from "../credentials/connections.js";
import type { ServiceDescriptor } from "../descriptor.js";
import type { SharedState } from "../client/client.js";
import type { ToolContext, ToolError } from "../tools/types.js";

export interface Account {
  name: string;
  context: ToolContext;
}

/** A connections file that cannot be used; the message says what to fix and never quotes the file. */
export class AccountsError extends Error {
  override name = "AccountsError";
}

export class Accounts {
  private readonly byService: Map<string, Account[]>;

  constructor(entries: Iterable<[string, Account[]]>) {
    this.byService = new Map(
      [...entries].map(([service, list]) => [service, [...list].sort((a, b) => a.name.localeCompare(b.name))]),
    );
  }

  names(service: string): string[] {
    return (this.byService.get(service) ?? []).map((a) => a.name);
  }

  services(): string[] {
    return [...this.byService.keys()];
  }

  /**
   * The account a call names (in `field`, the server's `stepforge_connection`), or a tool error
   * that names the field and the choices.
   */
  resolve(
    service: string,
    requested: unknown,
    tool: string,
    field = "stepforge_connection",
  ): { ok: true; account: Account } | { ok: false; error: ToolError } {
    const list = this.byService.get(service) ?? [];
    const fail = (message: string, path = field): { ok: false; error: ToolError } => ({
      ok: false,
      error: {
        kind: requested === undefined && list.length === 0 ? "connection" : "invalid_input",
        message,
        retryable: false,
        fields: list.length ? [{ path, message }] : [],
        service,
        tool,
      },
    });
    if (list.length === 0) {
      return fail(
        `No ${service} account is configured on this server, so ${tool} cannot run. This is ` +
          `a problem of the server's setup, not of the input: add a ${service} connection to ` +
          `the connections file (or start the server with --mock).`,
        "",
      );
    }
    if (requested === undefined || requested === null) {
      if (list.length === 1) return { ok: true, account: list[0]! };
      return fail(
        `required: this server has several ${service} accounts; set "${field}" to one of ` +
          `${list.map((a) => JSON.stringify(a.name)).join(", ")}.`,
      );
    }
    const found = list.find((a) => a.name === requested);
    if (found) return { ok: true, account: found };
    return fail(
      `${JSON.stringify(requested)} is not a ${service} account of this server; set "${field}" ` +
        `to one of ${list.map((a) => JSON.stringify(a.name)).join(", ")}.`,
    );
  }
}

export interface FileAccountsOptions {
  /** Shared limits and tokens for every call of the process. */
  shared?: SharedState | undefined;
  /** Per service: send to this address instead of the service's (a proxy, a local mock). */
  baseUrls?: Record<string, string> | undefined;
  /** Per service: its descriptor, to fill the address fields of a connection with its own base URL. */
  descriptors?: Record<string, ServiceDescriptor> | undefined;
}

/**
 * A connection's own `baseUrl`, checked; the message names the connection, never the value (it may hold a password).
 */
function ownBaseUrl(file: string, service: string, name: string, raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  let ok = false;
  try {
    ok = typeof raw === "string" && ["http:", "https:"].includes(new URL(raw).protocol);
  } catch {
    ok = false;
  }
  if (!ok)
    throw new AccountsError(
      `the connections file ${file}: ${service} connection "${name}": baseUrl must be an ` +
        `http(s) address, e.g. http://127.0.0.1:4010`,
    );
  return (raw as string).replace(/\/+$/, "");
}

function contextFor(
  service: string,
  connection: Connection,
  options: FileAccountsOptions,
  own: string | undefined,
  store?: FileConnectionStore,
): ToolContext {
  const baseUrl = options.baseUrls?.[service] ?? own;
  const descriptor = options.descriptors?.[service];
  let filled = connection;
  if (baseUrl && descriptor) {
    const missing = baseUrlFields(descriptor).filter((field) => !connection.fields[field]);
    if (missing.length)
      filled = {
        ...connection,
        fields: { ...connection.fields, ...Object.fromEntries(missing.map((f) => [f, baseUrl])) },
      };
  }
  return {
    connection: filled,
    ...(baseUrl ? { baseUrl } : {}),
    ...(options.shared ? { shared: options.shared } : {}),
    ...(store ? { store } : {}),
  };
}

/** Every connection of `services` in a connections file, as accounts. */
export async function accountsFromFile(
  file: string,
  services: readonly string[],
  options: FileAccountsOptions = {},
): Promise<Array<[string, Account[]]>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new AccountsError(
      `cannot read the connections file ${file}: ${(error as NodeJS.ErrnoException).code ?? "error"}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's message would quote the file, which holds secrets.
    throw new AccountsError(`the connections file ${file} is not valid JSON`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new AccountsError(`the connections file ${file} must hold a JSON object`);
  const out: Array<[string, Account[]]> = [];
  if ("connections" in parsed) {
    const store = new FileConnectionStore(file);
    const raw =
      (parsed as { connections?: Record<string, Record<string, { baseUrl?: unknown } | null> | null> }).connections ??
      {};
    for (const service of services) {
      const accounts: Account[] = [];
      for (const ref of await store.list(service)) {
        const connection = await store.get(service, ref.name);
        const own = ownBaseUrl(file, service, ref.name, raw[service]?.[ref.name]?.baseUrl);
        if (connection)
          accounts.push({ name: ref.name, context: contextFor(service, connection, options, own, store) });
      }
      out.push([service, accounts]);
    }
    return out;
  }
  for (const service of services) {
    const accounts: Account[] = [];
    for (const [name, raw] of Object.entries(parsed as Record<string, unknown>)) {
      const entry = raw as {
        service?: unknown;
        fields?: Record<string, string>;
        authMode?: string;
        limits?: Connection["limits"];
        baseUrl?: unknown;
      } | null;
      if (entry?.service !== service) continue;
      const connection: Connection = {
        name,
        fields: entry.fields ?? {},
        ...(entry.authMode ? { authMode: entry.authMode } : {}),
        ...(entry.limits ? { limits: entry.limits } : {}),
      };
      accounts.push({
        name,
        context: contextFor(service, connection, options, ownBaseUrl(file, service, name, entry.baseUrl)),
      });
    }
    out.push([service, accounts]);
  }
  return out;
}
