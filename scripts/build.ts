// Build the appliance: one executable, dist/renderd, from cli/main.ts (DESIGN.md section 1).
//
//   bun run scripts/build.ts                      build cli/main.ts -> dist/renderd
//   bun run scripts/build.ts <entry> <outfile>    build another entry (used to probe the toolchain)
//
// Why a script and not a one-line `bun build --compile`:
// - Ink imports `react-devtools-core` (an optional peer we do not install) from ink/build/devtools.js.
//   The compiler must resolve every static import, so a plugin points that name at
//   scripts/stubs/react-devtools-core.ts.
// - playwright-core loads its own package.json and browsers.json with
//   `require(path.join(packageRoot, "..."))`, where packageRoot comes from __dirname. The compiler
//   cannot bundle a computed require and bakes __dirname in as the build machine's path, so the
//   binary dies at `chromium.launch` with "Cannot find module …/node_modules/playwright-core/package.json"
//   on any machine without that node_modules (oven-sh/bun#18749, #25038, #27530). We rewrite those two
//   requires to literal relative ones, which the compiler then embeds.
// - file-type's fileTypeFromFile() imports `strtok3` through a helper that hides the specifier from
//   bundlers; made literal, strtok3 is embedded too.
// - The console (console/index.html, imported by src/http/console.ts) is bundled into the executable with its own
//   chunks; `splitting` keeps the lazily imported template editor (CodeMirror) in a chunk of its own.
// - The executable must not pick up a bunfig.toml or .env from whatever directory it is started in:
//   configuration comes from the environment and flags only (src/config.ts).
// Each rewrite must match exactly as often as expected, or the build stops: a dependency upgrade that
// moves the code must be looked at, not shipped as a binary that fails at run time.
import { mkdirSync, rmSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import type { BunPlugin } from "bun";

const root = resolve(import.meta.dir, "..");
const entry = resolve(root, process.argv[2] ?? "cli/main.ts");
const outfile = resolve(root, process.argv[3] ?? "dist/renderd");
const stubs = resolve(import.meta.dir, "stubs");

/** A source rewrite of one dependency file: `find` must match exactly `count` times. */
interface Patch {
  /** The package the file belongs to: when it is bundled, the patch must have been applied. */
  pkg: string;
  file: RegExp;
  find: RegExp;
  replace: string;
  count: number;
  why: string;
}

const patches: Patch[] = [
  {
    pkg: "playwright-core",
    file: /[\\/]playwright-core[\\/]lib[\\/]coreBundle\.js$/,
    find: /require\(import_path\d+\.default\.join\(packageRoot, "(package|browsers)\.json"\)\)/g,
    replace: 'require("../$1.json")',
    count: 2,
    why: "playwright-core reads package.json and browsers.json from its install directory",
  },
  {
    pkg: "file-type",
    file: /[\\/]file-type[\\/]source[\\/]index\.js$/,
    find: /importAtRuntime\('strtok3'\)/g,
    replace: "import('strtok3')",
    count: 1,
    why: "file-type hides its strtok3 import from bundlers",
  },
];

/** patchDependencies applies the source rewrites above while the files are loaded. */
const patchDependencies: BunPlugin = {
  name: "patch-dependencies",
  setup(build) {
    for (const patch of patches) {
      build.onLoad({ filter: patch.file }, async ({ path }) => {
        const source = await Bun.file(path).text();
        const found = source.match(patch.find)?.length ?? 0;
        if (found !== patch.count) {
          throw new Error(
            `build: ${relative(root, path)}: expected ${patch.count} match(es) of ${patch.find}, found ${found} ` +
              `(${patch.why}); the dependency changed, re-check the rewrite in scripts/build.ts`,
          );
        }
        applied.add(patch);
        return { contents: source.replace(patch.find, patch.replace), loader: "js" };
      });
    }
  },
};
const applied = new Set<Patch>();

/** stubOptionalPeers resolves optional peer packages that are not installed to local stubs. */
const stubOptionalPeers: BunPlugin = {
  name: "stub-optional-peers",
  setup(build) {
    build.onResolve({ filter: /^react-devtools-core$/ }, () => ({
      path: resolve(stubs, "react-devtools-core.ts"),
    }));
  },
};

/** buildCommit answers the checkout's commit (12 hex digits, `-dirty` with uncommitted changes), or `unknown` outside git. */
function buildCommit(): string {
  const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: root, stdout: "pipe", stderr: "ignore" });
  const head = git("rev-parse", "--short=12", "HEAD");
  if (head.exitCode !== 0) return "unknown";
  const dirty = git("status", "--porcelain", "--untracked-files=no").stdout.toString().trim() !== "";
  return head.stdout.toString().trim() + (dirty ? "-dirty" : "");
}

