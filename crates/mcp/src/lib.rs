//! `sandbox-browser mcp`: an MCP server (stdio, the official Rust SDK `rmcp`) over the runtime's
//! socket API.
//!
//! One MCP connection is one runtime session, started on the first tool that needs a page and closed
//! when the client disconnects. Tools ([`tools::all`]) are named as Playwright MCP names the same
//! action; their input schemas are generated from the protocol's parameter types; each takes
//! `timeout_ms`, the request's one budget. Results are compact text ([`render`]); API errors are tool
//! errors (`isError: true`) with the one-line message, code and retry guidance.
//!
//! With no supervisor answering on the socket, the server starts one of its own
//! ([`runtime::OwnSupervisor`]) and stops it when it exits, leaving no process behind.

pub mod playwright;
pub mod render;
pub mod runtime;
pub mod schema;
pub mod tools;

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use sb_client::{Client, ClientError};
use sb_protocol::api::{Method, Response};
use sb_protocol::budget::MIN_TIMEOUT_MS;
use sb_protocol::error::{DO_NOT_RETRY, RUNTIME_HINT};
use sb_protocol::{ErrorBody, ErrorCode, Phase};
use serde_json::{Map, Value};
use tokio::sync::Mutex;

use crate::runtime::OwnSupervisor;
use crate::tools::{Action, Cap, TabsAction, TabsArgs, ToolDef};

/// What the server tells the model once (MCP `instructions`), rather than in every tool's schema.
pub const INSTRUCTIONS: &str =
    "A browser. browser_snapshot shows the page with [ref=eN] refs; act on refs with the other tools. \
Every tool takes timeout_ms, its budget in ms (1000-120000), though no schema lists it; a tool that \
runs out answers at it. Any other argument a tool's schema does not list is refused. \
A tool that takes ref also takes element, the element in words (not used to find it). \
A selector (instead of a ref) finds its first match in document order, through open shadow roots: CSS \
(#save), or Playwright's selectors (text=Save, role=button[name=\"Save\"], //xpath, css >> nth=1, \
button:has-text(\"Save\")) and locators (getByRole('button', { name: 'Save' }), getByLabel('Email'), \
getByText(...), .first(), .nth(i), .filter({ hasText })). \
Playwright MCP's argument names are taken too (target, promptText, textGone, time in s, ...).";

/// The error of a call to a tool this server does not offer: for a tool of a group it was not started
/// with (`browser_take_screenshot` without `--caps files`), which group, so that the operator (or the
/// model, telling them) knows what to turn on.
fn unknown_tool(name: &str) -> String {
    match tools::all().iter().find(|t| t.name == name) {
        Some(t) => format!(
            "unknown tool {name:?}: it is in the {:?} group, which this server was not started with \
             (sandbox-browser mcp --caps {})",
            t.cap.name(),
            t.cap.name()
        ),
        None => format!("unknown tool {name:?}"),
    }
}

/// How `sandbox-browser mcp` was started.
#[derive(Debug, Clone)]
pub struct Options {
    /// The supervisor's socket; absent: the default path ([`sb_protocol::api::default_socket_path`]).
    pub socket: Option<PathBuf>,
    /// This binary, to start `serve` with when no supervisor answers.
    pub exe: PathBuf,
    /// Extra `serve` flags for an own supervisor (`--config`, `--browser`, ...).
    pub serve_args: Vec<OsString>,
    /// The optional tool groups to offer (`--caps`); [`Cap::Core`] is always on.
    pub caps: HashSet<Cap>,
}

/// Runs the MCP server on stdin/stdout until the client disconnects or SIGTERM/SIGINT; then closes
/// the session and stops an own supervisor. Returns the process's exit code (0 on a clean end).
pub fn run(options: Options) -> std::process::ExitCode {
    let explicit = options.socket.is_some();
    let socket = options.socket.clone().unwrap_or_else(sb_protocol::api::default_socket_path);
    // Spawned from the main thread, which lives as long as the process (the death signal follows it).
    let mut own = None;
    let socket = if runtime::answers(&socket) {
        socket
    } else {
        match OwnSupervisor::spawn(&options.exe, explicit.then_some(socket), &options.serve_args) {
            Ok((child, socket)) => {
                own = Some(child);
                socket
            }
            Err(e) => {
                eprintln!("sandbox-browser mcp: cannot start the runtime: {e}");
                return std::process::ExitCode::FAILURE;
            }
        }
    };
    let ready = match own.as_mut() {
        Some(child) => child.wait_ready(),
        None => Ok(()),
    };
    let rt = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sandbox-browser mcp: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let server = Server::new(socket, ready.err(), &options.caps);
    let code = rt.block_on(serve(server));
    if let Some(own) = own {
        own.stop();
    }
    // The stdin reader may still be parked in a blocking read: do not wait for it.
    rt.shutdown_timeout(Duration::from_millis(100));
    code
}

