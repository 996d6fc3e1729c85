/**
 * Stage 2: check (stage.ts), with every part it can need (zod-parts.ts): the entry `lint`,
 * `generate` and the project's commands use.
 */
import type { LoadedSpec } from "../load.js";
import type { ServiceModel, SurfaceModel } from "../model.js";
import { checkStage, type CheckOptions, type SurfaceOnly } from "./stage.js";
import { EXTENSION_PARTS } from "./zod-parts.js";

export type { CheckOptions, SurfaceOnly } from "./stage.js";

export function checkSpec(spec: LoadedSpec, options: CheckOptions & SurfaceOnly): SurfaceModel;
export function checkSpec(spec: LoadedSpec, options?: CheckOptions): ServiceModel;
export function checkSpec(spec: LoadedSpec, options: CheckOptions & Partial<SurfaceOnly> = {}) {
  return checkStage(spec, options, EXTENSION_PARTS);
}
