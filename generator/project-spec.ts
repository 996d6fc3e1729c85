/**
 * The check stage for one spec of a project, with what the project's config changes about its
 * service (its id, its base address) applied to the model. Shared by `generate` and by the
 * commands that build a project's services in memory (cli/spec-services.ts); it imports no
 * emitter, so those commands do not need the generator's optional peers.
 */
import { templateFields } from "../runtime/internal/template.js";
import { checkSpec } from "./check/index.js";
import type { LoadedSpec } from "./load.js";
import type { ServiceModel } from "./model.js";

/** What a project's config (stepforge.config.*) changes about one spec's service. */
export interface SpecOverrides {
  /** Service id of a spec without x-stepforge.id. */
  id?: string;
  /** Base address instead of the spec's first server. */
  baseUrl?: string;
}

export function checkProjectSpec(
  spec: LoadedSpec,
  overrides: SpecOverrides,
  options: { serviceId?: string; strict?: boolean } = {},
): ServiceModel {
  const serviceId = overrides.id ?? options.serviceId;
  const model = checkSpec(spec, { ...(serviceId ? { serviceId } : {}), strict: options.strict === true });
  return overrides.baseUrl === undefined ? model : withBaseUrl(model, overrides.baseUrl);
}

/**
 * The model with another base address. Connection fields the old address was built from (a spec
 * without a usable server gets a required `baseUrl` field) go when nothing else uses them.
 */
function withBaseUrl(model: ServiceModel, baseUrl: string): ServiceModel {
  const connection = model.descriptor.connection;
  const elsewhere = JSON.stringify({ ...model.descriptor, connection: { fields: {} } });
  const used = (name: string) => !templateFields(connection.baseUrl).includes(name) || elsewhere.includes(`{${name}}`);
  const fields = Object.fromEntries(Object.entries(connection.fields).filter(([name]) => used(name)));
  // The mock accepts the same fields: a removed one is no credential of it either.
  const credentials =
    model.mock.credentials &&
    Object.fromEntries(
      Object.entries(model.mock.credentials).filter(([name]) => name in fields || !(name in connection.fields)),
    );
  return {
    ...model,
    descriptor: { ...model.descriptor, connection: { ...connection, baseUrl, fields } },
    mock: { ...model.mock, ...(credentials ? { credentials } : {}) },
  };
}
