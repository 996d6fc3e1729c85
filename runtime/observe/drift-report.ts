/**
 * The drift report: what the validation proxy saw, per operation, each difference between the
 * spec and the traffic once, with how often it was seen, an example value (redacted and cut by
 * the caller), and when. Written as JSON (for tools) and Markdown (for people).
 *
 * Differences are grouped by operation, direction, answer status, kind, pointer (list indexes
 * become `*`: the same field of every card is one difference) and expectation. The "most
 * important" are ranked by how much a wrong spec hurts a caller: an undeclared status or a missing
 * required field breaks typed code; an undocumented field only means the spec is incomplete.
 */
import type { Difference, DifferenceKind } from "./conformance.js";

export interface DriftEntry {
  direction: "request" | "response";
  status?: number | undefined;
  kind: DifferenceKind;
  /** JSON pointer, list indexes as `*`. */
  pointer: string;
  expected: string;
  /** The first value seen, redacted and cut. */
  example?: unknown;
  got?: string | undefined;
  count: number;
  firstSeen: string;
  lastSeen: string;
}

export interface OperationDrift {
  operationId: string;
  method: string;
  path: string;
  exchanges: number;
  /** Answer statuses seen, with how often. */
  statuses: Record<string, number>;
  differences: DriftEntry[];
}

export interface DriftReportJson {
  version: 1;
  service: string;
  spec?: string | undefined;
  upstream?: string | undefined;
  startedAt: string;
  endedAt: string;
  exchanges: number;
  /** Requests the upstream did not answer (refused, timed out). */
  upstreamFailures: number;
  summary: {
    operationsSeen: number;
    operationsWithDifferences: number;
    /** Distinct differences. */
    differences: number;
    /** Times they were seen, in all. */
    occurrences: number;
    byKind: Partial<Record<DifferenceKind, number>>;
    mostImportant: Array<DriftEntry & { operation: string }>;
  };
  operations: OperationDrift[];
  /** Requests that matched no operation of the spec. */
  unknownRoutes: Array<{ method: string; path: string; count: number }>;
  /** Checks that could not run (a schema the checker cannot read), by operation, with the reason. */
  uncheckable: Array<{ operation: string; reason: string; count: number }>;
}

/** Most harmful first. */
const SEVERITY: DifferenceKind[] = [
  "undeclared-status",
  "missing-field",
  "type",
  "not-json",
  "content-type",
  "missing-body",
  "enum",
  "no-alternative",
  "format",
  "missing-parameter",
  "constraint",
  "undocumented-field",
  "unknown-route",
];

export function normalisePointer(pointer: string): string {
  return pointer.replace(/\/\d+(?=\/|$)/g, "/*");
}

export class DriftReport {
  private readonly operations = new Map<string, OperationDrift & { byKey: Map<string, DriftEntry> }>();
  private readonly unknown = new Map<string, { method: string; path: string; count: number }>();
  private readonly startedAt = new Date().toISOString();
  private exchanges = 0;
  private upstreamFailures = 0;
  private readonly unchecked = new Map<string, { operation: string; reason: string; count: number }>();

  constructor(private readonly meta: { service: string; spec?: string | undefined; upstream?: string | undefined }) {}

  private operation(op: { operationId: string; method: string; path: string }) {
    let entry = this.operations.get(op.operationId);
    if (!entry) {
      entry = {
        operationId: op.operationId,
        method: op.method.toUpperCase(),
        path: op.path,
        exchanges: 0,
        statuses: {},
        differences: [],
        byKey: new Map(),
      };
      this.operations.set(op.operationId, entry);
    }
    return entry;
  }

  /**
   * One request and its answer. `example` turns a seen value into what the report may show (the
   * proxy redacts secrets and cuts it).
   */
  exchange(
    op: { operationId: string; method: string; path: string } | undefined,
    request: { method: string; path: string },
    status: number | undefined,
    differences: Difference[],
    example: (value: unknown) => unknown,
  ): void {
    this.exchanges++;
    if (status === undefined) this.upstreamFailures++;
    if (!op) {
      const key = `${request.method} ${request.path}`;
      const seen = this.unknown.get(key) ?? { method: request.method, path: request.path, count: 0 };
      seen.count++;
      this.unknown.set(key, seen);
      return;
    }
    const entry = this.operation(op);
    entry.exchanges++;
    if (status !== undefined) entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
    const now = new Date().toISOString();
    // The same field of many list items counts once per exchange.
    const counted = new Set<string>();
    for (const d of differences) {
      const pointer = normalisePointer(d.pointer);
      const key = [d.direction, d.status ?? "", d.kind, pointer, d.expected].join("\u0000");
      if (counted.has(key)) continue;
      counted.add(key);
      const found = entry.byKey.get(key);
      if (found) {
        found.count++;
        found.lastSeen = now;
        continue;
      }
      const created: DriftEntry = {
        direction: d.direction,
        ...(d.status !== undefined ? { status: d.status } : {}),
        kind: d.kind,
        pointer,
        expected: d.expected,
        ...("value" in d ? { example: example(d.value) } : {}),
        ...(d.got ? { got: d.got } : {}),
        count: 1,
        firstSeen: now,
        lastSeen: now,
      };
      entry.byKey.set(key, created);
      entry.differences.push(created);
    }
  }

