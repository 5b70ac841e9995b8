#!/usr/bin/env bash
# The Python package as it is released: bindings/python/scripts/release-check.sh OUTDIR
#
#   1. build the sdist and the wheel into OUTDIR (python -m build: the wheel is built from the
#      sdist), with pinned tools, and check that nothing was written into bindings/python
#      (git status, ignored files too, and every file and folder's time);
#   2. twine check --strict; the wheel is py3-none-any and carries the component, the SQL
#      migrations, the Redis store's Lua scripts, LICENSE and py.typed;
#   3. a wheel built from the sdist alone (unpacked in a temporary folder, no repository around)
#      holds the same files with the same contents;
#   4. on each of Python 3.10, 3.11, 3.12 and 3.13 (pyenv's): a fresh virtual environment,
#      pip install OUTDIR/oncely-*.whl, and tests/smoke_installed.py against it from a
#      temporary working folder (tests/test_installed.py without pytest: the wheel's files, its
#      version, a golden key of tests/vectors/keys.json, the migrations, one effect through a
#      SQLite ledger and its replay); on 3.10 and 3.13, every extra resolves (pip install
#      --dry-run): together, but for the frameworks tested in environments of their own
#      (tests/frameworks/), each alone;
#   5. pip install from a read-only copy of the checkout (bindings/python, bindings/oncely-core.wasm
#      and migrations/), on one Python: as root, without the capability to override file
#      permissions, so the read-only bits hold; and from git (git+file://REPO#subdirectory=…, the
#      committed HEAD), as `pip install "oncely @ git+URL#subdirectory=bindings/python"` does.
#
# Needs git, pyenv's Pythons 3.10.13, 3.11.7, 3.12.1 and 3.13.0 (under $PYENV_ROOT, default
# ~/.pyenv), setpriv when run as root, and the package registry. Prints each step; exits non-zero
# at the first failure. Never skips.
set -euo pipefail

BUILD_PIN="build==1.6.1"
TWINE_PIN="twine==7.0.0"
PYTHONS=(3.10.13 3.11.7 3.12.1 3.13.0)

die() {
    echo "release-check.sh: FAILED: $*" >&2
    exit 1
}
run() {
    echo "   \$ $*"
    "$@"
}

[ $# -eq 1 ] || die "usage: bindings/python/scripts/release-check.sh OUTDIR"
here=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
case "$out/" in
    "$here/"*) die "OUTDIR ($out) must be outside bindings/python" ;;
esac
if compgen -G "$out/oncely-*.whl" >/dev/null || compgen -G "$out/oncely-*.tar.gz" >/dev/null; then
    die "$out already holds oncely archives: give an empty OUTDIR"
fi
command -v git >/dev/null || die "git is needed"
git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 || die "$repo is not a git checkout"

pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
for v in "${PYTHONS[@]}"; do
    [ -x "$pyenv_root/versions/$v/bin/python3" ] ||
        die "Python $v is missing: $pyenv_root/versions/$v/bin/python3 (pyenv install $v)"
done
if [ "$(id -u)" = 0 ]; then
    command -v setpriv >/dev/null || die "setpriv (util-linux) is needed to drop root's override"
fi

