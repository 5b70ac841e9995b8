//! Opt-in: regenerate the ES6 number sequence of the RFC 8785 reference data and check the
//! published SHA-256 of its prefix (`tests/vectors/README.md` gives the algorithm and the
//! figures). Run with
//! `cargo test -p oncely-core --release --test es6_numbers_regenerated -- --ignored`;
//! `ONCELY_ES6_LINES` picks the prefix: 1000000 (default), 10000000 or 100000000.

use sha2::{Digest, Sha256};

const PUBLISHED: [(u64, &str); 4] = [
    (100_000, "22776e6d4b49fa294a0d0f349268e5c28808fe7e0cb2bcbe28f63894e494d4c7"),
    (1_000_000, "49415fee2c56c77864931bd3624faad425c3c577d6d74e89a83bc725506dad16"),
    (10_000_000, "b9f8a44a91d46813b21b9602e72f112613c91408db0b8341fb94603d9db135e0"),
    (100_000_000, "0f7dda6b0837dde083c5d6b896f7d62340c8a2415b0c7121d83145e08a755272"),
];

fn reference_file() -> String {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/jcs/es6-numbers-100k.txt");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
#[ignore = "opt-in: regenerates at least 1,000,000 numbers; run with --ignored (release build advised)"]
fn regenerated_sequence_matches_the_published_hash() {
    let lines: u64 = std::env::var("ONCELY_ES6_LINES").ok().map_or(1_000_000, |v| v.parse().expect("ONCELY_ES6_LINES"));
    let expected = PUBLISHED.iter().find(|(n, _)| *n == lines).expect("ONCELY_ES6_LINES must be one of the published prefixes").1;
    let file = reference_file();
    // The 168 fixed patterns of the reference generator are the file's first 168 lines.
    let fixed: Vec<u64> = file.lines().take(168).map(|l| u64::from_str_radix(l.split(',').next().unwrap(), 16).unwrap()).collect();

    let mut hasher = Sha256::new();
    let mut produced = 0u64;
    let mut file_lines = file.lines();
    let mut emit = |bits: u64, produced: &mut u64| -> bool {
        let line = format!("{bits:x},{}\n", oncely_core::number::format(f64::from_bits(bits)));
        if let Some(want) = file_lines.next() {
            assert_eq!(&line[..line.len() - 1], want, "line {}", *produced + 1);
        }
        hasher.update(line.as_bytes());
        *produced += 1;
        *produced < lines
    };
    let mut more = true;
    for &bits in &fixed {
        more = more && emit(bits, &mut produced);
    }
    for i in 0..2000u64 {
        more = more && emit(0x0010_0000_0000_0000 + i, &mut produced);
    }
    let mut block = [0u8; 32];
    while more {
        for chunk in block.chunks_exact(8) {
            let bits = u64::from_le_bytes(chunk.try_into().unwrap());
            let v = f64::from_bits(bits);
            if v == 0.0 || !v.is_finite() {
                continue;
            }
            more = emit(bits, &mut produced);
            if !more {
                break;
            }
        }
        block = Sha256::digest(block).into();
    }
    let got: String = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(produced, lines);
    assert_eq!(got, expected, "SHA-256 of the first {lines} lines");
}
