/** cli/suspension: `renderd suspend|restore <workspace>` — spec 3.4 suspension alone, leaving the other allowances as they are. */
import { Command } from "commander";
import { getWorkspace, setSuspended } from "../src/modules/workspaces/service";
import { cliChange, guard, print, storeOptions, withStore } from "./context";

interface Flags {
  json?: boolean;
  dataDir?: string;
}

function suspensionCommand(name: "suspend" | "restore", suspended: boolean, description: string): Command {
  return storeOptions(
    new Command(name)
      .description(description)
      .argument("<workspace>", "workspace id or slug")
      .addHelpText("after", "\nExits 0 and changes nothing (no audit event) when the workspace already is in that state."),
  ).action(
    guard(async (workspace: string, flags: Flags) => {
      await withStore(async ({ store, clock }) => {
        const changed = await setSuspended(store, clock, cliChange(), workspace, suspended);
        const ws = await getWorkspace(store, workspace);
        const state = suspended ? "suspended" : "restored";
        print(!!flags.json, { id: ws.id, slug: ws.slug, suspended: ws.suspended, changed }, () =>
          changed ? `${state} workspace ${ws.slug} (${ws.id})` : `workspace ${ws.slug} (${ws.id}) is already ${suspended ? "suspended" : "active (not suspended)"}`,
        );
      }, flags.dataDir);
    }),
  );
}

/** suspendCommand builds `renderd suspend <workspace>`. */
export function suspendCommand(): Command {
  return suspensionCommand("suspend", true, "suspend a workspace: its API requests and renders are refused until restored (audited as system/cli)");
}

/** restoreCommand builds `renderd restore <workspace>`. */
export function restoreCommand(): Command {
  return suspensionCommand("restore", false, "restore a suspended workspace (audited as system/cli)");
}
