import { defineConfig } from "vitest/config";
import { LongFirstSequencer } from "./test/helpers/long-first.js";

/**
 * Two groups run after the suites, one after the other:
 * - PACKAGE: the files that pack and install the package in temp projects (a minute of npm each,
 *   one shared tarball, packed while the suites run: test/helpers/pack-early.ts): all four at once,
 *   with nothing else running beside them — npm's installs wait on the disk and the network more
 *   than they use a core, so two at a time left CI's second core half idle;
 * - ALONE: those whose assertions need the machine to themselves — limit windows and wait orders
 *   (real windows used to ≥ 97 % by several processes), slow-sender floods, soak and multiprocess
 *   state runs: one at a time.
 * Everything else runs three files at a time on CI's 2 cores, in worker processes that each take
 * file after file without reloading the modules (isolate: false). A fresh process per file
 * imported everything again first: in a fresh-clone run the suites took 687 s, 117 s of it with no
 * file running at all; without isolation they took 372–545 s here. Two workers kept the cores 72 %
 * busy (files wait on servers, child processes and the disk); three keep them 97–99 % busy, and with
 * the longest files started first (test/helpers/long-first.ts) the suites took 358–387 s. The few
 * files that need a process of their own (ISOLATED) get one, beside the package group.
 */
const PACKAGE = [
  "test/consumer/**/*.test.ts",
  "test/project/new-user.test.ts",
  "test/project/new-user-ops.test.ts",
  "test/diff/consumer.test.ts",
];
/**
 * Files that must not share a process with other files: a module mocked with vi.mock, a check that
 * the program never loaded stepforge/runtime/state (another file in the process would have), and
 * one that measures its own thread's CPU while it sleeps (an earlier file's leftover work on the
 * shared thread counted 120 ms in a 300 ms sleep in a fresh-clone run; the bound is 100 ms).
 */
const ISOLATED = [
  "test/observe/call-log-client.test.ts",
  "test/runtime/weight.test.ts",
  "test/runtime/thread-cpu.test.ts",
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
    // The files that take the most CPU start first (a fresh clone has no durations to order by).
    sequence: { sequencer: LongFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: "suites",
          include: ["test/**/*.test.ts"],
          exclude: [...PACKAGE, ...ISOLATED, ...ALONE],
          maxWorkers: 3,
          isolate: false,
        },
      },
      {
        extends: true,
        // In the package group's pool (vitest wants one maxWorkers per group): two short files.
        test: { name: "isolated", include: ISOLATED, maxWorkers: 4, sequence: { groupOrder: 1 } },
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
