//! The runtime: one browser, its sessions, and the request handler.
//!
//! [`Runtime::handle_line`] turns one request line into one response; it never panics on input. Each
//! session has its own queue (a fair async mutex around its worker), so a session's actions run in
//! order and sessions never wait on each other.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sb_cdp::types::CreateTargetResult;
use sb_cdp::CdpClient;
use sb_protocol::api::{
    CheckParams, ClickParams, DialogInfo, DragParams, ElementParams, EvaluateParams, EvaluateResult,
    ExtractParams, ExtractResult, FillParams, GotoParams, GotoResult, HandleDialogParams, HandleDialogResult,
    HealthResult, InputResult, Method, MetricsResult, PressParams, Request, RequestId, Response,
    ScreenshotParams, ScreenshotResult, ScrollParams, ScrollResult, SelectParams, SelectResult,
    SessionCloseResult, SessionInfo, SessionListResult, SessionStartParams, SessionStartResult,
    SnapshotParams, SnapshotResult, TabInfo, TabTargetParams, TabsCloseResult, TabsListResult,
    TabsOpenParams, TypeParams, WaitForParams, WaitForResult, DEFAULT_EXTRACT_MAX_CHARS,
    DEFAULT_SCREENSHOT_MAX_HEIGHT, DEFAULT_SNAPSHOT_MAX_CHARS,
};
use sb_protocol::ipc::{
    Action, Counter, InputAction, Locator, Output, RefRecord, SnapshotOptions, WaitCondition,
};
use sb_protocol::{Budget, ErrorBody, ErrorCode, Phase};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::browser::BrowserConfig;
use crate::recovery::{Cycle, HealthPolicy, Slot};
use crate::spawner::Spawner;
use crate::stats::Stats;
use crate::store::{SessionStore, StoreEvent, StoredSession};
use crate::worker::{WorkerHandle, WorkerLauncher};
use tokio_util::sync::CancellationToken;

/// Name of the browser provider in logs (`browser.provider`).
pub const PROVIDER: &str = "chromium";
/// Longest a session id may be.
const MAX_SESSION_ID: usize = 128;

/// What the runtime needs besides the browser.
#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    /// Where screenshots are written.
    pub artifacts_dir: PathBuf,
    /// The binary to run as `<exe> worker ...` (normally this very executable).
    pub worker_exe: PathBuf,
    /// `json` or `text`, passed on to workers.
    pub log_format: String,
    /// When false, `page.evaluate` answers `evaluate_disabled`.
    pub evaluate_enabled: bool,
    /// Per-method default budgets and the clamp of requested ones.
    pub timeouts: crate::config::Timeouts,
    /// Open sessions at once.
    pub max_sessions: usize,
    /// How to launch the browser.
    pub browser: BrowserConfig,
    /// Probes and the recovery cycle.
    pub health: HealthPolicy,
}

/// One harness session: a target and the worker that drives it.
pub struct SessionEntry {
    pub id: String,
    /// CDP `targetId` of the session's page (a page reset replaces it).
    target_id: Mutex<String>,
    /// The session's queue: held for the whole of an action.
    worker: tokio::sync::Mutex<Option<WorkerHandle>>,
    last_url: Mutex<Option<String>>,
    shots: AtomicU64,
    /// Every ref the session's snapshots issued, by id.
    refs: Mutex<HashMap<String, RefRecord>>,
    /// The number of the next ref (`e{n}`).
    next_ref: AtomicU64,
    /// Serializes snapshots' ref numbering.
    snapshotting: tokio::sync::Mutex<()>,
    /// Dialogs answered during the current action, for its result.
    dialogs: Mutex<Vec<DialogInfo>>,
    /// Why the session's page was replaced, until its next result reports it (`session_reset`).
    reset: Mutex<Option<String>>,
    /// The session's tabs in the order they were opened; the active one is `target_id`.
    tabs: Mutex<Vec<Tab>>,
    /// Tabs that left the session (closed): a target lingers in `Target.getTargets` for a moment after
    /// `Target.closeTarget`, and must not join again as a popup.
    gone_tabs: Mutex<std::collections::HashSet<String>>,
    /// Set when one of its tabs' targets was destroyed (`Target.targetDestroyed`): the tab list is
    /// brought up to date before the next action.
    pub(crate) tabs_dirty: AtomicBool,
}

/// One tab of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tab {
    pub(crate) target_id: String,
    /// The tab that opened it (a popup).
    pub(crate) opener_id: Option<String>,
}

impl SessionEntry {
    fn new(id: String, target_id: String, last_url: Option<String>) -> SessionEntry {
        SessionEntry {
            id,
            target_id: Mutex::new(target_id),
            worker: tokio::sync::Mutex::new(None),
            last_url: Mutex::new(last_url),
            shots: AtomicU64::new(0),
            refs: Mutex::new(HashMap::new()),
            next_ref: AtomicU64::new(1),
            snapshotting: tokio::sync::Mutex::new(()),
            dialogs: Mutex::new(Vec::new()),
            reset: Mutex::new(None),
            tabs: Mutex::new(Vec::new()),
            gone_tabs: Mutex::new(std::collections::HashSet::new()),
            tabs_dirty: AtomicBool::new(false),
        }
    }

    /// The session's page is a new target, its only tab (session start, rehydration).
    pub(crate) fn bind_fresh(&self, target_id: String) {
        *self.tabs.lock().unwrap() = if target_id.is_empty() {
            Vec::new()
        } else {
            vec![Tab { target_id: target_id.clone(), opener_id: None }]
        };
        self.set_target(target_id);
    }

    /// The tab `old` was replaced by `new` (a page reset).
    fn replace_tab(&self, old: &str, new: &str) {
        for t in self.tabs.lock().unwrap().iter_mut().filter(|t| t.target_id == old) {
            t.target_id = new.to_string();
        }
        self.set_target(new.to_string());
    }

