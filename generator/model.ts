/**
 * The validated model of one service (the IR between validation and emitters). Emitters read
 * only this; they never look at raw YAML.
 */
import type { DelimitedStyle, HttpMethod, PagingSpec, ServiceDescriptor } from "../runtime/descriptor.js";
import type { OperationTool, ServiceTools } from "../runtime/tools/model.js";
import type { TriggersExtension } from "../runtime/triggers/model.js";
import type { LoadedSpec } from "./load.js";

export interface ParameterModel {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  deprecated: boolean;
  description: string;
  /** For a query array sent as one delimited value (`explode: false`): its style. */
  delimitedStyle?: DelimitedStyle | undefined;
}

export interface OperationModel {
  operationId: string;
  method: HttpMethod;
  path: string;
  summary: string;
  description: string;
  tags: string[];
  deprecated: boolean;
  parameters: ParameterModel[];
  hasBody: boolean;
  bodyRequired: boolean;
  /** The caller must pass an init object (required parameters or a required body). */
  requiresInput: boolean;
  idempotent: boolean;
  limitClass: "read" | "write";
  paging?: PagingSpec | undefined;
  seed?: { name: string; differs?: string | undefined } | undefined;
  /** `x-stepforge-tool`: how the operation's agent tool step differs from the default. */
  tool?: OperationTool | undefined;
}

export interface ServiceModel {
  spec: LoadedSpec;
  id: string;
  title: string;
  version: string;
  description: string;
  /** True when the spec declares `x-stepforge`; false when it was derived from a foreign spec. */
  declared: boolean;
  descriptor: ServiceDescriptor;
  operations: OperationModel[];
  /** `x-stepforge.tools`: composite/legacy steps and the API Call step (kept out of the descriptor). */
  tools?: ServiceTools | undefined;
  /** `x-stepforge-triggers`: how events arrive and the service's triggers. */
  triggers?: TriggersExtension | undefined;
}
