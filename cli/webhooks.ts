/** cli/webhooks: `renderd webhooks verify` — check (or make) a delivery's Standard Webhooks signature, as a receiver would (spec 6.4). */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { sign, TIMESTAMP_TOLERANCE_SECONDS, verify } from "../src/webhooks/sign";
import { guard } from "./context";
import { badInput } from "./input";

interface VerifyFlags {
  secret: string;
  id: string;
  timestamp: string;
  body: string;
  signature?: string;
  now?: string;
}

const SECRET_FORM = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const UNIX_SECONDS = /^\d{1,15}$/;

// `@file` reads the body as bytes, exactly as received: a signature covers the raw body, so it is never re-encoded.
function readBody(raw: string): string | Uint8Array {
  if (!raw.startsWith("@")) return raw;
  try {
    return readFileSync(raw.slice(1));
  } catch (e) {
    throw badInput(`--body ${raw}: the file cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`);
  }
}

/** webhooksCommand builds `renderd webhooks` and its subcommand `verify`. */
export function webhooksCommand(): Command {
  const cmd = new Command("webhooks").description("tools for webhook receivers");

  cmd.addCommand(
    new Command("verify")
      .description("verify a delivery's webhook-signature (exit 0 valid, 1 invalid); without --signature, print the signature")
      .requiredOption("--secret <whsec_…>", "the endpoint's signing secret")
      .requiredOption("--id <msg id>", "the webhook-id header (whd_…)")
      .requiredOption("--timestamp <unix s>", "the webhook-timestamp header, Unix seconds")
      .requiredOption("--body <json|@file>", "the raw request body, or @path to a file holding it")
      .option("--signature <header>", "the webhook-signature header: one or more space-separated v1,<base64>")
      .option("--now <unix s>", "check the timestamp against this time instead of the clock (replaying a logged delivery)")
      .addHelpText("after", `\nA receiver rejects a timestamp more than ${TIMESTAMP_TOLERANCE_SECONDS / 60} minutes from its clock (spec 6.4 (3)).`)
      .action(
        guard((flags: VerifyFlags) => {
          if (!SECRET_FORM.test(flags.secret)) throw badInput("--secret must have the form whsec_<base64>.");
          if (!UNIX_SECONDS.test(flags.timestamp)) throw badInput(`--timestamp must be Unix seconds (got ${JSON.stringify(flags.timestamp)}).`);
          if (flags.now !== undefined && !UNIX_SECONDS.test(flags.now)) throw badInput(`--now must be Unix seconds (got ${JSON.stringify(flags.now)}).`);
          const body = readBody(flags.body);
          if (flags.signature === undefined) {
            process.stdout.write(sign(flags.secret, flags.id, Number(flags.timestamp), body) + "\n");
            return;
          }
          const now = flags.now === undefined ? new Date() : new Date(Number(flags.now) * 1000);
          const result = verify([flags.secret], { msgId: flags.id, timestamp: flags.timestamp, signature: flags.signature, body }, now);
          if (result.ok) {
            process.stdout.write("valid: a signature matches the body and the secret, and the timestamp is within 5 minutes.\n");
            return;
          }
          process.stdout.write(`invalid: ${result.reason}\n`);
          process.exitCode = 1;
        }),
      ),
  );

  return cmd;
}