    /// Whether `target_id` is one of the session's tabs.
    pub(crate) fn has_tab(&self, target_id: &str) -> bool {
        self.tabs.lock().unwrap().iter().any(|t| t.target_id == target_id)
    }

    /// The session's tabs, oldest first.
    pub(crate) fn tabs(&self) -> Vec<Tab> {
        self.tabs.lock().unwrap().clone()
    }

    /// A tab by its whole `target_id` or a unique prefix of it (case-insensitive).
    ///
    /// # Errors
    /// `tab_not_found` when none matches, `ambiguous_target` when several do.
    fn find_tab(&self, wanted: &str) -> Result<String, ErrorBody> {
        let tabs = self.tabs();
        if let Some(t) = tabs.iter().find(|t| t.target_id == wanted) {
            return Ok(t.target_id.clone());
        }
        let upper = wanted.to_ascii_uppercase();
        let matches: Vec<&Tab> =
            tabs.iter().filter(|t| t.target_id.to_ascii_uppercase().starts_with(&upper)).collect();
        match matches.as_slice() {
            [one] => Ok(one.target_id.clone()),
            [] => Err(ErrorBody::new(
                ErrorCode::TabNotFound,
                Phase::Session,
                format!("no tab of session '{}' has target_id '{wanted}'; tabs.list shows them", self.id),
            )),
            many => Err(ErrorBody::new(
                ErrorCode::AmbiguousTarget,
                Phase::Session,
                format!(
                    "'{wanted}' matches {} tabs ({}); give more of the target_id",
                    many.len(),
                    many.iter().map(|t| t.target_id.as_str()).collect::<Vec<_>>().join(", ")
                ),
            )),
        }
    }

    /// The session's current target (empty while it has none: a rehydration that failed).
    pub fn target(&self) -> String {
        self.target_id.lock().unwrap().clone()
    }

    pub(crate) fn set_target(&self, target_id: String) {
        *self.target_id.lock().unwrap() = target_id;
    }

    /// The main frame's last known URL.
    pub(crate) fn last_url(&self) -> Option<String> {
        self.last_url.lock().unwrap().clone()
    }

    /// Records the main frame's URL; whether it changed.
    fn set_url(&self, url: &str) -> bool {
        let mut last = self.last_url.lock().unwrap();
        if last.as_deref() == Some(url) {
            return false;
        }
        *last = Some(url.to_string());
        true
    }

    /// Notes that the session's page was replaced (a reason already pending is kept).
    pub(crate) fn mark_reset(&self, reason: &str) {
        self.reset.lock().unwrap().get_or_insert_with(|| reason.to_string());
    }

    /// A ref this session issued.
    ///
    /// # Errors
    /// `unknown_ref` for a ref no snapshot of this session issued.
    fn reference(&self, id: &str) -> Result<RefRecord, ErrorBody> {
        self.refs.lock().unwrap().get(id).cloned().ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::UnknownRef,
                Phase::Request,
                format!("Ref {id} was never issued in this session; take a new snapshot."),
            )
        })
    }

    /// Stores a snapshot's refs; refs are never reused, so the counter moves past them.
    fn keep_refs(&self, refs: Vec<RefRecord>) {
        let mut table = self.refs.lock().unwrap();
        for r in refs {
            if let Some(n) = r.id.strip_prefix('e').and_then(|n| n.parse::<u64>().ok()) {
                self.next_ref.fetch_max(n + 1, Ordering::SeqCst);
            }
            table.insert(r.id.clone(), r);
        }
    }

    /// The element an input names: a ref or a selector, exactly one (`optional`: neither is fine).
    fn locator(&self, e: ElementParams, optional: bool) -> Result<Option<Locator>, ErrorBody> {
        match (e.reference, e.selector) {
            (Some(r), None) => Ok(Some(Locator::Ref(self.reference(&r)?))),
            (None, Some(css)) => Ok(Some(Locator::Selector(css))),
            (None, None) if optional => Ok(None),
            _ => Err(bad_request("name the element with exactly one of ref or selector".into())),
        }
    }
}

