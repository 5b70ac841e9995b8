"""moto's DynamoDB in server mode, one request at a time: the server the DynamoDB store is tested
against (``tests/dynamodb/start.sh`` runs it).

    python tests/dynamodb/server.py PORT

moto's DynamoDB backend keeps no lock: its server (threaded) evaluates a ``ConditionExpression``
and then writes, so two requests racing on one item could both pass the condition. DynamoDB
applies each conditional write atomically, and the store's races rely on just that; so every
request is served under one lock here (connections stay threaded, HTTP/1.1 keep-alive as
usual). docs/operations.md lists what moto does not check that DynamoDB does.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from typing import Any

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple


def main() -> None:
    port = int(sys.argv[1])
    app = DomainDispatcherApplication(create_backend_app)
    lock = threading.Lock()

    def serialized(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        with lock:
            return list(app(environ, start_response))

    run_simple("127.0.0.1", port, serialized, threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main()
