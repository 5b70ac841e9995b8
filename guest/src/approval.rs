//! When a call needs a person's approval before it runs: the condition language of a tool
//! policy's `approval.when` (issue 27), read and decided here, in the core, so that every host,
//! `oncely check` and the inbox agree on which calls wait for a person.
//!
//! A condition is a JSON object. Each member whose name is a JSON pointer (it starts with `/`)
//! tests the argument at that pointer with one or more operators, all of which must hold; the
//! members `all`, `any` (a non-empty array of conditions) and `not` (a condition) combine
//! conditions; every member of the object must hold:
//!
//! ```json
//! {"any": [{"/amount": {">": 100}}, {"/currency": {"in": ["EUR", "GBP"]}}],
//!  "not": {"/customer/verified": {"==": true}}}
//! ```
//!
//! Operators: `>`, `>=`, `<`, `<=` (a number), `==`, `!=` (any JSON value, compared as
//! canonical JSON: `1` equals `1.0`, member order does not matter), `in` (a non-empty array of
//! values), `present` (`true` or `false`).
//!
//! A condition is decided in three values: true, false, or *unknown* — a test of an absent
//! member (except `present`), or an order between a number and something that is not one.
//! `not` keeps unknown unknown; `all` is false if one part is, else unknown if one part is;
//! `any` is true if one part is, else unknown if one part is. A call **needs approval unless its
//! condition is false**: a rule never lets a call through because it could not read it.
//!
//! This module is not yet part of the component's interface: the ledger's approval states
//! (issue 27, items 2–4) read it next.

use crate::json::{self, Value};
use crate::pointer::{self, Pointer};
use crate::prelude::*;
use crate::text::Q;

/// The most conditions and tests one rule may hold: a policy is written by people, and a
/// bound keeps a hostile document from costing more than a parse.
pub const MAX_NODES: usize = 256;

/// A parsed condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// Every part holds (an object's members, or `all`).
    All(Vec<Condition>),
    /// One part holds (`any`).
    Any(Vec<Condition>),
    /// The part does not hold (`not`).
    Not(Box<Condition>),
    /// The argument at `at` passes `test`.
    Test(Pointer, Test),
}

/// One operator with its operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Test {
    /// `>`: a number greater than this.
    Greater(f64),
    /// `>=`.
    AtLeast(f64),
    /// `<`.
    Less(f64),
    /// `<=`.
    AtMost(f64),
    /// `==`: this value (its canonical JSON).
    Equal(String),
    /// `!=`.
    NotEqual(String),
    /// `in`: one of these values (their canonical JSON).
    In(Vec<String>),
    /// `present`: whether the member is there.
    Present(bool),
}

/// The three values a condition can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truth {
    /// It holds.
    True,
    /// It does not hold.
    False,
    /// It cannot be decided on these arguments.
    Unknown,
}

/// Why a condition was refused: the JSON pointer of the offending value in the policy
/// document, and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// Where (a JSON pointer into the document the condition was read from).
    pub at: String,
    /// What is wrong.
    pub message: String,
}

fn refused(at: &str, message: String) -> Refused {
    Refused { at: at.to_string(), message }
}

fn child(at: &str, name: &str) -> String {
    let mut p = at.to_string();
    pointer::push_token(&mut p, name);
    p
}

/// Read the condition `v`, found at `at` in its document.
pub fn parse(v: &Value<'_>, at: &str) -> Result<Condition, Refused> {
    let mut nodes = 0;
    parse_node(v, at, &mut nodes)
}

fn count(nodes: &mut usize, at: &str) -> Result<(), Refused> {
    *nodes += 1;
    if *nodes > MAX_NODES {
        return Err(refused(at, msg!["a condition may hold at most ", MAX_NODES, " conditions and tests"]));
    }
    Ok(())
}