if (!(await Bun.file(entry).exists())) {
  console.error(`build: entry ${relative(root, entry)} does not exist`);
  process.exit(1);
}
mkdirSync(dirname(outfile), { recursive: true });

const started = performance.now();
const result = await Bun.build({
  entrypoints: [entry],
  target: "bun",
  format: "esm",
  // Keep names readable in stack traces; whitespace and syntax minification only shrink the text.
  minify: { whitespace: true, syntax: true, identifiers: false },
  // In a compiled executable the source map is embedded (zstd) and used for stack traces; the
  // .map file also written beside it is deleted below.
  sourcemap: "linked",
  // Bytecode: start-up of every `renderd` command drops from ~0.26 s to ~0.09 s for +18 MiB and
  // ~2 s of build time (measured on the dependency set, Bun 1.4.5).
  bytecode: true,
  metafile: true,
  splitting: true,
  plugins: [stubOptionalPeers, patchDependencies],
  // RENDERD_COMMIT is what `renderd --version` names (src/version.ts).
  define: { "process.env.NODE_ENV": JSON.stringify("production"), RENDERD_COMMIT: JSON.stringify(buildCommit()) },
  compile: {
    outfile,
    autoloadBunfig: false,
    autoloadDotenv: false,
    autoloadTsconfig: false,
    autoloadPackageJson: false,
  },
  throw: false,
});
rmSync(`${outfile}.map`, { force: true });
// The console's chunks get linked source maps too, written beside the build root; they are not shipped.
for (const map of new Bun.Glob("chunk-*.js.map").scanSync({ cwd: root, absolute: true })) rmSync(map, { force: true });
for (const map of new Bun.Glob("*.js.map").scanSync({ cwd: dirname(outfile), absolute: true })) rmSync(map, { force: true });

if (!result.success) {
  console.error(`build: ${relative(root, entry)} failed`);
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
for (const log of result.logs) console.warn(log);

// A patch whose package is in the binary but whose file was never loaded means the package moved
// its code: the binary would build and then fail at run time, so stop here.
const metafile: unknown = result.metafile;
const meta = (typeof metafile === "string" ? JSON.parse(metafile) : metafile) as { inputs?: object } | undefined;
const inputs = Object.keys(meta?.inputs ?? {});
for (const patch of patches) {
  const bundled = inputs.some((input) => input.includes(`node_modules/${patch.pkg}/`));
  if (bundled && !applied.has(patch)) {
    console.error(`build: ${patch.pkg} is bundled but ${patch.file} was not patched (${patch.why}); re-check scripts/build.ts`);
    rmSync(outfile, { force: true });
    process.exit(1);
  }
  if (applied.has(patch)) console.log(`build: patched ${patch.pkg}: ${patch.why}`);
}

const seconds = ((performance.now() - started) / 1000).toFixed(1);
const mib = (statSync(outfile).size / 1024 / 1024).toFixed(1);
console.log(`build: ${relative(root, outfile)} (${mib} MiB) from ${relative(root, entry)} in ${seconds} s`);
