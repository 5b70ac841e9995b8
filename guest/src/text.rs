//! Messages without `core::fmt`.
//!
//! Every error and reason the core returns is a sentence built from literal text, numbers and
//! quoted values. `format!` would pull `core::fmt`'s machinery into the component and build an
//! argument table at every call site; [`msg!`](crate::msg) appends the pieces in order instead,
//! numbers through `itoa`. This is a size measure (docs/performance.md, "Component size").

use crate::escape::{write_string, HEX};
use crate::prelude::*;

/// Something a message can contain.
pub trait Piece {
    /// Append this piece's text to `out`.
    fn push_to(&self, out: &mut String);
}

impl Piece for str {
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Piece for String {
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl<T: Piece + ?Sized> Piece for &T {
    fn push_to(&self, out: &mut String) {
        (**self).push_to(out);
    }
}

/// `out.push_str(s)`, as a call: for documents built from many literal pieces (the provider's),
/// where an inlined `push_str` costs the component about 35 bytes a piece.
#[inline(never)]
pub fn put(out: &mut String, s: &str) {
    out.push_str(s);
}

/// Append the decimal digits of `n`. Every integer the core prints goes through here as a `u64`:
/// one copy of `itoa`'s formatting in the component instead of one per integer type.
pub fn push_u64(n: u64, out: &mut String) {
    out.push_str(itoa::Buffer::new().format(n));
}

macro_rules! integer_piece {
    ($($t:ty),*) => {$(
        impl Piece for $t {
            fn push_to(&self, out: &mut String) {
                push_u64(*self as u64, out);
            }
        }
    )*};
}
integer_piece!(u16, u32, u64, usize);

/// A string shown as its JSON literal (quoted, with JSON escapes).
pub struct Q<'a>(pub &'a str);

impl Piece for Q<'_> {
    fn push_to(&self, out: &mut String) {
        write_string(self.0, out);
    }
}

/// A UTF-16 code unit as four lowercase hex digits (`d83d`).
pub struct Hex4(pub u32);

impl Piece for Hex4 {
    fn push_to(&self, out: &mut String) {
        for shift in [12, 8, 4, 0] {
            out.push(char::from(HEX[((self.0 >> shift) & 0xF) as usize]));
        }
    }
}

/// The decimal digits of `n`.
pub fn digits(n: impl Into<u64>) -> String {
    String::from(itoa::Buffer::new().format(n.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_join_in_order() {
        let owner = String::from("w\"1");
        let m = msg!["attempt ", 3u32, " by ", Q(&owner), " at ", 1_700_000_000_000u64, ": ", &owner, " ", Hex4(0xD83D)];
        assert_eq!(m, "attempt 3 by \"w\\\"1\" at 1700000000000: w\"1 d83d");
        assert_eq!(digits(42u32), "42");
    }
}
