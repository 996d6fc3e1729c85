/**
 * The TypeScript compiler for the generator's own uses (diff's checker pass, naming recursive
 * schemas), loaded with `require`. `typescript` is one CommonJS file of 9 MB: an `import` of it
 * makes Node 20 compile it once to tell its module format and scan it for export names before
 * running it, which costs more than twice a `require` of it (1.3 s of CPU against 0.55 s here). The
 * types emitter loads openapi-typescript's CommonJS build for the same reason (emit/types.ts), so
 * its compiler is this same instance from Node's module cache. In a project on TypeScript 7, which
 * has no JavaScript API, it is the copy inside ts-morph (runtime/internal/compiler-api.ts).
 */
import type TypeScript from "typescript";
import { loadCompilerApi } from "../runtime/internal/compiler-api.js";

export const compiler = loadCompilerApi("stepforge's generator");
export const ts: typeof TypeScript = compiler.ts;
