/**
 * The mocks this process knows by service id. A generated `mock.ts` registers its definition when
 * it is imported, so `startMock("<id>")` finds the mock of any spec — this package's or one
 * generated elsewhere with `stepforge generate --spec … --out …` — without knowing where it lives.
 */
import type { MockDefinition } from "./types.js";

const registered = new Map<string, MockDefinition>();

/** Called by every generated `mock.ts`; a second definition for the same id replaces the first. */
export function registerMock(definition: MockDefinition): MockDefinition {
  registered.set(definition.descriptor.id, definition);
  return definition;
}

export function registeredMock(service: string): MockDefinition | undefined {
  return registered.get(service);
}

/** The ids of every registered mock, sorted. */
export function registeredMocks(): string[] {
  return [...registered.keys()].sort();
}

/** Imports a generated `mock.js`/`mock.ts` (which registers itself) and returns its definition. */
export async function loadMock(file: string | URL): Promise<MockDefinition> {
  const href = typeof file === "string" ? (await import("node:url")).pathToFileURL(file).href : file.href;
  const module = (await import(href)) as { mockDefinition?: MockDefinition };
  if (!module.mockDefinition)
    throw new Error(
      `${typeof file === "string" ? file : file.pathname} exports no mockDefinition; is it a generated mock.ts?`,
    );
  return registerMock(module.mockDefinition);
}
