//! The gateway: what every agent session shares — the ledger, the connection to the server, the
//! tools' policies — and how each request is answered. Every `tools/call` runs as an effect
//! through the ledger: the core decides everything from claim to result, including that a
//! read-only or overwriting tool's call passes through; this file calls the server when the
//! core says so. Every other request passes through.

use super::answers::{self, marks, service_error};
use super::approval::{self, Answer, Asking};
use super::catalog::Catalog;
use super::identity::{self, Defaults};
use super::lookup;
use super::unmodeled::Unmodeled;
use super::upstream::{Agents, Upstream};
use oncely::wit::agent::ApprovalForm;
use oncely::wit::keys::{Intent, KeySpec};
use oncely::wit::ledger::{ApprovalRequest, Decision, ReconcileRequest, ReconcileVerdict};
use oncely::wit::policy::{ReconcilePath, ToolPolicy};
use oncely::{Call, EffectResult, Error, Ledger, ToolError};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam, ClientRequest, ClientResult,
    CreateTaskResult, ErrorCode, ErrorData, InitializeResult, InputRequiredResult, ListToolsRequest, RequestMetaObject, ResultType,
    ServerRequest, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RequestContext, RoleClient, RoleServer, ServiceError};
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, Instant};
use tokio_util::task::TaskTracker;

/// How the gateway was started.
#[derive(Debug, Clone)]
pub struct Settings {
    pub defaults: Defaults,
    /// The longest any request to the server may take (a keyed call: also at most its policy's
    /// `maxCallMs`); past it, a keyed call's outcome is unknown.
    pub call_timeout: Duration,
    /// How long a keyed call waits for the same intent running elsewhere (none: the core's
    /// default).
    pub wait: Option<Duration>,
    /// Tools whose `isError` results are unknown outcomes, not failures (`*`: every tool).
    pub is_error_unknown: Vec<String>,
}

impl Settings {
    fn is_error_unknown(&self, tool: &str) -> bool {
        self.is_error_unknown.iter().any(|t| t == "*" || t == tool)
    }
}

/// What an agent on protocol 2026-07-28 declares with each request that the server gets as it
/// is: what the agent can take in answer (the tasks extension, elicitation in an
/// `InputRequiredResult`), since the answer goes back to it.
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// The agent's `_meta` as the server gets it: without what belongs to the agent's own
/// connection (its progress token, the protocol's reserved `io.modelcontextprotocol/` members),
/// which the gateway's connection sets for itself — but for the capabilities a 2026-07-28 agent
/// declares with its request ([`CLIENT_CAPABILITIES`]).
fn passed_meta(agent: &RequestMetaObject) -> RequestMetaObject {
    let mut m = agent.clone();
    m.retain(|k, _| k != "progressToken" && (k == CLIENT_CAPABILITIES || !k.starts_with("io.modelcontextprotocol/")));
    m
}

/// Whether a JSON-RPC error from the server says the call was refused before the tool ran:
/// unreadable, not a request, no such method, invalid parameters (unknown tool, bad arguments).
/// Any other error (an internal error, one the SDK makes up for a request it lost) may come after
/// the tool ran.
fn refused_before_running(e: &ErrorData) -> bool {
    [ErrorCode::PARSE_ERROR, ErrorCode::INVALID_REQUEST, ErrorCode::METHOD_NOT_FOUND, ErrorCode::INVALID_PARAMS].contains(&e.code)
}

/// The server's answer to a `tools/call`, kept to be returned to the agent as it is.
type Verbatim = Arc<Mutex<Option<Result<CallToolResponse, ErrorData>>>>;

/// One `tools/call` as the ledger runs it: the intent and policy, the request keyed for the
/// server, and the request as the agent sent it (what a pass-through call sends).
#[derive(Clone)]
struct Job {
    intent: Intent,
    policy: ToolPolicy,
    keyed: CallToolRequestParams,
    original: CallToolRequestParams,
}

