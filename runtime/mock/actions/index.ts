/**
 * What an operation does to the mock's state, one function per `x-stepforge-mock` action kind:
 * the table the engine looks an operation's action up in, and `example`, the action of an
 * operation that declares none (it answers the spec's example and changes nothing but logs).
 * Each action gets the request context and the engine's parts (act.ts) and returns the answer;
 * none of them knows which service it runs for.
 */
import { getPath } from "../../internal/values.js";
import type { MockOperation } from "../extension-types.js";
import { render } from "../template.js";
import { jsonReply } from "../types.js";
import { fire, splitValues, writeLog, type Action } from "./act.js";
import { create, pushOrPull, read, remove, update, updateItem } from "./records.js";
import { linked, list, pageToken } from "./lists.js";
import { relate, upsert } from "./batches.js";

const example: Action = (a) => {
  const out = a.m.respond !== undefined ? render(a.m.respond, a.ctx) : a.example();
  // Logged once per input (a campaign requested for each lead), or once.
  const inputs = a.m.inputs ? splitValues(getPath(a.ctx, a.m.inputs)) : [undefined];
  const touched = a.m.log.length ? inputs.map((input) => ({ record: undefined, status: "done", input })) : [];
  writeLog(a, touched);
  fire(a, undefined, a.m.resource);
  return jsonReply(a.status, out, a.contentType);
};

export const ACTIONS: Record<MockOperation["action"], Action> = {
  example,
  create,
  read,
  update,
  delete: remove,
  push: pushOrPull,
  pull: pushOrPull,
  updateItem,
  list,
  pageToken,
  upsert,
  link: relate,
  unlink: relate,
  isLinked: relate,
  linked,
};
