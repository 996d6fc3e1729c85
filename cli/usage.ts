/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export const USAGE = `usage:
  stepforge generate [--check] [--spec FILE --out DIR [--service ID]]
  stepforge lint [--spec FILE]...
`;
