import { defineConfig } from "vitest/config";

/**
 * Two groups run after the suites, one after the other:
 * - PACKAGE: the files that pack and install the package in temp projects (a minute of npm each,
 *   one shared tarball, packed while the suites run: test/helpers/pack-early.ts): all four at once,
 *   with nothing else running beside them — npm's installs wait on the disk and the network more
 *   than they use a core, so two at a time left CI's second core half idle;
 * - ALONE: those whose assertions need the machine to themselves — limit windows and wait orders
 *   (real windows used to ≥ 97 % by several processes), slow-sender floods, soak and multiprocess
 *   state runs: one at a time.
 * Everything else runs two files at a time (CI has 2 cores).
 */
const PACKAGE = [
  "test/consumer/**/*.test.ts",
  "test/project/new-user.test.ts",
  "test/project/new-user-ops.test.ts",
  "test/diff/consumer.test.ts",
];
const ALONE = [
  "test/runtime/limits*.test.ts",
  "test/triggers/flood.test.ts",
  "test/reliability/soak.test.ts",
  "test/state/multiprocess-*.test.ts",
];

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
        test: { name: "suites", include: ["test/**/*.test.ts"], exclude: [...PACKAGE, ...ALONE], maxWorkers: 2 },
      },
      {
        extends: true,
        test: {
          name: "package",
          include: PACKAGE,
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
          globalSetup: ["test/helpers/pack-early.ts"],
        },
      },
      {
        extends: true,
        test: { name: "alone", include: ALONE, maxWorkers: 1, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
