/**
 * `stepforge mock` controls, end to end through the command (in-process, real servers on
 * loopback): limits off or scaled, seeded faults and latency, token lifetime, the webhook secret,
 * a state file to start from and a dump at the end; a port that is taken stops everything with
 * exit 1; a broken spec stops only its own service.
 */
import { createHmac } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { mockCommand } from "../../cli/commands/mock.js";
import { projectSpecs } from "../../cli/project.js";
import { runCli } from "../helpers/cli.js";
import { freePort, freePortRun } from "../helpers/ports.js";
import { BOARD, call, CARD, LIST, MARKETO, receiver, TRELLO_AUTH } from "./helpers.js";

const work = mkdtempSync(join(tmpdir(), "stepforge-mock-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

class Capture extends Writable {
  text = "";
  waiters: Array<() => void> = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString();
    for (const w of this.waiters.splice(0)) w();
    done();
  }
  async waitFor(re: RegExp): Promise<RegExpExecArray> {
    for (;;) {
      const m = re.exec(this.text);
      if (m) return m;
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }
}

/** Runs `stepforge mock …` until the test says stop; resolves the URLs it printed. */
async function run(args: string[], specFiles?: string[]) {
  const out = new Capture();
  const err = new Capture();
  let stop!: () => void;
  const until = new Promise<void>((r) => (stop = r));
  const finished = mockCommand(args, out, err, until, specFiles);
  const ready = await Promise.race([out.waitFor(/running on 127\.0\.0\.1.*\n/), finished.then((code) => ({ code }))]);
  const urls = Object.fromEntries([...out.text.matchAll(/^(\w+) mock (http:\/\/\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  const end = async () => {
    stop();
    return finished;
  };
  onTestFinished(async () => void (await end()));
  return { ready, urls, out, err, end, finished };
}

/** A receiver registered as a webhook on the Trello mock at `url`, after a card was created: one delivery in. */
async function oneCardDelivery(url: string) {
  const hooks = await receiver();
  onTestFinished(() => hooks.close());
  await call(url, `/1/webhooks?${TRELLO_AUTH}`, { method: "POST", json: { callbackURL: hooks.url, idModel: BOARD } });
  await call(url, `/1/cards?${TRELLO_AUTH}`, { method: "POST", json: { idList: LIST, name: "signed" } });
  await hooks.next(1);
  return hooks;
}

describe("stepforge mock controls", () => {
  it("--no-limits lets a load test through; --limits-scale shrinks the budgets", async () => {
    const free = await run(["trello", "--port", "0", "--no-limits"]);
    const statuses = await Promise.all(
      Array.from({ length: 120 }, () =>
        call(free.urls.trello!, `/1/cards/${CARD}?${TRELLO_AUTH}`).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const scaled = await run(["trello", "--port", "0", "--limits-scale", "0.02"]);
    const three = [];
    for (let i = 0; i < 3; i++) three.push((await call(scaled.urls.trello!, `/1/cards/${CARD}?${TRELLO_AUTH}`)).status);
    expect(three).toEqual([200, 200, 429]);
  });

  it("--faults and --latency with --seed repeat the same faults", async () => {
    const statuses = async () => {
      const r = await run([
        "worldnews",
        "--port",
        "0",
        "--faults",
        "error=0.5",
        "--latency",
        "1@0.5",
        "--seed",
        "9",
        "--no-limits",
      ]);
      const out: number[] = [];
      for (let i = 0; i < 12; i++)
        out.push(
          (
            await call(r.urls.worldnews!, "/search-news?text=electric", {
              headers: { "x-api-key": "mock-worldnews-api-key-0123456789" },
            })
          ).status,
        );
      const counters = (await call(r.urls.worldnews!, "/__mock/counters")).json;
      await r.end();
      return { out, counters };
    };
    const a = await statuses();
    const b = await statuses();
    expect(a.out).toEqual(b.out);
    expect(a.out.filter((s) => s >= 500).length).toBeGreaterThan(0);
    expect(a.out.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(a.counters.faults.delayed).toBeGreaterThan(0);
  });

  it("--token-lifetime sets how long issued tokens live", async () => {
    const r = await run(["marketo", "--port", "0", "--token-lifetime", "60"]);
    const token = await call(
      r.urls.marketo!,
      `/identity/oauth/token?grant_type=client_credentials&client_id=${MARKETO.clientId}&client_secret=` +
        `${MARKETO.clientSecret}`,
    );
    expect(token.json.expires_in).toBe(60);
  });

  it("--webhook-secret signs deliveries", async () => {
    const r = await run(["trello", "--port", "0", "--webhook-secret", "cli-app-secret"]);
    const hooks = await oneCardDelivery(r.urls.trello!);
    const delivery = hooks.calls.find((c) => c.method === "POST")!;
    const expected = createHmac("sha1", "cli-app-secret")
      .update(delivery.body + hooks.url)
      .digest("base64");
    expect(delivery.headers["x-trello-webhook"]).toBe(expected);
  });

  it("--state sets the scene and --dump-state writes what the run left", async () => {
    const state = join(work, "scene.json");
    const card = { id: "aaaaaaaaaaaaaaaaaaaaaaaa", name: "From the scene", idList: LIST, idBoard: BOARD, pos: 1 };
    writeFileSync(state, JSON.stringify({ trello: { records: { card: [card] } } }));
    const dump = join(work, "dump.json");
    const r = await run(["trello", "--port", "0", "--state", state, "--dump-state", dump]);
    expect((await call(r.urls.trello!, `/1/cards/${card.id}?${TRELLO_AUTH}`)).json.name).toBe("From the scene");
    // pos 1: first
    expect((await call(r.urls.trello!, `/1/lists/${LIST}/cards?${TRELLO_AUTH}`)).json[0].id).toBe(card.id);
    const created = await call(r.urls.trello!, `/1/cards?${TRELLO_AUTH}`, {
      method: "POST",
      json: { idList: LIST, name: "Made in the run" },
    });
    expect(await r.end()).toBe(0);
    const written = JSON.parse(readFileSync(dump, "utf8"));
    expect(written.trello.records.card.map((c: { id: string }) => c.id)).toEqual(
      expect.arrayContaining([card.id, created.json.id]),
    );
    // The dump starts the next run where this one stopped.
    const again = await run(["trello", "--port", "0", "--state", dump, "--seed", "2"]);
    expect((await call(again.urls.trello!, `/1/cards/${created.json.id}?${TRELLO_AUTH}`)).json.name).toBe(
      "Made in the run",
    );
  });

  it("refuses a bad state file or bad control values, naming the problem", async () => {
    const bad = join(work, "bad.json");
    writeFileSync(bad, JSON.stringify({ trello: { records: { nosuch: [] } } }));
    const unknown = await run(["trello", "--port", "0", "--state", bad]);
    expect(await unknown.finished).toBe(1);
    expect(unknown.err.text).toContain('unknown resource "nosuch"');
    await expect(mockCommand(["trello", "--faults", "error=2"], new Capture(), new Capture())).rejects.toThrow(
      /--faults error must be a rate between 0 and 1, got "2"/,
    );
    await expect(mockCommand(["trello", "--faults", "boom=0.1"], new Capture(), new Capture())).rejects.toThrow(
      /unknown fault "boom"/,
    );
    await expect(
      mockCommand(["trello", "--no-limits", "--limits-scale", "2"], new Capture(), new Capture()),
    ).rejects.toThrow(/contradict/);
    await expect(mockCommand(["trello", "--prism", "--no-limits"], new Capture(), new Capture())).rejects.toThrow(
      /Prism takes only --port and --errors/,
    );
    await expect(
      mockCommand(["trello", "--state", join(work, "missing.json")], new Capture(), new Capture()),
    ).rejects.toThrow(/no such file/);
  });
});

describe("--port with all", () => {
  it("--port 0 gives every service a free port of its own", async () => {
    const r = await run(["all", "--port", "0"]);
    const ports = Object.values(r.urls).map((u) => Number(new URL(u).port));
    expect(Object.keys(r.urls).sort()).toEqual(["contentsnare", "marketo", "trello", "worldnews"]);
    expect(new Set(ports).size).toBe(4);
    for (const p of ports) expect(p).toBeGreaterThan(1023);
    for (const u of Object.values(r.urls)) expect((await call(u, "/__mock/counters")).status).toBe(200);
  });

  it("a --port whose run of ports passes 65535 is a usage error naming --port, before anything starts", async () => {
    await expect(mockCommand(["all", "--port", "65534"], new Capture(), new Capture())).rejects.toThrow(
      "--port 65534: the 4 services need ports 65534-65537, past 65535; give --port 65532 " +
        "or lower, or --port 0 for free ports",
    );
    const cli = await runCli("mock", "all", "--port", "65534");
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain("stepforge mock: --port 65534: the 4 services need ports 65534-65537");
    expect(cli.stderr).not.toContain("RangeError");
  });
});

describe("secrets", () => {
  it("never prints the webhook secret, in failures or in the dumped state", async () => {
    const marker = "MARKER-webhook-secret-5f2c9a";
    await expect(
      mockCommand(["trello", "--webhook-secret", marker, "--faults", "error=7"], new Capture(), new Capture()),
    ).rejects.toThrow(expect.objectContaining({ message: expect.not.stringContaining(marker) }));
    const dump = join(work, "secret-dump.json");
    const r = await run(["trello", "--port", "0", "--webhook-secret", marker, "--dump-state", dump]);
    const hooks = await oneCardDelivery(r.urls.trello!);
    expect(await r.end()).toBe(0);
    for (const text of [r.out.text, r.err.text, readFileSync(dump, "utf8"), ...hooks.calls.map((c) => c.body)])
      expect(text).not.toContain(marker);
  });
});

describe("fail fast", () => {
  it("stops every mock it started and exits 1 naming the port when one port is taken", async () => {
    let port = await freePortRun(4);
    let blocker: Server | undefined;
    for (let tries = 0; !blocker && tries < 5; tries++) {
      const s = createServer();
      const ok = await new Promise<boolean>((resolve) => {
        s.once("error", () => resolve(false));
        s.listen(port + 2, "127.0.0.1", () => resolve(true));
      });
      if (ok) blocker = s;
      else port = await freePortRun(4);
    }
    onTestFinished(() => new Promise<void>((r) => blocker!.close(() => r())));
    const r = await run(["all", "--port", String(port)]);
    expect(await r.finished).toBe(1);
    expect(r.err.text).toContain(
      `trello mock: port ${port + 2} on 127.0.0.1 is already in use; stop what holds it, or pick another port`,
    );
    expect(r.out.text).not.toContain("running on");
    for (const p of [port, port + 1, port + 3])
      await expect(fetch(`http://127.0.0.1:${p}/__mock/counters`)).rejects.toThrow();
    expect((blocker!.address() as AddressInfo).port).toBe(port + 2);
  });

  it("a broken spec stops only its own service's mock", async () => {
    const specs = projectSpecs().map((file) => {
      const copy = join(work, file.split("/").pop()!);
      copyFileSync(file, copy);
      return copy;
    });
    const trello = specs.find((f) => f.endsWith("trello.yaml"))!;
    writeFileSync(trello, `${readFileSync(trello, "utf8")}\n  broken: [unclosed\n`);
    const one = await run(["worldnews", "--port", "0"], specs);
    expect(one.urls.worldnews).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(one.err.text).toBe("");
    expect(await one.end()).toBe(0);

    const all = await run(["all", "--port", String(await freePortRun(4))], specs);
    expect(Object.keys(all.urls).sort()).toEqual(["contentsnare", "marketo", "worldnews"]);
    expect(all.out.text).toContain("(not started: trello)");
    expect(all.err.text).toMatch(/trello\.yaml/);
    expect(all.err.text).toContain("trello not started: its spec");
    expect(await all.end()).toBe(1);

    const alone = await run(["trello", "--port", "0"], specs);
    expect(await alone.finished).toBe(1);
    expect(alone.err.text).toContain("trello not started");
  });
});