/// Whether a scope string is a ref (`e12`) rather than a CSS selector.
fn looks_like_ref(s: &str) -> bool {
    s.strip_prefix('e').is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// Longest a background worker replacement may take to attach.
const WORKER_START: Duration = Duration::from_secs(10);

/// The browser, its sessions, and the request handler.
pub struct Runtime {
    pub(crate) config: RuntimeConfig,
    pub(crate) launcher: WorkerLauncher,
    /// The current browser (none before the first launch and while a cycle has failed).
    pub(crate) slot: tokio::sync::RwLock<Slot>,
    /// Serializes health checks and restarts.
    pub(crate) cycle: tokio::sync::Mutex<Cycle>,
    pub(crate) sessions: Mutex<HashMap<String, Arc<SessionEntry>>>,
    started: Instant,
    generated: AtomicU64,
    /// Counters for `runtime.stats` / `runtime.metrics`.
    pub(crate) stats: Stats,
    /// The session store; `None` when the runtime dir is not writable.
    store: Option<SessionStore>,
    /// Set by [`Runtime::shutdown`]: a closing browser connection is then no fault.
    pub(crate) closing: AtomicBool,
}

impl Runtime {
    /// A runtime without a browser yet ([`Runtime::start`] launches it, else the first request does).
    /// `restored` are the sessions the store kept from an earlier supervisor: they get new pages when
    /// the browser comes up, and `session_reset` (`supervisor_restarted`) on their next result.
    pub fn new(
        config: RuntimeConfig,
        spawner: Spawner,
        store: Option<SessionStore>,
        restored: Vec<StoredSession>,
    ) -> Runtime {
        let sessions = restored
            .into_iter()
            .map(|s| {
                let entry = SessionEntry::new(s.session_id.clone(), String::new(), s.url);
                entry.mark_reset("supervisor_restarted");
                (s.session_id, Arc::new(entry))
            })
            .collect();
        Runtime {
            launcher: WorkerLauncher {
                spawner,
                exe: config.worker_exe.clone(),
                log_format: config.log_format.clone(),
            },
            config,
            slot: tokio::sync::RwLock::new(Slot::default()),
            cycle: tokio::sync::Mutex::new(Cycle::default()),
            sessions: Mutex::new(sessions),
            started: Instant::now(),
            generated: AtomicU64::new(0),
            stats: Stats::default(),
            store,
            closing: AtomicBool::new(false),
        }
    }

    /// Appends to the session store (when there is one); durable before it returns.
    pub(crate) async fn record(&self, event: StoreEvent) {
        if let Some(store) = &self.store {
            store.append(event).await;
        }
    }

    /// Reads one request line and answers it. Bad input is answered with `bad_request`,
    /// `unknown_method` or `unknown_session`; nothing here panics on what a client sends.
    pub async fn handle_line(self: &Arc<Self>, line: &str, cancel: &CancellationToken) -> Response {
        let started = Instant::now();
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return Response::failure(None, bad_request(format!("request is not JSON: {e}"))),
        };
        let id: Option<RequestId> = value.get("id").cloned().and_then(|v| serde_json::from_value(v).ok());
        let request: Request = match serde_json::from_value(value) {
            Ok(r) => r,
            Err(e) => return Response::failure(id, bad_request(format!("bad request: {e}"))),
        };
        let id = Some(request.id.clone());
        let Some(method) = Method::parse(&request.method) else {
            let known: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
            return Response::failure(
                id,
                ErrorBody::new(
                    ErrorCode::UnknownMethod,
                    Phase::Request,
                    format!("unknown method '{}'; known: {}", request.method, known.join(", ")),
                ),
            );
        };
        let budget =
            Budget::new(Duration::from_millis(self.config.timeouts.budget_ms(method, request.timeout_ms)));
        let session_id = request.session_id.clone();
        let span_session = session_id.clone().unwrap_or_default();
        log_action("browser_action_started", method, &span_session, None, None);
        let result = self.execute(method, request, budget, cancel).await;
        let elapsed_ms = started.elapsed().as_millis() as u64;
        self.stats.record_action(method, result.as_ref().err().map(|e| e.code));
        if method == Method::PageEvaluate {
            self.stats.record_evaluate(started.elapsed().as_secs_f64() * 1000.0);
        }
        match result {
            Ok(value) => {
                log_action("browser_action_succeeded", method, &span_session, Some(elapsed_ms), None);
                Response::success(id, value, elapsed_ms)
            }
            Err(error) => {
                log_action("browser_action_failed", method, &span_session, Some(elapsed_ms), Some(&error));
                Response::failure(id, error)
            }
        }
    }

    /// [`Runtime::execute_method`], then the dialogs answered meanwhile go into the result, and a
    /// page replaced since the session's last result is reported: `session_reset: true` and
    /// `reset_reason` in a result, a sentence at the end of an error's message.
    async fn execute(
        self: &Arc<Self>,
        method: Method,
        request: Request,
        budget: Budget,
        cancel: &CancellationToken,
    ) -> Result<Value, ErrorBody> {
        let session_id = request.session_id.clone();
        let outcome = self.execute_method(method, request, budget, cancel).await;
        let session = session_id.and_then(|id| self.sessions.lock().unwrap().get(&id).cloned());
        let Some(session) = session.filter(|_| method.needs_session()) else { return outcome };
        let reset = if method == Method::SessionClose { None } else { session.reset.lock().unwrap().take() };
        match outcome {
            Ok(mut value) => {
                let dialogs = std::mem::take(&mut *session.dialogs.lock().unwrap());
                if !dialogs.is_empty() {
                    value["dialogs"] = to_json(dialogs)?;
                }
                if let Some(reason) = reset {
                    value["session_reset"] = true.into();
                    value["reset_reason"] = reason.into();
                }
                Ok(value)
            }
            Err(mut e) => {
                if let Some(reason) = reset {
                    e.message = format!(
                        "{} (the session's page changed before this action: {reason}; take a new snapshot)",
                        e.message
                    );
                }
                Err(e)
            }
        }
    }

    async fn execute_method(
        self: &Arc<Self>,
        method: Method,
        request: Request,
        budget: Budget,
        cancel: &CancellationToken,
    ) -> Result<Value, ErrorBody> {
        let session = if method.needs_session() {
            let id = request.session_id.as_deref().ok_or_else(|| {
                bad_request(format!("{} needs a session_id; start one with session.start", method.name()))
            })?;
            Some(self.session(id)?)
        } else {
            None
        };
        let params = request.params;
        match method {
            Method::RuntimeHealth => to_json(self.health(budget).await?),
            Method::RuntimeStats => to_json(self.stats.snapshot()),
            Method::RuntimeMetrics => to_json(MetricsResult {
                content_type: "text/plain; version=0.0.4".into(),
                text: crate::stats::prometheus(&self.stats.snapshot(), self.sessions.lock().unwrap().len()),
            }),
            Method::SessionList => to_json(self.list()),
            Method::SessionStart => {
                let mut p: SessionStartParams = parse_params(params)?;
                if p.session_id.is_none() {
                    p.session_id = request.session_id;
                }
                to_json(self.start_session(p.session_id, budget).await?)
            }
            Method::SessionClose => to_json(self.close_session(&session.unwrap(), budget).await),
            Method::PageGoto => {
                let p: GotoParams = parse_params(params)?;
                let session = session.unwrap();
                match self.run(&session, method, Action::Goto { url: p.url }, budget, cancel).await? {
                    Output::Goto { url, title, status, load_state, timed_out } => {
                        self.url_seen(&session, &url).await;
                        to_json(GotoResult { url, title, status, load_state, timed_out })
                    }
                    other => Err(unexpected(other)),
                }
            }
            Method::PageExtract => {
                let p: ExtractParams = parse_params(params)?;
                let max_chars = p.max_chars.unwrap_or(DEFAULT_EXTRACT_MAX_CHARS);
                let action = Action::Extract { format: p.format, max_chars };
                match self.run(&session.unwrap(), method, action, budget, cancel).await? {
                    Output::Extract { content, chars, truncated, url, title } => {
                        to_json(ExtractResult { format: p.format, content, chars, truncated, url, title })
                    }
                    other => Err(unexpected(other)),
                }
            }
            Method::PageScreenshot => {
                let p: ScreenshotParams = parse_params(params)?;
                let session = session.unwrap();
                let n = session.shots.fetch_add(1, Ordering::Relaxed) + 1;
                let millis = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis())
                    .unwrap_or(0);
                let path = self.config.artifacts_dir.join(format!(
                    "{}-{millis}-{n}.{}",
                    session.id,
                    p.format.as_str()
                ));
                let action = Action::Screenshot {
                    full_page: p.full_page,
                    format: p.format,
                    quality: p.quality,
                    inline: p.inline,
                    max_height: p.max_height.unwrap_or(DEFAULT_SCREENSHOT_MAX_HEIGHT),
                    path: path.to_string_lossy().into_owned(),
                };
                match self.run(&session, method, action, budget, cancel).await? {
                    Output::Screenshot { path, width, height, bytes, truncated, data } => {
                        to_json(ScreenshotResult {
                            path,
                            format: p.format,
                            width,
                            height,
                            bytes,
                            truncated,
                            data,
                        })
                    }
                    other => Err(unexpected(other)),
                }
            }
            Method::PageWaitFor => {
                let condition = wait_condition(parse_params(params)?)?;
                if matches!(condition, WaitCondition::Function(_)) {
                    self.evaluate_allowed(Phase::Wait)?;
                }
                let action = Action::WaitFor { condition };
                match self.run(&session.unwrap(), method, action, budget, cancel).await? {
                    Output::WaitFor { matched, url } => to_json(WaitForResult { matched, url }),
                    other => Err(unexpected(other)),
                }
            }
            Method::PageSnapshot => {
                let p: SnapshotParams = parse_params(params)?;
                let session = session.unwrap();
                let scope = match p.scope.as_deref() {
                    None => None,
                    Some(s) if looks_like_ref(s) => Some(Locator::Ref(session.reference(s)?)),
                    Some(css) => Some(Locator::Selector(css.to_string())),
                };
                let options = SnapshotOptions {
                    interactive: p.interactive,
                    compact: p.compact,
                    max_depth: p.max_depth,
                    scope,
                    max_chars: p.max_chars.unwrap_or(DEFAULT_SNAPSHOT_MAX_CHARS),
                };
                // Held from reading the counter to storing the refs: two snapshots never share numbers.
                let _numbering = session.snapshotting.lock().await;
                let next_ref = session.next_ref.load(Ordering::SeqCst);
                match self
                    .run(&session, method, Action::Snapshot { options, next_ref }, budget, cancel)
                    .await?
                {
                    Output::Snapshot { text, lines, chars, truncated, refs, url, title } => {
                        let count = refs.len() as u64;
                        session.keep_refs(refs);
                        to_json(SnapshotResult {
                            snapshot: text,
                            lines,
                            chars,
                            refs: count,
                            truncated,
                            url,
                            title,
                        })
                    }
                    other => Err(unexpected(other)),
                }
            }
            Method::PageClick
            | Method::PageType
            | Method::PageFill
            | Method::PagePress
            | Method::PageHover
            | Method::PageCheck => {
                let session = session.unwrap();
                let (element, input) = match method {
                    Method::PageClick => {
                        let p: ClickParams = parse_params(params)?;
                        let input = InputAction::Click {
                            button: p.button.unwrap_or_else(|| "left".into()),
                            click_count: p.click_count.unwrap_or(1),
                            modifiers: p.modifiers,
                        };
                        (p.element, input)
                    }
                    Method::PageType => {
                        let p: TypeParams = parse_params(params)?;
                        (p.element, InputAction::Type { text: p.text, clear: p.clear, submit: p.submit })
                    }
                    Method::PageFill => {
                        let p: FillParams = parse_params(params)?;
                        (p.element, InputAction::Fill { value: p.value })
                    }
                    Method::PagePress => {
                        let p: PressParams = parse_params(params)?;
                        (p.element, InputAction::Press { key: p.key })
                    }
                    Method::PageCheck => {
                        let p: CheckParams = parse_params(params)?;
                        (p.element, InputAction::Check { checked: p.checked.unwrap_or(true) })
                    }
                    _ => {
                        let p: ElementParams = parse_params(params)?;
                        (p, InputAction::Hover)
                    }
                };
                let target = session.locator(element, method == Method::PagePress)?;
                match self.run(&session, method, Action::Input { target, input }, budget, cancel).await? {
                    Output::Input { element } => to_json(InputResult { element }),
                    other => Err(unexpected(other)),
                }
            }
            Method::PageHandleDialog => {
                let p: HandleDialogParams = parse_params(params)?;
                let accept = p.accept;
                let action = Action::HandleDialog { accept: p.accept, prompt_text: p.prompt_text };
                match self.run(&session.unwrap(), method, action, budget, cancel).await? {
                    Output::DialogPolicy => to_json(HandleDialogResult {
                        next_dialog: if accept { "accept" } else { "dismiss" }.into(),
                    }),
                    other => Err(unexpected(other)),
                }
            }
            Method::PageEvaluate => {
                self.evaluate_allowed(Phase::Evaluate)?;
                let p: EvaluateParams = parse_params(params)?;
                let session = session.unwrap();
                let action = match (p.expression, p.function) {
                    (Some(expression), None) if p.element == ElementParams::default() => {
                        Action::Evaluate { expression }
                    }
                    (None, Some(function)) => {
                        Action::CallFunction { function, target: session.locator(p.element, true)? }
                    }
                    _ => {
                        return Err(bad_request(
                            "page.evaluate takes an expression, or a function (with ref or selector for its element)"
                                .into(),
                        ))
                    }
                };
                match self.run(&session, method, action, budget, cancel).await? {
                    Output::Evaluate { kind, value_json, unserializable, description } => {
                        let value = value_json.and_then(|v| serde_json::from_str(&v).ok());
                        to_json(EvaluateResult { kind, value, unserializable, description })
                    }
                    other => Err(unexpected(other)),
                }
            }
            Method::PageSelect => {
                let p: SelectParams = parse_params(params)?;
                let session = session.unwrap();
                if p.values.is_empty() && p.labels.is_empty() && p.indexes.is_empty() {
                    return Err(bad_request("page.select needs values, labels or indexes".into()));
                }
                let target = session.locator(p.element, false)?;
                let input = InputAction::Select { values: p.values, labels: p.labels, indexes: p.indexes };
                match self.run(&session, method, Action::Input { target, input }, budget, cancel).await? {
                    Output::Selected { element, values } => to_json(SelectResult { element, values }),
                    other => Err(unexpected(other)),
                }
            }
            Method::PageDrag => {
                let p: DragParams = parse_params(params)?;
                let session = session.unwrap();
                let target = session.locator(p.from, false)?;
                let to = session.locator(p.to, false)?.expect("a required locator");
                match self
                    .run(
                        &session,
                        method,
                        Action::Input { target, input: InputAction::DragTo { to } },
                        budget,
                        cancel,
                    )
                    .await?
                {
                    Output::Input { element } => to_json(InputResult { element }),
                    other => Err(unexpected(other)),
                }
            }
            Method::TabsList => {
                let session = session.unwrap();
                let link = self.browser(budget).await?;
                let infos = self.current_tabs(&session, &link, budget).await?;
                to_json(TabsListResult { tabs: tab_infos(&session, &infos) })
            }
            Method::TabsOpen => {
                let p: TabsOpenParams = parse_params(params)?;
                let session = session.unwrap();
                let link = self.browser(budget).await?;
                let url = p.url.unwrap_or_else(|| "about:blank".into());
                let created: CreateTargetResult = link
                    .client
                    .call(
                        "Target.createTarget",
                        None,
                        json!({"url": url, "newWindow": true}),
                        budget.remaining(),
                    )
                    .await
                    .map_err(|e| cdp_error(Phase::Session, "Target.createTarget", e))?;
                session
                    .tabs
                    .lock()
                    .unwrap()
                    .push(Tab { target_id: created.target_id.clone(), opener_id: None });
                to_json(self.focus_tab(&session, created.target_id, method, budget, cancel).await?)
            }
            Method::TabsFocus => {
                let p: TabTargetParams = parse_params(params)?;
                let session = session.unwrap();
                let link = self.browser(budget).await?;
                self.current_tabs(&session, &link, budget).await?;
                let target_id = session.find_tab(&p.target_id)?;
                to_json(self.focus_tab(&session, target_id, method, budget, cancel).await?)
            }
            Method::TabsClose => {
                let p: TabTargetParams = parse_params(params)?;
                let session = session.unwrap();
                let link = self.browser(budget).await?;
                self.current_tabs(&session, &link, budget).await?;
                let target_id = session.find_tab(&p.target_id)?;
                let tabs = session.tabs();
                if tabs.len() == 1 {
                    return Err(bad_request(format!(
                        "{target_id} is the session's last tab; close the session instead (session.close)"
                    )));
                }
                close_target(&link.client, &target_id).await;
                session.tabs.lock().unwrap().retain(|t| t.target_id != target_id);
                session.gone_tabs.lock().unwrap().insert(target_id.clone());
                let mut active = session.target();
                if active == target_id {
                    let next = session.tabs().last().map(|t| t.target_id.clone()).unwrap_or_default();
                    active = self.focus_tab(&session, next, method, budget, cancel).await?.target_id;
                }
                to_json(TabsCloseResult { closed: target_id, active })
            }
            Method::PageScroll => {
                let p: ScrollParams = parse_params(params)?;
                let session = session.unwrap();
                let target = session.locator(p.element, true)?;
                let action = match (target, p.dx, p.dy) {
                    (Some(target), None, None) => {
                        Action::Input { target: Some(target), input: InputAction::ScrollIntoView }
                    }
                    (None, dx, dy) if dx.is_some() || dy.is_some() => {
                        Action::Scroll { dx: dx.unwrap_or(0.0), dy: dy.unwrap_or(0.0) }
                    }
                    _ => return Err(bad_request("page.scroll takes ref or selector, or dx and dy".into())),
                };
                match self.run(&session, method, action, budget, cancel).await? {
                    Output::Input { element } => to_json(InputResult { element }),
                    Output::Scrolled { x, y } => to_json(ScrollResult { scroll_x: x, scroll_y: y }),
                    other => Err(unexpected(other)),
                }
            }
        }
    }

    /// `evaluate_disabled` when the configuration turned in-page JavaScript off (`page.evaluate`,
    /// `page.wait_for {function}`).
    fn evaluate_allowed(&self, phase: Phase) -> Result<(), ErrorBody> {
        if self.config.evaluate_enabled {
            return Ok(());
        }
        Err(ErrorBody::new(
            ErrorCode::EvaluateDisabled,
            phase,
            "in-page JavaScript is turned off in this runtime (evaluate_enabled = false)",
        ))
    }

    fn session(&self, id: &str) -> Result<Arc<SessionEntry>, ErrorBody> {
        self.sessions.lock().unwrap().get(id).cloned().ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::UnknownSession,
                Phase::Session,
                format!("no open session '{id}'; start one with session.start"),
            )
        })
    }

    /// Makes `target_id` (one of the session's tabs) the one its page actions go to.
    async fn focus_tab(
        self: &Arc<Self>,
        session: &Arc<SessionEntry>,
        target_id: String,
        method: Method,
        budget: Budget,
        cancel: &CancellationToken,
    ) -> Result<TabInfo, ErrorBody> {
        let opener_id =
            session.tabs().into_iter().find(|t| t.target_id == target_id).and_then(|t| t.opener_id);
        let action = Action::Attach { target_id: target_id.clone() };
        match self.run(session, method, action, budget, cancel).await? {
            Output::Attached { url, title } => {
                self.url_seen(session, &url).await;
                Ok(TabInfo { target_id, url, title, active: true, opener_id })
            }
            other => Err(unexpected(other)),
        }
    }

    /// [`Runtime::refresh_tabs`], then, when the active tab is gone (a page that closed itself with
    /// `window.close()`), the newest remaining tab becomes the active one (none left: a new one at the
    /// last URL, opened by the next action); the session's next result says so (`session_reset`,
    /// `reset_reason: "active_tab_closed"`).
    async fn current_tabs(
        &self,
        session: &SessionEntry,
        link: &crate::recovery::Link,
        budget: Budget,
    ) -> Result<HashMap<String, (String, String)>, ErrorBody> {
        let infos = self.refresh_tabs(session, link, budget).await?;
        let active = session.target();
        if !active.is_empty() && !session.has_tab(&active) {
            let next = session.tabs().last().map(|t| t.target_id.clone()).unwrap_or_default();
            tracing::info!(browser.session_id = %session.id, closed = %active, active = %next, "active_tab_closed");
            session.set_target(next);
            session.mark_reset("active_tab_closed");
        }
        Ok(infos)
    }

    /// Brings the session's tab list up to date with the browser (`Target.getTargets`): popups
    /// opened by any of its tabs (`window.open`, `target=_blank`) join it, closed tabs leave it.
    /// Returns `(url, title)` of every page target by id.
    async fn refresh_tabs(
        &self,
        session: &SessionEntry,
        link: &crate::recovery::Link,
        budget: Budget,
    ) -> Result<HashMap<String, (String, String)>, ErrorBody> {
        let targets = link
            .client
            .call_raw("Target.getTargets", None, json!({}), budget.remaining())
            .await
            .map_err(|e| cdp_error(Phase::Session, "Target.getTargets", e))?;
        let pages: Vec<&Value> = targets["targetInfos"]
            .as_array()
            .map(|t| t.iter().filter(|t| t["type"] == "page").collect())
            .unwrap_or_default();
        let mut tabs = session.tabs.lock().unwrap();
        let mut gone = session.gone_tabs.lock().unwrap();
        tabs.retain(|t| {
            let open = pages.iter().any(|p| p["targetId"] == t.target_id.as_str());
            if !open {
                gone.insert(t.target_id.clone());
            }
            open
        });
        // Popups of popups too: repeat until nothing joins.
        loop {
            let joining: Vec<Tab> = pages
                .iter()
                .filter(|p| !tabs.iter().any(|t| p["targetId"] == t.target_id.as_str()))
                .filter(|p| !gone.contains(p["targetId"].as_str().unwrap_or_default()))
                .filter_map(|p| {
                    let opener = p["openerId"].as_str()?;
                    tabs.iter().any(|t| t.target_id == opener).then(|| Tab {
                        target_id: p["targetId"].as_str().unwrap_or_default().to_string(),
                        opener_id: Some(opener.to_string()),
                    })
                })
                .collect();
            if joining.is_empty() {
                break;
            }
            tabs.extend(joining);
        }
        Ok(pages
            .iter()
            .filter_map(|p| {
                let id = p["targetId"].as_str()?.to_string();
                let url = p["url"].as_str().unwrap_or_default().to_string();
                Some((id, (url, p["title"].as_str().unwrap_or_default().to_string())))
            })
            .collect())
    }

    /// Records the session's main frame URL (in the store when it changed).
    async fn url_seen(&self, session: &SessionEntry, url: &str) {
        if session.set_url(url) {
            self.record(StoreEvent::UrlChanged { session_id: session.id.clone(), url: url.to_string() })
                .await;
        }
    }

    /// `runtime.health`: the health check (probes unless fresh), then what the browser is.
    async fn health(self: &Arc<Self>, budget: Budget) -> Result<HealthResult, ErrorBody> {
        self.browser(budget).await?;
        let slot = self.slot.read().await;
        let b = slot.browser.as_ref().ok_or_else(|| {
            ErrorBody::new(ErrorCode::Timeout, Phase::Launch, "the browser is being restarted; retry")
        })?;
        Ok(HealthResult {
            browser_version: b.version.product.clone(),
            browser_pid: b.process.pid(),
            cdp_port: b.port,
            uptime_ms: self.started.elapsed().as_millis() as u64,
            sessions: self.sessions.lock().unwrap().len(),
            restarts: self.stats.restarts.get(),
            last_probe_ms: slot.last_ok.map(|t| t.elapsed().as_millis() as u64).unwrap_or(0),
        })
    }

    fn list(&self) -> SessionListResult {
        let mut sessions: Vec<SessionInfo> = self
            .sessions
            .lock()
            .unwrap()
            .values()
            .map(|s| SessionInfo {
                session_id: s.id.clone(),
                target_id: s.target(),
                url: s.last_url.lock().unwrap().clone(),
            })
            .collect();
        sessions.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        SessionListResult { sessions }
    }

    async fn start_session(
        self: &Arc<Self>,
        requested: Option<String>,
        budget: Budget,
    ) -> Result<SessionStartResult, ErrorBody> {
        let id = match requested {
            Some(id) => {
                validate_session_id(&id)?;
                id
            }
            None => format!("s{}-{}", self.generated.fetch_add(1, Ordering::Relaxed) + 1, short_random()),
        };
        let open = self.sessions.lock().unwrap().len();
        if open >= self.config.max_sessions {
            return Err(ErrorBody::new(
                ErrorCode::TooManySessions,
                Phase::Session,
                format!("{open} sessions are open, the limit; close one with session.close first"),
            ));
        }
        if self.sessions.lock().unwrap().contains_key(&id) {
            return Err(ErrorBody::new(
                ErrorCode::SessionExists,
                Phase::Session,
                format!("session '{id}' is already open; close it or use another id"),
            ));
        }
        let link = self.browser(budget).await?;
        // A window of its own keeps every session's page visible: a background tab gets no animation
        // frames, and actionability waits on them.
        let entry = Arc::new(SessionEntry::new(id.clone(), String::new(), None));
        let target_id = self.new_target(&entry, &link, budget).await?;
        let worker = match WorkerHandle::spawn(&self.launcher, &link.ws_url, &target_id, budget).await {
            Ok(w) => w,
            Err(e) => {
                close_target(&link.client, &target_id).await;
                return Err(e);
            }
        };
        *entry.worker.try_lock().expect("a new session's queue is free") = Some(worker);
        let raced = {
            let mut sessions = self.sessions.lock().unwrap();
            let raced = sessions.contains_key(&id);
            if !raced {
                sessions.insert(id.clone(), entry);
            }
            raced
        };
        if raced {
            close_target(&link.client, &target_id).await;
            return Err(ErrorBody::new(
                ErrorCode::SessionExists,
                Phase::Session,
                format!("session '{id}' is already open"),
            ));
        }
        self.record(StoreEvent::SessionStarted { session_id: id.clone(), at_ms: crate::store::now_ms() })
            .await;
        self.record(StoreEvent::TargetBound { session_id: id.clone(), target_id: target_id.clone() }).await;
        Ok(SessionStartResult { session_id: id, target_id })
    }

    async fn close_session(&self, session: &Arc<SessionEntry>, budget: Budget) -> SessionCloseResult {
        self.sessions.lock().unwrap().remove(&session.id);
        let worker = tokio::time::timeout(budget.remaining(), session.worker.lock()).await;
        if let Ok(mut slot) = worker {
            if let Some(w) = slot.take() {
                w.shutdown(budget.capped(Duration::from_millis(500))).await;
            }
        }
        if let Some(link) = self.current_link().await {
            // The active target is one of the tabs (none when a rehydration failed: then it is empty).
            for tab in session.tabs() {
                close_target(&link.client, &tab.target_id).await;
            }
        }
        self.record(StoreEvent::SessionClosed { session_id: session.id.clone() }).await;
        SessionCloseResult { session_id: session.id.clone(), closed: true }
    }

    /// Runs one action on the session's worker, in the session's queue, after the health check; starts
    /// a fresh worker on the session's target first when the last one was killed or died, or belongs
    /// to a browser that has been replaced.
    async fn run(
        self: &Arc<Self>,
        session: &Arc<SessionEntry>,
        method: Method,
        action: Action,
        budget: Budget,
        cancel: &CancellationToken,
    ) -> Result<Output, ErrorBody> {
        let queued = tokio::time::timeout(budget.remaining(), session.worker.lock()).await;
        let mut slot = queued.map_err(|_| {
            ErrorBody::new(
                ErrorCode::Timeout,
                Phase::Worker,
                format!("{} waited its whole budget behind the session's earlier actions", method.name()),
            )
        })?;
        let link = self.browser(budget).await?;
        if session.tabs_dirty.swap(false, Ordering::SeqCst) {
            self.current_tabs(session, &link, budget).await?;
        }
        if session.target().is_empty() {
            self.open_target(session, &link, budget).await?;
        }
        // A worker on another tab than the session's active one (that tab closed) is replaced too.
        if slot
            .as_mut()
            .is_none_or(|w| w.is_spent() || w.ws_url() != link.ws_url || w.target_id() != session.target())
        {
            *slot = None;
            let fresh = WorkerHandle::spawn(&self.launcher, &link.ws_url, &session.target(), budget).await?;
            tracing::info!(browser.session_id = %session.id, worker.pid = fresh.pid(), "worker_replaced");
            *slot = Some(fresh);
        }
        let worker = slot.as_mut().expect("worker present");
        let attaching = matches!(action, Action::Attach { .. });
        let result = worker.run(method.name(), action, budget, cancel).await;
        session.dialogs.lock().unwrap().extend(worker.take_dialogs());
        for counter in worker.take_tallies() {
            match counter {
                Counter::TerminateExecution => self.stats.terminate_executions.inc(),
                Counter::RendererCrash => self.stats.renderer_crashes.inc(),
            }
        }
        if worker.overran() {
            self.stats.worker_kills.inc();
        }
        if worker.target_id() != session.target() {
            let target_id = worker.target_id().to_string();
            if attaching {
                session.set_target(target_id.clone());
            } else {
                session.replace_tab(&session.target(), &target_id);
                self.stats.page_resets.inc();
            }
            self.record(StoreEvent::TargetBound { session_id: session.id.clone(), target_id }).await;
        }
        if let Some(url) = worker.take_navigated() {
            self.url_seen(session, &url).await;
        }
        if let Err(e) = &result {
            if matches!(e.code, ErrorCode::Timeout | ErrorCode::WorkerCrashed | ErrorCode::CdpError) {
                self.mark_suspect().await;
            }
        }
        if worker.is_spent() {
            *slot = None;
            drop(slot);
            self.replace_worker_soon(session.clone()).await;
        }
        result
    }

    /// Starts a fresh worker for `session` in the background (the answer that reported the old one's
    /// end is not held up); the session's next action waits for it in the queue.
    async fn replace_worker_soon(&self, session: Arc<SessionEntry>) {
        let Some(link) = self.current_link().await else { return };
        let ws_url = link.ws_url;
        let launcher = self.launcher.clone();
        tokio::spawn(async move {
            let mut slot = session.worker.lock().await;
            if slot.is_some() {
                return;
            }
            match WorkerHandle::spawn(&launcher, &ws_url, &session.target(), Budget::new(WORKER_START)).await
            {
                Ok(fresh) => {
                    tracing::info!(browser.session_id = %session.id, worker.pid = fresh.pid(), "worker_replaced");
                    *slot = Some(fresh);
                }
                Err(e) => {
                    tracing::warn!(browser.session_id = %session.id, error.message = %e.message, "worker_replace_failed")
                }
            }
        });
    }

    /// Closes every session's worker and target and stops the browser. The store keeps the sessions:
    /// a supervisor started on the same runtime dir reopens them.
    pub async fn shutdown(&self) {
        self.closing.store(true, Ordering::SeqCst);
        let sessions: Vec<Arc<SessionEntry>> =
            self.sessions.lock().unwrap().drain().map(|(_, s)| s).collect();
        for s in &sessions {
            // A session busy in an action is not waited for: its worker is killed.
            let worker = match s.worker.try_lock() {
                Ok(mut slot) => slot.take(),
                Err(_) => None,
            };
            if let Some(w) = worker {
                w.shutdown(Duration::from_millis(500)).await;
            }
        }
        let mut slot = self.slot.write().await;
        if let Some(browser) = slot.browser.as_mut() {
            for s in &sessions {
                close_target(&browser.client, &s.target()).await;
            }
            browser.stop().await;
        }
        slot.browser = None;
        drop(sessions);
    }
}

