//! `bindings/python/src/oncely/types.py`: record classes (dataclasses written out), `str` enums
//! and variant case classes.
//!
//! Names: a type is the PascalCase of its WIT name, a field the snake_case (a Python keyword gets
//! `_`: `class_`), an enum member the UPPER_SNAKE_CASE. A variant is a `Union` of one class per
//! case: a case without payload is an empty class named after the case; a case with a payload is
//! a one-field class named after the case (the field named after the payload's type, `value` for
//! an anonymous one), or the payload record's own class when that is the case's name. The tables
//! below keep the names the package has always used where these rules would give others; a new
//! interface needs no entry.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::{Def, Kind, Model, Ty};
use crate::{header, pascal};

/// Class names that are not the PascalCase of the WIT name.
const TYPE_NAMES: &[(&str, &str)] =
    &[("effect.effect-result", "EffectReturn"), ("provider.request", "ProviderRequest"), ("agent.failure", "CallFailure")];

/// WIT error records that are exceptions of `oncely.errors` (written by hand: they are raised).
const EXCEPTIONS: &[&str] = &["canonical.canon-error", "keys.key-error", "policy.policy-error", "ledger.ledger-error"];

/// A prefix for every case class of a variant.
const CASE_PREFIXES: &[(&str, &str)] = &[("effect.effect-error", "Err")];

/// Case classes: `Class` (no payload, or the default field), `Class.field` (a one-field class
/// with that field), or `=` (the payload record's own class).
const CASES: &[(&str, &str)] = &[
    ("policy.reconcile-path.none", "ReconcileNone"),
    ("policy.reconcile-path.lookup", "Lookup.tool"),
    ("ledger.reconcile-verdict.happened", "Happened.result_json"),
    ("ledger.reconcile-verdict.unknown", "Unknown.reason"),
    ("ledger.settlement.happened", "Happened.result_json"),
    ("ledger.event.heartbeat", "Heartbeat.token"),
    ("ledger.outcome.execute", "Execute.token"),
    ("ledger.outcome.reconcile", "="),
    ("ledger.outcome.escalated", "="),
    ("ledger.outcome.recorded", "Recorded.state"),
    ("ledger.outcome.settled", "Settled.id"),
    ("ledger.outcome.idle", "Idle.next"),
    ("effect.command.effect", "="),
    ("effect.command.event", "="),
    ("effect.command.tend", "="),
    ("effect.command.wait", "="),
    ("effect.action.call-tool", "="),
    ("effect.action.call-reconciler", "CallReconciler.request"),
    ("effect.action.recall-tool", "RecallTool.key"),
    ("effect.action.sleep-until", "SleepUntil.at"),
    ("effect.action.finish", "FinishAction.finish"),
    ("effect.action.raise", "RaiseAction.error"),
    ("effect.input.row", "RowInput.row"),
    ("effect.input.store-failed", "StoreFailed.reason"),
    ("effect.input.tool-returned", "ToolReturned.json"),
    ("effect.input.tool-unencodable", "ToolUnencodable.reason"),
    ("effect.input.tool-failed", "="),
    ("effect.input.verdict", "VerdictInput.verdict"),
    ("effect.result-source.recorded", "RecordedResult.json"),
    ("effect.finish.effect", "="),
    ("effect.finish.event", "EventDone.outcome"),
    ("effect.finish.tended", "="),
    ("effect.effect-error.tool-failed", "ErrToolFailed.reason"),
    ("effect.effect-error.storage", "ErrStorage.reason"),
    ("effect.effect-error.ledger", "ErrLedger.error"),
    ("effect.effect-error.contention", "ErrContention.races"),
    ("provider.request.http", "="),
    ("provider.request.mcp", "="),
    ("provider.admission.keyed", "="),
    ("provider.admission.refuse", "="),
    ("provider.recording.returned", "Returned.json"),
    ("provider.recording.failed", "="),
    ("provider.recording.unrecordable", "Unrecordable.reason"),
    ("provider.answer.handler", "HandlerAnswer"),
    ("provider.answer.refuse", "="),
];

