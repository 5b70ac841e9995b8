//! The inbox's HTML: server-rendered, no JavaScript, readable on a phone. Every value is escaped
//! by `maud`; every text an agent, a tool or a person wrote goes through `untrusted` first
//! (bidirectional overrides and control characters shown by their code points: [`t`], [`b`]).

use crate::cli::{render, untrusted};
use maud::{html, Markup, PreEscaped, DOCTYPE};
use oncely::store::{state_name, HistoryRecord, WaitingCursor};
use oncely::wit::ledger::{Entry, EntryState};
use oncely::wit::policy::ReconcilePath;
use oncely::WaitingCount;

const STYLE: &str = r#"
*{box-sizing:border-box}body{font:16px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f5f6f8;color:#1d2330}
header{background:#1d2330;color:#fff;padding:.7rem 1rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header a{color:#fff}header .who{margin:0 0 0 auto;font-size:.9rem;opacity:.85}
button.link{background:none;color:#fff;padding:0;text-decoration:underline;font-size:inherit}
main{max-width:60rem;margin:0 auto;padding:1rem}
h1{font-size:1.3rem;margin:.2rem 0 1rem}h2{font-size:1.05rem;margin:1.2rem 0 .5rem}
.card{background:#fff;border:1px solid #dde1e8;border-radius:.5rem;padding:.8rem 1rem;margin:0 0 .8rem}
.card h3{margin:0 0 .3rem;font-size:1.05rem}.card h3 a{color:inherit}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .8rem;font-size:.92rem;margin:.4rem 0}
.meta dt{color:#5a6372}.meta dd{margin:0;overflow-wrap:anywhere}
.badge{display:inline-block;font-size:.75rem;font-weight:600;padding:.1rem .45rem;border-radius:.3rem;vertical-align:middle}
.escalated{background:#fde2e1;color:#9b1c1c}.in-doubt{background:#fff1c2;color:#7a4d00}.done{background:#dcf5e3;color:#17603a}
.failed{background:#e8eaf0;color:#3b4352}.pending{background:#e0ecff;color:#1d4ed8}
.awaiting-approval{background:#ede4ff;color:#5b21b6}.approved{background:#dcf5e3;color:#17603a}.denied{background:#e8eaf0;color:#3b4352}
.diff td:first-child{white-space:nowrap}.was{color:#9b1c1c}.now{color:#17603a}
pre{background:#f0f2f6;padding:.5rem;border-radius:.35rem;overflow-x:auto;font-size:.85rem;margin:.3rem 0}
code{font-size:.85rem;overflow-wrap:anywhere}
form.settle{display:grid;gap:.5rem;margin:.6rem 0}textarea,input[type=text],input[type=password]{width:100%;font:inherit;padding:.45rem;border:1px solid #c4cad4;border-radius:.35rem}
button{font:inherit;padding:.55rem .9rem;border:0;border-radius:.35rem;cursor:pointer;background:#1d4ed8;color:#fff}
button.no{background:#3b4352}.flash{padding:.6rem .9rem;border-radius:.35rem;margin:0 0 1rem}.ok{background:#dcf5e3}.err{background:#fde2e1}
table{border-collapse:collapse;width:100%;font-size:.88rem}td,th{text-align:left;padding:.3rem .4rem;border-bottom:1px solid #e4e7ec;vertical-align:top}
.order a{margin-right:.6rem}.empty{color:#5a6372}
@media (max-width:40rem){.meta{grid-template-columns:1fr}.meta dt{margin-top:.3rem}table{font-size:.8rem}}
"#;

/// The person a page is for: their name, and their session's CSRF token (for the sign-out form).
#[derive(Clone, Copy)]
pub struct Viewer<'a> {
    /// Who (what settlements record).
    pub name: &'a str,
    /// The session's CSRF token.
    pub csrf: &'a str,
}

/// Written by an agent, a tool or a person, for one line.
fn t(s: &str) -> String {
    untrusted::line(s).into_owned()
}

/// The same, for a block of lines.
fn b(s: &str) -> String {
    untrusted::block(s).into_owned()
}

fn layout(title: &str, who: Option<Viewer<'_>>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (t(title)) " · oncely" }
                style { (PreEscaped(STYLE)) }
            }
            body {
                header {
                    a href="/" { strong { "oncely" } }
                    span { "effects that need a person" }
                    @if let Some(who) = who {
                        form.who method="post" action="/logout" {
                            "signed in as " (t(who.name)) " · "
                            input type="hidden" name="csrf" value=(who.csrf);
                            button.link type="submit" { "sign out" }
                        }
                    }
                }
                main { (body) }
            }
        }
    }
}

/// The sign-in page (`shared`: the token is everyone's, so ask for a name too); `next`: where
/// to go after it.
pub fn login(shared: bool, next: &str, error: Option<&str>) -> Markup {
    layout(
        "Sign in",
        None,
        html! {
            h1 { "Sign in" }
            @if let Some(e) = error { p.flash.err { (e) } }
            form.card.settle method="post" action="/login" {
                input type="hidden" name="next" value=(next);
                label { "Token" input type="password" name="token" autocomplete="current-password" required; }
                @if shared {
                    label { "Your name (recorded with what you settle)" input type="text" name="name" required; }
                }
                button type="submit" { "Sign in" }
            }
        },
    )
}

fn badge(s: EntryState) -> Markup {
    html! { span class={ "badge " (state_name(s)) } { (state_name(s)) } }
}

fn pretty(json_text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(json_text)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| json_text.to_string())
}

fn when(ms: u64, now: u64) -> String {
    let ago = std::time::Duration::from_secs(now.saturating_sub(ms) / 1000);
    format!("{} ({} ago)", render::time(ms), humantime::format_duration(ago))
}

/// The link to an entry's page.
pub fn entry_href(e: &Entry) -> String {
    format!("/entry?scope={}&key={}", query_value(&e.scope), query_value(&e.key))
}

/// `s` percent-encoded for a query string.
pub fn query_value(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn reconcile(r: &ReconcilePath) -> String {
    match r {
        ReconcilePath::None => "none".into(),
        ReconcilePath::ProviderIdempotent => "provider-idempotent (the same call again, with the same key)".into(),
        ReconcilePath::Lookup(tool) => format!("lookup with {}", t(tool)),
        ReconcilePath::Manual => "manual (a person)".into(),
    }
}

fn facts(e: &Entry, now: u64) -> Markup {
    html! {
        dl.meta {
            dt { "scope" } dd { (t(&e.scope)) }
            dt { "run · step" } dd { (t(&e.run_id)) " · " (t(&e.step_id)) }
            dt { "key" } dd { code { (t(&e.key)) } }
            dt { "attempts" } dd { "attempt " (e.attempt) " by " (t(&e.owner)) ", " (e.reconcile_attempts) " reconciliation(s)" }
            dt { "reason" } dd { (t(e.reason.as_deref().unwrap_or("—"))) }
            @if e.state == EntryState::AwaitingApproval {
                dt { "asked" } dd { (when(e.updated_at, now)) }
            } @else {
                dt { "claimed" } dd { (when(e.created_at, now)) }
            }
            @if let Some(t) = e.in_doubt_since { dt { "in doubt since" } dd { (when(t, now)) } }
            dt { "reconcile" } dd { (reconcile(&e.reconcile)) }
        }
    }
}

/// One page of the inbox: a page of the calls awaiting approval, then a page of the entries
/// whose outcome a person must settle.
pub struct InboxPage<'a> {
    /// The calls awaiting approval on this page.
    pub approvals: &'a [Entry],
    /// Where the approvals of this page start (`None`: the first).
    pub approvals_after: Option<&'a WaitingCursor>,
    /// Where the next page of approvals starts, if there is one.
    pub approvals_next: Option<&'a WaitingCursor>,
    /// The entries to settle on this page.
    pub entries: &'a [Entry],
    /// How many need a person in all (every page).
    pub count: WaitingCount,
    /// The newest first (else the longest waiting first).
    pub newest_first: bool,
    /// Where the entries to settle of this page start (`None`: the first).
    pub after: Option<&'a WaitingCursor>,
    /// Where the next page of entries to settle starts, if there is one.
    pub next: Option<&'a WaitingCursor>,
    /// The in-doubt threshold, for people.
    pub in_doubt_after: &'a str,
}

fn order_name(newest_first: bool) -> &'static str {
    if newest_first {
        "newest"
    } else {
        "oldest"
    }
}

/// The link to the inbox page whose approvals start after `approvals` and whose entries to
/// settle start after `settle` (each `None`: its first page).
fn page_href(newest_first: bool, approvals: Option<&WaitingCursor>, settle: Option<&WaitingCursor>) -> String {
    let mut href = format!("/?order={}", order_name(newest_first));
    for (prefix, c) in [("approvals_", approvals), ("", settle)] {
        if let Some(c) = c {
            href += &format!(
                "&{prefix}after_since={}&{prefix}after_scope={}&{prefix}after_key={}",
                c.since,
                query_value(&c.scope),
                query_value(&c.key)
            );
        }
    }
    href
}

/// The inbox: a page of the calls awaiting approval and a page of the entries to settle, the
/// longest waiting first (or the newest first), and how many there are in all.
pub fn inbox(who: Viewer<'_>, p: &InboxPage<'_>, now: u64) -> Markup {
    let total = p.count.total();
    let order = if p.newest_first { "newest first" } else { "the longest waiting first" };
    layout(
        "Inbox",
        Some(who),
        html! {
            h1 { "Needs a person (" (total) ")" }
            p.order {
                "Across every scope; " (order) ". "
                a href={ "/?order=" (order_name(!p.newest_first)) } { (if p.newest_first { "oldest first" } else { "newest first" }) }
            }
            h2 id="approvals" { "Awaiting approval (" (p.count.awaiting_approval) ")" }
            @if p.approvals.is_empty() && p.approvals_after.is_none() { p.empty { "No call waits for approval." } }
            @for e in p.approvals {
                article.card.approval {
                    h3 { a href=(entry_href(e)) { (t(&e.tool)) } " " (badge(e.state)) }
                    (facts(e, now))
                    details open { summary { "arguments" } pre { (b(&pretty(&e.args_canonical))) } }
                    a href=(entry_href(e)) { "review, approve or deny →" }
                }
            }
            @if p.approvals_after.is_some() || p.approvals_next.is_some() {
                nav.order {
                    @if p.approvals_after.is_some() { a href=(page_href(p.newest_first, None, p.after)) { "first approvals" } }
                    @if let Some(c) = p.approvals_next { a rel="next" href=(page_href(p.newest_first, Some(c), p.after)) { "more approvals →" } }
                }
            }
            h2 id="settle" { "Outcome unknown (" (p.count.escalated + p.count.in_doubt) ")" }
            p.order { (p.count.escalated) " escalated, " (p.count.in_doubt) " in doubt for longer than " (p.in_doubt_after) "." }
            @if p.entries.is_empty() && p.after.is_none() { p.empty { "Nothing waits to be settled." } }
            @for e in p.entries {
                article.card.settle {
                    h3 { a href=(entry_href(e)) { (t(&e.tool)) } " " (badge(e.state)) }
                    (facts(e, now))
                    details open { summary { "arguments" } pre { (b(&pretty(&e.args_canonical))) } }
                    a href=(entry_href(e)) { "review and settle →" }
                }
            }
            @if p.after.is_some() || p.next.is_some() {
                nav.order {
                    @if p.after.is_some() { a href=(page_href(p.newest_first, p.approvals_after, None)) { "first page" } }
                    @if let Some(c) = p.next { a rel="next" href=(page_href(p.newest_first, p.approvals_after, Some(c))) { "next page →" } }
                }
            }
        },
    )
}

/// What the entry page says above the entry.
pub enum Flash {
    /// Settled under this id.
    Settled(String),
    /// Approved or denied under this id.
    Decided(String),
    /// The settlement was refused: why.
    Refused(String),
}

/// What a person may do with an entry on its page.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Open {
    /// Nothing: the page only shows it.
    Nothing,
    /// Settle its outcome (the core's `ledger.settleable`).
    Settle,
    /// Approve or deny the call (it awaits approval).
    Decide,
    /// Deny an approval not used yet.
    Withdraw,
}

/// One entry: its facts, arguments, result, history, and the forms of what a person may do
/// (`open`); for a call awaiting approval, what differs from `last`, the last approved call of
/// the same tool in the same scope.
pub fn entry(
    who: Viewer<'_>,
    e: &Entry,
    history: &[HistoryRecord],
    flash: Option<&Flash>,
    open: Open,
    last: Option<&(Entry, String)>,
    now: u64,
) -> Markup {
    html! {
        (layout(&e.tool, Some(who), html! {
            @match flash {
                Some(Flash::Settled(id)) => p.flash.ok { "Settled: " (state_name(e.state)) ", settlement " code { (t(id)) } "." },
                Some(Flash::Decided(id)) => p.flash.ok { "Recorded: " (state_name(e.state)) ", decision " code { (t(id)) } "." },
                Some(Flash::Refused(why)) => p.flash.err { (t(why)) },
                None => {},
            }
            h1 { (t(&e.tool)) " " (badge(e.state)) }
            section.card {
                (facts(e, now))
                dl.meta {
                    dt { "version" } dd { (e.version) }
                    @if let Some(by) = &e.resolved_by { dt { "settled by" } dd { (t(by)) } }
                    @if let Some(id) = &e.settlement { dt { "settlement" } dd { code { (t(id)) } } }
                }
                h2 { "Arguments" }
                pre { (b(&pretty(&e.args_canonical))) }
                @if let Some(r) = &e.result_json { h2 { "Result" } pre { (b(&pretty(r))) } }
            }
            @if open == Open::Decide {
                section.card {
                    h2 { "Approve or deny" }
                    p { "The agent asked to run " strong { (t(&e.tool)) } " with exactly the arguments above. An approval covers these arguments only (other arguments are another request) and runs the call once; a denial is final, and your reason is what the agent's model reads." }
                    (changes(e, last))
                    form.settle.decide method="post" action="/decide" {
                        (hidden(e, who.csrf))
                        input type="hidden" name="decision" value="approve";
                        label { "Note (optional)" input type="text" name="note"; }
                        button type="submit" { "Approve" }
                    }
                    form.settle.decide method="post" action="/decide" {
                        (hidden(e, who.csrf))
                        input type="hidden" name="decision" value="deny";
                        label { "Reason (the agent's model reads it)" input type="text" name="note"; }
                        button.no type="submit" { "Deny" }
                    }
                }
            }
            @if open == Open::Withdraw {
                section.card {
                    h2 { "Approved, not run yet" }
                    p { "The approval holds until the agent's next call runs it (or it runs out). Deny it to stop the call." }
                    form.settle.decide method="post" action="/decide" {
                        (hidden(e, who.csrf))
                        input type="hidden" name="decision" value="deny";
                        label { "Reason (the agent's model reads it)" input type="text" name="note"; }
                        button.no type="submit" { "Deny" }
                    }
                }
            }
            @if open == Open::Settle {
                section.card {
                    h2 { "Settle it" }
                    p { "Find out from the provider whether attempt " (e.attempt) " happened (its idempotency key is the key above). Your verdict is recorded with your name; the agent's next call gets it." }
                    form.settle method="post" action="/settle" {
                        (hidden(e, who.csrf))
                        input type="hidden" name="verdict" value="happened";
                        label { "It happened — its result, as JSON (what the agent gets)"
                            textarea name="result" rows="4" required { "{}" } }
                        label { "Note (optional)" input type="text" name="note"; }
                        button type="submit" { "It happened" }
                    }
                    form.settle method="post" action="/settle" {
                        (hidden(e, who.csrf))
                        input type="hidden" name="verdict" value="not-happened";
                        label { "Note (optional)" input type="text" name="note"; }
                        button.no type="submit" { "It did not happen (a new attempt may run)" }
                    }
                }
            }
            section.card {
                h2 { "History" }
                table {
                    thead { tr { th { "v" } th { "when" } th { "state" } th { "attempt" } th { "what" } } }
                    tbody {
                        @for h in history {
                            tr {
                                td { (h.version) }
                                td { (render::time(h.at)) }
                                td { (badge(h.state)) }
                                td { (h.attempt) " · " (t(&h.owner)) }
                                td {
                                    (t(h.reason.as_deref().unwrap_or("")))
                                    @if h.reconcile_attempts > 0 && h.state == EntryState::InDoubt { " (reconciliation " (h.reconcile_attempts) ")" }
                                    @if let Some(id) = &h.settlement { " — settlement " code { (t(id)) } }
                                }
                            }
                        }
                    }
                }
            }
        }))
    }
}

/// What differs between the arguments of `e` and those of `last` (the last approved call of the
/// same tool), member by member.
fn changes(e: &Entry, last: Option<&(Entry, String)>) -> Markup {
    let Some((last, approved_by)) = last else {
        return html! { p.empty { "No earlier call of this tool in this scope was approved." } };
    };
    let parse = |s: &str| serde_json::from_str::<serde_json::Value>(s).ok();
    let mut rows = Vec::new();
    if let (Some(was), Some(is)) = (parse(&last.args_canonical), parse(&e.args_canonical)) {
        differences("", Some(&was), Some(&is), &mut rows);
    }
    html! {
        h2 { "Compared with the last approved call" }
        p { "Approved by " (t(approved_by)) " — " a href=(entry_href(last)) { code { (t(&last.key)) } } }
        @if rows.is_empty() {
            p { "The same arguments." }
        } @else {
            table.diff {
                thead { tr { th { "member" } th { "then" } th { "now" } } }
                tbody {
                    @for (pointer, was, is) in &rows {
                        tr {
                            td { code { (t(if pointer.is_empty() { "(the whole)" } else { pointer })) } }
                            td.was { code { (b(was.as_deref().unwrap_or("(absent)"))) } }
                            td.now { code { (b(is.as_deref().unwrap_or("(absent)"))) } }
                        }
                    }
                }
            }
        }
    }
}

/// The JSON Pointers (RFC 6901) where `was` and `is` differ, with each side's value (`None`:
/// absent there), objects compared member by member, arrays of equal length item by item.
fn differences(
    at: &str,
    was: Option<&serde_json::Value>,
    is: Option<&serde_json::Value>,
    out: &mut Vec<(String, Option<String>, Option<String>)>,
) {
    use serde_json::Value;
    let escape = |k: &str| k.replace('~', "~0").replace('/', "~1");
    match (was, is) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))).collect();
            keys.sort();
            for k in keys {
                differences(&format!("{at}/{}", escape(k)), a.get(k), b.get(k), out);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(&format!("{at}/{i}"), Some(x), Some(y), out);
            }
        }
        (a, b) if a != b => out.push((at.to_string(), a.map(Value::to_string), b.map(Value::to_string))),
        _ => {}
    }
}

fn hidden(e: &Entry, csrf: &str) -> Markup {
    html! {
        input type="hidden" name="csrf" value=(csrf);
        input type="hidden" name="scope" value=(e.scope);
        input type="hidden" name="key" value=(e.key);
        input type="hidden" name="version" value=(e.version);
    }
}

/// A page that only says something (an error).
pub fn message(who: Option<Viewer<'_>>, title: &str, text: &str) -> Markup {
    layout(title, who, html! { h1 { (title) } p { (t(text)) } p { a href="/" { "back to the inbox" } } })
}
