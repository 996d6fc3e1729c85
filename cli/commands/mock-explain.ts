/**
 * `stepforge mock SERVICE|all --explain`: what each service's behavioural mock does per operation —
 * its action (create, read, update, delete, list, or answering its example), the resource, the
 * path parameter a record is found by, the parent it lives under, the list envelope, the paging
 * the client walks — and the auth and error shapes; inferred from the REST shape for a spec that
 * does not declare its mock (`x-stepforge.mock`), declared otherwise. Prints and exits; starts
 * nothing. The text comes from the model's `mockExplain` (generator/check/mock-infer.ts).
 */
import type { MockExplain } from "../../generator/model.js";

/** The explanation of one service's mock as text, one block per operation. */
export function explainText(id: string, specFile: string, explain: MockExplain): string {
  const lines: string[] = [];
  const how = explain.inferred
    ? `inferred from the REST shape of ${specFile}`
    : `declared in ${specFile} (x-stepforge.mock)`;
  lines.push(`${id} mock: ${how}`);
  lines.push(`  auth: ${explain.auth}`);
  for (const e of explain.errors) lines.push(`  errors: ${e}`);
  const ops = explain.operations;
  const methodWidth = Math.max(0, ...ops.map((o) => o.method.length));
  const pathWidth = Math.max(0, ...ops.map((o) => o.path.length));
  for (const o of ops) {
    const what = o.resource ? `${o.action} ${o.resource}` : o.action;
    lines.push(`  ${o.method.padEnd(methodWidth)} ${o.path.padEnd(pathWidth)}  ${o.operationId}: ${what}`);
    const details: Array<[string, string | undefined]> = [
      ["id", o.id],
      ["parent", o.parent],
      ["answer", o.envelope],
      ["paging", o.paging],
      ["note", o.note],
    ];
    for (const [label, text] of details) if (text) lines.push(`      ${label}: ${text}`);
  }
  return `${lines.join("\n")}\n`;
}
