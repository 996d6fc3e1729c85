/**
 * The lint tests' specs: test/lint/fixtures/bookshelf.yaml (a plain spec that lints clean) and one
 * spec per defect made from it by a single edit, written to test/.tmp/lint/. Each edit must match
 * exactly once, so a change to the base cannot quietly turn a fixture into the clean spec.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../generator/package-root.js";

export const FIXTURES = join(packageRoot(), "test", "lint", "fixtures");
const OUT = join(packageRoot(), "test", ".tmp", "lint");

export const base = (): string => readFileSync(join(FIXTURES, "bookshelf.yaml"), "utf8");

/** `text` with `from` (found exactly once) replaced by `to`. */
export function edit(text: string, from: string, to: string): string {
  const count = text.split(from).length - 1;
  if (count !== 1) throw new Error(`fixture edit: expected one ${JSON.stringify(from)}, found ${count}`);
  return text.replace(from, () => to);
}

/** The base with an `x-stepforge` block added before `security:` (a partial extension). */
export function withExtension(text: string, block: string): string {
  return edit(text, "security:\n", `${block.trimEnd()}\nsecurity:\n`);
}

/** A partial extension that only names the service: the spec becomes strict, nothing else changes. */
export const NAMED = "x-stepforge:\n  id: bookshelf";

export interface Fixture {
  name: string;
  text: string;
  /** What the fixture shows, for the test names. */
  about: string;
}

export const LIMITS_ONLY = `x-stepforge:
  limits:
    - id: perSecond
      kind: window
      requests: 10
      windowSeconds: 1
      description: ten a second
      rejection: { status: 429 }`;

/** Five problems, each with a near name to suggest. */
export const FIVE_PROBLEMS = `x-stepforge:
  id: bookshelf
  connection:
    baseUrl: https://api.bookshelf.example
    fields:
      apiKey: { description: the API key, secrt: true }
  auth:
    kind: api-key
    modes:
      header: [{ in: header, name: x-api-key, value: "{apiKy}" }]
    defaultMode: header
  limits:
    - id: daily
      kind: daly-quota
      requests: 1000
      resetTimeZone: UTC
      description: a day
      rejection: { status: 429 }
    - id: perBook
      kind: window
      requests: 5
      windowSeconds: 1
      per: "path:bokId"
      description: per book
      rejection: { status: 429 }
  errors:
    statuses:
      "429": { kind: rate_limit, retry: true, description: slow down }`;

export function fixtures(): Fixture[] {
  const b = base();
  return [
    { name: "clean", about: "a plain spec without defects", text: b },
    {
      name: "path-param-not-required",
      about: "a path parameter without required: true (generate repairs it)",
      text: edit(b, "          in: path\n          required: true\n", "          in: path\n"),
    },
    {
      name: "enum-example",
      about: "an example whose enum value the enum does not list",
      text: edit(
        b,
        "example: { id: b1, title: Neuromancer, format: paperback }",
        "example: { id: b1, title: Neuromancer, format: scroll }",
      ),
    },
    {
      name: "no-version",
      about: "info.version missing (Spectral's oas3-schema; generate does not need it)",
      text: edit(b, "  version: 1.0.0\n", ""),
    },
    {
      name: "undeclared-path-param",
      about: "an in: path parameter the path does not have (no repair)",
      text: edit(
        b,
        "        - name: page\n          in: query",
        "        - name: shelfId\n          in: path\n          required: true\n          schema: { type: string }\n" +
          "        - name: page\n          in: query",
      ),
    },
    {
      name: "strict-missing-operation-id",
      about: "a strict spec with an operation without operationId (repair refused)",
      text: withExtension(edit(b, "      operationId: getBook\n", ""), NAMED),
    },
    {
      name: "ref-typo",
      about: "a $ref typo in a strict spec",
      text: withExtension(
        edit(b, '$ref: "#/components/schemas/NewBook"', '$ref: "#/components/schemas/NewBok"'),
        NAMED,
      ),
    },
    {
      name: "misindented",
      about: "one mis-indented YAML line",
      text: edit(b, "          description: A book\n", "         description: A book\n"),
    },
    { name: "limits-only", about: "a partial extension with only limits", text: withExtension(b, LIMITS_ONLY) },
    { name: "five-problems", about: "an extension with five problems", text: withExtension(b, FIVE_PROBLEMS) },
  ];
}

/**
 * Writes every fixture to test/.tmp/lint/NAME.yaml; returns the file of each by name. Each gets a
 * title of its own, so its derived service id is its own too: lint, like generate, refuses two
 * specs of one run that share an id (SF141).
 */
export function writeFixtures(): Map<string, string> {
  mkdirSync(OUT, { recursive: true });
  const files = new Map<string, string>();
  for (const f of fixtures()) {
    const file = join(OUT, `${f.name}.yaml`);
    writeFileSync(
      file,
      f.text.replace("  title: Bookshelf API\n", `  title: Bookshelf ${f.name.replace(/-/g, " ")}\n`),
    );
    files.set(f.name, file);
  }
  return files;
}
