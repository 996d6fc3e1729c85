/**
 * The multi-process suite, run once per shared backend (multiprocess-file.test.ts,
 * multiprocess-redis.test.ts): real worker processes sharing one connections file and one state
 * store (chosen by STEPFORGE_STATE_DIR or STEPFORGE_REDIS_URL, as a user would), against the
 * behavioural mocks started here.
 *
 * Rotation race, 50 trials each: two processes on one connection whose token expired; two
 * connections of one file renewed by two processes at once; long-running workers whose tokens keep
 * expiring (each renewed at least once, counted at the mock). Every trial ends with both processes
 * still working (a second round of calls succeeds) and every refresh token in the file still the
 * live one. Then a 200-call token storm over four
 * processes asks for one token.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  csCredentials,
  refreshTokenIsLive,
  runTrial,
  startContentSnare,
  startMarketo,
  tokenRequestsOf,
  Worker,
  type WorkerResult,
  writeConnections,
  writeMarketoConnections,
} from "./harness.js";

export interface Backend {
  name: string;
  /** Environment of every worker (the switch), after `setUp`. */
  env(): Record<string, string>;
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  /** Runs after everything: e.g. no secret in any key name. */
  afterChecks?(secrets: string[]): Promise<void>;
}

type Mode = "same" | "two" | "long";

interface Tally {
  trials: number;
  deadProcesses: number;
  lostTokens: number;
  failedCalls: number;
  failures: string[];
}

export function describeMultiProcess(backend: Backend): void {
  describe(`several processes, one account: ${backend.name} backend`, () => {
    let dir: string;
    let workers: Worker[];
    const secrets: string[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "sf-mp-"));
      await backend.setUp();
      workers = Array.from({ length: 4 }, () => new Worker(backend.env()));
    });
    afterAll(async () => {
      await Promise.all((workers ?? []).map((w) => w.close()));
      await backend.afterChecks?.(secrets);
      await backend.tearDown();
      rmSync(dir, { recursive: true, force: true });
    });

    async function trial(mode: Mode, t: number, tally: Tally): Promise<void> {
      const id = `${mode}${t}`;
      const file = join(dir, `${id}.json`);
      const names = mode === "two" ? ["a", "b"] : ["a"];
      const creds = names.map((_, i) => csCredentials(id, i));
      for (const c of creds) secrets.push(c.clientSecret!, c.refreshToken!, c.accessToken!);
      const mock = await startContentSnare(creds, mode === "long" ? { auth: { tokenLifetimeSeconds: 2 } } : {});
      try {
        writeConnections(file, Object.fromEntries(names.map((n, i) => [n, creds[i]!])));
        const base = { service: "contentsnare", file, baseUrl: mock.url, operation: "getMe" };
        const configs =
          mode === "two"
            ? [
                { ...base, connections: ["a"], calls: 4 },
                { ...base, connections: ["b"], calls: 4 },
              ]
            : mode === "long"
              ? [0, 1].map(() => ({ ...base, connections: ["a"], durationMs: 2200, pauseMs: 40 }))
              : [0, 1].map(() => ({ ...base, connections: ["a"], calls: 4 }));
        const pair = [workers[0]!, workers[1]!];
        const results = await runTrial(pair, id, configs);
        // The same processes go on: a process that lost its account fails here.
        const after = await runTrial(
          pair,
          `${id}-after`,
          configs.map((c) => ({ ...c, durationMs: undefined, calls: 2 })),
        );
        for (const r of [...results, ...after] as WorkerResult[]) {
          tally.failedCalls += r.failed;
          if (r.failed || r.crashed) tally.failures.push(`${id}: ${r.crashed ?? r.last}`);
        }
        if (mode === "long") {
          // The first round renews the expired token; the run lasts past that token's 2 s, so it or
          // the round after must renew again. Counted at the mock. (A call count would measure the
          // machine's speed instead.)
          const grants = tokenRequestsOf(mock);
          if (grants < 2) tally.failures.push(`${id}: the token was granted ${grants} time(s), never renewed`);
        }
        tally.deadProcesses += after.filter((r) => r.failed > 0 || r.crashed).length;
        const stored = (
          JSON.parse(readFileSync(file, "utf8")) as {
            connections: { contentsnare: Record<string, { fields: Record<string, string> }> };
          }
        ).connections.contentsnare;
        for (const [i, name] of names.entries()) {
          const fields = stored[name]?.fields;
          if (fields?.refreshToken) secrets.push(fields.refreshToken, fields.accessToken ?? "");
          if (!fields || !(await refreshTokenIsLive(mock, { ...fields, clientSecret: creds[i]!.clientSecret! }))) {
            tally.lostTokens++;
            tally.failures.push(`${id}: the refresh token of "${name}" in the file is not the live one`);
          }
        }
      } finally {
        await mock.close();
      }
      tally.trials++;
    }

    async function trials(mode: Mode, count: number, concurrent: number): Promise<Tally> {
      const tally: Tally = { trials: 0, deadProcesses: 0, lostTokens: 0, failedCalls: 0, failures: [] };
      for (let t = 0; t < count; t += concurrent) {
        await Promise.all(Array.from({ length: Math.min(concurrent, count - t) }, (_, k) => trial(mode, t + k, tally)));
      }
      return tally;
    }

    const expectClean = (tally: Tally, count: number) => {
      expect(tally.failures.slice(0, 5)).toEqual([]);
      expect({
        trials: tally.trials,
        deadProcesses: tally.deadProcesses,
        lostTokens: tally.lostTokens,
        failedCalls: tally.failedCalls,
      }).toEqual({
        trials: count,
        deadProcesses: 0,
        lostTokens: 0,
        failedCalls: 0,
      });
    };

    it("rotation race, same connection in two processes: 50 trials, no dead process, no lost token", async () => {
      expectClean(await trials("same", 50, 25), 50);
    });

    it(
      "rotation race, two connections of one file renewed by two processes at once: 50 " + "trials, no lost token",
      async () => {
        expectClean(await trials("two", 50, 25), 50);
      },
    );

    it("long-running workers whose 2 s tokens keep expiring: 50 trials, no dead process, no lost token", async () => {
      expectClean(await trials("long", 50, 25), 50);
    });

    it("a storm of 200 calls over 4 processes asks for one token", async () => {
      const { mock, tokenRequests } = await startMarketo();
      try {
        const file = join(dir, "marketo.json");
        writeMarketoConnections(file);
        const config = {
          service: "marketo",
          file,
          baseUrl: mock.url,
          operation: "getActivityTypes",
          connections: ["m"],
          calls: 50,
        };
        const results = await runTrial(
          workers,
          "storm",
          workers.map(() => config),
        );
        expect(results.map((r) => [r.ok, r.failed])).toEqual(workers.map(() => [50, 0]));
        expect(tokenRequests()).toBe(1);
      } finally {
        await mock.close();
      }
    });
  });
}
