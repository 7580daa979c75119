/** store/postgres-worker: the thread that talks to PostgreSQL for postgres-store.ts. Bun's SQL is asynchronous and the
 * store's callers are not; the caller's thread blocks on a shared word until this thread has the answer. */
import { SQL, type ReservedSQL } from "bun";
import { parentPort, workerData } from "node:worker_threads";
import type { Reply, Request, WorkerData } from "./postgres-wire";
import type { Row } from "./store";

const { url, signal } = workerData as WorkerData;
const answered = new Int32Array(signal);
// Two connections: the one a transaction holds, and one for a late statement the caller stopped waiting for.
const sql = new SQL(url, { max: 2, bigint: true });
let reserved: ReservedSQL | null = null;

// PostgreSQL's types as SQLite gives them to the callers (store/store.ts): 64-bit and decimal numbers as numbers (SUM
// of a bigint is numeric), booleans as 1 and 0. Text stays text: the schema keeps times and JSON as text.
const INT8 = 20;
const NUMERIC = 1700;
const BOOL = 16;

function normalise(rows: Row[], columns: Array<{ name: string; type: number }>): Row[] {
  const convert = columns.filter((c) => c.type === INT8 || c.type === NUMERIC || c.type === BOOL);
  if (convert.length === 0) return rows;
  for (const row of rows)
    for (const { name, type } of convert) {
      const value = row[name];
      if (value === null || value === undefined) continue;
      row[name] = type === BOOL ? (value ? 1 : 0) : Number(value);
    }
  return rows;
}

async function answer(request: Request): Promise<Reply> {
  switch (request.op) {
    case "query": {
      const result = await (reserved ?? sql).unsafe(request.text, request.params);
      const columns = (result as unknown as { columns?: Array<{ name: string; type: number }> }).columns ?? [];
      return { ok: true, rows: normalise([...result] as Row[], columns), count: result.count ?? 0 };
    }
    case "begin": {
      const held = await sql.reserve();
      try {
        await held.unsafe("BEGIN");
      } catch (e) {
        // Not this worker's transaction connection yet: every later statement would go to a connection with none open.
        held.release();
        throw e;
      }
      reserved = held;
      return { ok: true, rows: [], count: 0 };
    }
    case "commit":
    case "rollback": {
      const held = reserved;
      reserved = null;
      try {
        await held?.unsafe(request.op === "commit" ? "COMMIT" : "ROLLBACK");
      } finally {
        held?.release();
      }
      return { ok: true, rows: [], count: 0 };
    }
    case "savepoint":
    case "release":
    case "rollback-to": {
      const verb = { savepoint: "SAVEPOINT", release: "RELEASE SAVEPOINT", "rollback-to": "ROLLBACK TO SAVEPOINT" }[request.op];
      await reserved!.unsafe(`${verb} ${request.name}`);
      return { ok: true, rows: [], count: 0 };
    }
    case "close":
      await sql.close({ timeout: 1 });
      return { ok: true, rows: [], count: 0 };
  }
}

parentPort!.on("message", async ({ port, request }: { port: MessagePort; request: Request }) => {
  let reply: Reply;
  try {
    reply = await answer(request);
  } catch (e) {
    const err = e as { message?: string; errno?: string; code?: string };
    reply = { ok: false, message: err.message ?? String(e), code: err.errno ?? err.code };
  }
  port.postMessage(reply);
  port.close();
  Atomics.add(answered, 0, 1);
  Atomics.notify(answered, 0);
});
