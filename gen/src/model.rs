//! The component's WIT types, read from the component itself, as a small model the writers walk.
//! The component carries no documentation: the doc comments are taken from the WIT sources
//! (`wit/`), matched by name; a type, field or case they do not have is written undocumented.

use std::collections::HashMap;
use std::path::Path;

use wit_component::DecodedWasm;
use wit_parser::{Resolve, Type, TypeDefKind, TypeId, WorldItem};

/// A WIT value type, with every anonymous type (option, list, tuple, result) spelled out and every
/// `use` followed to the named type it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Bool,
    U8,
    U16,
    U32,
    U64,
    S32,
    S64,
    F64,
    String,
    List(Box<Ty>),
    Option(Box<Ty>),
    Tuple(Vec<Ty>),
    Result(Option<Box<Ty>>, Option<Box<Ty>>),
    /// A named record, enum or variant: `(interface, name)`.
    Named(String, String),
}

impl Ty {
    /// The WIT spelling (`option<u64>`, `ledger.entry`).
    pub fn wit(&self) -> String {
        match self {
            Ty::Bool => "bool".into(),
            Ty::U8 => "u8".into(),
            Ty::U16 => "u16".into(),
            Ty::U32 => "u32".into(),
            Ty::U64 => "u64".into(),
            Ty::S32 => "s32".into(),
            Ty::S64 => "s64".into(),
            Ty::F64 => "f64".into(),
            Ty::String => "string".into(),
            Ty::List(t) => format!("list<{}>", t.wit()),
            Ty::Option(t) => format!("option<{}>", t.wit()),
            Ty::Tuple(ts) => {
                format!("tuple<{}>", ts.iter().map(Ty::wit).collect::<Vec<_>>().join(", "))
            }
            Ty::Result(ok, err) => {
                let part = |t: &Option<Box<Ty>>| t.as_ref().map_or("_".into(), |t| t.wit());
                format!("result<{}, {}>", part(ok), part(err))
            }
            Ty::Named(iface, name) => format!("{iface}.{name}"),
        }
    }
}

/// What a named type is.
#[derive(Clone, Debug)]
pub enum Kind {
    /// Fields: (name, type, doc).
    Record(Vec<(String, Ty, String)>),
    /// Cases: (name, doc).
    Enum(Vec<(String, String)>),
    /// Cases: (name, payload, doc).
    Variant(Vec<(String, Option<Ty>, String)>),
}

/// A named type defined by an interface.
#[derive(Clone, Debug)]
pub struct Def {
    pub iface: String,
    pub name: String,
    pub doc: String,
    pub kind: Kind,
}

impl Def {
    /// `interface.name`.
    pub fn path(&self) -> String {
        format!("{}.{}", self.iface, self.name)
    }
}

/// Every record, enum and variant of the component's exported interfaces, in dependency order
/// (an interface after those it uses; a type in its interface's declaration order).
pub struct Model {
    pub defs: Vec<Def>,
    /// Every exported function, interface by interface in declaration order.
    pub funcs: Vec<Func>,
}

/// A named type: `(interface, name)`.
pub type TypeName = (String, String);

/// An exported function: `interface.name`, its parameters and its result.
#[derive(Clone, Debug)]
pub struct Func {
    pub iface: String,
    pub name: String,
    pub params: Vec<(String, Ty)>,
    pub result: Option<Ty>,
}

impl Model {
    /// Decode the component `wasm` and collect its types, with the doc comments of the WIT
    /// sources in `wit_dir`.
    pub fn from_component(wasm: &[u8], wit_dir: &Path) -> Result<Model, String> {
        let docs = wit_docs(wit_dir)?;
        let doc = |key: String| docs.get(&key).cloned().unwrap_or_default();
        let decoded = wit_component::decode(wasm).map_err(|e| format!("decoding: {e:#}"))?;
        let (resolve, world) = match decoded {
            DecodedWasm::Component(resolve, world) => (resolve, world),
            DecodedWasm::WitPackage(..) => return Err("a WIT package, not a component".into()),
        };
        let mut exported = Vec::new();
        for item in resolve.worlds[world].exports.values() {
            if let WorldItem::Interface { id, .. } = item {
                exported.push(*id);
            }
        }
        // Interfaces in the order of the arena, which lists a used interface before its users.
        let mut ifaces: Vec<_> = resolve.interfaces.iter().filter(|(id, _)| exported.contains(id)).map(|(id, _)| id).collect();
        ifaces.sort_by_key(|id| id.index());
        let mut defs = Vec::new();
        let mut funcs = Vec::new();
        for id in ifaces {
            let iface = &resolve.interfaces[id];
            let iname = iface.name.clone().ok_or("an exported interface without a name")?;
            for (name, f) in &iface.functions {
                let params = f.params.iter().map(|p| Ok((p.name.clone(), ty(&resolve, &p.ty)?))).collect::<Result<_, String>>()?;
                let result = f.result.as_ref().map(|t| ty(&resolve, t)).transpose()?;
                funcs.push(Func { iface: iname.clone(), name: name.clone(), params, result });
            }
            for (name, &tid) in &iface.types {
                let td = &resolve.types[tid];
                let kind = match &td.kind {
                    TypeDefKind::Record(r) => Kind::Record(
                        r.fields
                            .iter()
                            .map(|f| Ok((f.name.clone(), ty(&resolve, &f.ty)?, doc(format!("{iname}.{name}.{}", f.name)))))
                            .collect::<Result<_, String>>()?,
                    ),
                    TypeDefKind::Enum(e) => {
                        Kind::Enum(e.cases.iter().map(|c| (c.name.clone(), doc(format!("{iname}.{name}.{}", c.name)))).collect())
                    }
                    TypeDefKind::Variant(v) => Kind::Variant(
                        v.cases
                            .iter()
                            .map(|c| {
                                let payload = c.ty.as_ref().map(|t| ty(&resolve, t)).transpose()?;
                                Ok((c.name.clone(), payload, doc(format!("{iname}.{name}.{}", c.name))))
                            })
                            .collect::<Result<_, String>>()?,
                    ),
                    // `use`d types are defined (and mirrored) by their own interface.
                    TypeDefKind::Type(_) => continue,
                    other => return Err(format!("{iname}.{name}: a {} has no mirror yet (teach gen/ to write one)", other.as_str())),
                };
                defs.push(Def { iface: iname.clone(), name: name.clone(), doc: doc(format!("{iname}.{name}")), kind });
            }
        }
        Ok(Model { defs, funcs })
    }