fn log_action(
    event: &str,
    method: Method,
    session_id: &str,
    duration_ms: Option<u64>,
    error: Option<&ErrorBody>,
) {
    let session_id = (!session_id.is_empty()).then_some(session_id);
    match (duration_ms, error) {
        (Some(ms), Some(e)) => tracing::warn!(
            browser.provider = PROVIDER,
            browser.action = method.name(),
            browser.session_id = session_id,
            duration_ms = ms,
            error.code = e.code.as_str(),
            error.phase = e.phase.as_str(),
            error.message = %e.message,
            "{event}"
        ),
        (Some(ms), None) => tracing::info!(
            browser.provider = PROVIDER,
            browser.action = method.name(),
            browser.session_id = session_id,
            duration_ms = ms,
            "{event}"
        ),
        _ => tracing::info!(
            browser.provider = PROVIDER,
            browser.action = method.name(),
            browser.session_id = session_id,
            "{event}"
        ),
    }
}

async fn close_target(client: &CdpClient, target_id: &str) {
    let _ = client
        .call_raw("Target.closeTarget", None, json!({"targetId": target_id}), Duration::from_millis(1_000))
        .await;
}

/// The session's tabs as the API shows them.
fn tab_infos(session: &SessionEntry, infos: &HashMap<String, (String, String)>) -> Vec<TabInfo> {
    let active = session.target();
    session
        .tabs()
        .into_iter()
        .map(|t| {
            let (url, title) = infos.get(&t.target_id).cloned().unwrap_or_default();
            TabInfo {
                active: t.target_id == active,
                target_id: t.target_id,
                url,
                title,
                opener_id: t.opener_id,
            }
        })
        .collect()
}

