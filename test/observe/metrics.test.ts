/**
 * Metrics from the pipeline's observer events, read through the OpenTelemetry SDK's metric reader:
 * a Marketo call against the behavioural mock whose first attempt gets a 503 (seeded fault) and
 * that fetches its OAuth token; then a scan of every label for the client secret and the token.
 */
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { afterAll, describe, expect, it } from "vitest";
// The observability layer (tracing, metrics, validate) is an explicit import, as in an application.
import "../../runtime/observe/index.js";
import { descriptor as marketo } from "../../generated/marketo/descriptor.js";
import { createServiceClient, createSharedState } from "../../runtime/index.js";
import { startMock, type RunningMock } from "../../runtime/mock/index.js";
import { MARKETO } from "../mock/helpers.js";
import { textMarker } from "../reliability/markers.js";

/** Collects on demand (no timer). */
class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const open: RunningMock[] = [];
afterAll(async () => {
  for (const m of open) await m.close();
});

describe("metrics", () => {
  it("attempt and call durations, retries and token renewals, with no secret in a label", async () => {
    const secret = textMarker("marketo.clientSecret");
    const mock = await startMock("marketo", {
      auth: { credentials: { clientId: MARKETO.clientId, clientSecret: secret.value } },
      faults: { seed: 12, error: { rate: 0.5, statuses: [503] }, operations: ["getLeads"] },
    });
    open.push(mock);
    const reader = new OnDemandReader();
    const provider = new MeterProvider({ readers: [reader] });
    const client = createServiceClient(marketo, {
      connection: { name: "acme", fields: { ...MARKETO, clientSecret: secret.value } },
      baseUrl: mock.url,
      shared: createSharedState(),
      retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      metrics: { meter: provider.getMeter("test") },
    });
    await client.call("getLeads", { params: { query: { filterType: "email", filterValues: ["ada@example.com"] } } });

    const { resourceMetrics } = await reader.collect();
    const metrics = new Map(resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).map((m) => [m.descriptor.name, m]));
    const points = (name: string) => (metrics.get(name)?.dataPoints ?? []) as DataPoint<unknown>[];

    const attempts = points("http.client.request.duration") as DataPoint<Histogram>[];
    expect(metrics.get("http.client.request.duration")!.descriptor.unit).toBe("s");
    expect(
      attempts.map((p) => [p.attributes["http.response.status_code"], p.attributes["error.type"], p.value.count]),
    ).toEqual(
      expect.arrayContaining([
        [503, "server", 1],
        [200, undefined, 1],
      ]),
    );
    expect(attempts[0]!.attributes).toMatchObject({
      "http.request.method": "GET",
      "url.template": "/rest/v1/leads.json",
      "server.address": "127.0.0.1",
    });
    const calls = points("stepforge.call.duration") as DataPoint<Histogram>[];
    expect(calls.map((p) => [p.attributes, p.value.count])).toEqual([
      [{ "stepforge.service": "marketo", "stepforge.operation": "getLeads", "stepforge.outcome": "ok" }, 1],
    ]);
    expect(points("stepforge.retries").map((p) => [p.attributes["stepforge.retry.reason"], p.value])).toEqual([
      ["status 503", 1],
    ]);
    expect(points("stepforge.token.renewals").map((p) => [p.attributes["stepforge.token.action"], p.value])).toEqual([
      ["fetched", 1],
    ]);

    const labels = JSON.stringify([...metrics.values()].map((m) => m.dataPoints.map((p) => p.attributes)));
    expect(labels).not.toContain(secret.value);
    expect(labels).not.toContain(secret.tail);
    expect(labels).not.toContain("acme");
    await provider.shutdown();
  });
});
