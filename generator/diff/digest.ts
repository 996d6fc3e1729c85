/**
 * Digests of the canonical texts a surface fingerprints (surface.ts): sha256 for the surfaces
 * written to disk, which a later run compares against; short ids for two surfaces compared in one
 * process and never written (`stepforge diff`).
 */
import { createHash } from "node:crypto";

/** What a fingerprint keeps of a canonical text: equal texts, equal digests. */
export type Digest = (text: string) => string;

/** The digest of the surfaces written to disk (surface.json), which a later run compares against. */
export const sha: Digest = (text) => createHash("sha256").update(text).digest("hex").slice(0, 16);

/**
 * A digest for two surfaces compared in one process and never written (`stepforge diff`): each
 * distinct text gets the next short id, so equal texts get equal ids and different texts different
 * ones, exactly and without hashing (sha256, its first use included, was about 40 of the 90 ms
 * the two surfaces of the planted Trello edit took in a profile).
 */
export function textIds(): Digest {
  const ids = new Map<string, string>();
  return (text) => {
    let id = ids.get(text);
    if (id === undefined) ids.set(text, (id = `~${ids.size.toString(36)}`));
    return id;
  };
}
