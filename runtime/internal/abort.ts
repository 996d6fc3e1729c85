/**
 * An abort controller that also follows a parent signal, without `AbortSignal.any`: that builds a
 * new composite signal (and weak-reference bookkeeping) on every call, which showed in the
 * per-call cost. `dispose()` detaches from the parent once the work is over, so a long-lived
 * parent signal does not collect one listener per call.
 */
export interface LinkedAbort {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
  dispose(): void;
}

export function linkedAbort(parent: AbortSignal | undefined): LinkedAbort {
  const controller = new AbortController();
  if (!parent) return { signal: controller.signal, abort: (reason) => controller.abort(reason), dispose: noop };
  const follow = () => controller.abort(parent.reason);
  if (parent.aborted) follow();
  else parent.addEventListener("abort", follow, { once: true });
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    dispose: () => parent.removeEventListener("abort", follow),
  };
}

function noop(): void {}