/// What `__all__` lists (and so what `oncely` re-exports with `from oncely.types import *`): the
/// types of these interfaces, and these types of others. Every class is importable from
/// `oncely.types` all the same.
const PUBLIC_INTERFACES: &[&str] = &["canonical", "keys", "policy", "ledger"];
const PUBLIC_TYPES: &[&str] = &["effect.tend-job", "effect.tend-note"];

/// Other names for generated classes, kept for code written against them.
const ALIASES: &[(&str, &str)] = &[("CallTool", "ToolCall")];

/// The Python attribute name of a WIT name: kebab-case to snake_case, keywords get `_`.
pub fn snake(wit: &str) -> String {
    let name = wit.replace('-', "_");
    const KEYWORDS: &[&str] = &[
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else",
        "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
        "return", "try", "while", "with", "yield",
    ];
    if KEYWORDS.contains(&name.as_str()) {
        name + "_"
    } else {
        name
    }
}

/// A class name that is not a Python keyword nor a name this module itself uses (`None_`).
fn class_name(pascal: String) -> String {
    const TAKEN: &[&str] = &["None", "True", "False", "Union", "Enum", "WitEnum", "VARIANTS", "ENUMS", "RECORDS"];
    if TAKEN.contains(&pascal.as_str()) {
        pascal + "_"
    } else {
        pascal
    }
}

fn lookup<'a>(table: &'a [(&str, &str)], key: &str) -> Option<&'a str> {
    table.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

/// The Python name of a named type (a class, or a `Union` alias for a variant).
fn type_name(def: &Def) -> String {
    let path = def.path();
    if EXCEPTIONS.contains(&path.as_str()) {
        // Annotated as `Exception`: oncely.errors imports this module.
        return "Exception".into();
    }
    lookup(TYPE_NAMES, &path).map_or_else(|| class_name(pascal(&def.name)), str::to_string)
}

/// How one variant case is represented.
#[derive(Clone, Debug, PartialEq)]
enum Case {
    /// A class of its own: no field (no payload) or one.
    Class { name: String, field: Option<(String, Ty)>, doc: String },
    /// The payload record's own class.
    Direct(String),
}

impl Case {
    fn class(&self) -> &str {
        match self {
            Case::Class { name, .. } | Case::Direct(name) => name,
        }
    }
}

struct Writer<'a> {
    model: &'a Model,
    out: String,
}

