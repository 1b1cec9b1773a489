//! The runtime: the request handler over one browser and its sessions.
//!
//! [`Runtime::handle_line`] turns one request line into one response; it never panics on input. It
//! parses the request, makes `timeout_ms` one [`Budget`], and routes the method ([`dispatch::route`]):
//! a page method's params become an action ([`dispatch::PageMethod::prepare`]), which runs in the
//! session's queue ([`Queue::run`]), and its output becomes the result
//! ([`dispatch::PageMethod::finish`]); `runtime.*`, `session.*` and `tabs.*` are answered here and in
//! [`crate::tabs`].
//!
//! Arrows: runtime -> dispatch, tabs -> queue -> sessions -> health -> browser.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::storage_state;
use sb_protocol::api::WaitForResult;
use sb_protocol::api::{
    CommonResult, DownloadsResult, HealthResult, Method, MetricsResult, Request, RequestId, Response,
    SessionCloseResult, SessionListResult, SessionStartParams, SessionStartResult,
};
use sb_protocol::api::{
    StorageAction, StorageKind, StorageStateAction, StorageStateParams, StorageStateResult,
};
use sb_protocol::error::bad_request;
use sb_protocol::ipc::{Action, Display, Output, RefRecord, WaitCondition};
use sb_protocol::{Budget, ErrorBody, ErrorCode, Phase};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::browser::BrowserConfig;
use crate::call::Call;
use crate::dispatch::{self, Context, OnSession, Route, RuntimeOp, SessionOp};
use crate::files::Kind;
use crate::guard::{GateSaid, Guard};
use crate::health::{BrowserHealth, BrowserObserver, HealthPolicy, PROVIDER};
use crate::queue::Queue;
use crate::sessions::{close_target, SessionEntry, Sessions};
use crate::spawner::Spawner;
use crate::stats::Stats;
use crate::store::{SessionStore, StoreEvent, StoredSession};
use crate::worker::{WorkerHandle, WorkerLauncher};

/// What `session.close` keeps of its budget for what follows the browser's part: the session's
/// directory removed and the store's record fsynced (a loaded disk takes tens of ms), so that a close
/// whose browser is frozen still answers by its deadline.
const CLOSE_RESERVE: Duration = Duration::from_millis(50);

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
    /// Sessions belong to their token (`[limits] session_tokens`).
    pub session_tokens: bool,
    /// Sessions' logins are kept on disk and put back after a restart (`[limits] keep_logins`).
    pub keep_logins: bool,
    /// How to launch the browser.
    pub browser: BrowserConfig,
    /// Probes and the recovery cycle.
    pub health: HealthPolicy,
    /// Which URLs load: checked for `page.goto` and `tabs.open`, and on every connection of every
    /// page (the connection gate).
    pub policy: crate::policy::Policy,
    /// Where pages' downloads go, how large they may be, whether they outlive their session.
    pub downloads: crate::downloads::DownloadsConfig,
    /// How long screenshots are kept and how much they may hold.
    pub retention: crate::artifacts::Retention,
    /// Where `page.upload` takes files from (`[files] uploads_dir`); `None`: uploads are off.
    pub uploads_dir: Option<PathBuf>,
    /// Whether the live view is on (`[view] listen`): every session's actions are recorded for it.
    pub view: bool,
    /// `[trace]`: traces of sessions' actions.
    pub trace: crate::trace::TraceConfig,
}

/// The browser, its sessions, and the request handler.
pub struct Runtime {
    config: RuntimeConfig,
    queue: Queue,
    started: Instant,
    /// The URL policy on every request (`page.goto`'s own check shares its resolved names).
    guard: Arc<Guard>,
    /// Told of each new browser by the health (which holds it weakly).
    _observer: Arc<dyn BrowserObserver>,
    /// What sessions did, for the live view and traces.
    activity: Arc<crate::activity::Activity>,
    /// The sessions' traces.
    tracer: Arc<crate::trace::Tracer>,
}

/// How long a `page.goto` that met `net::ERR_ABORTED` waits for the news of the download it became
/// ([`Runtime::said_a_download`]), and an input whose navigation became a download for its news.
const DOWNLOAD_NEWS: Duration = Duration::from_millis(1_000);

