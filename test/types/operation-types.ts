/**
 * The runtime's own `OperationInit` and `OperationData` (runtime/client/operation-types.ts) against
 * the openapi-fetch / openapi-typescript-helpers types they replace, on every operation of the four
 * project specs: each must accept and produce exactly what the originals do (mutually assignable),
 * or this file does not compile and the error names the operation. Checked by `tsc --noEmit`
 * (test/project.test.ts runs it).
 */
import type { ParamsOption, RequestBodyOption } from "openapi-fetch";
import type { SuccessResponseJSON } from "openapi-typescript-helpers";
import type { operations as Contentsnare } from "../../generated/contentsnare/types.js";
import type { operations as Marketo } from "../../generated/marketo/types.js";
import type { operations as Trello } from "../../generated/trello/types.js";
import type { operations as Worldnews } from "../../generated/worldnews/types.js";
import type { OperationData, OperationInit } from "../../runtime/client/operation-types.js";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type FetchInit<Op> = ParamsOption<Op> & RequestBodyOption<Op> & { signal?: AbortSignal };

/** The operations whose input or answer type differs from openapi-fetch's (never when none). */
type Differing<Ops> = {
  [Id in keyof Ops]: Same<OperationInit<Ops[Id]>, FetchInit<Ops[Id]>> extends true
    ? Same<OperationData<Ops[Id]>, SuccessResponseJSON<Ops[Id] & Record<string, unknown>>> extends true
      ? never
      : `${Id & string}: answer`
    : `${Id & string}: input`;
}[keyof Ops];

type None<T> = [T] extends [never] ? "none" : T;

export const perService: [
  None<Differing<Contentsnare>>,
  None<Differing<Marketo>>,
  None<Differing<Trello>>,
  None<Differing<Worldnews>>,
] = ["none", "none", "none", "none"];