impl Writer<'_> {
    fn py_type(&self, t: &Ty) -> String {
        match t {
            Ty::Bool => "bool".into(),
            Ty::U8 | Ty::U16 | Ty::U32 | Ty::U64 | Ty::S32 | Ty::S64 => "int".into(),
            Ty::F64 => "float".into(),
            Ty::String => "str".into(),
            Ty::List(t) if **t == Ty::U8 => "bytes".into(),
            Ty::List(t) => format!("list[{}]", self.py_type(t)),
            Ty::Option(t) => format!("{} | None", self.py_type(t)),
            Ty::Tuple(ts) => {
                format!("tuple[{}]", ts.iter().map(|t| self.py_type(t)).collect::<Vec<_>>().join(", "))
            }
            Ty::Result(..) => "object".into(),
            Ty::Named(i, n) => type_name(self.model.get(i, n)),
        }
    }

    fn case(&self, def: &Def, case: &str, payload: &Option<Ty>, doc: &str) -> Case {
        let key = format!("{}.{case}", def.path());
        let prefix = lookup(CASE_PREFIXES, &def.path()).unwrap_or("");
        let spec = lookup(CASES, &key);
        let doc = if doc.is_empty() {
            format!("The case ``{}.{case}`` (``{}``).", def.name, def.path())
        } else {
            format!("``{}.{case}``: {doc}", def.name)
        };
        let Some(payload) = payload else {
            let name = spec.map_or_else(|| class_name(format!("{prefix}{}", pascal(case))), str::to_string);
            return Case::Class { name, field: None, doc };
        };
        let record = match payload {
            Ty::Named(i, n) if matches!(self.model.get(i, n).kind, Kind::Record(_)) => Some(type_name(self.model.get(i, n))),
            _ => None,
        };
        match spec {
            Some("=") => Case::Direct(record.unwrap_or_else(|| panic!("{key}: `=` needs a record"))),
            Some(spec) => {
                let (name, field) = match spec.split_once('.') {
                    Some((c, f)) => (c.to_string(), f.to_string()),
                    None => (spec.to_string(), default_field(payload)),
                };
                Case::Class { name, field: Some((field, payload.clone())), doc }
            }
            None => {
                let name = class_name(format!("{prefix}{}", pascal(case)));
                if record.as_deref() == Some(name.as_str()) {
                    Case::Direct(name)
                } else {
                    Case::Class { name, field: Some((default_field(payload), payload.clone())), doc }
                }
            }
        }
    }

    fn docstring(&mut self, indent: &str, text: &str) {
        let text = text.replace('\\', "\\\\");
        let text = text.trim_end_matches('"');
        let lines = wrap(text, 100 - indent.len());
        for (i, line) in lines.iter().enumerate() {
            let open = if i == 0 { "\"\"\"" } else { "" };
            let close = if i + 1 == lines.len() { "\"\"\"" } else { "" };
            if line.is_empty() {
                let _ = writeln!(self.out, "{open}{close}");
            } else {
                let _ = writeln!(self.out, "{indent}{open}{line}{close}");
            }
        }
    }

    /// A record class (see `_record` in the module head): its slots, match arguments and
    /// `__init__` written out, so that importing the module generates no code. A record whose
    /// fields are all options has them default to `None` (a case class's field has no default).
    fn record_class(&mut self, name: &str, doc: &str, fields: &[(String, Ty, String)], record: bool) {
        let all_optional = record && !fields.is_empty() && fields.iter().all(|(_, t, _)| matches!(t, Ty::Option(_)));
        let _ = writeln!(self.out, "\n\n@_record\nclass {name}:");
        self.docstring("    ", doc);
        let names: Vec<String> = fields.iter().map(|(f, _, _)| format!("\"{}\"", snake(f))).collect();
        self.out.push('\n');
        let mut slots = names.clone();
        slots.sort();
        tuple(&mut self.out, "    __slots__ = ", &slots);
        tuple(&mut self.out, "    __match_args__ = ", &names);
        if fields.is_empty() {
            return;
        }
        self.out.push('\n');
        let mut params = vec!["self".to_string()];
        for (fname, t, fdoc) in fields {
            let _ = writeln!(self.out, "    {}: {}", snake(fname), self.py_type(t));
            if !fdoc.is_empty() {
                self.docstring("    ", fdoc);
            }
            let default = if all_optional { " = None" } else { "" };
            params.push(format!("{}: {}{default}", snake(fname), self.py_type(t)));
        }
        self.out.push('\n');
        signature(&mut self.out, "    def __init__(", &params, ") -> None:");
        for (fname, _, _) in fields {
            let f = snake(fname);
            let _ = writeln!(self.out, "        _set(self, \"{f}\", {f})");
        }
    }
}

/// `lhs(items)` as a tuple literal, the way `ruff format` writes it: on one line when it fits in
/// 100 columns, else one item per line with a trailing comma.
fn tuple(out: &mut String, lhs: &str, items: &[String]) {
    let one = match items {
        [only] => format!("{lhs}({only},)"),
        _ => format!("{lhs}({})", items.join(", ")),
    };
    if one.len() <= 100 {
        let _ = writeln!(out, "{one}");
        return;
    }
    let indent = " ".repeat(lhs.len() - lhs.trim_start().len() + 4);
    let _ = writeln!(out, "{lhs}(");
    for item in items {
        let _ = writeln!(out, "{indent}{item},");
    }
    let _ = writeln!(out, "{})", &indent[4..]);
}

