//! Who may use `oncely serve`, and how a browser proves it on each request.
//!
//! Credentials come from the environment or a file, never a default: one shared token (the
//! person types their name when signing in; it is what settlements record), or one token per
//! person (`name:token` lines in a people file; the name comes with the token). Every token is
//! checked for strength at start-up (length, and zxcvbn's estimate of how guessable it is), and
//! token checks are rate-limited per client address and over every client ([`Throttle`]). A signed-in browser
//! holds a random session id in an `HttpOnly`, `SameSite=Lax` cookie (Lax, so that a link to an
//! entry in a notice opens it; nothing changes on a GET); every form that changes something
//! carries the session's own CSRF token, and a request whose `Origin` is not this server's, or
//! whose `Sec-Fetch-Site` says cross-site, is refused. Scrapers and scripts send the
//! token as `Authorization: Bearer …`.

use anyhow::{bail, Context, Result};
use axum::http::{header, HeaderMap};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;

/// The shortest token accepted.
const MIN_TOKEN_CHARS: usize = 16;
/// How hard a token must be to guess: zxcvbn's score (0-4); 4 is "very unguessable", at least
/// 10^10 guesses even for an attacker who knows how people choose tokens.
const MIN_TOKEN_SCORE: zxcvbn::Score = zxcvbn::Score::Four;
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
    bool::from(a.ct_eq(b))
}

/// Refuse a token that is short or easy to guess; `whose` names it in the error.
fn strong(token: &str, whose: &str) -> Result<()> {
    if token.chars().count() < MIN_TOKEN_CHARS {
        bail!("{whose} must be at least {MIN_TOKEN_CHARS} characters (a random one: openssl rand -hex 32)");
    }
    let estimate = zxcvbn::zxcvbn(token, &[]);
    if estimate.score() < MIN_TOKEN_SCORE {
        let hint = estimate.feedback().and_then(|f| f.warning()).map(|w| format!(": {w}")).unwrap_or_default();
        bail!(
            "{whose} is too easy to guess (strength {} of 4, about 10^{:.0} guesses{hint}); use a random one: openssl rand -hex 32",
            estimate.score() as u8,
            estimate.guesses_log10()
        );
    }
    Ok(())
}

/// The lines of a credentials file that say something (not blank, not a `#` comment), with
/// their line numbers.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().map(str::trim).enumerate().filter(|(_, l)| !l.is_empty() && !l.starts_with('#')).map(|(i, l)| (i + 1, l))
}

