/**
 * Global setup of the "package" project (vitest.config.ts): starts the shared pack (tarball.ts)
 * when the run begins, not when the package group does. Vitest calls it only when a package file
 * is queued. The pack (a prepack compile, single-threaded) then runs beside the suites instead of
 * holding both package workers idle for its half minute: the files find it in the cache, or wait
 * for it under the lock, as when one of them packs. Not awaited here; a failed pack is retried and
 * reported by the first file that needs the tarball.
 */
import { packedTarball } from "./tarball.js";

let packing: Promise<unknown> | undefined;

export function setup(): void {
  packing = packedTarball().catch(() => undefined);
}

export async function teardown(): Promise<void> {
  await packing;
}
