/**
 * What the command line says about itself: `stepforge --help`, `stepforge help COMMAND`,
 * `stepforge COMMAND --help`, and the usage lines printed after a usage error.
 *
 * A command's help is one entry in COMMAND_HELP (next to its loader in cli/main.ts): a one-line
 * summary, its usage lines and a few lines of details. Nothing here imports a command, so help is
 * instant and works even when generated/ is broken.
 */

/** A mistake in how the command was called: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export interface CommandHelp {
  /** One line for `stepforge --help`. */
  summary: string;
  /** Synopsis lines, each starting with `stepforge <command>`. */
  usage: string[];
  /** What the command does, its options, exit codes and environment; plain text lines. */
  details: string[];
}

export const COMMAND_HELP: Record<string, CommandHelp> = {
  generate: {
    summary: "generate typed clients, tool steps, triggers and mocks from OpenAPI specs",
    usage: [
      "stepforge generate [--check] [--no-cache] [--timings] [--watch] [--fail-on-breaking] [--changelog]",
      "stepforge generate --spec FILE --out DIR [--service ID] [--package NAME] [--strict] [--watch] [--fail-on-breaking] [--changelog]",
    ],
    details: [
      "Without --spec: regenerates generated/ from this package's specs/ (only changed files are",
      "written), keeps the package exports map in step and compiles the changed modules into dist/,",
      "so the CLI and every package entry see the new output at once.",
      "Before writing it prints the API changes per service against what the output folder holds",
      "(each breaking or compatible, and the semver bump they ask for); see docs/regeneration.md.",
      "  --check            write nothing; exit 1 listing every stale file",
      "  --no-cache         run the whole pipeline even when no input changed",
      "  --timings          print the time per stage",
      "  --watch            regenerate each spec when it is saved (only its service), printing the report",
      "  --fail-on-breaking exit 1 naming each breaking change, and write nothing (for CI)",
      "  --changelog        add a Keep a Changelog section for the changes to CHANGELOG.md (in DIR)",
      "  --spec FILE        any OpenAPI 3.0/3.1 document (x-stepforge extensions optional); repeatable",
      "  --out DIR          where its code goes; it imports the runtime from the installed stepforge",
      "  --service ID       service id for a spec without x-stepforge.id (with one --spec)",
      "  --strict           refuse what a spec without x-stepforge would have repaired (duplicate or",
      "                     missing operationIds, undeclared path parameters); repairs are warnings otherwise",
      "  --package NAME     also write DIR/package.json (exports per module, stepforge as a dependency)",
      "                     and DIR/tsconfig.json, so DIR can be built and published as its own package",
      "A broken spec fails with file:line:col diagnostics and nothing is written.",
      "Needs the optional peer dependencies openapi-typescript and handlebars.",
    ],
  },
  diff: {
    summary: "print the API changes between two versions of a spec, each breaking or compatible",
    usage: ["stepforge diff OLD NEW [--json] [--service ID]"],
    details: [
      "OLD and NEW are spec files or git revisions (HEAD~1:specs/trello.yaml, as git show names them).",
      "Prints each change of the public surface (operations, parameters, request and response fields,",
      "enums, tool steps, triggers, auth), breaking or compatible as the TypeScript checker decides over",
      "the declarations of both versions, and the semver bump they ask for. Nothing is written.",
      "  --json        one JSON document: every change with its kind, verdict and how it was decided",
      "  --service ID  service id for specs without x-stepforge.id",
      "Exit 0 when both specs were compared, 1 when one could not be read or checked.",
      "Needs the optional peer dependencies openapi-typescript and typescript.",
    ],
  },
  migrate: {
    summary: "rewrite a project's calls after operations, parameters or tool steps were renamed",
    usage: ["stepforge migrate [PATHS]... [--dry-run]"],
    details: [
      "Run it where the project's tsconfig.json is, after stepforge generate. Renames method calls on",
      "generated clients, keys of params.path/query/header/cookie and tool step names given to",
      "executeToolByName, from the names each service's surface.json records; lists with",
      "file:line:col what it cannot fix (a removed operation, a new required field, a changed type).",
      "PATHS limit the rewrite to those files or folders (default: the project's own sources).",
      "  --dry-run  write nothing; print the rewrite as a unified diff",
      "Exit 0 when nothing is left to fix by hand, 1 when something is. Rerunning changes nothing.",
      "Needs the optional peer dependency ts-morph (and diff for --dry-run).",
    ],
  },
  lint: {
    summary: "lint specs with Spectral and the stepforge ruleset, and validate x-stepforge extensions",
    usage: ["stepforge lint [--spec FILE]..."],
    details: [
      "Without --spec: lints this package's own specs/.",
      "Prints file:line:col diagnostics; exit 1 when there is an error (warnings do not fail).",
      "Needs the optional peer dependency @stoplight/spectral-cli.",
    ],
  },
  tools: {
    summary: "list the agent tool steps, or export their schemas for OpenAI, Anthropic, MCP or Gemini",
    usage: ["stepforge tools list [--service S] [--json]", "stepforge tools schema --format openai|anthropic|mcp|gemini [--service S]"],
    details: [
      "schema prints one JSON array ready for the provider's API. OpenAI tools that cannot be strict",
      "are exported with strict: false and listed on stderr with the reason.",
    ],
  },
  call: {
    summary: "run one tool step and print its result as JSON",
    usage: ["stepforge call TOOL --input JSON [--connection NAME] [--connections FILE] [--base-url URL]"],
    details: [
      "Prints { \"ok\": true, \"data\": … } and exits 0, or { \"ok\": false, \"error\": … } and exits 1.",
      "  --connections FILE  connections file (default: $STEPFORGE_CONNECTIONS); see the README for",
      "                      its two forms (the runtime's store file, or a plain map by name)",
      "  --connection NAME   which connection; default: the service's only one",
      "  --base-url URL      send the call there instead of the spec's server (e.g. a mock)",
    ],
  },
  mock: {
    summary: "start behavioural mocks (or Prism contract mocks) of the services on 127.0.0.1",
    usage: [
      "stepforge mock SERVICE|all [--port N] [--prism [--errors]]",
      "stepforge mock SERVICE|all [--no-limits | --limits-scale X] [--faults error=R,drop=R,slow=R] [--latency MS[@RATE]] [--seed N]",
      "stepforge mock SERVICE|all [--token-lifetime S] [--webhook-secret S] [--state FILE] [--dump-state FILE]",
    ],
    details: [
      "Prints one line per server (<service> <kind> <url>) and runs until Ctrl-C.",
      "Default ports come from each spec's x-stepforge.mock.ports; --port N with all gives N, N+1, ….",
      "  --prism             Prism contract mocks instead (needs the optional peer dependency @stoplight/prism-cli)",
      "  --errors            with --prism: a request or response that breaks the spec becomes a 422/500",
      "  --no-limits         every limit off (a load test is not refused after 100 requests)",
      "  --limits-scale X    every budget × X (0.1 for tight tests, 10 for load)",
      "  --faults …          seeded faults at rates 0..1: 5xx answers, dropped connections, slow bodies",
      "  --latency MS[@R]    delay every answer (or a rate R of them) by MS",
      "  --seed N            seed of faults, ids and schema samples",
      "  --token-lifetime S  lifetime of issued OAuth tokens, to test expiry",
      "  --webhook-secret S  key of webhook signatures (or $STEPFORGE_WEBHOOK_SECRET)",
      "  --state FILE        records to start from; --dump-state FILE writes them back at the end",
      "A port already taken stops every mock and exits 1 naming the port; a broken spec stops only its own mock.",
      "The credentials each mock accepts and its webhook secret are listed in the README; see docs/mocks.md.",
    ],
  },
  mcp: {
    summary: "serve the tool steps to an MCP client over stdio or Streamable HTTP",
    usage: [
      "stepforge mcp [--service S]... [--toolsets T,...] [--read-only] [--dynamic | --code] [--mock] [--connections FILE]",
      "stepforge mcp ... [--base-url SERVICE=URL]... [--result-bytes N] [--http PORT [--host H]] [--budget] [--output-schemas]",
    ],
    details: [
      "stdio by default (stdout carries the protocol; everything else goes to stderr).",
      "  --http PORT       Streamable HTTP on 127.0.0.1 (--host H elsewhere: needs $STEPFORGE_MCP_TOKEN)",
      "  --mock            run the steps against behavioural mocks started in this process",
      "  --connections F   accounts (default: $STEPFORGE_CONNECTIONS)",
      "  --budget          print what tools/list costs (bytes, about tokens) and exit",
      "  --code            two tools, search and execute: the agent's TypeScript runs in a sandbox (docs/code-mode.md)",
      "  --output-schemas  list each step's result shape and return structuredContent (about +40% listing)",
      "See docs/mcp.md for toolsets, dynamic mode and result sizes.",
    ],
  },
  triggers: {
    summary: "list the triggers the specs declare (webhook and polling)",
    usage: ["stepforge triggers list [--json]"],
    details: [],
  },
  webhook: {
    summary: "receive signed webhook deliveries and print each trigger event as a JSON line",
    usage: [
      "stepforge webhook serve --port N --secret S --callback-url URL [--scope NAME=VALUE]... [--service S] [--host H]",
      "stepforge webhook serve ... [--max-connections N] [--max-connections-per-address N] [--max-buffered-bytes N]",
      "stepforge webhook serve ... [--max-buffered-bytes-per-address N] [--min-body-rate N] [--headers-timeout S]",
      "stepforge webhook serve ... [--body-timeout S] [--dedupe-window S] [--state-dir DIR]",
    ],
    details: [
      "The secret may come from STEPFORGE_WEBHOOK_SECRET instead of --secret.",
      "--scope NAME=VALUE limits the triggers scoped by NAME (a scope the spec declares, e.g. board) to",
      "those values; without it every value's events print. --NAME VALUE is the older spelling.",
      "Listens on 127.0.0.1 unless --host says otherwise.",
      "Caps on connections and buffered body bytes (in all, and per sender address) answer 503, but an",
      "address holding the most gives way to one holding less; bodies slower than --min-body-rate bytes",
      "a second, late bodies and slow headers answer 408; a bad signature header is refused unread.",
      "Deliveries are deduplicated by id for --dedupe-window seconds (default 7 days), shared between",
      "receivers through --state-dir DIR or $STEPFORGE_REDIS_URL. See docs/spec-authoring.md for the defaults.",
    ],
  },

  auth: {
    summary: "print the address where a user authorizes a token (e.g. Trello)",
    usage: ["stepforge auth trello-url --key KEY --app-name NAME"],
    details: ["Flags become the values of the spec's authorize template (kebab-case to camelCase)."],
  },
};

