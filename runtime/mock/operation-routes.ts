/**
 * The mock's table of operations: each operation of the definition with what the mock does for it
 * (`example` when the spec gives it nothing), checked against the store's resources and routed by
 * method and path. Apart from the engine because it is built once, from the definition alone,
 * while the engine answers requests with it.
 */
import type { OperationDescriptor } from "../descriptor.js";
import type { MockOperation, MockOperationSpec } from "./extension-types.js";
import type { Router } from "./router.js";
import { pointerResolver } from "./sample.js";
import { addOperationRoute } from "./segments.js";
import type { Store } from "./store.js";
import type { MockDefinition } from "./types.js";

/** An operation as the engine answers it. */
export interface Operation {
  op: MockOperationSpec;
  desc: OperationDescriptor;
  m: MockOperation;
  /** Creates a webhook registration (check, and maybe probe, its callback first). */
  registersWebhook: boolean;
  /** A template of the operation names `{example}` (the example is then cloned into the context). */
  usesExample: boolean;
}

/** What an operation without mock behaviour does: answer its example (or a sample). */
const EXAMPLE_ONLY: MockOperation = {
  action: "example",
  refs: {},
  from: "body",
  set: {},
  where: {},
  newestFirst: false,
  statuses: {},
  merge: "shallow",
  log: [],
};

/** Checks each operation's resources and adds the route of every operation no earlier one shadows. */
export function routeOperations(definition: MockDefinition, store: Store, router: Router<Operation>): void {
  const { descriptor, mock: model } = definition;
  const resolve = pointerResolver({ components: definition.components });
  for (const op of Object.values(definition.operations)) {
    const desc = descriptor.operations[op.operationId];
    if (!desc) throw new Error(`${descriptor.id} mock: operation ${op.operationId} is not in the descriptor`);
    const m = op.mock ?? EXAMPLE_ONLY;
    if (m.resource) store.spec(m.resource);
    if (m.parent !== undefined && !(m.resource && (m.parentField ?? store.spec(m.resource).parentField))) {
      throw new Error(
        `${descriptor.id} mock: ${op.operationId} has \`parent\` but its resource ${m.resource ?? "(none)"} ` +
          "declares no `parentField` (nor does the operation)",
      );
    }
    for (const entry of m.log) store.spec(entry.resource);
    const registersWebhook =
      m.action === "create" && m.resource !== undefined && m.resource === model.webhooks?.resource;
    const usesExample = JSON.stringify(m).includes("{example");
    // SF193: an operation the spec's schemas cannot tell from an earlier one is answered by that one.
    if (op.shadowedBy === undefined)
      addOperationRoute(
        router,
        { ...op, declaredBase: descriptor.connection.baseUrl, server: desc.server },
        { op, desc, m, registersWebhook, usesExample },
        (o) => o.op.operationId,
        resolve,
      );
  }
}
