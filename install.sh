#!/usr/bin/env bash
# install.sh — take a fresh Debian 12 machine with only node and npm to a built dist/renderd.
#
#   ./install.sh                 system packages, npm dependencies, build (each skipped when done)
#   FORCE_BUILD=1 ./install.sh   rebuild dist/renderd even if nothing changed
#
# Safe to run again: every step checks first and says what it did or why it skipped.
# See docs/install.md.
set -Eeuo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

say() { printf '==> %s\n' "$*"; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }
trap 'die "step failed (line $LINENO): $BASH_COMMAND"' ERR

# --- 0. what we start from ------------------------------------------------------------------------
command -v node >/dev/null || die "node is not installed (Node.js 20 or later is needed to run npm)"
command -v npm >/dev/null || die "npm is not installed"
say "node $(node --version), npm $(npm --version)"

# --- 1. system packages -----------------------------------------------------------------------------
# chromium:            the only browser renderd drives (never downloaded by playwright)
# fonts-*:             a basic Latin font set so documents do not render with a fallback bitmap font; renderd
#                      embeds Liberation Sans in visible signature boxes (docs/pdf.md "Visible signatures")
# poppler-utils:       pdftotext/pdfinfo/pdfsig/pdftoppm/pdfdetach, used by the tests to read the PDFs renderd produces
# openssl:             the signing tests make their PKCS#12 certificates and a timestamp authority with it
# ca-certificates:     TLS roots for outbound webhook deliveries
# ghostscript:         the PDF/A conversion of renders with pdf.standard (docs/pdf.md)
# redis-server:        REDIS_URL's rate counters; the tests start their own on a free port (docs/scale-out.md)
# postgresql:          the shared store of issue 15 (docs/scale-out.md); its tests start a throw-away cluster (test/store/postgres-server.ts)
# openssh-server:      the sshd the SFTP destination tests start on a loopback port (test/destinations/servers.ts)
# qpdf:                the tests check the structure of finished PDFs (qpdf --check)
# strace:              a test reads the system calls of a stored file's write: flushed before it takes its address
# jq:                  docs/authoring.md's worked invoice reads ids from the API's answers with it, and a test runs it as written
# webp:                cwebp encodes page images as WebP (docs/pdf.md "Page images"; pdftoppm writes no WebP); the tests decode them with dwebp
CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
packages=(fonts-dejavu-core fonts-liberation poppler-utils openssl ca-certificates tmux ghostscript redis-server postgresql openssh-server qpdf strace jq webp)
if [[ -x "$CHROMIUM_PATH" && "$CHROMIUM_PATH" != /usr/bin/chromium ]]; then
  say "using CHROMIUM_PATH=$CHROMIUM_PATH; not installing Debian's chromium"
else
  packages=(chromium "${packages[@]}")
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'; }
missing=()
for package in "${packages[@]}"; do
  installed "$package" || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  say "system packages already installed: ${packages[*]}"
else
  command -v apt-get >/dev/null || die "missing ${missing[*]} and apt-get is not available (Debian 12 is expected); install them by hand"
  if ((EUID == 0)); then
    as_root=()
  elif command -v sudo >/dev/null; then
    # -n: never wait for a password on a machine without a terminal (CI); fail instead.
    if [[ -t 0 ]]; then as_root=(sudo); else as_root=(sudo -n); fi
  else
    die "missing ${missing[*]}: run as root or install sudo"
  fi
  say "installing system packages: ${missing[*]}"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q \
    || die "apt-get update failed"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
    || die "apt-get install ${missing[*]} failed"
fi

[[ -x "$CHROMIUM_PATH" ]] || die "no Chromium at $CHROMIUM_PATH (set CHROMIUM_PATH to the browser executable)"
# Debian's /usr/bin/chromium is a shell wrapper that may print harmless shell noise on stderr.
chromium_version="$("$CHROMIUM_PATH" --version 2>/dev/null)" || die "$CHROMIUM_PATH --version failed"
say "chromium: $chromium_version ($CHROMIUM_PATH)"

# --- 2. npm dependencies (Bun comes from the npm package `bun`) -------------------------------------
# npm runs under a Node new enough for the dependencies' declared engines. Ink 8, commander 15 and file-type 22 (and
# Ink's chalk, slice-ansi, cli-truncate and ansi-styles) declare node >= 22, commander >= 22.12. renderd runs them
# under Bun, never under Node, but npm checks every package against the Node that runs npm and prints an EBADENGINE
# warning for each one (35 lines under Debian's or NodeSource's Node 20). With a system Node older than that, npm runs
# under Node NPM_NODE_VERSION, the official binary inside the npm registry's node-linux-<arch> package, kept in
# .cache/ (its headers build cpu-features, ssh2's optional native part, without fetching them from elsewhere).
# test/install.test.ts holds every locked package's engines to this version.
NPM_NODE_VERSION=22.23.3
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 12) ? 0 : 1)'; then
  node_arch="$(node -p process.arch)"
  node_dir=".cache/node-$NPM_NODE_VERSION-linux-$node_arch"
  if [[ ! -x "$node_dir/bin/node" ]]; then
    say "node $(node --version) is older than the 22.12 renderd's dependencies declare: fetching node $NPM_NODE_VERSION for npm (npm package node-linux-$node_arch)"
    node_tmp="$(mktemp -d)"
    (cd "$node_tmp" && npm pack --silent "node-linux-$node_arch@$NPM_NODE_VERSION" >/dev/null) || die "npm pack node-linux-$node_arch@$NPM_NODE_VERSION failed"
    mkdir -p "$node_dir.part"
    tar -xzf "$node_tmp"/node-linux-*.tgz -C "$node_dir.part" --strip-components=1 || die "unpacking node $NPM_NODE_VERSION failed"
    rm -rf "$node_tmp" "$node_dir"
    mv "$node_dir.part" "$node_dir"
  fi
  export PATH="$PWD/$node_dir/bin:$PATH" npm_config_nodedir="$PWD/$node_dir"
  say "npm runs under node $(node --version) ($node_dir)"
