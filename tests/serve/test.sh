#!/usr/bin/env bash
# `oncely serve` in a real browser: the inbox driven by Playwright in Debian's headless Chromium
# (never a downloaded browser), an escalated entry made by a real effect of the Python package,
# settled by a person, replayed by the agent; cross-site requests refused; metrics parsed with
# the Prometheus client's own parser; a signed webhook retried after its receiver failed once; a
# refund approved and another denied by a person, the agent paying once.
# Writes the README's screenshots (docs/img/inbox.png, docs/img/inbox-phone.png,
# docs/img/approval.png).
#
#   tests/serve/test.sh [PYTEST ARGS...]
#
# Needs: python3 (3.10+), chromium ($ONCELY_CHROMIUM, default: chromium on the PATH; scripts/setup
# --all installs Debian's), and the built binary ($ONCELY_BIN, default target/release/oncely).
# Installs requirements.txt and the Python package (bindings/python) into tests/serve/.venv.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$here"

venv=${ONCELY_SERVE_VENV:-$here/.venv}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements.txt
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$repo/bindings/python"

export ONCELY_BIN=${ONCELY_BIN:-$repo/target/release/oncely}
if [ ! -x "$ONCELY_BIN" ]; then
    echo "tests/serve/test.sh: $ONCELY_BIN not found: cargo build --release -p oncely-cli (or set ONCELY_BIN)" >&2
    exit 2
fi
export ONCELY_CHROMIUM=${ONCELY_CHROMIUM:-$(command -v chromium || true)}
if [ -z "$ONCELY_CHROMIUM" ]; then
    echo "tests/serve/test.sh: no chromium (Debian: apt-get install chromium; or set ONCELY_CHROMIUM)" >&2
    exit 2
fi
export ONCELY_SCREENSHOTS=${ONCELY_SCREENSHOTS:-$repo/docs/img}
"$venv/bin/python" -m pytest -v "$@"
