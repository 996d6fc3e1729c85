#!/usr/bin/env node
// The stepforge command: runs the compiled CLI (npm install builds it into dist/).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write("stepforge: dist/ is missing; run `npm run build` (npm install does it) first\n");
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