fn cdp_error(phase: Phase, method: &str, e: sb_cdp::CdpError) -> ErrorBody {
    let code = if e.is_timeout() { ErrorCode::Timeout } else { ErrorCode::CdpError };
    ErrorBody::new(code, phase, format!("{method}: {e}"))
}

/// The one condition of `page.wait_for`.
fn wait_condition(p: WaitForParams) -> Result<WaitCondition, ErrorBody> {
    let state = p.state.clone();
    let mut found: Vec<WaitCondition> = Vec::new();
    if let Some(selector) = p.selector {
        found.push(WaitCondition::Selector { selector, state: state.unwrap_or_else(|| "visible".into()) });
    } else if state.is_some() {
        return Err(bad_request("state goes with selector".into()));
    }
    found.extend(p.text.map(WaitCondition::Text));
    found.extend(p.text_gone.map(WaitCondition::TextGone));
    found.extend(p.url.map(WaitCondition::Url));
    found.extend(p.load_state.map(WaitCondition::LoadState));
    found.extend(p.function.map(WaitCondition::Function));
    found.extend(p.time_ms.map(WaitCondition::Time));
    match found.len() {
        1 => Ok(found.remove(0)),
        n => Err(bad_request(format!(
            "page.wait_for takes exactly one of selector, text, text_gone, url, load_state, function, time_ms (got {n})"
        ))),
    }
}

fn validate_session_id(id: &str) -> Result<(), ErrorBody> {
    let ok = !id.is_empty()
        && id.len() <= MAX_SESSION_ID
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(bad_request(format!("session_id must be 1..={MAX_SESSION_ID} chars of A-Z a-z 0-9 . _ -")))
    }
}

fn short_random() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_string()
}

fn bad_request(message: String) -> ErrorBody {
    ErrorBody::new(ErrorCode::BadRequest, Phase::Request, message)
}

/// Decodes `params`; absent params are `{}`, so a missing required field is named in the error.
fn parse_params<T: DeserializeOwned>(params: Value) -> Result<T, ErrorBody> {
    let params = if params.is_null() { json!({}) } else { params };
    serde_json::from_value(params).map_err(|e| bad_request(format!("bad params: {e}")))
}

fn to_json<T: serde::Serialize>(value: T) -> Result<Value, ErrorBody> {
    serde_json::to_value(value)
        .map_err(|e| ErrorBody::new(ErrorCode::Internal, Phase::Request, e.to_string()))
}

fn unexpected(output: Output) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::Internal,
        Phase::Worker,
        format!("worker answered with the wrong result kind: {output:?}"),
    )
}
