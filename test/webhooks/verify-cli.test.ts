/** `renderd webhooks verify` run as a real process, against the Standard Webhooks test vector (DESIGN.md 5). */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "renderd-verify-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const TS = "1614265330";
const BODY = '{"test": 2432232314}';
const SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
const BASE = ["webhooks", "verify", "--secret", SECRET, "--id", ID, "--timestamp", TS];

function renderd(args: string[]): { code: number; out: string; err: string } {
  const r = Bun.spawnSync([process.execPath, "cli/main.ts", ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "silent" }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

describe("renderd webhooks verify", () => {
  test("without --signature it prints the signature of the test vector", () => {
    const r = renderd([...BASE, "--body", BODY]);
    expect(r).toEqual({ code: 0, out: SIGNATURE + "\n", err: "" });
  });

  test("a matching signature is valid (exit 0); --body @file reads the raw bytes", () => {
    const file = join(dir, "body.json");
    writeFileSync(file, BODY);
    for (const body of [BODY, `@${file}`]) {
      const r = renderd([...BASE, "--body", body, "--signature", `v1,bm90IHRoaXMgb25l ${SIGNATURE}`, "--now", "1614265400"]);
      expect(r.code).toBe(0);
      expect(r.out.trim().split("\n")).toHaveLength(1);
      expect(r.out).toStartWith("valid:");
    }
  });

  test("a changed body, a stale timestamp or another secret is invalid (exit 1), one line saying why", () => {
    const cases: Array<[string[], string]> = [
      [["--body", '{"test": 2432232315}', "--signature", SIGNATURE, "--now", TS], "invalid: No signature matches the body and the secret."],
      [["--body", BODY, "--signature", SIGNATURE, "--now", String(Number(TS) + 301)], "invalid: The webhook-timestamp is more than 5 minutes from now."],
      [["--body", BODY, "--signature", SIGNATURE], "invalid: The webhook-timestamp is more than 5 minutes from now."],
    ];
    for (const [args, line] of cases) {
      const r = renderd([...BASE, ...args]);
      expect(r.code).toBe(1);
      expect(r.out).toBe(line + "\n");
    }
    const other = renderd(["webhooks", "verify", "--secret", "whsec_" + Buffer.alloc(32, 7).toString("base64"), "--id", ID, "--timestamp", TS, "--body", BODY, "--signature", SIGNATURE, "--now", TS]);
    expect(other.code).toBe(1);
    expect(other.out).toBe("invalid: No signature matches the body and the secret.\n");
  });

  test("bad input exits 2 with one line on stderr", () => {
    for (const args of [
      ["webhooks", "verify", "--secret", "nope", "--id", ID, "--timestamp", TS, "--body", BODY],
      [...BASE.slice(0, 6), "--timestamp", "yesterday", "--body", BODY],
      [...BASE, "--body", `@${join(dir, "missing.json")}`],
    ]) {
      const r = renderd(args);
      expect(r.code).toBe(2);
      expect(r.out).toBe("");
      expect(r.err.trim().split("\n")).toHaveLength(1);
    }
  });
});
