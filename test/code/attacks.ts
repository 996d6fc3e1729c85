/**
 * The sandbox attack suite, shared by test/code/attacks.test.ts (which asserts each outcome) and
 * bench/code-mode.ts (which prints the table). Each attack is code an agent could send to
 * `execute`; casts to `any` get it past the type-check, so the sandbox itself is what is tested.
 *
 * An attack is contained when it ends in the expected typed failure, or (`contained`) runs
 * without reaching what it went for. The server serves trello and worldnews with mock accounts
 * and marketo without one.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { texts } from "./helpers.js";

export interface Outcome {
  isError: boolean;
  /** The first text block as JSON. */
  body: {
    error?: { kind: string; message: string; service?: { kind?: string } };
    result?: unknown;
    calls?: number;
    kind?: string;
    diagnostics?: unknown[];
  };
  /** Every text block, for the credential scan. */
  text: string;
}

export interface Attack {
  name: string;
  code: string;
  /** The failure kind expected (`type_error` is the check refusing the code before it runs). */
  expect: string | string[];
  /** For a service error: the kind the bridge answered. */
  serviceKind?: string;
  /** For attacks that run: what shows they reached nothing. */
  contained?: (outcome: Outcome) => boolean;
}

/** Budgets small enough for a quick suite: 1 s of CPU, 64 MiB, 20 calls, 256 KiB of output. */
export const ATTACK_BUDGETS = {
  cpuMs: 1_000,
  wallMs: 15_000,
  memoryBytes: 64 * 1024 * 1024,
  calls: 20,
  outputBytes: 256 * 1024,
};

/** The accounts of the attacked server: trello's and worldnews' (marketo stays without one). */
export const ATTACKED_SERVICES = ["trello", "worldnews"];

const BOARDS = `services.trello.getMemberBoards({ params: { path: { id: "me" } } })`;

export const ATTACKS: Attack[] = [
  {
    name: "constructor of a bridged function → Function → process",
    code: `const F = (services.trello.getCard as any).constructor; return F("return process.env")();`,
    expect: "thrown",
  },
  {
    name: "prototype chain of the services object → Node globals",
    code:
      `const O = Object.getPrototypeOf(services.trello); return O.constructor.constructor("return ` +
      `require('fs')")();`,
    expect: "thrown",
  },
  {
    name: "replace a client method",
    code:
      `(services.trello as any).getCard = () => "forged"; return await services.trello.getCard({ params: { ` +
      `path: { id: "x" } } });`,
    expect: "thrown",
  },
  {
    name: "override JSON.parse/stringify to forge a reply",
    code: `JSON.parse = () => ({ ok: true, data: "forged" }); JSON.stringify = () => "{}"; return await ${BOARDS};`,
    expect: "ok",
    contained: (o) =>
      Array.isArray(o.body.result) &&
      (o.body.result as Array<{ name?: string }>).some((b) => b.name === "Product Roadmap"),
  },
  {
    name: "Object.prototype pollution (baseUrl, headers) before a call",
    code:
      `const p = Object.prototype as any; p.baseUrl = "http://127.0.0.2:9"; p.headers = { Authorization: "x" ` +
      `}; return (await ${BOARDS}).length;`,
    expect: "ok",
    contained: (o) => o.body.result === 2,
  },
  { name: "import() of a Node module", code: `const m = "node:" + "fs"; return await import(m);`, expect: "thrown" },
  {
    name: "import() with a literal (refused by the check)",
    code: `return await import("node:child_process");`,
    expect: "type_error",
  },
  { name: "eval reaching process", code: `return eval("process.env.HOME");`, expect: "thrown" },
  {
    name: "new Function reaching require",
    code: `return new Function("return require('child_process')")();`,
    expect: "thrown",
  },
  { name: "setTimeout (refused by the check)", code: `setTimeout(() => {}, 1); return 1;`, expect: "type_error" },
  {
    name: "setTimeout through globalThis",
    code: `(globalThis as any).setTimeout(() => {}, 1); return 1;`,
    expect: "thrown",
  },
  { name: "a promise nothing resolves", code: `await new Promise(() => {}); return 1;`, expect: "stalled" },
  { name: "infinite loop", code: `for (;;) {}`, expect: "cpu_time" },
  { name: "infinite loop inside try/catch", code: `for (;;) { try { for (;;) {} } catch (e) {} }`, expect: "cpu_time" },
  { name: "deep recursion", code: `const f = (n: number): number => f(n + 1) + 1; return f(0);`, expect: "stack" },
  {
    name: "memory bomb (4 MiB buffers)",
    code: `const keep: Uint8Array[] = []; for (;;) keep.push(new Uint8Array(4 << 20));`,
    expect: "memory",
  },
  {
    name: "memory bomb (arrays, caught and retried)",
    code:
      `const keep: number[][] = []; for (let i = 0; i < 3; i++) { try { for (;;) keep.push(new ` +
      `Array(10_000).fill(i)); } catch (e) {} } return keep.length;`,
    expect: ["memory", "cpu_time", "ok"],
  },
  {
    name: "one builtin call QuickJS does not interrupt (join of 2^27 holes)",
    code: `return new Array(2 ** 27).join("").length;`,
    expect: "cpu_time",
    contained: (o) => /inside one builtin operation/.test(o.body.error?.message ?? ""),
  },
  { name: "huge returned value", code: `return "y".repeat(5_000_000);`, expect: "output" },
  {
    name: "console flood",
    code: `for (let i = 0; i < 1e6; i++) console.log("line " + i + " ".repeat(100));`,
    expect: "output",
  },
  {
    name: "hunt for credentials (globals, services, error texts)",
    code: `const out: string[] = [JSON.stringify(services), Object.getOwnPropertyNames(globalThis).join(",")];
try { await services.trello.getCard({ params: { path: { id: "0000000000000000deadbeef" } } }); }
catch (e) { out.push(JSON.stringify(e), String(e.stack)); }
return out;`,
    expect: "ok",
    contained: (o) => Array.isArray(o.body.result),
  },
  { name: "read the environment", code: `return (globalThis as any).process.env;`, expect: "thrown" },
  {
    name: "fetch another host",
    code: `return await (globalThis as any).fetch("http://127.0.0.1:9/");`,
    expect: "thrown",
  },
  {
    name: "path traversal to another endpoint",
    code: `return await services.trello.getCard({ params: { path: { id: "../1/members/me" } } });`,
    expect: "thrown",
    serviceKind: "invalid_input",
  },
  {
    name: "another base address in the argument",
    code:
      `return await services.trello.getCard({ params: { path: { id: "6123a9f0c4b5d6e7f8091a2b" } }, baseUrl: ` +
      `"http://127.0.0.2:9" } as any);`,
    expect: "thrown",
    serviceKind: "invalid_input",
  },
  {
    name: "smuggled headers (Authorization, Host)",
    code:
      `return await services.trello.getCard({ params: { path: { id: "x" }, header: { Authorization: "Bearer ` +
      `stolen", Host: "evil" } } } as any);`,
    expect: "thrown",
    serviceKind: "invalid_input",
  },
  {
    name: "credential in the query (Trello token)",
    code: `return await services.trello.getCard({ params: { path: { id: "x" }, query: { token: "mine" } } } as any);`,
    expect: "thrown",
    serviceKind: "invalid_input",
  },
  {
    name: "a service without an account",
    code: `return await services.marketo.getLeads({ params: { query: { filterType: "id", filterValues: ["1"] } } });`,
    expect: "thrown",
    serviceKind: "connection",
  },
  {
    name: "re-entrancy: calls from toJSON while the argument is serialised",
    code: `const evil = { toJSON() { for (let i = 0; i < 1000; i++) void ${BOARDS}.catch(() => 0);
  return { params: { path: { id: "me" } } }; } };
return await services.trello.getMemberBoards(evil as any);`,
    expect: "calls",
  },
  {
    name: "Proxy argument whose trap never returns",
    code: `return await services.trello.getCard(new Proxy({}, { ownKeys() { for (;;) {} } }) as any);`,
    expect: "cpu_time",
  },
  {
    name: "thrown object whose getter never returns",
    code: `throw { get message() { for (;;) {} } };`,
    expect: "cpu_time",
  },
  {
    name: "WebAssembly and Atomics",
    code: `const g = globalThis as any; return [new g.WebAssembly.Module(new Uint8Array(8)), g.Atomics.wait];`,
    expect: "thrown",
  },
];

