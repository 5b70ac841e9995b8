# scripts/snippets: runs before a documentation block that reads a ledger: $ONCELY_DB, a SQLite
# ledger with the entries `oncely demo` leaves (scope acme).
oncely demo --db ledger.db >/dev/null
export ONCELY_DB=ledger.db
