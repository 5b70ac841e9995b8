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
//! A condition is decided in three values: true, false, or *unknown* (`None`) — a test of an
//! absent member (except `present`), or an order between a number and something that is not
//! one. `not` keeps unknown unknown; `all` is false if one part is, else unknown if one part is;
//! `any` is true if one part is, else unknown if one part is. A call **needs approval unless its
//! condition is false**: a rule never lets a call through because it could not read it.
//!
//! One walk over the condition's JSON both checks it (every node, whatever the arguments) and,
//! given arguments, decides it: there is no second representation to keep in step with the
//! first (and none in the component's bytes).

use crate::json::Value;
use crate::pointer;
use crate::prelude::*;
use crate::text::Q;

/// The most conditions and tests one rule may hold: a policy is written by people, and a
/// bound keeps a hostile document from costing more than a parse.
pub const MAX_NODES: usize = 256;

/// A condition's value: `Some(true)`, `Some(false)`, or `None`, unknown.
pub type Truth = Option<bool>;

/// Why a condition was refused: the JSON pointer of the offending value in the policy
/// document, and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// Where (a JSON pointer into the document the condition was read from).
    pub at: String,
    /// What is wrong.
    pub message: String,
}

/// Check the condition `v`, found at `at` in its document; every pointer it reads, in the
/// order written (for `oncely check`: a member the key ignores cannot be bound to an approval).
pub fn check(v: &Value<'_>, at: &str) -> Result<Vec<String>, Refused> {
    let mut w = Walk { args: None, nodes: 0, pointers: Vec::new() };
    w.node(v, at)?;
    Ok(w.pointers)
}

/// The value of the condition `v` on `args` (the call's canonical arguments, parsed); a
/// condition that does not check is unknown.
pub fn decide(v: &Value<'_>, args: &Value<'_>) -> Truth {
    let mut w = Walk { args: Some(args), nodes: 0, pointers: Vec::new() };
    w.node(v, "").unwrap_or(None)
}

/// Whether a call with these arguments needs approval under the condition `v`: unless it is
/// false on them.
pub fn needs_approval(v: &Value<'_>, args: &Value<'_>) -> bool {
    decide(v, args) != Some(false)
}

struct Walk<'a, 'b> {
    /// The arguments to decide on; none: check only.
    args: Option<&'a Value<'b>>,
    nodes: usize,
    pointers: Vec<String>,
}

fn refused(at: &str, message: String) -> Refused {
    Refused { at: at.to_string(), message }
}

fn child(at: &str, name: &str) -> String {
    let mut p = at.to_string();
    pointer::push_token(&mut p, name);
    p
}

