/** cli/migrate: `renderd migrate` — apply pending migrations to DATA_DIR's store and say which. */
import { Command } from "commander";
import { guard, print, withStore } from "./context";

/** migrateCommand builds `renderd migrate`. */
export function migrateCommand(): Command {
  return new Command("migrate")
    .description("apply pending SQL migrations to DATA_DIR/renderd.db")
    .option("--data-dir <dir>", "data folder [env DATA_DIR]")
    .option("--json", "print JSON")
    .action(
      guard((opts: { dataDir?: string; json?: boolean }) =>
        withStore(({ migrated }) => {
          print(!!opts.json, { applied: migrated }, () => (migrated.length ? `applied ${migrated.join(", ")}` : "the store is up to date"));
        }, opts.dataDir, { createStore: true }),
      ),
    );
}
