import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";

/**
 * Ports for servers and child processes that need a number up front.
 *
 * They are picked below the kernel's ephemeral range on purpose: every outgoing connection
 * (fetch to Prism, Redis clients, …) takes its local port from that range, so a port chosen there
 * with listen(0) and released can be taken by a client socket before the child binds it. That
 * happened in CI for `mock all --port P`, whose P+1 and P+3 are the even ports Linux hands to
 * connect(). Below the range only other listeners that ask for a number compete, and those
 * numbers are spread at random.
 */
const EPHEMERAL_LOW = ephemeralLow();
const FLOOR = 10000;

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > FLOOR + 1000 ? low : 32768;
  } catch {
    return 32768;
  }
}

function listen(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

function closeAll(servers: Server[]): Promise<void> {
  return Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => undefined);
}

/** The first of `count` consecutive ports that nobody listens on right now, on 127.0.0.1. */
export async function freePortRun(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = FLOOR + Math.floor(Math.random() * (EPHEMERAL_LOW - FLOOR - count));
    const held: Server[] = [];
    for (let i = 0; i < count; i++) {
      const s = await listen(base + i);
      if (!s) break;
      held.push(s);
    }
    const ok = held.length === count;
    await closeAll(held);
    if (ok) return base;
  }
  throw new Error(`no run of ${count} free ports found on 127.0.0.1 between ${FLOOR} and ${EPHEMERAL_LOW}`);
}

/** A port nobody listens on right now, on 127.0.0.1. */
export function freePort(): Promise<number> {
  return freePortRun(1);
}