start=$SECONDS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oncely-release-py.XXXXXX")
cleanup() {
    chmod -R u+w "$tmp" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
export PIP_DISABLE_PIP_VERSION_CHECK=1
# No bytecode caches: the build imports hatch_build.py, and the smoke test tests/test_installed.py,
# both from the source tree; a .pyc beside them would be a file written into it.
export PYTHONDONTWRITEBYTECODE=1
step() {
    echo "== python release check: $* ($((SECONDS - start))s)"
}

step "build tools ($BUILD_PIN, $TWINE_PIN; the backend is pyproject.toml's pinned hatchling)"
tools_py="$pyenv_root/versions/3.12.1/bin/python3"
run "$tools_py" -m venv "$tmp/tools"
run "$tmp/tools/bin/pip" install --quiet "$BUILD_PIN" "$TWINE_PIN"

step "build the sdist and, from it, the wheel into $out"
status_before=$(git -C "$repo" status --porcelain --ignored -- bindings/python)
stamp="$tmp/stamp"
touch "$stamp"
sleep 1 # a file written in the same second as the stamp is not -newer than it
run "$tmp/tools/bin/python" -m build --outdir "$out" "$here" >"$tmp/build.log" 2>&1 || {
    cat "$tmp/build.log" >&2
    die "python -m build"
}
tail -n 1 "$tmp/build.log"
status_after=$(git -C "$repo" status --porcelain --ignored -- bindings/python)
if [ "$status_before" != "$status_after" ]; then
    diff <(echo "$status_before") <(echo "$status_after") >&2 || true
    die "the build changed bindings/python (git status --porcelain --ignored, before > after)"
fi
written=$(find "$here" -newer "$stamp")
[ -z "$written" ] || die "the build wrote into bindings/python: $written"
echo "   nothing written into bindings/python (git status and file times)"

mapfile -t wheels < <(compgen -G "$out/oncely-*.whl")
mapfile -t sdists < <(compgen -G "$out/oncely-*.tar.gz")
[ ${#wheels[@]} -eq 1 ] && [ ${#sdists[@]} -eq 1 ] || die "expected one wheel and one sdist in $out"
wheel=${wheels[0]}
sdist=${sdists[0]}
echo "   $(basename "$wheel") $(basename "$sdist")"

step "twine check --strict; what the wheel holds"
run "$tmp/tools/bin/twine" check --strict "$wheel" "$sdist"
case "$(basename "$wheel")" in
    *-py3-none-any.whl) ;;
    *) die "the wheel must be pure Python (py3-none-any): $(basename "$wheel")" ;;
esac
# One line per file: its name and sha256 (the wheel's RECORD, less RECORD's own line).
record() {
    "$tmp/tools/bin/python" - "$1" <<'PY'
import csv, io, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
(name,) = [n for n in z.namelist() if n.endswith(".dist-info/RECORD")]
rows = csv.reader(io.StringIO(z.read(name).decode()))
listed = sorted(f"{path} {digest}" for path, digest, _ in rows if path != name)
assert len(listed) == len(z.namelist()) - 1, "RECORD does not list every file"
print("\n".join(listed))
PY
}
record "$wheel" >"$tmp/wheel.files"
wasm_sha=$("$tmp/tools/bin/python" -c 'import base64, hashlib, sys
print("sha256=" + base64.urlsafe_b64encode(hashlib.sha256(open(sys.argv[1], "rb").read()).digest()).rstrip(b"=").decode())' \
    "$repo/bindings/oncely-core.wasm")
grep -qxF "oncely/_data/oncely-core.wasm $wasm_sha" "$tmp/wheel.files" ||
    die "the wheel's oncely/_data/oncely-core.wasm is not bindings/oncely-core.wasm"
for dialect in sqlite postgres; do
    for f in "$repo/migrations/$dialect"/*.sql; do
        grep -q "^oncely/_data/migrations/$dialect/$(basename "$f") " "$tmp/wheel.files" ||
            die "the wheel lacks the migration $dialect/$(basename "$f")"
    done
done
for f in "$repo/migrations/redis"/*.lua; do
    grep -q "^oncely/_data/migrations/redis/$(basename "$f") " "$tmp/wheel.files" ||
        die "the wheel lacks the Redis script redis/$(basename "$f")"
done
grep -q "^oncely/py.typed " "$tmp/wheel.files" || die "the wheel lacks oncely/py.typed"
grep -q '^oncely-[^/]*\.dist-info/licenses/LICENSE ' "$tmp/wheel.files" ||
    die "the wheel lacks LICENSE (.dist-info/licenses/LICENSE)"
echo "   $(wc -l <"$tmp/wheel.files") files: the component (= bindings/oncely-core.wasm), $(grep -c '^oncely/_data/migrations/' "$tmp/wheel.files") migrations, py.typed, LICENSE"

step "a wheel from the sdist alone, in a temporary folder"
mkdir "$tmp/alone"
tar -xzf "$sdist" -C "$tmp/alone"
mapfile -t unpacked < <(compgen -G "$tmp/alone/oncely-*")
[ ${#unpacked[@]} -eq 1 ] || die "the sdist does not unpack into one oncely-* folder"
run "$tmp/tools/bin/python" -m build --wheel --outdir "$tmp/alone/dist" "${unpacked[0]}" \
    >"$tmp/alone.log" 2>&1 || {
    cat "$tmp/alone.log" >&2
    die "building a wheel from the sdist alone"
}
mapfile -t again < <(compgen -G "$tmp/alone/dist/oncely-*.whl")
[ ${#again[@]} -eq 1 ] || die "no wheel from the sdist alone"
[ "$(basename "${again[0]}")" = "$(basename "$wheel")" ] ||
    die "the sdist's wheel is $(basename "${again[0]}"), not $(basename "$wheel")"
record "${again[0]}" >"$tmp/again.files"
diff "$tmp/wheel.files" "$tmp/again.files" >&2 ||
    die "the wheel from the sdist alone differs from $(basename "$wheel") (files or contents)"
echo "   same $(wc -l <"$tmp/again.files") files, same contents"

extras=$("$tmp/tools/bin/python" - "$wheel" <<'PY'
import sys, zipfile
from email.parser import Parser
z = zipfile.ZipFile(sys.argv[1])
(name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
meta = Parser().parsestr(z.read(name).decode())
print(",".join(e for e in meta.get_all("Provides-Extra") if e != "test"))
PY
)
alone=$(for d in "$here"/tests/frameworks/*/; do [ -f "$d/requirements.txt" ] && basename "$d" | tr _ -; done | paste -sd' ')
together=$(echo "$extras" | tr , '\n' | grep -vxF -f <(echo "$alone" | tr ' ' '\n') | paste -sd,)
for e in $alone; do
    echo ",$extras," | grep -q ",$e," || die "tests/frameworks has $e, which is not an extra of the package"
done
for v in "${PYTHONS[@]}"; do
    step "Python $v: a fresh virtual environment, pip install $(basename "$wheel"), the smoke test"
    venv="$tmp/venv-$v"
    run "$pyenv_root/versions/$v/bin/python3" -m venv "$venv"
    run "$venv/bin/pip" install --quiet "$wheel"
    mkdir "$tmp/cwd-$v"
    (
        cd "$tmp/cwd-$v"
        export ONCELY_CACHE_DIR="$tmp/cache-$v" # a compile of the component of its own
        run "$venv/bin/python" "$here/tests/smoke_installed.py" "$repo"
    ) || die "the smoke test of the installed wheel on Python $v"
    # On the oldest and the newest Python: what an extra needs may have left the one or not
    # reached the other (langchain-core 1.8 needs 3.11); resolving takes half a minute each.
    # The frameworks tested in environments of their own (tests/frameworks/NAME, the extra
    # NAME with "-" for "_") need not agree with each other's pins: each resolves alone.
    if [ "$v" = "${PYTHONS[0]}" ] || [ "$v" = "${PYTHONS[-1]}" ]; then
        echo "   the extras resolve together: [$together]; each alone: $alone"
        run "$venv/bin/pip" install --quiet --dry-run "$wheel[$together]" ||
            die "the extras [$together] do not resolve on Python $v"
        for e in $alone; do
            run "$venv/bin/pip" install --quiet --dry-run "$wheel[$e]" ||
                die "the extra [$e] does not resolve on Python $v"
        done
    fi
done

v=${PYTHONS[0]}
step "Python $v: pip install from a read-only copy of the checkout"
ro="$tmp/ro"
mkdir -p "$ro/bindings"
cp -r "$here" "$ro/bindings/python"
cp "$repo/bindings/oncely-core.wasm" "$ro/bindings/"
cp -r "$repo/migrations" "$ro/"
# What git does not hold (build files, a developer's copies under src/oncely/_data) stays out.
rm -rf "$ro/bindings/python/src/oncely/_data" "$ro/bindings/python/build" \
    "$ro/bindings/python/src/oncely.egg-info"
chmod -R a-w "$ro"
touch "$stamp"
sleep 1
venv="$tmp/venv-ro"
run "$pyenv_root/versions/$v/bin/python3" -m venv "$venv"
as_reader=()
if [ "$(id -u)" = 0 ]; then
    # root writes through any permission bits; without CAP_DAC_OVERRIDE it cannot.
    as_reader=(setpriv --bounding-set=-dac_override,-dac_read_search --)
fi
run "${as_reader[@]}" "$venv/bin/pip" install --quiet "$ro/bindings/python" ||
    die "pip install from a read-only copy of the checkout"
written=$(find "$ro" -newer "$stamp")
[ -z "$written" ] || die "pip install wrote into the read-only copy: $written"
(
    cd "$tmp/cwd-$v"
    export ONCELY_CACHE_DIR="$tmp/cache-$v"
    run "$venv/bin/python" "$here/tests/smoke_installed.py" "$repo"
) || die "the smoke test of the package installed from the read-only copy"

v=${PYTHONS[-1]}
step "Python $v: pip install git+file://…#subdirectory=bindings/python (the committed HEAD)"
venv="$tmp/venv-git"
run "$pyenv_root/versions/$v/bin/python3" -m venv "$venv"
run "$venv/bin/pip" install --quiet "git+file://$repo#subdirectory=bindings/python" ||
    die "pip install from git, a subdirectory of the whole repository"
(
    cd "$tmp/cwd-$v"
    export ONCELY_CACHE_DIR="$tmp/cache-$v"
    run "$venv/bin/python" "$here/tests/smoke_installed.py" "$repo"
) || die "the smoke test of the package installed from git"

step "done: $(basename "$wheel") and $(basename "$sdist") in $out"
