/**
 * The generate-time cost of a plain spec's mock: checking every success example against its schema
 * (the example the mock serves) with the sampler's own checker (runtime/mock/problem.ts) beside Ajv compiling each
 * schema
 * (the mock's request validator, the obvious alternative), and the whole check stage, on public
 * specs: the official Trello spec, the World News spec and GitHub's REST description when it is
 * cached (by `bench/generate.ts` or `bench/corpus.ts`, or by the corpus test).
 *
 *   npx tsx bench/mock-inference.ts [--quick]
 *
 * In process, median of 3 (1 with --quick) after a warm-up run; --quick leaves GitHub out.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { checkSpec } from "../generator/check/index.js";
import { loadSpecFile } from "../generator/load.js";
import { lean } from "../generator/schema.js";
import { RefResolver, type Json } from "../generator/refs.js";
import { ProblemFinder } from "../runtime/mock/problem.js";
import { pointerResolver } from "../runtime/mock/sample.js";
import { RequestValidator } from "../runtime/mock/validate.js";
import { CORPUS_CACHE } from "./lib/corpus-specs.js";
import { machineLine, median, ratio, table } from "./lib/report.js";

const ROOT = join(import.meta.dirname, "..");
const { values } = parseArgs({ options: { quick: { type: "boolean", default: false } } });
const ROUNDS = values.quick ? 1 : 3;

const github = [
  join(CORPUS_CACHE, "octokit-openapi-23.0.2", "package", "generated", "api.github.com.json"),
  join(ROOT, "node_modules", ".cache", "stepforge-corpus", "octokit-openapi-23.0.2", "api.github.com.json"),
].find(existsSync);
const specs = [
  { name: "Trello (official, 255 operations)", file: join(ROOT, "test", "corpus", "specs", "trello-openapi.json") },
  {
    name: "World News (public, 8 operations)",
    file: join(ROOT, "test", "corpus", "specs", "world-news-api-openapi-3.json"),
  },
  ...(github && !values.quick ? [{ name: "GitHub REST (1,223 operations)", file: github }] : []),
];

/** Each JSON success response's schema and its examples, as the check stage reads them. */
function examplesOf(doc: Json): Array<{ key: string; schema: unknown; value: unknown }> {
  const refs = new RefResolver(doc);
  const out: Array<{ key: string; schema: unknown; value: unknown }> = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      const responses = (op as Json | undefined)?.responses as Record<string, unknown> | undefined;
      const code = Object.keys(responses ?? {})
        .filter((c) => /^2\d\d$/.test(c))
        .sort()[0];
      if (!code) continue;
      const media = (refs.deref(responses![code]).content as Record<string, Json> | undefined)?.["application/json"];
      if (!media?.schema) continue;
      const values = [
        ...(media.example !== undefined ? [media.example] : []),
        ...Object.values((media.examples as Record<string, unknown>) ?? {}).map((e) => refs.deref(e).value),
      ];
      values.forEach((value, i) => out.push({ key: `${method} ${path} ${i}`, schema: media.schema, value }));
    }
  }
  return out;
}

function timed(run: () => number): { ms: number; result: number } {
  run(); // warm-up
  const times: number[] = [];
  let result = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    result = run();
    times.push(performance.now() - t);
  }
  return { ms: median(times), result };
}

const rows: string[][] = [];
for (const spec of specs) {
  const doc = JSON.parse(readFileSync(spec.file, "utf8")) as Json;
  const examples = examplesOf(doc);
  const refs = new RefResolver(doc);
  const components = lean(refs.inlineOutside(doc.components ?? {}));
  const checker = timed(() => {
    const finder = new ProblemFinder(pointerResolver(doc));
    return examples.filter((e) => finder.find(e.schema, e.value) !== undefined).length;
  });
  const ajv = timed(() => {
    const validator = new RequestValidator(components);
    return examples.filter((e) => !validator.accepts(e.key, lean(refs.inlineOutside(e.schema)), e.value)).length;
  });
  const loaded = loadSpecFile(spec.file);
  const check = timed(() => checkSpec(loaded, { serviceId: "bench" }).operations.length);
  rows.push([
    spec.name,
    String(examples.length),
    `${checker.ms.toFixed(0)} ms (${checker.result} invalid)`,
    `${ajv.ms.toFixed(0)} ms (${ajv.result} invalid)`,
    ratio(checker.ms, ajv.ms),
    `${check.ms.toFixed(0)} ms`,
  ]);
}

console.log(`Plain spec mocks at generate time · ${machineLine()} · median of ${ROUNDS}\n`);
console.log(
  table(["spec", "examples", "sampler's checker", "Ajv per schema", "checker / Ajv", "whole check stage"], rows),
);
console.log(
  "\nInvalid counts differ where the two read a schema differently: Ajv here is the mock's request dialect " +
    "(a readOnly field not required, oneOf read as anyOf); the check stage reads answers as answers.",
);
