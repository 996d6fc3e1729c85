/**
 * The order test files start in (vitest.config.ts's `sequence.sequencer`): the files that take the
 * most CPU first, so that no long file starts near the end of its group and runs on alone while the
 * other workers have nothing left to take.
 *
 * vitest orders by the durations of earlier runs when it has them (a checkout that ran the tests
 * before), and otherwise, as in CI's fresh clone, largest file first. A file's size says little
 * about its cost: the corpus file (9 KB) generates and type-checks ~13 MB of TypeScript, while
 * larger files run in a second. Measured CPU of the suites' files (their own process and the
 * processes they spawned, 3 workers, 2026-11-29) put these first: 80, 76, 43, 35, 28, 27, 24, 23,
 * 22, 21, 16, 15 and 15 s; no other file took more than 11 s.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

export const LONG_FIRST = [
  "test/corpus/corpus.test.ts",
  "test/project.test.ts",
  "test/project/typescript7.test.ts",
  "test/contract/prism.test.ts",
  "test/code/attacks.test.ts",
  "test/project/typescript6.test.ts",
  "test/code/inspector.test.ts",
  "test/reliability/fuzz-spec/validator.test.ts",
  "test/reliability/secret-leak.test.ts",
  "test/generator/pipeline.test.ts",
  "test/mock/sample.test.ts",
  "test/observe/call-log-shared.test.ts",
  "test/mock/cli.test.ts",
];

export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONG_FIRST.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return index === -1 ? LONG_FIRST.length : index;
    };
    const position = new Map(sorted.map((file, index) => [file, index]));
    // Within a project only: the groups' order and each project's place in it stay vitest's.
    return [...sorted].sort((a, b) => {
      const sameProject = a.project.name === b.project.name;
      return (sameProject ? rank(a) - rank(b) : 0) || position.get(a)! - position.get(b)!;
    });
  }
}
