//! The RFC 8785 reference data in `tests/vectors/jcs` (Apache-2.0, kept in the repository), run as it is: every input file must
//! canonicalize to its output file byte for byte, and every line of `es6-numbers-100k.txt` must
//! print as expected. A missing vector directory fails the test; it never skips.

use std::path::PathBuf;

fn jcs_vectors() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/jcs");
    assert!(dir.join("input").is_dir(), "{} is missing: the RFC 8785 reference data is part of the repository", dir.display());
    dir
}

#[test]
fn every_jcs_input_canonicalizes_to_its_output() {
    let dir = jcs_vectors();
    let mut names: Vec<_> = std::fs::read_dir(dir.join("input")).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert!(names.len() >= 5, "expected the JCS reference inputs, found {}", names.len());
    for name in &names {
        let input = std::fs::read(dir.join("input").join(name)).unwrap();
        let expected = std::fs::read(dir.join("output").join(name)).unwrap();
        let got = oncely_core::canonical::canonicalize_bytes(&input).unwrap_or_else(|e| panic!("{name:?} was rejected: {}", e.message));
        assert_eq!(got.as_bytes(), &expected[..], "{name:?}");
        // The hex form must agree with the output file too (guards against a stray newline).
        let hex_name = PathBuf::from(name).with_extension("txt");
        let hex = std::fs::read_to_string(dir.join("outhex").join(hex_name)).unwrap();
        let hex: String = hex.split_whitespace().collect::<Vec<_>>().join("");
        let got_hex: String = got.bytes().map(|b| format!("{b:02x}")).collect();
        assert_eq!(got_hex, hex.to_lowercase(), "{name:?} (outhex)");
        // Idempotent on its own output.
        assert_eq!(oncely_core::canonical::canonicalize(&got).unwrap(), got, "{name:?} twice");
    }
}

#[test]
fn es6_numbers_100k() {
    let text = std::fs::read_to_string(jcs_vectors().join("es6-numbers-100k.txt")).unwrap();
    let mut n = 0;
    for (i, line) in text.lines().enumerate() {
        let (hex, expected) = line.split_once(',').unwrap_or_else(|| panic!("line {}: no comma", i + 1));
        let v = f64::from_bits(u64::from_str_radix(hex, 16).unwrap());
        assert_eq!(oncely_core::number::format(v), expected, "line {}: {hex}", i + 1);
        // And through the parser: the printed form must read back to the same double and print
        // identically (the round trip a host relies on).
        let again = oncely_core::canonical::canonicalize(expected).unwrap();
        assert_eq!(again, expected, "line {}: canonicalize({expected})", i + 1);
        n += 1;
    }
    assert_eq!(n, 100_000);
}
