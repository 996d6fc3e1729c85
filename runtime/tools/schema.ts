/**
 * The schema builders generated tools.ts files use: zod's own functions, typed so every result is
 * a small `Schema` instead of a type that spells out the whole shape. Behaviour is zod's; only the
 * compile-time types are erased.
 *
 * Why: with zod's generic builders the compiler computes a distinct type for every object, array,
 * union and optional in a service's steps (thousands of instantiations for one service); erased,
 * each builder and each `.optional()`/`.nullable()` is instantiated once and reused. Nothing reads
 * those types: steps validate at run time and handlers forward fields to the untyped `call`.
 * Scalars too (`s.string()`, not `z.string()`): resolving a call on zod's `ZodString` class, with
 * its dozens of generic methods, cost a Trello-sized tools.ts about 70 ms of a consumer's check.
 */
import * as z from "zod";
import { base64Schema, filePartSchema } from "./bodies.js";

/**
 * A schema as generated code sees it: the methods it calls on one. The value is always a zod
 * schema (`defineOperationTool` hands it on as one); the narrow type keeps the compiler from
 * resolving zod's generic base class, which alone costs tens of thousands of types.
 */
export interface Schema {
  describe(description: string): Schema;
  optional(): Schema;
  nullable(): Schema;
  min(value: number): Schema;
  max(value: number): Schema;
  meta(data: Record<string, unknown>): Schema;
  /** Numbers: above `value` (exclusiveMinimum). */
  gt(value: number): Schema;
  /** Numbers: below `value` (exclusiveMaximum). */
  lt(value: number): Schema;
  /** Numbers: whole numbers only. */
  int(): Schema;
  /** Strings: must match. */
  regex(pattern: RegExp): Schema;
}
/**
 * Parameters are `unknown`, not `z.ZodType`: checking that a `ZodOptional<ZodString>` is a
 * `ZodType` compares zod's classes member by member; accepting `unknown` costs nothing, and zod
 * checks its arguments at run time anyway.
 */
type Shape = Record<string, unknown>;
type Literal = string | number | boolean | null;

export const s = {
  strictObject: z.strictObject as unknown as (shape: Shape) => Schema,
  looseObject: z.looseObject as unknown as (shape: Shape) => Schema,
  /** An object whose other keys must match `rest` (`additionalProperties: {schema}`). */
  catchall: ((shape: Record<string, z.ZodType>, rest: z.ZodType) => z.object(shape).catchall(rest)) as unknown as (
    shape: Shape,
    rest: unknown,
  ) => Schema,
  record: z.record as unknown as (key: unknown, value: unknown) => Schema,
  array: z.array as unknown as (item: unknown) => Schema,
  union: z.union as unknown as (options: unknown[]) => Schema,
  intersection: z.intersection as unknown as (left: unknown, right: unknown) => Schema,
  enum: z.enum as unknown as (values: string[]) => Schema,
  literal: z.literal as unknown as (value: Literal) => Schema,
  string: z.string as unknown as () => Schema,
  number: z.number as unknown as () => Schema,
  boolean: z.boolean as unknown as () => Schema,
  /** A string that is a URL. */
  url: z.url as unknown as () => Schema,
  /** A string that is an e-mail address. */
  email: z.email as unknown as () => Schema,
  unknown: z.unknown as unknown as () => Schema,
  null: z.null as unknown as () => Schema,
  /** A multipart file part: `{ base64 | text, filename?, contentType? }` (runtime/tools/bodies.ts). */
  file: filePartSchema as unknown as () => Schema,
  /** Bytes as base64 text, size-capped (a raw request body). */
  base64: base64Schema as unknown as () => Schema,
};