/// A function signature the way `ruff format` writes it: on one line, else the parameters on one
/// line of their own, else one per line with a trailing comma.
fn signature(out: &mut String, open: &str, params: &[String], close: &str) {
    let one = format!("{open}{}{close}", params.join(", "));
    let outer = " ".repeat(open.len() - open.trim_start().len());
    let inner = format!("{outer}    ");
    let hugged = format!("{inner}{}", params.join(", "));
    if one.len() <= 100 {
        let _ = writeln!(out, "{one}");
    } else if hugged.len() <= 100 {
        let _ = writeln!(out, "{open}\n{hugged}\n{outer}{close}");
    } else {
        let _ = writeln!(out, "{open}");
        for p in params {
            let _ = writeln!(out, "{inner}{p},");
        }
        let _ = writeln!(out, "{outer}{close}");
    }
}

fn default_field(payload: &Ty) -> String {
    match payload {
        Ty::Named(_, n) => snake(n),
        _ => "value".into(),
    }
}

/// Wrap `text` (WIT doc lines) so that each line fits in `width` columns, with room for the
/// docstring's quotes; the lines of the WIT are kept where they fit.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim_end();
        let room = width - 6;
        if line.chars().count() <= room {
            out.push(line.to_string());
            continue;
        }
        let mut cur = String::new();
        for word in line.split(' ') {
            if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > room {
                out.push(std::mem::take(&mut cur));
            }
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push(cur);
    }
    if out.is_empty() {
        out.push(String::new());
    }
    out
}

/// One `X = A | B` alias of a variant's case classes.
fn union(out: &mut String, name: &str, members: &[String]) {
    // `A | B` (Python 3.10) rather than `typing.Union`: importing typing would cost a first key
    // about 3 ms.
    let one = format!("{name} = {}", members.join(" | "));
    if one.len() <= 100 {
        let _ = writeln!(out, "{one}");
    } else {
        let _ = writeln!(out, "{name} = (");
        for (i, m) in members.iter().enumerate() {
            let _ = writeln!(out, "    {}{m}", if i == 0 { "" } else { "| " });
        }
        let _ = writeln!(out, ")");
    }
}

