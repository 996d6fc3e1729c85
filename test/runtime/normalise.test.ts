import { describe, expect, it } from "vitest";
import { descriptor as marketo } from "../../generated/marketo/descriptor.js";
import { normaliseConnection, resolveBaseUrl, resolveTokenUrl } from "../../runtime/client/client.js";

describe("connection normalising (trimSuffix)", () => {
  it("accepts the Marketo endpoint as the admin page shows it, with /rest", () => {
    for (const endpoint of [
      "https://123-ABC-456.mktorest.com/rest",
      "https://123-ABC-456.mktorest.com/rest/",
      "https://123-ABC-456.mktorest.com/",
    ]) {
      const connection = normaliseConnection(marketo, {
        name: "m",
        fields: { endpoint, clientId: "id", clientSecret: "secret-value" },
      });
      expect(connection.fields.endpoint).toBe("https://123-ABC-456.mktorest.com");
      expect(resolveBaseUrl(marketo, connection)).toBe("https://123-ABC-456.mktorest.com");
      expect(resolveTokenUrl(marketo, connection, undefined, undefined)).toBe(
        "https://123-ABC-456.mktorest.com/identity/oauth/token",
      );
    }
  });

  it("leaves other values and fields alone", () => {
    const connection = {
      name: "m",
      fields: { endpoint: "https://123-ABC-456.mktorest.com", clientId: "rest", clientSecret: "x/rest" },
    };
    expect(normaliseConnection(marketo, connection)).toBe(connection);
  });
});

describe("query serialisation from the spec", async () => {
  const { querySerializerFor } = await import("../../runtime/client/client.js");
  it("sends explode:false arrays comma-separated and others as repeated keys", () => {
    const getLeads = marketo.operations.getLeads!;
    expect(getLeads.serialization?.query?.filterValues).toEqual({ explode: false });
    const serialise = querySerializerFor(getLeads)!;
    expect(serialise({ filterType: "email", filterValues: ["a@example.com", "b@example.com"], batchSize: 2 })).toBe(
      "filterType=email&filterValues=a%40example.com,b%40example.com&batchSize=2",
    );
    const isMember = marketo.operations.checkListMembership!;
    expect(isMember.serialization?.query?.id).toBeUndefined();
  });
});
