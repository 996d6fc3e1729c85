/**
 * `stepforge mock SERVICE|all [--port N] [--prism]`
 *
 * Starts the behavioural mock (default) or a Prism contract mock of one service or of every
 * service, on 127.0.0.1, prints one line per server (`<service> <kind> <url>`), and runs until
 * SIGINT or SIGTERM, then stops every server and child process it started.
 *
 * Default ports come from each spec's `x-stepforge.mock.ports` (trello 4110 / Prism 4010, marketo
 * 4111 / 4011, worldnews 4112 / 4012, contentsnare 4113 / 4013); a spec without them gets
 * 4120+i / 4020+i. With `--port N` and `all`, the services take N, N+1, … in name order.
 */
import { parseArgs } from "node:util";
import { loadSpecFile } from "../../generator/load.js";
import { checkSpec } from "../../generator/check/index.js";
import { startMock, startPrism } from "../../runtime/mock/index.js";
import { packageRoot } from "../../generator/package-root.js";
import { projectSpecs } from "../project.js";
import { UsageError } from "../usage.js";

interface Target {
  id: string;
  specFile: string;
  port: number;
}

export function mockTargets(which: string, options: { prism: boolean; port?: number | undefined }): Target[] {
  const all = projectSpecs(packageRoot())
    .map((file) => ({ file, model: checkSpec(loadSpecFile(file)) }))
    .sort((a, b) => a.model.id.localeCompare(b.model.id));
  const chosen = which === "all" ? all : all.filter((s) => s.model.id === which);
  if (chosen.length === 0) throw new UsageError(`unknown service "${which}" (services: ${all.map((s) => s.model.id).join(", ")}, or all)`);
  return chosen.map((s, i) => {
    const ports = s.model.mock.ports;
    const fallback = (options.prism ? 4020 : 4120) + all.indexOf(s);
    const port = options.port !== undefined ? options.port + i : ((options.prism ? ports?.prism : ports?.mock) ?? fallback);
    return { id: s.model.id, specFile: s.file, port };
  });
}

export async function mockCommand(argv: string[], out: NodeJS.WritableStream, _err: NodeJS.WritableStream, until?: Promise<unknown>): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { port: { type: "string" }, prism: { type: "boolean", default: false }, errors: { type: "boolean", default: false } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError("name one service, or all: stepforge mock SERVICE|all [--port N] [--prism]");
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`--port must be a port number (1-65535), got "${values.port}"`);
  }
  const targets = mockTargets(positionals[0]!, { prism: values.prism, port });
  const running: Array<{ close(): Promise<void> }> = [];
  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    await Promise.allSettled(running.map((r) => r.close()));
  };
  // A signal during start-up must still stop what has started.
  let signalled!: () => void;
  const signal = new Promise<void>((resolve) => (signalled = resolve));
  const onSignal = () => signalled();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const started = await Promise.all(
      targets.map(async (t) => {
        const server = values.prism ? await startPrism({ specFile: t.specFile, port: t.port, errors: values.errors }) : await startMock(t.id, { port: t.port });
        running.push(server);
        return { t, server };
      }),
    );
    for (const { t, server } of started) {
      const pid = "pid" in server ? ` (pid ${server.pid})` : "";
      out.write(`${t.id} ${values.prism ? "prism" : "mock"} ${server.url}${pid}\n`);
    }
    out.write(`${started.length} mock${started.length === 1 ? "" : "s"} running on 127.0.0.1; Ctrl-C stops ${started.length === 1 ? "it" : "them"}\n`);
    await Promise.race([signal, ...(until ? [until] : [])]);
    return 0;
  } finally {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
    if (!stopping) await stopAll();
  }
}
