/** cli/workspaces: `renderd workspaces create|list` — the operator's view of every workspace, straight on the store. */
import { Command } from "commander";
import type { PlatformWorkspace } from "../src/modules/workspaces/model";
import { createWorkspace, listWorkspaces } from "../src/modules/workspaces/service";
import { cliChange, guard, print, storeOptions, table, withStore } from "./context";
import { badInput } from "./input";

interface CreateFlags {
  slug?: string;
  json?: boolean;
  dataDir?: string;
}

interface ListFlags {
  search?: string;
  limit?: string;
  json?: boolean;
  dataDir?: string;
}

const PAGE = 100;

/** workspacesCommand builds `renderd workspaces` and its subcommands. */
export function workspacesCommand(): Command {
  const cmd = new Command("workspaces").description("create and list workspaces");

  cmd.addCommand(
    storeOptions(
      new Command("create")
        .description("create a workspace with the default allowances (audited as system/cli)")
        .argument("<name>", "display name, 1 to 128 characters")
        .option("--slug <slug>", "URL name: lowercase letters, digits and -, up to 63 (default: derived from the name)"),
    ).action(
      guard(async (name: string, flags: CreateFlags) => {
        await withStore(async ({ store, clock }) => {
          const ws = await store.tx((tx) => createWorkspace(tx, clock, cliChange(), { name, slug: flags.slug }));
          print(!!flags.json, ws, () => `created workspace ${ws.slug} (${ws.id}) "${ws.name}"`);
        }, flags.dataDir);
      }),
    ),
  );

  cmd.addCommand(
    storeOptions(
      new Command("list")
        .description("list workspaces, newest first")
        .option("--search <text>", "only those whose name or slug contains this text")
        .option("--limit <n>", "show at most n workspaces (default: all)"),
    ).action(
      guard(async (flags: ListFlags) => {
        let limit = Infinity;
        if (flags.limit !== undefined) {
          if (!/^\d+$/.test(flags.limit) || Number(flags.limit) < 1) throw badInput(`--limit must be a whole number of at least 1 (got ${JSON.stringify(flags.limit)}).`);
          limit = Number(flags.limit);
        }
        await withStore(async ({ store }) => {
          const items: PlatformWorkspace[] = [];
          let cursor: string | undefined;
          do {
            const page = await listWorkspaces(store, { search: flags.search, cursor, limit: String(Math.min(PAGE, limit - items.length)) });
            items.push(...page.items);
            cursor = page.nextCursor;
          } while (cursor && items.length < limit);
          print(!!flags.json, items, () =>
            items.length
              ? table(
                  ["ID", "SLUG", "NAME", "SUSPENDED"],
                  items.map((w) => [w.id, w.slug, w.name, w.suspended ? "yes" : "no"]),
                )
              : "no workspaces",
          );
        }, flags.dataDir);
      }),
    ),
  );

  return cmd;
}
