"""The asyncio API: the same ledger, with ``async`` methods.

Storage and the core run in worker threads (:func:`asyncio.to_thread`), one hop per ledger
event, so the event loop never blocks on a database; tools and reconcilers may be ``async``
functions and are awaited on the loop. Every effect, event, sweep and wait runs the
core's machines through the interpreter of :mod:`oncely._machine`, the very one the synchronous
API uses, so both APIs behave identically.

::

    ledger = oncely.Ledger.sqlite("ledger.db").aio
    r = await ledger.run(lambda key: refund(key), scope=..., run=..., step=..., tool="refund",
                         args={...}, policy={...})
"""

from __future__ import annotations

# The class lives beside the synchronous Ledger it wraps (oncely.ledger), as httpx keeps its
# Client and AsyncClient together: one module, no import circle.
from oncely.ledger import AsyncLedger

__all__ = ["AsyncLedger"]
