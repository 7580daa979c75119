/**
 * store/postgres-dialect: the SQLite migrations of migrations/ rewritten for PostgreSQL, so that one set of files is the
 * schema on both engines (docs/scale-out.md "One schema, two engines"). The SQLite text is never changed.
 */

// SQLite's NOCASE folds ASCII case; a nondeterministic ICU collation at level 2 makes `=` and UNIQUE ignore case the same
// way (and beyond ASCII, which SQLite does not). users.email relies on it: sign-in looks the address up with `=`.
const NOCASE = "renderd_nocase";
const CREATE_NOCASE = `CREATE COLLATION IF NOT EXISTS ${NOCASE} (provider = icu, locale = 'und-u-ks-level2', deterministic = false);`;

// What the translation knows nothing of: a migration using one fails here, before it reaches a database, and the rule is
// added to this file with its test.
const OUTSIDE_SUBSET: ReadonlyArray<[RegExp, string]> = [
  [/\bAUTOINCREMENT\b/i, "AUTOINCREMENT"],
  [/\bWITHOUT\s+ROWID\b/i, "WITHOUT ROWID"],
  [/\bPRAGMA\b/i, "PRAGMA"],
  [/\bINSERT\s+OR\b/i, "INSERT OR …"],
  [/\bREPLACE\s+INTO\b/i, "REPLACE INTO"],
  [/\b(datetime|strftime|julianday|unixepoch|date|time)\s*\(/i, "SQLite date functions"],
  [/\b(ifnull|instr|group_concat|printf|glob)\s*\(/i, "SQLite-only functions"],
  [/\b(REAL|NUMERIC|BOOLEAN|VARCHAR|DATETIME)\b/i, "a column type other than TEXT, INTEGER or BLOB"],
  [/\bCOLLATE\s+(?!NOCASE\b)\w+/i, "a collation other than NOCASE"],
];

// Statements a generic rule cannot carry over, replaced by name. 0010 rebuilds allowance_counters because SQLite cannot
// change a CHECK in place; PostgreSQL can, and a rebuild there would leave the constraints named after the `_new` table.
const REWRITES: Readonly<Record<number, ReadonlyArray<{ from: RegExp; to: string }>>> = {
  10: [
    {
      from: /CREATE TABLE allowance_counters_new \([\s\S]*?ALTER TABLE allowance_counters_new RENAME TO allowance_counters;/,
      to:
        "ALTER TABLE allowance_counters DROP CONSTRAINT allowance_counters_counter_check, " +
        "ADD CONSTRAINT allowance_counters_counter_check CHECK (counter IN ('documents', 'test_renders', 'template_conversions'));",
    },
  ],
};

/** toPostgres answers migration `version`'s SQLite text as PostgreSQL, or throws naming what the translation does not cover. */
export function toPostgres(version: number, sqlite: string): string {
  // Comments go first: they are free text, and the files' string literals never hold `--`.
  let sql = sqlite.replace(/--[^\n]*/g, "");
  for (const { from, to } of REWRITES[version] ?? []) {
    if (!from.test(sql)) throw new Error(`migration ${version}: the statement its PostgreSQL rewrite replaces is not there (${from.source.slice(0, 60)}…)`);
    sql = sql.replace(from, to);
  }
  for (const [pattern, what] of OUTSIDE_SUBSET) {
    if (pattern.test(sql)) throw new Error(`migration ${version} uses ${what}, which store/postgres-dialect.ts does not translate: add a rule and its test`);
  }
  // Byte counts and storage limits pass 2^31; INTEGER in SQLite is 64-bit, so every INTEGER is BIGINT.
  sql = sql.replace(/\bINTEGER\b/g, "BIGINT");
  sql = sql.replace(/\bBLOB\b/g, "BYTEA");
  // Byte order, as SQLite compares text: ids and ISO times sort by their bytes for keyset paging, the queue's heads and a
  // batch's items, whatever collation the database was created with (en_US.UTF-8 would put `rnd_a…` before `rnd_B…`).
  sql = sql.replace(/\bTEXT\b(?![^,\n]*\bCOLLATE\b)/g, 'TEXT COLLATE "C"');
  if (/\bCOLLATE\s+NOCASE\b/i.test(sql)) sql = `${CREATE_NOCASE}\n${sql.replace(/\bCOLLATE\s+NOCASE\b/gi, `COLLATE ${NOCASE}`)}`;
  return sql.replace(/\n\s*\n+/g, "\n").trim();
}
