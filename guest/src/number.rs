//! Numbers: reading a decimal literal as a double (`clinger`, then `lexical-parse-float`),
//! ECMAScript printing (delegated to `ryu-js`) and the exactness check for integer
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

/// A JSON number literal's double when one operation on exact doubles gives it (Clinger's fast
/// path): its significant digits, at most 15 (an integer below 2^53, exact), times or divided by
/// a power of ten up to 10^22 (exact too), so the one rounding is the correctly rounded result.
/// `None` otherwise: the caller then reads it with `lexical-parse-float`. Together they replace
/// `str::parse::<f64>`, whose 20 KB table of powers of five the component does not carry.
pub fn clinger(lit: &str) -> Option<f64> {
    const POW10: [f64; 23] =
        [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
    let (negative, body) = match lit.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        b => (false, b),
    };
    let (mut m, mut exp, mut digits, mut i) = (0u64, 0i32, 0u32, 0);
    let mut seen_point = false;
    while let Some(&c) = body.get(i) {
        match c {
            b'0'..=b'9' => {
                if m != 0 || c != b'0' {
                    digits += 1;
                }
                if digits > 15 {
                    return None;
                }
                m = m * 10 + u64::from(c - b'0');
                if seen_point {
                    exp -= 1;
                }
            }
            b'.' => seen_point = true,
            _ => break,
        }
        i += 1;
    }
    if let Some(b'e' | b'E') = body.get(i) {
        let rest = &body[i + 1..];
        let (sign, ds) = match rest {
            [b'-', d @ ..] => (-1, d),
            [b'+', d @ ..] => (1, d),
            d => (1, d),
        };
        if ds.is_empty() || ds.len() > 4 {
            return None;
        }
        let e = ds.iter().fold(0i32, |e, &d| e * 10 + i32::from(d - b'0'));
        exp += sign * e;
    }
    let v = m as f64;
    let v = if m == 0 {
        0.0
    } else if (0..=22).contains(&exp) {
        v * POW10[exp as usize]
    } else if (-22..0).contains(&exp) {
        v / POW10[(-exp) as usize]
    } else {
        return None;
    };
    Some(if negative { -v } else { v })
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

    /// Clinger's fast path, where it answers, gives what a correct parser gives (`core`'s,
    /// in this native test), over literals of every shape it takes or refuses.
    #[test]
    fn the_fast_path_is_exact() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let (mut taken, mut refused) = (0, 0);
        for _ in 0..400_000 {
            let mut lit = String::new();
            if next(2) == 0 {
                lit.push('-');
            }
            let int_digits = next(18);
            if int_digits == 0 {
                lit.push('0');
            } else {
                lit.push(char::from(b'1' + next(9) as u8));
                (1..int_digits).for_each(|_| lit.push(char::from(b'0' + next(10) as u8)));
            }
            if next(3) > 0 {
                lit.push('.');
                (0..1 + next(18)).for_each(|_| lit.push(char::from(b'0' + next(10) as u8)));
            }
            if next(3) == 0 {
                lit.push(['e', 'E'][next(2) as usize]);
                lit.push_str(["", "+", "-"][next(3) as usize]);
                lit.push_str(&next(40).to_string());
            }
            let want: f64 = lit.parse().unwrap();
            match clinger(&lit) {
                Some(v) => {
                    taken += 1;
                    assert_eq!(v.to_bits(), want.to_bits(), "{lit}");
                }
                None => refused += 1,
            }
        }
        assert!(taken > 100_000 && refused > 100_000, "{taken} taken, {refused} refused");
    }

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
