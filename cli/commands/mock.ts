/**
 * `stepforge mock SERVICE|all [options] [--spec FILE]... [--project DIR]`
 *
 * Starts the behavioural mock (default) or a Prism contract mock of one service or of every
 * service in scope (the project's, the --spec files', else the bundled ones; a bundled one is
 * also reachable by id from a project), on 127.0.0.1, prints one line per server (`<service> <kind> <url>`), and runs
 * until
 * SIGINT or SIGTERM, then stops every server and child process it started.
 *
 * Everything `startMock` takes can be set here (see MOCK_USAGE): limits off or scaled, seeded
 * faults and latency, token lifetime, the webhook secret, a state file to start from and one to
 * dump the state into at the end.
 *
 * Fail fast: when one mock cannot listen, every server already started is stopped and the command
 * exits 1 naming the port. A spec that does not load stops only its own service's mock: `mock
 * worldnews` does not read the Trello spec's errors, and `mock all` starts the others and says
 * which one it left out.
 *
 * Default ports come from the config's `mock.port`, else each spec's `x-stepforge.mock.ports`; a
 * spec without them gets 4120+i / 4020+i. With `--port N` and `all`, the services take N, N+1, … in name order (all of
 * them at most 65535); with `--port 0` each takes a free port of its own.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { formatDiagnostic, SpecError } from "../../generator/diagnostics.js";
import { loadSpecFile } from "../../generator/load.js";
import { checkSpec } from "../../generator/check/index.js";
import type { FaultOptions } from "../../runtime/mock/faults.js";
import {
  loadMock,
  startMockServer,
  startPrism,
  type MockDefinition,
  type MockOptions,
  type MockState,
  type RunningMock,
} from "../../runtime/mock/index.js";
import { flagsAndWordsOf, numberFlag, PORT, SCOPE_OPTIONS, switchFlags, valueFlags } from "../flags.js";
import { pickService, reachable, resolveScope, type Scope, scopeOfSpecFiles, type ServiceSource } from "../project.js";
import { loadMockDefinition } from "../services.js";
import { createReplayer } from "../../runtime/mock/replay.js";
import { type HarEntry, readHar } from "../../runtime/observe/har.js";
import { UsageError } from "../usage.js";
import type { MockExplain } from "../../generator/model.js";
import { explainText } from "./mock-explain.js";
import type { ServingCommand } from "../command.js";

export const MOCK_USAGE =
  "stepforge mock SERVICE|all [--spec FILE]... [--port N] [--prism [--errors]] " +
  "[--no-limits | --limits-scale X] [--faults error=R,drop=R,slow=R] [--latency " +
  "MS[@RATE]] [--seed N] [--token-lifetime SECONDS] [--webhook-secret " +
  "S|$STEPFORGE_WEBHOOK_SECRET] [--state FILE] [--dump-state FILE] [--replay FILE.har] " +
  "[--explain]";

interface Target {
  id: string;
  specFile: string;
  port: number;
  source: ServiceSource;
  /** A project's or --spec service: its mock, built from the spec. */
  definition?: MockDefinition;
  explain?: MockExplain | undefined;
  /** Why the spec did not load (the service is then not started). */
  problem?: string;
}

/** Every spec of the scope, each loaded on its own: one broken file does not hide the others. */
type Loaded = {
  id: string;
  file: string;
  source: ServiceSource;
  ports?: { mock: number; prism: number } | undefined;
  definition?: MockDefinition;
  problem?: string;
  explain?: MockExplain;
};
/** Bundled specs already read in this process, by file, size and change time (tests start many mocks). */
const loaded = new Map<string, { stamp: string; spec: Loaded }>();

const problemOf = (error: unknown) =>
  error instanceof SpecError ? error.diagnostics.map(formatDiagnostic).join("\n") : (error as Error).message;

