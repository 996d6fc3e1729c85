/**
 * Key names for the shared state. A key is visible to anyone who can list the store (Redis `KEYS`,
 * the state folder's file names), so credential values and other secrets go in only as hashes.
 */
import { createHash } from "node:crypto";

/** A short, stable, one-way stand-in for a secret or otherwise private value. */
export function hashed(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 24);
}

/** Joins parts with ":", each percent-encoded, so two different lists never make the same key. */
export function stateKey(...parts: string[]): string {
  return parts.map((part) => encodeURIComponent(part)).join(":");
}
