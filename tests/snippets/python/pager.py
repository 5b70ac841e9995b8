# scripts/snippets: runs before a README block that hooks events: `ledger`, and the `pager` a
# reader already has.
import oncely

ledger = oncely.Ledger.sqlite("ledger.db")


class Pager:
    def notify(self, text: str) -> None:
        print("paged:", text)


pager = Pager()
