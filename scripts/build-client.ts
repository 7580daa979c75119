// Generate the TypeScript client's types (clients/typescript) from the built binary's own /v1/openapi.json: `npm run
// build` runs it after the binary. It starts dist/renderd serve on a temporary DATA_DIR and free ports, reads the
// document (PUBLIC_URL fixed, so the output does not depend on the machine), and writes openapi-typescript's types of
// it to clients/typescript/src/schema.ts, headed by the document's sha256. Commit it: CI fails when it differs from
// what the code serves (clients/typescript/test/generated.test.ts).
//
//   bun run scripts/build-client.ts [binary]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { clientTypes, CLIENT_DIR, PUBLIC_URL } from "../clients/typescript/generate";

const root = resolve(import.meta.dir, "..");
const binary = resolve(root, process.argv[2] ?? "dist/renderd");

function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

const dataDir = mkdtempSync(join(tmpdir(), "renderd-client-"));
const port = freePort();
const serve = Bun.spawn([binary, "serve"], {
  env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DATA_DIR: dataDir, PORT: String(port), INTERNAL_PORT: String(freePort()), HOST: "127.0.0.1", PUBLIC_URL, LOG_LEVEL: "warn", RENDER_WORKERS: "1", RENDERD_ADMIN_PASSWORD: "client-build-password" },
  stdout: "ignore",
  stderr: "inherit",
});
try {
  let document: unknown;
  for (let i = 0; document === undefined; i++) {
    if (i > 300) throw new Error("build-client: dist/renderd serve did not answer within 30 s");
    document = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`).then((r) => (r.ok ? r.json() : undefined), () => undefined);
    if (document === undefined) await Bun.sleep(100);
  }
  writeFileSync(join(CLIENT_DIR, "src/schema.ts"), await clientTypes(document));
  console.log(`build-client: clients/typescript/src/schema.ts from ${binary}'s /v1/openapi.json`);
} finally {
  serve.kill("SIGTERM");
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
