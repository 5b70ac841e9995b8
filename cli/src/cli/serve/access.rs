//! Who may use `oncely serve`, and how a browser proves it on each request.
//!
//! Credentials come from the environment or a file, never a default: one shared token (the
//! person types their name when signing in; it is what settlements record), or one token per
//! person (`name:token` lines in the file; the name comes with the token). A signed-in browser
//! holds a random session id in an `HttpOnly`, `SameSite=Lax` cookie (Lax, so that a link to an
//! entry in a notice opens it; nothing changes on a GET); every form that changes something
//! carries the session's own CSRF token, and a request whose `Origin` is not this server's, or
//! whose `Sec-Fetch-Site` says cross-site, is refused. Scrapers and scripts send the
//! token as `Authorization: Bearer …`.

use anyhow::{bail, Context, Result};
use axum::http::{header, HeaderMap};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The shortest token accepted: long enough that guessing is hopeless.
const MIN_TOKEN_CHARS: usize = 16;
/// How long a sign-in lasts.
const SESSION_TTL: Duration = Duration::from_secs(12 * 3600);
/// The session cookie's name.
pub const COOKIE: &str = "oncely_session";

/// The accepted tokens.
#[derive(Debug)]
pub enum Credentials {
    /// One token for everyone; people name themselves when they sign in.
    Shared([u8; 32]),
    /// One token per person: (name, digest of the token).
    People(Vec<(String, [u8; 32])>),
}

fn digest(s: &str) -> [u8; 32] {
    Sha256::digest(s.as_bytes()).into()
}

/// Equal, in time that does not depend on where they differ.
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Credentials {
    /// Read them: `file` (one token, or `name:token` lines; `#` comments), else the token in
    /// `env` (the value of `ONCELY_SERVE_TOKEN`: one shared token, taken as it is). Neither: an
    /// error — there is no default.
    pub fn load(file: Option<&std::path::Path>, env: Option<String>) -> Result<Credentials> {
        let text = match (file, env) {
            (Some(f), _) => std::fs::read_to_string(f).with_context(|| format!("reading the token file {}", f.display()))?,
            (None, Some(t)) => {
                let t = t.trim();
                if t.chars().count() < MIN_TOKEN_CHARS {
                    bail!("a token must be at least {MIN_TOKEN_CHARS} characters");
                }
                return Ok(Credentials::Shared(digest(t)));
            }
            (None, None) => bail!(
                "oncely serve needs credentials: set ONCELY_SERVE_TOKEN, or --token-file FILE (one token, or name:token per line); there is no default"
            ),
        };
        let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
        let check = |t: &str| {
            if t.chars().count() < MIN_TOKEN_CHARS {
                bail!("a token must be at least {MIN_TOKEN_CHARS} characters");
            }
            Ok(())
        };
        match lines.as_slice() {
            [] => bail!("no token in the credentials"),
            [one] if !one.contains(':') => {
                check(one)?;
                Ok(Credentials::Shared(digest(one)))
            }
            many => {
                let mut people = Vec::new();
                for l in many {
                    let Some((name, token)) = l.split_once(':') else { bail!("a line of the token file is not name:token") };
                    let name = name.trim();
                    if name.is_empty() {
                        bail!("a line of the token file has no name");
                    }
                    check(token.trim())?;
                    people.push((name.to_string(), digest(token.trim())));
                }
                Ok(Credentials::People(people))
            }
        }
    }

    /// Whether people name themselves (a shared token).
    pub fn shared(&self) -> bool {
        matches!(self, Credentials::Shared(_))
    }

    /// The person `token` belongs to: `Some(None)` for the shared token (they give their
    /// name), `Some(Some(name))` for a person's own, `None` for no token of ours.
    pub fn check(&self, token: &str) -> Option<Option<String>> {
        let d = digest(token.trim());
        match self {
            Credentials::Shared(t) => same(t, &d).then_some(None),
            Credentials::People(p) => {
                // Compare with every entry, so the time taken does not say which one matched.
                let mut found = None;
                for (name, t) in p {
                    if same(t, &d) {
                        found = Some(name.clone());
                    }
                }
                found.map(Some)
            }
        }
    }
}

/// A signed-in browser.
#[derive(Debug, Clone)]
pub struct Session {
    /// Who (recorded as `by` in settlements).
    pub name: String,
    /// The token every state-changing form must carry.
    pub csrf: String,
    expires: Instant,
}

/// The signed-in browsers (in memory: a restart signs everyone out).
#[derive(Debug, Default)]
pub struct Sessions(Mutex<HashMap<String, Session>>);

/// 32 random bytes, hex.
pub fn random_hex() -> String {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).expect("the operating system's random source");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Sessions {
    /// Open a session for `name`; its id (the cookie's value).
    pub fn open(&self, name: String) -> String {
        let id = random_hex();
        let s = Session { name, csrf: random_hex(), expires: Instant::now() + SESSION_TTL };
        let mut all = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        all.retain(|_, s| s.expires > Instant::now());
        all.insert(id.clone(), s);
        id
    }

    /// The session of these request headers, if signed in.
    pub fn of(&self, headers: &HeaderMap) -> Option<Session> {
        let id = cookie(headers, COOKIE)?;
        let all = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        all.get(&id).filter(|s| s.expires > Instant::now()).cloned()
    }

    /// Sign the browser of these headers out.
    pub fn close(&self, headers: &HeaderMap) {
        if let Some(id) = cookie(headers, COOKIE) {
            self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&id);
        }
    }
}

/// The value of cookie `name` in the request's `Cookie` headers.
fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// The bearer token of the request, if any.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::AUTHORIZATION)?.to_str().ok()?.strip_prefix("Bearer ").map(str::trim)
}

/// Why a state-changing request from a browser is refused, if it is: it comes from another
/// site (`Sec-Fetch-Site`), from an `Origin` that is neither this server as the request names it
/// (`Host`) nor `public_origin` (the origin people reach it by through a proxy, which may pass
/// another `Host`), or its form's CSRF token is not the session's.
pub fn cross_site(
    headers: &HeaderMap,
    form_csrf: Option<&str>,
    session: Option<&Session>,
    public_origin: Option<&str>,
) -> Option<&'static str> {
    if headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()).is_some_and(|v| v == "cross-site") {
        return Some("the request came from another site");
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
        let own = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
        if own != Some(host) && public_origin != Some(origin) {
            return Some("the request came from another origin");
        }
    }
    match (session, form_csrf) {
        (None, _) => None,
        (Some(s), Some(t)) if same(&digest(&s.csrf), &digest(t)) => None,
        (Some(_), _) => Some("the form's CSRF token is missing or wrong"),
    }
}

/// The `Set-Cookie` value that signs a browser in (`secure`: only over HTTPS).
pub fn session_cookie(id: &str, secure: bool) -> String {
    format!("{COOKIE}={id}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{}", SESSION_TTL.as_secs(), if secure { "; Secure" } else { "" })
}

/// The `Set-Cookie` value that signs it out.
pub fn cleared_cookie() -> String {
    format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0")
}