/** The short usage block: every command's synopsis lines. */
export function usage(): string {
  return `usage:\n${Object.values(COMMAND_HELP)
    .flatMap((h) => h.usage)
    .map((line) => `  ${line}\n`)
    .join("")}`;
}

/** `stepforge --help`. */
export function overview(): string {
  const width = Math.max(...Object.keys(COMMAND_HELP).map((n) => n.length));
  const lines = Object.entries(COMMAND_HELP).map(([name, h]) => `  ${name.padEnd(width)}  ${h.summary}\n`);
  return (
    "stepforge: OpenAPI specs in; typed clients, agent tool steps, triggers and mock servers out.\n\n" +
    "usage: stepforge COMMAND [options]\n\ncommands:\n" +
    lines.join("") +
    "\n  stepforge help COMMAND      (or stepforge COMMAND --help) explains one command\n" +
    "  stepforge --version         prints the version\n\n" +
    "Exit codes: 0 success, 1 the command failed, 2 it was called wrongly.\n" +
    "Environment: STEPFORGE_CONNECTIONS (connections file), STEPFORGE_REDIS_URL (shared state),\n" +
    "STEPFORGE_WEBHOOK_SECRET, STEPFORGE_MCP_TOKEN.\n"
  );
}

/** `stepforge help COMMAND`: usage and details; undefined for an unknown command. */
export function commandHelp(name: string): string | undefined {
  const help = COMMAND_HELP[name];
  if (!help) return undefined;
  const usageLines = help.usage.map((l) => `  ${l}\n`).join("");
  const details = help.details.map((l) => `${l}\n`).join("");
  return `stepforge ${name}: ${help.summary}\n\nusage:\n${usageLines}${details ? `\n${details}` : ""}`;
}

/** The usage lines of one command after a usage error (all of them for an unknown command). */
export function usageOf(name: string): string {
  const help = COMMAND_HELP[name];
  if (!help) return usage();
  return `usage:\n${help.usage.map((l) => `  ${l}\n`).join("")}(stepforge help ${name} for details)\n`;
}

/** Every command's usage, as printed before this table existed (kept for callers and tests). */
export const USAGE = usage();
