/**
 * The client a tool step runs with. A context either holds one (`client`: built once by the
 * caller, reused by every step and call) or gives the options to build one; then the client is
 * built on the first call and kept for the context object's life (per service), so a context
 * reused across calls shares one client — its plans, its token, its serialisers — instead of
 * building a new one per call. A context's per-call options (signal, wait bound) are applied to
 * each call, never baked into the kept client; so are the hooks one tool call brings along
 * (`withCallHooks`: the call log counts that tool call's attempts on the shared client).
 */
import { type CallOptions, createServiceClient, mergeCallOptions, type ServiceClient } from "../client/client.js";
import type { ServiceDescriptor } from "../descriptor.js";
import type { Hooks } from "../hooks.js";
import type { ToolContext } from "./types.js";
import { observeLayer } from "../observe/layer.js";

const built = new WeakMap<ToolContext, Map<ServiceDescriptor, ServiceClient>>();

/** The context's client for `descriptor`'s service: its own, else the one built from its options. */
export function clientFor(context: ToolContext, descriptor: ServiceDescriptor): ServiceClient {
  if (context.client) return context.client;
  let byService = built.get(context);
  let client = byService?.get(descriptor);
  if (client) return client;
  const {
    client: _none,
    inputLimits: _limits,
    signal: _signal,
    maxLimitWaitMs: _wait,
    callLog: _log,
    logger: _logger,
    ...options
  } = context;
  // Tool steps trace their own calls (tool-calls.ts), so they carry the observability layer anyway.
  client = createServiceClient(descriptor, options, observeLayer);
  if (!byService) built.set(context, (byService = new Map()));
  byService.set(descriptor, client);
  return client;
}

/** The client for one call of a step: the context's client with the call's signal and wait bound. */
export function callClient(context: ToolContext, descriptor: ServiceDescriptor): ServiceClient {
  const client = clientFor(context, descriptor);
  const { signal, maxLimitWaitMs } = context;
  return signal || maxLimitWaitMs !== undefined ? withSettings(client, { signal, maxLimitWaitMs }) : client;
}

/**
 * The context for one tool call whose requests also go to `hooks`: its client (the caller's, or the
 * one kept for the context) with the hooks added to each call, so the kept client stays shared. A
 * connection that cannot build a client leaves the context as it is: running the step reports it.
 */
export function withCallHooks(context: ToolContext, descriptor: ServiceDescriptor, hooks: Hooks): ToolContext {
  let client: ServiceClient;
  try {
    client = clientFor(context, descriptor);
  } catch {
    return context;
  }
  return { ...context, client: withSettings(client, { hooks }) };
}

/**
 * `client` with `settings` added to every call made through it, through the client's own methods
 * (a caller's wrapped client stays in the path).
 */
function withSettings(client: ServiceClient, settings: CallOptions): ServiceClient {
  const add = (init: object = {}) => mergeCallOptions(init, settings);
  return {
    descriptor: client.descriptor,
    baseUrl: client.baseUrl,
    connectionName: client.connectionName,
    call: (operationId, init) => client.call(operationId, add(init)),
    request: (raw, options) => client.request(raw, add(options) as CallOptions),
    pages: (operationId, init, options) => client.pages(operationId, add(init), options),
    items: (operationId, init, options) => client.items(operationId, add(init), options),
  };
}