fi

# The stamp is the hash of package.json and the lock file, kept inside node_modules: deleting
# node_modules deletes the stamp, and any change to either file reinstalls.
lockfile=package-lock.json
stamp=node_modules/.install-stamp
want_stamp="$(cat package.json "$lockfile" 2>/dev/null | sha256sum | cut -d' ' -f1)"
if [[ -f "$lockfile" && -f "$stamp" && "$(cat "$stamp")" == "$want_stamp" && -x node_modules/.bin/bun ]]; then
  say "npm dependencies up to date with $lockfile"
else
  if [[ -f "$lockfile" ]]; then
    say "installing npm dependencies: npm ci"
    npm ci --no-audit --no-fund || die "npm ci failed"
  else
    say "no $lockfile: npm install (commit the lock file it writes)"
    npm install --no-audit --no-fund || die "npm install failed"
    want_stamp="$(cat package.json "$lockfile" | sha256sum | cut -d' ' -f1)"
  fi
  printf '%s\n' "$want_stamp" >"$stamp"
fi

bun=node_modules/.bin/bun
# The npm package `bun` puts the real binary in place in its postinstall script. npm 11 warns that
# dependency install scripts are "not yet covered by allowScripts" and documents blocking them; if
# they were skipped (or npm ran with --ignore-scripts), bin/bun.exe is a 450-byte placeholder: run the
# package's own postinstall, as its placeholder message asks.
if ! "$bun" --version >/dev/null 2>&1 && [[ -f node_modules/bun/install.js ]]; then
  say "bun's postinstall did not run: running it (cd node_modules/bun && node install.js)"
  (cd node_modules/bun && node install.js) || die "bun's postinstall failed"
fi
bun_version="$("$bun" --version 2>/dev/null)" \
  || die "$bun does not run (the npm package 'bun' installs the binary for this CPU in its postinstall)"
say "bun $bun_version"

# --- 3. build dist/renderd ------------------------------------------------------------------------
# Skip when the inputs of the binary are byte-for-byte those of the last build.
build_stamp=dist/.build-stamp
build_inputs() {
  {
    for dir in cli src scripts migrations; do if [[ -d "$dir" ]]; then find "$dir" -type f; fi; done
    for file in package.json "$lockfile" tsconfig.json; do if [[ -f "$file" ]]; then echo "$file"; fi; done
  } | LC_ALL=C sort | xargs -d '\n' sha256sum
  printf 'bun %s\n' "$bun_version"
  # The binary names its commit (`renderd --version`): a new commit is a new build even when no source changed.
  printf 'commit %s\n' "$(git rev-parse HEAD 2>/dev/null || echo none)"
}
want_build="$(build_inputs | sha256sum | cut -d' ' -f1)"
if [[ "${FORCE_BUILD:-}" != 1 && -x dist/renderd && -f "$build_stamp" && "$(cat "$build_stamp")" == "$want_build" ]]; then
  say "dist/renderd is up to date (FORCE_BUILD=1 to rebuild)"
else
  say "building dist/renderd: $bun run scripts/build.ts"
  rm -f "$build_stamp"
  "$bun" run scripts/build.ts || die "build failed (see the messages above)"
  printf '%s\n' "$want_build" >"$build_stamp"
fi

# --- 4. smoke test --------------------------------------------------------------------------------
dist/renderd --help >/dev/null || die "dist/renderd --help failed: the binary does not start"

# --- 5. doctor ------------------------------------------------------------------------------------
# The host as serve will see it, with the same settings (DATA_DIR, PORT, ... from the environment). The install is
# complete whatever doctor finds: a FAIL here is most often a port already taken (the renderd serving this DATA_DIR
# passes; anything else does not) or a DATA_DIR to fix, and it must be fixed before serve, not
# before the build. So a failing check is reported loudly and does not fail install.sh (docs/install.md).
if CHROMIUM_PATH="$CHROMIUM_PATH" dist/renderd doctor; then
  say "doctor: ready to serve"
else
  say "doctor: the FAIL lines above must be fixed before 'dist/renderd serve' (the install itself is complete)"
fi
say "done: dist/renderd ($(du -h dist/renderd | cut -f1)); it needs Chromium at run time: CHROMIUM_PATH=$CHROMIUM_PATH"
