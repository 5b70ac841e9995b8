"""A refund over HTTP, with a provider that deduplicates by ``Idempotency-Key`` (as Stripe's API
does) and whose first answer arrives after the client has given up.

Run twice against a local server (the standard library's, on 127.0.0.1):

1. a naive retry loop that sends a fresh random key with every attempt (a common bug): the
   provider cannot tell the retry from a new refund, and pays twice;
2. the tool through oncely with ``oncely.adapters.http.request``: the key is derived from the
   intent, the timeout is an unknown outcome, and the ledger reconciles it
   (``provider-idempotent``) by sending the SAME key again — the provider answers with the
   first refund. Paid ONCE.

    pip install './bindings/python[http]'
    python examples/python/http_refund.py [--client httpx|requests] [--db ledger.db]

Exits non-zero if the oncely run pays more than once.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import requests

import oncely
from oncely.adapters.http import OutcomeUnknown, request


class Provider(BaseHTTPRequestHandler):
    refunds: ClassVar[list[dict[str, Any]]] = []
    by_key: ClassVar[dict[str, dict[str, Any]]] = {}
    slow = 0  # the next N refunds are answered after 1 s
    lock = threading.Lock()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        key = self.headers.get("Idempotency-Key")
        with self.lock:
            refund = self.by_key.get(key) if key else None
            delay = 0.0
            if refund is None:  # a new refund: the money moves
                refund = {"refund_id": f"re_{len(self.refunds) + 1}", **body}
                self.refunds.append(refund)
                if key:
                    self.by_key[key] = refund
                if Provider.slow:
                    Provider.slow -= 1
                    delay = 1.0
        time.sleep(delay)
        data = json.dumps(refund).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the client gave up: the answer is lost

    def log_message(self, *args: Any) -> None:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--client", choices=["httpx", "requests"], default="httpx")
    parser.add_argument("--db", help="SQLite ledger file (default: a temporary one)")
    args = parser.parse_args()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Provider)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/refunds"
    client: Any = httpx.Client() if args.client == "httpx" else requests.Session()
    body = {"charge_id": "ch_1", "amount": 500}

    print(f"naive retry loop ({args.client}), a fresh key per attempt:")
    Provider.slow = 1
    for attempt in (1, 2):
        try:
            r = request(client, "POST", url, json=body, key=str(uuid.uuid4()), timeout=0.3)
            print(f"  attempt {attempt}: {r.json()}")
            break
        except OutcomeUnknown as e:
            print(f"  attempt {attempt}: {e} -> retry")
    naive = len(Provider.refunds)
    print(f"  => the provider paid {naive} time(s)\n")

    print(f"the refund tool through oncely ({args.client}):")
    Provider.refunds.clear()
    Provider.slow = 1
    with tempfile.TemporaryDirectory() as tmp:
        ledger = oncely.Ledger.sqlite(args.db or Path(tmp) / "ledger.db")

        @ledger.tool(policy={"class": "irreversible-external", "reconcile": "provider-idempotent"})
        def refund(charge_id: str, amount: int, *, idempotency_key: str) -> Any:
            body = {"charge_id": charge_id, "amount": amount}
            print(f"  POST {idempotency_key[:20]}…")
            return request(client, "POST", url, json=body, key=idempotency_key, timeout=0.3).json()

        with oncely.context(scope="acme", run="conversation-7"):
            r = refund.effect("ch_1", 500)
        print(f"  result: {r.value} (reconciled: {r.reconciled})")
        ledger.close()
    print(f"  => the provider paid {len(Provider.refunds)} time(s)")
    server.shutdown()
    return 0 if len(Provider.refunds) == 1 and naive == 2 else 1


if __name__ == "__main__":
    sys.exit(main())
