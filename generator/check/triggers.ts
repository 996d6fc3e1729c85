/**
 * `x-stepforge-triggers`: its schema (zod, in runtime/triggers/extension.ts) and the cross-references
 * zod cannot see — operations and their path parameters, scopes and references by name, options
 * named by filters — each reported with its place and the fix.
 */
import type { TriggerSpec, TriggersExtension } from "../../runtime/triggers/extension.js";
import type { SurfaceOperation } from "../model.js";
import { reportProtoKeys, type CheckContext, type Path } from "./context.js";
import { TRIGGERS_EXTENSION } from "./extension-keys.js";

/** The parsed extension, or undefined when the spec has none or it does not match its schema (reported). */
export function checkTriggers(
  context: CheckContext,
  operations: readonly SurfaceOperation[],
): TriggersExtension | undefined {
  const raw = context.doc[TRIGGERS_EXTENSION];
  if (raw === undefined) {
    reportUntriggeredWebhooks(context);
    return undefined;
  }
  reportProtoKeys(raw, [TRIGGERS_EXTENSION], context);
  const ext = context.parts.triggers(context, raw, [TRIGGERS_EXTENSION]);
  if (!ext) return undefined;
  const checks = new TriggerChecks(context, ext, new Map(operations.map((o) => [o.operationId, o])));
  checks.registration();
  checks.scopes();
  ext.triggers.forEach((trigger, i) => checks.trigger(trigger, i));
  return ext;
}

/**
 * OpenAPI `webhooks` say what a service sends, not how to subscribe, verify or route it: without
 * the extension no trigger is made from them, and generate says so instead of staying silent.
 */
function reportUntriggeredWebhooks(context: CheckContext): void {
  const webhooks = context.doc.webhooks;
  if (typeof webhooks !== "object" || webhooks === null || Array.isArray(webhooks)) return;
  const names = Object.keys(webhooks);
  if (names.length === 0) return;
  const listed = names.length > 3 ? `${names.slice(0, 3).join(", ")} and ${names.length - 3} more` : names.join(", ");
  context.report(
    "SF156",
    ["webhooks"],
    `the spec describes ${names.length === 1 ? "a webhook" : `${names.length} webhooks`} (${listed}) but no ` +
      `${TRIGGERS_EXTENSION}, so no trigger is made from ${names.length === 1 ? "it" : "them"}; declare how ` +
      `deliveries are registered, signed and routed there (docs/spec-authoring.md, "Triggers")`,
    "warning",
  );
}

class TriggerChecks {
  private readonly names = new Set<string>();

  constructor(
    private readonly context: CheckContext,
    private readonly ext: TriggersExtension,
    private readonly operations: Map<string, SurfaceOperation>,
  ) {}

  private report(code: "SF151" | "SF152" | "SF153" | "SF154" | "SF155", path: Path, message: string): void {
    this.context.report(code, [TRIGGERS_EXTENSION, ...path], message);
  }

  /** The operation, or undefined after reporting that it does not exist. */
  private operation(id: string, path: Path): SurfaceOperation | undefined {
    const op = this.operations.get(id);
    if (!op)
      this.report("SF151", path, `operation "${id}" does not exist in this spec; name an operationId from paths`);
    return op;
  }

  private pathParam(op: SurfaceOperation, name: string, path: Path): void {
    const params = pathParamsOf(op);
    if (params.includes(name)) return;
    const known = params.length ? params.join(", ") : "none";
    this.report(
      "SF155",
      path,
      `"${name}" is not a path parameter of ${op.operationId} (${op.path}); its path parameters: ${known}`,
    );
  }

  registration(): void {
    const reg = this.ext.delivery.register;
    const at = ["delivery", "register"];
    this.operation(reg.create, [...at, "create"]);
    const list = this.operation(reg.list, [...at, "list"]);
    if (list && reg.listPathParam) this.pathParam(list, reg.listPathParam.name, [...at, "listPathParam", "name"]);
    const remove = this.operation(reg.remove, [...at, "remove"]);
    if (remove) this.pathParam(remove, reg.removeParam, [...at, "removeParam"]);
  }

  /** A scope's reference must be one the deliveries declare, when a webhook trigger filters by it. */
  scopes(): void {
    for (const [name, scope] of Object.entries(this.ext.scopes)) {
      const usedByWebhook = this.ext.triggers.some((t) => t.kind === "webhook" && t.scope === name);
      if (scope.ref && usedByWebhook && !(scope.ref in this.ext.delivery.refs)) {
        const declared = Object.keys(this.ext.delivery.refs).join(", ") || "none";
        const message = `scope "${name}" names reference "${scope.ref}", which delivery.refs does not declare`;
        this.report("SF154", ["scopes", name, "ref"], `${message} (declared: ${declared})`);
      }
    }
  }

  trigger(t: TriggerSpec, i: number): void {
    const at = ["triggers", i];
    if (this.names.has(t.name)) this.report("SF152", [...at, "name"], `trigger "${t.name}" is declared twice`);
    this.names.add(t.name);
    if (t.scope !== undefined && !(t.scope in this.ext.scopes)) {
      const declared = Object.keys(this.ext.scopes).join(", ") || "none";
      this.report("SF154", [...at, "scope"], `scope "${t.scope}" is not declared under scopes (declared: ${declared})`);
    }
    if (t.kind === "webhook") {
      t.filters.forEach((f, j) => {
        if (!(f.option in t.options)) {
          this.report(
            "SF153",
            [...at, "filters", j, "option"],
            `filter option "${f.option}" is not declared under options of ${t.name}`,
          );
        }
      });
      return;
    }
    const op = this.operation(t.listOperation, [...at, "listOperation"]);
    if (op) this.pollParams(t, op, at);
  }

  /** Every path parameter of a poll's list operation gets a value, and `{NAME}` is the trigger's own scope. */
  private pollParams(t: Exclude<TriggerSpec, { kind: "webhook" }>, op: SurfaceOperation, at: Path): void {
    for (const [name, value] of Object.entries(t.pathParams)) {
      this.pathParam(op, name, [...at, "pathParams", name]);
      const placeholder = /^\{(.+)\}$/.exec(value)?.[1];
      if (placeholder !== undefined && placeholder !== t.scope) {
        const fix = t.scope ? `write {${t.scope}}` : `give the trigger scope: ${placeholder}`;
        this.report("SF155", [...at, "pathParams", name], `"{${placeholder}}" is not this trigger's scope; ${fix}`);
      }
    }
    for (const name of pathParamsOf(op)) {
      if (!(name in t.pathParams)) {
        const hint = t.scope ? ` (the scope's values: "{${t.scope}}")` : "";
        this.report(
          "SF155",
          [...at, "pathParams"],
          `path parameter "${name}" of ${op.operationId} gets no value; add it to pathParams${hint}`,
        );
      }
    }
  }
}

function pathParamsOf(op: SurfaceOperation): string[] {
  return op.parameters.filter((p) => p.in === "path").map((p) => p.name);
}