async fn serve(server: Server) -> std::process::ExitCode {
    let shared = server.shared.clone();
    let service = match server.serve(rmcp::transport::stdio()).await {
        Ok(service) => service,
        Err(e) => {
            eprintln!("sandbox-browser mcp: {e}");
            shared.close_session().await;
            return std::process::ExitCode::FAILURE;
        }
    };
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let term = async {
        match term.as_mut() {
            Some(t) => {
                t.recv().await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = service.waiting() => {}
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
    shared.close_session().await;
    std::process::ExitCode::SUCCESS
}

/// The MCP server: the tools on offer and the one runtime session they act in.
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
}

struct Shared {
    socket: PathBuf,
    /// Why the runtime could not be started, when it could not.
    start_error: Option<String>,
    tools: Vec<ToolDef>,
    client: Mutex<Option<Client>>,
    session: Mutex<Option<String>>,
}

impl Server {
    /// A server for the supervisor at `socket` offering the tools of `caps` (and the core ones).
    /// `start_error`: why an own supervisor did not start (each tool then answers it).
    pub fn new(socket: PathBuf, start_error: Option<String>, caps: &HashSet<Cap>) -> Server {
        let tools =
            tools::all().into_iter().filter(|t| t.cap == Cap::Core || caps.contains(&t.cap)).collect();
        Server {
            shared: Arc::new(Shared {
                socket,
                start_error,
                tools,
                client: Mutex::new(None),
                session: Mutex::new(None),
            }),
        }
    }
}

impl Shared {
    async fn client(&self) -> Result<Client, ErrorBody> {
        if let Some(e) = &self.start_error {
            return Err(unavailable(e));
        }
        let mut guard = self.client.lock().await;
        if let Some(client) = guard.as_ref() {
            return Ok(client.clone());
        }
        let client = Client::connect(&self.socket).await.map_err(|e| unavailable(&e.to_string()))?;
        *guard = Some(client.clone());
        Ok(client)
    }

    /// The session's id, started on first use.
    async fn session(&self, client: &Client, budget_ms: Option<u64>) -> Result<String, ErrorBody> {
        let mut guard = self.session.lock().await;
        if let Some(id) = guard.as_ref() {
            return Ok(id.clone());
        }
        let started = client.request::<sb_protocol::api::SessionStartResult>(
            Method::SessionStart,
            None,
            Value::Object(Map::new()),
            budget_ms,
        );
        let started = self.answer(started.await)?;
        *guard = Some(started.session_id.clone());
        Ok(started.into_inner().session_id)
    }

    fn answer<T>(&self, result: Result<T, ClientError>) -> Result<T, ErrorBody> {
        result.map_err(|e| match e {
            ClientError::Api(body) => body,
            other => {
                if matches!(other, ClientError::Closed(_) | ClientError::Connect { .. }) {
                    if let Ok(mut guard) = self.client.try_lock() {
                        guard.take();
                    }
                }
                unavailable(&other.to_string())
            }
        })
    }

    /// One API call in the session; a session the runtime no longer knows (closed for being idle, by
    /// someone else, lost) is started again once, and the answer says so: a result gets
    /// `session_reset: true` with `reset_reason: "session_restarted"` (a line of its own, as a reset
    /// page's), an error a sentence naming why the old one went.
    async fn call(&self, method: Method, params: Value, budget_ms: Option<u64>) -> Result<Value, ErrorBody> {
        let client = self.client().await?;
        let mut ended: Option<String> = None;
        for attempt in 0..2 {
            let session =
                if method.needs_session() { Some(self.session(&client, budget_ms).await?) } else { None };
            let response = client.call(method.name(), session.as_deref(), params.clone(), budget_ms).await;
            let response: Response = self.answer(response)?;
            match (response.ok, response.result, response.error) {
                (true, Some(mut result), _) => {
                    if let (Some(_), Value::Object(fields)) = (&ended, &mut result) {
                        fields.insert("session_reset".into(), Value::Bool(true));
                        fields.insert("reset_reason".into(), Value::from(render::SESSION_RESTARTED));
                    }
                    return Ok(result);
                }
                (false, _, Some(e)) if e.code == ErrorCode::UnknownSession && attempt == 0 => {
                    self.session.lock().await.take();
                    ended = Some(e.message);
                }
                (false, _, Some(mut e)) => {
                    if let Some(why) = &ended {
                        e.message = format!(
                            "{} (this conversation's browser session had ended: {why}; a new one was started, \
                             on a blank page)",
                            e.message
                        );
                    }
                    return Err(e);
                }
                _ => return Err(ErrorBody::new(ErrorCode::Internal, Phase::Request, "empty answer")),
            }
        }
        unreachable!("the loop returns on its second attempt")
    }

    async fn close_session(&self) {
        let Some(id) = self.session.lock().await.take() else { return };
        if let Ok(client) = self.client().await {
            let close =
                client.call(Method::SessionClose.name(), Some(&id), Value::Null, Some(MIN_TIMEOUT_MS * 3));
            let _ = tokio::time::timeout(Duration::from_secs(5), close).await;
        }
    }

    async fn run_tool(
        &self,
        tool: &ToolDef,
        mut args: Map<String, Value>,
    ) -> Result<CallToolResult, ErrorBody> {
        let budget_ms = match args.remove("timeout_ms") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_u64().ok_or_else(|| {
                ErrorBody::new(
                    ErrorCode::BadRequest,
                    Phase::Request,
                    "timeout_ms must be a whole number of ms",
                )
            })?),
        };
        // Playwright MCP's names for the same arguments (`target`, `promptText`, ...), as ours.
        let takes_ref = tool.schema.get("properties").and_then(|p| p.get("ref")).is_some();
        playwright::translate(tool.name, takes_ref, &mut args).map_err(|why| {
            ErrorBody::new(ErrorCode::BadRequest, Phase::Request, format!("{}: {why}", tool.name))
        })?;
        // Playwright MCP names a tab by its place in the list (0-based); ours by its target_id.
        let tab_index = if matches!(tool.action, Action::Tabs) { args.remove("index") } else { None };
        // An argument the tool's schema does not list is refused, as the socket refuses a parameter
        // the method does not take (the tool's own schema: `browser_tabs` and `browser_fill_form`
        // have arguments of their own).
        if let Some(Value::Object(properties)) = tool.schema.get("properties") {
            let accepted: Vec<String> = properties.keys().filter(|k| *k != "timeout_ms").cloned().collect();
            if let Some(unknown) = sb_protocol::fields::unknown(args.keys(), &accepted) {
                return Err(ErrorBody::new(
                    ErrorCode::BadRequest,
                    Phase::Request,
                    format!("{}: {unknown}", tool.name),
                ));
            }
        }
        // Playwright MCP's description of the element: for a person, not for finding it.
        if let Some(element) = args.remove(schema::ELEMENT) {
            if !element.is_string() {
                return Err(ErrorBody::new(
                    ErrorCode::BadRequest,
                    Phase::Request,
                    format!("{}: element must be a string (the element in words)", tool.name),
                ));
            }
        }
        let params = Value::Object(args);
        match tool.action {
            Action::Call(Method::PageScreenshot) => {
                let mut params = params;
                params["inline"] = true.into();
                let result = self.call(Method::PageScreenshot, params, budget_ms).await?;
                Ok(render::success(Some(Method::PageScreenshot), result))
            }
            Action::Call(method) | Action::CallWith(method, _) => {
                let mut params = params;
                if let Action::CallWith(_, fixed) = tool.action {
                    for (name, value) in fixed {
                        params[*name] = tools::fixed_value(value);
                    }
                }
                // The input tools settle as Playwright MCP's do (a short window in which a dialog or a
                // navigation counts as the action's).
                let input = matches!(
                    method,
                    Method::PageClick
                        | Method::PageType
                        | Method::PageFill
                        | Method::PagePress
                        | Method::PageSelect
                        | Method::PageCheck
                        | Method::PageDrag
                        | Method::PageMouse
                        | Method::PageKeyboard
                );
                if input {
                    params["settle_ms"] = sb_protocol::api::MCP_SETTLE_MS.into();
                }
                let result = self.call(method, params, budget_ms).await?;
                Ok(render::success(Some(method), result))
            }
            Action::Close => {
                let closed = self.session.lock().await.is_some();
                self.close_session().await;
                let text = if closed { "session closed" } else { "no session was open" };
                Ok(render::success(None, Value::String(text.into())))
            }
            Action::Tabs => {
                let mut args: TabsArgs = serde_json::from_value(params)
                    .map_err(|e| ErrorBody::new(ErrorCode::BadRequest, Phase::Request, e.to_string()))?;
                if let Some(index) = tab_index {
                    args.target_id = Some(self.tab_at(index, args.target_id.is_some(), budget_ms).await?);
                }
                let (method, params) = match args.action {
                    TabsAction::List => (Method::TabsList, Value::Null),
                    TabsAction::New => (Method::TabsOpen, serde_json::json!({"url": args.url})),
                    TabsAction::Select => {
                        (Method::TabsFocus, serde_json::json!({"target_id": args.target_id}))
                    }
                    // Without an index or a target_id: the current tab, as Playwright MCP closes it.
                    TabsAction::Close => {
                        let target_id = match args.target_id {
                            Some(id) => id,
                            None => self.active_tab(budget_ms).await?,
                        };
                        (Method::TabsClose, serde_json::json!({"target_id": target_id}))
                    }
                };
                // The socket API's method names are not this client's: the last tab is closed with
                // the session, which is `browser_close` here.
                let result = self.call(method, params, budget_ms).await.map_err(|mut e| {
                    e.message = e.message.replace("(session.close)", "(browser_close)");
                    e
                })?;
                Ok(render::success(Some(method), result))
            }
        }
    }
}

