/** doctor/result: one line of doctor's report, and the migrations line every store engine answers alike. */
import type { MigrationLevel } from "../backup/snapshot";
import { MIGRATIONS } from "../store/migrations";

/** CheckResult is one line of the report; any `fail` makes doctor exit non-zero, a `warn` does not. */
export interface CheckResult {
  check: string;
  status: "ok" | "warn" | "fail";
  detail: string;
}

/** ok answers a passing line. */
export const ok = (check: string, detail: string): CheckResult => ({ check, status: "ok", detail });
/** warn answers a line that does not change the exit code. */
export const warn = (check: string, detail: string): CheckResult => ({ check, status: "warn", detail });
/** fail answers a line that makes doctor exit 1. */
export const fail = (check: string, detail: string): CheckResult => ({ check, status: "fail", detail });

/** allMigrationsPending answers the migrations line of a store serve has not made (or migrated) yet. */
export function allMigrationsPending(): CheckResult {
  return ok("migrations", `serve applies all ${MIGRATIONS.length}, up to ${MIGRATIONS.at(-1)!.name}`);
}

/** migrationsCheck compares the store's level with the binary's: behind is what serve mends, ahead is what it refuses. */
export function migrationsCheck(level: MigrationLevel): CheckResult {
  const newest = MIGRATIONS.at(-1)!;
  const applied = level.name || "none";
  if (level.version === newest.version) return ok("migrations", `${applied} applied, the newest this binary embeds`);
  if (level.version < newest.version) return warn("migrations", `${applied} applied; this binary embeds up to ${newest.name}: serve (or renderd migrate) applies the rest.`);
  return fail("migrations", `the store is at migration ${level.version}, newer than this binary (${newest.version}): upgrade renderd.`);
}
