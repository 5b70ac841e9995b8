"""The core's encoding (``oncely._wire``): what ``effect.run`` is given and answers, as bytes.

Every effect test crosses through it (``Runtime.run``); these pin the encoding itself: values of
every shape survive both directions, the core reads what Python writes (a ``run-call`` of each
input the vectors use) and refuses bytes that are not one, and an answer that does not decode
is a typed error, never a wrong value.
"""

from __future__ import annotations

from typing import Any

import pytest

import oncely
from oncely import _exports, _runtime, types
from oncely._wire import WireError

CALL, ANSWER = _exports.WIRE["effect.run"]


@pytest.fixture(scope="module")
def rt() -> _runtime.Runtime:
    return _runtime.Runtime()


def intent(args: str = '{"charge_id":"ch_1","amount":500}') -> oncely.Intent:
    return oncely.Intent("acme", "run-7", "refund-1", "refund", args)


def policy() -> oncely.ToolPolicy:
    return oncely.parse_policy(
        {
            "class": "irreversible-external",
            "key": {"ignore": ["/note"]},
            "reconcile": {"lookup": "find"},
        }
    )


def start(args: str = '{"charge_id":"ch_1","amount":500}', owner: str = "w1") -> Any:
    opts = types.EffectOptions(owner, 0, None, False, None)
    return types.Start(types.EffectStart(intent(args), policy(), opts))


def test_a_run_call_survives_a_round_trip(rt: _runtime.Runtime) -> None:
    # Strings past 127 bytes (a two-byte length), non-ASCII text, options both ways, integers
    # of every width up to u64's largest.
    long_args = '{"note":"' + "é€𝄞" * 100 + '","amount":500}'
    for call in (
        types.RunCall(b"", start(), 0),
        types.RunCall(b"", start(long_args, owner="ü" * 200), 2**64 - 1),
        types.RunCall(bytes(range(256)) * 3, types.Written(), 2**63),
        types.RunCall(b"\x00", types.ToolFailure(True, "declined"), 127),
        types.RunCall(b"", types.VerdictInput(types.NotHappened()), 128),
        types.RunCall(b"", types.RowInput(None), 1),
    ):
        data = rt.wire.encode(CALL, call)
        assert rt.wire.decode(CALL, data) == call


def test_the_core_reads_what_python_writes(rt: _runtime.Runtime) -> None:
    first = rt.run(b"", start(), 1_000)
    assert first.read == types.ReadRequest("acme", first.read.key)
    # The first step only reads; the claim is written once the row is known to be absent.
    assert first.write is None
    step = rt.run(first.state, types.RowInput(None), 1_000)
    assert step.write is not None and step.write.row.owner == "w1"
    assert step.write.row.args_canonical == '{"amount":500,"charge_id":"ch_1"}'
    assert step.action.token == types.ClaimToken(1, "w1")
    # The same step through the reference decoder, whole, and through the lazy one.
    data = rt.call("effect.run", rt.wire.encode(CALL, types.RunCall(b"", start(), 1_000)))
    assert repr(rt.wire.decode(ANSWER, data)) == repr(first.full())
    call = types.RunCall(first.state, types.RowInput(None), 1_000)
    data = rt.call("effect.run", rt.wire.encode(CALL, call))
    assert repr(rt.wire.decode(ANSWER, data)) == repr(step.full())


def test_a_key_error_comes_back_as_the_error(rt: _runtime.Runtime) -> None:
    answer = rt.run(b"", start("{not json"), 1_000)
    assert isinstance(answer, oncely._values.Err)
    assert isinstance(answer.error, oncely.KeyDerivationError)


@pytest.mark.parametrize(
    "garbage",
    [b"", b"\xff", b"\x00\x05ab", b"\x00\x00\x7f" + b"\x00" * 8, b"\x00\x00\x02\x80\x80\x80"],
)
def test_bytes_that_are_not_a_run_call_are_refused_by_the_core(
    rt: _runtime.Runtime, garbage: bytes
) -> None:
    answer = rt.call("effect.run", garbage)
    step = rt.wire.decode(ANSWER, answer)
    assert isinstance(step, types.Step)
    assert isinstance(step.action, types.RaiseAction)
    err = step.action.error
    assert isinstance(err, types.ErrLedger)
    assert err.error.kind is oncely.LedgerErrorKind.INVALID_REQUEST
    assert "not a run-call" in err.error.message


def test_an_answer_that_does_not_decode_is_a_typed_error(rt: _runtime.Runtime) -> None:
    data = rt.call("effect.run", rt.wire.encode(CALL, types.RunCall(b"", start(), 1_000)))
    with pytest.raises(WireError, match="left after"):
        rt.wire.decode(ANSWER, data + b"\x00")
    with pytest.raises(WireError):
        rt.wire.decode(ANSWER, data[: len(data) // 2])
    with pytest.raises(WireError):
        rt.wire.decode(ANSWER, b"\x07")  # no such case


def test_a_lone_surrogate_is_refused_before_the_call(rt: _runtime.Runtime) -> None:
    with pytest.raises(oncely.EncodingError):
        rt.run(b"", start(owner="w\ud800"), 1)
