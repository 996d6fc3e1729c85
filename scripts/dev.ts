// Runs the CLI from source (no build): `npx tsx scripts/dev.ts generate`.
import { main } from "../cli/main.js";
process.exitCode = await main(process.argv.slice(2));
