/** The CLI as a real process: call, store renewal, hostile --base-url, webhook serve. */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { descriptor as contentsnareDescriptor } from "../../../generated/contentsnare/descriptor.js";
import { triggers as trelloTriggers } from "../../../generated/trello/triggers.js";
import { FileConnectionStore } from "../../../runtime/index.js";
import { signPayload } from "../../../runtime/triggers/receiver.js";
import { mask } from "../markers.js";
import { closedPort, cliProcess, runCliProcess } from "../secret-leak-helpers.js";
import {
  BOARD,
  capture,
  closers,
  contentsnareMockCredentials,
  dir,
  expectNoLeaks,
  LIST,
  M,
  mockWithProxy,
  needles,
  storeFiles,
} from "./harness.js";
import { callArgv, webhookServeArgv, marketoUrl, plainFile, record, revokedFile, trelloUrl } from "./cli-setup.js";

export function cliProcessFlows(): void {
  it(
    "as a real process: call, store renewal, hostile --base-url, auth trello-url, webhook " +
      "serve with forged and signed deliveries",
    async () => {
      const storeCopy = join(dir, "cli", "store-process.json");
      storeFiles.push(storeCopy);
      await new FileConnectionStore(storeCopy).put(contentsnareDescriptor, {
        name: "snare",
        fields: { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value },
      });
      // The store of the in-process run rotated the mock's refresh token: start the mock's state over.
      const csProcess = await mockWithProxy("contentsnare", { auth: { credentials: contentsnareMockCredentials } });
      const closed = await closedPort();
      const env = { STEPFORGE_CONNECTIONS: plainFile };
      const callbackUrl = "https://hooks.example.com/trello";
      const serve = cliProcess(
        webhookServeArgv("--callback-url", callbackUrl, "--scope", `board=${BOARD}`, "--host", "127.0.0.1"),
      );
      let serveOut = "";
      let serveErr = "";
      serve.stdout!.on("data", (d: Buffer) => (serveOut += d.toString()));
      serve.stderr!.on("data", (d: Buffer) => (serveErr += d.toString()));
      const served = new Promise<number | null>((resolve) => serve.once("close", resolve));
      closers.push(async () => {
        if (serve.exitCode === null) serve.kill("SIGKILL");
      });

      const [ok, renewal, revoked, hostile, closedRun, authOk, authBad] = await Promise.all([
        runCliProcess(callArgv("trello_get_board", { id: BOARD }, undefined, trelloUrl), env),
        runCliProcess(callArgv("contentsnare_get_me", "{}", storeCopy, csProcess.url)),
        runCliProcess(
          callArgv(
            "marketo_get_leads",
            { filterType: "email", filterValues: ["x@example.com"] },
            revokedFile,
            marketoUrl,
          ),
        ),
        runCliProcess(
          callArgv(
            "trello_get_board",
            { id: BOARD },
            undefined,
            `http://u:${M.userinfoPassword.value}@127.0.0.1:${closed}`,
          ),
          env,
        ),
        runCliProcess(
          callArgv("worldnews_search_news", { text: "leak scan" }, undefined, `http://127.0.0.1:${closed}`),
          env,
        ),
        runCliProcess(["auth", "trello-url", "--key", M.trelloApiKey.value, "--app-name", "Leak Scan"]),
        runCliProcess(["auth", "trello-url", "--app-name", "Leak Scan", M.trelloApiKey.value]),
      ]);
      expect(ok.code, mask(ok.stderr, needles())).toBe(0);
      expect(renewal.code, mask(renewal.stderr + renewal.stdout, needles())).toBe(0);
      expect(revoked.code).toBe(1);
      expect(hostile.code).not.toBe(0);
      expect(closedRun.code).toBe(1);
      expect(authBad.code).toBe(2);
      for (const [name, r] of Object.entries({ ok, renewal, revoked, hostile, closedRun, authBad }))
        record(`process ${name}`, r);
      expect((await stat(storeCopy)).mode & 0o777).toBe(0o600);
      expect(authOk.code).toBe(0);
      const authorize = new URL(authOk.stdout.trim());
      expect(authorize.searchParams.get("key")).toBe(M.trelloApiKey.value);
      authorize.searchParams.delete("key");
      record("process auth ok (key parameter removed)", { ...authOk, stdout: authorize.toString() });

      // webhook serve: a forged delivery, one signed with the wrong secret, one signed correctly.
      const listening = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`webhook serve did not start: ${mask(serveErr, needles())}`)),
          15_000,
        );
        const look = () => {
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serveErr);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        };
        serve.stderr!.on("data", look);
        look();
      });
      const body = JSON.stringify({
        action: {
          id: "6100000000000000000000b1",
          type: "createCard",
          date: "2026-11-21T09:00:00.000Z",
          idMemberCreator: "5a0000000000000000000001",
          data: { board: { id: BOARD, name: "Roadmap" }, card: { id: "c9", name: "Signed" }, list: { id: LIST } },
          memberCreator: { id: "5a0000000000000000000001", fullName: "Ada" },
        },
        model: { id: BOARD, name: "Roadmap" },
        webhook: { id: "6200000000000000000000aa", idModel: BOARD, callbackURL: callbackUrl, active: true },
      });
      const header = trelloTriggers.delivery.signature.header;
      const post = async (name: string, signature: string | undefined) => {
        const r = await fetch(listening, { method: "POST", body, headers: signature ? { [header]: signature } : {} });
        capture.add(`webhook serve ${name} answer`, `${r.status} ${await r.text()} ${JSON.stringify([...r.headers])}`);
        return r.status;
      };
      expect(await post("unsigned", undefined)).toBe(401);
      expect(await post("forged", M.trelloWebhookSecret.value)).toBe(401);
      expect(
        await post("wrong secret", signPayload(M.trelloRevokedToken.value, trelloTriggers.delivery, body, callbackUrl)),
      ).toBe(401);
      expect(
        await post("signed", signPayload(M.trelloWebhookSecret.value, trelloTriggers.delivery, body, callbackUrl)),
      ).toBe(200);
      for (let i = 0; i < 100 && !serveOut.includes("\n"); i++) await new Promise((r) => setTimeout(r, 20));
      expect(serveOut).toContain("trello_new_card");
      serve.kill("SIGTERM");
      await served;
      record("process webhook serve", { code: serve.exitCode, stdout: serveOut, stderr: serveErr });
      expectNoLeaks();
    },
  );
}
