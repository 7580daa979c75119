/** cli/users: `renderd users create` — a console user with a role in one workspace, and optionally a platform administrator. */
import { Command, Option } from "commander";
import { ROLES, type Role } from "../src/auth/scopes";
import { randomBase62 } from "../src/lib/ids";
import { createUser, hashPassword, validatePassword } from "../src/modules/users/service";
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

/** readPasswordFromStdin reads all of stdin and drops one trailing line break (`echo pw | renderd …`). */
async function readPasswordFromStdin(): Promise<string> {
  const text = await Bun.stdin.text();
  return text.replace(/\r?\n$/, "");
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
        .addOption(new Option("--password <password>", "password, 8 to 1024 characters (visible in the process list: prefer --password-stdin)").conflicts("passwordStdin"))
        .option("--password-stdin", "read the password from standard input (one trailing line break is dropped)")
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
        await withStore(({ store, clock }) => {
          const user = createUser(store, clock, cliChange(), {
            email: flags.email,
            name: flags.name,
            passwordHash,
            workspace: flags.workspace,
            role,
            platformAdmin: !!flags.platformAdmin,
          });
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

  return cmd;
}
