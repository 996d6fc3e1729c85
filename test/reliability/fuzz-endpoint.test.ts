/**
 * Property-based fuzzing of the API Call endpoint guard, beyond the single property in
 * test/tools/endpoint.test.ts: endpoints assembled from a hostile alphabet (dot segments in every
 * encoding, encoded slashes, backslashes, '@', '//host', full URLs, Unicode dots and full-width
 * look-alikes, CR/LF, NUL, query strings with credentials), random strings and bytes, and
 * percent-encodings of all of these.
 *
 * The oracle is independent of the guard's code: an accepted endpoint must give exactly
 * base + path, keep the base's origin, and — after decoding every percent-escape, Unicode (NFKC)
 * normalisation and RFC 3986 dot-segment removal, as a lenient server might do — still lie under
 * the base path. Through the four API Call steps (fetch stubbed, recording every address), a
 * refusal is `invalid_input` naming `endpoint` with nothing sent, and no request ever goes to
 * another host.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSharedState } from "../../runtime/index.js";
import {
  checkEndpoint,
  executeTool,
  type ApiCallToolDefinition,
  type ToolDefinition,
} from "../../runtime/tools/index.js";
import { tools as contentsnare } from "../../generated/contentsnare/tools.js";
import { tools as marketo } from "../../generated/marketo/tools.js";
import { tools as trello } from "../../generated/trello/tools.js";
import { tools as worldnews } from "../../generated/worldnews/tools.js";
import { connections } from "../tools/helpers.js";
import { recordingFetch, runs, SEED } from "./arbitraries.js";

const TOKENS = [
  "/",
  "//",
  "/",
  "/",
  ".",
  "..",
  "...",
  "a",
  "b",
  "1",
  "cards",
  "me",
  "-",
  "_",
  "~",
  ";",
  ":",
  "=",
  "&",
  "$",
  "!",
  "'",
  "(",
  ")",
  "*",
  "+",
  ",",
  "%2e",
  "%2E",
  "%2e%2e",
  ".%2e",
  "%2e.",
  "%252e",
  "%252e%252e",
  "%25252e",
  "%2f",
  "%2F",
  "%252f",
  "%5c",
  "%5C",
  "%255c",
  "%",
  "%%",
  "%zz",
  "%0",
  "%00",
  "%0a",
  "%0d%0a",
  "%09",
  "%20",
  "%3f",
  "%23",
  "%40",
  "%3a",
  "\\",
  "\\\\",
  "@",
  "user:pass@",
  ":@",
  "evil.example",
  "127.0.0.1",
  "[::1]",
  "https://evil.example",
  "http://",
  "HTTPS:",
  "javascript:",
  "file:",
  "//evil.example",
  "?",
  "?key=x",
  "?token=abc&key=def",
  "#",
  "#frag",
  "\r",
  "\n",
  "\r\n",
  "\u0000",
  "\t",
  " ",
  "\u007f",
  "\u0085",
  "\u00a0",
  "\u2028",
  "\u2024",
  "\u2025",
  "\u2026",
  "\u3002",
  "\uff0e",
  "\uff0f",
  "\uff3c",
  "\uff05",
  "\ufe52",
  "\u0131",
  "\u212a",
  "\u00e9",
  "e\u0301",
  "%e2%80%a4",
  "%e2%80%a5",
  "%ef%bc%8e",
  "%ef%bc%8e%ef%bc%8e",
  "%ef%bc%8f",
  "%ef%bc%bc",
  "%ef%bc%85",
  "%e3%80%82",
  "%c0%ae",
  "%c0%af",
  "%c3%a9",
  "%ed%a0%80",
  "%f0%9f%98%80",
  "{id}",
  "{",
  "}",
  '"',
  "<",
  ">",
  "`",
  "|",
  "^",
  "[",
  "]",
];

/** Endpoints assembled from the hostile alphabet (most start with "/" so they get past the first check). */
const assembled = fc
  .tuple(fc.boolean(), fc.array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 10 }))
  .map(([lead, parts]) => `${lead ? "/" : ""}${parts.join("")}`);
