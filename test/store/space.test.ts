/** store/space: when DATA_DIR takes growing writes, what a refusal says, and that an outage is logged once (issue 26).
 * The real outage, on a small tmpfs filled under the binary, is test/store/disk-full.test.tsx. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { ApiError } from "../../src/errors";
import { FAILURE_HOLD_MS, freeBytesOf, Space, storageFailure } from "../../src/store/space";
import { collectedLog } from "../log-lines";

const dir = mkdtempSync(join(tmpdir(), "renderd-space-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function watched(minFreeBytes: number) {
  const { log, lines } = collectedLog();
  let now = 0;
  const space = new Space({ dataDir: dir, minFreeBytes, log, now: () => now });
  return { space, lines, advance: (ms: number) => (now += ms), messages: () => lines.map((l) => l.msg) };
}

const errno = (code: string, message = code) => Object.assign(new Error(message), { code });

describe("storageFailure", () => {
  test.each([
    ["ENOSPC", "full"],
    ["EDQUOT", "full"],
    ["SQLITE_FULL", "full"],
    ["EROFS", "read_only"],
    ["SQLITE_READONLY", "read_only"],
    ["SQLITE_READONLY_DBMOVED", "read_only"],
    ["EIO", "io_error"],
    ["SQLITE_IOERR_WRITE", "io_error"],
    ["ENOENT", null],
    ["SQLITE_CONSTRAINT_UNIQUE", null],
  ])("%s is %p", (code, kind) => {
    expect(storageFailure(errno(code))).toBe(kind as any);
  });

  test("a thrown value without a code, or not an error at all, is no storage failure", () => {
    expect(storageFailure(new Error("database or disk is full"))).toBeNull();
    expect(storageFailure("ENOSPC")).toBeNull();
    expect(storageFailure(null)).toBeNull();
  });

  test("bun:sqlite's own error for a full disk carries SQLITE_FULL", () => {
    // max_page_count makes the database full at its second page, as a full disk would.
    const db = new Database(":memory:");
    db.run("PRAGMA max_page_count = 2");
    db.run("CREATE TABLE t (x BLOB)");
    let thrown: unknown;
    try {
      db.run("INSERT INTO t VALUES (zeroblob(100000))");
    } catch (e) {
      thrown = e;
    }
    expect(storageFailure(thrown)).toBe("full");
  });
});

describe("Space", () => {
  test("takes growing writes while DATA_DIR has STORAGE_MIN_FREE_BYTES free, and refuses them below it with a 503 that names DATA_DIR and its free bytes, never the path", () => {
    expect(watched(0).space.status()).toMatchObject({ dataDir: dir, minFreeBytes: 0, refusing: null, lastError: null });
    expect(() => watched(0).space.assertRoom()).not.toThrow();
    const { space } = watched(2 ** 50);
    const status = space.status();
    expect(status.refusing).toBe("low");
    expect(Math.abs(status.freeBytes - freeBytesOf(dir))).toBeLessThan(64 * 1024 * 1024);
    let refusal: unknown;
    try {
      space.assertRoom();
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(ApiError);
    const error = refusal as ApiError;
    expect([error.status, error.code, error.retryable, error.retryAfter]).toEqual([503, "INTERNAL", true, 10]);
    expect(error.message).toStartWith(`DATA_DIR has ${status.freeBytes} bytes free, under STORAGE_MIN_FREE_BYTES (${2 ** 50}): renderd takes no new renders, uploads or templates`);
    expect(error.message).not.toContain(dir);
  });

  test("a write that failed for want of space refuses growing writes for FAILURE_HOLD_MS, then lets the next one try", () => {
    const { space, advance } = watched(0);
    expect(space.failed(errno("EBADF"))).toBeNull();
    expect(space.status().refusing).toBeNull();
    const refusal = space.failed(errno("SQLITE_FULL", "database or disk is full"));
    expect(refusal?.status).toBe(503);
    expect(refusal?.message).toStartWith("Writing to DATA_DIR failed for want of space (");
    expect(space.status()).toMatchObject({ refusing: "full", lastError: "database or disk is full" });
    advance(FAILURE_HOLD_MS - 1);
    expect(space.status().refusing).toBe("full");
    advance(1);
    expect(space.status()).toMatchObject({ refusing: null, lastError: null });
    space.failed(errno("EROFS"));
    expect(space.status().refusing).toBe("read_only");
  });

  test("an outage is logged once when it starts and once when it ends, however often writes fail within it", () => {
    const { space, advance, messages, lines } = watched(0);
    for (let i = 0; i < 5; i++) {
      space.failed(errno("ENOSPC"));
      advance(FAILURE_HOLD_MS + 1);
      space.status();
    }
    expect(messages()).toEqual(["DATA_DIR cannot take growing writes: new renders, uploads and templates answer 503 until it can; reads go on"]);
    expect(lines[0]).toMatchObject({ level: 50, dataDir: dir, reason: "full", minFreeBytes: 0 });
    advance(60_000);
    space.status();
    expect(messages().at(-1)).toBe("DATA_DIR takes growing writes again");
    expect(messages()).toHaveLength(2);
  });
});
