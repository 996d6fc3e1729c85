/** The oracles every fuzzing property checks its outcomes with, and the four real specs they start from. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { SpecError, type Diagnostic } from "../../../generator/diagnostics.js";
import { loadSpecText } from "../../../generator/load.js";
import type { ServiceModel } from "../../../generator/model.js";
import { packageRoot } from "../../../generator/package-root.js";
import { checkSpec as validateSpec } from "../../../generator/check/index.js";
import { IDENTIFIER, inventory, type Inventory, isObject, type Json, METHODS, SERVICES } from "./mutations.js";
// ------------------------------------------------------------------ oracles

export function lineCount(text: string): number {
  return text.split("\n").length;
}

/** Every diagnostic is complete: code, severity, file, a place inside the text, a message. */
export function checkDiagnostics(error: unknown, file: string, text: string): Diagnostic[] {
  if (!(error instanceof SpecError)) {
    throw new Error(
      `expected a SpecError, got a raw ${(error as Error)?.constructor?.name ?? typeof error}: ` +
        `${String((error as Error)?.stack ?? error).slice(0, 600)}`,
    );
  }
  expect(error.diagnostics.length).toBeGreaterThan(0);
  const lines = lineCount(text);
  for (const d of error.diagnostics) {
    expect(d.code).toMatch(/^SF\d{3}$/);
    expect(["error", "warning"]).toContain(d.severity);
    expect(d.file).toBe(file);
    expect(Number.isInteger(d.line) && d.line >= 1 && d.line <= lines + 1, `line ${d.line} of ${lines}`).toBe(true);
    expect(Number.isInteger(d.column) && d.column >= 1).toBe(true);
    expect(typeof d.message).toBe("string");
    expect(d.message.trim().length).toBeGreaterThan(0);
    if (d.pointer !== undefined) expect(d.pointer.startsWith("/")).toBe(true);
  }
  return error.diagnostics;
}

/** A model that succeeded is exactly the spec's operations, with usable unique ids. */
export function checkModel(model: ServiceModel, data: Json): void {
  const expected: string[] = [];
  for (const [path, item] of Object.entries(data.paths as Json)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) if (isObject(item[method])) expected.push(`${method.toUpperCase()} ${path}`);
  }
  expect(model.operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(expected.sort());
  const ids = model.operations.map((o) => o.operationId);
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) expect(id).toMatch(IDENTIFIER);
  expect(Object.keys(model.descriptor.operations).sort()).toEqual([...ids].sort());
  for (const op of model.operations) {
    for (const p of op.parameters) {
      expect(typeof p.name).toBe("string");
      expect(["path", "query", "header", "cookie"]).toContain(p.in);
    }
  }
  if (isObject(data["x-stepforge"])) expect(model.id).toBe(data["x-stepforge"].id);
}

/**
 * load → validate on a text; returns the model or the diagnostics, failing on anything else. A hang
 * fails the test by its timeout; what bounds the work (alias and depth limits) is checked by name.
 */
export function loadAndValidate(file: string, text: string): { model?: ServiceModel; diagnostics?: Diagnostic[] } {
  try {
    const spec = loadSpecText(file, text);
    const model = validateSpec(spec);
    checkModel(model, spec.data);
    return { model };
  } catch (error) {
    if (error instanceof Error && error.name === "AssertionError") throw error;
    return { diagnostics: checkDiagnostics(error, file, text) };
  }
}

// ------------------------------------------------------------------ properties

export const inventories = new Map<string, Inventory>();
export const texts = new Map<string, string>();

/** Reads the four real specs and their inventories (once per test file). */
export function loadRealSpecs(): void {
  for (const service of SERVICES) {
    const file = join(packageRoot(), "specs", `${service}.yaml`);
    const text = readFileSync(file, "utf8");
    texts.set(service, text);
    inventories.set(service, inventory(service, loadSpecText(`specs/${service}.yaml`, text)));
  }
}
