/**
 * Toolsets by path for services whose specs declare none: the path shapes of public APIs (Stripe's
 * `/v1/customers/{id}`, Twilio's `/2010-04-01/Accounts/{AccountSid}/Calls.json`, Slack's
 * `/chat.postMessage`) give groups a person would pick, selectable with `--toolsets`.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { descriptor as worldnews } from "../../generated/worldnews/descriptor.js";
import { pathToolsets, selectTools, type ServiceCatalog } from "../../runtime/mcp/index.js";
import { defineOperationTool, type ToolDefinition } from "../../runtime/tools/index.js";

function catalogOf(paths: Record<string, string>): ServiceCatalog {
  const operations = Object.fromEntries(
    Object.entries(paths).map(([id, path]) => [
      id,
      { operationId: id, method: "GET" as const, path, idempotent: true, limitClass: "read" as const },
    ]),
  );
  const descriptor = { ...worldnews, id: "svc", operations };
  const tools: ToolDefinition[] = Object.keys(paths).map((id) =>
    defineOperationTool({
      name: `svc_${id.toLowerCase()}`,
      operationId: id,
      title: id,
      description: id,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      descriptor,
      input: z.strictObject({}),
      output: z.object({}),
      outputWrap: "none",
      handler: async () => ({}),
    }),
  );
  return { id: "svc", title: "Service", tools, toolsets: [] };
}

const groups = (catalog: ServiceCatalog) =>
  Object.fromEntries(pathToolsets(catalog.tools).map((t) => [t.name, t.steps]));

describe("toolsets by path", () => {
  const groupings: Array<[string, Record<string, string>, Record<string, string[]>]> = [
    [
      "skips versions and parameters (Stripe)",
      {
        a: "/v1/customers",
        b: "/v1/customers/{customer}",
        c: "/v1/charges/{charge}/refund",
        d: "/v1/payment_intents",
      },
      { charges: ["svc_c"], customers: ["svc_a", "svc_b"], payment_intents: ["svc_d"] },
    ],
    [
      "skips the words every step shares and file extensions (Twilio)",
      {
        a: "/2010-04-01/Accounts/{AccountSid}/Calls.json",
        b: "/2010-04-01/Accounts/{AccountSid}/Calls/{Sid}.json",
        c: "/2010-04-01/Accounts/{AccountSid}/Messages.json",
        d: "/2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers/Local.json",
      },
      { calls: ["svc_a", "svc_b"], incomingphonenumbers: ["svc_d"], messages: ["svc_c"] },
    ],
    [
      "groups method-style paths by their first word (Slack)",
      { a: "/chat.postMessage", b: "/chat.update", c: "/conversations.list", d: "/users.info" },
      { chat: ["svc_a", "svc_b"], conversations: ["svc_c"], users: ["svc_d"] },
    ],
  ];
  it.each(groupings)("%s", (_, paths, expected) => {
    expect(groups(catalogOf(paths))).toEqual(expected);
  });

  it("are what --toolsets selects when the spec declares none, and an unknown name lists them", () => {
    const catalog = catalogOf({ a: "/v1/customers", b: "/v1/charges", c: "/v1/customers/{id}" });
    expect(selectTools([catalog], { toolsets: ["customers"] }).map((t) => t.name)).toEqual(["svc_a", "svc_c"]);
    expect(() => selectTools([catalog], { toolsets: ["refunds"] })).toThrow(
      /the toolsets are svc: charges, customers, all/,
    );
  });
});
