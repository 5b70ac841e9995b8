"""The RFC 8785 reference data (``tests/vectors/jcs``), through the installed package: every
``input/*`` file canonicalizes to its ``output/*`` file byte for byte, and every line of
``es6-numbers-100k.txt`` (an IEEE-754 double's bits → its ECMAScript text)."""

from __future__ import annotations

import struct
from pathlib import Path

import oncely


def test_jcs_input_output_files(jcs_vectors: Path) -> None:
    inputs = sorted((jcs_vectors / "input").glob("*.json"))
    assert len(inputs) >= 6, inputs
    for path in inputs:
        expected = (jcs_vectors / "output" / path.name).read_bytes()
        got = oncely.canonicalize(path.read_bytes()).encode("utf-8")
        assert got == expected, path.name
        # The same document given as text (not bytes) gives the same bytes.
        text = path.read_bytes().decode("utf-8")
        assert oncely.canonicalize(text).encode("utf-8") == expected, path.name
        hexed = (jcs_vectors / "outhex" / (path.stem + ".txt")).read_text()
        assert got == bytes.fromhex("".join(hexed.split())), path.name


def _double(bits_hex: str) -> float:
    value: float = struct.unpack(">d", int(bits_hex, 16).to_bytes(8, "big"))[0]
    return value


def test_es6_numbers_100k(jcs_vectors: Path) -> None:
    """Each double is written as JSON text that reads back to exactly that double (Python's
    shortest round-trip ``repr``), 1,000 per array, and the core's canonical text must be the
    expected ECMAScript serialization."""
    lines = (jcs_vectors / "es6-numbers-100k.txt").read_text().splitlines()
    assert len(lines) == 100_000
    batch: list[tuple[int, str, str]] = []

    def flush() -> None:
        doc = "[" + ",".join(repr(_double(bits)) for _, bits, _ in batch) + "]"
        got = oncely.canonicalize(doc)[1:-1].split(",")
        assert len(got) == len(batch)
        for (n, bits, want), text in zip(batch, got, strict=True):
            assert text == want, f"line {n}: {bits} gave {text}, expected {want}"
        batch.clear()

    for n, line in enumerate(lines, 1):
        bits, want = line.split(",")
        batch.append((n, bits, want))
        if len(batch) == 1000:
            flush()
    if batch:
        flush()
