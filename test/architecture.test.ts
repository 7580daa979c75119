import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

// The layer rule of docs/architecture.md: a file may import its own layer or a lower one, never a higher one,
// and no chain of imports may come back to where it started — neither from file to file nor from folder to folder. Type-only imports count too: a lower layer that
// names a higher layer's type is shaped by it (a field added above breaks code below), and since every type is
// `Static<typeof Schema>` the fix is the same as for a value import — move the schema down.
const ROOT = resolve(import.meta.dir, "..");
const SRC = join(ROOT, "src");

/** The layers from the bottom up; a path matches the first prefix that starts it. */
const LAYERS: { name: string; prefixes: string[] }[] = [
  { name: "lib", prefixes: ["lib/", "version.ts", "errors.ts", "logger.ts", "config.ts"] },
  { name: "store", prefixes: ["store/", "ledger/", "metrics/"] },
  { name: "auth/http/pdf", prefixes: ["auth/", "http/", "backup/", "pdf/"] },
  { name: "render/webhooks/queue", prefixes: ["render/", "webhooks/", "destinations/", "queue/"] },
  { name: "context", prefixes: ["context.ts"] },
  { name: "modules", prefixes: ["modules/"] },
  { name: "app", prefixes: ["app.ts", "bootstrap.ts", "server.ts", "doctor/"] },
];

/** An import: `from` imports `to` at `at` (file:line). In the folder graph `from` and `to` are folders, `at` a file. */
type Edge = { from: string; to: string; at: string };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    if (candidate.startsWith(SRC) && /\.tsx?$/.test(candidate) && existsSync(candidate)) return candidate;
  }
  return null;
}

/** importsOf lists every static, dynamic, type-only and re-export import of one file with its line. */
function importsOf(file: string): Edge[] {
  const text = readFileSync(file, "utf8");
  const info = ts.preProcessFile(text, true, true);
  const edges: Edge[] = [];
  for (const ref of info.importedFiles) {
    const to = resolveImport(file, ref.fileName);
    if (!to) continue;
    const line = text.slice(0, ref.pos).split("\n").length;
    edges.push({ from: relative(ROOT, file), to: relative(ROOT, to), at: `${relative(ROOT, file)}:${line}` });
  }
  return edges;
}

/** folderOf names the folder a file belongs to: a module's folder (src/modules/<name>) or a top folder of src/ (with
 * its subfolders: a part such as render/compile or destinations/transports belongs to its parent); a file directly
 * in src/ stands alone. */
function folderOf(path: string): string {
  const parts = path.split("/");
  if (parts.length === 2) return path;
  return parts.slice(0, parts[1] === "modules" ? 3 : 2).join("/");
}

/** folderEdges is the import graph one level up: an import between two folders, each kept with the file that makes it. */
function folderEdges(fileEdges: Edge[]): Edge[] {
  return fileEdges.map((e) => ({ ...e, from: folderOf(e.from), to: folderOf(e.to) })).filter((e) => e.from !== e.to);
}

function layerOf(path: string): number {
  const inSrc = relative(SRC, join(ROOT, path));
  const index = LAYERS.findIndex((layer) => layer.prefixes.some((p) => inSrc === p || inSrc.startsWith(p)));
  if (index < 0) throw new Error(`${path} is in no layer: add it to LAYERS and docs/architecture.md`);
  return index;
}

/** cycles finds each strongly connected group of nodes (files or folders; Tarjan) and names one loop through it. */
function cycles(edges: Edge[]): string[] {
  const out = new Map<string, Edge[]>();
  for (const e of edges) out.set(e.from, [...(out.get(e.from) ?? []), e]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let counter = 0;
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const { to } of out.get(v) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v)!, index.get(to)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (out.get(v) ?? []).some((e) => e.to === v)) groups.push(group);
    }
  };
  for (const node of new Set(edges.flatMap((e) => [e.from, e.to]))) if (!index.has(node)) visit(node);
  return groups.map((group) => {
    // Walk inside the group from its first node until a node repeats: that walk is a loop to show.
    const members = new Set(group);
    const path: Edge[] = [];
    const seen = new Map<string, number>();
    let at = group[0];
    while (!seen.has(at)) {
      seen.set(at, path.length);
      const next = (out.get(at) ?? []).find((e) => members.has(e.to))!;
      path.push(next);
      at = next.to;
    }
    return path
      .slice(seen.get(at))
      .map((e) => (e.at.startsWith(`${e.from}:`) ? `${e.at} → ${e.to}` : `${e.from} → ${e.to} (${e.at})`))
      .join("\n  ");
  });
}

