/** How a long-running command (mcp, proxy) learns it should stop. */

/**
 * Resolves on the first SIGINT or SIGTERM, or when `until` settles (tests stop a command that way),
 * and then takes its signal listeners off again so a later command in the same process is not stopped.
 */
export function stopRequested(until?: Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    void until?.then(stop);
  });
}