    /// The functions whose values cross as bytes in the core's encoding (`wit/effect.wit`,
    /// `run`): `f: func(call: list<u8>) -> list<u8>` in an interface that defines the record
    /// `f-call` (what the bytes given hold) and the variant `f-answer` (what the answer holds).
    /// Each with those two types' `(interface, name)`.
    pub fn wire(&self) -> Vec<(&Func, TypeName, TypeName)> {
        let bytes = Ty::List(Box::new(Ty::U8));
        let defined = |iface: &str, name: &str| self.defs.iter().any(|d| d.iface == iface && d.name == name);
        self.funcs
            .iter()
            .filter(|f| f.params.len() == 1 && f.params[0].1 == bytes && f.result.as_ref() == Some(&bytes))
            .filter(|f| defined(&f.iface, &format!("{}-call", f.name)) && defined(&f.iface, &format!("{}-answer", f.name)))
            .map(|f| (f, (f.iface.clone(), format!("{}-call", f.name)), (f.iface.clone(), format!("{}-answer", f.name))))
            .collect()
    }

    /// The definition of a named type.
    pub fn get(&self, iface: &str, name: &str) -> &Def {
        self.defs.iter().find(|d| d.iface == iface && d.name == name).unwrap_or_else(|| panic!("{iface}.{name} is not defined"))
    }
}

/// The doc comments of the WIT sources: `interface.type` and `interface.type.member` → text.
fn wit_docs(dir: &Path) -> Result<HashMap<String, String>, String> {
    let mut resolve = Resolve::default();
    resolve.push_dir(dir).map_err(|e| format!("{}: {e:#}", dir.display()))?;
    let mut out = HashMap::new();
    let mut put = |key: String, docs: &wit_parser::Docs| {
        if let Some(text) = &docs.contents {
            out.insert(key, text.trim_end().to_string());
        }
    };
    for (_, iface) in resolve.interfaces.iter() {
        let Some(iname) = &iface.name else { continue };
        for (name, &tid) in &iface.types {
            let td = &resolve.types[tid];
            put(format!("{iname}.{name}"), &td.docs);
            match &td.kind {
                TypeDefKind::Record(r) => r.fields.iter().for_each(|f| put(format!("{iname}.{name}.{}", f.name), &f.docs)),
                TypeDefKind::Enum(e) => e.cases.iter().for_each(|c| put(format!("{iname}.{name}.{}", c.name), &c.docs)),
                TypeDefKind::Variant(v) => v.cases.iter().for_each(|c| put(format!("{iname}.{name}.{}", c.name), &c.docs)),
                _ => {}
            }
        }
    }
    Ok(out)
}

fn ty(resolve: &Resolve, t: &Type) -> Result<Ty, String> {
    Ok(match t {
        Type::Bool => Ty::Bool,
        Type::U8 => Ty::U8,
        Type::U16 => Ty::U16,
        Type::U32 => Ty::U32,
        Type::U64 => Ty::U64,
        Type::S32 => Ty::S32,
        Type::S64 => Ty::S64,
        Type::F64 => Ty::F64,
        Type::String => Ty::String,
        Type::Id(id) => id_ty(resolve, *id)?,
        other => return Err(format!("the WIT type {other:?} has no mirror yet")),
    })
}

fn id_ty(resolve: &Resolve, id: TypeId) -> Result<Ty, String> {
    let td = &resolve.types[id];
    Ok(match &td.kind {
        TypeDefKind::Type(t) => ty(resolve, t)?,
        TypeDefKind::Option(t) => Ty::Option(Box::new(ty(resolve, t)?)),
        TypeDefKind::List(t) => Ty::List(Box::new(ty(resolve, t)?)),
        TypeDefKind::Tuple(t) => Ty::Tuple(t.types.iter().map(|t| ty(resolve, t)).collect::<Result<_, _>>()?),
        TypeDefKind::Result(r) => Ty::Result(
            r.ok.as_ref().map(|t| ty(resolve, t).map(Box::new)).transpose()?,
            r.err.as_ref().map(|t| ty(resolve, t).map(Box::new)).transpose()?,
        ),
        TypeDefKind::Record(_) | TypeDefKind::Enum(_) | TypeDefKind::Variant(_) => {
            let name = td.name.clone().ok_or("an anonymous record, enum or variant")?;
            let iface = match td.owner {
                wit_parser::TypeOwner::Interface(i) => resolve.interfaces[i].name.clone().ok_or("a type of an unnamed interface")?,
                _ => return Err(format!("{name}: a type outside an interface")),
            };
            Ty::Named(iface, name)
        }
        other => return Err(format!("the WIT type {} has no mirror yet", other.as_str())),
    })
}
