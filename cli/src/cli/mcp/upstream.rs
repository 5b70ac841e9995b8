//! The gateway's client side: one connection to the real server (a child process over stdio, or
//! a Streamable HTTP URL), opened again on the next request after it drops (a crashed child is
//! started anew), and the proxy of what the server sends: notifications go to the agents
//! (progress to the one whose request it is), requests (sampling, roots, elicitation) to the
//! agent most recently heard from.

use anyhow::{Context, Result};
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientResult, ErrorData, Implementation, ProgressNotification, ProgressToken, ProtocolVersion,
    ServerNotification, ServerPeerInfo, ServerRequest,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, Peer, RequestContext, RoleClient, RoleServer, RunningService, Service,
};
use rmcp::transport::StreamableHttpClientTransport;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Where the real server is.
#[derive(Debug, Clone)]
pub enum Target {
    /// A command started as a child process, spoken to over its stdin and stdout (its stderr is
    /// the gateway's).
    Command(Vec<String>),
    /// A Streamable HTTP endpoint.
    Url(String),
}

/// The agents connected to the gateway, for what the server sends them.
#[derive(Default)]
pub struct Agents {
    inner: Mutex<AgentsInner>,
}

#[derive(Default)]
struct AgentsInner {
    /// Live agent sessions (by the gateway's session number), the most recently heard from last.
    peers: Vec<(u64, Peer<RoleServer>)>,
    /// The progress token the gateway's upstream request carries → the agent and its token.
    progress: HashMap<ProgressToken, (Peer<RoleServer>, ProgressToken)>,
}

impl Agents {
    fn lock(&self) -> std::sync::MutexGuard<'_, AgentsInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The agent of session `session` was heard from.
    pub fn heard(&self, session: u64, peer: &Peer<RoleServer>) {
        let mut g = self.lock();
        g.peers.retain(|(n, p)| *n != session && !p.is_transport_closed());
        g.peers.push((session, peer.clone()));
    }

    /// Route the server's progress on `upstream` to `agent`'s `token`, until [`Agents::done`].
    pub fn route_progress(&self, upstream: ProgressToken, agent: &Peer<RoleServer>, token: ProgressToken) {
        self.lock().progress.insert(upstream, (agent.clone(), token));
    }

    /// The request that carried `upstream` is over.
    pub fn done(&self, upstream: &ProgressToken) {
        self.lock().progress.remove(upstream);
    }

    fn latest(&self) -> Option<Peer<RoleServer>> {
        self.lock().peers.iter().rev().map(|(_, p)| p).find(|p| !p.is_transport_closed()).cloned()
    }

    fn all(&self) -> Vec<Peer<RoleServer>> {
        self.lock().peers.iter().map(|(_, p)| p).filter(|p| !p.is_transport_closed()).cloned().collect()
    }
}

/// The client side's handler: what the server sends, passed on to the agents.
pub struct Relay {
    agents: Arc<Agents>,
    info: ClientConfig,
    /// How long an agent may take to answer the server's request.
    request_timeout: std::time::Duration,
    /// Called when the server says its tool list changed.
    on_tools_changed: Arc<dyn Fn() + Send + Sync>,
}

fn no_agent() -> ErrorData {
    ErrorData::internal_error("oncely mcp: no agent is connected to answer the server's request", None)
}

impl Service<RoleClient> for Relay {
    async fn handle_request(&self, request: ServerRequest, _cx: RequestContext<RoleClient>) -> Result<ClientResult, ErrorData> {
        if let ServerRequest::PingRequest(_) = request {
            return Ok(ClientResult::empty(()));
        }
        let agent = self.agents.latest().ok_or_else(no_agent)?;
        // From a task of its own: the SDK tags a request sent while handling another with that
        // request's id, and this one belongs to the agent's connection, not the server's.
        let timeout = self.request_timeout;
        let sent = tokio::spawn(async move { tokio::time::timeout(timeout, agent.send_request(request)).await });
        match sent.await {
            Ok(Ok(answer)) => answer.map_err(super::answers::service_error),
            Ok(Err(_)) => Err(ErrorData::internal_error("oncely mcp: the agent did not answer in time", None)),
            Err(e) => Err(ErrorData::internal_error(format!("oncely mcp: {e}"), None)),
        }
    }

    async fn handle_notification(&self, n: ServerNotification, _cx: NotificationContext<RoleClient>) -> Result<(), ErrorData> {
        match n {
            ServerNotification::ProgressNotification(p) => {
                let route = self.agents.lock().progress.get(&p.params.progress_token).cloned();
                if let Some((agent, token)) = route {
                    let mut params = p.params.clone();
                    params.progress_token = token;
                    let _ = agent.send_notification(ProgressNotification::new(params).into()).await;
                }
            }
            // Request ids differ on the two sides: the gateway cancels its own calls.
            ServerNotification::CancelledNotification(_) => {}
            other => {
                if let ServerNotification::ToolListChangedNotification(_) = other {
                    (self.on_tools_changed)();
                }
                for agent in self.agents.all() {
                    let _ = agent.send_notification(other.clone()).await;
                }
            }
        }
        Ok(())
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}

/// How the gateway introduces itself to the server: its own name, and the capabilities of the
/// agent it serves (none until an agent has initialized).
fn client_config(capabilities: ClientCapabilities) -> ClientConfig {
    let mut info = ClientConfig::default();
    info.capabilities = capabilities;
    info.client_info = Implementation::new("oncely-mcp", env!("CARGO_PKG_VERSION"));
    info
}

type Connection = RunningService<RoleClient, Relay>;

/// How the gateway opens its connection: `server/discover` first, for a server that speaks
/// protocol 2026-07-28 (the gateway then speaks it to its agents too), else the `initialize`
/// handshake of the versions before (the SDK falls back when the server answers the probe as
/// one of those, or not within 10 s).
fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto { preferred_versions: vec![ProtocolVersion::LATEST], legacy_version: None }
}

