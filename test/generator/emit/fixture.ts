/** Small specs for the emitter tests: built in memory, checked by the real check stage. */
import { checkSpec } from "../../../generator/check/index.js";
import type { EmitContext } from "../../../generator/emit/file.js";
import { loadSpecText } from "../../../generator/load.js";
import type { ServiceModel } from "../../../generator/model.js";
import { minimalSpec } from "../../helpers/spec.js";

export const context: EmitContext = { runtimeImport: "stepforge/runtime", specLabel: "specs/widgets.yaml" };

/** The model of the minimal spec after `edit`, as the pipeline hands it to the emitters. */
export function modelOf(edit: (doc: any) => void = () => {}, options: { strict?: boolean } = {}): ServiceModel {
  const doc = minimalSpec() as any;
  edit(doc);
  return checkSpec(loadSpecText("widgets.json", JSON.stringify(doc)), options);
}

/** A file's text without its two header lines. */
export function body(content: string): string {
  return content.split("\n").slice(3).join("\n");
}
