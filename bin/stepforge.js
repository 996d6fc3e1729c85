#!/usr/bin/env node
// The stepforge command: runs the compiled CLI in dist/ (a packed or published copy carries it;
// in a checkout, `npm run build` or `make build` writes it).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    "stepforge: this copy has no build (dist/ is missing): in a checkout of stepforge run `npm ci && npm run build`; " +
      "to use stepforge in another project install a packed tarball (`npm pack` in the " +
      "checkout) or the published package\n",
  );
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
