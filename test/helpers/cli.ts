/** Runs the CLI in-process and captures what it prints. */
import { Writable } from "node:stream";
import { main } from "../../cli/main.js";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

export async function runCli(...argv: string[]): Promise<CliResult> {
  const out = new Capture();
  const err = new Capture();
  const code = await main(argv, out, err);
  return { code, stdout: out.text, stderr: err.text };
}
