"""Every golden vector of ``tests/vectors/``, through the installed package (each file's
``description`` says how to replay it)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from scenarios import check_error, check_outcome, claim_for, decision_json, event

import oncely

Vectors = Callable[[str], Any]


def test_canonical_vectors(vectors: Vectors) -> None:
    doc = vectors("canonical.json")
    assert len(doc["cases"]) > 30
    for c in doc["cases"]:
        name = c["name"]
        text: str | bytes = bytes.fromhex(c["input_hex"]) if "input_hex" in c else c["input"]
        if "output" in c:
            assert oncely.canonicalize(text) == c["output"], name
            continue
        want = c["error"]
        with pytest.raises(oncely.CanonError) as info:
            oncely.canonicalize(text)
        e = info.value
        assert e.kind.value == want["kind"], f"{name}: {e.message}"
        assert e.offset == want["offset"], f"{name}: {e.message}"
        if "line" in want:
            assert (e.line, e.column) == (want["line"], want["column"]), name
        assert e.message, name


def test_key_vectors(vectors: Vectors) -> None:
    cases = vectors("keys.json")["cases"]
    keys: list[str | None] = []
    for c in cases:
        name, i = c["name"], c["intent"]
        intent = dict(scope=i["scope"], run=i["run"], step=i["step"], tool=i["tool"])
        if "error" not in c:
            d = oncely.derive(**intent, args=i["args"], policy=c["policy"])
            assert d.key == c["key"], name
            assert d.preimage == c["preimage"], name
            assert d.fingerprint == c["fingerprint"], name
            assert d.args_canonical == c["args_canonical"], name
            assert oncely.derive_key(**intent, args=i["args"], policy=c["policy"]) == c["key"], name
            if "same_key_as" in c:
                assert d.key == keys[c["same_key_as"]], name
            keys.append(d.key)
            continue
        want = c["error"]
        with pytest.raises(oncely.KeyDerivationError) as info:
            oncely.derive_key(**intent, args=i["args"], policy=c["policy"])
        e = info.value
        assert e.kind.value == want["kind"], f"{name}: {e.message}"
        if "at" in want:
            assert e.at == want["at"], name
        if "canon" in want:
            assert e.canon is not None, name
            assert e.canon.kind.value == want["canon"], name
            assert e.canon.offset == want["offset"], name
        keys.append(None)
    # Distinct intents (not declared equal) have distinct keys.
    seen: dict[str, int] = {}
    for n, (k, c) in enumerate(zip(keys, cases, strict=True)):
        if k is not None:
            first = seen.setdefault(k, n)
            if first != n:
                assert c.get("same_key_as") == first, f"case {n} collides with case {first}"


def test_key_vectors_batch_equals_single(vectors: Vectors) -> None:
    """derive-many (one call for a batch) gives what derive gives, errors in place."""
    cases = vectors("keys.json")["cases"]
    by_policy: dict[str, list[dict[str, Any]]] = {}
    for c in cases:
        by_policy.setdefault(oncely.parse_policy(c["policy"]).__repr__(), []).append(c)
    for group in by_policy.values():
        policy = group[0]["policy"]
        results = oncely.derive_many([c["intent"] for c in group], policy=policy)
        for c, r in zip(group, results, strict=True):
            if "error" in c:
                assert isinstance(r, oncely.KeyDerivationError), c["name"]
                assert r.kind.value == c["error"]["kind"], c["name"]
            else:
                assert isinstance(r, oncely.DerivedKey), c["name"]
                assert r.key == c["key"], c["name"]


def test_explain_vectors(vectors: Vectors) -> None:
    for c in vectors("explain.json")["cases"]:
        name = c["name"]
        e = oncely.explain(c["a"], c["b"], policy=c["policy"])
        assert e.verdict.value == c["verdict"], name
        got = [
            {
                "part": d.part.value,
                "pointer": d.pointer,
                "a": d.a,
                "b": d.b,
                "effect": d.effect.value,
            }
            for d in e.differences
        ]
        assert got == c["differences"], name
        assert (e.key_a.key == e.key_b.key) == (c["verdict"] != "different-keys"), name


def _reconcile_json(r: oncely.ReconcilePath) -> Any:
    if isinstance(r, oncely.Lookup):
        return {"lookup": r.tool}
    return {
        oncely.ReconcileNone: "none",
        oncely.ProviderIdempotent: "provider-idempotent",
        oncely.Manual: "manual",
    }[type(r)]


def test_policy_vectors(vectors: Vectors) -> None:
    doc = vectors("policy.json")
    for c in doc["resolve"]:
        if "error_at" in c:
            with pytest.raises(oncely.PolicyError) as info:
                oncely.resolve_tool(c["tool"])
            assert info.value.at == c["error_at"], c["tool"]
            continue
        r = oncely.resolve_tool(c["tool"])
        assert r.policy.class_.value == c["class"], c["tool"]
        assert r.class_source.value == c["class_source"], c["tool"]
        if "lease_ms" in c:
            assert r.policy.lease_ms == c["lease_ms"], c["tool"]
    for c in doc["policies"]:
        source = c["policy_text"] if "policy_text" in c else c["policy"]
        if "error_at" in c:
            with pytest.raises(oncely.PolicyError) as info:
                oncely.parse_policy(source)
            assert info.value.at == c["error_at"], source
            continue
        p = oncely.parse_policy(source)
        got = {
            "class": p.class_.value,
            "key": None
            if p.key is None
            else {"only": p.key.only, "ignore": p.key.ignore, "identity": p.key.identity.value},
            "reconcile": _reconcile_json(p.reconcile),
            "lease_ms": p.lease_ms,
            "reconcile_after_ms": p.reconcile_after_ms,
            "escalate_after_ms": p.escalate_after_ms,
            "retention_ms": p.retention_ms,
            "max_call_ms": p.max_call_ms,
            "approval": None
            if p.approval is None
            else {
                "when": None if p.approval.when is None else json.loads(p.approval.when),
                "expires_after_ms": p.approval.expires_after_ms,
            },
        }
        assert got == c["expect"], source
    for c in doc["manifests"]:
        name = c["name"]
        if "error_at" in c:
            with pytest.raises(oncely.PolicyError) as info:
                oncely.check_tools(c["manifest"])
            assert info.value.at == c["error_at"], name
            continue
        report = oncely.check_tools(c["manifest"])
        got = [
            {"severity": f.severity.value, "tool": f.tool, "code": f.code} for f in report.findings
        ]
        assert got == c["findings"], name
        assert report.passed == c["passed"], name


class CheckedStore:
    """One entry in memory; every write the event machine asks for is checked against the
    compare-and-swap discipline before it is applied."""

    def __init__(self) -> None:
        self.entry: oncely.Entry | None = None
        self.where = ""

    def get(self, scope: str, key: str) -> oncely.Entry | None:
        return self.entry

    def insert(self, e: oncely.Entry, *, claims: bool = False) -> bool:
        assert self.entry is None, f"{self.where}: insert over an existing entry"
        assert e.version == 1, self.where
        self.entry = e
        return True

    def update(
        self, expected_version: int, e: oncely.Entry, *, history: bool = False, claims: bool = False
    ) -> bool:
        where, entry = self.where, self.entry
        assert entry is not None, f"{where}: update of a missing entry"
        assert entry.version == expected_version, f"{where}: update from a stale version"
        assert e.version == expected_version + 1, where
        assert (e.key, e.fingerprint) == (entry.key, entry.fingerprint), where
        self.entry = e
        return True

    def delete(self, scope: str, key: str, expected_version: int) -> bool:
        assert self.entry is not None, f"{self.where}: delete of a missing entry"
        assert self.entry.version == expected_version, self.where
        self.entry = None
        return True

    def due(self, scope: str | None, now: int, limit: int) -> list[oncely.Entry]:
        return []

    def close(self) -> None:
        pass


def test_ledger_vectors_in_memory(vectors: Vectors) -> None:
    """ledger.json as its description says: one entry in memory, each event applied by the
    core's event machine (``effect.run`` with ``start(event)``; ``handle`` is not exported),
    writes applied with the compare-and-swap discipline checked."""
    scenarios = vectors("ledger.json")["scenarios"]
    assert len(scenarios) >= 15
    for sc in scenarios:
        store = CheckedStore()
        now = [0]
        ledger = oncely.Ledger(store, owner="w1", clock=lambda now=now: now[0])  # type: ignore[arg-type]
        own = claim_for(sc, "w1")
        for n, step in enumerate(sc["steps"]):
            where = store.where = f"{sc['name']} step {n}"
            want = step["expect"]
            ev, claim = event(sc, step)
            at = claim or own
            now[0] = step["now"]
            try:
                outcome = ledger.drive(at.scope, at.key, ev)
            except oncely.LedgerError as e:
                check_error(where, e, want)
            else:
                check_outcome(where, outcome, want)
            entry = store.entry
            state = entry.state.value if entry is not None else "absent"
            assert state == want["state"], f"{where}: state"
            if "version" in want:
                assert (entry.version if entry else None) == want["version"], f"{where}: version"
            if "decision" in want and entry is not None:
                got = decision_json(ledger.decision_of(entry))
                assert got == want["decision"], f"{where}: decision-of"


def test_claims_come_from_the_core(vectors: Vectors) -> None:
    """The claim a scenario's begin uses carries the key the core derives for its intent."""
    sc = vectors("ledger.json")["scenarios"][0]
    claim = claim_for(sc, "w1")
    i = sc["intent"]
    key = oncely.derive_key(
        scope=i["scope"], run=i["run"], step=i["step"], tool=i["tool"], args=i["args"],
        policy=sc["policy"],
    )  # fmt: skip
    assert claim.key == key
    assert claim.owner == "w1"
