/** The shapes of a command's entry point (cli/main.ts loads one per command name). */

/** A command: its arguments after its name and where to write; resolves to the exit code. */
export type Command = (argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream) => Promise<number>;

/**
 * A command that runs until it is stopped (a server, `log --follow`). The last two arguments are for
 * tests: `until` stops it without a signal; `specFiles` reads other spec files than it would.
 */
export type ServingCommand = (
  argv: string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
  until?: Promise<unknown>,
  specFiles?: string[],
) => Promise<number>;