/// `acc` and `t` (three-valued): false if one is, else unknown if one is, else true.
fn and(acc: Truth, t: Truth) -> Truth {
    match (acc, t) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// `not`, kept unknown when unknown.
fn not(t: Truth) -> Truth {
    t.map(|b| !b)
}

impl Walk<'_, '_> {
    fn count(&mut self, at: &str) -> Result<(), Refused> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(refused(at, msg!["a condition may hold at most ", MAX_NODES, " conditions and tests"]));
        }
        Ok(())
    }

    /// A condition object: every member must hold. Each part is checked in full before the next
    /// (no short cut), so that a condition is refused the same whatever the arguments.
    fn node(&mut self, v: &Value<'_>, at: &str) -> Result<Truth, Refused> {
        self.count(at)?;
        let Value::Object(members) = v else {
            return Err(refused(at, "a condition must be an object, such as {\"/amount\": {\">\": 100}}".into()));
        };
        if members.is_empty() {
            return Err(refused(at, "a condition must test something; an empty object would hold for every call".into()));
        }
        let mut out = Some(true);
        for (name, value) in members {
            let at = child(at, name);
            out = and(
                out,
                match name.as_ref() {
                    "all" | "any" => {
                        let items = match value {
                            Value::Array(items) if !items.is_empty() => items,
                            _ => return Err(refused(&at, msg![Q(name), " must be a non-empty array of conditions"])),
                        };
                        // any(x) = not(all(not x)).
                        let flip = name == "any";
                        let mut inner = Some(true);
                        for (i, item) in items.iter().enumerate() {
                            let t = self.node(item, &child(&at, &msg![i]))?;
                            inner = and(inner, if flip { not(t) } else { t });
                        }
                        if flip {
                            not(inner)
                        } else {
                            inner
                        }
                    }
                    "not" => not(self.node(value, &at)?),
                    p if p.starts_with('/') => self.tests(p, value, &at)?,
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
                },
            );
        }
        Ok(out)
    }

    /// The tests `{"OP": OPERAND, …}` of the argument at `ptr`: all must hold.
    fn tests(&mut self, ptr: &str, v: &Value<'_>, at: &str) -> Result<Truth, Refused> {
        let tokens = pointer::parse(ptr).map_err(|m| refused(at, m))?.tokens;
        self.pointers.push(ptr.to_string());
        let ops = match v {
            Value::Object(ops) if !ops.is_empty() => ops,
            _ => return Err(refused(at, msg!["the test of ", Q(ptr), " must be an object of operators, such as {\">\": 100}"])),
        };
        let arg = self.args.and_then(|a| pointer::get(a, &tokens));
        let mut out = Some(true);
        for (op, operand) in ops {
            let at = child(at, op);
            self.count(&at)?;
            let order = |f: fn(f64, f64) -> bool| match (operand, arg) {
                (Value::Number(x), Some(Value::Number(n))) => Ok(Some(f(*n, *x))),
                (Value::Number(_), _) => Ok(None),
                _ => Err(refused(&at, msg![Q(op), " compares numbers: its operand must be a number"])),
            };
            out = and(
                out,
                match op.as_ref() {
                    ">" => order(|n, x| n > x)?,
                    ">=" => order(|n, x| n >= x)?,
                    "<" => order(|n, x| n < x)?,
                    "<=" => order(|n, x| n <= x)?,
                    "==" => arg.map(|a| a == operand),
                    "!=" => arg.map(|a| a != operand),
                    "in" => match operand {
                        Value::Array(items) if !items.is_empty() => arg.map(|a| items.contains(a)),
                        _ => return Err(refused(&at, "\"in\" must be a non-empty array of values".into())),
                    },
                    "present" => match operand {
                        Value::Bool(want) => Some(arg.is_some() == *want),
                        _ => return Err(refused(&at, "\"present\" must be true or false".into())),
                    },
                    other => {
                        return Err(refused(&at, msg!["unknown operator ", Q(other), "; expected >, >=, <, <=, ==, !=, in or present"]))
                    }
                },
            );
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn refusal(text: &str) -> Refused {
        check(&json::parse(text).unwrap(), "/approval/when").unwrap_err()
    }

    fn on(c: &str, args: &str) -> Truth {
        let c = json::parse(c).unwrap();
        check(&c, "").unwrap();
        decide(&c, &json::parse(args).unwrap())
    }

    const T: Truth = Some(true);
    const F: Truth = Some(false);
    const U: Truth = None;

    #[test]
    fn orders_compare_numbers() {
        assert_eq!(on(r#"{"/amount": {">": 100}}"#, r#"{"amount": 500}"#), T);
        assert_eq!(on(r#"{"/amount": {">": 100}}"#, r#"{"amount": 100}"#), F);
        assert_eq!(on(r#"{"/amount": {">=": 100}}"#, r#"{"amount": 100.0}"#), T);
        assert_eq!(on(r#"{"/amount": {"<": 0}}"#, r#"{"amount": -0.5}"#), T);
        assert_eq!(on(r#"{"/amount": {"<=": 10, ">": 5}}"#, r#"{"amount": 7}"#), T);
        assert_eq!(on(r#"{"/amount": {"<=": 10, ">": 5}}"#, r#"{"amount": 11}"#), F);
    }

    #[test]
    fn what_cannot_be_decided_needs_approval() {
        // Absent, or not a number for an order: unknown, and unknown needs approval.
        let c = json::parse(r#"{"/amount": {">": 100}}"#).unwrap();
        for args in [r#"{}"#, r#"{"amount": "500"}"#, r#"{"amount": null}"#, r#"[1]"#, r#"{"amount": {"value": 1}}"#] {
            let a = json::parse(args).unwrap();
            assert_eq!(decide(&c, &a), U, "{args}");
            assert!(needs_approval(&c, &a), "{args}");
        }
        // `not` does not turn what it cannot read into a pass.
        assert_eq!(on(r#"{"not": {"/amount": {"<=": 100}}}"#, r#"{}"#), U);
        assert!(!needs_approval(&c, &json::parse(r#"{"amount": 3}"#).unwrap()));
        // A condition that does not check is unknown, never a pass.
        assert_eq!(decide(&json::parse(r#"{"/amount": {"~": 1}}"#).unwrap(), &json::parse(r#"{"amount": 3}"#).unwrap()), U);
    }

    #[test]
    fn equality_is_canonical_json() {
        assert_eq!(on(r#"{"/n": {"==": 1}}"#, r#"{"n": 1.0}"#), T);
        assert_eq!(on(r#"{"/o": {"==": {"b": 2, "a": 1}}}"#, r#"{"o": {"a": 1, "b": 2}}"#), T);
        assert_eq!(on(r#"{"/c": {"!=": "usd"}}"#, r#"{"c": "usd"}"#), F);
        assert_eq!(on(r#"{"/c": {"==": "5"}}"#, r#"{"c": 5}"#), F);
        assert_eq!(on(r#"{"/c": {"in": ["EUR", "GBP"]}}"#, r#"{"c": "GBP"}"#), T);
        assert_eq!(on(r#"{"/c": {"in": ["EUR", "GBP"]}}"#, r#"{"c": "USD"}"#), F);
        assert_eq!(on(r#"{"/c": {"==": "x"}}"#, r#"{}"#), U);
        assert_eq!(on(r#"{"/a~1b/0": {"==": true}}"#, r#"{"a/b": [true]}"#), T);
    }

    #[test]
    fn presence_is_always_decided() {
        assert_eq!(on(r#"{"/refund": {"present": true}}"#, r#"{}"#), F);
        assert_eq!(on(r#"{"/refund": {"present": false}}"#, r#"{}"#), T);
        assert_eq!(on(r#"{"/refund": {"present": true}}"#, r#"{"refund": null}"#), T);
    }

    #[test]
    fn combinators_in_three_values() {
        let any = r#"{"any": [{"/amount": {">": 100}}, {"/currency": {"in": ["EUR"]}}]}"#;
        assert_eq!(on(any, r#"{"amount": 5, "currency": "EUR"}"#), T);
        assert_eq!(on(any, r#"{"amount": 5, "currency": "USD"}"#), F);
        assert_eq!(on(any, r#"{"currency": "USD"}"#), U);
        assert_eq!(on(any, r#"{"currency": "EUR"}"#), T); // one true part decides
        let all = r#"{"all": [{"/amount": {">": 100}}, {"/currency": {"==": "EUR"}}]}"#;
        assert_eq!(on(all, r#"{"currency": "USD"}"#), F); // one false part decides
        assert_eq!(on(all, r#"{"currency": "EUR"}"#), U);
        // Members of one object: all must hold.
        let both = r#"{"/amount": {">": 100}, "not": {"/verified": {"==": true}}}"#;
        assert_eq!(on(both, r#"{"amount": 500, "verified": false}"#), T);
        assert_eq!(on(both, r#"{"amount": 500, "verified": true}"#), F);
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
        // A later part's refusal is found whatever an earlier part decided.
        assert_eq!(refusal(r#"{"any": [{"/a": {"present": false}}, {"/b": {"?": 1}}]}"#).at, "/approval/when/any/1/~1b/?");
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
        let c =
            json::parse(r#"{"any": [{"/b": {"present": true}}, {"/a": {"==": 1, "!=": 2}}], "not": {"/c": {"present": true}}}"#).unwrap();
        assert_eq!(check(&c, "").unwrap(), ["/b", "/a", "/c"]);
    }
}
