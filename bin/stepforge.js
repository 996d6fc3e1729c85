#!/usr/bin/env node
// The stepforge command: runs the compiled CLI (npm install builds it into dist/).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write("stepforge: dist/ is missing; run `npm run build` (npm install does it) first\n");
  process.exit(1);
}
// `stepforge ... | head` closes stdout early: that ends the output, it is not a crash.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
