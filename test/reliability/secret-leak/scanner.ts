/** Self-checks: the scan, the output capture and the markers can fail. */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { descriptor as contentsnareDescriptor } from "../../../generated/contentsnare/descriptor.js";
import { descriptor as marketoDescriptor } from "../../../generated/marketo/descriptor.js";
import { descriptor as trelloDescriptor } from "../../../generated/trello/descriptor.js";
import { descriptor as worldnewsDescriptor } from "../../../generated/worldnews/descriptor.js";
import { MemoryConnectionStore } from "../../../runtime/index.js";
import {
  describeLeaks,
  encodedForms,
  filesUnder,
  mask,
  needlesFor,
  scanFiles,
  scanText,
  textMarker,
} from "../markers.js";
import { Capture, captureProcessOutput } from "../secret-leak-helpers.js";
import { contentsnareMockCredentials, dir, M, marketoFields, trelloCredentials } from "./harness.js";

export function scannerSelfChecks(): void {
  it("finds a planted marker in every encoding and in part, and masks it in reports", async () => {
    const planted = textMarker("selfcheck.secret");
    const hexPlanted = {
      kind: "selfcheck.hex",
      value: "5ec7e75ec7e7" + "0123456789abcdef0123",
      tail: "0123456789abcdef0123",
    };
    const n = needlesFor([planted, hexPlanted]);
    for (const form of encodedForms(planted.value)) {
      expect(scanText("planted", `before ${form.text} after`, n).length, `form ${form.form}`).toBeGreaterThan(0);
    }
    // base64 of a longer text that contains the marker at each byte alignment.
    for (let offset = 0; offset < 3; offset++) {
      for (const encoding of ["base64", "base64url"] as const) {
        const text = Buffer.from(`${"x".repeat(offset + 5)}Bearer ${planted.value} and more`).toString(encoding);
        expect(scanText("planted", text, n).length, `${encoding} at offset ${offset}`).toBeGreaterThan(0);
      }
    }
    const url = new URL("http://127.0.0.1/x");
    url.searchParams.set("token", planted.value);
    expect(scanText("planted", url.toString(), n).length).toBeGreaterThan(0);
    expect(scanText("planted", url.toString().toLowerCase(), n).length).toBeGreaterThan(0);
    expect(scanText("planted", `truncated ${planted.value.slice(0, 12)}…`, n).length).toBeGreaterThan(0);
    expect(scanText("planted", `tail …${planted.tail}`, n).length).toBeGreaterThan(0);
    expect(scanText("planted", `key=${hexPlanted.value.toUpperCase()}`, n).length).toBeGreaterThan(0);
    // Clean text is clean, and a report never repeats the marker.
    expect(scanText("clean", "invalid token [redacted] for key=[redacted]; id 60d5ecb74e2a1b3c4d5e6f70", n)).toEqual(
      [],
    );
    const report = describeLeaks(scanText("planted", `x ${planted.value} y`, n));
    expect(report).toContain("<MARKER:selfcheck.secret>");
    expect(report).not.toContain(planted.value);
    expect(mask(encodeURIComponent(planted.value), n)).not.toContain(planted.tail);
    // The file scan finds an encoded marker in a file.
    const file = join(dir, "selfcheck", "planted.txt");
    await rm(join(dir, "selfcheck"), { recursive: true, force: true });
    await mkdir(join(dir, "selfcheck"));
    await writeFile(file, `Authorization: Basic ${Buffer.from(`user:${planted.value}`).toString("base64")}\n`);
    expect(scanFiles(filesUnder(join(dir, "selfcheck")), n, dir).map((l) => l.form)).toContain("base64");
    await rm(join(dir, "selfcheck"), { recursive: true, force: true });
  });

  it("the output capture records console and stream writes, and lets them through", () => {
    const inner = new Capture();
    const restore = captureProcessOutput(inner);
    const probe = `capture-sanity-${Date.now()}`;
    try {
      console.error(probe, { nested: probe });
      console.debug(probe);
      process.stderr.write(`${probe}\n`);
    } finally {
      restore();
    }
    const sources = inner.entries.filter((e) => e.text.includes(probe)).map((e) => e.source);
    expect(new Set(sources)).toEqual(new Set(["console.error", "console.debug", "process.stderr"]));
  });

  it("the markers satisfy the connection fields' patterns", () => {
    expect(M.trelloApiKey.value).toMatch(/^[0-9a-fA-F]{32}$/);
    // Validates every marker connection as the runtime would (throws on a pattern mismatch).
    const store = new MemoryConnectionStore();
    return Promise.all([
      store.put(trelloDescriptor, { name: "t", fields: trelloCredentials }),
      store.put(marketoDescriptor, { name: "m", fields: marketoFields }),
      store.put(worldnewsDescriptor, { name: "w", fields: { apiKey: M.worldnewsApiKey.value } }),
      store.put(contentsnareDescriptor, {
        name: "c",
        fields: { ...contentsnareMockCredentials, accessToken: M.contentsnareAccessToken.value },
      }),
    ]);
  });
}
