/**
 * README.md of a service: operations, connection, auth, limits and error meanings, rendered from
 * the model with the Handlebars template in templates/. The template only lays out values; every
 * decision (what a limit budget reads like, which rules exist) is made here.
 *
 * Markdown, not HTML: the template is compiled without HTML escaping (Handlebars would turn the
 * backticks of a code span into `&#x60;`); table cells go through `cell`, which keeps a value on
 * one line and its pipes from ending the cell. The import path and the regenerate command are the
 * user's (EmitContext), not this package's, when the output is a project's.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Handlebars from "handlebars";
import type { LimitSpec, PagingSpec, ServiceDescriptor } from "../../runtime/descriptor.js";
import { packageRoot } from "../package-root.js";
import { markdownHeader, pascal, type Emitter } from "./file.js";

let template: Handlebars.TemplateDelegate | undefined;

function cell(text: string): string {
  return text
    .replace(/\r?\n+/g, " ")
    .replace(/\|/g, "\\|")
    .trim();
}

function budget(limit: LimitSpec): string {
  switch (limit.kind) {
    case "window":
      return `${limit.requests} / ${limit.windowSeconds} s`;
    case "concurrency":
      return `${limit.max} in flight`;
    case "daily-quota":
      return `${limit.requests} / day (resets midnight ${limit.resetTimeZone})`;
    case "monthly-quota":
      return `${limit.requests} / month (resets midnight on the 1st, ${limit.resetTimeZone})`;
    case "header-quota":
      return `from \`${limit.remainingHeader}\` (resets midnight ${limit.resetTimeZone})`;
  }
}

function pagingLabel(p: PagingSpec): string {
  if (p.style === "token") return `token \`${p.tokenParam}\``;
  if (p.style === "page") return `page \`${p.pageParam}\`${p.sizeParam ? `/\`${p.sizeParam}\`` : ""}`;
  return `offset \`${p.offsetParam}\`/\`${p.limitParam}\``;
}

function authSummary(d: ServiceDescriptor): string {
  const a = d.auth;
  switch (a.kind) {
    case "none":
      return "No credentials.";
    case "api-key":
      return Object.entries(a.modes)
        .map(
          ([mode, ps]) =>
            `- mode \`${mode}\`${mode === a.defaultMode ? " (default)" : ""}: ` +
            `${ps.map((p) => `${p.in} \`${p.name}\``).join(" + ")}`,
        )
        .join("\n");
    case "oauth2-client-credentials":
      return (
        `OAuth 2.0 client credentials: token from \`${a.tokenUrl}\` (${a.tokenMethod}, ` +
        `credentials in ${a.credentialsIn}), renewed ${a.renewBeforeSeconds} s before it ` +
        `expires; sent as ${a.send.in} \`${a.send.name}\`.`
      );
    case "oauth2-authorization-code":
      return (
        `OAuth 2.0 authorization code: authorize at \`${a.authorizeUrl}\`, tokens from ` +
        `\`${a.tokenUrl}\`${a.scopes.length ? ` (scopes ${a.scopes.map((s) => `\`${s}\``).join(", ")})` : ""}; ` +
        `access token renewed ${a.renewBeforeSeconds} s before it expires` +
        `${a.rotatesRefreshToken ? ", refresh token rotated on every renewal" : ""}; sent ` +
        `as ${a.send.in} \`${a.send.name}\`.`
      );
  }
}

/** The mock's entry beside a service's: `<pkg>/<id>/mock`, or `…/<id>/mock.js` beside a path's `…/<id>/index.js`. */
function mockImportOf(moduleImport: string): string {
  return moduleImport.endsWith("/index.js") ? moduleImport.replace(/\/index\.js$/, "/mock.js") : `${moduleImport}/mock`;
}

/** The README's mock section: what was inferred for a mock the spec does not declare (none otherwise). */
function mockSection(model: Parameters<Emitter>[0]) {
  const explain = model.mockExplain;
  if (!explain.inferred) return undefined;
  const code = (text: string | undefined) => (text ? cell(text.replace(/`/g, "'")) : "");
  return {
    auth: code(explain.auth),
    errors: explain.errors.map(code),
    operations: explain.operations.map((o) => ({
      operationId: o.operationId,
      does: code(o.resource ? `${o.action} ${o.resource}` : o.action),
      record: code([o.id, o.parent && `under ${o.parent}`].filter(Boolean).join("; ")),
      answer: code([o.envelope, o.note].filter(Boolean).join("; ")),
      paging: code(o.paging),
    })),
  };
}

export const emitReadme: Emitter = (model, context) => {
  template ??= Handlebars.compile(readFileSync(join(packageRoot(), "templates", "service-readme.md.hbs"), "utf8"), {
    noEscape: true,
  });
  const d = model.descriptor;
  const rules = [
    ...Object.entries(d.errors.statuses).map(([k, r]) => ({ when: `HTTP ${k}`, ...r })),
    ...Object.entries(d.errors.codes).map(([k, r]) => ({ when: `code \`${k}\``, ...r })),
  ].map((r) => ({ ...r, description: cell(r.description) }));
  const content = template({
    header: markdownHeader(context.specLabel, context.commands?.generate).trimEnd(),
    id: model.id,
    moduleImport: context.moduleImport ?? `stepforge/${model.id}`,
    mockImport: mockImportOf(context.moduleImport ?? `stepforge/${model.id}`),
    commands: context.commands && {
      generate: context.commands.generate,
      scope: context.commands.scope ? ` ${context.commands.scope}` : "",
      intro: context.commands.scope
        ? "Run these in the folder the spec path is relative to:"
        : "Run these where the project's `stepforge.config.*` is:",
    },
    // A step `call --mock` can run with no input: a read without required fields.
    sampleStep: model.toolSteps.find((t) => t.annotations.readOnlyHint && t.fields.every((f) => !f.required))?.name,
    title: cell(model.title),
    className: `${pascal(model.id)}Client`,
    pascalId: pascal(model.id),
    description: model.description,
    specLabel: context.specLabel,
    version: model.version,
    operationCount: model.operations.length,
    baseUrl: d.connection.baseUrl,
    connectionFields: Object.entries(d.connection.fields).map(([name, f]) => ({
      name,
      ...f,
      description: cell(f.description),
    })),
    authSummary: authSummary(d),
    limits: d.limits.map((l) => ({
      ...l,
      budget: budget(l),
      description: cell(l.description),
      rejection: l.rejection.code ? `code ${l.rejection.code}` : `HTTP ${l.rejection.status}`,
    })),
    envelope: d.errors.envelope,
    errorRules: rules,
    operations: model.operations.map((op) => ({
      ...op,
      path: cell(op.path),
      summary: cell(op.summary),
      paging: op.paging ? pagingLabel(op.paging) : "",
    })),
    mock: mockSection(model),
    seedNotes: model.operations
      .filter((op) => op.seed?.differs)
      .map((op) => ({ operationId: op.operationId, name: op.seed!.name, differs: cell(op.seed!.differs!) })),
  });
  return [{ path: `${model.id}/README.md`, content: content.replace(/\n{3,}/g, "\n\n").trimEnd() + "\n" }];
};
