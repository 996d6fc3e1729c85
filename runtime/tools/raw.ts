/**
 * A request to any path of a service through the same runtime as every typed call: the caller's
 * service client (credentials, limits, retries, error classification — Marketo's `success:false`
 * in an HTTP 200 included) sends it as one more operation, declared for that call only. The path
 * must already have passed `checkEndpoint`; nothing here widens where a request can go.
 */
import type { RawRequest, ServiceClient } from "../client/client.js";
import type { CallOptions } from "../client/context.js";
import { adHocOperation } from "../client/request.js";
import type { HttpMethod, OperationDescriptor } from "../descriptor.js";

/** The operation id the raw request runs under (shows in hooks and errors). */
export const API_CALL_OPERATION = "apiCall";

export type { RawRequest };

/** The operation a raw request runs as. */
export function rawOperation(method: HttpMethod, path: string): OperationDescriptor {
  return adHocOperation(API_CALL_OPERATION, method, path);
}

/** Sends one request through the caller's service client; resolves to the parsed body. */
export function rawCall(client: ServiceClient, request: RawRequest, options?: CallOptions): Promise<unknown> {
  return client.request({ ...request, operationId: request.operationId ?? API_CALL_OPERATION }, options);
}
