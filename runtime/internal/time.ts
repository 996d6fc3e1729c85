/**
 * Clocks, sleeps and calendar days in a service's own time zone (Intl only, no library).
 */

/** Waits `ms` milliseconds; rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.ceil(ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `promise`, or the signal's reason as soon as it aborts (the work itself goes on for others). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formats.set(timeZone, format);
  }
  return format;
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallClock(at: number, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of formatFor(timeZone).formatToParts(new Date(at))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour! % 24,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** The zone's offset from UTC at instant `at`, in milliseconds (wall clock minus UTC). */
function offsetAt(at: number, timeZone: string): number {
  const w = wallClock(at, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - (at - (((at % 1000) + 1000) % 1000));
}

/** The calendar day (YYYY-MM-DD) that instant `at` falls on in `timeZone`. */
export function dayIn(timeZone: string, at = Date.now()): string {
  const w = wallClock(at, timeZone);
  return `${w.year}-${String(w.month).padStart(2, "0")}-${String(w.day).padStart(2, "0")}`;
}

/** The instant of the next midnight in `timeZone` after `at` (daylight-saving aware). */
export function nextMidnight(timeZone: string, at = Date.now()): Date {
  const w = wallClock(at, timeZone);
  const guess = Date.UTC(w.year, w.month - 1, w.day + 1, 0, 0, 0);
  let instant = guess - offsetAt(guess, timeZone);
  instant = guess - offsetAt(instant, timeZone);
  return new Date(instant);
}

/** The calendar month (YYYY-MM) that instant `at` falls on in `timeZone`. */
export function monthIn(timeZone: string, at = Date.now()): string {
  const w = wallClock(at, timeZone);
  return `${w.year}-${String(w.month).padStart(2, "0")}`;
}

/** The instant of the next midnight on the 1st of a month in `timeZone` after `at` (daylight-saving aware). */
export function nextMonthStart(timeZone: string, at = Date.now()): Date {
  const w = wallClock(at, timeZone);
  // Date.UTC rolls month 13 over into January of the next year.
  const guess = Date.UTC(w.year, w.month, 1, 0, 0, 0);
  let instant = guess - offsetAt(guess, timeZone);
  instant = guess - offsetAt(instant, timeZone);
  return new Date(instant);
}

/** Throws a clear error when `timeZone` is not an IANA zone this runtime knows. */
export function checkTimeZone(timeZone: string): void {
  try {
    formatFor(timeZone);
  } catch {
    throw new Error(`unknown time zone "${timeZone}"; use an IANA name such as America/Chicago or UTC`);
  }
}
