//! A URL that names several PostgreSQL servers (libpq's form, which sqlx does not read):
//! `postgres://u@h1:p1,h2:p2/db?target_session_attrs=read-write`. Two clusters of the test's
//! own stand in for a primary and its replica: a server with `default_transaction_read_only`
//! on answers `SHOW transaction_read_only` with `on`, as a hot standby does. What must hold:
//! the store opens on the first server the attributes accept (skipping one that is down or
//! read-only); when that server dies and the other becomes writable (a promotion), the next
//! call goes there; bad attributes are a typed error. The chaos harness's `failover` phase
//! (tests/chaos/chaos.py) does the same with a real streaming replica and `pg_ctl promote`.

use oncely_test_support as common;

use oncely::store::{PostgresStore, Store};
use oncely::StoreError;
use sqlx::{Connection, PgConnection};
use std::path::Path;
use std::time::{Duration, Instant};

/// `host:port` of a tests/pg/start.sh URL.
fn host_port(url: &str) -> &str {
    url.trim_start_matches("postgres://postgres@").trim_end_matches("/postgres")
}

async fn exec(url: &str, sql: &'static str) {
    let mut c = PgConnection::connect(url).await.expect("connect");
    sqlx::raw_sql(sql).execute(&mut c).await.expect(sql);
    drop(c.close().await);
}

/// The port of the server the store's pool connects to now.
async fn server_port(store: &PostgresStore) -> i32 {
    sqlx::query_scalar("SELECT inet_server_port()").fetch_one(store.pool()).await.expect("inet_server_port")
}

/// `pg_ctl -m immediate stop` of a cluster of the test's own (tests/pg/stop.sh).
fn stop(dir: &Path) {
    let out = std::process::Command::new(common::repo().join("tests/pg/stop.sh")).arg(dir).output().expect("tests/pg/stop.sh");
    assert!(out.status.success(), "tests/pg/stop.sh: {}", String::from_utf8_lossy(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_host_url_keeps_the_writable_server_and_follows_a_promotion() {
    let Some((a, a_dir)) = common::postgres_own_cluster() else { return };
    let Some((b, _b_dir)) = common::postgres_own_cluster() else { return };
    let (pa, pb) = (host_port(&a), host_port(&b));
    let port = |hp: &str| hp.rsplit(':').next().unwrap().parse::<i32>().unwrap();
    // Both hold the ledger's schema (a replica would: it streams the primary's); b is read-only.
    drop(PostgresStore::connect(&b).await.expect("migrate b"));
    exec(&b, "ALTER SYSTEM SET default_transaction_read_only = on").await;
    exec(&b, "SELECT pg_reload_conf()").await;
    tokio::time::sleep(Duration::from_millis(300)).await;

    // read-write: b comes first but is read-only, so a is kept.
    let rw = PostgresStore::connect(&format!("postgres://postgres@{pb},{pa}/postgres?target_session_attrs=read-write"))
        .await
        .expect("open with read-write");
    assert_eq!(server_port(&rw).await, port(pa));
    // A host that is down is skipped, with any attributes (`any`, the default: the first that
    // answers) or read-write. (Opening on a read-only server fails: it migrates the schema.)
    let dead = {
        let s = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        s.local_addr().unwrap().port()
    };
    let any = PostgresStore::connect(&format!("postgres://postgres@127.0.0.1:{dead},{pa}/postgres")).await.expect("open with any");
    assert_eq!(server_port(&any).await, port(pa));
    let skip = PostgresStore::connect(&format!("postgres://postgres@127.0.0.1:{dead},{pa}/postgres?target_session_attrs=read-write"))
        .await
        .expect("open past a dead host");
    assert_eq!(server_port(&skip).await, port(pa));
    // Bad attributes, and no server that will do, are typed errors that say why.
    let bad = PostgresStore::connect(&format!("postgres://postgres@{pa},{pb}/postgres?target_session_attrs=standby")).await;
    assert!(matches!(&bad, Err(StoreError::Location(m)) if m.contains("target_session_attrs=standby")), "{bad:?}");
    let none = PostgresStore::connect(&format!("postgres://postgres@127.0.0.1:{dead},{pb}/postgres?target_session_attrs=read-write")).await;
    match &none {
        Err(StoreError::Unavailable { cause, .. }) => {
            assert!(cause.contains(&format!("127.0.0.1:{dead}")) && cause.contains("read-only"), "{cause}")
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }

    // The failover: a dies, b is promoted (made writable). The next call on the store opened
    // with a,b finds b; the pool connects there from then on.
    let store =
        PostgresStore::connect(&format!("postgres://postgres@{pa},{pb}/postgres?target_session_attrs=read-write")).await.expect("open a,b");
    assert_eq!(server_port(&store).await, port(pa));
    stop(&a_dir);
    exec(&b, "ALTER SYSTEM RESET default_transaction_read_only").await;
    exec(&b, "SELECT pg_reload_conf()").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let mut last = None;
    while started.elapsed() < Duration::from_secs(15) {
        match store.get("acme", "k").await {
            Ok(got) => {
                last = None;
                assert!(got.is_none());
                break;
            }
            Err(e) => last = Some(e.to_string()),
        }
    }
    assert!(last.is_none(), "the store did not follow the promotion: {last:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "following took {:?}", started.elapsed());
    assert_eq!(server_port(&store).await, port(pb));
}
