import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The JSON report feeds .ci/run's "N passed, N failed" line.
    reporters: ["default", ["json", { outputFile: ".test-results.json" }]],
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "suites",
          include: ["test/**/*.test.ts"],
          exclude: ["test/consumer/**", "test/project/new-user.test.ts"],
        },
      },
      // The consumer suites pack, install from the registry and compile in temp projects: they run
      // after every other suite, alone, so neither slows the other's processes into their timeouts.
      // They share one packed tarball (test/helpers/tarball.ts).
      {
        extends: true,
        test: {
          name: "consumer",
          include: ["test/consumer/**/*.test.ts", "test/project/new-user.test.ts"],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
