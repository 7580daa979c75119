/** store/open: opens the store the configuration names. */
import { join } from "node:path";
import { SqliteStore } from "./sqlite-store";

/** storePath answers where DATA_DIR's SQLite file is. */
export function storePath(dataDir: string): string {
  return join(dataDir, "renderd.db");
}

/** openStore opens or creates DATA_DIR/renderd.db. */
export function openStore(dataDir: string): SqliteStore {
  return new SqliteStore(storePath(dataDir));
}
