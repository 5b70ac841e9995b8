//! Numbers: ECMAScript printing (delegated to `ryu-js`) and the exactness check for integer
//! literals that RFC 8785 hosts need so that `9007199254740993` never silently becomes
//! `9007199254740992`.

use crate::prelude::*;
use crate::text::Piece;

/// Append the ECMAScript `Number.prototype.toString` form of a finite double (RFC 8785
/// §3.2.2.3). `-0` prints as `0`.
pub fn write(v: f64, out: &mut String) {
    // Integers a double holds exactly print as their digits in ECMAScript (below 1e21); `itoa`
    // does that without the shortest-float search. Everything else goes to `ryu-js`.
    if v.abs() < 9_007_199_254_740_992.0 && v == (v as i64) as f64 {
        out.push_str(itoa::Buffer::new().format(v as i64));
        return;
    }
    let mut buf = ryu_js::Buffer::new();
    out.push_str(buf.format_finite(v));
}

/// The ECMAScript form of a finite double.
pub fn format(v: f64) -> String {
    let mut out = String::new();
    write(v, &mut out);
    out
}

/// Whether the integer literal `digits` (decimal digits without sign, no leading zeros unless
/// it is `0`) survives the trip through the double `v` it parsed to: either it is exactly `v`
/// (`295147905179352825856`, 2^68) or it is the very text ECMAScript prints for `v`
/// (`333333333333333300000`, which is what canonicalization itself outputs, so canonical text
/// always reads back). Anything else (`9007199254740993`) names an integer that a double would
/// silently change.
pub fn integer_survives(digits: &str, v: f64) -> bool {
    let v = v.abs();
    // Every integer below 2^53 is a double, and rounding is monotone: if the double is below
    // 2^53 so was the literal, and it was exact.
    if digits.len() <= 15 || v < 9_007_199_254_740_992.0 {
        return true;
    }
    format(v) == digits || exact_decimal(v) == digits
}

/// The exact decimal expansion of a finite double that is an integer >= 2^53.
fn exact_decimal(v: f64) -> String {
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7FF) as i32;
    let mantissa = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    // v = mantissa * 2^(exp - 1075); exp - 1075 >= 1 here because v >= 2^53.
    let mut shift = exp - 1075;
    const BASE: u64 = 1_000_000_000;
    // Little-endian limbs in base 10^9.
    let mut limbs: Vec<u64> = vec![mantissa % BASE, (mantissa / BASE) % BASE, mantissa / (BASE * BASE)];
    while shift > 0 {
        let step = shift.min(30);
        shift -= step;
        let mut carry = 0u64;
        for limb in limbs.iter_mut() {
            let x = (*limb << step) + carry;
            *limb = x % BASE;
            carry = x / BASE;
        }
        while carry > 0 {
            limbs.push(carry % BASE);
            carry /= BASE;
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut out = limbs.last().map(|&l| crate::text::digits(l)).unwrap_or_default();
    for limb in limbs.iter().rev().skip(1) {
        let digits = itoa::Buffer::new().format(*limb).len();
        out.extend(core::iter::repeat_n('0', 9 - digits));
        limb.push_to(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_decimal_of_powers_of_two() {
        assert_eq!(exact_decimal(2f64.powi(53)), "9007199254740992");
        assert_eq!(exact_decimal(2f64.powi(68)), "295147905179352825856");
        assert_eq!(exact_decimal(f64::MAX), format!("{:.0}", f64::MAX));
    }

    #[test]
    fn integers_beyond_two_to_the_53_are_checked() {
        assert!(integer_survives("9007199254740992", 9007199254740992.0));
        assert!(!integer_survives("9007199254740993", "9007199254740993".parse().unwrap()));
        assert!(integer_survives("295147905179352825856", 2f64.powi(68)));
        assert!(!integer_survives("295147905179352825857", 2f64.powi(68)));
        assert!(integer_survives("123456789012345", 123456789012345.0));
        // ECMAScript's own text for a double survives even when it is not the exact value.
        assert!(integer_survives("333333333333333300000", 333333333333333300000.0));
        assert!(!integer_survives("333333333333333300001", 333333333333333300000.0));
    }
}
