#!/usr/bin/env bash
# The JavaScript package, end to end (called by scripts/test from the repository root after
# `cargo build --release -p oncely-cli` wrote target/release/oncely, the Rust CLI the tests compare
# keys with, and `cargo build --release -p oncely-test-support --bin oncely-test-worker`
# wrote target/release/oncely-test-worker, the test-only Rust worker they race against):
#
#   1. dependencies (npm ci from package-lock.json; skipped while node_modules matches the lock)
#   2. gen/ (committed: the transpiled core component and the SQL migrations) is exactly what the
#      committed component bindings/oncely-core.wasm and migrations/ give with the pinned jco, and
#      dist/ (committed: src/ bundled for Node, what `import 'oncely'` loads there) what src/ and
#      gen/ give
#   3. the tests, on the working tree (through dist/, as the package's `exports` give it to Node)
#   4. with no Rust toolchain on the PATH (scripts/without-rust): npm pack; install the tarball
#      into a clean temporary directory; the tests again, there (the README's install line from a
#      checkout, and fresh projects on Node 20, 22, 24, Deno and Bun with only their own peers, are
#      scripts/release-check.sh, which scripts/release --check runs)
#   5. the workerd tests (the edge example, and the Hono provider, bundling the installed tarball)
#      and the agent-loop example, from the installed tarball
#
# PostgreSQL tests use ONCELY_TEST_POSTGRES_URL (scripts/with-postgres); without it they skip
# loudly, or fail when ONCELY_REQUIRE_POSTGRES=1 or CI is set. DynamoDB tests likewise use
# ONCELY_TEST_DYNAMODB_URL (scripts/with-dynamodb) and ONCELY_REQUIRE_DYNAMODB. Exits non-zero on
# any failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$here"
export ONCELY_REPO="$repo"

# ONCELY_CLI / ONCELY_TEST_WORKER point at other builds of the two (test/helpers/env.mjs reads them).
export ONCELY_CLI="${ONCELY_CLI:-$repo/target/release/oncely}"
export ONCELY_TEST_WORKER="${ONCELY_TEST_WORKER:-$repo/target/release/oncely-test-worker}"
[ -f "$ONCELY_CLI" ] || { echo "bindings/js/test.sh: $ONCELY_CLI is missing; run \`cargo build --release -p oncely-cli\` first (or set ONCELY_CLI)" >&2; exit 2; }
[ -f "$ONCELY_TEST_WORKER" ] || { echo "bindings/js/test.sh: $ONCELY_TEST_WORKER (the Rust test worker) is missing; run \`cargo build --release -p oncely-test-support --bin oncely-test-worker\` first (or set ONCELY_TEST_WORKER)" >&2; exit 2; }
norust=$repo/scripts/without-rust

echo "== js: dependencies"
lock=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.oncely-lock 2>/dev/null || true)" != "$lock" ]; then
    npm ci --no-audit --no-fund
    echo "$lock" > node_modules/.oncely-lock
fi

echo "== js: gen/ is what the committed component gives (jco $(node -p 'require("./node_modules/@bytecodealliance/jco/package.json").version'))"
node scripts/build.mjs --check

echo "== js: dist/ is what src/ and gen/ give (scripts/bundle.mjs --check)"
node scripts/bundle.mjs --check

echo "== js: src/gen/wit.js and types/wit.d.ts are what the committed component gives (scripts/mirrors --check)"
"$repo/scripts/mirrors" --check

# Every test file but the workerd ones (which bundle the installed tarball, step 5).
mapfile -t suite < <(ls test/*.test.mjs | grep -v -e '/edge\.test\.mjs$' -e '/provider-hono-workerd\.test\.mjs$')
# The tests of the benchmarks (test/bench-*.test.mjs) run on the working tree only: bench/ is the
# repository's, not the package's.
mapfile -t packaged < <(printf '%s\n' "${suite[@]}" | grep -v -e '/bench-[^/]*\.test\.mjs$')

echo "== js: tests on the working tree"
node --test --test-concurrency=1 "${suite[@]}"

echo "== js: npm pack, install into a clean directory (no Rust on the PATH)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oncely-js-pack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$norust" npm pack --silent --pack-destination "$tmp" >/dev/null
tarball=$(ls "$tmp"/*.tgz)
mkdir "$tmp/app"
cd "$tmp/app"
npm init -y >/dev/null
version() { node -p "require('$here/node_modules/$1/package.json').version"; }
# The package from its tarball; its optional drivers, the frameworks its adapters wrap, the
# OpenTelemetry API it reports to and the SDK the tests read it with, the frameworks of the provider
# middleware (oncely/hono, oncely/express, oncely/mcp), and the test tools, at the
# versions locked here. better-sqlite3 is a native module: the one built by npm ci above is linked
# rather than compiled a second time, and Restate's server binary (225 MB) is the one npm ci put in
# bindings/js/node_modules (test/helpers/restate.mjs finds it through ONCELY_REPO).
frameworks=()
for p in ai @openai/agents @langchain/core @langchain/langgraph @langchain/langgraph-checkpoint-sqlite langchain @mastra/core @mastra/memory @mastra/libsql @restatedev/restate-sdk zod \
    @dbos-inc/dbos-sdk hono @hono/node-server express @modelcontextprotocol/sdk \
    @opentelemetry/api @opentelemetry/sdk-metrics @opentelemetry/sdk-trace-base @opentelemetry/context-async-hooks; do
    frameworks+=("$p@$(version "$p")")
done
"$norust" npm install --no-audit --no-fund --prefer-offline "$tarball" "pg@$(version pg)" \
    "@aws-sdk/client-dynamodb@$(version @aws-sdk/client-dynamodb)" "typescript@$(version typescript)" "${frameworks[@]}" >/dev/null
# (@langchain/langgraph-checkpoint-sqlite depends on better-sqlite3: the copy npm put here is
# replaced by the link.)
rm -rf node_modules/better-sqlite3
ln -s "$here/node_modules/better-sqlite3" node_modules/better-sqlite3
cp -r "$here/test" test
installed="$tmp/app/node_modules/oncely"
[ ! -e "$installed/test" ] && [ -f "$installed/gen/core/oncely-core.core.wasm" ] || { echo "the packed package has the wrong files" >&2; exit 1; }
echo "installed $(basename "$tarball") ($(du -sh "$installed" | cut -f1)) into $tmp/app"

echo "== js: tests on the installed tarball (no Rust on the PATH)"
ONCELY_JS_PACKAGE="$installed" "$norust" node --test --test-concurrency=1 "${packaged[@]}"

echo "== js: workerd (the edge example and the Hono provider, bundling the installed tarball)"
cd "$here"
ONCELY_JS_PACKAGE="$installed" node --test --test-concurrency=1 test/edge.test.mjs test/provider-hono-workerd.test.mjs

echo "== js: the agent-loop example, on the installed tarball"
cp "$repo/examples/js/agent-loop.mjs" "$tmp/app/"
(cd "$tmp/app" && node agent-loop.mjs && node agent-loop.mjs --db "$tmp/app/agent-ledger.db" | tail -n 2)

echo "== js: all passed"
