/**
 * Marker secrets for the secret-leak scan, and the scanner that finds them.
 *
 * A marker is a distinctive value put where a real secret would be (connection fields, webhook
 * secrets, authorization codes). Each has a fixed recognisable prefix and a random tail, so the
 * scanner finds the whole value in every encoding the runtime could produce (raw, URL component,
 * form/query encoding, JSON string, base64, base64url, hex) and also partial copies (the prefix or
 * the random tail alone). Leak reports never print a marker: it is replaced by `<MARKER:kind>`.
 *
 * Markers use `~` where the field's pattern allows: it is legal in OAuth client secrets (Azure's
 * contain it) and the one printable character `encodeURIComponent` keeps but query encoding
 * (URLSearchParams, used for every credential the runtime puts in a URL) escapes, so a redaction
 * that only knows the raw and `encodeURIComponent` forms is caught.
 */
import { randomBytes } from "node:crypto";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** The textual prefix of every marker that has no pattern to satisfy. */
const MARKER_PREFIX = "SFLEAK";
/** The prefix of hex-only markers (Trello's API key must be 32 hexadecimal characters). */
const HEX_MARKER_PREFIX = "5ec7e75ec7e7";

export interface Marker {
  /** What it stands for, e.g. `trello.token`. */
  kind: string;
  value: string;
  /** The random part (found on its own it still means a partial leak). */
  tail: string;
}

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/** A marker that satisfies no pattern: `SFLEAK~<kind>~<16 hex>`. */
export function textMarker(kind: string): Marker {
  const tail = hex(8);
  return { kind, value: `${MARKER_PREFIX}~${kind.replace(/[^A-Za-z0-9-]/g, "-")}~${tail}`, tail };
}

/** A marker of exactly `length` hexadecimal characters (for `^[0-9a-fA-F]{N}$` fields). */
export function hexMarker(kind: string, length = 32): Marker {
  const tail = hex(Math.ceil((length - HEX_MARKER_PREFIX.length) / 2)).slice(0, length - HEX_MARKER_PREFIX.length);
  if (tail.length < 16)
    throw new Error(
      `hex marker of ${length} characters leaves a tail of ${tail.length}; use at least ` +
        `${HEX_MARKER_PREFIX.length + 16}`,
    );
  return { kind, value: HEX_MARKER_PREFIX + tail, tail };
}

/** Markers for every secret the specs declare (`secret: true`), plus the other secrets a flow handles. */
export function createMarkers() {
  return {
    // Trello: apiKey (secret: true, pattern ^[0-9a-fA-F]{32}$) and token (secret: true, no pattern).
    trelloApiKey: hexMarker("trello.apiKey"),
    trelloToken: textMarker("trello.token"),
    /** A token the mock does not accept (a revoked one): a secret all the same. */
    trelloRevokedToken: textMarker("trello.revokedToken"),
    /** The application secret Trello signs webhooks with (`webhook serve --secret`). */
    trelloWebhookSecret: textMarker("trello.webhookSecret"),
    // Marketo: clientSecret (secret: true); endpoint and clientId are not secret.
    marketoClientSecret: textMarker("marketo.clientSecret"),
    marketoWrongSecret: textMarker("marketo.wrongSecret"),
    // World News: apiKey (secret: true).
    worldnewsApiKey: textMarker("worldnews.apiKey"),
    worldnewsWrongKey: textMarker("worldnews.wrongKey"),
    // Content Snare: clientSecret, accessToken, refreshToken (secret: true); clientId and expiresAt are not.
    contentsnareClientSecret: textMarker("contentsnare.clientSecret"),
    contentsnareAccessToken: textMarker("contentsnare.accessToken"),
    contentsnareRefreshToken: textMarker("contentsnare.refreshToken"),
    /** The access token the mock knows for the account (the connection's own is stale). */
    contentsnareServerAccessToken: textMarker("contentsnare.serverAccessToken"),
    contentsnareAuthorizationCode: textMarker("contentsnare.authorizationCode"),
    /** A password in the user information of a hostile base address (`http://user:PASS@host`). */
    userinfoPassword: textMarker("baseUrl.userinfoPassword"),
    /** The bearer token of `stepforge mcp --http` (STEPFORGE_MCP_TOKEN). */
    mcpBearerToken: textMarker("mcp.bearerToken"),
  } satisfies Record<string, Marker>;
}

export type Markers = ReturnType<typeof createMarkers>;

/**
 * The substrings base64 (or base64url) of `value` leaves in any longer base64 text, whatever the
 * value's byte offset: for each of the three alignments, the quads made only of the value's bytes.
 */
