/**
 * The runtime's model types (runtime/descriptor.ts, runtime/mock/extension-types.ts, runtime/tools/extension-types.ts,
 * runtime/triggers/extension.ts) are written out by hand so that code naming them does not make tsc
 * resolve zod's inference. This file, checked by `tsc --noEmit` (test/project.test.ts runs it),
 * proves each one identical to the `z.infer` of the schema that validates it: a field added,
 * dropped, made optional or retyped on one side only is a compile error here.
 */
import type * as z from "zod";
import type {
  AuthSpec,
  ConnectionField,
  ConnectionSpec,
  ErrorKind,
  ErrorRule,
  ErrorsSpec,
  LimitSpec,
  PagingSpec,
  Placement,
  Rejection,
  ServiceExtension,
  DeclaredDescriptor,
  ServiceDescriptor,
  ShippedErrorRule,
  ShippedLimit,
} from "../../runtime/descriptor.js";
import type {
  AuthSchema,
  ConnectionFieldSchema,
  ConnectionSchema,
  ErrorKindSchema,
  ErrorRuleSchema,
  ErrorsSchema,
  LimitSchema,
  PagingSchema,
  PlacementSchema,
  RejectionSchema,
  ServiceExtensionSchema,
} from "../../runtime/descriptor-schemas.js";
import type {
  MockAnswer,
  MockAnswerSchema,
  MockErrorTemplate,
  MockErrorTemplateSchema,
  MockLimitAnswer,
  MockLimitAnswerSchema,
  MockOperation,
  MockOperationSchema,
  MockPageSize,
  MockPageSizeSchema,
  MockPageToken,
  MockPageTokenSchema,
  MockRef,
  MockRefSchema,
  MockResource,
  MockResourceSchema,
  MockSeed,
  MockSeedSchema,
  MockService,
  MockServiceSchema,
  MockToken,
  MockTokenSchema,
  MockWebhooks,
  MockWebhooksSchema,
} from "../../runtime/mock/extension.js";
import type {
  ApiCallTool,
  ApiCallToolSchema,
  CheckSchema,
  CompositeTool,
  CompositeToolSchema,
  OperationTool,
  OperationToolSchema,
  ServiceTools,
  ServiceToolsSchema,
  ToolCheck,
  ToolField,
  ToolFieldSchema,
  ToolHints,
  ToolHintsSchema,
  Toolset,
  ToolsetSchema,
} from "../../runtime/tools/extension.js";
import type {
  Condition,
  ConditionSchema,
  Delivery,
  DeliverySchema,
  DueDatePollSchema,
  DueDatePollSpec,
  FeedPollSchema,
  FeedPollSpec,
  OptionFilter,
  OptionFilterSchema,
  RefSpec,
  RefSpecSchema,
  Signature,
  SignatureSchema,
  TriggerOption,
  TriggerOptionSchema,
  TriggerSchema,
  TriggerScope,
  TriggerScopeSchema,
  TriggerSpec,
  TriggersExtension,
  TriggersExtensionSchema,
  WebhookTriggerSchema,
  WebhookTriggerSpec,
} from "../../runtime/triggers/extension.js";

/**
 * True when A and B are the same type (not merely assignable either way): two generic functions
 * are related only when their conditional return types are identical, so this also tells apart
 * optional from required, `readonly` from mutable, and `any` from everything else.
 */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/**
 * Equal, and alike in the one way Equal cannot see: an object type alias (like zod's inferred
 * types) has an implicit index signature and is assignable to `Record<string, unknown>`; an
 * interface with the same fields is not (runtime/limits/limits.ts relies on it for LimitSpec).
 */
export type Same<A, B> = Equal<A, B> extends true ? Equal<Indexable<A>, Indexable<B>> : false;
type Indexable<T> = [T] extends [Record<string, unknown>] ? true : false;
type Assert<T extends true> = T;

// runtime/descriptor.ts
export type _Placement = Assert<Same<Placement, z.infer<typeof PlacementSchema>>>;
export type _ConnectionField = Assert<Same<ConnectionField, z.infer<typeof ConnectionFieldSchema>>>;
export type _ConnectionSpec = Assert<Same<ConnectionSpec, z.infer<typeof ConnectionSchema>>>;
export type _AuthSpec = Assert<Same<AuthSpec, z.infer<typeof AuthSchema>>>;
export type _Rejection = Assert<Same<Rejection, z.infer<typeof RejectionSchema>>>;
export type _LimitSpec = Assert<Same<LimitSpec, z.infer<typeof LimitSchema>>>;
export type _ErrorKind = Assert<Same<ErrorKind, z.infer<typeof ErrorKindSchema>>>;
export type _ErrorRule = Assert<Same<ErrorRule, z.infer<typeof ErrorRuleSchema>>>;
export type _ErrorsSpec = Assert<Same<ErrorsSpec, z.infer<typeof ErrorsSchema>>>;
export type _PagingSpec = Assert<Same<PagingSpec, z.infer<typeof PagingSchema>>>;
export type _ServiceExtension = Assert<Same<ServiceExtension, z.infer<typeof ServiceExtensionSchema>>>;
// What clients ship is the spec's model without the texts of limits and error rules: the runtime,
// typed against ServiceDescriptor, compiles only if it reads nothing else of them, and a declared
// descriptor (texts included) is one as it is.
type Shipped<T> = T extends unknown ? Omit<T, "description"> & { description?: string | undefined } : never;
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type _ShippedLimit = Assert<Mutual<ShippedLimit, Shipped<LimitSpec>>>;
export type _ShippedErrorRule = Assert<Mutual<ShippedErrorRule, Shipped<ErrorRule>>>;
export type _DeclaredIsShipped = Assert<DeclaredDescriptor extends ServiceDescriptor ? true : false>;

