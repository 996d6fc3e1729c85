/**
 * `stepforge tools list [--service S] [--json]` and
 * `stepforge tools schema --format openai|anthropic|mcp|gemini [--service S]`.
 * (`mcp` prints what `stepforge mcp` lists; `toMcp` in the runtime keeps the long form with output
 * schemas for platforms that want them.)
 *
 * The catalogue is every generated service's `tools.ts` (found by folder, so a new spec needs no
 * change here). `schema` prints one JSON array ready for the provider's API; OpenAI tools that
 * cannot be strict (a free-form map such as an API Call body) are exported with `strict: false`
 * and listed on stderr with the reason.
 */
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { exportTools, toOpenAI, type ExportFormat, type ToolDefinition, type Toolset } from "../../runtime/tools/index.js";
import type { ServiceCatalog } from "../../runtime/mcp/catalog.js";
import { serveTools } from "../../runtime/mcp/listing.js";
import { UsageError } from "../usage.js";

/** Every generated service's steps and toolsets, in service order. */
export async function loadCatalogs(): Promise<ServiceCatalog[]> {
  const generated = fileURLToPath(new URL("../../generated/", import.meta.url));
  if (!existsSync(generated)) return [];
  const all: ServiceCatalog[] = [];
  for (const service of readdirSync(generated).sort()) {
    const dir = join(generated, service);
    const file = ["tools.js", "tools.ts"].map((f) => join(dir, f)).find((f) => existsSync(f));
    if (!file) continue;
    const mod = (await import(pathToFileURL(join(dir, "tools.js")).href)) as { tools?: readonly ToolDefinition[]; toolsets?: readonly Toolset[] };
    const tools = mod.tools ?? [];
    if (tools.length === 0) continue;
    all.push({ id: tools[0]!.service, title: tools[0]!.descriptor.title, tools, toolsets: mod.toolsets ?? [] });
  }
  return all;
}

/** Every tool step of every generated service, in service then spec order. */
export async function loadTools(): Promise<ToolDefinition[]> {
  return (await loadCatalogs()).flatMap((c) => [...c.tools]);
}

export function selectService(tools: ToolDefinition[], service: string | undefined): ToolDefinition[] {
  if (service === undefined) return tools;
  const picked = tools.filter((t) => t.service === service);
  if (picked.length === 0) {
    const known = [...new Set(tools.map((t) => t.service))].join(", ");
    throw new UsageError(`unknown service "${service}"; the services are ${known}`);
  }
  return picked;
}

const FORMATS: ExportFormat[] = ["openai", "anthropic", "mcp", "gemini"];

export async function toolsCommand(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") {
    const { values } = parseArgs({ args: rest, options: { service: { type: "string" }, json: { type: "boolean", default: false } }, strict: true, allowPositionals: false });
    const tools = selectService(await loadTools(), values.service);
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
      const flags = [t.annotations.readOnlyHint ? "read-only" : t.annotations.destructiveHint ? "destructive" : "writes", t.deprecated ? "deprecated" : ""].filter(Boolean).join(", ");
      out.write(`${t.name.padEnd(width)}  ${t.title} (${flags})\n`);
    }
    out.write(`${tools.length} tool step${tools.length === 1 ? "" : "s"}\n`);
    return 0;
  }
  if (sub === "schema") {
    const { values } = parseArgs({ args: rest, options: { service: { type: "string" }, format: { type: "string" } }, strict: true, allowPositionals: false });
    const format = values.format as ExportFormat | undefined;
    if (!format || !FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}`);
    const tools = selectService(await loadTools(), values.service);
    if (format === "mcp") {
      // Exactly what `stepforge mcp` lists: no output schemas, hints only where they differ from the defaults.
      out.write(`${JSON.stringify(serveTools(tools).map((s) => s.listed), null, 2)}\n`);
      return 0;
    }
    const result = exportTools(tools, format);
    out.write(`${JSON.stringify(result.tools, null, 2)}\n`);
    for (const n of result.nonStrict) err.write(`note: ${n.name} is exported with ${format === "gemini" ? "parametersJsonSchema" : "strict: false"} (${n.reasons.join("; ")})\n`);
    return 0;
  }
  throw new UsageError(sub === undefined ? "tools needs a subcommand: list or schema" : `unknown tools subcommand "${sub}"; use list or schema`);
}
