/** cli/users: `renderd users create` — a console user with a role in one workspace, and optionally a platform administrator —
 * and `renderd users set-password`, the operator's reset. */
import { Command, Option } from "commander";
import { ROLES, type Role } from "../src/auth/scopes";
import { randomBase62 } from "../src/lib/ids";
import { ApiError } from "../src/errors";
import { PASSWORD_RULE } from "../src/lib/passwords";
import { findUserByEmail } from "../src/auth/accounts";
import { createUser, hashPassword, replacePassword, validatePassword } from "../src/modules/users/service";
import { cliChange, guard, print, storeOptions, withStore } from "./context";
import { badInput } from "./input";

interface CreateFlags {
  email: string;
  workspace: string;
  role: string;
  platformAdmin?: boolean;
  name?: string;
  password?: string;
  passwordStdin?: boolean;
  json?: boolean;
  dataDir?: string;
}

interface SetPasswordFlags {
  email: string;
  passwordStdin?: boolean;
  json?: boolean;
  dataDir?: string;
}

/** readPasswordFromStdin reads one line from stdin, without its line break (`printf '%s\n' "$PW" | renderd …`). */
async function readPasswordFromStdin(): Promise<string> {
  const line = (await Bun.stdin.text()).replace(/\r?\n$/, "");
  if (/[\r\n]/.test(line)) throw badInput("Standard input must hold one line: the password.");
  return line;
}

/** usersCommand builds `renderd users` and its subcommands. */
export function usersCommand(): Command {
  const cmd = new Command("users").description("create console users");

  cmd.addCommand(
    storeOptions(
      new Command("create")
        .description("create a console user who is a member of one workspace (audited as system/cli)")
        .requiredOption("--email <email>", "sign-in e-mail, unique across renderd")
        .requiredOption("--workspace <id|slug>", "workspace the user joins")
        .option("--role <role>", `role in that workspace: ${ROLES.join(", ")}`, "member")
        .option("--platform-admin", "also make the user a platform administrator (all workspaces, allowances)")
        .option("--name <name>", "display name")
        .addOption(new Option("--password <password>", `password, ${PASSWORD_RULE} (visible in the process list: prefer --password-stdin)`).conflicts("passwordStdin"))
        .option("--password-stdin", "read the password from standard input (one line)")
        .addHelpText("after", "\nWith neither --password nor --password-stdin, a password is generated and printed once."),
    ).action(
      guard(async (flags: CreateFlags) => {
        if (!(ROLES as readonly string[]).includes(flags.role))
          throw badInput(`--role must be one of ${ROLES.join(", ")} (got ${JSON.stringify(flags.role)}).`);
        const role = flags.role as Role;
        const given = flags.passwordStdin ? await readPasswordFromStdin() : flags.password;
        const generatedPassword = given === undefined ? randomBase62(20) : undefined;
        const password = given ?? generatedPassword!;
        validatePassword(password);
        // Hashing is slow on purpose, so it happens before the store is opened and the transaction begins.
        const passwordHash = await hashPassword(password);
        await withStore(async ({ store, clock }) => {
          const user = await store.tx((tx) => createUser(tx, clock, cliChange(), {
            email: flags.email,
            name: flags.name,
            passwordHash,
            workspace: flags.workspace,
            role,
            platformAdmin: !!flags.platformAdmin,
          }));
          const out = generatedPassword === undefined ? user : { ...user, generatedPassword };
          print(!!flags.json, out, () => {
            const lines = [`created user ${user.email} (${user.id}): ${user.role} of ${user.workspaceId}${user.platformAdmin ? ", platform administrator" : ""}`];
            if (generatedPassword) lines.push(`generated password (shown once, store it now): ${generatedPassword}`);
            return lines.join("\n");
          });
        }, flags.dataDir);
      }),
    ),
  );

  cmd.addCommand(
    storeOptions(
      new Command("set-password")
        .description("replace a user's password and end all their sessions (audited as system/cli)")
        .requiredOption("--email <email>", "the user's sign-in e-mail")
        .option("--password-stdin", "read the new password from standard input (one line); required"),
    ).action(
      guard(async (flags: SetPasswordFlags) => {
        // Only stdin: a password given as a flag would show in the process list and the shell history.
        if (!flags.passwordStdin) throw badInput("Give the new password on standard input with --password-stdin.");
        const password = await readPasswordFromStdin();
        validatePassword(password);
        const passwordHash = await hashPassword(password);
        await withStore(async ({ store, clock }) => {
          const user = await findUserByEmail(store, flags.email);
          if (!user) throw new ApiError("NOT_FOUND", `No user has the e-mail ${flags.email}; list them with the console or create one with \`renderd users create\`.`);
          const { sessionsEnded } = await replacePassword(store, clock, cliChange(), user, passwordHash);
          print(!!flags.json, { id: user.id, email: user.email, passwordChanged: true, sessionsEnded }, () => `changed the password of ${user.email} (${user.id}); ended ${sessionsEnded} session(s)`);
        }, flags.dataDir);
      }),
    ),
  );

  return cmd;
}
