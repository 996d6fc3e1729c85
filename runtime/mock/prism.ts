/**
 * Prism contract mocks: one Prism process per spec (Prism serves one document), on 127.0.0.1,
 * started and stopped from code. Resolves only when the process answers HTTP, and stops it (and
 * only it) on close, so tests and the CLI leave no orphans.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { packageBin } from "../internal/package-bin.js";

export interface PrismOptions {
  specFile: string;
  port: number;
  /** Prism's --errors: a request or response that violates the spec becomes a 422/500. */
  errors?: boolean;
  /**
   * Milliseconds to wait for the first answer. Default 60 s: several Prisms starting at once on a
   * busy 2-core machine took over 20 s; a healthy start returns as soon as Prism answers.
   */
  startTimeoutMs?: number;
}

export interface RunningPrism {
  url: string;
  port: number;
  /** Process id of the Prism child (it is stopped by close(), and when this process exits). */
  pid: number;
  close(): Promise<void>;
}

const prismBin = () => packageBin("@stoplight/prism-cli", "prism", "a Prism contract mock");

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(500) });
    return true;
  } catch {
    return false;
  }
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill("SIGKILL"), 3000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

export async function startPrism(options: PrismOptions): Promise<RunningPrism> {
  const args = [
    prismBin(),
    "mock",
    "-h",
    "127.0.0.1",
    "-p",
    String(options.port),
    "--json-schema-faker-fillProperties=false",
  ];
  if (options.errors) args.push("--errors");
  args.push(options.specFile);
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
  // If this process ends without close() (a crash, process.exit), the child goes with it.
  const onExit = () => child.kill("SIGKILL");
  process.once("exit", onExit);
  child.once("exit", () => process.removeListener("exit", onExit));
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${options.port}`;
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(
        `Prism exited (${child.exitCode}) while starting ${options.specFile}: ` +
          `${stderr.trim().split("\n").slice(-3).join(" ")}`,
      );
    if (await answers(url)) return { url, port: options.port, pid: child.pid!, close: () => stop(child) };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop(child);
  throw new Error(`Prism did not answer on ${url} within ${startTimeoutMs} ms`);
}
