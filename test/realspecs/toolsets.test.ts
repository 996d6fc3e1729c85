/**
 * Default toolsets: a spec without `x-stepforge` toolsets got `export const toolsets = []`, so
 * `--toolsets` could trim nothing. Now one per tag (or first meaningful path segment), named in the
 * toolset syntax, and a selection of them is served and called against the mock.
 */
import { describe, expect, it } from "vitest";
import { selectTools } from "../../runtime/mcp/catalog.js";
import { executeTool } from "../../runtime/tools/index.js";
import { createSharedState } from "../../runtime/index.js";
import { serveSpecForFile } from "./helpers.js";
import { TAGGED } from "./specs.js";

const served = serveSpecForFile("toolsets", "shop", TAGGED);

describe("default toolsets from tags", () => {
  it("one toolset per tag in document order, then the path segment of untagged operations; valid names", () => {
    expect(served.toolsets).toEqual([
      { name: "store", description: "Orders and stock.", steps: ["shop_add_pet", "shop_place_order"] },
      { name: "pets", description: "Everything about your pets.", steps: ["shop_list_pets", "shop_add_pet"] },
      { name: "user_accounts", description: 'Operations tagged "User Accounts".', steps: ["shop_list_accounts"] },
      { name: "user_accounts_2", description: 'Operations tagged "user-accounts".', steps: ["shop_open_account"] },
      { name: "all_2", description: 'Operations tagged "all".', steps: ["shop_get_everything"] },
      { name: "t_2_fa", description: 'Operations tagged "2FA".', steps: ["shop_list_codes"] },
      { name: "users", description: "Operations under /users.", steps: ["shop_get_user"] },
    ]);
    expect(served.generated.model.toolsetsFromTags).toBe(true);
  });

  it("--toolsets selects by them, and a selected step calls the mock", async () => {
    const catalog = [{ id: "shop", title: "Shop", tools: served.tools, toolsets: served.toolsets }];
    expect(selectTools(catalog, { toolsets: ["pets:read", "users"] }).map((t) => t.name)).toEqual([
      "shop_list_pets",
      "shop_get_user",
    ]);
    expect(selectTools(catalog, { toolsets: ["shop.store:write"] }).map((t) => t.name)).toEqual([
      "shop_add_pet",
      "shop_place_order",
    ]);
    const [getUser] = selectTools(catalog, { toolsets: ["users"] });
    const result = await executeTool(
      getUser!,
      { id: "u1" },
      { connection: { name: "t", fields: {} }, baseUrl: served.mock.url, shared: createSharedState() },
    );
    expect(result.ok, JSON.stringify(result)).toBe(true);
  });
});