/// The module's text.
pub fn types_py(model: &Model) -> String {
    let mut w = Writer { model, out: String::new() };
    w.out.push_str(&header("#"));
    w.out.push_str(MODULE_HEAD);
    let mut records = Vec::new();
    let mut enums = Vec::new();
    let mut variants: Vec<Vec<(String, String)>> = Vec::new();
    let mut defined: BTreeMap<String, Case> = BTreeMap::new();
    let mut names: Vec<String> = vec!["WitEnum".into()];
    let mut public: Vec<String> = vec!["WitEnum".into()];
    let mut iface = String::new();
    for def in &model.defs {
        if def.iface != iface {
            iface = def.iface.clone();
            let title = format!("# --- {iface} ");
            let _ = write!(w.out, "\n\n{title}{}\n", "-".repeat(100 - title.len()));
        }
        let path = def.path();
        if EXCEPTIONS.contains(&path.as_str()) {
            continue;
        }
        let name = type_name(def);
        // Two types (of two interfaces) with one Python name: give one a name in TYPE_NAMES.
        assert!(
            !names.contains(&name) && !defined.contains_key(&name),
            "{path}: the Python name {name} is already taken; name it in gen/src/python.rs TYPE_NAMES"
        );
        let is_public = PUBLIC_INTERFACES.contains(&def.iface.as_str()) || PUBLIC_TYPES.contains(&path.as_str());
        let what = match def.kind {
            Kind::Record(_) => "record",
            Kind::Enum(_) => "enum",
            Kind::Variant(_) => "variant",
        };
        let doc = if def.doc.is_empty() {
            format!("The WIT {what} ``{path}`` (wit/{}.wit).", def.iface)
        } else {
            format!("{}\n\nThe WIT {what} ``{path}``.", def.doc)
        };
        match &def.kind {
            Kind::Enum(cases) => {
                let _ = writeln!(w.out, "\n\nclass {name}(WitEnum):");
                w.docstring("    ", &doc);
                w.out.push('\n');
                for (c, _) in cases {
                    let _ = writeln!(w.out, "    {} = \"{c}\"", snake(c).trim_end_matches('_').to_uppercase());
                }
                enums.push(name.clone());
                if is_public {
                    public.push(name.clone());
                }
                names.push(name);
            }
            Kind::Record(fields) => {
                w.record_class(&name, &doc, fields, true);
                records.push(name.clone());
                if is_public {
                    public.push(name.clone());
                }
                names.push(name);
            }
            Kind::Variant(cases) => {
                let mut members = Vec::new();
                let mut table = Vec::new();
                for (c, payload, cdoc) in cases {
                    let case = w.case(def, c, payload, cdoc);
                    let class = case.class().to_string();
                    if let Case::Class { name: cname, field, doc } = &case {
                        match defined.get(cname) {
                            Some(Case::Class { field: f, .. }) if f == field => {}
                            Some(_) => panic!("{path}.{c}: the class {cname} is already another case's"),
                            None => {
                                assert!(
                                    !names.contains(cname),
                                    "{path}.{c}: the Python name {cname} is already taken; name the case in gen/src/python.rs CASES"
                                );
                                let fields: Vec<_> = field.iter().map(|(f, t)| (f.replace('_', "-"), t.clone(), String::new())).collect();
                                w.record_class(cname, doc, &fields, false);
                                defined.insert(cname.clone(), case.clone());
                                if is_public {
                                    public.push(cname.clone());
                                }
                                names.push(cname.clone());
                            }
                        }
                    }
                    if !members.contains(&class) {
                        members.push(class.clone());
                    }
                    table.push((c.clone(), class));
                }
                w.out.push_str("\n\n");
                union(&mut w.out, &name, &members);
                w.docstring("", &doc);
                variants.push(table);
                if is_public {
                    public.push(name.clone());
                }
                names.push(name);
            }
        }
    }
    w.out.push_str("\n\n");
    for (alias, target) in ALIASES {
        let _ = writeln!(w.out, "{alias} = {target}");
        names.push(alias.to_string());
    }
    w.out.push_str("\n# Variant case tables: WIT case name -> Python class (read by the codec).\n");
    w.out.push_str("VARIANTS: tuple[dict[str, type], ...] = (\n");
    for table in &variants {
        w.out.push_str("    {\n");
        for (case, class) in table {
            let _ = writeln!(w.out, "        \"{case}\": {class},");
        }
        w.out.push_str("    },\n");
    }
    w.out.push_str(")\n\n# The WIT enums (read by the codec).\nENUMS: tuple[type[WitEnum], ...] = (\n");
    for e in &enums {
        let _ = writeln!(w.out, "    {e},");
    }
    w.out.push_str(")\n\n# The WIT records (read by the codec; the error records are oncely.errors').\n");
    w.out.push_str("RECORDS: tuple[type, ...] = (\n");
    for r in &records {
        let _ = writeln!(w.out, "    {r},");
    }
    w.out.push_str(")\n\n__all__ = [\n");
    public.sort();
    public.dedup();
    for n in &public {
        let _ = writeln!(w.out, "    \"{n}\",");
    }
    w.out.push_str("]\n");
    w.out
}

const MODULE_HEAD: &str = r#""""Typed mirrors of the core's WIT records, enums and variants, written by ``scripts/mirrors``
from the types of the component itself (``bindings/oncely-core.wasm``; the doc comments are
those of ``wit/``, which the component does not carry).

Every class here is plain data. Field order and names follow the WIT declarations (kebab-case
becomes snake_case; the field ``class`` becomes ``class_``), and :mod:`oncely._codec` checks them
against the component's own type information when it compiles a function that uses them.

Enums are ``str`` enums whose values are the WIT names (``EntryState.IN_DOUBT == "in-doubt"``).
A WIT variant is a union of small case classes, one per case, so that ``match`` works::

    match outcome:
        case Execute(token): ...
        case Replay(result_json=text): ...
        case InProgress(owner=owner): ...

