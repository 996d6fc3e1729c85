/** The limit and the operation the limiter benchmarks plan calls with (bench/limiter-shared.ts and its workers). */
import type { LimitSpec, OperationDescriptor } from "../../runtime/descriptor.js";

/** A window of `requests` per `windowSeconds` per connection, refused with 429. */
export function windowLimit(requests: number, windowSeconds: number, id = "rate"): LimitSpec {
  return {
    id,
    kind: "window",
    requests,
    windowSeconds,
    applies: "all",
    per: "connection",
    description: "bench",
    rejection: { status: 429 },
  } as LimitSpec;
}

/** A read (GET, idempotent) at `path`. */
export function readOperation(operationId: string, path: string): OperationDescriptor {
  return { operationId, method: "GET", path, idempotent: true, limitClass: "read" };
}
