/** http/paging: keyset paging newest first, with an opaque cursor (default 50, at most 100 items). */
import { ApiError } from "../errors";
import type { Params, Reads } from "../store/store";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/** PageRequest is a page's size and the position after which it starts. */
interface PageRequest {
  limit: number;
  after: { createdAt: string; id: string } | null;
}

/** parsePageQuery reads `limit` and `cursor` (already pattern-checked by the schema) into a PageRequest. */
function parsePageQuery(query: { limit?: string; cursor?: string }): PageRequest {
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new ApiError("BAD_REQUEST", "The query string is not valid.", {
      details: [{ path: "/limit", message: `must be a whole number from 1 to ${MAX_LIMIT}` }],
    });
  return { limit, after: query.cursor === undefined ? null : decodeCursor(query.cursor) };
}

// The cursor starts with "c" so it is always a spec Identifier (base64url may start with "-" or "_").
function encodeCursor(createdAt: string, id: string): string {
  return "c" + Buffer.from(JSON.stringify([createdAt, id])).toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    if (!cursor.startsWith("c")) throw new Error();
    const [createdAt, id] = JSON.parse(Buffer.from(cursor.slice(1), "base64url").toString("utf8"));
    if (typeof createdAt === "string" && typeof id === "string") return { createdAt, id };
  } catch {
    // fall through to the one error below
  }
  throw new ApiError("BAD_REQUEST", "The query string is not valid.", {
    details: [{ path: "/cursor", message: "is not a cursor this list gave out" }],
  });
}

/** keysetClause gives the SQL condition and parameters that start a newest-first page after the cursor. */
function keysetClause(page: PageRequest, column = "created_at", idColumn = "id"): { sql: string; params: Record<string, string> } {
  if (!page.after) return { sql: "1 = 1", params: {} };
  return {
    sql: `(${column} < $afterCreatedAt OR (${column} = $afterCreatedAt AND ${idColumn} < $afterId))`,
    params: { afterCreatedAt: page.after.createdAt, afterId: page.after.id },
  };
}

/** toPage turns up to limit+1 rows (fetched newest first) into a spec Page. */
async function toPage<R extends { created_at: string; id: string }, T>(
  rows: R[],
  page: PageRequest,
  toItem: (row: R) => T | Promise<T>,
): Promise<{ items: T[]; nextCursor?: string }> {
  const more = rows.length > page.limit;
  const kept = more ? rows.slice(0, page.limit) : rows;
  const last = kept.at(-1);
  const items = await Promise.all(kept.map(toItem));
  return more && last ? { items, nextCursor: encodeCursor(last.created_at, last.id) } : { items };
}

/** PageSql is the query one list pages through: `SELECT <select> FROM <from> WHERE <where…>`; `alias` qualifies the
 * `created_at` and `id` columns the keyset orders by when `from` joins tables. */
export interface PageSql {
  select?: string;
  from: string;
  where: string[];
  params: Params;
  alias?: string;
}

/** selectPage answers one newest-first page of a query as a spec Page (default 50 items, at most 100). */
export async function selectPage<R extends { created_at: string; id: string }, T>(
  store: Reads,
  query: { limit?: string; cursor?: string },
  sql: PageSql,
  toItem: (row: R) => T | Promise<T>,
): Promise<{ items: T[]; nextCursor?: string }> {
  const page = parsePageQuery(query);
  const column = (name: string) => (sql.alias ? `${sql.alias}.${name}` : name);
  const keyset = keysetClause(page, column("created_at"), column("id"));
  const rows = await store.all<R>(
    `SELECT ${sql.select ?? "*"} FROM ${sql.from} WHERE ${[...sql.where, keyset.sql].join(" AND ")}
     ORDER BY ${column("created_at")} DESC, ${column("id")} DESC LIMIT $limit`,
    { ...sql.params, ...keyset.params, limit: page.limit + 1 },
  );
  return toPage(rows, page, toItem);
}
