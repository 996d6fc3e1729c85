/**
 * Which steps a server offers: a write whose "outcome unknown" advice names a check step is served
 * with that step, whatever the toolsets say, so the advice never names a step the server lacks.
 */
import { describe, expect, it } from "vitest";
import { loadCatalogs } from "../../cli/commands/tools.js";
import { Accounts, selectTools, StepforgeMcp } from "../../runtime/mcp/index.js";
import { json } from "./helpers.js";

describe("selectTools and check steps", () => {
  it("serves the check step of every selected write (--toolsets cards:write)", async () => {
    const catalogs = await loadCatalogs();
    const names = selectTools(catalogs, { services: ["trello"], toolsets: ["cards:write"] }).map((t) => t.name);
    expect(names).toContain("trello_create_card");
    for (const tool of selectTools(catalogs, { toolsets: ["all:write"] })) {
      if (tool.check)
        expect(
          selectTools(catalogs, { services: [tool.service], toolsets: [`${tool.service}.all:write`] }).map(
            (t) => t.name,
          ),
          tool.name,
        ).toContain(tool.check.step);
    }
    expect(names).toContain("trello_get_list_cards");
  });

  it("lets describe_step and the advice's check run under --dynamic", async () => {
    const catalogs = (await loadCatalogs()).filter((c) => c.id === "trello");
    const mcp = new StepforgeMcp({
      catalogs,
      selection: { toolsets: ["cards:write"] },
      accounts: new Accounts([]),
      dynamic: true,
    });
    const described = json<{ name: string }>(await mcp.callTool("describe_step", { name: "trello_get_list_cards" }));
    expect(described.name).toBe("trello_get_list_cards");
  });

  it("adds no write under --read-only", async () => {
    const catalogs = await loadCatalogs();
    expect(
      selectTools(catalogs, { toolsets: ["cards:write"], readOnly: true }).every((t) => t.annotations.readOnlyHint),
    ).toBe(true);
  });
});