/// What asking a person about a call awaiting approval came to.
enum Asked {
    /// A decision was recorded (or someone else's was, meanwhile): run the call again.
    Decided,
    /// Ask the client with this result (2026-07-28); its next call brings the answer.
    Input(InputRequiredResult),
    /// Not asked, or no decision: the pollable "awaiting approval" answer.
    Not,
}

/// What all sessions share.
pub struct Gateway {
    pub ledger: Ledger,
    pub upstream: Upstream,
    pub agents: Arc<Agents>,
    /// What the server lists of its tools that the SDK drops (a tool's `execution`): put back
    /// into the agents' `tools/list` answers on the wire.
    pub unmodeled: Unmodeled,
    pub settings: Settings,
    /// The server's initialize result, as agents get it.
    pub info: InitializeResult,
    policy_file: Map<String, Value>,
    default_spec: KeySpec,
    catalog: RwLock<Arc<Catalog>>,
    /// The server said its tools changed: read them again before the next call.
    stale: Arc<AtomicBool>,
    /// `tools/call`s in flight: waited for before the gateway closes the server's connection.
    pub calls: TaskTracker,
    /// The keys whose approval an agent's user is being asked for.
    asking: Asking,
    me: Weak<Gateway>,
}

impl Gateway {
    /// Connect to the server, read its tools and resolve their policies.
    pub async fn start(
        ledger: Ledger,
        target: super::upstream::Target,
        settings: Settings,
        policy_file: Map<String, Value>,
    ) -> anyhow::Result<Arc<Gateway>> {
        let agents = Arc::new(Agents::default());
        let stale = Arc::new(AtomicBool::new(true));
        let flag = stale.clone();
        let unmodeled = Unmodeled::default();
        let on_tools_changed = Arc::new(move || flag.store(true, Ordering::SeqCst));
        let upstream = Upstream::new(target, unmodeled.clone(), agents.clone(), on_tools_changed, settings.call_timeout);
        let server = upstream.info().await.map_err(|e| anyhow::anyhow!(e.message))?;
        let mut info = InitializeResult::new(server.capabilities);
        info.protocol_version = server.protocol_version;
        info.server_info = server.server_info.unwrap_or_default();
        info.instructions = server.instructions;
        let default_spec = ledger.runtime().default_spec()?;
        let gw = Arc::new_cyclic(|me| Gateway {
            ledger,
            upstream,
            agents,
            unmodeled,
            settings,
            info,
            policy_file,
            default_spec,
            catalog: RwLock::new(Arc::new(Catalog::empty())),
            stale,
            calls: TaskTracker::new(),
            asking: Asking::default(),
            me: me.clone(),
        });
        gw.catalog().await.map_err(|e| anyhow::anyhow!(e.message))?;
        Ok(gw)
    }

    /// The tools' policies, read again from the server when its list changed.
    pub async fn catalog(&self) -> Result<Arc<Catalog>, ErrorData> {
        if self.stale.swap(false, Ordering::SeqCst) {
            if let Err(e) = self.refresh().await {
                self.stale.store(true, Ordering::SeqCst);
                return Err(e);
            }
        }
        Ok(self.current())
    }