async function loadTarget(source: ServiceSource): Promise<Loaded> {
  if (source.origin !== "bundled") {
    try {
      const definition = await loadMockDefinition(source);
      return { id: source.id, file: source.specFile, source, ports: definition.mock.ports, definition };
    } catch (error) {
      return { id: source.id, file: source.specFile, source, problem: problemOf(error) };
    }
  }
  const file = source.specFile;
  const st = statSync(file);
  const stamp = `${st.size}:${st.mtimeMs}`;
  const hit = loaded.get(file);
  if (hit?.stamp === stamp) return hit.spec;
  let spec: Loaded;
  try {
    const model = checkSpec(loadSpecFile(file));
    spec = { id: source.id, file, source, ports: model.mock.ports, explain: model.mockExplain };
  } catch (error) {
    spec = { id: source.id, file, source, problem: problemOf(error) };
  }
  loaded.set(file, { stamp, spec });
  return spec;
}

export async function mockTargets(
  which: string,
  options: { prism: boolean; port?: number | undefined },
  scope: Scope,
): Promise<Target[]> {
  const chosenSources = which === "all" ? scope.services : [pickService(scope, which)];
  const all = [];
  for (const source of chosenSources) all.push(await loadTarget(source));
  all.sort((a, b) => a.id.localeCompare(b.id));
  const chosen = all;
  const base = options.port;
  const last = base === undefined ? 0 : base + chosen.length - 1;
  if (base !== undefined && base !== 0 && last > 65535) {
    throw new UsageError(
      `--port ${base}: the ${chosen.length} services need ports ${base}-${last}, past ` +
        `65535; give --port ${65536 - chosen.length} or lower, or --port 0 for free ports`,
    );
  }
  // A service without ports of its own takes 4120+i (4020+i for Prism), i its place in the scope.
  const place = (id: string) =>
    Math.max(
      0,
      reachable(scope).findIndex((s) => s.id === id),
    );
  return chosen.map((s, i) => {
    const fallback = (options.prism ? 4020 : 4120) + place(s.id);
    const declared = options.prism ? s.ports?.prism : (s.source.mockPort ?? s.ports?.mock);
    // 0 asks the system for a free port; 0+i would ask for ports 1, 2, 3 (privileged, or taken).
    const port = base !== undefined ? (base === 0 ? 0 : base + i) : (declared ?? fallback);
    return {
      id: s.id,
      specFile: s.file,
      port,
      source: s.source,
      ...(s.definition ? { definition: s.definition } : {}),
      explain: s.explain,
      ...(s.problem ? { problem: s.problem } : {}),
    };
  });
}

const rate = (flag: string, raw: string): number =>
  numberFlag(flag, raw, { what: "a rate between 0 and 1", min: 0, max: 1 })!;

/** `error=0.1,drop=0.05,slow=0.1` (slow bodies pause 5 ms per 16 bytes). */
export function parseFaults(raw: string): Omit<FaultOptions, "seed" | "latency"> {
  const out: Omit<FaultOptions, "seed" | "latency"> = {};
  for (const part of raw.split(",").filter(Boolean)) {
    const [name, value] = part.split("=", 2) as [string, string | undefined];
    if (value === undefined) throw new UsageError(`--faults takes name=rate pairs (error, drop, slow), got "${part}"`);
    if (name === "error") out.error = { rate: rate("--faults error", value) };
    else if (name === "drop") out.drop = { rate: rate("--faults drop", value) };
    else if (name === "slow") out.slowBody = { rate: rate("--faults slow", value), delayMs: 5 };
    else
      throw new UsageError(
        `--faults: unknown fault "${name}"; use error, drop or slow (latency has its own --latency MS[@RATE])`,
      );
  }
  return out;
}

/** `50` (every request) or `50@0.2` (a fifth of them). */
export function parseLatency(raw: string): { ms: number; rate: number } {
  const [ms, r] = raw.split("@", 2) as [string, string | undefined];
  const delay = numberFlag("--latency", ms, {
    what: "milliseconds (0-600000), optionally @RATE",
    min: 0,
    max: 600_000,
  })!;
  return { ms: delay, rate: r === undefined ? 1 : rate("--latency rate", r) };
}