const hostileEndpoint = fc.oneof(
  { weight: 6, arbitrary: assembled },
  // Percent-encoded once or twice (with the slashes kept, so the result still looks like a path).
  {
    weight: 2,
    arbitrary: fc.tuple(assembled, fc.integer({ min: 1, max: 2 })).map(([p, n]) => {
      let out = p;
      for (let i = 0; i < n; i++) out = out.split("/").map(encodeURIComponent).join("/");
      return out;
    }),
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 30 }).map((s) => `/${s}`) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  { weight: 1, arbitrary: fc.webPath().map((p) => p || "/") },
);
/** Plain paths that must pass. */
const safeSegment = fc
  .stringMatching(/^[A-Za-z0-9_~-][A-Za-z0-9._~!$&'()*+,;=:-]{0,11}$/)
  .filter((s) => !s.includes(".."));
const safeEndpoint = fc.array(safeSegment, { minLength: 1, maxLength: 5 }).map((segments) => `/${segments.join("/")}`);

const BASES = [
  "https://api.trello.com",
  "https://api.trello.com/",
  "https://host.example/api/",
  "https://host.example/api/v1",
  "https://123-ABC-456.mktorest.com",
  "http://127.0.0.1:8080/base/path",
];

/** Decodes every percent-escape until stable; undefined when one is malformed. */
function decodeFully(text: string): string | undefined {
  let form = text;
  for (let i = 0; i < 10; i++) {
    let next: string;
    try {
      next = decodeURIComponent(form);
    } catch {
      return undefined;
    }
    if (next === form) return form;
    form = next;
  }
  return form;
}

/** RFC 3986 §5.2.4 remove_dot_segments. */
function removeDotSegments(path: string): string {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "..") out.pop();
    else if (segment !== ".") out.push(segment);
  }
  return out.join("/");
}