fn parse_node(v: &Value<'_>, at: &str, nodes: &mut usize) -> Result<Condition, Refused> {
    count(nodes, at)?;
    let Value::Object(members) = v else {
        return Err(refused(at, msg!["a condition must be an object, such as {\"/amount\": {\">\": 100}}"]));
    };
    if members.is_empty() {
        return Err(refused(at, "a condition must test something; an empty object would hold for every call".into()));
    }
    let mut parts = Vec::with_capacity(members.len());
    for (name, value) in members {
        let at = child(at, name);
        parts.push(match name.as_ref() {
            "all" | "any" => {
                let Value::Array(items) = value else {
                    return Err(refused(&at, msg![Q(name), " must be an array of conditions"]));
                };
                if items.is_empty() {
                    return Err(refused(&at, msg![Q(name), " must hold at least one condition"]));
                }
                let inner = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| parse_node(item, &child(&at, &msg![i]), nodes))
                    .collect::<Result<Vec<_>, _>>()?;
                if name == "all" {
                    Condition::All(inner)
                } else {
                    Condition::Any(inner)
                }
            }
            "not" => Condition::Not(Box::new(parse_node(value, &at, nodes)?)),
            p if p.starts_with('/') => {
                let ptr = pointer::parse(p).map_err(|m| refused(&at, m))?;
                parse_tests(ptr, value, &at, nodes)?
            }
            other => {
                return Err(refused(
                    &at,
                    msg![
                        "unknown condition member ",
                        Q(other),
                        "; expected a JSON pointer such as \"/amount\", \"all\", \"any\" or \"not\""
                    ],
                ))
            }
        });
    }
    Ok(if parts.len() == 1 { parts.pop().expect("one part") } else { Condition::All(parts) })
}

fn number(v: &Value<'_>, at: &str, op: &str) -> Result<f64, Refused> {
    match v {
        Value::Number(n) => Ok(*n),
        _ => Err(refused(at, msg![Q(op), " compares numbers: its operand must be a number"])),
    }
}

fn parse_tests(ptr: Pointer, v: &Value<'_>, at: &str, nodes: &mut usize) -> Result<Condition, Refused> {
    let Value::Object(ops) = v else {
        return Err(refused(at, msg!["the test of ", Q(&ptr.text), " must be an object of operators, such as {\">\": 100}"]));
    };
    if ops.is_empty() {
        return Err(refused(at, msg!["the test of ", Q(&ptr.text), " must hold at least one operator"]));
    }
    let mut tests = Vec::with_capacity(ops.len());
    for (op, operand) in ops {
        let at = child(at, op);
        count(nodes, &at)?;
        let test = match op.as_ref() {
            ">" => Test::Greater(number(operand, &at, op)?),
            ">=" => Test::AtLeast(number(operand, &at, op)?),
            "<" => Test::Less(number(operand, &at, op)?),
            "<=" => Test::AtMost(number(operand, &at, op)?),
            "==" => Test::Equal(json::to_string(operand)),
            "!=" => Test::NotEqual(json::to_string(operand)),
            "in" => match operand {
                Value::Array(items) if !items.is_empty() => Test::In(items.iter().map(json::to_string).collect()),
                _ => return Err(refused(&at, "\"in\" must be a non-empty array of values".into())),
            },
            "present" => match operand {
                Value::Bool(b) => Test::Present(*b),
                _ => return Err(refused(&at, "\"present\" must be true or false".into())),
            },
            other => return Err(refused(&at, msg!["unknown operator ", Q(other), "; expected >, >=, <, <=, ==, !=, in or present"])),
        };
        tests.push(Condition::Test(ptr.clone(), test));
    }
    Ok(if tests.len() == 1 { tests.pop().expect("one test") } else { Condition::All(tests) })
}

/// Every pointer the condition reads, in the order written (for `oncely check`: a pointer into
/// a member the key ignores cannot be bound to an approval).
pub fn pointers(c: &Condition) -> Vec<&Pointer> {
    let mut out = Vec::new();
    collect(c, &mut out);
    out
}

fn collect<'c>(c: &'c Condition, out: &mut Vec<&'c Pointer>) {
    match c {
        Condition::All(parts) | Condition::Any(parts) => parts.iter().for_each(|p| collect(p, out)),
        Condition::Not(inner) => collect(inner, out),
        Condition::Test(p, _) => out.push(p),
    }
}

/// The condition's value on `args` (the call's canonical arguments, parsed).
pub fn decide(c: &Condition, args: &Value<'_>) -> Truth {
    match c {
        Condition::All(parts) => {
            let mut unknown = false;
            for p in parts {
                match decide(p, args) {
                    Truth::False => return Truth::False,
                    Truth::Unknown => unknown = true,
                    Truth::True => {}
                }
            }
            if unknown {
                Truth::Unknown
            } else {
                Truth::True
            }
        }
        Condition::Any(parts) => {
            let mut unknown = false;
            for p in parts {
                match decide(p, args) {
                    Truth::True => return Truth::True,
                    Truth::Unknown => unknown = true,
                    Truth::False => {}
                }
            }
            if unknown {
                Truth::Unknown
            } else {
                Truth::False
            }
        }
        Condition::Not(inner) => match decide(inner, args) {
            Truth::True => Truth::False,
            Truth::False => Truth::True,
            Truth::Unknown => Truth::Unknown,
        },
        Condition::Test(p, t) => test(pointer::get(args, &p.tokens), t),
    }
}