/** The state file: `{"<service>": {"records": {"<resource>": [...]}, "relations": {...}}}`. */
function readState(file: string): Record<string, MockState> {
  if (!existsSync(file)) throw new UsageError(`--state ${file}: no such file`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`--state ${file}: not JSON (${(error as Error).message})`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new UsageError(`--state ${file}: expected {"<service>": {"records": {"<resource>": [ … ]}}}`);
  return parsed as Record<string, MockState>;
}

/** `until` and `specFiles` are for tests: stop without a signal, read other bundled spec files than the package's. */
export const mockCommand: ServingCommand = async (argv, out, err, until, specFiles) => {
  const { values, positionals } = flagsAndWordsOf(argv, {
    ...SCOPE_OPTIONS,
    ...valueFlags("port", "limits-scale", "faults", "latency", "seed", "token-lifetime", "webhook-secret"),
    ...valueFlags("state", "dump-state", "replay"),
    ...switchFlags("prism", "errors", "no-limits", "explain"),
  });
  if (positionals.length !== 1) throw new UsageError(`name one service, or all: ${MOCK_USAGE}`);
  const port = numberFlag("--port", values.port, PORT);
  if (values["no-limits"] && values["limits-scale"] !== undefined)
    throw new UsageError("--no-limits and --limits-scale contradict each other; give one");
  const behaviourFlags = [
    "no-limits",
    "limits-scale",
    "faults",
    "latency",
    "seed",
    "token-lifetime",
    "webhook-secret",
    "state",
    "dump-state",
    "replay",
  ] as const;
  const given = behaviourFlags.filter((f) => values[f] !== undefined && values[f] !== false);
  if (values.prism && given.length)
    throw new UsageError(`--${given[0]} sets the behavioural mock; Prism takes only --port and --errors`);

  const seed = numberFlag("--seed", values.seed, { what: "a whole number", integer: true, min: 0 });
  const scale = numberFlag("--limits-scale", values["limits-scale"], {
    what: "a positive number (10: ten times the budgets)",
    min: 0,
    aboveMin: true,
  });
  const faults: FaultOptions | undefined =
    values.faults !== undefined || values.latency !== undefined
      ? {
          ...(values.faults !== undefined ? parseFaults(values.faults) : {}),
          ...(values.latency !== undefined ? { latency: parseLatency(values.latency) } : {}),
          seed: seed ?? 1,
        }
      : undefined;
  const lifetime = numberFlag("--token-lifetime", values["token-lifetime"], {
    what: "whole seconds above 0",
    integer: true,
    min: 0,
    aboveMin: true,
  });
  // The environment keeps the secret out of the process list.
  const secret = values["webhook-secret"] ?? process.env.STEPFORGE_WEBHOOK_SECRET;
  // Each flag fills its field of one group; an unset flag leaves the spec's own value.
  const options: MockOptions = {
    limits: { off: values["no-limits"] || undefined, scale },
    faults,
    auth: { tokenLifetimeSeconds: lifetime },
    webhooks: { secret },
    data: { idSeed: seed },
  };
  const states = values.state !== undefined ? readState(values.state) : undefined;
  let replay: HarEntry[] | undefined;
  if (values.replay !== undefined) {
    // A recording is of one service (stepforge proxy --service S --record FILE).
    if (positionals[0] === "all")
      throw new UsageError("--replay serves one service's recording; name the service instead of all");
    try {
      replay = readHar(values.replay);
    } catch (error) {
      throw new UsageError(`--replay ${(error as Error).message}`);
    }
  }

  const scope = specFiles
    ? scopeOfSpecFiles(specFiles)
    : await resolveScope({ specs: values.spec, project: values.project });
  const targets = await mockTargets(positionals[0]!, { prism: values.prism, port }, scope);
  if (states) {
    const unknown = Object.keys(states).filter((id) => !targets.some((t) => t.id === id));
    if (unknown.length)
      throw new UsageError(
        `--state ${values.state}: "${unknown[0]}" is not a service started here (` +
          `${targets.map((t) => t.id).join(", ")})`,
      );
  }
  const broken = targets.filter((t) => t.problem !== undefined);
  if (values.explain) {
    for (const t of targets) {
      // A project's spec is built for its mock without keeping the model: read it again to explain it.
      const explain =
        t.explain ?? (t.problem === undefined ? checkSpec(loadSpecFile(t.specFile)).mockExplain : undefined);
      if (explain) out.write(explainText(t.id, t.specFile, explain));
    }
    for (const t of broken) err.write(`${t.problem}\nstepforge mock: ${t.id}: its spec (${t.specFile}) has errors\n`);
    return broken.length ? 1 : 0;
  }
  for (const t of broken)
    err.write(
      `${t.problem}\nstepforge mock: ${t.id} not started: its spec (${t.specFile}) has ` +
        `errors; fix them and run \`stepforge generate\`\n`,
    );
  const startable = targets.filter((t) => t.problem === undefined);
  if (startable.length === 0) return 1;

  const running: Array<{ close(): Promise<void> }> = [];
  const mocks: Array<{ id: string; mock: RunningMock }> = [];
  // A signal during start-up must still stop what has started.
  let signalled!: () => void;
  const signal = new Promise<void>((resolve) => (signalled = resolve));
  const onSignal = () => signalled();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const started = await Promise.allSettled(
      startable.map(async (t) => {
        if (values.prism) {
          const prism = await startPrism({ specFile: t.specFile, port: t.port, errors: values.errors });
          running.push(prism);
          return { t, server: prism as { url: string; pid?: number } };
        }
        const definition = t.definition ?? (await loadMock(generatedMock(t.id)));
        const replayer = replay ? createReplayer(replay, definition) : undefined;
        if (replayer)
          out.write(
            `${t.id}: ${replay!.length - replayer.unmatched} recorded answers from ${values.replay}` +
              `${replayer.unmatched ? ` (${replayer.unmatched} for no operation of the spec left out)` : ""}\n`,
          );
        const mock = await startMockServer(definition, {
          ...options,
          server: { port: t.port },
          data: { ...options.data, state: states?.[t.id] },
          hooks: { replay: replayer },
        });
        running.push(mock);
        mocks.push({ id: t.id, mock });
        return { t, server: mock as { url: string; pid?: number } };
      }),
    );
    const failures = started.filter((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failures.length) {
      for (const f of failures) err.write(`stepforge mock: ${(f.reason as Error).message}\n`);
      // Say what was stopped only when something had started; a lone failure speaks for itself.
      if (running.length > 0)
        err.write(
          `stepforge mock: stopped the ${running.length} server${running.length === 1 ? "" : "s"} already started\n`,
        );
      return 1;
    }
    for (const s of started) {
      const { t, server } = (s as PromiseFulfilledResult<{ t: Target; server: { url: string; pid?: number } }>).value;
      out.write(
        `${t.id} ${values.prism ? "prism" : "mock"} ${server.url}` +
          `${server.pid !== undefined ? ` (pid ${server.pid})` : ""}\n`,
      );
    }
    const n = started.length;
    out.write(
      `${n} mock${n === 1 ? "" : "s"} running on 127.0.0.1; Ctrl-C stops ${n === 1 ? "it" : "them"}` +
        `${broken.length ? ` (not started: ${broken.map((b) => b.id).join(", ")})` : ""}\n`,
    );
    await Promise.race([signal, ...(until ? [until] : [])]);
    if (values["dump-state"] !== undefined) {
      const dump = Object.fromEntries(mocks.map(({ id, mock }) => [id, mock.dumpState()]));
      writeFileSync(values["dump-state"], `${JSON.stringify(dump, null, 2)}\n`);
      out.write(`state of ${mocks.map((m) => m.id).join(", ")} written to ${values["dump-state"]}\n`);
    }
    return broken.length ? 1 : 0;
  } finally {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
    await Promise.allSettled(running.map((r) => r.close()));
  }
};

/** The generated mock of a service of this package (compiled beside dist/cli, or the source under tsx). */
function generatedMock(id: string): URL {
  const file = ["js", "ts"]
    .map((ext) => new URL(`../../generated/${id}/mock.${ext}`, import.meta.url))
    .find((u) => existsSync(u));
  if (!file) throw new Error(`${id} mock: no generated mock; run \`stepforge generate\``);
  return file;
}
