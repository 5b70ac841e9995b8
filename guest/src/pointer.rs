//! RFC 6901 JSON pointers over [`Value`] trees: parse, look up, remove, and find the first
//! place where two documents differ (in canonical order).

use crate::json::{cmp_utf16, Value};
use crate::prelude::*;
use core::cmp::Ordering;

/// A parsed pointer: its reference tokens, unescaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    /// The pointer as written (e.g. `/a~1b/0`).
    pub text: String,
    /// The unescaped reference tokens (e.g. `["a/b", "0"]`).
    pub tokens: Vec<String>,
}

/// Parse an RFC 6901 pointer. The root pointer `""` is refused: keying or ignoring the whole
/// argument document is what the key identity and the default spec are for.
pub fn parse(text: &str) -> Result<Pointer, String> {
    if text.is_empty() {
        return Err("the root pointer \"\" is not allowed here; name a member such as \"/id\"".into());
    }
    let Some(rest) = text.strip_prefix('/') else {
        return Err(msg![crate::text::Q(text), " is not a JSON pointer: it must start with '/'"]);
    };
    let mut tokens = Vec::new();
    for raw in rest.split('/') {
        let mut tok = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c == '~' {
                match chars.next() {
                    Some('0') => tok.push('~'),
                    Some('1') => tok.push('/'),
                    _ => return Err(msg![crate::text::Q(text), " is not a JSON pointer: '~' must be followed by '0' or '1'"]),
                }
            } else {
                tok.push(c);
            }
        }
        tokens.push(tok);
    }
    Ok(Pointer { text: text.to_string(), tokens })
}

