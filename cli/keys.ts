/** cli/keys: `renderd keys create|list|revoke` — a workspace's API keys; the secret is printed once, at creation. */
import { Command, Option } from "commander";
import { SCOPES } from "../src/auth/scopes";
import { CreateApiKeyBody, type ApiKey } from "../src/modules/api-keys/model";
import { createApiKey, listApiKeys, revokeApiKey } from "../src/modules/api-keys/service";
import { getWorkspace } from "../src/modules/workspaces/service";
import { cliChange, guard, print, storeOptions, table, withStore } from "./context";
import { badInput, checkInput, kebab, listOption, wholeNumber } from "./input";

interface CreateFlags {
  workspace: string;
  name: string;
  scope: string[];
  expiresInDays?: string;
  json?: boolean;
  dataDir?: string;
}

interface WorkspaceFlags {
  workspace: string;
  json?: boolean;
  dataDir?: string;
}

const PAGE = "100";

function keyState(key: ApiKey, now: Date): string {
  if (!key.enabled) return "revoked";
  if (key.expiresAt && new Date(key.expiresAt) <= now) return "expired";
  return "active";
}

/** keysCommand builds `renderd keys` and its subcommands. */
export function keysCommand(): Command {
  const cmd = new Command("keys").description("create, list and revoke a workspace's API keys");

  cmd.addCommand(
    storeOptions(
      new Command("create")
        .description("create an API key and print its secret once (audited as system/cli)")
        .requiredOption("--workspace <id|slug>", "workspace the key belongs to")
        .requiredOption("--name <name>", "name shown in lists and audit events, 1 to 64 characters")
        .addOption(
          new Option("--scope <scope...>", "scopes the key holds; repeat the flag or separate with commas").makeOptionMandatory().argParser(listOption),
        )
        .option("--expires-in-days <n>", "the key stops working after n days, 1 to 365 (default: never)")
        .addHelpText("after", `\nScopes: ${SCOPES.join(", ")}`),
    ).action(
      guard(async (flags: CreateFlags) => {
        if (!flags.scope.length) throw badInput(`--scope needs at least one scope: use ${SCOPES.join(", ")}.`);
        const unknown = flags.scope.filter((s) => !(SCOPES as readonly string[]).includes(s));
        if (unknown.length) throw badInput(`Unknown scope ${unknown.join(", ")}: use ${SCOPES.join(", ")}.`);
        const body = checkInput(
          CreateApiKeyBody,
          {
            name: flags.name,
            scopes: [...new Set(flags.scope)],
            ...(flags.expiresInDays === undefined ? {} : { expiresInDays: wholeNumber(flags.expiresInDays) }),
          },
          "key options",
          (field) => (field === "scopes" ? "--scope" : kebab(field)),
        );
        await withStore(async ({ store, clock }) => {
          // createApiKey trusts its workspace id (the route takes it from the principal), so resolve id or slug here.
          const ws = await getWorkspace(store, flags.workspace);
          const key = await createApiKey(store, clock, cliChange(), ws.id, body);
          print(!!flags.json, key, () =>
            [
              `created API key ${key.id} "${key.name}" in workspace ${ws.slug} (${ws.id})`,
              `scopes: ${key.scopes.join(" ")}`,
              `expires: ${key.expiresAt ?? "never"}`,
              "",
              key.secret,
              "",
              "This secret is shown once: store it now. renderd keeps only its hash.",
            ].join("\n"),
          );
        }, flags.dataDir);
      }),
    ),
  );

  cmd.addCommand(
    storeOptions(
      new Command("list")
        .description("list a workspace's API keys, newest first (never their secrets)")
        .requiredOption("--workspace <id|slug>", "workspace whose keys to list"),
    ).action(
      guard(async (flags: WorkspaceFlags) => {
        await withStore(async ({ store, clock }) => {
          const ws = await getWorkspace(store, flags.workspace);
          const keys: ApiKey[] = [];
          let cursor: string | undefined;
          do {
            const page = await listApiKeys(store, ws.id, { limit: PAGE, cursor });
            keys.push(...page.items);
            cursor = page.nextCursor;
          } while (cursor);
          const now = clock.now();
          print(!!flags.json, keys, () =>
            keys.length
              ? table(
                  ["ID", "NAME", "START", "STATE", "CREATED", "EXPIRES", "LAST USED", "SCOPES"],
                  keys.map((k) => [k.id, k.name, k.start, keyState(k, now), k.createdAt, k.expiresAt ?? "never", k.lastUsedAt ?? "never", k.scopes.join(",")]),
                )
              : `no API keys in workspace ${ws.slug}`,
          );
        }, flags.dataDir);
      }),
    ),
  );

  cmd.addCommand(
    storeOptions(
      new Command("revoke")
        .description("revoke an API key for good: it stops working at once (audited as system/cli)")
        .argument("<keyId>", "the key's id (key_…)")
        .requiredOption("--workspace <id|slug>", "workspace the key belongs to"),
    ).action(
      guard(async (keyId: string, flags: WorkspaceFlags) => {
        await withStore(async ({ store, clock }) => {
          const ws = await getWorkspace(store, flags.workspace);
          const result = await revokeApiKey(store, clock, cliChange(), ws.id, keyId);
          print(!!flags.json, result, () => `revoked API key ${result.id} in workspace ${ws.slug}`);
        }, flags.dataDir);
      }),
    ),
  );

  return cmd;
}