// runtime/mock/extension.ts
export type _MockErrorTemplate = Assert<Same<MockErrorTemplate, z.infer<typeof MockErrorTemplateSchema>>>;
export type _MockAnswer = Assert<Same<MockAnswer, z.infer<typeof MockAnswerSchema>>>;
export type _MockLimitAnswer = Assert<Same<MockLimitAnswer, z.infer<typeof MockLimitAnswerSchema>>>;
export type _MockSeed = Assert<Same<MockSeed, z.infer<typeof MockSeedSchema>>>;
export type _MockResource = Assert<Same<MockResource, z.infer<typeof MockResourceSchema>>>;
export type _MockToken = Assert<Same<MockToken, z.infer<typeof MockTokenSchema>>>;
export type _MockWebhooks = Assert<Same<MockWebhooks, z.infer<typeof MockWebhooksSchema>>>;
export type _MockPageToken = Assert<Same<MockPageToken, z.infer<typeof MockPageTokenSchema>>>;
export type _MockPageSize = Assert<Same<MockPageSize, z.infer<typeof MockPageSizeSchema>>>;
export type _MockService = Assert<Same<MockService, z.infer<typeof MockServiceSchema>>>;
export type _MockRef = Assert<Same<MockRef, z.infer<typeof MockRefSchema>>>;
export type _MockOperation = Assert<Same<MockOperation, z.infer<typeof MockOperationSchema>>>;

// runtime/tools/extension.ts
export type _ToolHints = Assert<Same<ToolHints, z.infer<typeof ToolHintsSchema>>>;
export type _ToolField = Assert<Same<ToolField, z.infer<typeof ToolFieldSchema>>>;
export type _ToolCheck = Assert<Same<ToolCheck, z.infer<typeof CheckSchema>>>;
export type _OperationTool = Assert<Same<OperationTool, z.infer<typeof OperationToolSchema>>>;
export type _CompositeTool = Assert<Same<CompositeTool, z.infer<typeof CompositeToolSchema>>>;
export type _ApiCallTool = Assert<Same<ApiCallTool, z.infer<typeof ApiCallToolSchema>>>;
export type _Toolset = Assert<Same<Toolset, z.infer<typeof ToolsetSchema>>>;
export type _ServiceTools = Assert<Same<ServiceTools, z.infer<typeof ServiceToolsSchema>>>;

// runtime/triggers/extension.ts
export type _Signature = Assert<Same<Signature, z.infer<typeof SignatureSchema>>>;
export type _RefSpec = Assert<Same<RefSpec, z.infer<typeof RefSpecSchema>>>;
export type _Delivery = Assert<Same<Delivery, z.infer<typeof DeliverySchema>>>;
export type _TriggerScope = Assert<Same<TriggerScope, z.infer<typeof TriggerScopeSchema>>>;
export type _Condition = Assert<Same<Condition, z.infer<typeof ConditionSchema>>>;
export type _OptionFilter = Assert<Same<OptionFilter, z.infer<typeof OptionFilterSchema>>>;
export type _TriggerOption = Assert<Same<TriggerOption, z.infer<typeof TriggerOptionSchema>>>;
export type _WebhookTriggerSpec = Assert<Same<WebhookTriggerSpec, z.infer<typeof WebhookTriggerSchema>>>;
export type _DueDatePollSpec = Assert<Same<DueDatePollSpec, z.infer<typeof DueDatePollSchema>>>;
export type _FeedPollSpec = Assert<Same<FeedPollSpec, z.infer<typeof FeedPollSchema>>>;
export type _TriggerSpec = Assert<Same<TriggerSpec, z.infer<typeof TriggerSchema>>>;
export type _TriggersExtension = Assert<Same<TriggersExtension, z.infer<typeof TriggersExtensionSchema>>>;

// The helpers can fail: the same type with one optional field (`tools`) made required is not equal,
// and an interface with exactly the schema's fields is not the same as the schema's type.
type WrongPair = Equal<
  Omit<ServiceExtension, "tools"> & { tools: ServiceTools },
  z.infer<typeof ServiceExtensionSchema>
>;
// @ts-expect-error Equal<…> is false, so it does not satisfy Assert's `true` constraint
export type _Wrong = Assert<WrongPair>;
interface RejectionInterface {
  status?: number | undefined;
  code?: string | undefined;
}
export type _RejectionInterfaceEqual = Assert<Equal<RejectionInterface, z.infer<typeof RejectionSchema>>>;
// @ts-expect-error Same<…> is false: the interface has no implicit index signature
export type _RejectionInterfaceSame = Assert<Same<RejectionInterface, z.infer<typeof RejectionSchema>>>;
