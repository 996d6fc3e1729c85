/** An agent that follows each result's advice: retries when retryable, checks when the outcome is unknown. */

import type { FaultOptions, RunningMock } from "../../../runtime/mock/index.js";
import { canonicalSchema, executeToolByName, recordsKeyOf, type ToolContext } from "../../../runtime/tools/index.js";
import { planCalls, type PlannedCall } from "./plan.js";
import { type Runtime, serviceOptions } from "./run.js";
import { ALL_TOOLS, CREATED, type Service, soakFaults } from "./settings.js";

// ------------------------------------------------------------------ an agent that follows advice

/**
 * Faults for the agent soak: those of the main soak, with more slow bodies and dropped connections,
 * so that many creates lose their answer after the mock applied them.
 */
export function agentFaults(seed: number): FaultOptions {
  return { ...soakFaults(seed), slowBody: { rate: 0.12, delayMs: 30, chunkBytes: 16 }, drop: { rate: 0.06 } };
}

/** Creates only: every planned call of the main plan that makes a record. */
export function agentPlan(service: Service, count: number, seed: number): PlannedCall[] {
  return planCalls(service, count * 4, seed)
    .filter((c) => c.creates)
    .slice(0, count);
}

export interface AgentOutcome {
  call: PlannedCall;
  /** Calls of the create step the agent made. */
  creates: number;
  /** Checks it ran (each with its own retries). */
  checks: number;
  /**
   * How it ended: created (an answer said so), found (a check found it), gave up (a non-retryable error, or a check it
   * could not run).
   */
  end: "created" | "found" | "gave_up";
  lastError?: string;
}

const MAX_AGENT_CALLS = 8;

/** The records of a step's result: the list its output schema declares, or the result itself. */
function recordsOf(step: string, data: unknown): Array<Record<string, unknown>> {
  const tool = ALL_TOOLS.find((t) => t.name === step)!;
  const key = recordsKeyOf(canonicalSchema(tool.output, "output"));
  const d = data as Record<string, unknown>;
  if (key && Array.isArray(d?.[key])) return d[key] as Array<Record<string, unknown>>;
  return d ? [d] : [];
}

/** Own values at a dotted path, through lists (`data.text`, `checklists.name`). */
function valuesAt(record: unknown, path: string[]): unknown[] {
  if (path.length === 0) return Array.isArray(record) ? record : [record];
  if (Array.isArray(record)) return record.flatMap((r) => valuesAt(r, path));
  if (!record || typeof record !== "object" || !Object.hasOwn(record, path[0]!)) return [];
  return valuesAt((record as Record<string, unknown>)[path[0]!], path.slice(1));
}

/**
 * What a careful model does with one create: call it; on success stop; when the result says the
 * outcome is unknown, run the check it names (retrying the check while its own results say so) and
 * create again only when the check shows nothing; when the result is retryable, wait as told and
 * call again; otherwise stop. Runs against the mocks through the tool-step catalogue.
 */
export async function runAgentCreate(call: PlannedCall, rt: Runtime): Promise<AgentOutcome> {
  const options: ToolContext = serviceOptions(rt, call.service);
  const outcome: AgentOutcome = { call, creates: 0, checks: 0, end: "gave_up" };
  const pause = (ms: number | undefined) => new Promise((r) => setTimeout(r, Math.min(ms ?? 5, 200)));
  for (let calls = 0; calls < MAX_AGENT_CALLS; ) {
    calls++;
    outcome.creates++;
    const result = await executeToolByName(ALL_TOOLS, call.tool, call.input, options);
    if (result.ok) return { ...outcome, end: "created" };
    const error = result.error;
    outcome.lastError = error.kind;
    if (error.outcome === "unknown") {
      if (!error.check) return outcome;
      // Run the check until it answers; if it cannot be run, do not risk a second record.
      let found: boolean | undefined;
      while (found === undefined && calls < MAX_AGENT_CALLS) {
        calls++;
        outcome.checks++;
        const read = await executeToolByName(ALL_TOOLS, error.check.step, error.check.input, options);
        if (read.ok) {
          const matches = recordsOf(error.check.step, read.data).filter((r) =>
            Object.entries(error.check!.match).every(([field, want]) => {
              const wanted = Array.isArray(want) ? want : [want];
              return valuesAt(r, field.split(".")).some((v) => wanted.includes(v));
            }),
          );
          found = matches.length > 0;
        } else if (!read.error.retryable) {
          return outcome;
        } else {
          await pause(read.error.retryAfterMs);
        }
      }
      if (found) return { ...outcome, end: "found" };
      if (found === undefined) return outcome;
      continue;
    }
    if (!error.retryable) return outcome;
    await pause(error.retryAfterMs);
  }
  return outcome;
}

/** Records made more than once for the same key (each planned create has a key of its own). */
export function duplicateRecords(service: Service, mock: RunningMock): number {
  let duplicates = 0;
  for (const { key } of CREATED[service]) {
    const resource = CREATED[service].find((c) => c.key === key)!.resource;
    const counts = new Map<string, number>();
    for (const r of mock.records(resource)) {
      const k = key(r);
      if (typeof k === "string" && k.startsWith("soak") && k.includes(`${service}-`))
        counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    for (const n of counts.values()) duplicates += n - 1;
  }
  return duplicates;
}
