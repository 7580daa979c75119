/** generated: the committed src/schema.ts is what the build makes from the code's /v1/openapi.json today — CI's check
 * that the client was regenerated whenever the API changed — and the package compiles to dist/ with its declarations. */
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CLIENT_DIR, clientTypes } from "../generate";

test("src/schema.ts is generated from the API as the code serves it now (else: npm run build, and commit it)", async () => {
  // The app's own route table, built in a fresh process (no Chromium): the same document a starting binary serves.
  const print = Bun.spawnSync([process.execPath, join(import.meta.dir, "openapi-document.ts")], { stdout: "pipe", stderr: "pipe" });
  expect(print.stderr.toString()).toBe("");
  const document: unknown = JSON.parse(print.stdout.toString());
  const committed = readFileSync(join(CLIENT_DIR, "src/schema.ts"), "utf8");
  const fresh = await clientTypes(document);
  // The first line names the document's sha256: compared first, for a message that says what to do.
  expect({ header: committed.split("\n")[0], hint: "run npm run build and commit clients/typescript/src/schema.ts" }).toEqual({ header: fresh.split("\n")[0], hint: "run npm run build and commit clients/typescript/src/schema.ts" });
  expect(committed).toBe(fresh);
});

test("the package compiles with its own tsconfig (declarations included) and no Bun types", () => {
  const out = mkdtempSync(join(tmpdir(), "renderd-client-dist-"));
  try {
    const tsc = Bun.spawnSync([resolve(CLIENT_DIR, "../../node_modules/.bin/tsc"), "-p", join(CLIENT_DIR, "tsconfig.json"), "--outDir", out], { stdout: "pipe", stderr: "pipe" });
    expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
    expect(tsc.exitCode).toBe(0);
    expect(readFileSync(join(out, "index.d.ts"), "utf8")).toContain("renderAndWait(body: RenderRequest");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 60_000);
