/** cli/doctor: `renderd doctor` — one line per check of what serve needs from this host; exits 1 when any check fails. */
import { Command } from "commander";
import { loadConfig } from "../src/config";
import { guard, print } from "./context";
import { configFlags } from "./serve";

const MARK = { ok: "ok  ", warn: "WARN", fail: "FAIL" } as const;

/** doctorCommand builds `renderd doctor`; it takes the same settings as serve, from the environment or flags. */
export function doctorCommand(): Command {
  const cmd = new Command("doctor")
    .description("check Chromium, fonts, ports, DATA_DIR, the secret key and the store (PostgreSQL, Redis and the bucket when set) before serving; exit 1 when a check fails")
    .option("--json", "print JSON for scripts")
    .addHelpText("after", "\nA WARN line does not change the exit code. No folder, key or store is created: a DATA_DIR that does not exist yet is reported as such.");
  configFlags(cmd).action(
    guard(async (flags: Record<string, string> & { json?: boolean }) => {
      const { json, ...settings } = flags;
      const config = loadConfig(process.env, settings);
      // Loaded here, like serve's server, so the other commands do not pay for playwright at start-up.
      const { runChecks } = await import("../src/doctor/checks");
      const results = await runChecks(config);
      const width = Math.max(...results.map((r) => r.check.length));
      print(!!json, results, () => results.map((r) => `${MARK[r.status]}  ${r.check.padEnd(width)}  ${r.detail}`).join("\n"));
      if (results.some((r) => r.status === "fail")) process.exitCode = 1;
    }),
  );
  return cmd;
}
