import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The JSON report feeds .ci/run's "N passed, N failed" line.
    reporters: ["default", ["json", { outputFile: ".test-results.json" }]],
    pool: "forks",
    projects: [
      { extends: true, test: { name: "suites", include: ["test/**/*.test.ts"], exclude: ["test/consumer/**"] } },
      // The consumer suite packs, installs from the registry and compiles in temp projects: it runs
      // after every other suite, alone, so neither slows the other's processes into their timeouts.
      { extends: true, test: { name: "consumer", include: ["test/consumer/**/*.test.ts"], sequence: { groupOrder: 1 } } },
    ],
  },
});