const edges = sourceFiles(SRC).flatMap(importsOf);

describe("the layers of src/ (docs/architecture.md)", () => {
  test("the import reader sees static, type-only, re-export and dynamic imports", () => {
    const from = (file: string) => edges.filter((e) => e.from === `src/${file}`).map((e) => e.to);
    expect(from("server.ts")).toContain("src/app.ts");
    expect(edges.length).toBeGreaterThan(400);
    const sample = ts.preProcessFile(
      'import type { A } from "./a";\nexport { B } from "./b";\nconst c = await import("./c");\nimport "./d";',
      true,
      true,
    );
    expect(sample.importedFiles.map((f) => f.fileName)).toEqual(["./a", "./b", "./c", "./d"]);
  });

  test("no file imports a higher layer", () => {
    const upward = edges
      .filter((e) => layerOf(e.to) > layerOf(e.from))
      .map((e) => `${e.at} (${LAYERS[layerOf(e.from)].name}) imports ${e.to} (${LAYERS[layerOf(e.to)].name})`);
    expect(upward).toEqual([]);
  });

  test("a module's routes file (modules/*/index.ts) is imported by the app layer only", () => {
    const app = LAYERS.length - 1;
    const intoRoutes = edges
      .filter((e) => /^src\/modules\/[^/]+\/index\.ts$/.test(e.to) && layerOf(e.from) !== app)
      .map((e) => `${e.at} imports the routes file ${e.to}`);
    expect(intoRoutes).toEqual([]);
  });

  test("the cycle check finds a file circle, and a folder circle that no file circle makes", () => {
    const edge = (from: string, to: string): Edge => ({ from, to, at: `${from}:1` });
    const fileCircle = [edge("src/a/x.ts", "src/a/y.ts"), edge("src/a/y.ts", "src/b/z.ts"), edge("src/b/z.ts", "src/a/x.ts")];
    expect(cycles(fileCircle)).toEqual(["src/b/z.ts:1 → src/a/x.ts\n  src/a/x.ts:1 → src/a/y.ts\n  src/a/y.ts:1 → src/b/z.ts"]);
    // Two modules that each use the other through different files: no file comes back to itself, the folders do.
    const folderCircle = [edge("src/modules/a/counters.ts", "src/modules/b/service.ts"), edge("src/modules/b/service.ts", "src/modules/a/service.ts")];
    expect(cycles(folderCircle)).toEqual([]);
    expect(cycles(folderEdges(folderCircle))).toEqual([
      "src/modules/b → src/modules/a (src/modules/b/service.ts:1)\n  src/modules/a → src/modules/b (src/modules/a/counters.ts:1)",
    ]);
    // A part importing its parent folder and back (render/compile ↔ render) is one folder; files directly in src/ stand alone.
    expect(cycles(folderEdges([edge("src/render/compile/a.ts", "src/render/b.ts"), edge("src/render/b.ts", "src/render/compile/c.ts")]))).toEqual([]);
    expect(cycles(folderEdges([edge("src/app.ts", "src/errors.ts"), edge("src/errors.ts", "src/server.ts")]))).toEqual([]);
    expect(cycles([edge("src/a/x.ts", "src/a/y.ts")])).toEqual([]);
  });

  test("no import cycle between files", () => {
    expect(cycles(edges)).toEqual([]);
  });

  test("no import cycle between folders", () => {
    expect(cycles(folderEdges(edges))).toEqual([]);
  });
});