impl Shared {
    /// The target_id of the session's tab at `index` (0-based, in `tabs.list`'s order, as Playwright
    /// MCP's `browser_tabs {index}` counts them).
    ///
    /// # Errors
    /// `bad_request` when `index` is not a whole number, is past the last tab, or comes with a
    /// `target_id` (`with_id`); what `tabs.list` answers.
    async fn tab_at(&self, index: Value, with_id: bool, budget_ms: Option<u64>) -> Result<String, ErrorBody> {
        let refuse = |why: String| {
            ErrorBody::new(ErrorCode::BadRequest, Phase::Request, format!("browser_tabs: {why}"))
        };
        if with_id {
            return Err(refuse("takes index or target_id, not both".into()));
        }
        let index = index.as_u64().ok_or_else(|| refuse("index must be a whole number from 0".into()))?;
        let list = self.call(Method::TabsList, Value::Null, budget_ms).await?;
        let tabs = list["tabs"].as_array().map(Vec::as_slice).unwrap_or_default();
        let tab = usize::try_from(index).ok().and_then(|i| tabs.get(i));
        let id = tab.and_then(|t| t["target_id"].as_str());
        id.map(str::to_string).ok_or_else(|| {
            refuse(format!("no tab at index {index}: the session has {} (from 0)", tabs.len()))
        })
    }
}

