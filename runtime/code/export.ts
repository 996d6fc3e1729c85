/**
 * The code mode's two tools in each provider's format, beside `exportTools` for the steps: a
 * platform that is not an MCP client lists these and answers its model's calls with
 * `codeMode.callTool(name, args)`.
 */
import { geminiSchema, type GeminiTool } from "../tools/gemini.js";
import { openaiStrictSchema, type AnthropicTool, type ExportFormat, type OpenAITool } from "../tools/export.js";
import type { ListedTool } from "../mcp/listing.js";
import type { CodeMode } from "./mode.js";

export function exportCodeTools(
  mode: CodeMode,
  format: ExportFormat,
): Array<OpenAITool | AnthropicTool | ListedTool | GeminiTool> {
  return mode.listTools().map((tool) => {
    if (format === "mcp") return tool;
    if (format === "anthropic")
      return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
    if (format === "gemini")
      return { name: tool.name, description: tool.description, parameters: geminiSchema(tool.inputSchema).schema };
    const strict = openaiStrictSchema(tool.inputSchema);
    return {
      type: "function",
      function: {
        name: tool.name,
        description: tool.description,
        parameters: strict.strict ? strict.schema : tool.inputSchema,
        strict: strict.strict,
      },
    };
  });
}
