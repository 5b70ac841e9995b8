//! One agent connection (the stdio agent, one Streamable HTTP session, or one stateless HTTP
//! request of protocol 2026-07-28): its requests answered by the gateway — `tools/call` and
//! `tools/list` by its rules, everything else passed through to the server as it is — and its
//! notifications passed on.

// Logging levels and resource subscriptions are legacy in the newest protocol version, and
// agents on the earlier ones use them: the gateway passes them on.
#![allow(deprecated)]

use super::gateway::Gateway;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CancelTaskRequest, ClientNotification, ClientRequest, CompleteRequest,
    CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest, CustomResult, ErrorData, GetPromptRequest,
    GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskRequest, GetTaskResult, InitializeRequestParams, InitializeResult,
    ListPromptsRequest, ListPromptsResult, ListResourceTemplatesRequest, ListResourceTemplatesResult, ListResourcesRequest,
    ListResourcesResult, ListToolsRequest, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ReadResourceRequest,
    ReadResourceRequestParams, ReadResourceResponse, RequestOptionalParam, RootsListChangedNotification, ServerConfig, ServerResult,
    SetLevelRequest, SetLevelRequestParams, SubscribeRequest, SubscribeRequestParams, UnsubscribeRequest, UnsubscribeRequestParams,
    UpdateTaskParams, UpdateTaskRequest,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::ServerHandler;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

static SESSIONS: AtomicU64 = AtomicU64::new(0);

/// An agent connection.
pub struct Session {
    gw: Arc<Gateway>,
    id: u64,
    /// This session's id as the core gets it: the run of calls that name none, when the gateway
    /// was given none.
    run: String,
    /// The agent opened a session with `initialize` (protocols before 2026-07-28).
    initialized: AtomicBool,
}

impl Session {
    pub fn new(gw: Arc<Gateway>) -> Session {
        let id = SESSIONS.fetch_add(1, Ordering::Relaxed) + 1;
        let run = format!("{}-session{id}", gw.ledger.owner());
        Session { gw, id, run, initialized: AtomicBool::new(false) }
    }

    /// The MCP session a request belongs to, if its protocol has one: opened with `initialize`,
    /// and the request speaks a version that has it. Protocol 2026-07-28 has no session: each
    /// request stands alone, and an open connection — a stdio process included — "is not a
    /// conversation or session" (the specification's "Statelessness"); over HTTP each of its
    /// requests is served by a connection of its own. The gateway then hands the core none
    /// rather than make one up.
    fn session(&self, cx: &RequestContext<RoleServer>) -> Option<&str> {
        let sessions = self.initialized.load(Ordering::SeqCst) && cx.protocol_version().is_some_and(|v| v.has_initialize());
        sessions.then_some(self.run.as_str())
    }

    /// Pass `request` through and take the answer `pick` expects.
    async fn pass<T>(
        &self,
        request: ClientRequest,
        cx: RequestContext<RoleServer>,
        pick: fn(ServerResult) -> Option<T>,
    ) -> Result<T, ErrorData> {
        self.gw.agents.heard(self.id, &cx.peer);
        let answer = self.gw.forward(request, &cx).await?;
        let shown = format!("{answer:?}");
        pick(answer).ok_or_else(|| ErrorData::internal_error(format!("oncely mcp: the server answered with {shown}"), None))
    }

    async fn notify(&self, n: ClientNotification) {
        if let Ok(peer) = self.gw.upstream.peer().await {
            let _ = peer.send_notification(n).await;
        }
    }
}

fn paged<M: Default>(params: Option<PaginatedRequestParams>) -> RequestOptionalParam<M, PaginatedRequestParams> {
    RequestOptionalParam { method: M::default(), params, extensions: Default::default() }
}

fn empty(r: ServerResult) -> Option<()> {
    matches!(r, ServerResult::EmptyResult(_)).then_some(())
}

/// The server's acknowledgement of `tasks/update` or `tasks/cancel`.
fn acknowledged(r: ServerResult) -> Option<()> {
    matches!(r, ServerResult::TaskAckResult(_) | ServerResult::EmptyResult(_)).then_some(())
}

impl ServerHandler for Session {
    async fn initialize(&self, request: InitializeRequestParams, cx: RequestContext<RoleServer>) -> Result<InitializeResult, ErrorData> {
        self.gw.agents.heard(self.id, &cx.peer);
        cx.peer.set_peer_info(request.clone());
        self.gw.upstream.adopt(&request.capabilities).await;
        let answer = self.negotiate_initialize(&request);
        self.initialized.store(answer.is_ok(), Ordering::SeqCst);
        answer
    }

    fn get_info(&self) -> ServerConfig {
        self.gw.info.clone()
    }

