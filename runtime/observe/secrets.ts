/**
 * What the proxy must never write down: credentials on requests and tokens in answers. The proxy
 * holds no connection, so it learns the secret values from the traffic itself, the way the spec
 * says they travel: each credential placement of the descriptor (`key`/`token` in the query, an
 * `Authorization: Bearer {accessToken}` header) is matched against the request and its values
 * kept; so are values under credential-named keys of JSON and form bodies (an OAuth token
 * answer's `access_token`). Every text the proxy records or reports then passes through the
 * runtime's own redaction (errors.ts `redact`, `redactUrl`; record.ts `redactValue`).
 */
import type { ServiceDescriptor } from "../descriptor.js";
import { redact, redactUrl } from "../errors.js";
import { type InputCaps, isSensitiveKey, redactValue } from "./record.js";

const REDACTED = "[redacted]";
const SENSITIVE_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "api-key",
  "x-auth-token",
]);
const WHOLE: InputCaps = { stringChars: Number.POSITIVE_INFINITY, listItems: Number.POSITIVE_INFINITY, depth: 1000 };

interface Placement {
  in: string;
  name: string;
  value: string;
}

/** Every way the descriptor sends credentials (all api-key modes, an OAuth token). */
function placements(descriptor: ServiceDescriptor): Placement[] {
  const auth = descriptor.auth as { kind: string; modes?: Record<string, Placement[]>; send?: Placement };
  if (auth.modes) return Object.values(auth.modes).flat();
  return auth.send ? [auth.send] : [];
}

/**
 * A placement's value template as a pattern whose groups are the credential values
 * (`Bearer {t}` → /^Bearer (.+?)$/).
 */
function templatePattern(template: string): RegExp {
  const parts = template.split(/\{[^{}]+\}/);
  return new RegExp(`^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("(.+?)")}$`, "s");
}

export class Redactor {
  private readonly secrets = new Set<string>();
  private readonly queryNames: string[];
  private readonly headerNames: Set<string>;
  private readonly placements: Array<Placement & { pattern: RegExp }>;

  constructor(descriptor: ServiceDescriptor) {
    this.placements = placements(descriptor).map((p) => ({ ...p, pattern: templatePattern(p.value) }));
    this.queryNames = [...new Set(this.placements.filter((p) => p.in === "query").map((p) => p.name))];
    this.headerNames = new Set([
      ...SENSITIVE_HEADERS,
      ...this.placements.filter((p) => p.in === "header").map((p) => p.name.toLowerCase()),
    ]);
  }

  /** Secret values learned so far (for tests and for other redactions). */
  known(): string[] {
    return [...this.secrets];
  }

  private keep(value: string | undefined | null): void {
    if (value && value.length >= 4 && value !== REDACTED) this.secrets.add(value);
  }

  /** Learns the credentials a request carries. */
  learnRequest(url: URL, headers: Record<string, string | string[] | undefined>): void {
    for (const p of this.placements) {
      const values =
        p.in === "query"
          ? url.searchParams.getAll(p.name)
          : p.in === "header"
            ? [headers[p.name.toLowerCase()]].flat()
            : [];
      for (const value of values) {
        if (typeof value !== "string") continue;
        const match = p.pattern.exec(value);
        for (const captured of match ? match.slice(1) : [value]) this.keep(captured);
      }
    }
    for (const [name, value] of url.searchParams) if (isSensitiveKey(name)) this.keep(value);
  }

  /** Learns values under credential-named keys of a body (JSON or form). */
  learnBody(text: string, contentType: string | undefined): void {
    if (/[/+]json\b/i.test(contentType ?? "")) {
      try {
        this.learnValue(JSON.parse(text));
      } catch {
        /* not JSON after all */
      }
    } else if (/x-www-form-urlencoded/i.test(contentType ?? "")) {
      for (const [name, value] of new URLSearchParams(text)) if (isSensitiveKey(name)) this.keep(value);
    }
  }

  private learnValue(value: unknown, depth = 0): void {
    if (depth > 50 || value === null || typeof value !== "object") return;
    for (const [key, child] of Object.entries(value)) {
      if (isSensitiveKey(key) && typeof child === "string") this.keep(child);
      else this.learnValue(child, depth + 1);
    }
  }

  text(value: string): string {
    return redact(value, this.secrets);
  }

  url(value: string): string {
    return redactUrl(value, this.secrets, this.queryNames);
  }

  header(name: string, value: string): string {
    return this.headerNames.has(name.toLowerCase()) ? REDACTED : this.text(value);
  }

  /** A body as text, redacted whole (for a recording: nothing is cut). */
  body(text: string, contentType: string): string {
    if (/[/+]json\b/i.test(contentType)) {
      try {
        return JSON.stringify(redactValue(JSON.parse(text), [...this.secrets], WHOLE));
      } catch {
        return this.text(text);
      }
    }
    if (/x-www-form-urlencoded/i.test(contentType)) {
      const form = new URLSearchParams(text);
      for (const name of new Set(form.keys())) if (isSensitiveKey(name)) form.set(name, REDACTED);
      return this.text(form.toString());
    }
    return this.text(text);
  }

  /** A value for a report: redacted and cut short. */
  example(value: unknown): unknown {
    return redactValue(value, [...this.secrets], { stringChars: 120, listItems: 3, depth: 3 });
  }
}
