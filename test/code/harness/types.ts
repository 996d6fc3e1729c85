/**
 * The evaluation harness's shapes: a task, the records its mocks start from, and what its three
 * scripts (direct tools, dynamic meta-tools, code mode) see.
 *
 * No model runs here. Each task has what a competent agent would send: for direct tools the
 * tools/call sequence (later arguments read from earlier results, as a model reads them); for
 * dynamic mode the same steps after searching and describing them; for code mode the searches and
 * one program. All three run through a real MCP SDK client against an in-process server, and the
 * task's check reads the mocks' final records.
 */
import type { MockState } from "../../../runtime/mock/index.js";

export type Json = Record<string, unknown>;

/** What a direct or dynamic script may do: call a step and read its data (isError throws). */
export interface StepCaller {
  call<T = any>(step: string, input: Json): Promise<T>;
}

/**
 * Calls `step` keeping only `fields` of each item it answers with (its stepforge_result_fields, sent
 * after the other arguments), as an agent that minds what it reads does.
 */
export function callKeeping<T>(agent: StepCaller, step: string, fields: string[], input: Json = {}): Promise<T> {
  return agent.call<T>(step, { ...input, stepforge_result_fields: fields });
}

/** The final state a check reads. */
export interface FinalState {
  records(service: string, resource: string): Json[];
  relations(service: string): NonNullable<MockState["relations"]>;
}

export interface Task {
  id: string;
  /** The instruction, as a user would give it. */
  title: string;
  services: string[];
  /** Direct tools: the steps in order; returns the answer (for tasks that ask a question). */
  direct(agent: StepCaller): Promise<unknown>;
  /** Dynamic mode: what the agent searches before using the steps direct() calls. */
  searches: string[];
  /** Code mode: the searches, then one program (the body execute runs); its result is the answer. */
  code: { searches: Array<{ query: string; service?: string }>; program: string };
  /** Problems with the final state or the answer; none means the task was done right. */
  check(state: FinalState, answer: unknown, initial?: FinalState): string[];
}

/** Records each service's mock starts from (on top of its spec's examples). */
export type Seeds = Record<string, MockState>;
