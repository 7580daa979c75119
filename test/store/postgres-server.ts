/** postgres-server: a throw-away PostgreSQL cluster for tests, on a free loopback port, removed by stop(). */
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { SQL } from "bun";
import { freePort } from "../serve-process";

/** TestPostgres is a running cluster: the URL of its empty database `renderd`, more empty databases on asking, and stop(). */
export interface TestPostgres {
  url: string;
  /** database creates the empty database `name` (with `options` after CREATE DATABASE's name) and answers its URL. */
  database(name: string, options?: string): Promise<string>;
  stop(): Promise<void>;
}

// Debian's postgresql package puts initdb and pg_ctl under /usr/lib/postgresql/<major>/bin, not on PATH.
const DEBIAN_ROOT = "/usr/lib/postgresql";

/** postgresBinDir answers the folder holding initdb and pg_ctl (the newest major under `debianRoot`, else PATH), or throws saying how to get one. */
export function postgresBinDir(debianRoot = DEBIAN_ROOT, PATH = process.env.PATH ?? ""): string {
  const majors = existsSync(debianRoot)
    ? readdirSync(debianRoot)
        .filter((v) => /^\d+$/.test(v) && existsSync(join(debianRoot, v, "bin", "initdb")) && existsSync(join(debianRoot, v, "bin", "pg_ctl")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors[0]) return join(debianRoot, majors[0], "bin");
  const initdb = Bun.which("initdb", { PATH });
  if (initdb && Bun.which("pg_ctl", { PATH })) return dirname(initdb);
  throw new Error(`PostgreSQL is not installed: no ${debianRoot}/<version>/bin/pg_ctl and no initdb on PATH. Run ./install.sh (Debian package postgresql).`);
}

// initdb and postgres refuse to run as root: as root the cluster is made and run by the `postgres` user.
function asOwner(): { prefix: string[]; uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return { prefix: [] };
  const id = (flag: string) => {
    const r = Bun.spawnSync(["id", flag, "postgres"]);
    if (r.exitCode !== 0) throw new Error("running as root needs the `postgres` user (made by Debian's postgresql package): run ./install.sh");
    return Number(r.stdout.toString().trim());
  };
  return { prefix: ["runuser", "-u", "postgres", "--"], uid: id("-u"), gid: id("-g") };
}

function run(command: string[], cwd: string, what: string): void {
  const r = Bun.spawnSync(command, { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${what} failed (exit ${r.exitCode}): ${r.stderr.toString().trim() || r.stdout.toString().trim()}`);
}

// Durability buys nothing in a cluster deleted after the test: fsync off keeps initdb and each commit fast. A test
// file's stores stay open until the file ends, each with up to POOL + 1 connections: more than the default 100.
const FAST = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400";

/** startPostgres makes a cluster in a temporary folder (initdb -N, trust on loopback), starts it on 127.0.0.1 and creates the database `renderd`. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBinDir();
  const owner = asOwner();
  const root = mkdtempSync(join(tmpdir(), "renderd-pg-"));
  const data = join(root, "data");
  const sockets = join(root, "sockets");
  const log = join(root, "postgres.log");
  mkdirSync(sockets);
  if (owner.uid !== undefined && owner.gid !== undefined) {
    chownSync(root, owner.uid, owner.gid);
    chownSync(sockets, owner.uid, owner.gid);
  }
  const pgCtl = (...args: string[]) => [...owner.prefix, join(bin, "pg_ctl"), "-D", data, ...args];
  // The cluster's own folder as working directory: the postgres user may not enter the caller's.
  const stopCluster = () => Bun.spawnSync(pgCtl("-m", "immediate", "-w", "stop"), { cwd: root, stdout: "ignore", stderr: "ignore" });
  const cleanUp = () => {
    if (existsSync(join(data, "postmaster.pid"))) stopCluster();
    rmSync(root, { recursive: true, force: true });
  };
  // A test run that dies before its afterAll leaves no server behind.
  process.once("exit", cleanUp);
  try {
    run([...owner.prefix, join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "-N"], root, "initdb");
    let port = 0;
    // The free port may be taken between asking and binding: try another.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const opts = `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 ${FAST}`;
      const r = Bun.spawnSync(pgCtl("-l", log, "-w", "-t", "30", "-o", opts, "start"), { cwd: root, stdout: "pipe", stderr: "pipe" });
      if (r.exitCode === 0) break;
      if (attempt === 3) throw new Error(`pg_ctl start failed: ${existsSync(log) ? readFileSync(log, "utf8").trim() : r.stderr.toString()}`);
    }
    const database = async (name: string, options = "") => {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${JSON.stringify(name)}: use lower-case letters, digits and _`);
      const admin = new SQL(`postgres://postgres@127.0.0.1:${port}/postgres`);
      try {
        await admin.unsafe(`CREATE DATABASE ${name} ${options}`);
      } finally {
        await admin.close();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    };
    return {
      url: await database("renderd"),
      database,
      async stop() {
        process.removeListener("exit", cleanUp);
        cleanUp();
      },
    };
  } catch (error) {
    process.removeListener("exit", cleanUp);
    cleanUp();
    throw error;
  }
}
