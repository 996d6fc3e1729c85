/**
 * The shared-state layer (see types.ts): one interface, backends in memory, in a folder, on Redis.
 */
export * from "./types.js";
export { MemoryStateStore } from "./memory.js";
export { hashed, stateKey } from "./keys.js";
export { FileStateStore, type FileStateOptions } from "./file.js";
export { withFileLock, FileLockTimeoutError } from "./file-lock.js";
