/**
 * A user's spec whose errors are RFC 7807 problems (`detail`, `title`): found from outside, a refused
 * call came back as "HTTP 422. The service refused the input; correct the named values" naming
 * nothing, because a foreign spec's error message fields were the runtime's defaults (message,
 * error). They are now read from the spec's error responses.
 */
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadService, type LoadedService } from "../../cli/services.js";
import { packageRoot } from "../../generator/package-root.js";
import { executeToolByName } from "../../runtime/tools/index.js";

const source = {
  id: "notes",
  specFile: join(import.meta.dirname, "fixtures", "notes-patch.yaml"),
  origin: "spec" as const,
};
let service: LoadedService;
let server: Server;
let url: string;

beforeAll(async () => {
  service = await loadService(source, packageRoot());
  server = createServer((_req, res) => {
    res.statusCode = 422;
    res.setHeader("content-type", "application/problem+json");
    res.end(
      JSON.stringify({
        type: "about:blank",
        title: "Unprocessable Entity",
        status: 422,
        detail: "phone is not reachable",
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(() => new Promise((resolve) => server?.close(resolve)));

describe("a problem+json refusal", () => {
  it("reads the message fields from the spec's error responses, detail before title", () => {
    expect(service.descriptor.errors.messageFields).toEqual(["detail", "title", "message", "error"]);
  });

  it("says the service's detail in the step's error", async () => {
    const result = await executeToolByName(
      service.tools,
      "notes_add_reminder",
      { note_id: "n1", body: { channel: "sms", phone: "+4412345678" } },
      { connection: { name: "main", fields: { apiKey: "notes-key-0123" } }, baseUrl: url },
    );
    expect(result).toMatchObject({ ok: false, error: { kind: "validation", status: 422 } });
    expect((result as { error: { message: string } }).error.message).toContain("phone is not reachable");
  });
});