    /// At most the version the server speaks: results pass through in the server's shape.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&self.gw.info.protocol_version))
    }

    async fn call_tool(&self, request: CallToolRequestParams, cx: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        self.gw.agents.heard(self.id, &cx.peer);
        self.gw.call_tool(request, &cx, self.session(&cx)).await
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.gw.agents.heard(self.id, &cx.peer);
        let request: ListToolsRequest = paged(request);
        match self.gw.list_tools(request, &cx).await? {
            ServerResult::ListToolsResult(r) => Ok(r),
            other => Err(ErrorData::internal_error(format!("oncely mcp: the server answered tools/list with {other:?}"), None)),
        }
    }

    async fn complete(&self, p: CompleteRequestParams, cx: RequestContext<RoleServer>) -> Result<CompleteResult, ErrorData> {
        self.pass(CompleteRequest::new(p).into(), cx, |r| match r {
            ServerResult::CompleteResult(r) => Some(r),
            _ => None,
        })
        .await
    }

    async fn set_level(&self, p: SetLevelRequestParams, cx: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.pass(SetLevelRequest::new(p).into(), cx, empty).await
    }

    async fn get_prompt(&self, p: GetPromptRequestParams, cx: RequestContext<RoleServer>) -> Result<GetPromptResponse, ErrorData> {
        self.pass(GetPromptRequest::new(p).into(), cx, |r| match r {
            ServerResult::GetPromptResult(r) => Some(r.into()),
            ServerResult::InputRequiredResult(r) => Some(r.into()),
            _ => None,
        })
        .await
    }

    async fn list_prompts(
        &self,
        p: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let request: ListPromptsRequest = paged(p);
        self.pass(request.into(), cx, |r| match r {
            ServerResult::ListPromptsResult(r) => Some(r),
            _ => None,
        })
        .await
    }

    async fn list_resources(
        &self,
        p: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let request: ListResourcesRequest = paged(p);
        self.pass(request.into(), cx, |r| match r {
            ServerResult::ListResourcesResult(r) => Some(r),
            _ => None,
        })
        .await
    }

    async fn list_resource_templates(
        &self,
        p: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let request: ListResourceTemplatesRequest = paged(p);
        self.pass(request.into(), cx, |r| match r {
            ServerResult::ListResourceTemplatesResult(r) => Some(r),
            _ => None,
        })
        .await
    }

    async fn read_resource(&self, p: ReadResourceRequestParams, cx: RequestContext<RoleServer>) -> Result<ReadResourceResponse, ErrorData> {
        self.pass(ReadResourceRequest::new(p).into(), cx, |r| match r {
            ServerResult::ReadResourceResult(r) => Some(r.into()),
            ServerResult::InputRequiredResult(r) => Some(r.into()),
            _ => None,
        })
        .await
    }

    async fn subscribe(&self, p: SubscribeRequestParams, cx: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.pass(SubscribeRequest::new(p).into(), cx, empty).await
    }

    async fn unsubscribe(&self, p: UnsubscribeRequestParams, cx: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.pass(UnsubscribeRequest::new(p).into(), cx, empty).await
    }

    async fn on_custom_request(&self, request: CustomRequest, cx: RequestContext<RoleServer>) -> Result<CustomResult, ErrorData> {
        self.pass(request.into(), cx, |r| match r {
            ServerResult::CustomResult(r) => Some(r),
            ServerResult::EmptyResult(_) => Some(CustomResult(serde_json::json!({}))),
            _ => None,
        })
        .await
    }

    // The tasks extension (io.modelcontextprotocol/tasks): a task the server made of a call —
    // its handle recorded and replayed like any result of a keyed call — is followed, answered
    // and cancelled at the server, as the agent asks.
    async fn get_task(&self, p: GetTaskParams, cx: RequestContext<RoleServer>) -> Result<GetTaskResult, ErrorData> {
        self.pass(GetTaskRequest::new(p).into(), cx, |r| match r {
            ServerResult::GetTaskResult(r) => Some(r),
            _ => None,
        })
        .await
    }

    async fn update_task(&self, p: UpdateTaskParams, cx: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.pass(UpdateTaskRequest::new(p).into(), cx, acknowledged).await
    }

    async fn cancel_task(&self, p: CancelTaskParams, cx: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.pass(CancelTaskRequest::new(p).into(), cx, acknowledged).await
    }

    async fn on_roots_list_changed(&self, _cx: NotificationContext<RoleServer>) {
        self.notify(RootsListChangedNotification::default().into()).await;
    }

    async fn on_custom_notification(&self, n: CustomNotification, _cx: NotificationContext<RoleServer>) {
        self.notify(n.into()).await;
    }
}