/// The idle sessions' check runs at least this often ([`Runtime::expire_idle_sessions`]): 60 s.
const EXPIRY_TICK_MAX: Duration = Duration::from_secs(60);
/// ... and at most this often: 100 ms.
const EXPIRY_TICK_MIN: Duration = Duration::from_millis(100);
/// What closing an expired session may take (its tabs, its context): 10 s.
const EXPIRY_CLOSE: Duration = Duration::from_secs(10);

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
        let stats = Arc::new(Stats::default());
        // Each session's login is kept beside the session store, in the runtime dir.
        let kept_dir = store.as_ref().filter(|_| config.keep_logins).and_then(|s| s.path().parent());
        let kept = kept_dir.and_then(|dir| {
            crate::kept::Kept::open(dir)
                .map_err(|e| tracing::warn!(error.message = %e, "kept_state_unavailable"))
                .ok()
                .map(Arc::new)
        });
        let guard =
            Arc::new(Guard::new(config.policy.clone(), config.evaluate_enabled, &config.browser.extra_flags));
        // Every connection of the browser goes through the connection gate, which holds the URL
        // policy. A gate that cannot start leaves the browser pointed at a closed port: nothing loads,
        // nothing leaks.
        let mut browser = config.browser.clone();
        let gate = match crate::proxy::Proxy::start(guard.clone()) {
            Ok(proxy) => proxy.flags(),
            Err(e) => {
                tracing::error!(error.message = %e, "connection_gate_unavailable");
                crate::proxy::proxy_flags(1)
            }
        };
        browser.extra_flags.splice(0..0, gate);
        let health = Arc::new(BrowserHealth::new(browser, config.health, spawner.clone(), stats.clone()));
        let downloads = crate::downloads::Downloads::new(config.downloads.clone(), &config.artifacts_dir);
        let sessions = Arc::new(
            Sessions::new(config.max_sessions, store, restored, stats.clone(), downloads).with_context_proxy(
                config.browser.remote.as_ref().and_then(crate::browser::RemoteEndpoint::context_proxy),
            ),
        );
        let display = Display { width: config.browser.window.0, height: config.browser.window.1, scale: 1.0 };
        let observer: Arc<dyn BrowserObserver> = Arc::new(crate::sessions::Observer {
            sessions: Arc::downgrade(&sessions),
            intercept: config.browser.remote.is_some().then(|| guard.clone()),
            display: Some(display),
        });
        health.observe(Arc::downgrade(&observer));
        let launcher = WorkerLauncher {
            spawner,
            exe: config.worker_exe.clone(),
            log_format: config.log_format.clone(),
            emulation: Default::default(),
            viewport: Some(display),
        };
        let activity = Arc::new(crate::activity::Activity::new(config.view));
        let tracer = Arc::new(crate::trace::Tracer::new(config.trace.clone()));
        Runtime {
            config,
            queue: Queue { health, sessions, launcher, stats, kept },
            started: Instant::now(),
            guard,
            _observer: observer,
            activity,
            tracer,
        }
    }

    /// Launches the browser at start-up (`runtime_warmup_on_start`); a failed launch starts the
    /// recovery cycle like any other fault.
    ///
    /// # Errors
    /// `browser_unavailable` when the cycle could not bring a browser up.
    pub async fn start(&self) -> Result<(), ErrorBody> {
        self.queue.health.start().await
    }

    /// The open sessions.
    pub fn sessions(&self) -> &Arc<Sessions> {
        &self.queue.sessions
    }

    /// What sessions did (the live view reads it).
    pub fn activity(&self) -> &Arc<crate::activity::Activity> {
        &self.activity
    }

    /// The sessions' traces (the live view links their reports).
    pub fn tracer(&self) -> &Arc<crate::trace::Tracer> {
        &self.tracer
    }

    /// The runtime's counters.
    pub fn stats(&self) -> &Arc<Stats> {
        &self.queue.stats
    }

    /// The link to the current browser, when one is up (never starts one).
    pub async fn current_link(&self) -> Option<crate::link::Link> {
        self.queue.health.current_link().await
    }

    /// A session's viewport, CSS px: its own, else the configured one.
    pub fn viewport(&self, session: &SessionEntry) -> (u32, u32) {
        match *session.display.lock().unwrap() {
            Some(d) => (d.width, d.height),
            None => self.config.browser.window,
        }
    }

    /// Reads one request line and answers it. Bad input is answered with `bad_request` (a param the
    /// method does not take too: [`Method::check_params`]), `unknown_method` or `unknown_session`;
    /// nothing here panics on what a client sends.
    pub async fn handle_line(self: &Arc<Self>, line: &str, cancel: &CancellationToken) -> Response {
        let started = Instant::now();
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return Response::failure(None, bad_request(format!("request is not JSON: {e}"))),
        };
        let id: Option<RequestId> = value.get("id").cloned().and_then(|v| serde_json::from_value(v).ok());
        if let Err(unknown) = sb_protocol::fields::check_request(&value) {
            let message = unknown.to_string().replacen("parameter", "request field", 1);
            let message = message.replacen("it takes:", "a request takes:", 1);
            return Response::failure(id, bad_request(message));
        }
        let mut request: Request = match serde_json::from_value(value) {
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
        // With session tokens each token's session ids are its own: the id the agent gave is looked up
        // as its token's (`session.start` makes it so), and answered back as the agent gave it.
        let named = self.own_session_id(method, &mut request);
        let span_session = request.session_id.clone().unwrap_or_default();
        log_action("browser_action_started", method, &span_session, None, None);
        // The live view and a trace see the request's params (redacted when recorded).
        let observed = (method.needs_session()
            && method != Method::SessionTrace
            && self.activity.wanted(self.tracer.active(&span_session)))
        .then(|| (request.params.clone(), crate::store::now_ms()));
        // A field the method does not take is refused before anything runs: an agent's typo must not
        // silently change what it gets.
        let result = match method.check_params(&request.params) {
            Err(unknown) => Err(bad_request(format!("{}: {unknown}", method.name()))),
            Ok(()) => self.execute(Call { method, budget, cancel }, request).await,
        };
        let result = match &named {
            Some((internal, given)) => shown_as_given(result, internal, given),
            None => result,
        };
        if let Some((params, at_ms)) = observed {
            let action_ms = started.elapsed().as_millis() as u64;
            self.observe(&span_session, method, &params, at_ms, action_ms, &result, budget).await;
        }
        let elapsed_ms = started.elapsed().as_millis() as u64;
        let stats = &self.queue.stats;
        stats.record_action(method, result.as_ref().err().map(|e| e.code));
        if method == Method::PageEvaluate {
            stats.record_evaluate(started.elapsed().as_secs_f64() * 1000.0);
        }
        match result {
            Ok(value) => {
                log_action("browser_action_succeeded", method, &span_session, Some(elapsed_ms), None);
                Response::success(id, value, elapsed_ms)
            }
            Err(mut error) => {
                // A URL an error quotes loses its credentials, in the answer as in the log.
                if let std::borrow::Cow::Owned(clean) = sb_protocol::redact::in_text(&error.message) {
                    error.message = clean;
                }
                log_action("browser_action_failed", method, &span_session, Some(elapsed_ms), Some(&error));
                Response::failure(id, error)
            }
        }
    }

    /// Records an answered request on a session for the live view and the session's trace (with a
    /// small screenshot of the page after it, within what is left of `budget`).
    #[allow(clippy::too_many_arguments)]
    async fn observe(
        &self,
        session_id: &str,
        method: Method,
        params: &Value,
        at_ms: u64,
        ms: u64,
        result: &Result<Value, ErrorBody>,
        budget: Budget,
    ) {
        let session = self.queue.sessions.get(session_id).ok();
        let last_url = session.as_ref().and_then(|s| s.last_url());
        let outcome = result.as_ref().map_err(|e| (e.code.as_str(), e.message.as_str()));
        let mut record = crate::activity::ActionRecord::of(
            session_id,
            method.name(),
            params,
            at_ms,
            ms,
            outcome,
            last_url,
        );
        if let (Some(s), Ok(_)) = (&session, result) {
            record.console = std::mem::take(&mut *s.last_console.lock().unwrap());
        }
        if self.tracer.active(session_id) {
            let mut shot = None;
            if let (Some(session), Some(link)) = (&session, self.current_link().await) {
                if method != Method::SessionClose {
                    shot = crate::trace::screenshot(session, &link, self.viewport(session), budget).await;
                }
            }
            self.tracer.record(&record, shot);
        }
        if method == Method::SessionClose {
            self.tracer.close(session_id);
        }
        let snapshot = match (method, result) {
            (Method::PageSnapshot, Ok(v)) => v.get("snapshot").and_then(Value::as_str),
            _ => None,
        };
        self.activity.push(Arc::new(record), snapshot);
        if method == Method::SessionClose && result.is_ok() {
            self.activity.forget(session_id);
        }
    }

    /// The method, then the dialogs answered meanwhile go into the result, and a page replaced since
    /// the session's last result is reported: `session_reset: true` and `reset_reason` in a result, a
    /// sentence at the end of an error's message.
    async fn execute(self: &Arc<Self>, call: Call<'_>, request: Request) -> Result<Value, ErrorBody> {
        let Call { method, budget, .. } = call;
        let route = match dispatch::route_call(method, &request.params) {
            Route::Runtime(op) => return self.execute_runtime(op, request, budget).await,
            Route::Session(route) => route,
        };
        let id = request.session_id.as_deref().ok_or_else(|| {
            bad_request(format!("{} needs a session_id; start one with session.start", method.name()))
        })?;
        let lookup = || {
            if self.config.session_tokens {
                self.queue.sessions.get_as(id, request.session_token.as_deref())
            } else {
                self.queue.sessions.get(id)
            }
        };
        let session = lookup()?;
        // In use until the answer: not idle, so never expired under the request. Closed for being
        // idle just before it was marked: answered as gone.
        let _in_use = session.in_use();
        if !self.queue.sessions.is_open(&session) {
            return Err(lookup().err().unwrap_or_else(|| {
                ErrorBody::new(
                    ErrorCode::UnknownSession,
                    Phase::Session,
                    format!("session '{id}' was closed"),
                )
            }));
        }
        {
            let mut marks = session.marks.lock().unwrap();
            *marks = (marks.1, Instant::now());
        }
        // While a person holds the session in the live view, the agent's action waits for them
        // (within its budget); closing and tracing the session do not.
        if !matches!(method, Method::SessionClose | Method::SessionTrace) {
            session.wait_for_human(budget).await?;
        }
        self.url_allowed(method, &request.params, budget).await?;
        let downloads_before =
            (method == Method::PageGoto).then(|| self.queue.sessions.downloads.list(&session.id).len());
        let outcome = self.execute_on(&session, call, route, request.params).await;
        let mut outcome = outcome.map_err(|e| self.refused_on_the_way(method, e));
        if let (Some(before), Err(e)) = (downloads_before, &mut outcome) {
            self.said_a_download(&session.id, before, e, budget).await;
        }
        if let (Method::PageNetwork, Ok(result)) = (method, &mut outcome) {
            self.mark_refused(result);
        }
        if let (true, Ok(result)) = (method.writes_artifact(), &outcome) {
            self.prune_artifacts(result["path"].as_str().map(PathBuf::from)).await;
        }
        let reset = if method == Method::SessionClose { None } else { session.take_reset() };
        let waited = session.take_recovery_waited();
        // This action's (a failed one's are dropped: they are in `page.console`).
        let (console_errors, console_texts) = std::mem::take(&mut *session.console_errors.lock().unwrap());
        *session.last_console.lock().unwrap() = console_texts;
        let human = session.take_human_took_over();
        // A download the action's input started is in its result: the browser tells the supervisor
        // of it on its own connection, which may come after the worker's answer (within the budget,
        // at most DOWNLOAD_NEWS).
        if session.download_began.swap(false, std::sync::atomic::Ordering::Relaxed) && outcome.is_ok() {
            let downloads = &self.queue.sessions.downloads;
            let news = || downloads.has_news(&session.id).then_some(());
            let _ = Budget::new(budget.capped(DOWNLOAD_NEWS)).wait_notified(&downloads.changed, news).await;
        }
        match outcome {
            Ok(mut value) => {
                let dialogs = std::mem::take(&mut *session.dialogs.lock().unwrap());
                let common = CommonResult {
                    elapsed_ms: 0,
                    session_reset: reset.is_some().then_some(true),
                    reset_reason: reset,
                    waited_for_recovery_ms: waited,
                    dialogs: dialogs.listed,
                    dialogs_dropped: Some(dialogs.dropped).filter(|n| *n > 0),
                    downloads: self.queue.sessions.downloads.take(&session.id),
                    popups: session.take_new_popups(),
                    console_errors: Some(console_errors).filter(|n| *n > 0),
                    human_took_over: human,
                    restored: session.restored.lock().unwrap().take(),
                };
                // The common part joins the method's own fields (`elapsed_ms` is set on the way out).
                if let (Value::Object(fields), Value::Object(own)) = (to_json(common)?, &mut value) {
                    own.extend(fields.into_iter().filter(|(k, _)| k != "elapsed_ms"));
                }
                Ok(value)
            }
            Err(mut e) => {
                if let Some(ms) = waited {
                    e.message = format!(
                        "{} (it first waited {ms} ms for the tab to be freed after the previous action)",
                        e.message
                    );
                }
                if let Some(h) = human {
                    e.message = format!(
                        "{} (a person held the session in the live view for {} ms before this action{}; take a new snapshot)",
                        e.message,
                        h.ms,
                        h.note.map(|n| format!(" and wrote: {n}")).unwrap_or_default()
                    );
                }
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

    /// A `page.goto` that failed with `net::ERR_ABORTED` because its URL is a download (Chromium
    /// saves it and leaves the tab where it was) says so, naming the file, where it said only
    /// "navigation ... failed: net::ERR_ABORTED" (Playwright's goto: "Download is starting"). The
    /// download's `Browser.downloadWillBegin` comes on the supervisor's connection, at about the time the
    /// worker answers: waited for at most [`DOWNLOAD_NEWS`], within the request's `budget`.
    async fn said_a_download(&self, session: &str, before: usize, e: &mut ErrorBody, budget: Budget) {
        if e.code != ErrorCode::NavigationFailed || !e.message.contains("net::ERR_ABORTED") {
            return;
        }
        let downloads = &self.queue.sessions.downloads;
        let started = Budget::new(budget.capped(DOWNLOAD_NEWS))
            .wait_notified(&downloads.changed, || {
                let all = downloads.list(session);
                all.get(before..).and_then(|new| new.first().cloned())
            })
            .await;
        if let Some(d) = started {
            e.message = format!(
                "{} is a download, not a page: the browser saved it ({:?}) and the tab stays where it was; \
                 page.downloads lists it, page.wait_for {{download: true}} waits for it to end",
                d.url, d.suggested_filename
            );
        }
    }

    /// The URL policy on the URL a navigation (`page.goto`, `tabs.open`) would load, within the
    /// request's budget.
    ///
    /// # Errors
    /// `bad_request` for a string that is not a URL; `url_blocked` (phase `navigate`) naming the rule,
    /// the URL without its credentials.
    async fn url_allowed(&self, method: Method, params: &Value, budget: Budget) -> Result<(), ErrorBody> {
        if !method.navigates() {
            return Ok(());
        }
        let Some(url) = params.get("url").and_then(Value::as_str) else { return Ok(()) };
        // Nothing was blocked when the input is not a URL at all: the input is wrong.
        if let Err(e) = url::Url::parse(url) {
            let shown = sb_protocol::redact::in_url(url);
            return Err(bad_request(format!(
                "{}: {shown:?} is not a valid URL ({e}); give an absolute URL such as https://example.com/",
                method.name()
            )));
        }
        self.guard.allows(url, budget).await.map_err(|b| {
            let shown = sb_protocol::redact::in_url(url);
            ErrorBody::new(ErrorCode::UrlBlocked, Phase::Navigate, format!("{shown} is blocked: {}", b.rule))
        })
    }

    /// The directory of `owner`'s files of `kind` under the artifacts dir, made when missing.
    ///
    /// # Errors
    /// `internal` when it cannot be made.
    fn owned_dir(&self, owner: &str, kind: Kind) -> Result<PathBuf, ErrorBody> {
        owned_dir(&self.config.artifacts_dir, owner, kind)
    }

    /// [`Runtime::owned_dir`] of `session`'s owner (its token's, with `[limits] session_tokens`).
    ///
    /// # Errors
    /// `internal` when it cannot be made.
    fn session_dir(&self, session: &SessionEntry, kind: Kind) -> Result<PathBuf, ErrorBody> {
        self.owned_dir(&session.owner(self.config.session_tokens), kind)
    }

    /// Screenshot retention after a screenshot (and at start-up): the oldest files past
    /// `[artifacts]`'s age and size go, never `keep` (the one just written).
    pub async fn prune_artifacts(&self, keep: Option<PathBuf>) {
        let (dir, retention) = (self.config.artifacts_dir.clone(), self.config.retention.clone());
        let pruned =
            tokio::task::spawn_blocking(move || crate::artifacts::prune(&dir, &retention, keep.as_deref()))
                .await
                .unwrap_or_default();
        if pruned.files > 0 {
            tracing::info!(files = pruned.files, bytes = pruned.bytes, "artifacts_pruned");
        }
    }

    /// A navigation that failed at the connection gate (Chromium, behind a proxy, only says
    /// `net::ERR_TUNNEL_CONNECTION_FAILED` or `net::ERR_EMPTY_RESPONSE`) answers as it would have
    /// without one, from what the gate said of the URL it last asked for (a redirect's last hop):
    /// `url_blocked` naming that URL (without its credentials) and the rule, or Chromium's own error
    /// for why the gate could not connect (`net::ERR_CONNECTION_REFUSED`, ...). Any other error is kept.
    fn refused_on_the_way(&self, method: Method, mut e: ErrorBody) -> ErrorBody {
        if !method.navigates() || e.code != ErrorCode::NavigationFailed {
            return e;
        }
        let seen = GATE_ERRORS.into_iter().find(|seen| e.message.contains(seen));
        let (Some(seen), Some(url)) = (seen, e.url.as_deref()) else { return e };
        match self.guard.gate_said(url) {
            Some(GateSaid::Refused(rule)) => {
                let shown = sb_protocol::redact::in_url(url);
                ErrorBody::new(
                    ErrorCode::UrlBlocked,
                    Phase::Navigate,
                    format!("the navigation reached {shown}, which is blocked: {rule}"),
                )
            }
            Some(GateSaid::Unreachable(real)) => {
                e.message = e.message.replace(seen, real);
                e
            }
            None => e,
        }
    }

    /// `page.network`'s failed requests as the gate saw them: one whose host the URL policy refused gets
    /// `blocked` (the rule); one the gate could not reach gets Chromium's real error for it (the page
    /// saw the tunnel fail).
    fn mark_refused(&self, result: &mut Value) {
        let Some(requests) = result.get_mut("requests").and_then(Value::as_array_mut) else { return };
        for r in requests {
            let failure = r.get("failure").and_then(Value::as_str).unwrap_or_default();
            // Chromium may add a detail (`net::ERR_BLOCKED_BY_CLIENT.Inspector`).
            if !GATE_ERRORS.iter().any(|e| failure.starts_with(e)) {
                continue;
            }
            let url = r.get("url").and_then(Value::as_str).unwrap_or_default();
            match self.guard.gate_said(url) {
                Some(GateSaid::Refused(rule)) => r["blocked"] = Value::String(rule),
                Some(GateSaid::Unreachable(real)) => r["failure"] = Value::String(real.to_string()),
                None => {}
            }
        }
    }

    /// With `[limits] session_tokens`, the request's `session_id` made its token's
    /// ([`crate::sessions::namespaced`]; `session.start` names its own in [`Runtime::start_session`]):
    /// the registry's id and the one the agent gave, for the answer. `None` when nothing was changed.
    fn own_session_id(&self, method: Method, request: &mut Request) -> Option<(String, String)> {
        if !self.config.session_tokens || method == Method::SessionStart {
            return None;
        }
        let token = request.session_token.as_deref().filter(|t| !t.is_empty())?;
        let given = request.session_id.take()?;
        let internal = crate::sessions::namespaced(&given, token);
        request.session_id = Some(internal.clone());
        Some((internal, given))
    }

    /// Methods without a session: `runtime.*`, `session.start`, `session.list`.
    async fn execute_runtime(
        &self,
        op: RuntimeOp,
        request: Request,
        budget: Budget,
    ) -> Result<Value, ErrorBody> {
        match op {
            RuntimeOp::Health => to_json(self.health(budget).await?),
            RuntimeOp::Stats => {
                let mut stats = self.queue.stats.snapshot();
                if let Some(link) = self.queue.health.current_link().await {
                    stats.cdp_sessions = link.relay.sessions() as u64;
                }
                stats.tab_sessions = self.queue.sessions.tab_sessions();
                to_json(stats)
            }
            RuntimeOp::Metrics => {
                let mut stats = self.queue.stats.snapshot();
                stats.tab_sessions = self.queue.sessions.tab_sessions();
                to_json(MetricsResult {
                    content_type: "text/plain; version=0.0.4".into(),
                    text: crate::stats::prometheus(&stats, self.queue.sessions.len()),
                })
            }
            RuntimeOp::SessionList => {
                // With session tokens, a caller sees only its own sessions (none without a token).
                let token = self.config.session_tokens.then(|| request.session_token.unwrap_or_default());
                to_json(SessionListResult { sessions: self.queue.sessions.list(token.as_deref()) })
            }
            RuntimeOp::SessionStart => {
                let mut p: SessionStartParams = dispatch::params(request.params)?;
                if p.session_id.is_none() {
                    p.session_id = request.session_id;
                }
                let display = display(&p, self.config.browser.window)?;
                dispatch::check_emulation("session.start", &mut p.emulation, self.config.session_tokens)?;
                // A state file is read before anything starts: a bad one starts nothing. It is the
                // uploads dir's or one the caller saved (with tokens, one its token saved).
                let state = match &p.storage_state {
                    Some(name) => {
                        let uploads = self.config.uploads_dir.as_deref();
                        let token = request.session_token.as_deref().filter(|t| !t.is_empty());
                        let own = match (self.config.session_tokens, token) {
                            (true, None) => None,
                            (tokens, token) => Some(
                                self.owned_dir(&crate::files::owner(token.filter(|_| tokens)), Kind::States)?,
                            ),
                        };
                        Some(storage_state::read(uploads, own.as_deref(), name)?)
                    }
                    None => None,
                };
                let start = Start { display, emulation: p.emulation, state };
                to_json(self.start_session(p.session_id, request.session_token, start, budget).await?)
            }
        }
    }

    /// Methods on a session: page actions through the dispatch table, `session.close`, `tabs.*`.
    async fn execute_on(
        &self,
        session: &Arc<SessionEntry>,
        call: Call<'_>,
        route: OnSession,
        params: Value,
    ) -> Result<Value, ErrorBody> {
        let budget = call.budget;
        let q = &self.queue;
        match route {
            OnSession::Page(page) => {
                // Held from reading the ref counter to storing the refs: two snapshots never share numbers.
                let _numbering =
                    if page.numbers_refs { Some(session.snapshotting.lock().await) } else { None };
                let cx = SessionContext { session, config: &self.config };
                let action = (page.prepare)(params, &cx)?;
                let policy = match &action {
                    Action::HandleDialog { accept, prompt_text } => Some((*accept, prompt_text.clone())),
                    _ => None,
                };
                if policy.is_some() {
                    // Held here before the worker has it: a dialog of its tabs claims it from here,
                    // one of the tabs the supervisor holds (popups not focused yet) takes it.
                    *session.dialog_policy.lock().unwrap() = policy.clone();
                }
                let output = q.run(session, call, action).await;
                if policy.is_some() && output.is_err() {
                    // Not set, as the error says.
                    let mut held = session.dialog_policy.lock().unwrap();
                    if *held == policy {
                        *held = None;
                    }
                }
                let output = output?;
                let done = (page.finish)(output)?;
                session.keep_refs(done.refs);
                if let Some(display) = done.display {
                    *session.display.lock().unwrap() = Some(display);
                    let set = StoreEvent::DisplaySet { session_id: session.id.clone(), display };
                    q.sessions.record(set).await;
                }
                // What the session emulated until now, when this action changed it.
                let mut before = None;
                if let Some(emulation) = done.emulation {
                    before =
                        Some(std::mem::replace(&mut *session.emulation.lock().unwrap(), emulation.clone()));
                    let set = StoreEvent::EmulationSet {
                        session_id: session.id.clone(),
                        emulation: Box::new(emulation),
                    };
                    q.sessions.record(set).await;
                }
                if done.display.is_some() || before.is_some() {
                    // The session's tabs the supervisor holds get them too.
                    let before = before.unwrap_or_else(|| session.emulation.lock().unwrap().clone());
                    if let Some(link) = q.health.current_link().await {
                        Sessions::restyle_held(session, &link, &before, done.display);
                    }
                }
                if let Some(url) = &done.url {
                    q.sessions.url_seen(session, url).await;
                }
                Ok(done.result)
            }
            OnSession::Op(op) => match op {
                SessionOp::Close => to_json(self.close_session(session, budget).await),
                SessionOp::Trace => {
                    let p: sb_protocol::api::TraceParams = dispatch::params(params)?;
                    to_json(match p.action {
                        sb_protocol::api::TraceAction::Start => {
                            self.tracer.start(&session.id, self.session_dir(session, Kind::Traces)?)?
                        }
                        sb_protocol::api::TraceAction::Stop => {
                            self.tracer.stop(&session.id, p.name.as_deref())?
                        }
                    })
                }
                SessionOp::TabsList => to_json(crate::tabs::list(q, session, call).await?),
                SessionOp::Cookies => {
                    let link = q.health.link(call.budget).await?;
                    let context = q.sessions.context(session, &link, call.budget).await?;
                    let p = dispatch::params(params)?;
                    to_json(crate::cookies::run(&link, &context, p, call.budget).await?)
                }
                SessionOp::StorageState => {
                    let p: StorageStateParams = dispatch::params(params)?;
                    let link = q.health.link(budget).await?;
                    let context = q.sessions.context(session, &link, budget).await?;
                    // The session's owner's own directory of states: its saves go there, and a load
                    // reads there or in the uploads dir, never another owner's.
                    let states = self.session_dir(session, Kind::States)?;
                    match p.action {
                        StorageStateAction::Save => {
                            let path = storage_state::save_path(&states, &session.id, p.name.as_deref())?;
                            let cookies = storage_state::cookies(&link, &context, budget).await?;
                            // The active tab's origin's local storage (none for an opaque origin).
                            let local = Action::Storage {
                                kind: StorageKind::Local,
                                action: StorageAction::Get,
                                key: None,
                                value: None,
                            };
                            let origins = match q.run(session, call, local).await {
                                Ok(Output::Storage(r)) if !r.items.is_empty() => {
                                    vec![storage_state::OriginState {
                                        origin: r.origin,
                                        local_storage: r.items,
                                        session_storage: Vec::new(),
                                    }]
                                }
                                Err(e) if e.code != ErrorCode::BadRequest => return Err(e),
                                _ => Vec::new(),
                            };
                            to_json(storage_state::write(
                                &path,
                                &storage_state::StorageState { cookies, origins },
                            )?)
                        }
                        StorageStateAction::Load => {
                            let name = p.name.ok_or_else(|| {
                                bad_request("session.storage_state load needs name (a file in the uploads dir or one this session's owner saved)")
                            })?;
                            let uploads = self.config.uploads_dir.as_deref();
                            let (path, state) = storage_state::read(uploads, Some(&states), &name)?;
                            to_json(self.load_state(session, &link, &context, path, state, budget).await?)
                        }
                    }
                }
                SessionOp::WaitForEvent => to_json(self.wait_for_event(session, params, call).await?),
                SessionOp::Downloads => {
                    to_json(DownloadsResult { entries: q.sessions.downloads.list(&session.id) })
                }
                SessionOp::TabsOpen => {
                    to_json(crate::tabs::open(q, session, dispatch::params(params)?, call).await?)
                }
                SessionOp::TabsFocus => {
                    to_json(crate::tabs::focus(q, session, dispatch::params(params)?, call).await?)
                }
                SessionOp::TabsClose => {
                    to_json(crate::tabs::close(q, session, dispatch::params(params)?, call).await?)
                }
            },
        }
    }

    /// `runtime.health`: the health check (probes unless fresh), then what the browser is.
    async fn health(&self, budget: Budget) -> Result<HealthResult, ErrorBody> {
        self.queue.health.link(budget).await?;
        let facts = self.queue.health.facts().await.ok_or_else(|| {
            ErrorBody::new(ErrorCode::Timeout, Phase::Launch, "the browser is being restarted; retry")
        })?;
        Ok(HealthResult {
            browser_version: facts.version,
            browser_pid: facts.pid,
            cdp_transport: if self.config.browser.remote.is_some() { "websocket" } else { "pipe" }.into(),
            browser_binary: facts.binary.as_ref().map(|b| b.path.display().to_string()).unwrap_or_default(),
            browser_choice: facts.binary.as_ref().map_or("remote", |b| b.why).into(),
            browser_sandbox: facts.sandbox.into(),
            uptime_ms: self.started.elapsed().as_millis() as u64,
            sessions: self.queue.sessions.len(),
            restarts: self.queue.stats.restarts.get(),
            last_probe_ms: facts.last_probe_ms,
            max_timeout_ms: self.config.timeouts.max_ms,
        })
    }

    /// `session.start`: a slot reserved against the limit, a page in a window of its own, a worker.
    async fn start_session(
        &self,
        requested: Option<String>,
        token: Option<String>,
        start: Start,
        budget: Budget,
    ) -> Result<SessionStartResult, ErrorBody> {
        let Start { display, emulation, state } = start;
        let sessions = &self.queue.sessions;
        // With session tokens the new session's id is its token's own (a token is made for a caller
        // that brought none).
        let token = match self.config.session_tokens {
            true => Some(token.filter(|t| !t.is_empty()).unwrap_or_else(crate::sessions::new_token)),
            false => token,
        };
        let owner =
            token.as_deref().filter(|_| self.config.session_tokens).map(|t| crate::files::owner(Some(t)));
        let reservation = sessions.reserve(requested, owner.as_deref())?;
        let link = self.queue.health.link(budget).await?;
        // Refused while the browser and the runtime still have room, not after either ran out (the
        // browser aborts when it does).
        let browser_pid = self.queue.health.facts().await.map(|f| f.pid).filter(|pid| *pid != 0);
        crate::fds::room_for_session(browser_pid)?;
        let entry = sessions.entry(&reservation, token);
        let session_token = entry.token.clone();
        // A kept state under this id is an earlier session's (one closed while the runtime was down).
        if let Some(kept) = &self.queue.kept {
            kept.remove(&entry.id);
        }
        *entry.display.lock().unwrap() = display;
        *entry.emulation.lock().unwrap() = emulation.clone();
        let target_id = sessions.new_target(&entry, &link, budget).await?;
        if let Some((path, state)) = state {
            let context = sessions.context(&entry, &link, budget).await?;
            if let Err(e) = self.load_state(&entry, &link, &context, path, state, budget).await {
                crate::sessions::close_target_soon(&link.client, &target_id).await;
                Sessions::dispose_context(&entry, &link, budget).await;
                return Err(e);
            }
        }
        let launcher = self.queue.launcher.for_session(display, emulation);
        let worker = match WorkerHandle::spawn(
            &launcher,
            &link,
            &target_id,
            entry.dialog_policy.clone(),
            budget,
        )
        .await
        {
            Ok(w) => w,
            Err(e) => {
                crate::sessions::close_target_soon(&link.client, &target_id).await;
                return Err(e);
            }
        };
        *entry.worker.lock().await = Some(worker);
        let session_id = reservation.id().to_string();
        let owner = entry.owner(self.config.session_tokens);
        sessions.commit(reservation, entry).await;
        if self.tracer.always() {
            let dir = self.owned_dir(&owner, Kind::Traces);
            if let Err(e) = dir.and_then(|dir| self.tracer.start(&session_id, dir)) {
                tracing::warn!(browser.session_id = %session_id, error.message = %e.message, "trace_not_started");
            }
        }
        let session_id = crate::sessions::shown(&session_id, self.config.session_tokens).to_string();
        Ok(SessionStartResult { session_id, target_id, session_token })
    }

    /// `page.wait_for {download}` / `{popup}`: one that came since the session's previous request
    /// started (a popup its click opened, a download it started), or the first that comes within the
    /// budget; each is returned once.
    ///
    /// # Errors
    /// `timeout` (phase `wait`) at the deadline; `bad_request` for another condition beside it.
    async fn wait_for_event(
        &self,
        session: &Arc<SessionEntry>,
        params: Value,
        call: Call<'_>,
    ) -> Result<WaitForResult, ErrorBody> {
        let condition = dispatch::wait_condition(dispatch::params(params)?)?;
        let budget = call.budget;
        let downloads = &self.queue.sessions.downloads;
        let not_met = |what: &str| {
            ErrorBody::new(
                ErrorCode::Timeout,
                Phase::Wait,
                format!("wait_for {what}: not met within the budget"),
            )
        };
        let mut result = WaitForResult {
            matched: String::new(),
            url: session.last_url().unwrap_or_default(),
            response: None,
            download: None,
            popup: None,
        };
        match condition {
            WaitCondition::Download => {
                let found = budget.wait_notified(&downloads.changed, || {
                    let since = session.marks.lock().unwrap().0;
                    downloads.ended_since(&session.id, since, &session.waited.lock().unwrap())
                });
                let (guid, d) = found.await.ok_or_else(|| not_met("download"))?;
                session.waited.lock().unwrap().insert(guid);
                result.matched = "download".into();
                result.download = Some(Box::new(d));
                Ok(result)
            }
            WaitCondition::Dialog => self.wait_for_dialog(session, call).await,
            WaitCondition::Popup => {
                let popup = budget.wait_notified(&session.popup_opened, || session.take_popup());
                let popup = popup.await.ok_or_else(|| not_met("popup"))?;
                let link = self.queue.health.link(budget).await?;
                let infos = Sessions::refresh_tabs(session, &link, budget).await?;
                result.matched = "popup".into();
                result.popup = crate::sessions::tab_infos(session, &infos)
                    .into_iter()
                    .find(|t| t.target_id == popup)
                    .map(Box::new);
                Ok(result)
            }
            _ => Err(ErrorBody::new(
                ErrorCode::Internal,
                Phase::Wait,
                "wait_for: not an event the runtime waits for",
            )),
        }
    }

    /// `page.wait_for {dialog}`: met by a dialog of any of the session's tabs that its results have not
    /// reported yet, as every result reports them: one the supervisor answered in a tab it holds (a
    /// popup not focused), already or while the worker waits for one of its own tabs'
    /// ([`WaitCondition::Dialog`] there, stopped as a cancelled run once a held tab's came). Before,
    /// only the worker's tabs counted: a popup's dialog was answered and reported while the wait ran
    /// to its deadline.
    ///
    /// # Errors
    /// The worker's (`timeout` at the deadline when no dialog opened).
    async fn wait_for_dialog(
        &self,
        session: &Arc<SessionEntry>,
        call: Call<'_>,
    ) -> Result<WaitForResult, ErrorBody> {
        let held = || (!session.dialogs.lock().unwrap().is_empty()).then_some(());
        let met = || WaitForResult {
            matched: "dialog".into(),
            url: session.last_url().unwrap_or_default(),
            response: None,
            download: None,
            popup: None,
        };
        if held().is_some() {
            return Ok(met());
        }
        let stop = call.cancel.child_token();
        let action = Action::WaitFor { condition: WaitCondition::Dialog };
        let worker = self.queue.run(session, Call { cancel: &stop, ..call }, action);
        let mut worker = std::pin::pin!(worker);
        tokio::select! {
            output = &mut worker => output?.into_kind(),
            Some(()) = call.budget.wait_notified(&session.dialog_answered, held) => {
                stop.cancel();
                // The worker's answer (`cancelled`) frees the session's queue for the next action.
                let _ = worker.await;
                Ok(met())
            }
        }
    }

    /// Loads a storage state into `session`'s context `context`: its cookies, then its origins' local
    /// storage ([`storage_state::write_origins`]).
    async fn load_state(
        &self,
        session: &SessionEntry,
        link: &crate::link::Link,
        context: &str,
        path: PathBuf,
        state: storage_state::StorageState,
        budget: Budget,
    ) -> Result<StorageStateResult, ErrorBody> {
        let (cookies, origins) = (state.cookies.len() as u64, state.origins.len() as u64);
        storage_state::set_cookies(link, context, state.cookies, budget).await?;
        storage_state::write_origins(session, link, context, &state.origins, budget).await?;
        Ok(StorageStateResult { path: path.display().to_string(), cookies, origins })
    }

    /// `session.close`: the worker is shut down and every tab closed, all within the request's budget
    /// less [`CLOSE_RESERVE`] (tabs close together); then the store forgets the session (fsynced
    /// before the answer, in the time kept for it).
    async fn close_session(&self, session: &Arc<SessionEntry>, budget: Budget) -> SessionCloseResult {
        let budget = budget.child(CLOSE_RESERVE);
        session.closing.store(true, std::sync::atomic::Ordering::SeqCst);
        self.queue.sessions.remove(&session.id);
        let worker = tokio::time::timeout(budget.remaining(), session.worker.lock()).await;
        let mut targets: Vec<String> = session.tabs().into_iter().map(|t| t.target_id).collect();
        if let Ok(mut slot) = worker {
            if let Some(w) = slot.take() {
                // A page reset after the worker's last answer moved it to a target the tab list
                // does not know yet.
                let last = w.shutdown(budget.capped(Duration::from_millis(500))).await;
                if !last.is_empty() && !targets.contains(&last) {
                    targets.push(last);
                }
            }
        }
        if let Some(link) = self.queue.health.current_link().await {
            let closing = targets.into_iter().map(|target_id| {
                let client = link.client.clone();
                async move { close_target(&client, &target_id, budget.remaining()).await }
            });
            futures_util::future::join_all(closing).await;
            // Its cookies, storage and cache go with it.
            Sessions::dispose_context(session, &link, budget).await;
        }
        self.queue.sessions.downloads.closed(&session.id);
        if let Some(kept) = &self.queue.kept {
            kept.remove(&session.id);
        }
        self.queue.sessions.record(StoreEvent::SessionClosed { session_id: session.id.clone() }).await;
        SessionCloseResult { session_id: session.id.clone(), closed: true }
    }

    /// Closes, from now on, every session that goes `after` without a request (none in progress, no
    /// person holding it in the live view; [`Sessions::take_idle`]): logged `session_expired` with
    /// `idle_ms`, then closed as `session.close` closes one (its trace written, its tabs, its browser
    /// context, its downloads unless kept, its record in the store). Checked every tenth of `after`
    /// (at least every 60 s, at most every 100 ms); the task ends with the runtime.
    pub fn expire_idle_sessions(self: &Arc<Self>, after: Duration) {
        let runtime = Arc::downgrade(self);
        let tick = (after / 10).clamp(EXPIRY_TICK_MIN, EXPIRY_TICK_MAX);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(tick);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(runtime) = runtime.upgrade() else { return };
                for (session, idle) in runtime.queue.sessions.take_idle(after) {
                    tracing::info!(
                        browser.session_id = %session.id,
                        idle_ms = idle.as_millis() as u64,
                        "session_expired"
                    );
                    runtime.queue.stats.sessions_expired.inc();
                    // As `session.close`: its trace is written, the live view forgets it.
                    runtime.tracer.close(&session.id);
                    runtime.activity.forget(&session.id);
                    runtime.close_session(&session, Budget::new(EXPIRY_CLOSE)).await;
                }
            }
        });
    }

    /// Closes every session's worker and target and stops the browser. The store keeps the sessions:
    /// a supervisor started on the same runtime dir reopens them.
    pub async fn shutdown(&self) {
        let sessions = self.queue.sessions.drain();
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
        self.queue
            .health
            .shutdown(|client| async move {
                for s in &sessions {
                    crate::sessions::close_target_soon(&client, &s.target()).await;
                }
            })
            .await;
    }
}

