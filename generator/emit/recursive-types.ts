/**
 * Recursive schemas that TypeScript cannot resolve as openapi-typescript prints them.
 *
 * openapi-typescript writes every schema as a member of `interface components { schemas: { … } }` and
 * every `$ref` as an indexed access into it. A reference inside an object type (`{ next?: … }`) is
 * resolved lazily, so `Node: { kids?: components["schemas"]["Node"][] }` is fine; but a union, array
 * or tuple at a schema's top is resolved when the member is, so a schema that reaches itself that
 * way (`Json: string | components["schemas"]["Json"][]`, or `Expr` ↔ `Term`) is "referenced directly
 * or indirectly in its own type annotation" (TS2502) and types as `any`.
 *
 * TypeScript defers array and tuple elements only inside a type alias, and only when they name an
 * alias. So each schema on such a cycle becomes a named alias (`type SchemaJson = string |
 * SchemaJson[]`), its references to the cycle's schemas name those aliases, and its member in
 * `components` points at its alias: `components["schemas"]["Json"]` is the same type as before.
 */
import type TypeScript from "typescript";
import { ts } from "../compiler.js";
import { changeFirst, NameTable, toIdentifier } from "../names.js";
import { stronglyConnected } from "../graph.js";

const factory = ts.factory;

/** The schema name `node` refers to when it is `components["schemas"]["Name"]`. */
function schemaReference(node: TypeScript.Node): string | undefined {
  if (!ts.isIndexedAccessTypeNode(node) || !ts.isIndexedAccessTypeNode(node.objectType)) return undefined;
  const { objectType: root, indexType: section } = node.objectType;
  if (!ts.isTypeReferenceNode(root) || !ts.isIdentifier(root.typeName) || root.typeName.text !== "components")
    return undefined;
  if (!isStringLiteralType(section, "schemas")) return undefined;
  return ts.isLiteralTypeNode(node.indexType) && ts.isStringLiteral(node.indexType.literal)
    ? node.indexType.literal.text
    : undefined;
}

function isStringLiteralType(node: TypeScript.TypeNode, text: string): boolean {
  return ts.isLiteralTypeNode(node) && ts.isStringLiteral(node.literal) && node.literal.text === text;
}

/** The schemas `type` needs resolved to be resolved itself: all but those inside object types. */
function eagerReferences(type: TypeScript.TypeNode): Set<string> {
  const found = new Set<string>();
  const visit = (node: TypeScript.Node): void => {
    const name = schemaReference(node);
    if (name !== undefined) found.add(name);
    // Members of object types and signatures are resolved on use, which breaks any cycle.
    else if (!ts.isTypeLiteralNode(node) && !ts.isFunctionTypeNode(node) && !ts.isConstructorTypeNode(node))
      ts.forEachChild(node, visit);
  };
  visit(type);
  return found;
}

/** The schemas that lie on a cycle of eager references (a component of several, or one naming itself). */
function onCycles(edges: ReadonlyMap<string, ReadonlySet<string>>): Set<string> {
  return new Set(
    stronglyConnected(edges)
      .filter((component) => component.length > 1 || edges.get(component[0]!)!.has(component[0]!))
      .flat(),
  );
}

function memberName(member: TypeScript.TypeElement): string | undefined {
  if (!ts.isPropertySignature(member) || !member.name) return undefined;
  return ts.isIdentifier(member.name) || ts.isStringLiteral(member.name) ? member.name.text : undefined;
}

/** `type` with every reference to a schema in `aliases` naming its alias instead. */
function renameReferences(type: TypeScript.TypeNode, aliases: ReadonlyMap<string, string>): TypeScript.TypeNode {
  const result = ts.transform(type, [
    (context) => (root) => {
      const visit = (node: TypeScript.Node): TypeScript.Node => {
        const alias = aliases.get(schemaReference(node) ?? "");
        if (alias !== undefined) return factory.createTypeReferenceNode(alias);
        return ts.visitEachChild(node, visit, context);
      };
      return ts.visitNode(root, visit) as TypeScript.TypeNode;
    },
  ]);
  const [renamed] = result.transformed;
  result.dispose();
  return renamed!;
}

