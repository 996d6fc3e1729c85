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
  init: {
    summary: "start a project: write stepforge.config.ts naming your specs, output folder and package",
    usage: ["stepforge init [--spec FILE]... [--out DIR] [--package NAME] [--format ts|json|yaml] [--force]"],
    details: [
      "Writes stepforge.config.ts (typed with defineConfig from stepforge/config; --format json or yaml",
      "writes stepforge.config.json / .yaml instead). Every command then works on the project's specs.",
      "  --spec FILE     a spec of the project (repeatable); default: the OpenAPI documents found in",
      "                  this folder, specs/, openapi/ and api/",
      "  --out DIR       where generate writes the code (default src/stepforge)",
      "  --package NAME  the output folder is a package of that name (package.json, imports in its READMEs)",
      "  --force         replace an existing config (of the same format)",
      "A service's id is its spec file's base name (specs/library.yaml: library) unless the spec declares",
      "x-stepforge.id; give another with { file, id } in the config, which also takes baseUrl and mock: { port }.",
      "An existing config is left alone (exit 2 naming it) unless --force.",
    ],
  },
  generate: {
    summary: "generate typed clients, tool steps, triggers and mocks from OpenAPI specs",
    usage: [
      "stepforge generate [--check] [--no-cache] [--timings] [--watch] " +
        "[--fail-on-breaking] [--changelog] [--strict] [--project DIR]",
      "stepforge generate --spec FILE --out DIR [--service ID] [--package NAME] [--strict] " +
        "[--watch] [--fail-on-breaking] [--changelog]",
    ],
    details: [
      "Without --spec: generates the project's specs (stepforge.config.* here, or in --project DIR) into",
      "its output folder; in a checkout of stepforge without a config, regenerates generated/ from specs/",
      "(only changed files are written), keeps the package exports map in step and compiles the changed",
      "modules into dist/, so the CLI and every package entry see the new output at once.",
      "Files an earlier run wrote that no spec generates any more (a renamed service's folder) are",
      "removed, unless edited since (listed in .stepforge-files.json of the output folder).",
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
      "  --service ID       service id for a spec without x-stepforge.id (with one --spec; default: its file name)",
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
    usage: ["stepforge diff OLD NEW [--json] [--service ID] [--fail-on-breaking]"],
    details: [
      "OLD and NEW are spec files or git revisions (HEAD~1:specs/trello.yaml, as git show names them).",
      "Prints each change of the public surface (operations, parameters, request and response fields,",
      "enums, tool steps, triggers, auth), breaking or compatible as the TypeScript checker decides over",
      "the declarations of both versions, and the semver bump they ask for. Nothing is written.",
      "  --json              one JSON document: every change with its kind, verdict and how it was decided",
      "  --service ID        the service id; default: the project's for a spec of its config, else the",
      "                      spec's x-stepforge.id, else its file name (specs/bookshelf.yaml -> bookshelf)",
      "  --fail-on-breaking  exit 1 when a change is breaking (the report still prints), for a CI gate",
      "Exit 0 when both specs were compared, 1 when one could not be read or checked (or, with",
      "--fail-on-breaking, a change is breaking).",
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
    usage: ["stepforge lint [--spec FILE]... [--project DIR]"],
    details: [
      "Without --spec: lints the project's specs (stepforge.config.*), else this package's own specs/.",
      "Prints file:line:col diagnostics; exit 1 when there is an error (warnings do not fail).",
      "Needs the optional peer dependency @stoplight/spectral-cli.",
    ],
  },
  tools: {
    summary: "list the agent tool steps, or export their schemas for OpenAI, Anthropic, MCP or Gemini",
    usage: [
      "stepforge tools list [--service S] [--json] [--spec FILE]... [--project DIR]",
      "stepforge tools schema --format openai|anthropic|mcp|gemini [--service S] [--spec FILE]... [--project DIR]",
    ],
    details: [
      "The steps of the project's services (stepforge.config.*), of --spec FILE, else of the bundled ones;",
      "--service S picks one of them or a bundled one.",
      "schema prints one JSON array ready for the provider's API. OpenAI tools that cannot be strict",
      "are exported with strict: false and listed on stderr with the reason.",
    ],
  },
  call: {
    summary: "run one tool step and print its result as JSON",
    usage: [
      "stepforge call TOOL --input JSON [--mock] [--spec FILE]... [--project DIR]",
      "stepforge call TOOL --input JSON [--connection NAME] [--connections FILE] [--base-url URL]",
    ],
    details: [
      'Prints { "ok": true, "data": … } and exits 0, or { "ok": false, "error": … } and exits 1.',
      "TOOL is a step of the project's services, of --spec FILE or of a bundled service (tools list).",
      "  --mock              run it against the service's behavioural mock, started in this process",
      "  --connections FILE  connections file (default: $STEPFORGE_CONNECTIONS); see the README for",
      "                      its two forms (the runtime's store file, or a plain map by name); a",
      "                      connection's own baseUrl sends its calls there",
      "  --connection NAME   which connection; default: the service's only one",
      "  --base-url URL      send the call there instead of the spec's server (e.g. a mock)",
    ],
  },
  mock: {
    summary: "start behavioural mocks (or Prism contract mocks) of the services on 127.0.0.1",
    usage: [
      "stepforge mock SERVICE|all [--spec FILE]... [--project DIR] [--port N] [--prism [--errors]]",
      "stepforge mock SERVICE|all [--no-limits | --limits-scale X] [--faults " +
        "error=R,drop=R,slow=R] [--latency MS[@RATE]] [--seed N]",
      "stepforge mock SERVICE|all [--token-lifetime S] [--webhook-secret S] [--state FILE] [--dump-state FILE]",
      "stepforge mock SERVICE --replay FILE.har",
      "stepforge mock SERVICE|all --explain",
    ],
    details: [
      "Prints one line per server (<service> <kind> <url>) and runs until Ctrl-C.",
      "SERVICE is one of the project's services (stepforge.config.*), of --spec FILE, or a bundled one;",
      "all: every service of the project (else every bundled one).",
      "Default ports: the config's mock.port, else the spec's x-stepforge.mock.ports, else 4120+i;",
      "--port N with all gives N, N+1, ….",
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
      "  --replay FILE.har   answer requests recorded by stepforge proxy --record as recorded (same",
      "                      operation, path and query parameters); the mock answers the rest",
      "  --explain           print what each mock does per operation (inferred for a spec " +
        "without x-stepforge.mock) and exit",
      "A port already taken stops every mock and exits 1 naming the port; a broken spec stops only its own mock.",
      "The credentials each mock accepts and its webhook secret are listed in the README; see docs/mocks.md.",
    ],
  },
  mcp: {
    summary: "serve the tool steps to an MCP client over stdio or Streamable HTTP",
    usage: [
      "stepforge mcp [--service S]... [--toolsets T,...] [--read-only] [--dynamic | " +
        "--code] [--mock] [--connections FILE]",
      "stepforge mcp ... [--base-url SERVICE=URL]... [--all-services] [--result-bytes N] " +
        "[--http PORT [--host H]] [--budget]",
      "stepforge mcp ... [--spec FILE]... [--project DIR] [--print-config claude|cursor|vscode]",
      "stepforge mcp ... [--client NAME] [--max-tools N] [--max-listing-bytes N] [--output-schemas]",
    ],
    details: [
      "stdio by default (stdout carries the protocol; everything else goes to stderr).",
      "Serves the project's services (stepforge.config.*), --spec FILE's, else the bundled ones.",
      "  --http PORT       Streamable HTTP on 127.0.0.1 (--host H elsewhere: needs $STEPFORGE_MCP_TOKEN)",
      "  --mock            run the steps against behavioural mocks started in this process",
      "  --connections F   accounts (default: $STEPFORGE_CONNECTIONS); a service without one is left out",
      "  --all-services    list the steps of services without an account too (their calls fail)",
      "  --base-url S=URL  send service S's calls to URL (a proxy, a local mock); repeatable",
      "  --print-config C  print the server entry for Claude Desktop, Cursor or VS Code, with absolute",
      "                    paths, so the client can start it from any folder; other flags are kept",
      "  --budget          print what tools/list costs (bytes, about tokens) and exit",
      "  --client NAME     cursor, vscode, claude-code, claude-desktop, windsurf or generic: its limits",
      "  over 128 tools or 120 KB (--max-tools, --max-listing-bytes) it serves --dynamic and says why",
      "  --code            two tools, search and execute: the agent's TypeScript runs in a sandbox (docs/code-mode.md)",
      "  --output-schemas  list each step's result shape and return structuredContent (about +40% listing)",
      "See docs/mcp.md for toolsets, dynamic mode and result sizes.",
    ],
  },
  triggers: {
    summary: "list the triggers the specs declare (webhook and polling)",
    usage: ["stepforge triggers list [--json] [--service S] [--spec FILE]... [--project DIR]"],
    details: ["The triggers the project's specs (stepforge.config.*), --spec FILE's, or the bundled ones declare."],
  },
  webhook: {
    summary: "receive signed webhook deliveries and print each trigger event as a JSON line",
    usage: [
      "stepforge webhook serve --port N --secret S --callback-url URL [--scope " +
        "NAME=VALUE]... [--service S] [--host H] [--spec FILE]",
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
  proxy: {
    summary: "forward a service's traffic to the real service, checking both ways against the spec (drift report, HAR)",
    usage: [
      "stepforge proxy --service S|--spec FILE --upstream URL [--port N] [--host H] [--strip-prefix PATH]",
      "stepforge proxy ... [--record FILE.har] [--report FILE]",
    ],
    details: [
      "Point a client's base address at the proxy (127.0.0.1 unless --host); every request goes on to URL",
      "unchanged (--strip-prefix removes a leading path first), and both the request and the answer are",
      "checked against the spec. On Ctrl-C it writes the drift report (FILE.json and FILE.md: per operation,",
      "each difference with its JSON pointer, what the spec expects, an example and how often) and the",
      "HAR 1.2 recording, credentials redacted. Replay a recording with stepforge mock S --replay FILE.har.",
      "See docs/observability.md.",
    ],
  },
  log: {
    summary: "print (and follow) the tool-call log, filtered",
    usage: [
      "stepforge log [--file FILE | --redis URL] [--tool T] [--service S] [--connection C] " +
        "[--outcome ok|error|KIND] [--since 15m|ISO] [--limit N] [--follow] [--json]",
    ],
    details: [
      "The log is STEPFORGE_CALL_LOG's (a JSONL file, or state: the Redis stream or the state folder)",
      "unless --file or --redis names one. Prints the newest --limit records (default 100; 10 with --follow),",
      "oldest first; --follow then prints new records until Ctrl-C; --json prints them as stored.",
    ],
  },

  auth: {
    summary: "print the address where a user authorizes a token (e.g. Trello)",
    usage: [
      "stepforge auth trello-url --key KEY --app-name NAME",
      "stepforge auth SERVICE-url --VALUE V... [--spec FILE]... [--project DIR]",
    ],
    details: [
      "The flags are the values the spec's authorize template leaves open, in kebab-case ({appName}:",
      "--app-name; {apiKey}: --key); any other flag is refused, naming what the spec fixes.",
    ],
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
    "STEPFORGE_WEBHOOK_SECRET, STEPFORGE_MCP_TOKEN, STEPFORGE_CALL_LOG (log every tool call).\n"
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