/** Every credential value of the accounts (the scan looks for any of them in any answer). */
export function secretValues(
  accounts: Array<[string, Array<{ context: { connection: { fields: Record<string, string> } } }>]>,
): string[] {
  return accounts
    .flatMap(([, list]) => list.flatMap((a) => Object.values(a.context.connection.fields)))
    .filter((v) => typeof v === "string" && v.length >= 6 && !/^https?:/.test(v));
}

/** Whether the attack was contained (its expected failure, or ran without reaching anything). */
export function contained(attack: Attack, outcome: Outcome): boolean {
  const expected = Array.isArray(attack.expect) ? attack.expect : [attack.expect];
  const kind = outcome.isError ? (outcome.body.error?.kind ?? outcome.body.kind ?? "?") : "ok";
  if (!expected.includes(kind)) return false;
  if (attack.serviceKind && outcome.body.error?.service?.kind !== attack.serviceKind) return false;
  return attack.contained ? attack.contained(outcome) : true;
}

/** What `code` came to through a client's `execute`. */
export async function executeOutcome(client: Client, code: string): Promise<Outcome> {
  const result = await client.callTool({ name: "execute", arguments: { code } });
  const all = texts(result);
  return { isError: result.isError === true, body: JSON.parse(all[0]!) as Outcome["body"], text: all.join("\n") };
}

/** Code that calls both served services, run after the attacks: the server must still run it. */
export const KEEPS_SERVING = `const boards = await services.trello.getMemberBoards({ params: { path: { id: "me" } } });
const geo = await services.worldnews.getGeoCoordinates({ params: { query: { location: "Berlin" } } });
return { boards: boards.length, latitude: typeof geo.latitude };`;

/** One line of the table: the kind, and the start of the message. */
export function describeOutcome(outcome: Outcome): string {
  if (!outcome.isError) return `ran, reached nothing (result ${JSON.stringify(outcome.body.result)?.slice(0, 40)})`;
  const error = outcome.body.error;
  if (!error) return `${outcome.body.kind}: ${JSON.stringify(outcome.body.diagnostics?.[0] ?? "").slice(0, 90)}`;
  const service = error.service?.kind ? ` (service error: ${error.service.kind})` : "";
  return `${error.kind}${service}: ${error.message.slice(0, 90)}`;
}