/** A spec's name inside a block comment: a `*\/` in it would end the comment. */
function commentSafe(text: string): string {
  return text.replace(/\*\//g, "*\\/");
}

function declaredName(node: TypeScript.Node): string | undefined {
  if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node))
    return node.name.text;
  return undefined;
}

/**
 * The nodes openapi-typescript printed, with each schema on an eager reference cycle moved to a
 * named alias after `components`. Nodes without such a cycle come back unchanged (the same array).
 */
export function nameRecursiveSchemas(nodes: TypeScript.Node[]): TypeScript.Node[] {
  const at = nodes.findIndex((n) => ts.isInterfaceDeclaration(n) && n.name.text === "components");
  const components = nodes[at] as TypeScript.InterfaceDeclaration | undefined;
  const section = components?.members.find((m) => memberName(m) === "schemas") as
    | TypeScript.PropertySignature
    | undefined;
  if (!components || !section?.type || !ts.isTypeLiteralNode(section.type)) return nodes;
  const schemas = section.type;

  const edges = new Map<string, Set<string>>();
  for (const member of schemas.members) {
    const name = memberName(member);
    const type = (member as TypeScript.PropertySignature).type;
    if (name !== undefined && type) edges.set(name, eagerReferences(type));
  }
  const cyclic = onCycles(edges);
  if (cyclic.size === 0) return nodes;

  const names = new NameTable(nodes.map(declaredName).filter((n) => n !== undefined));
  const aliases = new Map<string, string>();
  for (const name of edges.keys()) {
    if (!cyclic.has(name)) continue;
    const wanted = `Schema${changeFirst(toIdentifier(name, "schema"), (c) => c.toUpperCase())}`;
    aliases.set(name, names.claim(wanted, `schema "${name}"`).name);
  }

  const declarations: TypeScript.TypeAliasDeclaration[] = [];
  const members = schemas.members.map((member) => {
    const alias = aliases.get(memberName(member) ?? "");
    const property = member as TypeScript.PropertySignature;
    if (alias === undefined || !property.type) return member;
    const declaration = factory.createTypeAliasDeclaration(
      [factory.createModifier(ts.SyntaxKind.ExportKeyword)],
      alias,
      undefined,
      renameReferences(property.type, aliases),
    );
    ts.addSyntheticLeadingComment(
      declaration,
      ts.SyntaxKind.MultiLineCommentTrivia,
      `* components["schemas"][${commentSafe(JSON.stringify(memberName(member)))}], ` +
        "named so TypeScript defers its recursion. ",
      true,
    );
    declarations.push(declaration);
    return factory.updatePropertySignature(
      property,
      property.modifiers,
      property.name,
      property.questionToken,
      factory.createTypeReferenceNode(alias),
    );
  });
  const newSection = factory.updatePropertySignature(
    section,
    section.modifiers,
    section.name,
    section.questionToken,
    factory.updateTypeLiteralNode(schemas, factory.createNodeArray(members)),
  );
  const newComponents = factory.updateInterfaceDeclaration(
    components,
    components.modifiers,
    components.name,
    components.typeParameters,
    components.heritageClauses,
    components.members.map((m) => (m === section ? newSection : m)),
  );
  return [...nodes.slice(0, at), newComponents, ...declarations, ...nodes.slice(at + 1)];
}

/**
 * The same for types.ts as text: `stepforge diff` writes its declarations without openapi-typescript
 * (generator/diff/declarations.ts), and its checker would read such a schema as `any` too.
 */
export function nameRecursiveSchemasInText(text: string): string {
  const file = ts.createSourceFile("types.ts", text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const statements = [...file.statements];
  const named = nameRecursiveSchemas(statements);
  if (named === statements) return text;
  const printer = ts.createPrinter();
  return `${named.map((node) => printer.printNode(ts.EmitHint.Unspecified, node, file)).join("\n")}\n`;
}