/** What an accepted endpoint must satisfy, worked out without the guard's code. */
function checkAccepted(endpoint: string, baseUrl: string, url: string): void {
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, "");
  expect(url).toBe(`${base.origin}${basePath}${endpoint}`);
  const built = new URL(url);
  expect(built.origin).toBe(base.origin);
  expect(built.username + built.password + built.search + built.hash).toBe("");
  expect(built.pathname.startsWith(`${basePath}/`)).toBe(true);
  // However a lenient server decodes and normalises it, it stays under the base path.
  const decoded = decodeFully(built.pathname);
  expect(decoded, "an accepted path decodes cleanly").toBeDefined();
  for (const lenient of [
    decoded!,
    decoded!.normalize("NFKC"),
    decoded!.replace(/\\/g, "/"),
    decodeFully(decoded!.normalize("NFKC")) ?? "",
  ]) {
    const shown = `${JSON.stringify(endpoint)} → ${JSON.stringify(lenient)}`;
    // eslint-disable-next-line no-control-regex
    expect(/[\u0000-\u001f\u007f\\@?#]/.test(lenient), shown).toBe(false);
    expect(
      removeDotSegments(lenient).startsWith(`${basePath}/`),
      `${JSON.stringify(endpoint)} escapes via ${JSON.stringify(lenient)}`,
    ).toBe(true);
    expect(
      lenient.split("/").some((s) => s === "." || s === ".."),
      `${JSON.stringify(endpoint)} has a dot segment in ${JSON.stringify(lenient)}`,
    ).toBe(false);
  }
}

describe("checkEndpoint (property-based, hostile alphabet)", () => {
  it("refuses with a reason, or accepts only addresses that stay under the base", () => {
    fc.assert(
      fc.property(hostileEndpoint, fc.constantFrom(...BASES), (endpoint, baseUrl) => {
        const result = checkEndpoint(endpoint, baseUrl);
        if (!result.ok) {
          expect(typeof result.reason).toBe("string");
          expect(result.reason.length).toBeGreaterThan(0);
          return;
        }
        expect(result.path).toBe(endpoint);
        checkAccepted(endpoint, baseUrl, result.url);
      }),
      // Found by this property: percent-encoded Unicode look-alikes (full-width '＼', '‥' = "..").
      {
        seed: SEED,
        numRuns: runs(6000),
        examples: [
          ["/%ef%bc%bc", "https://api.trello.com"],
          ["/a/%e2%80%a5", "https://api.trello.com"],
          ["/1/%ef%bc%8e%ef%bc%8e/x", "https://host.example/api/"],
          ["/%ef%bc%8f%ef%bc%8fevil.example", "https://api.trello.com"],
        ],
      },
    );
  });

  it(
    "refuses every endpoint carrying a traversal, an encoded host, user information, a " +
      "query or a control character",
    () => {
      const evil = fc
        .tuple(
          safeEndpoint,
          fc.constantFrom(
            "/..",
            "/%2e%2e",
            "/%252e%252e",
            "/.%2E",
            "/%ef%bc%8e%ef%bc%8e",
            "/%e2%80%a5",
            "/%2f%2fevil.example",
            "/%ef%bc%8f%ef%bc%8fevil.example",
            "/\\evil.example",
            "/%5cevil",
            "/@evil.example",
            "/a%40evil.example",
            "?token=x",
            "%3ftoken=x",
            "#x",
            "%23x",
            "\r\nX: y",
            "%0d%0aX:%20y",
            "\u0000",
            "%00",
            "/.",
            "/%2e",
          ),
          safeEndpoint,
          fc.boolean(),
        )
        .map(([head, bad, tail, withTail]) => `${head}${bad}${withTail ? tail : ""}`);
      fc.assert(
        fc.property(evil, fc.constantFrom(...BASES), (endpoint, baseUrl) => {
          expect(checkEndpoint(endpoint, baseUrl).ok, endpoint).toBe(false);
        }),
        { seed: SEED, numRuns: runs(1500) },
      );
    },
  );

  it("accepts plain paths exactly as given (no false refusals)", () => {
    fc.assert(
      fc.property(safeEndpoint, fc.constantFrom(...BASES), (endpoint, baseUrl) => {
        const result = checkEndpoint(endpoint, baseUrl);
        expect(result.ok, `${endpoint} ${!result.ok ? result.reason : ""}`).toBe(true);
        if (result.ok) checkAccepted(endpoint, baseUrl, result.url);
      }),
      { seed: SEED, numRuns: runs(1500) },
    );
  });

  it("never throws, whatever the value or base", () => {
    fc.assert(
      fc.property(
        fc.oneof(hostileEndpoint, fc.anything()),
        fc.oneof(fc.constantFrom(...BASES), fc.string(), fc.webUrl()),
        (endpoint, baseUrl) => {
          const result = checkEndpoint(endpoint, baseUrl);
          expect(typeof result.ok).toBe("boolean");
        },
      ),
      { seed: SEED, numRuns: runs(2000) },
    );
  });
});

describe("API Call steps with hostile endpoints (property-based; fetch stubbed and recorded)", () => {
  const steps = [...contentsnare, ...marketo, ...trello, ...worldnews].filter(
    (t): t is ApiCallToolDefinition => t.kind === "api_call",
  );

  it("finds the API Call step of every service", () => {
    expect(steps.map((s) => s.service).sort()).toEqual(["contentsnare", "marketo", "trello", "worldnews"]);
  });

  it.each(steps.map((s) => [s.name, s] as const))(
    "%s: refused with invalid_input on `endpoint` and nothing sent, or sent only under the base",
    async (_name, tool: ToolDefinition & ApiCallToolDefinition) => {
      const offHost: string[] = [];
      let refused = 0;
      let sent = 0;
      // undefined: the service's own base address (the marketo one comes from the connection).
      const bases = [undefined, "https://gw.fuzz.example/prefix/v2"];
      await fc.assert(
        fc.asyncProperty(
          fc.oneof({ weight: 4, arbitrary: hostileEndpoint }, { weight: 1, arbitrary: safeEndpoint }),
          fc.constantFrom(...tool.config.methods),
          fc.constantFrom(...bases),
          async (endpoint, method, baseOverride) => {
            const recorder = recordingFetch();
            const result = await executeTool(
              tool,
              { method, endpoint },
              {
                connection: connections[tool.service]!,
                baseUrl: baseOverride,
                fetch: recorder.fetch,
                shared: createSharedState(),
                retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxTotalWaitMs: 10, random: () => 0 },
              },
            );
            JSON.stringify(result);
            const baseUrl =
              baseOverride ??
              (tool.service === "marketo" ? connections.marketo!.fields.endpoint! : tool.descriptor.connection.baseUrl);
            const base = new URL(baseUrl);
            for (const url of recorder.urls) if (new URL(url).origin !== base.origin) offHost.push(url);
            if (!result.ok && result.error.kind === "invalid_input") {
              refused++;
              expect(result.error.fields.map((f) => f.path)).toEqual(["endpoint"]);
              expect(result.error.message).toContain("endpoint");
              expect(result.error.retryable).toBe(false);
              expect(recorder.urls).toEqual([]);
              expect(checkEndpoint(endpoint, baseUrl.replace(/\/+$/, "")).ok).toBe(false);
              return;
            }
            // Accepted: the request (after any token request) went to base + endpoint exactly.
            sent++;
            expect(result.ok ? "ok" : result.error.kind).not.toBe("internal");
            const basePath = base.pathname.replace(/\/+$/, "");
            const request = recorder.urls.find((u) => new URL(u).pathname === `${basePath}${endpoint}`);
            expect(request, `${endpoint} → ${JSON.stringify(recorder.urls)}`).toBeDefined();
            checkAccepted(endpoint, baseUrl, request!.split("?")[0]!);
          },
        ),
        { seed: SEED, numRuns: runs(400) },
      );
      expect(offHost, "requests to another host").toEqual([]);
      // Both sides of the guard were exercised.
      expect(refused).toBeGreaterThan(0);
      expect(sent).toBeGreaterThan(0);
    },
  );
});
