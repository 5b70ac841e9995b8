//! The JavaScript package's mirrors: `bindings/js/src/gen/wit.js` (a table of every record, enum
//! and variant as jco hands it to JavaScript, read by wire.js's conversions) and
//! `bindings/js/types/wit.d.ts` (their TypeScript declarations, as jco's values have them: field
//! names in camelCase, `u64` as `bigint`, an `option` as an optional property or `undefined`, a
//! variant as `{ tag, val }`, an enum as its case names).

use std::fmt::Write as _;

use crate::model::{Kind, Model, Ty};
use crate::{header, pascal};

/// jco's field names: kebab-case to camelCase.
pub fn camel(wit: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in wit.chars() {
        if c == '-' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn js_string(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// `bindings/js/src/gen/wit.js`.
pub fn wit_js(model: &Model) -> String {
    let mut out = header("//");
    out.push_str(
        "// The core's WIT records, enums and variants, by `interface.name`, as jco gives them to\n\
         // JavaScript: a record's fields are [jsName, witType] in WIT order (jsName in camelCase), a\n\
         // variant's cases [name, payload witType or null], an enum's cases its names. A witType is\n\
         // the WIT spelling: `u64`, `option<string>`, `list<u8>`, or `interface.name`.\n\n",
    );
    out.push_str(
        "/**\n * @typedef {{ kind: 'record', fields: ReadonlyArray<readonly [string, string]> }\n \
         *   | { kind: 'enum', cases: ReadonlyArray<string> }\n \
         *   | { kind: 'variant', cases: ReadonlyArray<readonly [string, string | null]> }} WitType\n */\n\n",
    );
    out.push_str("/** @type {Readonly<Record<string, WitType>>} */\nexport const WIT = Object.freeze({\n");
    for def in &model.defs {
        let _ = write!(out, "  {}: ", js_string(&def.path()));
        match &def.kind {
            Kind::Record(fields) => {
                out.push_str("{\n    kind: 'record',\n    fields: [\n");
                for (f, t, _) in fields {
                    let _ = writeln!(out, "      [{}, {}],", js_string(&camel(f)), js_string(&t.wit()));
                }
                out.push_str("    ],\n  },\n");
            }
            Kind::Enum(cases) => {
                out.push_str("{\n    kind: 'enum',\n    cases: [");
                let names: Vec<_> = cases.iter().map(|(c, _)| js_string(c)).collect();
                out.push_str(&names.join(", "));
                out.push_str("],\n  },\n");
            }
            Kind::Variant(cases) => {
                out.push_str("{\n    kind: 'variant',\n    cases: [\n");
                for (c, p, _) in cases {
                    let p = p.as_ref().map_or("null".into(), |t| js_string(&t.wit()));
                    let _ = writeln!(out, "      [{}, {p}],", js_string(c));
                }
                out.push_str("    ],\n  },\n");
            }
        }
    }
    out.push_str("});\n");
    out
}

fn ts_type(t: &Ty, here: &str) -> String {
    match t {
        Ty::Bool => "boolean".into(),
        Ty::U8 | Ty::U16 | Ty::U32 | Ty::S32 | Ty::F64 => "number".into(),
        Ty::U64 | Ty::S64 => "bigint".into(),
        Ty::String => "string".into(),
        Ty::List(t) if **t == Ty::U8 => "Uint8Array".into(),
        Ty::List(t) => format!("Array<{}>", ts_type(t, here)),
        Ty::Option(t) => format!("{} | undefined", ts_type(t, here)),
        Ty::Tuple(ts) => {
            format!("[{}]", ts.iter().map(|t| ts_type(t, here)).collect::<Vec<_>>().join(", "))
        }
        Ty::Result(ok, err) => {
            let part = |t: &Option<Box<Ty>>| t.as_ref().map_or("undefined".into(), |t| ts_type(t, here));
            format!("{{ tag: 'ok'; val: {} }} | {{ tag: 'err'; val: {} }}", part(ok), part(err))
        }
        Ty::Named(i, n) if i == here => pascal(n),
        Ty::Named(i, n) => format!("{}.{}", pascal(i), pascal(n)),
    }
}

fn ts_doc(out: &mut String, indent: &str, doc: &str) {
    if doc.is_empty() {
        return;
    }
    let _ = writeln!(out, "{indent}/**");
    for line in doc.lines() {
        let line = line.replace("*/", "*\\/");
        if line.is_empty() {
            let _ = writeln!(out, "{indent} *");
        } else {
            let _ = writeln!(out, "{indent} * {line}");
        }
    }
    let _ = writeln!(out, "{indent} */");
}

/// A type as the package's conversions (bindings/js/src/wire.js, `witOut`) hand it to users: a
/// `u64` as a number, an absent option as `null`, the reconcile path as in policy JSON, records,
/// lists and variants converted member by member; names refer to the `Js` namespace.
fn ts_converted(t: &Ty, here: &str) -> String {
    match t {
        Ty::U64 | Ty::S64 => "number".into(),
        Ty::List(t) if **t != Ty::U8 => format!("Array<{}>", ts_converted(t, here)),
        Ty::Option(t) => format!("{} | null", ts_converted(t, here)),
        Ty::Tuple(ts) => {
            format!("[{}]", ts.iter().map(|t| ts_converted(t, here)).collect::<Vec<_>>().join(", "))
        }
        Ty::Result(ok, err) => {
            let part = |t: &Option<Box<Ty>>| t.as_ref().map_or("undefined".into(), |t| ts_converted(t, here));
            format!("{{ tag: 'ok'; val: {} }} | {{ tag: 'err'; val: {} }}", part(ok), part(err))
        }
        other => ts_type(other, here),
    }
}

/// Which shape [`namespaces`] writes: jco's values, or the package's conversions of them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Jco,
    Converted,
}

/// One namespace per interface, each type in `shape` (the converted ones indented, inside `Js`).
fn namespaces(model: &Model, out: &mut String, shape: Shape) {
    let converted = shape == Shape::Converted;
    let ind = if converted { "  " } else { "" };
    let said = if converted { ", converted" } else { "" };
    let ty = |t: &Ty, here: &str| if converted { ts_converted(t, here) } else { ts_type(t, here) };
    let mut iface = String::new();
    for def in &model.defs {
        if def.iface != iface {
            if !iface.is_empty() {
                let _ = writeln!(out, "{ind}}}");
            }
            iface = def.iface.clone();
            let _ = writeln!(out, "\n{ind}/** `oncely:core/{iface}`{said}. */\n{ind}export namespace {} {{", pascal(&iface));
        }
        let name = pascal(&def.name);
        let path = def.path();
        let doc = if def.doc.is_empty() { format!("`{path}`{said}.") } else { format!("{}\n\n`{path}`{said}.", def.doc) };
        ts_doc(out, &format!("{ind}  "), &doc);
        match &def.kind {
            // As in policy JSON: a case's name, or `{ lookup: tool }`.
            Kind::Variant(cases) if converted && path == "policy.reconcile-path" => {
                let parts: Vec<_> = cases
                    .iter()
                    .map(|(c, p, _)| p.as_ref().map_or_else(|| js_string(c), |t| format!("{{ {}: {} }}", camel(c), ty(t, &iface))))
                    .collect();
                let _ = writeln!(out, "{ind}  export type {name} = {};", parts.join(" | "));
            }
            Kind::Record(fields) => {
                let _ = writeln!(out, "{ind}  export interface {name} {{");
                for (f, t, fdoc) in fields {
                    ts_doc(out, &format!("{ind}    "), fdoc);
                    match t {
                        Ty::Option(inner) if !converted => {
                            let _ = writeln!(out, "{ind}    {}?: {};", camel(f), ty(inner, &iface));
                        }
                        _ => {
                            let _ = writeln!(out, "{ind}    {}: {};", camel(f), ty(t, &iface));
                        }
                    }
                }
                let _ = writeln!(out, "{ind}  }}");
            }
            Kind::Enum(cases) => {
                let names: Vec<_> = cases.iter().map(|(c, _)| js_string(c)).collect();
                let _ = writeln!(out, "{ind}  export type {name} = {};", names.join(" | "));
            }
            Kind::Variant(cases) => {
                let _ = writeln!(out, "{ind}  export type {name} =");
                for (i, (c, p, _)) in cases.iter().enumerate() {
                    let end = if i + 1 == cases.len() { ";" } else { "" };
                    match p {
                        Some(t) => {
                            let _ = writeln!(out, "{ind}    | {{ tag: {}; val: {} }}{end}", js_string(c), ty(t, &iface));
                        }
                        None => {
                            let _ = writeln!(out, "{ind}    | {{ tag: {} }}{end}", js_string(c));
                        }
                    }
                }
            }
        }
    }
    if !iface.is_empty() {
        let _ = writeln!(out, "{ind}}}");
    }
}

/// `bindings/js/types/wit.d.ts`: one namespace per interface (`Ledger.Entry`), and the same types
/// converted as the package hands them to users (`Js.Ledger.Entry`, [`ts_converted`]).
pub fn wit_dts(model: &Model) -> String {
    let mut out = header("//");
    out.push_str(
        "// The core's WIT types as the component's values are in JavaScript (jco): what the\n\
         // package's public types (index.d.ts) are built from. One namespace per interface.\n",
    );
    namespaces(model, &mut out, Shape::Jco);
    out.push_str(
        "\n/**\n * The same types as the package hands them to users (`witOut`, bindings/js/src/wire.js): a\n \
         * `u64` as a number, an absent option as `null`, the reconcile path as in policy JSON.\n */\n\
         export namespace Js {",
    );
    namespaces(model, &mut out, Shape::Converted);
    out.push_str("}\n");
    out
}
