import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { describeMultiProcess } from "./multiprocess.js";

let root = "";
describeMultiProcess({
  name: "file (STEPFORGE_STATE_DIR)",
  env: () => ({ STEPFORGE_STATE_DIR: join(root, "state") }),
  async setUp() {
    root = mkdtempSync(join(tmpdir(), "sf-mp-state-"));
  },
  async tearDown() {
    rmSync(root, { recursive: true, force: true });
  },
  async afterChecks(secrets) {
    const names = readdirSync(join(root, "state"));
    expect(names.some((n) => n.includes("token"))).toBe(true);
    for (const secret of secrets.filter(Boolean))
      for (const name of names) expect(decodeURIComponent(name)).not.toContain(secret);
  },
});
