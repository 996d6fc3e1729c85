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
  stepforge tools schema --format openai|anthropic|mcp|gemini [--service S]
  stepforge call TOOL --input JSON [--connection NAME] [--connections FILE] [--base-url URL]
  stepforge mock SERVICE|all [--port N] [--prism [--errors]] [--no-limits | --limits-scale X] [--faults error=R,drop=R,slow=R]
                 [--latency MS[@RATE]] [--seed N] [--token-lifetime S] [--webhook-secret S] [--state FILE] [--dump-state FILE]
  stepforge mcp [--service S]... [--toolsets T,...] [--read-only] [--dynamic] [--mock] [--connections FILE] [--base-url SERVICE=URL]... [--result-bytes N] [--http PORT [--host H]] [--budget]
  stepforge auth trello-url --key KEY --app-name NAME
`;