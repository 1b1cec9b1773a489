//! The runtime: the request handler over one browser and its sessions.
//!
//! [`Runtime::handle_line`] turns one request line into one response; it never panics on input. A
//! request goes one way through the pipeline: the envelope parsed and `timeout_ms` made one
//! [`Budget`] (here), the session and its token, the URL policy (`policy`), the route
//! ([`dispatch::route`]), the handler, then the result's common part. A page method's params become
//! an action ([`dispatch::PageMethod::prepare`], seeing its session through `context`), which runs in
//! the session's queue ([`Queue::run`]), and its output becomes the result
//! ([`dispatch::PageMethod::finish`], then the entry's [`dispatch::PageMethod::after`] when it has
//! one). The pipeline names no method: what one does beside the others is in its handler, its
//! declaration or its route. The supervisor's own handlers are `runtime_ops` (`runtime.*`,
//! `session.list`, `session.start`), `session_ops` (`session.start`'s session, `session.close`,
//! `session.storage_state`, `session.trace`, the idle sessions' expiry), `waits` (`page.wait_for`
//! a download, a popup or a dialog) and [`crate::pipeline::tabs`].
//!
//! Arrows: runtime -> dispatch, tabs -> queue -> sessions -> health -> browser; the files of this
//! folder import this one, never the other way.

