/**
 * The wire tests: a small spec per case checked in-process (checkSpec, as `generate --spec`
 * does), a client for its descriptor, and a loopback server on 127.0.0.1 that records what
 * arrived, so each test asserts the bytes a real request carried.
 */
import { stringify } from "yaml";
import { checkSpec } from "../../../generator/check/index.js";
import { loadSpecText } from "../../../generator/load.js";
import { createServiceClient, createSharedState, type ServiceClient } from "../../../runtime/index.js";
import type { Connection } from "../../../runtime/credentials/auth.js";

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