    /// The tools' policies as last read.
    fn current(&self) -> Arc<Catalog> {
        self.catalog.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    async fn refresh(&self) -> Result<(), ErrorData> {
        let tools = self.upstream.peer().await?.list_all_tools().await.map_err(service_error)?;
        let catalog = Catalog::resolve(self.ledger.runtime(), &tools, &self.policy_file)
            .map_err(|e| ErrorData::internal_error(format!("oncely mcp: reading the server's tools: {e:#}"), None))?;
        for (tool, policy) in &catalog.policies {
            if let ReconcilePath::Lookup(lookup_tool) = &policy.reconcile {
                let (me, lookup_tool) = (self.me.clone(), lookup_tool.clone());
                self.ledger.reconciler(tool, move |req| {
                    let (me, lookup_tool) = (me.clone(), lookup_tool.clone());
                    async move {
                        match me.upgrade() {
                            Some(gw) => gw.look_up(&lookup_tool, req).await,
                            None => ReconcileVerdict::Unknown("the gateway is shutting down".into()),
                        }
                    }
                });
            }
        }
        *self.catalog.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(catalog);
        Ok(())
    }

    /// Ask the server's lookup tool whether the effect of `req` happened.
    async fn look_up(&self, lookup_tool: &str, req: ReconcileRequest) -> ReconcileVerdict {
        let catalog = self.current();
        let Some(schema) = catalog.schemas.get(lookup_tool) else {
            return ReconcileVerdict::Unknown(format!("the server has no tool {lookup_tool:?} to look the effect up with"));
        };
        let original = serde_json::from_str::<Value>(&req.args_canonical).unwrap_or(Value::Null);
        let mut params = CallToolRequestParams::new(lookup_tool.to_string());
        params.arguments = Some(lookup::arguments(schema, &original, &req.key));
        match self.send(params, self.settings.call_timeout, true).await {
            Ok(ServerResult::CallToolResult(r)) => match serde_json::to_value(&r) {
                Ok(v) => lookup::verdict(lookup_tool, &v),
                Err(e) => ReconcileVerdict::Unknown(e.to_string()),
            },
            Ok(_) => ReconcileVerdict::Unknown(format!("the lookup {lookup_tool:?} answered with something other than a tool result")),
            Err(e) => ReconcileVerdict::Unknown(format!("the lookup {lookup_tool:?} failed: {e}")),
        }
    }

    /// Send one `tools/call` to the server and wait for its answer, at most `timeout`. A request
    /// that could not be sent because the connection had dropped is sent once more on a new
    /// connection (nothing reached the server); `again_if_lost` also sends it again when the
    /// connection dropped after it was sent (only for what may run twice: a read-only lookup).
    async fn send(&self, params: CallToolRequestParams, timeout: Duration, again_if_lost: bool) -> Result<ServerResult, ServiceError> {
        let mut tries = 0;
        loop {
            tries += 1;
            let peer = self.upstream.peer().await.map_err(ServiceError::McpError)?;
            // The SDK sets its connection's own capabilities in every request's `_meta`: the
            // agent's, when it declared them with its call, are given again over them.
            let mut options = PeerRequestOptions::with_timeout(timeout);
            if let Some(caps) = params.meta.as_ref().and_then(|m| m.get(CLIENT_CAPABILITIES)) {
                let mut declared = RequestMetaObject::default();
                declared.insert(CLIENT_CAPABILITIES.into(), caps.clone());
                options = options.with_meta(declared);
            }
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
            let answer = match peer.send_request_with_option(request, options).await {
                Err(ServiceError::TransportClosed) if tries == 1 => {
                    self.upstream.dropped().await;
                    continue;
                }
                Err(e) => return Err(e),
                Ok(handle) => handle.await_response().await,
            };
            match answer {
                Err(ServiceError::TransportClosed) if again_if_lost && tries == 1 => self.upstream.dropped().await,
                other => return other,
            }
        }
    }

    /// Pass a request through to the server: progress routed back to the agent, the agent's
    /// cancellation passed on.
    pub async fn forward(&self, request: ClientRequest, cx: &RequestContext<RoleServer>) -> Result<ServerResult, ErrorData> {
        let peer = self.upstream.peer().await?;
        let options = PeerRequestOptions::with_timeout(self.settings.call_timeout).with_meta(passed_meta(&cx.meta));
        let handle = peer.send_request_with_option(request, options).await.map_err(service_error)?;
        let token = handle.progress_token.clone();
        if let Some(theirs) = cx.meta.get_progress_token() {
            self.agents.route_progress(token.clone(), &cx.peer, theirs);
        }
        let id = handle.id.clone();
        let answer = tokio::select! {
            r = handle.await_response() => r.map_err(service_error),
            () = cx.ct.cancelled() => {
                let _ = cancel(&peer, id).await;
                Err(ErrorData::internal_error("oncely mcp: cancelled by the agent", None))
            }
        };
        self.agents.done(&token);
        answer
    }

    /// `tools/list`, passed through with each tool's effective class in its `_meta`.
    pub async fn list_tools(&self, request: ListToolsRequest, cx: &RequestContext<RoleServer>) -> Result<ServerResult, ErrorData> {
        let mut answer = self.forward(ClientRequest::ListToolsRequest(request), cx).await?;
        if let ServerResult::ListToolsResult(list) = &mut answer {
            let mut catalog = self.catalog().await?;
            if list.tools.iter().any(|t| !catalog.policies.contains_key(t.name.as_ref()) && !catalog.invalid.contains_key(t.name.as_ref()))
            {
                self.stale.store(true, Ordering::SeqCst);
                catalog = self.catalog().await?;
            }
            catalog.annotate(&mut list.tools);
        }
        Ok(answer)
    }

    /// `tools/call`: every call of a tool the server lists goes to the core as an effect, which
    /// decides from the tool's class: claimed, keyed and recorded (accumulating, irreversible), or
    /// passed through (read-only, overwriting). A tool the server does not list, or whose policy
    /// cannot be read, is not called.
    pub async fn call_tool(
        &self,
        params: CallToolRequestParams,
        cx: &RequestContext<RoleServer>,
        session: Option<&str>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut catalog = self.catalog().await?;
        if !catalog.policies.contains_key(params.name.as_ref()) && !catalog.invalid.contains_key(params.name.as_ref()) {
            self.stale.store(true, Ordering::SeqCst);
            catalog = self.catalog().await?;
        }
        if let Some(why) = catalog.invalid.get(params.name.as_ref()) {
            let text = format!("oncely: the gateway does not call {:?}: its oncely policy cannot be read ({why})", params.name);
            return Ok(answers::refusal(text, None).into());
        }
        let Some(policy) = catalog.policies.get(params.name.as_ref()).cloned() else {
            // Unclassified, it would be called unguarded: the gateway answers as a server does
            // for a tool it does not have.
            return Err(ErrorData::invalid_params(format!("oncely mcp: the server lists no tool {:?}", params.name), None));
        };
        self.effect(params, cx, session, policy).await
    }

    /// One `tools/call` as an effect through the ledger. It runs in a task of its own, so an
    /// agent that cancels or disconnects does not leave a keyed call half done: its result is
    /// recorded (a pass-through call is cancelled at the server, as the agent asked). A call that
    /// awaits a person's approval asks the agent's user, when its client takes elicitation
    /// ([`Gateway::ask`]), and runs again once they decided.
    async fn effect(
        &self,
        params: CallToolRequestParams,
        cx: &RequestContext<RoleServer>,
        session: Option<&str>,
        policy: ToolPolicy,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut params = params;
        // The answer to the gateway's own request for approval (2026-07-28) is the gateway's:
        // neither the server nor the call's identity sees it. Another request state (the
        // server's own request for input) passes on as it came.
        let answered = params.request_state.as_deref().and_then(approval::read_state).map(|(key, version)| {
            let answer = approval::read_response(params.input_responses.as_ref());
            params.request_state = None;
            params.input_responses = None;
            (key, version, answer)
        });
        // As the agent sent it: what a pass-through call sends.
        let original = params.clone();
        let mut meta = cx.meta.0 .0.clone();
        if let Some(m) = &params.meta {
            meta.extend(m.0 .0.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let mut passed = passed_meta(&cx.meta);
        if let Some(m) = params.meta.take() {
            passed.extend(m);
        }
        params.meta = Some(passed);
        let args = Value::Object(params.arguments.clone().unwrap_or_default());
        let rt = self.ledger.runtime();
        let (intent, policy) = match identity::intent(
            rt,
            &meta,
            &self.settings.defaults,
            session,
            &params.name,
            args.to_string(),
            &policy,
            &self.default_spec,
        ) {
            Ok(found) => found,
            Err(identity::Refused::Identity(e)) => return Err(ErrorData::invalid_params(format!("oncely: {}", e.message), None)),
            Err(identity::Refused::Runtime(e)) => return Err(ErrorData::internal_error(format!("oncely: {e}"), None)),
        };
        let job = Job { intent, policy, keyed: params, original };
        let (outcome, verbatim) = self.run(&job, cx).await?;
        let (outcome, verbatim) = match outcome {
            Err(Error::AwaitingApproval(req)) => match self.ask(&req, cx, answered).await {
                Asked::Decided => self.run(&job, cx).await?,
                Asked::Input(r) => return Ok(r.into()),
                Asked::Not => (Err(Error::AwaitingApproval(req)), verbatim),
            },
            other => (other, verbatim),
        };
        match (outcome, verbatim) {
            (Ok(_) | Err(Error::ToolFailed(_)), Some(answer)) => answer,
            (Ok(r), None) if r.value.get("resultType").and_then(Value::as_str) == Some("task") => {
                // The server made a task of the call (the tasks extension): its handle, so that
                // every repeat follows the one task.
                let mut task: CreateTaskResult = serde_json::from_value(r.value)
                    .map_err(|e| ErrorData::internal_error(format!("oncely mcp: the recorded task is not a task: {e}"), None))?;
                task.meta.get_or_insert_with(Default::default).extend(marks(&r.key, r.replayed, r.reconciled));
                Ok(task.into())
            }
            (Ok(r), None) => {
                let mut result: CallToolResult = serde_json::from_value(r.value)
                    .map_err(|e| ErrorData::internal_error(format!("oncely mcp: the recorded result is not a tool result: {e}"), None))?;
                result.meta.get_or_insert_with(Default::default).extend(marks(&r.key, r.replayed, r.reconciled));
                // A result recorded by hand (`oncely ledger resolve --happened`) may say nothing
                // of its type, which 2026-07-28 requires (the SDK drops it for earlier versions).
                result.result_type.get_or_insert(ResultType::COMPLETE);
                Ok(result.into())
            }
            (Err(e), _) => answers::of(self.ledger.runtime(), &e).map(Into::into),
        }
    }

    /// Run `job` through the ledger once, in a task of its own: the core's outcome, and the
    /// server's own answer when it is to be returned as it is (a pass-through call's, and a keyed
    /// call's that failed: its isError result, a request for input).
    async fn run(
        &self,
        job: &Job,
        cx: &RequestContext<RoleServer>,
    ) -> Result<(Result<EffectResult<Value>, Error>, Option<Result<CallToolResponse, ErrorData>>), ErrorData> {
        let gw = self.me.upgrade().ok_or_else(|| ErrorData::internal_error("oncely mcp: shutting down", None))?;
        let verbatim: Verbatim = Arc::default();
        let kept = verbatim.clone();
        let (cx, job) = (cx.clone(), job.clone());
        let run = self.calls.spawn(async move {
            let tool = |call: Call| gw.call(job.keyed.clone(), job.original.clone(), &cx, call, kept.clone());
            gw.ledger.effect(&job.intent, &job.policy).wait(gw.settings.wait).run_call(tool).await
        });
        let outcome = run.await.map_err(|e| ErrorData::internal_error(format!("oncely mcp: the call's task failed: {e}"), None))?;
        let verbatim = verbatim.lock().unwrap_or_else(|p| p.into_inner()).take();
        Ok((outcome, verbatim))
    }

    /// A call awaits a person's approval: ask the agent's user, when its client takes form
    /// elicitation, and record their decision — by `mcp:CLIENT`, on the version the request
    /// showed. Before protocol 2026-07-28 the gateway sends `elicitation/create` and waits (at
    /// most `--call-timeout`); on 2026-07-28 it answers with an `InputRequiredResult` and reads
    /// the answer in the client's next call (`answered`: the key and version its request state
    /// names, and the answer). One elicitation per key at a time; a cancelled, failed or late
    /// one decides nothing (the agent gets the pollable "awaiting approval" answer).
    async fn ask(&self, req: &ApprovalRequest, cx: &RequestContext<RoleServer>, answered: Option<(String, u64, Answer)>) -> Asked {
        // What the person reads, and who their decision is recorded as: the core's.
        let client = cx.client_info().map(|i| i.name);
        let form = match self.ledger.runtime().approval_prompt(req, client.as_deref()) {
            Ok(form) => form,
            Err(e) => {
                eprintln!("oncely mcp: the approval of {} was not asked: {e}", req.key);
                return Asked::Not;
            }
        };
        let until = Instant::now() + self.settings.call_timeout;
        let (answer, version) = if approval::no_server_requests(cx.protocol_version().as_ref()) {
            match answered {
                Some((key, version, answer)) if key == req.key => {
                    self.asking.end(&key);
                    (answer, version)
                }
                _ if approval::takes_form(cx.client_capabilities().as_ref()) && self.asking.begin(&req.key, until) => {
                    let mut r = approval::input_required(req, &form);
                    r.meta = Some(marks(&req.key, false, false));
                    return Asked::Input(r);
                }
                _ => return Asked::Not,
            }
        } else {
            if !approval::takes_form(cx.client_capabilities().as_ref()) || !self.asking.begin(&req.key, until) {
                return Asked::Not;
            }
            let answer = self.elicit(&form, cx).await;
            self.asking.end(&req.key);
            (answer, req.version)
        };
        let decision = |note: String| Decision { by: form.recorded_as.clone(), note, seen_version: version };
        let decided = match answer {
            Answer::Approve(note) => self.ledger.approve(&req.scope, &req.key, decision(note)).await,
            Answer::Deny(note) => {
                let note = if note.is_empty() { form.decline_note.clone() } else { note };
                self.ledger.deny(&req.scope, &req.key, decision(note)).await
            }
            Answer::None => return Asked::Not,
        };
        // Refused (someone decided meanwhile, in the inbox or the CLI: `changed`): the call runs
        // again all the same, and answers what the ledger now says.
        if let Err(e) = decided {
            eprintln!("oncely mcp: the decision of {} on {} was not recorded: {e}", form.recorded_as, req.key);
        }
        Asked::Decided
    }

    /// `elicitation/create` to the agent (before 2026-07-28), at most `--call-timeout`, given up
    /// when the agent cancels its call.
    async fn elicit(&self, form: &ApprovalForm, cx: &RequestContext<RoleServer>) -> Answer {
        let request = ServerRequest::ElicitRequest(approval::request(form));
        let options = PeerRequestOptions::with_timeout(self.settings.call_timeout);
        let asked = async {
            match cx.peer.send_request_with_option(request, options).await {
                Ok(handle) => handle.await_response().await,
                Err(e) => Err(e),
            }
        };
        tokio::select! {
            answer = asked => match answer {
                Ok(ClientResult::ElicitResult(r)) => approval::read(&r),
                Ok(other) => {
                    eprintln!("oncely mcp: the agent answered the approval's elicitation with {other:?}");
                    Answer::None
                }
                Err(e) => {
                    eprintln!("oncely mcp: no answer to the approval's elicitation: {e}");
                    Answer::None
                }
            },
            () = cx.ct.cancelled() => Answer::None,
        }
    }

    /// The call the core asks for: passed through as the agent sent it, or keyed.
    async fn call(
        &self,
        keyed: CallToolRequestParams,
        original: CallToolRequestParams,
        cx: &RequestContext<RoleServer>,
        call: Call,
        verbatim: Verbatim,
    ) -> Result<Value, ToolError> {
        if !call.pass_through {
            *verbatim.lock().unwrap_or_else(|p| p.into_inner()) = None;
            return self.call_upstream(keyed, call, verbatim).await;
        }
        let answer = match self.forward(ClientRequest::CallToolRequest(CallToolRequest::new(original)), cx).await {
            Ok(ServerResult::CallToolResult(r)) => Ok(r.into()),
            Ok(ServerResult::InputRequiredResult(r)) => Ok(r.into()),
            Ok(ServerResult::CreateTaskResult(r)) => Ok(r.into()),
            Ok(other) => Err(ErrorData::internal_error(format!("oncely mcp: the server answered tools/call with {other:?}"), None)),
            Err(e) => Err(e),
        };
        let failed = answer.is_err();
        *verbatim.lock().unwrap_or_else(|p| p.into_inner()) = Some(answer);
        // Nothing is recorded for a pass-through call; its answer goes back as it came.
        if failed {
            Err(ToolError::definite("the server answered with an error"))
        } else {
            Ok(Value::Null)
        }
    }

    /// One call of a keyed tool at the server, with the key in `_meta` (`idempotencyKey`, the
    /// SEP-3182 form, and `oncely/key`), as the ledger's vocabulary (docs/mcp.md): a result is
    /// done; the server's `isError` result (unless `--is-error-unknown` names the tool), a
    /// request for input, or a JSON-RPC error that refuses the call before it runs is a definite
    /// failure; no answer in time, a dropped connection, or any other error is ambiguous.
    async fn call_upstream(&self, mut params: CallToolRequestParams, call: Call, refused: Verbatim) -> Result<Value, ToolError> {
        let tool = params.name.to_string();
        let meta = params.meta.get_or_insert_with(Default::default);
        meta.insert(identity::IDEMPOTENCY_KEY.into(), Value::from(call.key.clone()));
        meta.insert(answers::KEY_META.into(), Value::from(call.key.clone()));
        let left = call.deadline.map(|d| Duration::from_millis(d.saturating_sub(self.ledger.now())));
        let timeout = left.map_or(self.settings.call_timeout, |l| l.min(self.settings.call_timeout));
        // A server that cannot be reached was sent nothing.
        if let Err(e) = self.upstream.peer().await {
            return Err(ToolError::definite(e.message.to_string()));
        }
        match self.send(params, timeout, false).await {
            Ok(ServerResult::CallToolResult(r)) if r.is_error == Some(true) => {
                let text = r.content.iter().find_map(|c| c.as_text().map(|t| t.text.clone())).unwrap_or_default();
                if self.settings.is_error_unknown(&tool) {
                    return Err(ToolError::ambiguous(format!(
                        "the server answered with an error, which may come after the effect: {text}"
                    )));
                }
                *refused.lock().unwrap_or_else(|p| p.into_inner()) = Some(Ok(r.into()));
                Err(ToolError::definite(format!("the server answered with an error: {text}")))
            }
            Ok(ServerResult::CallToolResult(r)) => serde_json::to_value(&r).map_err(|e| ToolError::ambiguous(e.to_string())),
            // The server took the call as a task (the tasks extension): the effect is the
            // server's to run, once, under that task; its handle is the call's result.
            Ok(ServerResult::CreateTaskResult(r)) => serde_json::to_value(&r).map_err(|e| ToolError::ambiguous(e.to_string())),
            Ok(ServerResult::InputRequiredResult(r)) => {
                *refused.lock().unwrap_or_else(|p| p.into_inner()) = Some(Ok(r.into()));
                Err(ToolError::definite("the server asks the agent for input before it runs the tool"))
            }
            Ok(other) => Err(ToolError::ambiguous(format!("the server answered with something other than a tool result: {other:?}"))),
            Err(ServiceError::McpError(e)) if refused_before_running(&e) => {
                Err(ToolError::definite(format!("the server refused the call: {}", e.message)))
            }
            Err(ServiceError::McpError(e)) => Err(ToolError::ambiguous(format!("the server answered with an error: {}", e.message))),
            Err(ServiceError::Timeout { timeout }) => {
                Err(ToolError::ambiguous(format!("the server did not answer within {} ms", timeout.as_millis())))
            }
            Err(e) => Err(ToolError::ambiguous(format!("no answer from the server: {e}"))),
        }
    }
}

async fn cancel(peer: &rmcp::service::Peer<RoleClient>, id: rmcp::model::RequestId) -> Result<(), ServiceError> {
    peer.notify_cancelled(CancelledNotificationParam::new(Some(id), Some("cancelled by the agent".into()))).await
}
