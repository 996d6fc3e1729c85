/** A user's project in a temporary folder outside the repository, for the in-process project tests. */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";

export const FIXTURES = join(import.meta.dirname, "fixtures");
export const BOOKSHELF = join(FIXTURES, "bookshelf.yaml");
/** A public spec nobody here wrote (the corpus copy of World News API's own document). */
export const PUBLIC_SPEC = join(import.meta.dirname, "..", "corpus", "specs", "world-news-api-openapi-3.json");

/** POSTs a book to the bookshelf service at `url` (its mock, or a proxy in front of it). */
export function postBook(
  url: string,
  auth: Record<string, string>,
  book: { title: string; author: string },
): Promise<Response> {
  const headers = { ...auth, "content-type": "application/json" };
  return fetch(`${url}/books`, { method: "POST", headers, body: JSON.stringify(book) });
}

export interface TempProject {
  dir: string;
  /** Writes a file of the project (folders made as needed); returns its absolute path. */
  write(path: string, content: string): string;
  /** Copies the bookshelf spec to specs/<name> (default specs/bookshelf.yaml). */
  bookshelf(name?: string): string;
  remove(): void;
}

export function tempProject(prefix = "stepforge-project-"): TempProject {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const write = (path: string, content: string) => {
    const abs = join(dir, path);
    mkdirSync(join(abs, ".."), { recursive: true });
    writeFileSync(abs, content);
    return abs;
  };
  return {
    dir,
    write,
    bookshelf(name = "bookshelf.yaml") {
      mkdirSync(join(dir, "specs"), { recursive: true });
      const to = join(dir, "specs", name);
      copyFileSync(BOOKSHELF, to);
      return to;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A stream that keeps what is written to it (for commands run in-process with an `until`). */
export class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}
