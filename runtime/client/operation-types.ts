/**
 * What a generated operation takes and returns, read from its openapi-typescript `operations`
 * entry: the parameters object (required when any parameter is), the body (by whether the spec
 * requires one, any of its media types), and the JSON answer of its success statuses.
 *
 * They give the same types as openapi-fetch's `ParamsOption`/`RequestBodyOption` and
 * openapi-typescript-helpers' `SuccessResponseJSON` (test/types/operation-types.ts compares them on
 * every operation of the project's and the corpus' specs), written here for two reasons: naming
 * those put both packages' declaration files into every application's type-check — with
 * `skipLibCheck` off, openapi-fetch's alone was 40 % of the README samples' check — and their
 * request body walks each body type for readOnly/writeOnly markers stepforge's types never carry.
 */

/** The keys of T a value must have. */
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

type ParamsPart<Op> = Op extends { parameters: infer P }
  ? [RequiredKeys<P>] extends [never]
    ? { params?: P }
    : { params: P }
  : { params?: { query?: Record<string, unknown> } };

/** The body of any media type the spec lists. */
type MediaBody<C> = C[keyof C & `${string}/${string}`];

type BodyPart<Op> = Op extends { requestBody: { content: infer C } }
  ? { body: MediaBody<C> }
  : Op extends { requestBody?: { content: infer C } }
    ? { body?: MediaBody<C> | undefined }
    : { body?: undefined };

/** What a generated operation function accepts: typed params and body, plus an abort signal. */
export type OperationInit<Op> = ParamsPart<Op> & BodyPart<Op> & { signal?: AbortSignal };

/** The statuses a call succeeds with. */
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206 | 207 | "2XX";

/** One status's answer: its JSON media type's body, else every media type's, else none. */
type AnswerOf<Response> = Response extends { content?: unknown }
  ? Response["content"] extends Record<string, unknown>
    ? [Response["content"][keyof Response["content"] & `${string}/json`]] extends [never]
      ? Response["content"]
      : Response["content"][keyof Response["content"] & `${string}/json`]
    : Response["content"]
  : never;

type SuccessAnswer<Responses> = {
  [Status in keyof Responses & SuccessStatus]: AnswerOf<Responses[Status]>;
}[keyof Responses & SuccessStatus];

/** What a generated operation function resolves to: the JSON body of its success response. */
export type OperationData<Op> = Op extends { responses: infer Responses } ? SuccessAnswer<Responses> : never;

/**
 * One item of a paged operation's pages: the list at `Field` of its data (a dotted path, `.` for
 * a bare array), as the runtime's `items()` walks it. `unknown` where the types hold no list there
 * (a spec whose paging names a field its schema does not type), never a compile error.
 */
export type PageItem<Data, Field extends string> = Field extends "." | ""
  ? ListItem<Data>
  : Field extends `${infer Key}.${infer Rest}`
    ? Key extends keyof NonNullable<Data>
      ? PageItem<NonNullable<Data>[Key], Rest>
      : unknown
    : Field extends keyof NonNullable<Data>
      ? ListItem<NonNullable<Data>[Field]>
      : unknown;

type ListItem<List> = NonNullable<List> extends ReadonlyArray<infer Item> ? Item : unknown;
