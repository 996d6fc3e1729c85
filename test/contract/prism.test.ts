/**
 * Contract tests: every operation of every spec, called through its generated client against Prism
 * run with --errors. Prism answers 422/500 when the request the client sends breaks the spec or the
 * example it would answer with breaks its own schema, so either kind of drift fails here. Error
 * responses are covered too: each declared 4xx/5xx via `Prefer: code=…`, and (for services that
 * report errors inside HTTP 200) each error example via `Prefer: example=…`.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContentsnareClient } from "../../generated/contentsnare/client.js";
import { MarketoClient } from "../../generated/marketo/client.js";
import { TrelloClient } from "../../generated/trello/client.js";
import { WorldnewsClient } from "../../generated/worldnews/client.js";
import { createSharedState, StepforgeError, type ClientOptions, type ServiceDescriptor } from "../../runtime/index.js";
import { startPrism, type RunningPrism } from "../../runtime/mock/index.js";
import { envelopeErrorExamples, errorStatuses, freePort, inputFor, loadDoc, operationsOf } from "./helpers.js";

const root = join(import.meta.dirname, "..", "..");

type AnyClient = { core: { descriptor: ServiceDescriptor } } & Record<string, (init: object) => Promise<unknown>>;

const SERVICES: Array<{ id: string; make: (options: ClientOptions) => unknown; fields: Record<string, string> }> = [
  {
    id: "trello",
    make: (o) => new TrelloClient(o),
    fields: { apiKey: "0123456789abcdef0123456789abcdef", token: "ATTAcontracttoken" },
  },
  {
    id: "marketo",
    make: (o) => new MarketoClient(o),
    fields: {
      endpoint: "https://123-ABC-456.mktorest.com",
      clientId: "5a8e6a0d-3c1f-4b8e-9d2a-7f4c1e0b9a61",
      clientSecret: "contract-secret",
    },
  },
  { id: "worldnews", make: (o) => new WorldnewsClient(o), fields: { apiKey: "contract-key" } },
  {
    id: "contentsnare",
    make: (o) => new ContentsnareClient(o),
    fields: {
      clientId: "cid",
      clientSecret: "csecret",
      accessToken: "contract-access",
      refreshToken: "contract-refresh",
      expiresAt: "2099-01-01T00:00:00Z",
    },
  },
];

const prisms = new Map<string, RunningPrism>();

// Four Prisms start at once (each takes seconds); on a busy machine that takes far longer than the
// 20 s a single start is given by default, so the start and the hook get room.
beforeAll(async () => {
  await Promise.all(
    SERVICES.map(async (s) => {
      prisms.set(
        s.id,
        await startPrism({
          specFile: join(root, "specs", `${s.id}.yaml`),
          port: await freePort(),
          errors: true,
          startTimeoutMs: 150_000,
        }),
      );
    }),
  );
}, 180_000);

afterAll(async () => {
  await Promise.all([...prisms.values()].map((p) => p.close()));
});

function clientFor(service: (typeof SERVICES)[number]): AnyClient {
  const descriptor = (
    service.make({ connection: { name: "probe", fields: service.fields }, baseUrl: "http://127.0.0.1:1" }) as AnyClient
  ).core.descriptor;
  const limits = Object.fromEntries(descriptor.limits.map((l) => [l.id, { disabled: true }]));
  return service.make({
    connection: { name: `contract-${service.id}`, fields: service.fields },
    baseUrl: prisms.get(service.id)!.url,
    retry: { attempts: 0, timeoutMs: 10_000 },
    shared: createSharedState(),
    limits,
  }) as AnyClient;
}

for (const service of SERVICES) {
  const doc = loadDoc(join(root, "specs", `${service.id}.yaml`));
  const operations = operationsOf(doc);

  describe(`${service.id} against Prism --errors`, () => {
    it("calls every operation through the generated client and gets a valid success answer", async () => {
      const client = clientFor(service);
      const failures: string[] = [];
      for (const entry of operations) {
        try {
          const result = await client[entry.operationId]!(inputFor(doc, entry));
          const status = Object.keys(entry.op.responses).find((c) => /^2/.test(c));
          if (status !== "204" && result === undefined) failures.push(`${entry.operationId}: no body`);
        } catch (error) {
          failures.push(`${entry.operationId}: ${(error as Error).message}`);
        }
      }
      expect(failures).toEqual([]);
      expect(operations.length).toBeGreaterThan(0);
    });

    it("surfaces every declared error response as a typed error with that status", async () => {
      const client = clientFor(service);
      const failures: string[] = [];
      let checked = 0;
      for (const entry of operations) {
        for (const code of errorStatuses(entry)) {
          checked++;
          try {
            await client[entry.operationId]!({ ...inputFor(doc, entry), headers: { Prefer: `code=${code}` } });
            failures.push(`${entry.operationId} ${code}: resolved`);
          } catch (error) {
            if (!(error instanceof StepforgeError)) failures.push(`${entry.operationId} ${code}: ${String(error)}`);
            else if (error.status !== Number(code))
              failures.push(`${entry.operationId} ${code}: got status ${error.status} (${error.message})`);
            else {
              const rule = client.core.descriptor.errors.statuses[code];
              if (rule && error.kind !== rule.kind)
                failures.push(`${entry.operationId} ${code}: kind ${error.kind}, expected ${rule.kind}`);
            }
          }
        }
      }
      expect(failures).toEqual([]);
      expect(checked).toBeGreaterThan(0);
    });

    const envelope = (
      loadDoc(join(root, "specs", `${service.id}.yaml`))["x-stepforge"] as {
        errors: { envelope?: Record<string, string> };
      }
    ).errors.envelope;
    if (envelope)
      it("surfaces every error example inside HTTP 200 as a typed error with its code", async () => {
        const client = clientFor(service);
        const failures: string[] = [];
        let checked = 0;
        for (const entry of operations) {
          for (const { key, code } of envelopeErrorExamples(
            doc,
            entry,
            envelope!.successField!,
            envelope!.errorsField!,
            envelope!.codeField!,
          )) {
            checked++;
            try {
              await client[entry.operationId]!({ ...inputFor(doc, entry), headers: { Prefer: `example=${key}` } });
              failures.push(`${entry.operationId} ${key}: resolved`);
            } catch (error) {
              if (!(error instanceof StepforgeError) || error.code !== code)
                failures.push(
                  `${entry.operationId} ${key}: ${(error as Error).message} (code ${(error as StepforgeError).code})`,
                );
            }
          }
        }
        expect(failures).toEqual([]);
        expect(checked).toBeGreaterThan(0);
      });
  });
}
