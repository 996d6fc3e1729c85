/**
 * The generated services, found through the generated root index (one namespace per spec), so
 * CLI commands never name a service.
 */
import * as generated from "../generated/index.js";
import type { ServiceDescriptor } from "../runtime/descriptor.js";
import type { TriggersExtension } from "../runtime/triggers/model.js";

export interface GeneratedService {
  id: string;
  descriptor: ServiceDescriptor;
  triggers?: TriggersExtension;
}

export function generatedServices(): GeneratedService[] {
  return Object.entries(generated as Record<string, Record<string, unknown>>)
    .map(([id, module]) => ({
      id,
      descriptor: module.descriptor as ServiceDescriptor,
      ...(module.triggers ? { triggers: module.triggers as TriggersExtension } : {}),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}