The error records of the WIT (``canon-error``, ``key-error``, ``policy-error``,
``ledger-error``) are exceptions; see :mod:`oncely.errors`. ``__all__`` (what :mod:`oncely`
re-exports) lists the types of the ``canonical``, ``keys``, ``policy`` and ``ledger``
interfaces and the sweeper's ``TendJob`` and ``TendNote``; the others (the machines', the
provider side's) are imported from here.
"""

from __future__ import annotations

from oncely._records import WitEnum, _record, _set"#;

/// A Python literal: what `_exports.py` is made of.
enum Lit {
    Str(String),
    Name(String),
    None,
    Tuple(Vec<Lit>),
}

impl Lit {
    fn inline(&self) -> String {
        match self {
            Lit::Str(s) => format!("\"{s}\""),
            Lit::Name(n) => n.clone(),
            Lit::None => "None".into(),
            Lit::Tuple(items) if items.len() == 1 => format!("({},)", items[0].inline()),
            Lit::Tuple(items) => format!("({})", items.iter().map(Lit::inline).collect::<Vec<_>>().join(", ")),
        }
    }

    /// The literal after `lead` (already written at `indent`), followed by `tail`: on one line if
    /// it fits in 100 columns, else one item per line with a trailing comma (as `ruff format`
    /// leaves it).
    fn write(&self, out: &mut String, indent: usize, lead: usize, tail: &str) {
        let one = self.inline();
        match self {
            Lit::Tuple(items) if indent + lead + one.len() + tail.len() > 100 => {
                out.push_str("(\n");
                for item in items {
                    out.push_str(&" ".repeat(indent + 4));
                    item.write(out, indent + 4, 0, ",");
                }
                let _ = writeln!(out, "{}){tail}", " ".repeat(indent));
            }
            _ => {
                let _ = writeln!(out, "{one}{tail}");
            }
        }
    }
}

/// The Python constant holding a named type's description (`LEDGER_ENTRY_STATE`).
fn constant(iface: &str, name: &str) -> String {
    format!("{iface}_{name}").replace('-', "_").to_uppercase()
}

fn lit(t: &Ty) -> Lit {
    let s = |x: &str| Lit::Str(x.into());
    match t {
        Ty::List(t) => Lit::Tuple(vec![s("list"), lit(t)]),
        Ty::Option(t) => Lit::Tuple(vec![s("option"), lit(t)]),
        Ty::Tuple(ts) => Lit::Tuple(vec![s("tuple"), Lit::Tuple(ts.iter().map(lit).collect())]),
        Ty::Result(ok, err) => {
            let part = |t: &Option<Box<Ty>>| t.as_ref().map_or(Lit::None, |t| lit(t));
            Lit::Tuple(vec![s("result"), part(ok), part(err)])
        }
        Ty::Named(iface, name) => Lit::Name(constant(iface, name)),
        scalar => s(&scalar.wit()),
    }
}

fn named(t: &Ty, out: &mut Vec<(String, String)>) {
    match t {
        Ty::List(t) | Ty::Option(t) => named(t, out),
        Ty::Tuple(ts) => ts.iter().for_each(|t| named(t, out)),
        Ty::Result(ok, err) => ok.iter().chain(err.iter()).for_each(|t| named(t, out)),
        Ty::Named(iface, name) => out.push((iface.clone(), name.clone())),
        _ => {}
    }
}

fn def_lit(def: &Def) -> Lit {
    let s = |x: &str| Lit::Str(x.into());
    let body = match &def.kind {
        Kind::Record(fields) => Lit::Tuple(fields.iter().map(|(n, t, _)| Lit::Tuple(vec![s(n), lit(t)])).collect()),
        Kind::Enum(cases) => Lit::Tuple(cases.iter().map(|(n, _)| s(n)).collect()),
        Kind::Variant(cases) => {
            Lit::Tuple(cases.iter().map(|(n, t, _)| Lit::Tuple(vec![s(n), t.as_ref().map_or(Lit::None, lit)])).collect())
        }
    };
    let what = match def.kind {
        Kind::Record(_) => "record",
        Kind::Enum(_) => "enum",
        Kind::Variant(_) => "variant",
    };
    Lit::Tuple(vec![s(what), s(&def.path()), body])
}

/// `bindings/python/src/oncely/_exports.py`: the WIT types of every exported function as plain
/// tuples, each named type once (after the types it uses).
pub fn exports_py(model: &Model, component_sha256: &str) -> String {
    let mut out = header("#");
    out.push_str(EXPORTS_HEAD);
    let _ = write!(
        out,
        "\nCOMPONENT_SHA256 = \"{component_sha256}\"\n\"\"\"The SHA-256 of the component these types were read from (the one the package ships).\"\"\"\n"
    );
    let mut done: Vec<(String, String)> = Vec::new();
    fn visit(model: &Model, key: (String, String), done: &mut Vec<(String, String)>, out: &mut String) {
        if done.contains(&key) {
            return;
        }
        done.push(key.clone());
        let def = model.get(&key.0, &key.1);
        let mut uses = Vec::new();
        match &def.kind {
            Kind::Record(fields) => fields.iter().for_each(|(_, t, _)| named(t, &mut uses)),
            Kind::Variant(cases) => cases.iter().filter_map(|(_, t, _)| t.as_ref()).for_each(|t| named(t, &mut uses)),
            Kind::Enum(_) => {}
        }
        for u in uses {
            visit(model, u, done, out);
        }
        let name = constant(&def.iface, &def.name);
        let _ = write!(out, "{name} = ");
        def_lit(def).write(out, 0, name.len() + 3, "");
    }
    out.push('\n');
    for func in &model.funcs {
        let mut uses = Vec::new();
        func.params.iter().for_each(|(_, t)| named(t, &mut uses));
        func.result.iter().for_each(|t| named(t, &mut uses));
        for u in uses {
            visit(model, u, &mut done, &mut out);
        }
    }
    let wire = model.wire();
    for (_, call, answer) in &wire {
        visit(model, call.clone(), &mut done, &mut out);
        visit(model, answer.clone(), &mut done, &mut out);
    }
    out.push_str("\nFUNCTIONS: dict[str, tuple[tuple[tuple[str, object], ...], object]] = {\n");
    for func in &model.funcs {
        let key = format!("    \"{}.{}\": ", func.iface, func.name);
        out.push_str(&key);
        let params = Lit::Tuple(func.params.iter().map(|(n, t)| Lit::Tuple(vec![Lit::Str(n.clone()), lit(t)])).collect());
        let result = func.result.as_ref().map_or(Lit::None, lit);
        Lit::Tuple(vec![params, result]).write(&mut out, 4, key.len() - 4, ",");
    }
    out.push_str("}\n");
    out.push_str("\nWIRE: dict[str, tuple[object, object]] = {\n");
    for (func, call, answer) in &wire {
        let _ =
            writeln!(out, "    \"{}.{}\": ({}, {}),", func.iface, func.name, constant(&call.0, &call.1), constant(&answer.0, &answer.1));
    }
    out.push_str("}\n");
    out
}

const EXPORTS_HEAD: &str = r#""""The WIT types of the component's exported functions as plain data, written by
``scripts/mirrors`` from the component itself: what the core crossing (:mod:`oncely._abi`)
computes its Canonical ABI layouts from, so that a process calls the core without reading the
component's type information (nor importing ``wasmtime.component``). ``tests/test_codec.py``
compares every entry with the component's own types.

A type is a scalar's WIT name (``"string"``, ``"u64"``) or a tuple whose first item says what it
is: ``("list", T)``, ``("option", T)``, ``("tuple", (T, ...))``, ``("result", OK, ERR)`` (``None``
where there is no payload), ``("record", "iface.name", (("field", T), ...))``, ``("enum",
"iface.name", ("case", ...))``, ``("variant", "iface.name", (("case", T or None), ...))``.
``FUNCTIONS`` maps ``"interface.function"`` to ``((("param", T), ...), RESULT or None)``;
``WIRE`` maps each function whose values cross as bytes in the core's encoding (``effect.run``:
``wit/effect.wit``) to the types of what it is given and what it answers (:mod:`oncely._wire`).
``COMPONENT_SHA256`` names the component they were read from: the runtime keys its cache of the
compiled core module by it, and refuses the core crossing on a component that is not this one.
"""

from __future__ import annotations
"#;