/// What a new session starts with (`session.start`'s params, checked).
struct Start {
    /// Its display, when not the configured one.
    display: Option<Display>,
    /// What its pages emulate from their first request.
    emulation: sb_protocol::api::Emulation,
    /// A storage state file read, to load before the session answers.
    state: Option<(PathBuf, storage_state::StorageState)>,
}

/// A page method's view of its session ([`dispatch::Context`]).
struct SessionContext<'a> {
    session: &'a SessionEntry,
    config: &'a RuntimeConfig,
}

impl Context for SessionContext<'_> {
    fn reference(&self, id: &str) -> Result<RefRecord, ErrorBody> {
        self.session.reference(id)
    }

    fn evaluate_enabled(&self) -> bool {
        self.config.evaluate_enabled
    }

    fn sessions_apart(&self) -> bool {
        self.config.session_tokens
    }

    fn uploads_dir(&self) -> Option<&std::path::Path> {
        self.config.uploads_dir.as_deref()
    }

    fn emulation(&self) -> sb_protocol::api::Emulation {
        self.session.emulation.lock().unwrap().clone()
    }

    fn read_upload(&self, name: &str, max_bytes: usize) -> Result<Vec<u8>, ErrorBody> {
        use std::io::Read as _;
        let bad = |m: String| bad_request(format!("page.route body_file: {m}"));
        let dir = self.uploads_dir().ok_or_else(|| bad("uploads are off ([files] uploads_dir)".into()))?;
        crate::files::checked_dir(dir).map_err(|e| bad(e.to_string()))?;
        let found = crate::files::open_regular_under(dir, name).map_err(bad)?;
        let (file, size) = found.ok_or_else(|| bad(format!("no file {name:?} in the uploads dir")))?;
        if size > max_bytes as u64 {
            return Err(bad(format!("{name:?} is {size} bytes, over {max_bytes}")));
        }
        let mut bytes = Vec::new();
        // Read no more than was checked, whatever the file grows to meanwhile.
        file.take(max_bytes as u64 + 1).read_to_end(&mut bytes).map_err(|e| bad(e.to_string()))?;
        if bytes.len() > max_bytes {
            return Err(bad(format!("{name:?} is over {max_bytes} bytes")));
        }
        Ok(bytes)
    }

    fn stage_uploads(
        &self,
        dir: &std::path::Path,
        names: &[String],
    ) -> Result<(Vec<String>, u64), ErrorBody> {
        let bad = |m: String| bad_request(format!("page.upload: {m}"));
        crate::files::checked_dir(dir).map_err(|e| bad(e.to_string()))?;
        let mut opened = Vec::new();
        for name in names {
            let found = crate::files::open_regular_under(dir, name).map_err(bad)?;
            let (file, size) = found.ok_or_else(|| bad(format!("no file {name:?} in the uploads dir")))?;
            opened.push((name, file, size));
        }
        let owner = self.session.owner(self.config.session_tokens);
        let uploads = owned_dir(&self.config.artifacts_dir, &owner, Kind::Uploads)?;
        let written = |e: std::io::Error| sb_protocol::files::failed_write(Phase::Session, &uploads, &e);
        let batch = format!("{}-{}-{}", self.session.id, crate::store::now_ms(), self.session.next_shot());
        let staged = crate::files::under(&uploads, &batch).map_err(written)?;
        crate::files::private_dir(&staged).map_err(written)?;
        let (mut paths, mut bytes) = (Vec::new(), 0u64);
        for (name, mut file, size) in opened {
            let path = crate::files::under(&staged, name).map_err(written)?;
            let mut copy = crate::files::create_private(&path).map_err(written)?;
            if let Err(e) = std::io::copy(&mut file, &mut copy) {
                // No partial copy is left behind.
                let _ = std::fs::remove_file(&path);
                return Err(written(e));
            }
            bytes += size;
            paths.push(path.to_string_lossy().into_owned());
        }
        Ok((paths, bytes))
    }

    fn named_artifact(&self, extension: &str, name: &str) -> Result<String, ErrorBody> {
        let dir = owned_dir(
            &self.config.artifacts_dir,
            &self.session.owner(self.config.session_tokens),
            kind_of(extension),
        )?;
        let suffix = format!(".{extension}");
        let name = if name.ends_with(&suffix) { name.to_string() } else { format!("{name}{suffix}") };
        let path = crate::files::under(&dir, &name).map_err(|e| bad_request(format!("name: {e}")))?;
        Ok(path.to_string_lossy().into_owned())
    }

    fn artifact_path(&self, extension: &str) -> Result<String, ErrorBody> {
        let kind = kind_of(extension);
        let dir =
            owned_dir(&self.config.artifacts_dir, &self.session.owner(self.config.session_tokens), kind)?;
        let n = self.session.next_shot();
        let millis = crate::store::now_ms();
        let name = format!("{}-{millis}-{n}.{extension}", self.session.id);
        // Session ids are plain names (checked at session.start and when the store is read), so this
        // stays under the directory; a name that would not falls back to one without the id.
        let path = crate::files::under(&dir, &name)
            .unwrap_or_else(|_| dir.join(format!("session-{millis}-{n}.{extension}")));
        Ok(path.to_string_lossy().into_owned())
    }

    fn next_ref(&self) -> u64 {
        self.session.next_ref()
    }
}

