//! The Rust host's hand-kept mirrors of the core's `entry` record — the column list the stores
//! read and write (`store::COLUMNS`, which the row converter binds in order) and the columns of
//! the migrated SQLite and PostgreSQL tables — checked against the component's own type, read
//! from the component: every field, whether it may be null, and whether it is a number or text.
//! (The Rust `Entry` itself is generated from the WIT, so it cannot drift.)

use oncely_test_support as common;

use oncely::runtime::COMPONENT;
use oncely::store::{PostgresStore, SqliteStore, COLUMNS};
use wasmtime::component::types::{ComponentItem, Type};
use wasmtime::component::Component;
use wasmtime::{Config, Engine};

/// A column as the mirrors must have it: (name, nullable, "integer" | "text").
type Column = (String, bool, &'static str);

fn kind(t: &Type) -> &'static str {
    match t {
        Type::U8 | Type::U16 | Type::U32 | Type::U64 | Type::S32 | Type::S64 => "integer",
        Type::String | Type::Enum(_) => "text",
        other => panic!("no column kind for {other:?}"),
    }
}

/// The columns the component's `entry` record calls for. One field is stored as two columns:
/// `reconcile` (a variant) as `reconcile_kind` and, for `lookup`, `reconcile_tool`.
fn expected() -> Vec<Column> {
    let engine = Engine::new(&Config::new()).unwrap();
    let component = Component::new(&engine, COMPONENT).unwrap();
    let ty = component.component_type();
    let (_, ledger) = ty.exports(&engine).find(|(n, _)| n.starts_with("oncely:core/ledger@")).expect("the ledger interface");
    let ComponentItem::ComponentInstance(ledger) = &ledger.ty else { panic!("ledger is not an instance") };
    let (_, entry) = ledger.exports(&engine).find(|(n, _)| *n == "entry").expect("the entry type");
    let ComponentItem::Type(Type::Record(entry)) = &entry.ty else { panic!("entry is not a record") };
    let mut columns = Vec::new();
    for f in entry.fields() {
        let name = f.name.replace('-', "_");
        match &f.ty {
            Type::Variant(_) if name == "reconcile" => {
                columns.push(("reconcile_kind".to_string(), false, "text"));
                columns.push(("reconcile_tool".to_string(), true, "text"));
            }
            Type::Option(o) => columns.push((name, true, kind(&o.ty()))),
            t => columns.push((name, false, kind(t))),
        }
    }
    assert!(columns.len() >= 25, "the entry record has {} columns' worth of fields", columns.len());
    columns
}

/// The migrated table's columns: the entry record's, and `history`, the JSON array of the entry's
/// history records that each store's insert and marked updates append to (the store's, not the
/// core's: the view `oncely_history` reads it).
fn table_columns() -> Vec<Column> {
    let mut columns = expected();
    columns.push(("history".to_string(), true, "text"));
    columns
}

fn sorted(mut v: Vec<Column>) -> Vec<Column> {
    v.sort();
    v
}

#[test]
fn the_column_list_is_the_entry_record() {
    let names: Vec<String> = expected().into_iter().map(|c| c.0).collect();
    let columns: Vec<String> = COLUMNS.split(", ").map(str::to_string).collect();
    assert_eq!(columns, names, "store::COLUMNS (bind order) must list the entry's fields in order");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_migrated_sqlite_table_is_the_entry_record() {
    let (_dir, path) = common::sqlite_path();
    let store = SqliteStore::open(&path).await.unwrap();
    let rows: Vec<(String, String, i64)> =
        sqlx::query_as("SELECT name, type, \"notnull\" FROM pragma_table_info('oncely_effects')").fetch_all(store.pool()).await.unwrap();
    let got: Vec<Column> = rows
        .into_iter()
        .map(|(name, ty, notnull)| (name, notnull == 0, if ty.eq_ignore_ascii_case("INTEGER") { "integer" } else { "text" }))
        .collect();
    assert_eq!(sorted(got), sorted(table_columns()));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_migrated_postgres_table_is_the_entry_record() {
    let Some(url) = common::postgres_db().await else { return };
    let store = PostgresStore::connect(&url).await.unwrap();
    let rows: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT column_name::text, data_type::text, is_nullable::text FROM information_schema.columns \
         WHERE table_schema = 'oncely' AND table_name = 'effects'",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    let got: Vec<Column> =
        rows.into_iter().map(|(name, ty, nullable)| (name, nullable == "YES", if ty == "bigint" { "integer" } else { "text" })).collect();
    assert_eq!(sorted(got), sorted(table_columns()));
}