function base64Segments(value: string, url: boolean): string[] {
  const bytes = Buffer.from(value, "utf8");
  const out: string[] = [];
  for (let align = 0; align < 3; align++) {
    const padded = Buffer.concat([Buffer.alloc(align), bytes]);
    const quads = Math.floor(padded.length / 3);
    const first = align === 0 ? 0 : 1;
    if (quads - first < 4) continue;
    const encoded = padded.toString(url ? "base64url" : "base64");
    out.push(encoded.slice(first * 4, quads * 4));
  }
  return out;
}

export interface Form {
  form: string;
  text: string;
  /** Compare case-insensitively (percent escapes and hex may come in either case). */
  caseless: boolean;
}

/** Every encoding of `value` the scanner looks for. */
export function encodedForms(value: string): Form[] {
  const forms: Form[] = [
    { form: "raw", text: value, caseless: false },
    { form: "encodeURIComponent", text: encodeURIComponent(value), caseless: true },
    { form: "query-encoded", text: new URLSearchParams([["", value]]).toString().slice(1), caseless: true },
    { form: "double-url-encoded", text: encodeURIComponent(encodeURIComponent(value)), caseless: true },
    { form: "json-string", text: JSON.stringify(value).slice(1, -1), caseless: false },
    { form: "hex", text: Buffer.from(value, "utf8").toString("hex"), caseless: true },
    ...base64Segments(value, false).map((text) => ({ form: "base64", text, caseless: false })),
    ...base64Segments(value, true).map((text) => ({ form: "base64url", text, caseless: false })),
  ];
  const seen = new Set<string>();
  return forms.filter((f) => (seen.has(f.text) ? false : (seen.add(f.text), true)));
}

export interface Leak {
  /** Where the text came from (a flow and channel, or a file). */
  source: string;
  kind: string;
  form: string;
  /** Surrounding text with every marker masked. */
  context: string;
}

export interface Needle {
  kind: string;
  form: string;
  text: string;
  caseless: boolean;
}

/**
 * What to look for: every form of every marker, each marker's random tail, and the fixed prefixes.
 * `extra` adds exact values that have no fixed shape (tokens a mock issued during the run).
 */
export function needlesFor(markers: Iterable<Marker>, extra: Iterable<{ kind: string; value: string }> = []): Needle[] {
  const needles: Needle[] = [];
  for (const m of markers) {
    for (const f of encodedForms(m.value))
      needles.push({ kind: m.kind, form: f.form, text: f.text, caseless: f.caseless });
    needles.push({ kind: m.kind, form: "partial (random tail)", text: m.tail, caseless: true });
  }
  for (const e of extra) {
    if (e.value.length < 8) continue;
    for (const f of encodedForms(e.value))
      needles.push({ kind: e.kind, form: f.form, text: f.text, caseless: f.caseless });
  }
  needles.push({ kind: "any marker", form: "partial (prefix)", text: MARKER_PREFIX, caseless: true });
  needles.push({ kind: "hex marker", form: "partial (prefix)", text: HEX_MARKER_PREFIX, caseless: true });
  return needles;
}

/** Replaces every marker (and extra secret) in `text` so a report can show where a leak is without repeating it. */
export function mask(text: string, needles: Needle[]): string {
  let out = text;
  for (const n of [...needles].sort((a, b) => b.text.length - a.text.length)) {
    const pattern = new RegExp(n.text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), n.caseless ? "gi" : "g");
    out = out.replace(pattern, `<MARKER:${n.kind}>`);
  }
  return out;
}

/** Every marker occurrence in `text` (first one per needle). */
export function scanText(source: string, text: string, needles: Needle[]): Leak[] {
  const leaks: Leak[] = [];
  const lower = text.toLowerCase();
  for (const n of needles) {
    const at = n.caseless ? lower.indexOf(n.text.toLowerCase()) : text.indexOf(n.text);
    if (at < 0) continue;
    const context = text.slice(Math.max(0, at - 80), at + n.text.length + 80);
    leaks.push({ source, kind: n.kind, form: n.form, context: mask(context, needles) });
  }
  return leaks;
}

/** A readable list of leaks, markers masked. */
export function describeLeaks(leaks: Leak[]): string {
  return leaks.map((l) => `- ${l.source}: ${l.kind} (${l.form}) in …${l.context.replace(/\s+/g, " ")}…`).join("\n");
}

/** Every regular file under `dir` (symbolic links and `skip`ped directory names are not followed). */
export function filesUnder(dir: string, skip: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries: string[];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const name of entries) {
      const path = join(d, name);
      const info = lstatSync(path);
      if (info.isDirectory()) {
        if (!skip.has(name)) walk(path);
      } else if (info.isFile()) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

/** Scans files as text (binary bytes are read as latin1, so no byte sequence is lost). */
export function scanFiles(files: string[], needles: Needle[], root: string): Leak[] {
  return files.flatMap((file) => {
    const bytes = readFileSync(file);
    return scanText(relative(root, file) || file, bytes.toString("latin1") + "\n" + bytes.toString("utf8"), needles);
  });
}