mod context;
mod policy;
mod runtime_ops;
mod session_ops;
mod waits;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sb_protocol::api::{CommonResult, DownloadsResult, Method, Request, RequestId, Response};
use sb_protocol::error::bad_request;
use sb_protocol::ipc::{Action, Display};
use sb_protocol::{Budget, ErrorBody, ErrorCode, Phase};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::gate::guard::Guard;
use crate::lifecycle::browser::BrowserConfig;
use crate::lifecycle::health::{BrowserHealth, BrowserObserver, HealthPolicy, PROVIDER};
use crate::lifecycle::spawner::Spawner;
use crate::pipeline::call::{Call, Steps};
use crate::pipeline::dispatch::{self, OnSession, Route, SessionOp};
use crate::pipeline::queue::Queue;
use crate::sessions::downloads::DOWNLOAD_NEWS;
use crate::sessions::store::{SessionStore, StoreEvent, StoredSession};
use crate::sessions::{SessionEntry, Sessions};
use crate::stats::Stats;
use crate::workers::worker::WorkerLauncher;

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
    pub timeouts: crate::pipeline::timeouts::Timeouts,
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
    pub policy: crate::gate::policy::Policy,
    /// Where pages' downloads go, how large they may be, whether they outlive their session.
    pub downloads: crate::sessions::downloads::DownloadsConfig,
    /// How long screenshots are kept and how much they may hold.
    pub retention: crate::features::artifacts::Retention,
    /// Where `page.upload` takes files from (`[files] uploads_dir`); `None`: uploads are off.
    pub uploads_dir: Option<PathBuf>,
    /// Whether the live view is on (`[view] listen`): every session's actions are recorded for it.
    pub view: bool,
    /// `[trace]`: traces of sessions' actions.
    pub trace: crate::features::trace::TraceConfig,
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
    activity: Arc<crate::features::activity::Activity>,
    /// The sessions' traces.
    tracer: Arc<crate::features::trace::Tracer>,
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
        let stats = Arc::new(Stats::default());
        // Each session's login is kept beside the session store, in the runtime dir.
        let kept_dir = store.as_ref().filter(|_| config.keep_logins).and_then(|s| s.path().parent());
        let kept = kept_dir.and_then(|dir| {
            crate::sessions::kept::Kept::open(dir)
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
        let gate = match crate::gate::proxy::Proxy::start(guard.clone()) {
            Ok(proxy) => proxy.flags(),
            Err(e) => {
                tracing::error!(error.message = %e, "connection_gate_unavailable");
                crate::gate::proxy::proxy_flags(1)
            }
        };
        browser.extra_flags.splice(0..0, gate);
        let health = Arc::new(BrowserHealth::new(browser, config.health, spawner.clone(), stats.clone()));
        let downloads =
            crate::sessions::downloads::Downloads::new(config.downloads.clone(), &config.artifacts_dir);
        let sessions = Arc::new(
            Sessions::new(config.max_sessions, store, restored, stats.clone(), downloads).with_context_proxy(
                config
                    .browser
                    .remote
                    .as_ref()
                    .and_then(crate::lifecycle::browser::RemoteEndpoint::context_proxy),
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
        let activity = Arc::new(crate::features::activity::Activity::new(config.view));
        let tracer = Arc::new(crate::features::trace::Tracer::new(config.trace.clone()));
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
    pub fn activity(&self) -> &Arc<crate::features::activity::Activity> {
        &self.activity
    }

    /// The sessions' traces (the live view links their reports).
    pub fn tracer(&self) -> &Arc<crate::features::trace::Tracer> {
        &self.tracer
    }

    /// The runtime's counters.
    pub fn stats(&self) -> &Arc<Stats> {
        &self.queue.stats
    }

    /// The link to the current browser, when one is up (never starts one).
    pub async fn current_link(&self) -> Option<crate::lifecycle::link::Link> {
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
        let observed = (dispatch::route(method).recorded()
            && self.activity.wanted(self.tracer.active(&span_session)))
        .then(|| (request.params.clone(), crate::sessions::store::now_ms()));
        // A field the method does not take is refused before anything runs: an agent's typo must not
        // silently change what it gets.
        let result = match method.check_params(&request.params) {
            Err(unknown) => Err(bad_request(format!("{}: {unknown}", method.name()))),
            Ok(()) => {
                let steps = Steps::default();
                let result = self.execute(Call { method, budget, cancel, steps: &steps }, request).await;
                result.map_err(|e| steps.told(e))
            }
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
        let failed = result.as_ref().err().map(|e| e.code);
        self.queue.stats.record_action(method, failed, started.elapsed().as_secs_f64() * 1000.0);
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
        // None once the request closed it (`session.close`): its trace ends with this record, and the
        // live view forgets it.
        let session = self.queue.sessions.get(session_id).ok();
        let last_url = session.as_ref().and_then(|s| s.last_url());
        let outcome = result.as_ref().map_err(|e| (e.code.as_str(), e.message.as_str()));
        let mut record = crate::features::activity::ActionRecord::of(
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
                shot =
                    crate::features::trace::screenshot(session, &link, self.viewport(session), budget).await;
            }
            self.tracer.record(&record, shot);
        }
        if session.is_none() {
            self.tracer.close(session_id);
        }
        // The view shows the page's last snapshot: a result's `snapshot` text (`page.snapshot`'s).
        let snapshot = result.as_ref().ok().and_then(|v| v.get("snapshot")).and_then(Value::as_str);
        self.activity.push(Arc::new(record), snapshot);
        if session.is_none() && result.is_ok() {
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
        if route.waits_for_a_person() {
            session.wait_for_human(budget).await?;
        }
        self.url_allowed(method, &request.params, budget).await?;
        let after = match &route {
            OnSession::Page(page) => page.after,
            OnSession::Op(_) => None,
        };
        let downloads = &self.queue.sessions.downloads;
        let downloads_before = after.map(|_| downloads.list(&session.id).len()).unwrap_or_default();
        let outcome = self.execute_on(&session, call, route, request.params).await;
        let mut outcome = outcome.map_err(|e| self.refused_on_the_way(method, e));
        if let Some(after) = after {
            let guard = &self.guard;
            let seen =
                dispatch::Supervised { session_id: &session.id, downloads, downloads_before, guard, budget };
            after(&seen, &mut outcome).await;
        }
        if let (true, Ok(result)) = (method.writes_artifact(), &outcome) {
            self.prune_artifacts(result["path"].as_str().map(PathBuf::from)).await;
        }
        // A session the request closed reports no reset: there is no next action to tell.
        let reset = if self.queue.sessions.is_open(&session) { session.take_reset() } else { None };
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

    /// Screenshot retention after a screenshot (and at start-up): the oldest files past
    /// `[artifacts]`'s age and size go, never `keep` (the one just written).
    pub async fn prune_artifacts(&self, keep: Option<PathBuf>) {
        let (dir, retention) = (self.config.artifacts_dir.clone(), self.config.retention.clone());
        let pruned = tokio::task::spawn_blocking(move || {
            crate::features::artifacts::prune(&dir, &retention, keep.as_deref())
        })
        .await
        .unwrap_or_default();
        if pruned.files > 0 {
            tracing::info!(files = pruned.files, bytes = pruned.bytes, "artifacts_pruned");
        }
    }

    /// With `[limits] session_tokens`, the request's `session_id` made its token's
    /// ([`crate::sessions::namespaced`]; `session.start` names its own in [`Runtime::start_session`]):
    /// the registry's id and the one the agent gave, for the answer. `None` when nothing was changed.
    fn own_session_id(&self, method: Method, request: &mut Request) -> Option<(String, String)> {
        // `session.start` names its own (the only method without a session that takes its id).
        if !self.config.session_tokens || !method.needs_session() {
            return None;
        }
        let token = request.session_token.as_deref().filter(|t| !t.is_empty())?;
        let given = request.session_id.take()?;
        let internal = crate::sessions::namespaced(&given, token);
        request.session_id = Some(internal.clone());
        Some((internal, given))
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
                let cx = self.context(session);
                let action = (page.prepare)(call.method, params, &cx)?;
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
                SessionOp::Trace => to_json(self.trace(session, params)?),
                SessionOp::TabsList => to_json(crate::pipeline::tabs::list(q, session, call).await?),
                SessionOp::Cookies => {
                    let link = q.health.link(call.budget).await?;
                    let context = q.sessions.context(session, &link, call.budget).await?;
                    let p = dispatch::params(params)?;
                    to_json(crate::sessions::cookies::run(&link, &context, p, call.budget).await?)
                }
                SessionOp::StorageState => to_json(self.storage_state(session, params, call).await?),
                SessionOp::WaitForEvent => to_json(self.wait_for_event(session, params, call).await?),
                SessionOp::Downloads => {
                    to_json(DownloadsResult { entries: q.sessions.downloads.list(&session.id) })
                }
                SessionOp::TabsOpen => {
                    to_json(crate::pipeline::tabs::open(q, session, dispatch::params(params)?, call).await?)
                }
                SessionOp::TabsFocus => {
                    to_json(crate::pipeline::tabs::focus(q, session, dispatch::params(params)?, call).await?)
                }
                SessionOp::TabsClose => {
                    to_json(crate::pipeline::tabs::close(q, session, dispatch::params(params)?, call).await?)
                }
            },
        }
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

fn to_json<T: serde::Serialize>(value: T) -> Result<Value, ErrorBody> {
    serde_json::to_value(value)
        .map_err(|e| ErrorBody::new(ErrorCode::Internal, Phase::Request, e.to_string()))
}

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
