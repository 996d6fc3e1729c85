import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The JSON report feeds .ci/run's "N passed, N failed" line.
    reporters: ["default", ["json", { outputFile: ".test-results.json" }]],
    pool: "forks",
  },
});
