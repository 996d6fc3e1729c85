/**
 * The schema builders generated tools.ts files use for composite schemas: zod's own functions,
 * typed so every result is a plain `z.ZodType` (or `z.ZodObject`, `z.ZodArray`) instead of a type
 * that spells out the whole shape. Behaviour is zod's; only the compile-time types are erased.
 *
 * Why: with zod's generic builders the compiler computes a distinct type for every object, array,
 * union and optional in a service's steps (thousands of instantiations for one service); erased,
 * each builder and each `.optional()`/`.nullable()` is instantiated once and reused. Nothing reads
 * those types: steps validate at run time and handlers forward fields to the untyped `call`.
 */
import * as z from "zod";

type Schema = z.ZodType;
type Shape = Record<string, Schema>;
type Literal = string | number | boolean | null;

export const s = {
  strictObject: z.strictObject as (shape: Shape) => z.ZodObject,
  looseObject: z.looseObject as (shape: Shape) => z.ZodObject,
  object: z.object as (shape: Shape) => z.ZodObject,
  record: z.record as unknown as (key: z.ZodString, value: Schema) => Schema,
  array: z.array as (item: Schema) => z.ZodArray<Schema>,
  union: z.union as unknown as (options: Schema[]) => Schema,
  intersection: z.intersection as (left: Schema, right: Schema) => Schema,
  enum: z.enum as unknown as (values: string[]) => Schema,
  literal: z.literal as unknown as (value: Literal) => Schema,
};
