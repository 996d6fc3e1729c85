/**
 * Registering and removing webhooks through the service's own API, as the spec's
 * `delivery.register` names the operations. A trigger's webhook is registered once per scope value
 * (`modelId`). Enabling reuses a registration that already exists for the same model and callback
 * (a service may refuse duplicates); disabling tolerates it being gone.
 */
import { StepforgeError } from "../errors.js";
import type { Delivery } from "./extension-types.js";

/** Calls one operation of the service (bind it to a ServiceClient's `call`). */
export type CallFn = (
  operationId: string,
  init: { params?: { path?: Record<string, string>; query?: Record<string, unknown> }; body?: unknown },
) => Promise<unknown>;

export interface Registration {
  id: string;
  reused: boolean;
}

export async function ensureWebhook(
  delivery: Delivery,
  call: CallFn,
  target: { modelId: string; callbackUrl: string; description?: string; connectionFields: Record<string, string> },
): Promise<Registration> {
  const reg = delivery.register;
  const listPath: Record<string, string> = {};
  if (reg.listPathParam) {
    const value = target.connectionFields[reg.listPathParam.connectionField];
    if (!value)
      throw new Error(`the connection has no "${reg.listPathParam.connectionField}"; it is needed to list webhooks`);
    listPath[reg.listPathParam.name] = value;
  }
  const existing = await call(reg.list, { params: { path: listPath } });
  if (Array.isArray(existing)) {
    const same = existing.find(
      (w) => w && w[reg.modelField] === target.modelId && w[reg.callbackField] === target.callbackUrl,
    );
    if (same && typeof same[reg.idField] === "string") return { id: same[reg.idField] as string, reused: true };
  }
  const created = (await call(reg.create, {
    body: {
      [reg.modelField]: target.modelId,
      [reg.callbackField]: target.callbackUrl,
      ...(target.description ? { description: target.description } : {}),
    },
  })) as Record<string, unknown>;
  const id = created?.[reg.idField];
  if (typeof id !== "string") throw new Error(`${reg.create} returned no ${reg.idField}`);
  return { id, reused: false };
}

/** Removes a registration; one that is already gone counts as removed. */
export async function removeWebhook(delivery: Delivery, call: CallFn, id: string): Promise<{ removed: boolean }> {
  try {
    await call(delivery.register.remove, { params: { path: { [delivery.register.removeParam]: id } } });
    return { removed: true };
  } catch (error) {
    if (error instanceof StepforgeError && error.kind === "not_found") return { removed: false };
    throw error;
  }
}
