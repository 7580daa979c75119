/** cli/migrate: `renderd migrate` — apply pending migrations to DATA_DIR's store and say which. */
import { Command } from "commander";
import { ensureDataDir, loadConfig } from "../src/config";
import { systemClock } from "../src/lib/clock";
import { migrate } from "../src/store/migrate";
import { openStore } from "../src/store/open";
import { fail, print } from "./context";

/** migrateCommand builds `renderd migrate`. */
export function migrateCommand(): Command {
  return new Command("migrate")
    .description("apply pending SQL migrations to DATA_DIR/renderd.db")
    .option("--data-dir <dir>", "data folder [env DATA_DIR]")
    .option("--json", "print JSON")
    .action((opts: { dataDir?: string; json?: boolean }) => {
      try {
        const config = loadConfig(process.env, opts.dataDir ? { dataDir: opts.dataDir } : {});
        ensureDataDir(config);
        const store = openStore(config.dataDir);
        try {
          const applied = migrate(store, systemClock);
          print(!!opts.json, { applied }, () => (applied.length ? `applied ${applied.join(", ")}` : "the store is up to date"));
        } finally {
          store.close();
        }
      } catch (e) {
        fail(e);
      }
    });
}
