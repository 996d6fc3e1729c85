/** The entries of the optional layers (layers.ts) and the sentence for one a program did not import. */
export const STATE_ENTRY = "stepforge/runtime/state";
export const OBSERVE_ENTRY = "stepforge/runtime/observe";

/** The sentence for a setting whose layer this program did not import. */
export function missingLayer(setting: string, entry: string, otherwise: string): Error {
  const fix = `add \`import "${entry}";\` once at its start ${otherwise}`;
  return new Error(`${setting}, but this program did not load ${entry}: ${fix}`);
}
