/**
 * Error responses declared as OpenAPI status ranges (`4XX`, `5XX`), as many published specs do:
 * their fields must be read like those of `404` or `default`. Before, only three-digit statuses and
 * `default` were read, so a refusal named none of the spec's message fields and the mock answered
 * errors in its own shape instead of the spec's.
 */
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadService, type LoadedService } from "../../cli/services.js";
import { checkSpec } from "../../generator/check/index.js";
import { loadSpecFile } from "../../generator/load.js";
import { packageRoot } from "../../generator/package-root.js";
import { executeToolByName } from "../../runtime/tools/index.js";

const source = {
  id: "shelf",
  specFile: join(import.meta.dirname, "fixtures", "range-errors.yaml"),
  origin: "spec" as const,
};
let service: LoadedService;
let server: Server;
let url: string;

beforeAll(async () => {
  service = await loadService(source, packageRoot());
  server = createServer((_req, res) => {
    res.statusCode = 404;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ code: "book_missing", errorMessage: "no book b-7 on this shelf" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(() => new Promise((resolve) => server?.close(resolve)));

describe("error responses declared as status ranges", () => {
  it("give the service's message fields", () => {
    expect(service.descriptor.errors.messageFields).toEqual(["errorMessage", "message", "error"]);
  });

  it("shape the mock's error answers", () => {
    const model = checkSpec(loadSpecFile(source.specFile), { serviceId: "shelf" });
    expect(model.mockExplain?.errors).toEqual(["error: shaped as the 4xx #/components/schemas/Fault response"]);
    expect(JSON.stringify(model.mock?.error)).toContain("errorMessage");
  });

  it("let a refusal say the service's own message", async () => {
    const result = await executeToolByName(
      service.tools,
      "shelf_get_book",
      { bookId: "b-7" },
      { connection: { name: "main", fields: { apiKey: "shelf-key-0123" } }, baseUrl: url },
    );
    expect(result).toMatchObject({ ok: false, error: { status: 404 } });
    expect((result as { error: { message: string } }).error.message).toContain("no book b-7 on this shelf");
  });
});
