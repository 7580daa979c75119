/** install: `npm ci` as install.sh runs it stays clean — every locked package's declared Node engine is met by the
 * Node npm runs under (install.sh's NPM_NODE_VERSION: no EBADENGINE warning), and every package with an install
 * script is approved or denied in package.json's allowScripts (no "not yet covered by allowScripts" warning). */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; engines?: Record<string, string> | string[]; hasInstallScript?: boolean; optional?: boolean }>;
};
const nameOf = (path: string) => path.replace(/^.*node_modules\//, "");

test("every locked package's engines.node accepts the Node install.sh runs npm under", () => {
  const version = /^NPM_NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(readFileSync(join(root, "install.sh"), "utf8"))?.[1];
  expect(version).toBeDefined();
  const refused = Object.entries(lock.packages)
    .filter(([path, p]) => path !== "" && !Array.isArray(p.engines) && p.engines?.node && !Bun.semver.satisfies(version!, p.engines.node))
    .map(([path, p]) => `${nameOf(path)}@${p.version} wants node ${(p.engines as Record<string, string>).node}`);
  // A dependency that needs a newer Node: raise NPM_NODE_VERSION in install.sh.
  expect(refused).toEqual([]);
  // And the reason install.sh brings its own: the dependencies do not accept the Node 20 of Debian's and NodeSource's.
  const onNode20 = Object.entries(lock.packages).filter(([, p]) => !Array.isArray(p.engines) && p.engines?.node && !Bun.semver.satisfies("20.20.2", p.engines.node));
  expect(onNode20.map(([path]) => nameOf(path))).toContain("ink");
});

test("every package with an install script is approved or denied in allowScripts", () => {
  const { allowScripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { allowScripts: Record<string, boolean> };
  const scripted = Object.entries(lock.packages).filter(([, p]) => p.hasInstallScript).map(([path]) => nameOf(path));
  expect(scripted.length).toBeGreaterThan(0);
  expect(scripted.filter((name) => !(name in allowScripts))).toEqual([]);
  // bun's postinstall puts the runtime in place; scarf's only reports the install to its vendor.
  expect(allowScripts).toMatchObject({ bun: true, "@scarf/scarf": false });
});
