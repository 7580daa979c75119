import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";

// docs/scale-out.md "Portable SQL": the store's queries are one text for SQLite and PostgreSQL. This reads every SQL text
// in src/ and names each one that breaks a rule a pattern can see; the rules a pattern cannot see (grouped columns,
// NULL order, collation) are the doc's.
const SRC = resolve(import.meta.dir, "../../src");

// They read or write the SQLite file itself, not the store: SQLite-only on purpose (or PostgreSQL-only: the migrator).
const ENGINE_FILES = ["backup/", "store/copy-rows.ts", "store/sqlite-store.ts", "store/migrate.ts", "store/migrate-postgres.ts", "store/postgres-dialect.ts"];

// A statement, or a piece of one (a condition pushed onto a WHERE list: `name LIKE $search`, `status = $status`).
const SQL_TEXT = /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|WHERE|ORDER BY|GROUP BY|ON CONFLICT|JOIN|LIKE)\b|\w\s*(=|<>|<=?|>=?|\bIS(\s+NOT)?)\s*\$\w/;

// A substitution `${…}` of a template literal reads as this word.
const SUBSTITUTION = "__sub__";

const RULES: ReadonlyArray<{ rule: string; breaks: (sql: string) => boolean }> = [
  { rule: "no JSON functions (json_each …): inList or TypeScript", breaks: (s) => /\bjson_\w+\s*\(/i.test(s) },
  { rule: "no rowid: order by a real column", breaks: (s) => /\browid\b/i.test(s) },
  { rule: "no two-argument MAX/MIN: CASE WHEN", breaks: (s) => /\b(MAX|MIN)\s*\([^()]*,[^()]*\)/i.test(s) },
  { rule: "IS only before NULL: IS [NOT] DISTINCT FROM", breaks: (s) => /\bIS\s+(?!NOT\b|NULL\b|DISTINCT\b)[$\w']|\bIS\s+NOT\s+(?!NULL\b|DISTINCT\b)[$\w']/i.test(s) },
  { rule: "no INSERT OR / REPLACE INTO: ON CONFLICT", breaks: (s) => /\bINSERT\s+OR\b|\bREPLACE\s+INTO\b/i.test(s) },
  {
    rule: "no SQLite-only functions",
    breaks: (s) => /\b(datetime|strftime|julianday|unixepoch|ifnull|group_concat|printf|instr|typeof|changes|last_insert_rowid|glob|iif)\s*\(|\bGLOB\b|\bsubstr\s*\([^,]+,\s*-/i.test(s),
  },
  { rule: "LIKE as lower(c) LIKE lower($p)", breaks: (s) => (s.match(/\bLIKE\b/gi)?.length ?? 0) !== (s.match(/\)\s+LIKE\s+lower\(/gi)?.length ?? 0) },
  { rule: "an upsert names the stored value's table: t.c + excluded.c", breaks: (s) => /\bDO\s+UPDATE\s+SET\b([^]*)/i.exec(s)?.[1]?.match(/(?<![.$\w])[a-z_]+\s*[-+*/]/) != null },
  { rule: "flags are 0/1, not TRUE/FALSE", breaks: (s) => /\b(TRUE|FALSE)\b/.test(s) },
  { rule: "no LIMIT -1", breaks: (s) => /\bLIMIT\s+-/i.test(s) },
  { rule: "no double-quoted strings", breaks: (s) => /"/.test(s) },
  { rule: "a subquery in FROM has a name", breaks: unnamedSubquery },
];

/** unnamedSubquery tells whether a `FROM (SELECT …)`, `JOIN (SELECT …)` or a text that is a subquery lacks a name. */
function unnamedSubquery(sql: string): boolean {
  for (const m of sql.matchAll(/(\bFROM\s*|\bJOIN\s*|^\s*)\(\s*SELECT\b/gi)) {
    let depth = 0;
    let end = -1;
    for (let i = m.index + m[0].indexOf("("); i < sql.length; i++) {
      if (sql[i] === "(") depth++;
      else if (sql[i] === ")" && --depth === 0) {
        end = i;
        break;
      }
    }
    if (end >= 0 && !/^\s*(AS\s+)?(?!(WHERE|ON|JOIN|ORDER|GROUP|LIMIT|UNION)\b)[A-Za-z_]\w*/i.test(sql.slice(end + 1))) return true;
  }
  return false;
}

/** SqlText is one SQL string of a source file, substitutions replaced. */
type SqlText = { file: string; line: number; sql: string };

function sqlTexts(path: string): SqlText[] {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const out: SqlText[] = [];
  const visit = (node: ts.Node): void => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateExpression(node)) text = node.head.text + node.templateSpans.map((s) => SUBSTITUTION + s.literal.text).join("");
    if (text !== undefined && SQL_TEXT.test(text)) out.push({ file: relative(SRC, path), line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, sql: text });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

const broken = (sql: string) => RULES.filter((r) => r.breaks(sql)).map((r) => r.rule);

describe("portable SQL (docs/scale-out.md)", () => {
  test("every SQL text of the store's queries in src/ keeps to the rules both engines share", () => {
    const texts = sourceFiles(SRC)
      .filter((path) => !ENGINE_FILES.some((prefix) => relative(SRC, path).startsWith(prefix)))
      .flatMap(sqlTexts);
    // The reader finds the store's queries (well over a hundred), not nothing.
    expect(texts.length).toBeGreaterThan(100);
    const problems = texts.flatMap((t) => broken(t.sql).map((rule) => `${t.file}:${t.line}: ${rule}`));
    expect(problems).toEqual([]);
  });

  test("each rule names the SQLite-only form it is for, and lets its portable form pass", () => {
    const cases: [sqliteOnly: string, portable: string][] = [
      ["SELECT id FROM assets WHERE id IN (SELECT value FROM json_each($ids))", "SELECT id FROM assets WHERE id IN ($ids0, $ids1)"],
      ["SELECT id FROM renders WHERE batch_id = $b ORDER BY rowid", "SELECT id FROM renders WHERE batch_id = $b ORDER BY id"],
      ["UPDATE t SET v = MAX(v + $d, 0) WHERE id = $id", "UPDATE t SET v = CASE WHEN v + $d > 0 THEN v + $d ELSE 0 END WHERE id = $id"],
      ["DELETE FROM sessions WHERE user_id = $u AND id IS NOT $keep", "DELETE FROM sessions WHERE user_id = $u AND id IS DISTINCT FROM $keep AND x IS NOT NULL"],
      ["INSERT OR IGNORE INTO t (id) VALUES ($id)", "INSERT INTO t (id) VALUES ($id) ON CONFLICT (id) DO NOTHING"],
      ["SELECT id FROM t WHERE created_at < datetime('now')", "SELECT id FROM t WHERE created_at < $now"],
      ["SELECT id FROM t WHERE IFNULL(a, 0) = 1", "SELECT id FROM t WHERE COALESCE(a, 0) = 1"],
      ["SELECT id FROM workspaces WHERE name LIKE $s", "SELECT id FROM workspaces WHERE lower(name) LIKE lower($s) ESCAPE '\\'"],
      ["SELECT id FROM w WHERE lower(name) LIKE lower($s) OR slug LIKE $s", "SELECT id FROM w WHERE lower(name) LIKE lower($s) OR lower(slug) LIKE lower($s)"],
      [
        "INSERT INTO c (k, value) VALUES ($k, 1) ON CONFLICT (k) DO UPDATE SET value = value + excluded.value",
        "INSERT INTO c (k, value) VALUES ($k, 1) ON CONFLICT (k) DO UPDATE SET value = c.value + excluded.value",
      ],
      ["SELECT id FROM t WHERE enabled = TRUE", "SELECT id FROM t WHERE enabled = 1"],
      ["SELECT id FROM t ORDER BY id LIMIT -1 OFFSET $o", "SELECT id FROM t ORDER BY id LIMIT $n OFFSET $o"],
      ['SELECT id FROM t WHERE status = "queued"', "SELECT id FROM t WHERE status = 'queued'"],
      ["SELECT * FROM (SELECT id, created_at FROM v) WHERE id = $id", "SELECT * FROM (SELECT id, created_at FROM v) AS versions WHERE id = $id"],
      ["(SELECT m.id, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id)", "(SELECT m.id FROM memberships m JOIN users u ON u.id = m.user_id) AS members"],
    ];
    for (const [sqliteOnly, portable] of cases) {
      expect({ sql: sqliteOnly, broken: broken(sqliteOnly).length }).toEqual({ sql: sqliteOnly, broken: 1 });
      expect({ sql: portable, broken: broken(portable) }).toEqual({ sql: portable, broken: [] });
    }
  });
});
