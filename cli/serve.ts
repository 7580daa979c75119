/** cli/serve: `renderd serve` — every OPTIONS entry is a flag with its environment twin. */
import { Command } from "commander";
import { loadConfig, OPTIONS } from "../src/config";
import { withAllocatorSettings } from "./allocator";
import type { FirstStart } from "../src/bootstrap";
import { fail } from "./context";

/** configFlags adds every OPTIONS entry as a flag with its environment twin: serve's settings, for serve and doctor. */
export function configFlags(cmd: Command): Command {
  for (const [, option] of Object.entries(OPTIONS)) {
    cmd.option(`${option.flag} <value>`, `${option.help} [env ${option.env}]`);
  }
  return cmd;
}

/** firstStartNotice is what serve tells the operator on standard error at the first start: not among the JSON log
 * lines of standard output, and the generated password alone on its own line between blank ones, to copy as it is. */
export function firstStartNotice(first: FirstStart): string {
  const lines = ["", `renderd: first start: created workspace "default" and its platform administrator ${first.email}`];
  if (first.generatedPassword)
    lines.push(
      "renderd: its generated password, shown once (change it):",
      "",
      `    ${first.generatedPassword}`,
      "",
      `renderd: change it in the console, or with \`renderd users set-password --email ${first.email} --password-stdin\``,
    );
  return `${lines.join("\n")}\n\n`;
}

/** serveCommand builds `renderd serve`. */
export function serveCommand(): Command {
  const cmd = configFlags(new Command("serve").description("start the public and internal HTTP ports and serve until SIGTERM/SIGINT"));
  cmd.action(async (flags: Record<string, string>) => {
    withAllocatorSettings();
    let running;
    let graceMs = 0;
    try {
      const config = loadConfig(process.env, flags);
      graceMs = config.shutdownGraceMs;
      // Loaded here so the other commands do not pay for Elysia and playwright at start-up.
      const { startServer } = await import("../src/server");
      running = await startServer({
        config,
        onFirstStart: (first) => process.stderr.write(firstStartNotice(first)),
      });
    } catch (e) {
      fail(e);
    }
    const server = running;
    const shutdown = async (signal: string) => {
      process.stderr.write(`renderd: ${signal} received: taking no new work, letting printing renders finish (up to ${graceMs} ms)\n`);
      await server.stop();
      process.exit(0);
    };
    process.once("SIGTERM", () => void shutdown("SIGTERM"));
    process.once("SIGINT", () => void shutdown("SIGINT"));
  });
  return cmd;
}
