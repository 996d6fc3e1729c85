/**
 * `stepforge lint`: the check stage generate runs (same options, same severities, so one verdict)
 * plus Spectral's advice from the project's ruleset (.spectral.yaml), reported together as
 * file:line:col. How Spectral's findings join the check stage's: ./spectral.ts.
 *
 * A spec that does not load (not YAML/JSON) gets its one load diagnostic and nothing else; one
 * that is not OpenAPI 3 (SF101) is not given to Spectral either: what it would find follows from
 * that.
 */
import { relative, resolve } from "node:path";
import type { CheckOptions } from "./check/index.js";
import { checkSpec } from "./check/index.js";
import { SpecError, type Diagnostic } from "./diagnostics.js";
import { loadSpecFile } from "./load.js";
import { reconcile, runSpectral } from "./spectral.js";

export { runSpectral } from "./spectral.js";

/** One spec to lint, with the options generate would get for it (a service id, --strict). */
export interface LintTarget extends CheckOptions {
  file: string;
}

/** Check-stage codes after which Spectral has nothing to add: the document is not one it reads. */
const STOPS_SPECTRAL = new Set(["SF001", "SF002", "SF003", "SF101"]);

interface Checked {
  target: LintTarget;
  label: string;
  found: Diagnostic[];
  serviceId?: string;
  spectral: boolean;
}

export async function lintSpecs(specs: ReadonlyArray<string | LintTarget>, rulesetFile: string): Promise<Diagnostic[]> {
  const checked = specs.map((spec) => checkOne(typeof spec === "string" ? { file: spec } : spec));
  reportSharedIds(checked);
  const toSpectral = checked.filter((c) => c.spectral);
  const spectral = await runSpectral(
    toSpectral.map((c) => resolve(c.target.file)),
    rulesetFile,
  );
  const found: Diagnostic[] = [];
  for (const c of checked) {
    const own = spectral.filter((d) => d.source === resolve(c.target.file)).map(({ source: _source, ...d }) => d);
    found.push(...[...c.found, ...reconcile(own, c.found)].map((d) => ({ ...d, file: c.label })));
  }
  return found.sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.code.localeCompare(b.code),
  );
}

/** The check stage on one spec, exactly as generate runs it: its errors and warnings. */
function checkOne(target: LintTarget): Checked {
  const { file, ...options } = target;
  const label = shown(file);
  try {
    const model = checkSpec(loadSpecFile(file), options);
    return { target, label, found: model.warnings, serviceId: model.id, spectral: true };
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    return {
      target,
      label,
      found: error.diagnostics,
      spectral: !error.diagnostics.some((d) => STOPS_SPECTRAL.has(d.code)),
    };
  }
}

/** SF141, as generate reports it when it is given these specs together. */
function reportSharedIds(checked: Checked[]): void {
  const owners = new Map<string, string>();
  for (const c of checked) {
    if (c.serviceId === undefined) continue;
    const other = owners.get(c.serviceId);
    if (other === undefined) {
      owners.set(c.serviceId, c.target.file);
      continue;
    }
    const spec = loadSpecFile(c.target.file);
    c.found.push(
      spec.diagnostic(
        "SF141",
        ["x-stepforge", "id"],
        `service id "${c.serviceId}" is also used by ${other}; each spec needs its own id`,
      ),
    );
  }
}

/** A spec's name in lint's output: relative to the working directory when inside it. */
function shown(file: string): string {
  const rel = relative(process.cwd(), resolve(file));
  return rel && !rel.startsWith("..") && !rel.startsWith("/") ? rel : file;
}
