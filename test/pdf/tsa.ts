/** tsa: a local RFC 3161 timestamp authority for tests — `openssl ts -reply` behind a Bun HTTP server. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CONFIG = `
[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
dir = .
serial = ./serial
crypto_device = builtin
signer_cert = ./tsa.pem
signer_key = ./tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = yes
tsa_name = no
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;

function openssl(dir: string, args: string[]): void {
  const run = Bun.spawnSync(["openssl", ...args], { cwd: dir, stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${run.stderr.toString()}`);
}

/** startTsa starts a timestamp authority on a free port; `requests` counts the tokens it issued. */
export function startTsa(): { url: string; requests: () => number; stop: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "renderd-tsa-"));
  writeFileSync(join(dir, "tsa.cnf"), CONFIG);
  writeFileSync(join(dir, "serial"), "01\n");
  openssl(dir, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "tsa.key", "-out", "tsa.pem", "-days", "30", "-subj", "/CN=Renderd Test TSA", "-addext", "extendedKeyUsage=critical,timeStamping"]);
  let count = 0;
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      writeFileSync(join(dir, "req.tsq"), new Uint8Array(await req.arrayBuffer()));
      openssl(dir, ["ts", "-reply", "-config", "tsa.cnf", "-queryfile", "req.tsq", "-out", "resp.tsr"]);
      count++;
      return new Response(readFileSync(join(dir, "resp.tsr")), { headers: { "Content-Type": "application/timestamp-reply" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/tsr`,
    requests: () => count,
    stop: () => {
      server.stop(true);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
