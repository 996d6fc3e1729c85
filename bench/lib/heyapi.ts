/**
 * How the benchmarks run HeyAPI (@hey-api/openapi-ts) beside stepforge: one command line for the
 * generate and type-check benchmarks, so both measure the same HeyAPI output.
 */
import { join, resolve } from "node:path";

const HEYAPI_BIN = join(
  resolve(import.meta.dirname, "..", ".."),
  "node_modules",
  "@hey-api",
  "openapi-ts",
  "bin",
  "run.js",
);

/** HeyAPI doing roughly what stepforge does: types, zod schemas and an SDK over its fetch client. */
const HEYAPI_PLUGINS = [
  "-c",
  "@hey-api/client-fetch",
  "-p",
  "@hey-api/typescript",
  "zod",
  "@hey-api/sdk",
  "--no-log-file",
  "-s",
];

/** Arguments of `node` for one HeyAPI run; it pairs the n-th spec with the n-th output folder. */
export function heyapiArgs(specs: readonly string[], outDirs: readonly string[]): string[] {
  return [HEYAPI_BIN, "-i", ...specs, "-o", ...outDirs, ...HEYAPI_PLUGINS];
}
