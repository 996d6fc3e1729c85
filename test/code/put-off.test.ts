/**
 * PutOff (runtime/code/put-off.ts): the sandbox's worker puts a finished run's recycling off until
 * the server's thread has likely answered, and a run that comes first has it done at once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PutOff } from "../../runtime/code/put-off.js";

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe("work put off", () => {
  it("is not done at once, and is done once when its delay is over", () => {
    const done: string[] = [];
    const putOff = new PutOff(3);
    putOff.later(() => done.push("recycled"));
    expect(done).toEqual([]);
    vi.advanceTimersByTime(2);
    expect(done).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(done).toEqual(["recycled"]);
    vi.advanceTimersByTime(100);
    putOff.now();
    expect(done).toEqual(["recycled"]);
  });

  it("is done at once, and only then, when something needs it before the delay", () => {
    const done: string[] = [];
    const putOff = new PutOff(3);
    putOff.later(() => done.push("recycled"));
    putOff.now();
    expect(done).toEqual(["recycled"]);
    vi.advanceTimersByTime(100);
    expect(done).toEqual(["recycled"]);
  });

  it("is done before the next work is put off, in order", () => {
    const done: string[] = [];
    const putOff = new PutOff(3);
    putOff.later(() => done.push("first"));
    putOff.later(() => done.push("second"));
    expect(done).toEqual(["first"]);
    vi.advanceTimersByTime(3);
    expect(done).toEqual(["first", "second"]);
  });
});
