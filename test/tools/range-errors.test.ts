/**
 * Error responses declared as OpenAPI status ranges (`4XX`, `5XX`), as many published specs do:
 * their fields must be read like those of `404` or `default`. Before, only three-digit statuses and
 * `default` were read, so a refusal named none of the spec's message fields and the mock answered
 * errors in its own shape instead of the spec's.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadService, type LoadedService } from "../../cli/services.js";
import { checkSpec } from "../../generator/check/index.js";
import { loadSpecFile } from "../../generator/load.js";
import { packageRoot } from "../../generator/package-root.js";
import { executeToolByName } from "../../runtime/tools/index.js";
import { json, loopback, type Loopback } from "./helpers.js";

const specFile = join(import.meta.dirname, "fixtures", "range-errors.yaml");
let service: LoadedService;
let shelf: Loopback;

beforeAll(async () => {
  service = await loadService({ id: "shelf", specFile, origin: "spec" }, packageRoot());
  shelf = await loopback((_req, res) =>
    json(res, 404, { code: "book_missing", errorMessage: "no book b-7 on this shelf" }),
  );
});

afterAll(() => shelf?.close());

describe("error responses declared as status ranges", () => {
  it("give the service's message fields", () => {
    expect(service.descriptor.errors.messageFields).toEqual(["errorMessage", "message", "error"]);
  });

  it("shape the mock's error answers", () => {
    const model = checkSpec(loadSpecFile(specFile), { serviceId: "shelf" });
    expect(model.mockExplain?.errors).toEqual(["error: shaped as the 4xx #/components/schemas/Fault response"]);
    expect(JSON.stringify(model.mock?.error)).toContain("errorMessage");
  });

  it("let a refusal say the service's own message", async () => {
    const result = await executeToolByName(
      service.tools,
      "shelf_get_book",
      { bookId: "b-7" },
      { connection: { name: "main", fields: { apiKey: "shelf-key-0123" } }, baseUrl: shelf.url },
    );
    expect(result).toMatchObject({ ok: false, error: { status: 404 } });
    expect((result as { error: { message: string } }).error.message).toContain("no book b-7 on this shelf");
  });
});