/// The connection to the real server, opened again after it drops.
pub struct Upstream {
    target: Target,
    /// What the server lists of its tools that the SDK does not model (noted over stdio).
    unmodeled: super::unmodeled::Unmodeled,
    agents: Arc<Agents>,
    on_tools_changed: Arc<dyn Fn() + Send + Sync>,
    conn: tokio::sync::Mutex<Option<Connection>>,
    /// The capabilities the connection declares: the first agent's, when it follows one.
    capabilities: std::sync::Mutex<Option<ClientCapabilities>>,
    /// Whether the first agent's capabilities are declared (stdio: the gateway serves one).
    follow: std::sync::atomic::AtomicBool,
    /// How long connecting may take.
    connect_timeout: std::time::Duration,
}

impl Upstream {
    pub fn new(
        target: Target,
        unmodeled: super::unmodeled::Unmodeled,
        agents: Arc<Agents>,
        on_tools_changed: Arc<dyn Fn() + Send + Sync>,
        connect_timeout: std::time::Duration,
    ) -> Upstream {
        Upstream {
            target,
            unmodeled,
            agents,
            on_tools_changed,
            conn: tokio::sync::Mutex::new(None),
            capabilities: Default::default(),
            follow: Default::default(),
            connect_timeout,
        }
    }

    /// Declare the first agent's capabilities to the server (see [`Upstream::adopt`]).
    pub fn follow_first_agent(&self) {
        self.follow.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// The first agent has initialized: when it offers the server something (roots, sampling,
    /// elicitation), connect again declaring it, so that the server sees what a direct client
    /// would have declared. Later agents do not change the connection.
    pub async fn adopt(&self, agent: &ClientCapabilities) {
        if !self.follow.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        {
            let mut caps = self.capabilities.lock().unwrap_or_else(|p| p.into_inner());
            if caps.is_some() {
                return;
            }
            *caps = Some(agent.clone());
        }
        let none = serde_json::to_value(ClientCapabilities::default()).ok();
        if serde_json::to_value(agent).ok() != none {
            self.close().await;
        }
    }

    async fn connect(&self) -> Result<Connection> {
        let capabilities = self.capabilities.lock().unwrap_or_else(|p| p.into_inner()).clone().unwrap_or_default();
        let relay = Relay {
            agents: self.agents.clone(),
            info: client_config(capabilities),
            request_timeout: self.connect_timeout,
            on_tools_changed: self.on_tools_changed.clone(),
        };
        Ok(match &self.target {
            Target::Command(argv) => {
                let mut cmd = tokio::process::Command::new(&argv[0]);
                cmd.args(&argv[1..]);
                let child = super::unmodeled::ChildTransport::spawn(cmd, self.unmodeled.clone())
                    .with_context(|| format!("starting the server {:?}", argv[0]))?;
                relay.serve_with_lifecycle(child, lifecycle()).await.with_context(|| format!("initializing the server {:?}", argv[0]))?
            }
            Target::Url(url) => {
                let transport = StreamableHttpClientTransport::from_uri(url.clone());
                relay.serve_with_lifecycle(transport, lifecycle()).await.with_context(|| format!("initializing the server at {url}"))?
            }
        })
    }

    /// The live connection's peer, connecting (again) if there is none.
    pub async fn peer(&self) -> Result<Peer<RoleClient>, ErrorData> {
        let mut g = self.conn.lock().await;
        if let Some(c) = g.as_ref() {
            if !c.is_closed() && !c.peer().is_transport_closed() {
                return Ok(c.peer().clone());
            }
            eprintln!("oncely mcp: the connection to the server dropped; starting it again");
        }
        let c =
            self.connect().await.map_err(|e| ErrorData::internal_error(format!("oncely mcp: the server is unavailable: {e:#}"), None))?;
        let peer = c.peer().clone();
        *g = Some(c);
        // A new connection may list other tools (the server may offer some only to clients
        // with a capability): read them again.
        (self.on_tools_changed)();
        Ok(peer)
    }

    /// What the server said when it was initialized.
    pub async fn info(&self) -> Result<ServerPeerInfo, ErrorData> {
        let peer = self.peer().await?;
        peer.peer_info()
            .map(|i| (*i).clone())
            .ok_or_else(|| ErrorData::internal_error("oncely mcp: the server sent no initialize result", None))
    }

    /// The connection was found closed while in use: drop it, so that the next request opens
    /// a new one.
    pub async fn dropped(&self) {
        let dead = {
            let mut g = self.conn.lock().await;
            match g.as_ref() {
                Some(c) if c.is_closed() || c.peer().is_transport_closed() => g.take(),
                _ => None,
            }
        };
        if let Some(c) = dead {
            eprintln!("oncely mcp: the connection to the server dropped; starting it again");
            let _ = c.cancel().await;
        }
    }

    /// Close the connection (stops a child process).
    pub async fn close(&self) {
        let conn = self.conn.lock().await.take();
        if let Some(c) = conn {
            let _ = c.cancel().await;
        }
    }
}
