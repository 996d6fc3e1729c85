// Interim checker used while the specs are written: validates the x-stepforge extensions of one
// spec with the runtime's zod schemas. `stepforge lint` supersedes it.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { OperationExtensionsSchema, ServiceExtensionSchema } from "../runtime/descriptor-schemas.js";

const file = process.argv[2]!;
const doc = parse(readFileSync(file, "utf8"));
let problems = 0;
const report = (where: string, issues: { path: PropertyKey[]; message: string }[]) => {
  for (const i of issues) {
    problems++;
    console.log(`${where}.${i.path.join(".")}: ${i.message}`);
  }
};
const root = ServiceExtensionSchema.safeParse(doc["x-stepforge"]);
if (!root.success) report("x-stepforge", root.error.issues);
for (const [p, item] of Object.entries<any>(doc.paths ?? {})) {
  for (const [m, op] of Object.entries<any>(item)) {
    if (!["get", "put", "post", "delete", "patch", "head", "options"].includes(m)) continue;
    const ext = Object.fromEntries(Object.entries(op).filter(([k]) => k.startsWith("x-")));
    const r = OperationExtensionsSchema.safeParse(ext);
    if (!r.success) report(`${m.toUpperCase()} ${p}`, r.error.issues);
  }
}
console.log(problems ? `${problems} problem(s)` : "x-stepforge extensions OK");
process.exit(problems ? 1 : 0);
