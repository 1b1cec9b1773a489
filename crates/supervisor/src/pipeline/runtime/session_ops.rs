//! The session methods' handlers: `session.start` (and what a new session starts with),
//! `session.close` and the idle sessions' expiry, `session.storage_state`, `session.trace`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use sb_protocol::api::{
    Request, SessionCloseResult, SessionStartParams, SessionStartResult, StorageAction, StorageKind,
    StorageParams, StorageStateAction, StorageStateParams, StorageStateResult,
};
use sb_protocol::error::bad_request;
use sb_protocol::ipc::{Action, Display, Output};
use sb_protocol::{Budget, ErrorBody, ErrorCode};
use serde_json::Value;

use super::{to_json, Runtime};
use crate::files::Kind;
use crate::pipeline::call::Call;
use crate::pipeline::dispatch;
use crate::sessions::storage_state;
use crate::sessions::store::StoreEvent;
use crate::sessions::{close_target, SessionEntry, Sessions};
use crate::workers::worker::WorkerHandle;

/// What `session.close` keeps of its budget for what follows the browser's part: the session's
/// directory removed and the store's record fsynced (a loaded disk takes tens of ms), so that a close
/// whose browser is frozen still answers by its deadline.
const CLOSE_RESERVE: Duration = Duration::from_millis(50);

/// The idle sessions' check runs at least this often ([`Runtime::expire_idle_sessions`]): 60 s.
const EXPIRY_TICK_MAX: Duration = Duration::from_secs(60);

/// ... and at most this often: 100 ms.
const EXPIRY_TICK_MIN: Duration = Duration::from_millis(100);

/// What closing an expired session may take (its tabs, its context): 10 s.
const EXPIRY_CLOSE: Duration = Duration::from_secs(10);

/// What a new session starts with (`session.start`'s params, checked).
struct Start {
    /// Its display, when not the configured one.
    display: Option<Display>,
    /// What its pages emulate from their first request.
    emulation: sb_protocol::api::Emulation,
    /// A storage state file read, to load before the session answers.
    state: Option<(PathBuf, storage_state::StorageState)>,
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

impl Runtime {
    /// `session.start`: its params checked (display, emulation), a storage state read before anything
    /// starts (a bad one starts nothing), then the session ([`Runtime::start_session`]).
    ///
    /// # Errors
    /// `bad_request` for params it refuses; [`Runtime::start_session`]'s.
    pub(super) async fn session_start(
        &self,
        request: Request,
        budget: Budget,
    ) -> Result<SessionStartResult, ErrorBody> {
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
                    (tokens, token) => {
                        Some(self.owned_dir(&crate::files::owner(token.filter(|_| tokens)), Kind::States)?)
                    }
                };
                Some(storage_state::read(uploads, own.as_deref(), name)?)
            }
            None => None,
        };
        let start = Start { display, emulation: p.emulation, state };
        self.start_session(p.session_id, request.session_token, start, budget).await
    }

    /// `session.storage_state {save | load}`: the session's cookies and its active origin's local
    /// storage saved to a file of its owner's `states` directory, or such a file (or one of the uploads
    /// dir) loaded into its browser context.
    ///
    /// # Errors
    /// `bad_request` for params it refuses or a file it cannot read; the browser's.
    pub(super) async fn storage_state(
        &self,
        session: &Arc<SessionEntry>,
        params: Value,
        call: Call<'_>,
    ) -> Result<Value, ErrorBody> {
        let (q, budget) = (&self.queue, call.budget);
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
                let local = StorageParams {
                    kind: StorageKind::Local,
                    action: StorageAction::Get,
                    key: None,
                    value: None,
                };
                let read = q
                    .run(session, call, Action::call::<sb_protocol::api::call::PageStorage>(&local, None))
                    .await;
                let origins = match read.and_then(Output::result::<sb_protocol::api::call::PageStorage>) {
                    Ok(r) if !r.items.is_empty() => {
                        vec![storage_state::OriginState {
                            origin: r.origin,
                            local_storage: r.items,
                            session_storage: Vec::new(),
                        }]
                    }
                    Err(e) if e.code != ErrorCode::BadRequest => return Err(e),
                    _ => Vec::new(),
                };
                to_json(storage_state::write(&path, &storage_state::StorageState { cookies, origins })?)
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

    /// `session.trace {start | stop}`: the session's trace started into its owner's `traces`
    /// directory, or written ([`crate::features::trace::Tracer`]).
    ///
    /// # Errors
    /// `bad_request` for params it refuses; the tracer's.
    pub(super) fn trace(&self, session: &SessionEntry, params: Value) -> Result<Value, ErrorBody> {
        let p: sb_protocol::api::TraceParams = dispatch::params(params)?;
        to_json(match p.action {
            sb_protocol::api::TraceAction::Start => {
                self.tracer.start(&session.id, self.session_dir(session, Kind::Traces)?)?
            }
            sb_protocol::api::TraceAction::Stop => self.tracer.stop(&session.id, p.name.as_deref())?,
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
        crate::lifecycle::fds::room_for_session(browser_pid)?;
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

    /// Loads a storage state into `session`'s context `context`: its cookies, then its origins' local
    /// storage ([`storage_state::write_origins`]).
    async fn load_state(
        &self,
        session: &SessionEntry,
        link: &crate::lifecycle::link::Link,
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
    pub(super) async fn close_session(
        &self,
        session: &Arc<SessionEntry>,
        budget: Budget,
    ) -> SessionCloseResult {
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
}