/// The directory kind of an artifact with file `extension`.
fn kind_of(extension: &str) -> Kind {
    match extension {
        "pdf" => Kind::Pdfs,
        "har" => Kind::Hars,
        _ => Kind::Screenshots,
    }
}

/// `<artifacts>/owners/<owner>/<kind>` ([`crate::files::owned_dir`]), made when missing.
///
/// # Errors
/// `disk_full` on a full disk, else `internal` when it cannot be made (a directory another uid
/// planted).
fn owned_dir(artifacts: &std::path::Path, owner: &str, kind: Kind) -> Result<PathBuf, ErrorBody> {
    crate::files::owned_dir(artifacts, owner, kind)
        .map_err(|e| sb_protocol::files::failed_write(Phase::Session, &artifacts.join(kind.dir()), &e))
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

/// The display `session.start` asks for (`viewport`, `device_scale_factor`), or `None` for the
/// configured one (`window`, scale 1).
///
/// # Errors
/// `bad_request` for a display [`Display::checked`] refuses.
fn display(p: &SessionStartParams, window: (u32, u32)) -> Result<Option<Display>, ErrorBody> {
    if p.viewport.is_none() && p.device_scale_factor.is_none() {
        return Ok(None);
    }
    let (width, height) = p.viewport.map_or(window, |v| (v.width, v.height));
    Display::checked(width, height, p.device_scale_factor.unwrap_or(1.0))
        .map(Some)
        .map_err(|m| bad_request(format!("session.start {m}")))
}

fn to_json<T: serde::Serialize>(value: T) -> Result<Value, ErrorBody> {
    serde_json::to_value(value)
        .map_err(|e| ErrorBody::new(ErrorCode::Internal, Phase::Request, e.to_string()))
}

/// What Chromium says of a request the URL policy refused or the gate could not connect: through the
/// connection gate (a proxy) `net::ERR_TUNNEL_CONNECTION_FAILED` or `net::ERR_EMPTY_RESPONSE`; a
/// remote browser's interception `net::ERR_BLOCKED_BY_CLIENT`.
const GATE_ERRORS: [&str; 3] =
    ["net::ERR_TUNNEL_CONNECTION_FAILED", "net::ERR_EMPTY_RESPONSE", "net::ERR_BLOCKED_BY_CLIENT"];

/// An answer with the registry's session id `internal` put back as the agent gave it (`given`): in an
/// error's message and in a result's `session_id`.
fn shown_as_given(result: Result<Value, ErrorBody>, internal: &str, given: &str) -> Result<Value, ErrorBody> {
    match result {
        Ok(mut value) => {
            if value.get("session_id").and_then(Value::as_str) == Some(internal) {
                value["session_id"] = Value::String(given.to_string());
            }
            Ok(value)
        }
        Err(mut e) => {
            e.message = e.message.replace(internal, given);
            Err(e)
        }
    }
}
