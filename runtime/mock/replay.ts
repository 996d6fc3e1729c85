/**
 * Replaying a HAR recording (`stepforge mock SERVICE --replay FILE.har`, or the `replay` option):
 * a request the recording has an answer for gets that answer; any other goes to the behavioural
 * mock as usual.
 *
 * A request matches a recorded one when both are for the same operation of the spec (method and
 * path template, through the mock's own router) with the same path parameters and the same query
 * parameters, credentials aside (a recording holds them redacted, and a replay's caller has its
 * own). Bodies and headers are not compared. Several recorded answers for the same request are
 * given in recorded order, and the last one again after that, so a read after a write sees what
 * the service showed then.
 *
 * Replayed answers skip the mock's pipeline: no credential check, no limits, no faults.
 */
import type { HarEntry } from "../observe/har.js";
import { responseBytes } from "../observe/har.js";
import type { MockRequest } from "./engine.js";
import { Router } from "./router.js";
import { pointerResolver } from "./sample.js";
import { addOperationRoute } from "./segments.js";
import { Reply, type MockDefinition } from "./types.js";

export interface Replayer {
  /** The recorded answer for `request`, or undefined to let the behavioural mock answer. */
  answer(request: MockRequest): Reply | undefined;
  /** Requests answered from the recording so far. */
  readonly replayed: number;
  /** Recorded entries that matched no operation of the spec (left out). */
  readonly unmatched: number;
}

/** Headers a replay must not repeat: the server sets them for the body it sends. */
const SKIP = new Set([
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "content-encoding",
  "date",
  "set-cookie",
]);

function credentialQueryNames(definition: MockDefinition): Set<string> {
  const auth = definition.descriptor.auth as {
    modes?: Record<string, Array<{ in: string; name: string }>>;
    send?: { in: string; name: string };
  };
  const placements = auth.modes ? Object.values(auth.modes).flat() : auth.send ? [auth.send] : [];
  return new Set(placements.filter((p) => p.in === "query").map((p) => p.name));
}

export function createReplayer(entries: readonly HarEntry[], definition: MockDefinition): Replayer {
  const router = new Router<string>();
  const resolve = pointerResolver({ components: definition.components });
  const { descriptor } = definition;
  for (const op of Object.values(definition.operations))
    if (op.shadowedBy === undefined) {
      const server = descriptor.operations[op.operationId]?.server;
      addOperationRoute(
        router,
        { ...op, declaredBase: descriptor.connection.baseUrl, server },
        op.operationId,
        String,
        resolve,
      );
    }
  const skipQuery = credentialQueryNames(definition);
  const keyOf = (method: string, pathname: string, query: URLSearchParams): string | undefined => {
    const m = method.toUpperCase();
    const match = router.match(m, pathname);
    if (!match) return undefined;
    const params = Object.entries(match.params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const q = [...query]
      .filter(([name]) => !skipQuery.has(name))
      .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
    return JSON.stringify([m, match.value, params, q]);
  };
  const queues = new Map<string, { replies: Reply[]; next: number }>();
  let unmatched = 0;
  for (const entry of entries) {
    let url: URL;
    try {
      url = new URL(entry.request.url);
    } catch {
      unmatched++;
      continue;
    }
    // Behind `proxy --strip-prefix` the URL is the upstream's; `_path` keeps the path as the spec has it.
    const key = keyOf(entry.request.method, entry._path ?? url.pathname, url.searchParams);
    if (!key) {
      unmatched++;
      continue;
    }
    const headers: Record<string, string> = {};
    for (const h of entry.response.headers)
      if (!SKIP.has(h.name.toLowerCase())) headers[h.name.toLowerCase()] = h.value;
    const queue = queues.get(key) ?? { replies: [], next: 0 };
    queue.replies.push(new Reply(entry.response.status, responseBytes(entry), headers));
    queues.set(key, queue);
  }
  let replayed = 0;
  return {
    answer(request) {
      const q = request.url.indexOf("?");
      const key = keyOf(
        request.method,
        q < 0 ? request.url : request.url.slice(0, q),
        new URLSearchParams(q < 0 ? "" : request.url.slice(q + 1)),
      );
      const queue = key === undefined ? undefined : queues.get(key);
      if (!queue) return undefined;
      const reply = queue.replies[Math.min(queue.next, queue.replies.length - 1)]!;
      queue.next++;
      replayed++;
      // A fresh copy: the server adds content-length to the headers it sends.
      return new Reply(reply.status, reply.body, { ...reply.headers });
    },
    get replayed() {
      return replayed;
    },
    get unmatched() {
      return unmatched;
    },
  };
}