/// Escape one reference token (`~` → `~0`, `/` → `~1`) and append it to a pointer.
pub fn push_token(path: &mut String, token: &str) {
    path.push('/');
    for c in token.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

fn array_index(token: &str, len: usize) -> Option<usize> {
    if token.is_empty() || (token.len() > 1 && token.starts_with('0')) || !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse::<usize>().ok().filter(|&i| i < len)
}

/// The value `tokens` point at, if present.
pub fn get<'v, 'a>(v: &'v Value<'a>, tokens: &[String]) -> Option<&'v Value<'a>> {
    let mut cur = v;
    for tok in tokens {
        cur = match cur {
            Value::Object(members) => &members.iter().find(|(k, _)| k == tok)?.1,
            Value::Array(items) => items.get(array_index(tok, items.len())?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Why a member could not be removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntoArray;

/// Remove the object member `tokens` point at. Absent: nothing happens (`Ok(false)`). A pointer
/// whose last step is an array element is refused: removing it would renumber the rest.
pub fn remove(v: &mut Value<'_>, tokens: &[String]) -> Result<bool, IntoArray> {
    let Some((last, parents)) = tokens.split_last() else {
        return Ok(false);
    };
    let mut cur = v;
    for tok in parents {
        cur = match cur {
            Value::Object(members) => match members.iter_mut().find(|(k, _)| k == tok) {
                Some((_, child)) => child,
                None => return Ok(false),
            },
            Value::Array(items) => {
                let len = items.len();
                match array_index(tok, len) {
                    Some(i) => &mut items[i],
                    None => return Ok(false),
                }
            }
            _ => return Ok(false),
        };
    }
    match cur {
        Value::Object(members) => match members.iter().position(|(k, _)| k == last) {
            Some(i) => {
                members.remove(i);
                Ok(true)
            }
            None => Ok(false),
        },
        Value::Array(_) => Err(IntoArray),
        _ => Ok(false),
    }
}

/// What [`walk_differences`] calls at each difference: `(pointer, a side, b side) -> go on?`.
pub type DifferenceVisitor<'f, 'v, 'a> = dyn FnMut(&str, Option<&'v Value<'a>>, Option<&'v Value<'a>>) -> bool + 'f;

/// Walk `a` and `b` together in canonical order and call `visit(pointer, a, b)` for each place
/// where they differ (a missing side is `None`); stop when `visit` returns false. Returns false
/// if stopped early.
pub fn walk_differences<'v, 'a>(
    a: Option<&'v Value<'a>>,
    b: Option<&'v Value<'a>>,
    path: &mut String,
    visit: &mut DifferenceVisitor<'_, 'v, 'a>,
) -> bool {
    match (a, b) {
        (Some(Value::Object(ma)), Some(Value::Object(mb))) => {
            let (mut i, mut j) = (0, 0);
            while i < ma.len() || j < mb.len() {
                let ord = match (ma.get(i), mb.get(j)) {
                    (Some((ka, _)), Some((kb, _))) => cmp_utf16(ka, kb),
                    (Some(_), None) => Ordering::Less,
                    _ => Ordering::Greater,
                };
                let (name, va, vb) = match ord {
                    Ordering::Equal => {
                        i += 1;
                        j += 1;
                        (&ma[i - 1].0, Some(&ma[i - 1].1), Some(&mb[j - 1].1))
                    }
                    Ordering::Less => {
                        i += 1;
                        (&ma[i - 1].0, Some(&ma[i - 1].1), None)
                    }
                    Ordering::Greater => {
                        j += 1;
                        (&mb[j - 1].0, None, Some(&mb[j - 1].1))
                    }
                };
                let len = path.len();
                push_token(path, name);
                let go_on = walk_differences(va, vb, path, visit);
                path.truncate(len);
                if !go_on {
                    return false;
                }
            }
            true
        }
        (Some(Value::Array(xa)), Some(Value::Array(xb))) => {
            for k in 0..xa.len().max(xb.len()) {
                let len = path.len();
                push_token(path, &msg![k]);
                let go_on = walk_differences(xa.get(k), xb.get(k), path, visit);
                path.truncate(len);
                if !go_on {
                    return false;
                }
            }
            true
        }
        (a, b) if a == b => true,
        (a, b) => visit(path, a, b),
    }
}

/// The pointer of the first difference between two documents, or `None` if they are equal.
pub fn first_difference(a: &Value<'_>, b: &Value<'_>) -> Option<String> {
    let mut found = None;
    walk_differences(Some(a), Some(b), &mut String::new(), &mut |p, _, _| {
        found = Some(p.to_string());
        false
    });
    found
}

/// Whether pointer `p` lies at or under pointer `prefix` (token-wise).
pub fn is_under(p: &str, prefix: &str) -> bool {
    p == prefix || (p.starts_with(prefix) && p.as_bytes().get(prefix.len()) == Some(&b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse as j;

    #[test]
    fn parses_escapes_and_refuses_bad_pointers() {
        assert_eq!(parse("/a~1b/~0c").unwrap().tokens, vec!["a/b".to_string(), "~c".to_string()]);
        assert!(parse("").is_err());
        assert!(parse("a").is_err());
        assert!(parse("/a~2").is_err());
        assert_eq!(parse("/").unwrap().tokens, vec![String::new()]);
    }

    #[test]
    fn get_and_remove() {
        let mut v = j(r#"{"a":{"b":[1,{"c":2}]},"d":3}"#).unwrap();
        assert_eq!(get(&v, &parse("/a/b/1/c").unwrap().tokens), Some(&Value::Number(2.0)));
        assert_eq!(get(&v, &parse("/a/b/01").unwrap().tokens), None);
        assert_eq!(remove(&mut v, &parse("/a/b/0").unwrap().tokens), Err(IntoArray));
        assert_eq!(remove(&mut v, &parse("/a/b/1/c").unwrap().tokens), Ok(true));
        assert_eq!(remove(&mut v, &parse("/zz/y").unwrap().tokens), Ok(false));
        assert_eq!(crate::json::to_string(&v), r#"{"a":{"b":[1,{}]},"d":3}"#);
    }

    #[test]
    fn first_difference_in_canonical_order() {
        let a = j(r#"{"b":1,"a":{"x":[1,2,3]}}"#).unwrap();
        let b = j(r#"{"a":{"x":[1,2]},"b":2}"#).unwrap();
        assert_eq!(first_difference(&a, &b).as_deref(), Some("/a/x/2"));
        assert_eq!(first_difference(&a, &a), None);
        let c = j(r#"{"a/b":1}"#).unwrap();
        let d = j(r#"{"a/b":2}"#).unwrap();
        assert_eq!(first_difference(&c, &d).as_deref(), Some("/a~1b"));
        assert_eq!(first_difference(&j("[]").unwrap(), &j("{}").unwrap()).as_deref(), Some(""));
    }

    #[test]
    fn under() {
        assert!(is_under("/a/b", "/a"));
        assert!(is_under("/a", "/a"));
        assert!(!is_under("/ab", "/a"));
    }
}