impl Shared {
    /// The target_id of the session's active tab (`tabs.list`'s `active` one).
    ///
    /// # Errors
    /// What `tabs.list` answers; `bad_request` when no tab is active.
    async fn active_tab(&self, budget_ms: Option<u64>) -> Result<String, ErrorBody> {
        let list = self.call(Method::TabsList, Value::Null, budget_ms).await?;
        let tabs = list["tabs"].as_array().map(Vec::as_slice).unwrap_or_default();
        let active =
            tabs.iter().find(|t| t["active"] == Value::Bool(true)).and_then(|t| t["target_id"].as_str());
        active.map(str::to_string).ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::BadRequest,
                Phase::Request,
                "browser_tabs close: the session has no active tab",
            )
        })
    }
}

/// The runtime cannot be reached: the model must stop retrying.
fn unavailable(why: &str) -> ErrorBody {
    ErrorBody::new(ErrorCode::BrowserUnavailable, Phase::Session, format!("{why}. {DO_NOT_RETRY}"))
        .with_hint(RUNTIME_HINT)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(rmcp::model::Implementation::new("sandbox-browser", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self
            .shared
            .tools
            .iter()
            .map(|t| {
                let tool = Tool::new(t.name, t.description.clone(), Arc::new(t.schema.clone()));
                if t.read_only {
                    tool.annotate(ToolAnnotations::new().read_only(true))
                } else {
                    tool
                }
            })
            .collect();
        Ok(ListToolsResult { tools, ..Default::default() })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.shared.tools.iter().find(|t| t.name == request.name) else {
            return Err(ErrorData::invalid_params(unknown_tool(&request.name), None));
        };
        let args = request.arguments.unwrap_or_default();
        let result = tokio::select! {
            result = self.shared.run_tool(tool, args) => result,
            _ = context.ct.cancelled() => Err(ErrorBody::new(ErrorCode::Cancelled, Phase::Request, "cancelled by the client")),
        };
        Ok(match result {
            Ok(result) => result,
            Err(body) => render::error(&body),
        }
        .into())
    }
}
