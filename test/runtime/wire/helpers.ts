/**
 * The wire tests: a small spec per case checked in-process (checkSpec, as `generate --spec`
 * does), a client for its descriptor, and a loopback server on 127.0.0.1 that records what
 * arrived, so each test asserts the bytes a real request carried.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { stringify } from "yaml";
import { checkSpec } from "../../../generator/check/index.js";
import { loadSpecText } from "../../../generator/load.js";
import { createServiceClient, createSharedState, type ServiceClient } from "../../../runtime/index.js";
import type { Connection } from "../../../runtime/credentials/auth.js";
import { listenOnLoopback } from "../helpers.js";

export const ok = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };

/** A plain spec (no x-stepforge) around `paths` and `components`. */
export function plainSpec(parts: { paths: unknown; components?: unknown; security?: unknown; servers?: unknown }) {
  return {
    openapi: "3.0.3",
    info: { title: "Wire", version: "1" },
    servers: parts.servers ?? [{ url: "https://api.example.com" }],
    ...(parts.components ? { components: parts.components } : {}),
    ...(parts.security ? { security: parts.security } : {}),
    paths: parts.paths,
  };
}

export function modelOf(spec: unknown) {
  return checkSpec(loadSpecText("wire.yaml", stringify(spec)));
}

export function clientOf(
  spec: unknown,
  baseUrl: string,
  fields: Record<string, string> = {},
  extra: Partial<Connection> = {},
): ServiceClient {
  const model = modelOf(spec);
  const connection: Connection = { name: "t", fields, ...extra };
  return createServiceClient(model.descriptor, { connection, baseUrl, shared: createSharedState() });
}

/** What a request carried, its body as the raw bytes. */
export interface RawRequest {
  url: URL;
  headers: IncomingMessage["headers"];
  bytes: Buffer;
}

/** A loopback server that keeps each request's body as bytes (never decoded) and answers with `reply`. */
export async function bytesServer(reply: (req: RawRequest, res: ServerResponse) => void) {
  const received: RawRequest[] = [];
  const server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on("data", (c: Buffer) => chunks.push(c));
    raw.on("end", () => {
      const req = {
        url: new URL(raw.url ?? "/", "http://127.0.0.1"),
        headers: raw.headers,
        bytes: Buffer.concat(chunks),
      };
      received.push(req);
      reply(req, res);
    });
  });
  return { ...(await listenOnLoopback(server)), received };
}
