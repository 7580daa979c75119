/**
 * backup: `renderd backup create|verify|restore` as real processes against a running server's DATA_DIR — the data is made
 * through the API, backed up while serve runs, restored into a new folder, and a second server on it answers the same.
 * Starts Chromium: run under the lock (flock /tmp/renderd-chromium.lock).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../harness";
import { local, PNG, uploadSample } from "../fixtures/assets";
import { sha256Hex } from "../../src/lib/hash";
import { RECEIVER_ENV } from "../webhooks/receiver";

const ROOT = join(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "renderd-backup-"));
const archive = join(work, "backup.tar.gz");
const restoredDir = join(work, "restored");

interface Run {
  code: number;
  out: string;
  err: string;
}

/** renderd runs `bun cli/main.ts ...args` without blocking this process, so the in-process server keeps serving. */
async function renderd(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const p = Bun.spawn([process.execPath, "cli/main.ts", ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "silent", ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

/** failure asserts a non-zero exit whose last stderr line matches, and answers that line. */
async function failure(args: string[], message: RegExp): Promise<string> {
  const r = await renderd(args);
  expect(r.code).not.toBe(0);
  const line = r.err.trim().split("\n").at(-1)!;
  expect(line).toMatch(message);
  return line;
}

/** repack extracts the archive with tar, lets `change` edit the folder, and packs it again with tar. */
function repack(name: string, change: (dir: string) => void): string {
  const dir = join(work, `${name}-dir`);
  mkdirSync(dir);
  expect(Bun.spawnSync(["tar", "-xzf", archive, "-C", dir]).exitCode).toBe(0);
  change(dir);
  const out = join(work, `${name}.tar.gz`);
  // Files only, named as renderd names them (no "./" prefix, no folder entries).
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((n) => statSync(join(dir, n)).isFile());
  expect(Bun.spawnSync(["tar", "-czf", out, "-C", dir, ...files]).exitCode).toBe(0);
  return out;
}

function editManifest(dir: string, edit: (m: any) => void): void {
  const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  edit(m);
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(m));
}

let t: TestServer;
let restored: TestServer | undefined;
// What the original appliance holds, made through its API.
const made: { key?: string; templateId?: string; renderId?: string; pdf?: Uint8Array<ArrayBuffer>; endpointId?: string; assetId?: string; pdfPath?: string } = {};

beforeAll(async () => {
  t = await startTestServer({ RENDER_WORKERS: "1", ...RECEIVER_ENV });
  const cookie = await t.signIn();
  const key = await t.call("/v1/api-keys", {
    cookie,
    body: { name: "ops", scopes: ["template:read", "template:write", "template:publish", "render:create", "render:read", "asset:manage", "webhook:manage"] },
  });
  expect(key.status).toBe(201);
  made.key = key.body.secret;
  made.assetId = (await uploadSample(t, made.key!, { kind: "image", mediaType: "image/png", filename: "pixel.png", bytes: PNG })).id;
  const template = await t.call("/v1/templates", { key: made.key, body: { name: "Note", content: { type: "text", text: "Hello from before the backup" } } });
  expect(template.status).toBe(201);
  made.templateId = template.body.id;
  expect((await t.call(`/v1/templates/${made.templateId}/publish`, { key: made.key, method: "POST" })).status).toBe(201);
  const render = await t.call("/v1/renders?wait=30", { key: made.key, body: { templateId: made.templateId } });
  expect(render.body.status).toBe("succeeded");
  made.renderId = render.body.id;
  made.pdf = new Uint8Array(await (await fetch(local(t, render.body.result.downloadUrl))).arrayBuffer());
  const sha = sha256Hex(made.pdf);
  made.pdfPath = join(t.dataDir, "outputs", sha.slice(0, 2), sha.slice(2, 4), sha);
  const endpoint = await t.call("/v1/webhook-endpoints", { key: made.key, body: { url: "http://127.0.0.1:9/hook", eventTypes: ["render.failed"] } });
  expect(endpoint.status).toBe(201);
  made.endpointId = endpoint.body.id;
});

afterAll(async () => {
  await restored?.stop();
  await t.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("backup create", () => {
  test("writes a verified archive of the running server's DATA_DIR, mode 0600, and warns that it holds secrets", async () => {
    // A render made while the backup runs: serve keeps working, and the snapshot is the store of one instant.
    const [run, during] = await Promise.all([
      renderd(["backup", "create", "--out", archive, "--data-dir", t.dataDir]),
      t.call("/v1/renders?wait=30", { key: made.key, body: { html: "<p>during the backup</p>" } }),
    ]);
    expect(run.code).toBe(0);
    expect(during.body.status).toBe("succeeded");
    expect(run.err).toMatch(/warning: the archive holds the secret key/);
    expect(run.out).toMatch(/^backup written to .*backup\.tar\.gz \(\d+ files, .*\); verified: integrity_check ok, every sha256 matches\n$/);
    expect(statSync(archive).mode & 0o777).toBe(0o600);
    // Nothing is left beside the archive or in DATA_DIR's staging folder.
    expect(readdirSync(work)).toEqual(["backup.tar.gz"]);
    expect(readdirSync(join(t.dataDir, "tmp")).filter((n) => n.startsWith("backup-"))).toEqual([]);

    const listing = Bun.spawnSync(["tar", "-tzf", archive]).stdout.toString().trim().split("\n");
    expect(listing).toContain("renderd.db");
    expect(listing).toContain("secret.key");
    expect(listing).toContain("manifest.json");
    expect(listing).toContain(made.pdfPath!.slice(t.dataDir.length + 1));
    const manifest = JSON.parse(Bun.spawnSync(["tar", "-xzOf", archive, "manifest.json"]).stdout.toString());
    const level = (await t.server.store.get<{ version: number; name: string }>("SELECT version, name FROM schema_migrations ORDER BY version DESC LIMIT 1"))!;
    expect(manifest).toMatchObject({ format: "renderd-backup", formatVersion: 1, migration: level, missing: [] });
    expect(manifest.renderdVersion).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
    const pdfEntry = manifest.files.find((f: any) => f.path.startsWith("outputs/") && f.sha256 === sha256Hex(made.pdf!));
    expect(pdfEntry).toEqual({ path: expect.any(String), size: made.pdf!.byteLength, sha256: sha256Hex(made.pdf!) });
    expect(manifest.files.find((f: any) => f.path === "secret.key").sha256).toBe(sha256Hex(readFileSync(join(t.dataDir, "secret.key"))));
  });

  test("refuses an --out that exists, and a DATA_DIR without a store, writing nothing", async () => {
    await failure(["backup", "create", "--out", archive, "--data-dir", t.dataDir], /already exists: name a new file with --out/);
    const empty = join(work, "no-store");
    await failure(["backup", "create", "--out", join(work, "x.tar.gz"), "--data-dir", empty], /there is no store at .*renderd\.db: nothing to back up/);
    expect(existsSync(join(work, "x.tar.gz"))).toBe(false);
  });
});

describe("backup verify", () => {
  test("passes a sound archive", async () => {
    const r = await renderd(["backup", "verify", archive]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/backup\.tar\.gz is sound \(\d+ files, .*made .* by renderd /);
  });

  test("a file changed inside the archive fails with the file's name", async () => {
    const tampered = repack("tampered", (dir) => {
      const pdf = join(dir, made.pdfPath!.slice(t.dataDir.length + 1));
      const bytes = readFileSync(pdf);
      bytes[bytes.length - 2] ^= 0xff;
      writeFileSync(pdf, bytes);
    });
    await failure(["backup", "verify", tampered], /^renderd: the archive fails verification: outputs\/.* does not match its sha256 in the manifest \(changed or damaged\)\.$/);
  });

  test("a file changed together with its manifest line still fails: stored files must hash to their names", async () => {
    const tampered = repack("renamed", (dir) => {
      const rel = made.pdfPath!.slice(t.dataDir.length + 1);
      writeFileSync(join(dir, rel), "not the PDF");
      editManifest(dir, (m) => Object.assign(m.files.find((f: any) => f.path === rel), { size: 11, sha256: sha256Hex("not the PDF") }));
    });
    await failure(["backup", "verify", tampered], /outputs\/.* does not hash to its own name/);
  });

  test("a store snapshot that is no database fails its integrity check, even with a manifest to match", async () => {
    const tampered = repack("bad-store", (dir) => {
      writeFileSync(join(dir, "renderd.db"), "garbage, not SQLite");
      editManifest(dir, (m) => Object.assign(m.files.find((f: any) => f.path === "renderd.db"), { size: 19, sha256: sha256Hex("garbage, not SQLite") }));
    });
    await failure(["backup", "verify", tampered], /^renderd: the store (snapshot fails integrity_check|does not open as SQLite)/);
  });

  test("a missing manifest, a changed key, an unlisted file and a damaged gzip each fail with one clear line", async () => {
    await failure(["backup", "verify", repack("no-manifest", (dir) => rmSync(join(dir, "manifest.json")))], /the archive has no manifest\.json/);
    await failure(["backup", "verify", repack("other-key", (dir) => writeFileSync(join(dir, "secret.key"), "another key"))], /secret\.key has 11 bytes where the manifest says 44/);
    const extra = sha256Hex("extra");
    const unlisted = repack("unlisted", (dir) => {
      mkdirSync(join(dir, "assets", extra.slice(0, 2), extra.slice(2, 4)), { recursive: true });
      writeFileSync(join(dir, "assets", extra.slice(0, 2), extra.slice(2, 4), extra), "extra");
    });
    await failure(["backup", "verify", unlisted], new RegExp(`assets/../../${extra} is in the archive but not in the manifest`));
    const damaged = join(work, "damaged.tar.gz");
    const bytes = readFileSync(archive);
    bytes.fill(0x41, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 64);
    writeFileSync(damaged, bytes);
    await failure(["backup", "verify", damaged], /^renderd: the archive (is damaged|fails verification)/);
    const cut = join(work, "cut.tar.gz");
    writeFileSync(cut, readFileSync(archive).subarray(0, 2000));
    await failure(["backup", "verify", cut], /^renderd: the archive (is damaged|has no manifest)/);
    await failure(["backup", "verify", join(work, "nothing.tar.gz")], /nothing\.tar\.gz does not exist/);
  });

  test("an entry outside the backup's layout is refused before anything is written", async () => {
    const evil = repack("evil", (dir) => writeFileSync(join(dir, "notes.txt"), "x"));
    await failure(["backup", "verify", evil], /holds file ".*notes\.txt", which no renderd backup holds: refused/);
  });
});

describe("backup restore", () => {
  test("refuses a folder that is not empty, and a damaged archive leaves nothing behind", async () => {
    await failure(["backup", "restore", archive, "--data-dir", t.dataDir], /is not empty: restore into an empty or new folder/);
    const tampered = join(work, "tampered.tar.gz");
    const target = join(work, "never");
    await failure(["backup", "restore", tampered, "--data-dir", target], /does not match its sha256/);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(work).filter((n) => n.includes(".restore-"))).toEqual([]);
  });

  test("an archive from a newer renderd (a migration this binary does not know) verifies but is not restored", async () => {
    const future = repack("future", (dir) => {
      const db = new Database(join(dir, "renderd.db"));
      db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future', '2030-01-01T00:00:00.000Z')");
      db.close();
      const bytes = readFileSync(join(dir, "renderd.db"));
      editManifest(dir, (m) => {
        m.migration = { version: 9999, name: "9999_future" };
        Object.assign(m.files.find((f: any) => f.path === "renderd.db"), { size: bytes.byteLength, sha256: sha256Hex(bytes) });
      });
    });
    expect((await renderd(["backup", "verify", future])).code).toBe(0);
    const target = join(work, "future-restored");
    await failure(["backup", "restore", future, "--data-dir", target], /the backup is at migration 9999_future, newer than this renderd knows \(\d+\): restore it with a newer renderd\./);
    expect(existsSync(target)).toBe(false);
  });

  test("a restored appliance serves the same key, template, render and PDF bytes, asset and webhook endpoint", async () => {
    mkdirSync(restoredDir); // an empty folder is accepted, like a new one
    const r = await renderd(["backup", "restore", archive, "--data-dir", restoredDir]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^restored .* into .*restored \(\d+ files, .*\); start it with: renderd serve --data-dir /);
    expect(statSync(join(restoredDir, "secret.key")).mode & 0o777).toBe(0o600);

    restored = await startTestServer({ RENDER_WORKERS: "1" }, restoredDir);
    const key = made.key!;
    const template = await restored.call(`/v1/templates/${made.templateId}`, { key });
    expect(template.status).toBe(200);
    expect(template.body.latestVersion).toBe(1);
    const render = await restored.call(`/v1/renders/${made.renderId}`, { key });
    expect(render.status).toBe(200);
    expect(render.body.status).toBe("succeeded");
    const pdf = await fetch(local(restored, render.body.result.downloadUrl));
    expect(pdf.status).toBe(200);
    expect(new Uint8Array(await pdf.arrayBuffer())).toEqual(made.pdf!);
    const endpoints = await restored.call("/v1/webhook-endpoints", { key });
    expect(endpoints.body.items.map((e: any) => e.id)).toContain(made.endpointId);
    const asset = await restored.call(`/v1/assets/${made.assetId}`, { key });
    expect(asset.status).toBe(200);
    expect(new Uint8Array(await (await fetch(local(restored, asset.body.downloadUrl))).arrayBuffer())).toEqual(PNG);
    // And it renders: the store, the pool and the key all work on the restored folder.
    expect((await restored.call("/v1/renders?wait=30", { key, body: { templateId: made.templateId } })).body.status).toBe("succeeded");
  });
});

describe("a SECRET_KEY set in the environment", () => {
  test("is the key archived, as secret.key, since it is the one the appliance runs with", async () => {
    const key = "k".repeat(40);
    const out = join(work, "env-key.tar.gz");
    expect((await renderd(["backup", "create", "--out", out, "--data-dir", t.dataDir], { SECRET_KEY: key })).code).toBe(0);
    expect(Bun.spawnSync(["tar", "-xzOf", out, "secret.key"]).stdout.toString()).toBe(key + "\n");
  });
});

describe("a file removed while the backup runs", () => {
  test("is left out and listed under missing, with a warning; the backup still verifies", async () => {
    // The snapshot still points at the PDF; the file is gone, as when retention deletes it a moment after the snapshot.
    rmSync(made.pdfPath!);
    const out = join(work, "without-pdf.tar.gz");
    const run = await renderd(["backup", "create", "--out", out, "--data-dir", t.dataDir, "--json"]);
    expect(run.code).toBe(0);
    const rel = made.pdfPath!.slice(t.dataDir.length + 1);
    expect(run.err).toContain(`warning: ${rel} left out: removed after the snapshot was taken`);
    expect(JSON.parse(run.out).missing).toEqual([{ path: rel, reason: expect.stringMatching(/removed after the snapshot/) }]);
    expect((await renderd(["backup", "verify", out])).code).toBe(0);
  });
});

describe("--help", () => {
  test("backup names its three subcommands; restore <workspace> still lifts a suspension", async () => {
    const backup = (await renderd(["backup", "--help"])).out;
    for (const sub of ["create", "verify", "restore"]) expect(backup).toMatch(new RegExp(`^\\s+${sub}\\b`, "m"));
    expect((await renderd(["backup", "restore", "--help"])).out).toContain("--data-dir <dir>");
    expect((await renderd(["restore", "--help"])).out).toContain("restore a suspended workspace");
  });
});
