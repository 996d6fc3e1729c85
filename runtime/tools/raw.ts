/**
 * A request to any path of a service through the same runtime as every typed call: the service
 * client (credentials, limits, retries, error classification — Marketo's `success:false` in an
 * HTTP 200 included) sees it as one more operation, declared on a copy of the descriptor. The path
 * must already have passed `checkEndpoint`; nothing here widens where a request can go.
 */
import { createServiceClient, type ClientOptions } from "../client/client.js";
import type { HttpMethod, OperationDescriptor, ServiceDescriptor } from "../descriptor.js";

/** The operation id the raw request runs under (shows in hooks and errors). */
export const API_CALL_OPERATION = "apiCall";

export interface RawRequest {
  method: HttpMethod;
  /** A path checked by `checkEndpoint`. */
  path: string;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
}

/** Query names the service's credentials travel under (the model may not set them). */
export function rawOperation(method: HttpMethod, path: string): OperationDescriptor {
  const read = method === "GET" || method === "HEAD";
  return {
    operationId: API_CALL_OPERATION,
    method,
    path,
    // Only methods that mean "same effect when repeated" are resent after an ambiguous failure.
    idempotent: method !== "POST" && method !== "PATCH",
    limitClass: read ? "read" : "write",
  };
}

/** Sends one request through a service client built from `options`; resolves to the parsed body. */
export async function rawCall(descriptor: ServiceDescriptor, options: ClientOptions, request: RawRequest): Promise<unknown> {
  const op = rawOperation(request.method, request.path);
  const scoped: ServiceDescriptor = { ...descriptor, operations: { ...descriptor.operations, [API_CALL_OPERATION]: op } };
  const client = createServiceClient(scoped, options);
  const init: Record<string, unknown> = {};
  if (request.query && Object.keys(request.query).length > 0) init.params = { query: request.query };
  if (request.body !== undefined) init.body = request.body;
  return client.call(API_CALL_OPERATION, init);
}