  /** A check that threw: the exchange was not checked. */
  uncheckable(operation: string, reason: string): void {
    const key = `${operation}\u0000${reason}`;
    const seen = this.unchecked.get(key) ?? { operation, reason: reason.slice(0, 300), count: 0 };
    seen.count++;
    this.unchecked.set(key, seen);
  }

  toJSON(): DriftReportJson {
    const operations = [...this.operations.values()]
      .sort((a, b) => a.operationId.localeCompare(b.operationId))
      .map(({ byKey: _byKey, ...op }) => ({ ...op, differences: [...op.differences].sort(byImportance) }));
    const all = operations.flatMap((op) => op.differences.map((d) => ({ ...d, operation: op.operationId })));
    const byKind: Partial<Record<DifferenceKind, number>> = {};
    for (const d of all) byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
    return {
      version: 1,
      service: this.meta.service,
      ...(this.meta.spec ? { spec: this.meta.spec } : {}),
      ...(this.meta.upstream ? { upstream: this.meta.upstream } : {}),
      startedAt: this.startedAt,
      endedAt: new Date().toISOString(),
      exchanges: this.exchanges,
      upstreamFailures: this.upstreamFailures,
      summary: {
        operationsSeen: operations.length,
        operationsWithDifferences: operations.filter((op) => op.differences.length > 0).length,
        differences: all.length,
        occurrences: all.reduce((n, d) => n + d.count, 0),
        byKind,
        mostImportant: [...all].sort(byImportance).slice(0, 3),
      },
      operations,
      unknownRoutes: [...this.unknown.values()].sort((a, b) => b.count - a.count),
      uncheckable: [...this.unchecked.values()],
    };
  }

  toMarkdown(): string {
    return driftMarkdown(this.toJSON());
  }
}

function byImportance(a: DriftEntry, b: DriftEntry): number {
  return SEVERITY.indexOf(a.kind) - SEVERITY.indexOf(b.kind) || b.count - a.count || a.pointer.localeCompare(b.pointer);
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

function exampleText(d: DriftEntry): string {
  if (!("example" in d)) return "(absent)";
  const json = JSON.stringify(d.example) ?? "undefined";
  return `${code(json.length > 80 ? `${json.slice(0, 79)}…` : json)}${d.got ? ` (${d.got})` : ""}`;
}

function where(d: DriftEntry): string {
  return `${d.direction}${d.status !== undefined ? ` ${d.status}` : ""} ${code(d.pointer || "(whole)")}`;
}

export function driftMarkdown(report: DriftReportJson): string {
  const s = report.summary;
  const lines: string[] = [`# Drift report: ${report.service}`, ""];
  const against = [
    report.spec ? `spec ${code(report.spec)}` : "",
    report.upstream ? `upstream ${code(report.upstream)}` : "",
  ]
    .filter(Boolean)
    .join(" against ");
  const intro = against ? `${against[0]!.toUpperCase()}${against.slice(1)}, ` : "";
  const unanswered = report.upstreamFailures ? ` (${report.upstreamFailures} not answered by the upstream)` : "";
  lines.push(
    `${intro}${report.startedAt} to ${report.endedAt}: ` +
      `${report.exchanges} exchanges over ${s.operationsSeen} operations${unanswered}; ` +
      `${s.operationsWithDifferences} operations differ from the spec in ${s.differences} ways, ` +
      `seen ${s.occurrences} times.`,
    "",
  );
  if (s.differences) {
    lines.push("| kind | differences |", "|---|---:|");
    for (const kind of SEVERITY) if (s.byKind[kind]) lines.push(`| ${kind} | ${s.byKind[kind]} |`);
    lines.push("", "## Most important", "");
    s.mostImportant.forEach((d, i) => {
      const what = `${d.kind}, expected ${cell(d.expected)}, saw ${exampleText(d)} (${d.count}×)`;
      lines.push(`${i + 1}. **${d.operation}** ${where(d)}: ${what}`);
    });
    lines.push("");
  }
  for (const op of report.operations) {
    const statuses = Object.entries(op.statuses)
      .map(([status, n]) => `${status} ×${n}`)
      .join(", ");
    lines.push(
      `## ${op.operationId}: ${op.method} ${code(op.path)}`,
      "",
      `${op.exchanges} exchange${op.exchanges === 1 ? "" : "s"}${statuses ? ` (${statuses})` : ""}.`,
      "",
    );
    if (!op.differences.length) {
      lines.push("No difference from the spec.", "");
      continue;
    }
    lines.push("| where | kind | expected | example | seen |", "|---|---|---|---|---:|");
    for (const d of op.differences)
      lines.push(`| ${where(d)} | ${d.kind} | ${cell(d.expected)} | ${cell(exampleText(d))} | ${d.count} |`);
    lines.push("");
  }
  if (report.uncheckable.length) {
    lines.push("## Not checked", "", "| operation | why | seen |", "|---|---|---:|");
    for (const u of report.uncheckable) lines.push(`| ${u.operation} | ${cell(u.reason)} | ${u.count} |`);
    lines.push("");
  }
  if (report.unknownRoutes.length) {
    lines.push("## Requests for no operation of the spec", "", "| request | seen |", "|---|---:|");
    for (const r of report.unknownRoutes) lines.push(`| ${code(`${r.method} ${r.path}`)} | ${r.count} |`);
    lines.push("");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
