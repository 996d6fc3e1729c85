/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export const USAGE = `usage:
  stepforge generate [--check] [--no-cache] [--timings] [--spec FILE --out DIR [--service ID] [--strict]]
  stepforge lint [--spec FILE]...
  stepforge triggers list [--json]
  stepforge webhook serve --port N --secret S|$STEPFORGE_WEBHOOK_SECRET --callback-url URL [--board ID]... [--service S] [--host H]
  stepforge tools list [--service S] [--json]
  stepforge tools schema --format openai|anthropic|mcp [--service S]
  stepforge call TOOL --input JSON [--connection NAME] [--connections FILE] [--base-url URL]
  stepforge mock SERVICE|all [--port N] [--prism]
  stepforge auth trello-url --key KEY --app-name NAME
`;