impl Credentials {
    /// Read them: `people` (a file of `name:token` lines, one per person), else `shared` (a
    /// file holding one token, taken whole), else `env` (the value of `ONCELY_SERVE_TOKEN`: one
    /// shared token, taken whole). None: an error — there is no default. Every token must be at
    /// least 16 characters and hard to guess; a token or a name given twice is refused.
    pub fn load(people: Option<&std::path::Path>, shared: Option<&std::path::Path>, env: Option<String>) -> Result<Credentials> {
        let read = |f: &std::path::Path| std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()));
        match (people, shared, env) {
            (Some(f), _, _) => Self::people(&read(f)?).with_context(|| format!("in the people file {}", f.display())),
            (None, Some(f), _) => {
                let text = read(f)?;
                let found: Vec<(usize, &str)> = lines(&text).collect();
                match found.as_slice() {
                    [(_, token)] => {
                        strong(token, "the token")?;
                        Ok(Credentials::Shared(digest(token)))
                    }
                    [] => bail!("no token in {}", f.display()),
                    _ => bail!(
                        "{} holds {} lines: --token-file holds one token, taken whole; for one token per person, give name:token lines with --people-file",
                        f.display(),
                        found.len()
                    ),
                }
            }
            (None, None, Some(t)) => {
                let t = t.trim();
                strong(t, "ONCELY_SERVE_TOKEN")?;
                Ok(Credentials::Shared(digest(t)))
            }
            (None, None, None) => bail!(
                "oncely serve needs credentials: set ONCELY_SERVE_TOKEN, or --token-file FILE (one token for everyone), or --people-file FILE (name:token lines); there is no default"
            ),
        }
    }

    /// `name:token` lines (a token may hold `:`; a name may not).
    fn people(text: &str) -> Result<Credentials> {
        let mut people: Vec<(String, [u8; 32])> = Vec::new();
        let mut first_line: HashMap<[u8; 32], (usize, String)> = HashMap::new();
        for (n, line) in lines(text) {
            let Some((name, token)) = line.split_once(':') else { bail!("line {n} is not name:token") };
            let (name, token) = (name.trim(), token.trim());
            if name.is_empty() || name.chars().any(char::is_control) || name.chars().count() > 64 {
                bail!("line {n}: a name is 1 to 64 characters, none of them a control character");
            }
            if let Some((other, _)) = people.iter().find(|(p, _)| p == name) {
                bail!("line {n}: {other:?} is named twice; each person has one line");
            }
            strong(token, &format!("the token of {name:?} (line {n})"))?;
            let d = digest(token);
            if let Some((m, other)) = first_line.get(&d) {
                bail!("line {n}: {name:?} has the token of {other:?} (line {m}); each person needs their own token");
            }
            first_line.insert(d, (n, name.to_string()));
            people.push((name.to_string(), d));
        }
        if people.is_empty() {
            bail!("no name:token line");
        }
        Ok(Credentials::People(people))
    }

    /// Whether people name themselves (a shared token).
    pub fn shared(&self) -> bool {
        matches!(self, Credentials::Shared(_))
    }

    /// For the start-up line: what was read.
    pub fn describe(&self) -> String {
        match self {
            Credentials::Shared(_) => "one shared token (people give their name when they sign in)".into(),
            Credentials::People(p) => format!("{} people: {}", p.len(), p.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")),
        }
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

/// How many token checks (sign-ins, bearer tokens) may be made: per client address, and over
/// every client together, so that neither one client nor many at once can guess quickly. A
/// check beyond either is answered 429 without looking at the token.
#[derive(Debug)]
pub struct Throttle {
    per_client: DefaultKeyedRateLimiter<IpAddr>,
    everyone: DefaultDirectRateLimiter,
}

/// Per client: 20 a minute, 10 at once (a scraper every 15 s uses 4). Every client together:
/// 2 a second, 30 at once (a team signing in together on a Monday morning). A token strong enough
/// to be accepted takes at least 10^10 guesses: over 100 years at that rate.
const PER_CLIENT: (u32, u32) = (20, 10);
const EVERYONE: (u32, u32) = (120, 30);

fn quota((per_minute, burst): (u32, u32)) -> Quota {
    let n = |v: u32| NonZeroU32::new(v).unwrap_or(NonZeroU32::MIN);
    Quota::per_minute(n(per_minute)).allow_burst(n(burst))
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle { per_client: RateLimiter::keyed(quota(PER_CLIENT)), everyone: RateLimiter::direct(quota(EVERYONE)) }
    }
}

impl Throttle {
    /// Whether a token check from `client` may be made now; if not, how long until one may.
    pub fn admit(&self, client: IpAddr) -> Result<(), Duration> {
        if self.per_client.len() > 10_000 {
            self.per_client.retain_recent();
        }
        let now = DefaultClock::default().now();
        self.per_client.check_key(&client).map_err(|n| n.wait_time_from(now))?;
        self.everyone.check().map_err(|n| n.wait_time_from(now))
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

/// The host of a `Host` header value (or an address's `host[:port]`), without its port: a
/// name, an IPv4 address, or an IPv6 address in brackets.
pub fn host_name(host: &str) -> &str {
    let host = host.trim();
    if host.starts_with('[') {
        return host.find(']').map_or(host, |end| &host[..=end]);
    }
    host.rsplit_once(':').map_or(host, |(name, _port)| name)
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
        (Some(s), Some(t)) if bool::from(s.csrf.as_bytes().ct_eq(t.as_bytes())) => None,
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
