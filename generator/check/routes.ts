/**
 * SF193: two operations on one route that no path parameter's schema tells apart
 * (`GET /boards/{idBoard}/cards/{filter}` beside `.../{idCard}`, both plain strings; OpenAPI
 * forbids such paths, some published specs have them). The check builds the mock's own router
 * (runtime/mock/router.ts, segments.ts) over the operations, so generation and the mock agree on
 * which routes conflict: an operation whose parameter is an enum, a pattern, a format or a number
 * is told apart from a plain string and is no conflict.
 *
 * Strict: an error naming both operations and the fix. Lenient: the later operation (in spec
 * order) keeps its client method and tool step, but the mock answers its requests with the earlier
 * one (`shadowedBy` on its mock spec), said as a warning; a mock that refused to start would serve
 * neither.
 */
import { RouteConflict, Router } from "../../runtime/mock/router.js";
import { pointerResolver } from "../../runtime/mock/sample.js";
import { addOperationRoute } from "../../runtime/mock/segments.js";
import type { OperationModel } from "../model.js";
import type { CheckContext } from "./context.js";
import { operationServer } from "./servers.js";

export function checkRouteConflicts(context: CheckContext, operations: OperationModel[], baseUrl: string): void {
  const resolve = pointerResolver(context.doc);
  const router = new Router<OperationModel>();
  for (const op of operations) {
    // Where the mock serves it: an operation on its own server is served under that server's path.
    const server = operationServer(context.doc, op.path, op.method);
    const route = { ...op, declaredBase: baseUrl, server, parameters: op.mock.parameters };
    try {
      addOperationRoute(router, route, op, (o) => o.operationId, resolve);
    } catch (error) {
      if (!(error instanceof RouteConflict)) throw error;
      const first = error.existing as OperationModel;
      const fix =
        `give the path parameter of one an \`enum\`, a \`pattern\` or a \`format\` that tells its values apart ` +
        `(or remove one of the operations)`;
      context.repair(
        "SF193",
        ["paths", op.path, op.method.toLowerCase()],
        `${op.operationId} (${op.method} ${op.path}) and ${first.operationId} (${first.method} ${first.path}) ` +
          "are one route to the mock: their path parameters' schemas admit the same values",
        fix,
        `the mock answers both with ${first.operationId}; to tell them apart, ${fix}`,
      );
      op.mock.shadowedBy = first.operationId;
    }
  }
}