fn truth(b: bool) -> Truth {
    if b {
        Truth::True
    } else {
        Truth::False
    }
}

fn test(v: Option<&Value<'_>>, t: &Test) -> Truth {
    let Some(v) = v else {
        return match t {
            Test::Present(want) => truth(!*want),
            _ => Truth::Unknown,
        };
    };
    let order = |f: &dyn Fn(f64) -> bool| match v {
        Value::Number(n) => truth(f(*n)),
        _ => Truth::Unknown,
    };
    match t {
        Test::Greater(x) => order(&|n| n > *x),
        Test::AtLeast(x) => order(&|n| n >= *x),
        Test::Less(x) => order(&|n| n < *x),
        Test::AtMost(x) => order(&|n| n <= *x),
        Test::Equal(x) => truth(json::to_string(v) == *x),
        Test::NotEqual(x) => truth(json::to_string(v) != *x),
        Test::In(xs) => {
            let s = json::to_string(v);
            truth(xs.contains(&s))
        }
        Test::Present(want) => truth(*want),
    }
}

/// Whether a call with these arguments needs approval under `c`: unless `c` is false on them.
pub fn needs_approval(c: &Condition, args: &Value<'_>) -> bool {
    decide(c, args) != Truth::False
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(text: &str) -> Condition {
        parse(&json::parse(text).unwrap(), "/approval/when").unwrap()
    }

    fn refusal(text: &str) -> Refused {
        parse(&json::parse(text).unwrap(), "/approval/when").unwrap_err()
    }

    fn on(c: &str, args: &str) -> Truth {
        decide(&cond(c), &json::parse(args).unwrap())
    }

    #[test]
    fn orders_compare_numbers() {
        assert_eq!(on(r#"{"/amount": {">": 100}}"#, r#"{"amount": 500}"#), Truth::True);
        assert_eq!(on(r#"{"/amount": {">": 100}}"#, r#"{"amount": 100}"#), Truth::False);
        assert_eq!(on(r#"{"/amount": {">=": 100}}"#, r#"{"amount": 100.0}"#), Truth::True);
        assert_eq!(on(r#"{"/amount": {"<": 0}}"#, r#"{"amount": -0.5}"#), Truth::True);
        assert_eq!(on(r#"{"/amount": {"<=": 10, ">": 5}}"#, r#"{"amount": 7}"#), Truth::True);
        assert_eq!(on(r#"{"/amount": {"<=": 10, ">": 5}}"#, r#"{"amount": 11}"#), Truth::False);
    }

    #[test]
    fn what_cannot_be_decided_needs_approval() {
        // Absent, or not a number for an order: unknown, and unknown needs approval.
        let c = cond(r#"{"/amount": {">": 100}}"#);
        for args in [r#"{}"#, r#"{"amount": "500"}"#, r#"{"amount": null}"#, r#"[1]"#, r#"{"amount": {"value": 1}}"#] {
            let a = json::parse(args).unwrap();
            assert_eq!(decide(&c, &a), Truth::Unknown, "{args}");
            assert!(needs_approval(&c, &a), "{args}");
        }
        // `not` does not turn what it cannot read into a pass.
        assert_eq!(on(r#"{"not": {"/amount": {"<=": 100}}}"#, r#"{}"#), Truth::Unknown);
        assert!(!needs_approval(&cond(r#"{"/amount": {">": 100}}"#), &json::parse(r#"{"amount": 3}"#).unwrap()));
    }

    #[test]
    fn equality_is_canonical_json() {
        assert_eq!(on(r#"{"/n": {"==": 1}}"#, r#"{"n": 1.0}"#), Truth::True);
        assert_eq!(on(r#"{"/o": {"==": {"b": 2, "a": 1}}}"#, r#"{"o": {"a": 1, "b": 2}}"#), Truth::True);
        assert_eq!(on(r#"{"/c": {"!=": "usd"}}"#, r#"{"c": "usd"}"#), Truth::False);
        assert_eq!(on(r#"{"/c": {"==": "5"}}"#, r#"{"c": 5}"#), Truth::False);
        assert_eq!(on(r#"{"/c": {"in": ["EUR", "GBP"]}}"#, r#"{"c": "GBP"}"#), Truth::True);
        assert_eq!(on(r#"{"/c": {"in": ["EUR", "GBP"]}}"#, r#"{"c": "USD"}"#), Truth::False);
        assert_eq!(on(r#"{"/c": {"==": "x"}}"#, r#"{}"#), Truth::Unknown);
        assert_eq!(on(r#"{"/a~1b/0": {"==": true}}"#, r#"{"a/b": [true]}"#), Truth::True);
    }

    #[test]
    fn presence_is_always_decided() {
        assert_eq!(on(r#"{"/refund": {"present": true}}"#, r#"{}"#), Truth::False);
        assert_eq!(on(r#"{"/refund": {"present": false}}"#, r#"{}"#), Truth::True);
        assert_eq!(on(r#"{"/refund": {"present": true}}"#, r#"{"refund": null}"#), Truth::True);
    }

    #[test]
    fn combinators_in_three_values() {
        let any = r#"{"any": [{"/amount": {">": 100}}, {"/currency": {"in": ["EUR"]}}]}"#;
        assert_eq!(on(any, r#"{"amount": 5, "currency": "EUR"}"#), Truth::True);
        assert_eq!(on(any, r#"{"amount": 5, "currency": "USD"}"#), Truth::False);
        assert_eq!(on(any, r#"{"currency": "USD"}"#), Truth::Unknown);
        assert_eq!(on(any, r#"{"currency": "EUR"}"#), Truth::True); // one true part decides
        let all = r#"{"all": [{"/amount": {">": 100}}, {"/currency": {"==": "EUR"}}]}"#;
        assert_eq!(on(all, r#"{"currency": "USD"}"#), Truth::False); // one false part decides
        assert_eq!(on(all, r#"{"currency": "EUR"}"#), Truth::Unknown);
        // Members of one object: all must hold.
        let both = r#"{"/amount": {">": 100}, "not": {"/verified": {"==": true}}}"#;
        assert_eq!(on(both, r#"{"amount": 500, "verified": false}"#), Truth::True);
        assert_eq!(on(both, r#"{"amount": 500, "verified": true}"#), Truth::False);
    }

    #[test]
    fn refusals_say_where() {
        let r = refusal(r#"{"/amount": {">": "100"}}"#);
        assert_eq!(r.at, "/approval/when/~1amount/>");
        assert!(r.message.contains("must be a number"), "{}", r.message);
        assert_eq!(refusal(r#"{}"#).at, "/approval/when");
        assert_eq!(refusal(r#"[]"#).at, "/approval/when");
        assert_eq!(refusal(r#"{"amount": {">": 1}}"#).at, "/approval/when/amount");
        assert_eq!(refusal(r#"{"/a": {"~": 1}}"#).at, "/approval/when/~1a/~0");
        assert_eq!(refusal(r#"{"/a": {}}"#).at, "/approval/when/~1a");
        assert_eq!(refusal(r#"{"/a": 5}"#).at, "/approval/when/~1a");
        assert_eq!(refusal(r#"{"any": []}"#).at, "/approval/when/any");
        assert_eq!(refusal(r#"{"all": {"/a": {"present": true}}}"#).at, "/approval/when/all");
        assert_eq!(refusal(r#"{"any": [{"/a": {"present": 1}}]}"#).at, "/approval/when/any/0/~1a/present");
        assert_eq!(refusal(r#"{"/a": {"in": []}}"#).at, "/approval/when/~1a/in");
        assert_eq!(refusal(r#"{"/a~2": {"present": true}}"#).at, "/approval/when/~1a~02");
    }

    #[test]
    fn a_rule_is_bounded() {
        let mut text = String::from(r#"{"any": ["#);
        for i in 0..MAX_NODES {
            if i > 0 {
                text.push(',');
            }
            text.push_str(r#"{"/a": {"present": true}}"#);
        }
        text.push_str("]}");
        let r = refusal(&text);
        assert!(r.message.contains("at most 256"), "{}", r.message);
    }

    #[test]
    fn pointers_in_order() {
        let c = cond(r#"{"any": [{"/b": {"present": true}}, {"/a": {"==": 1, "!=": 2}}], "not": {"/c": {"present": true}}}"#);
        let ps: Vec<&str> = pointers(&c).iter().map(|p| p.text.as_str()).collect();
        assert_eq!(ps, ["/b", "/a", "/a", "/c"]);
    }
}
