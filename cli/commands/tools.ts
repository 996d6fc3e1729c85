/**
 * `stepforge tools list [--service S] [--json] [--spec FILE]... [--project DIR]` and
 * `stepforge tools schema --format openai|anthropic|mcp|gemini [--service S] [--spec FILE]...`.
 * (`mcp` prints what `stepforge mcp` lists; `toMcp` in the runtime keeps the long form with output
 * schemas for platforms that want them.)
 *
 * The catalogue is the steps of the services in scope (cli/project.ts: --spec files, the
 * project's config, else the bundled services; `--service S` picks one, bundled ones included).
 * `schema` prints one JSON array ready for the provider's API; OpenAI tools that cannot be strict (a free-form map such
 * as an API Call body) are exported with `strict: false`
 * and listed on stderr with the reason.
 */
import { exportTools, toOpenAI, type ExportFormat, type ToolDefinition } from "../../runtime/tools/index.js";
import type { ServiceCatalog } from "../../runtime/mcp/catalog.js";
import { serveTools } from "../../runtime/mcp/listing.js";
import { flagsOf, SCOPE_OPTIONS } from "../flags.js";
import { pickService, resolveScope, type ScopeOptions } from "../project.js";
import { catalogsOf, generatedServices, loadServices } from "../services.js";
import { UsageError } from "../usage.js";

/** The bundled services' steps and toolsets, in service order (the four this package ships). */
export async function loadCatalogs(): Promise<ServiceCatalog[]> {
  return catalogsOf(await generatedServices());
}

/** Every tool step of the bundled services, in service then spec order. */
export async function loadTools(): Promise<ToolDefinition[]> {
  return (await loadCatalogs()).flatMap((c) => [...c.tools]);
}

/**
 * The catalogues a command works on: the services named (each one of the project's, a --spec or a
 * bundled one), else every service of the scope (cli/project.ts).
 */
export async function scopeCatalogs(
  options: ScopeOptions & { services?: readonly string[] | undefined },
): Promise<ServiceCatalog[]> {
  const scope = await resolveScope(options);
  const sources = options.services?.length
    ? [...new Set(options.services)].map((id) => pickService(scope, id))
    : scope.services;
  return catalogsOf(await loadServices(sources, process.cwd(), { tools: true }));
}

/** Every tool step of the scope (or of the services named). */
export async function scopeTools(
  options: ScopeOptions & { services?: readonly string[] | undefined },
): Promise<ToolDefinition[]> {
  return (await scopeCatalogs(options)).flatMap((c) => [...c.tools]);
}

const FORMATS: ExportFormat[] = ["openai", "anthropic", "mcp", "gemini"];

export async function toolsCommand(
  argv: string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") {
    const { values } = flagsOf(rest, {
      ...SCOPE_OPTIONS,
      service: { type: "string" },
      json: { type: "boolean", default: false },
    });
    const tools = await scopeTools({
      specs: values.spec,
      project: values.project,
      services: values.service === undefined ? undefined : [values.service],
    });
    if (values.json) {
      const rows = tools.map((t) => ({
        name: t.name,
        service: t.service,
        kind: t.kind,
        operationId: t.kind === "operation" ? t.operationId : undefined,
        title: t.title,
        description: t.description,
        annotations: t.annotations,
        deprecated: t.deprecated ?? false,
        replacedBy: t.replacedBy,
        openaiStrict: toOpenAI(t).tool.function.strict,
      }));
      out.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    const width = Math.max(...tools.map((t) => t.name.length), 4);
    for (const t of tools) {
      const flags = [
        t.annotations.readOnlyHint ? "read-only" : t.annotations.destructiveHint ? "destructive" : "writes",
        t.deprecated ? "deprecated" : "",
      ]
        .filter(Boolean)
        .join(", ");
      out.write(`${t.name.padEnd(width)}  ${t.title} (${flags})\n`);
    }
    out.write(`${tools.length} tool step${tools.length === 1 ? "" : "s"}\n`);
    return 0;
  }
  if (sub === "schema") {
    const { values } = flagsOf(rest, { ...SCOPE_OPTIONS, service: { type: "string" }, format: { type: "string" } });
    const format = values.format as ExportFormat | undefined;
    if (!format || !FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}`);
    const tools = await scopeTools({
      specs: values.spec,
      project: values.project,
      services: values.service === undefined ? undefined : [values.service],
    });
    if (format === "mcp") {
      // Exactly what `stepforge mcp` lists: no output schemas, hints only where they differ from the defaults.
      out.write(
        `${JSON.stringify(
          serveTools(tools).map((s) => s.listed),
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    const result = exportTools(tools, format);
    out.write(`${JSON.stringify(result.tools, null, 2)}\n`);
    for (const n of result.nonStrict)
      err.write(
        `note: ${n.name} is exported with ${format === "gemini" ? "parametersJsonSchema" : "strict: false"} ` +
          `(${n.reasons.join("; ")})\n`,
      );
    return 0;
  }
  throw new UsageError(
    sub === undefined
      ? "tools needs a subcommand: list or schema"
      : `unknown tools subcommand "${sub}"; use list or schema`,
  );
}
