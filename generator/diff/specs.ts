/**
 * Reading the two sides of `stepforge diff`: a spec file, or a git revision of one
 * (`HEAD~1:specs/trello.yaml`, as `git show` names it), checked into a model.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { SpecError, toPointer } from "../diagnostics.js";
import { writesExtensions } from "../check/extension-keys.js";
import { NO_PARTS, type ExtensionParts } from "../check/parts.js";
import { checkStage } from "../check/stage.js";
import { loadSpecFile, loadSpecText, type LoadedSpec } from "../load.js";
import type { SurfaceModel } from "../model.js";
import { stubUnchanged } from "./unchanged.js";

/** A file on disk, else `REV:PATH` read with `git show` in the current directory. */
export function loadSide(arg: string): LoadedSpec {
  if (existsSync(arg)) return loadSpecFile(arg);
  const revision = /^([^:]+):(.+)$/.exec(arg);
  if (!revision)
    throw new SpecError([
      {
        code: "SF001",
        severity: "error",
        message: "cannot read the spec: no such file (a git revision is written REV:PATH, e.g. HEAD~1:specs/api.yaml)",
        file: arg,
        line: 1,
        column: 1,
      },
    ]);
  let text: string;
  try {
    text = execFileSync("git", ["show", arg], {
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const reason = String((error as { stderr?: string }).stderr ?? (error as Error).message)
      .trim()
      .split("\n")[0];
    throw new SpecError([
      {
        code: "SF001",
        severity: "error",
        message: `cannot read the spec from git: ${reason}`,
        file: arg,
        line: 1,
        column: 1,
      },
    ]);
  }
  // The path part keeps its extension, so a .json revision is read as JSON.
  return loadSpecText(arg, text);
}

/**
 * The model of a spec for comparing only: its warnings are not shown, so they are made without
 * working out line and column (for a JSON spec that is a YAML parse of the whole document, most
 * of the check stage's time on a large published spec). Errors are checked again with places.
 * The check builds no mock (`surfaceOnly`): no part of the surface reads it. `parts`: partsForDiff's.
 */
export function checkForDiff(spec: LoadedSpec, serviceId: string | undefined, parts: ExtensionParts): SurfaceModel {
  try {
    return checkPlaceless(spec, serviceId, parts);
  } catch (error) {
    if (error instanceof SpecError) return checkStage(spec, diffCheckOptions(serviceId), parts);
    throw error;
  }
}

/**
 * The parts (check/parts.ts) a diff of these specs checks with: none when neither writes an
 * `x-stepforge` key, so zod and the extension schemas are not loaded on the way to the report.
 */
export async function partsForDiff(...specs: LoadedSpec[]): Promise<ExtensionParts> {
  if (!specs.some((spec) => writesExtensions(spec.data))) return NO_PARTS;
  return (await import("../check/zod-parts.js")).EXTENSION_PARTS;
}

/**
 * Both sides of a diff, each checked for its surface (checkForDiff), with the operations that did
 * not change written as the same stub on both (unchanged.ts): the report is the one the whole
 * documents give. A side the stubbed check refuses is checked whole, so an error is reported as
 * checkForDiff reports it, at its place.
 */
export function checkSidesForDiff(
  old: LoadedSpec,
  now: LoadedSpec,
  serviceId: string | undefined,
  parts: ExtensionParts,
): [SurfaceModel, SurfaceModel] {
  const stubbed = stubUnchanged(old.data, now.data);
  if (stubbed) {
    try {
      return [
        { ...checkPlaceless({ ...old, data: stubbed.old }, serviceId, parts), spec: old },
        { ...checkPlaceless({ ...now, data: stubbed.now }, serviceId, parts), spec: now },
      ];
    } catch (error) {
      if (!(error instanceof SpecError)) throw error;
    }
  }
  return [checkForDiff(old, serviceId, parts), checkForDiff(now, serviceId, parts)];
}

function checkPlaceless(spec: LoadedSpec, serviceId: string | undefined, parts: ExtensionParts): SurfaceModel {
  const placeless: LoadedSpec = {
    ...spec,
    diagnostic: (code, path, message, severity = "error") => ({
      code,
      severity,
      message,
      file: spec.file,
      line: 0,
      column: 0,
      pointer: toPointer(path),
    }),
  };
  return { ...checkStage(placeless, diffCheckOptions(serviceId), parts), spec };
}

function diffCheckOptions(serviceId?: string) {
  // Examples decide no verdict, and in a lenient check a mismatch is only a warning: not validated.
  return {
    ...(serviceId ? { serviceId } : {}),
    strict: false,
    lenientExamples: false,
    surfaceOnly: true as const,
  };
}
