//! The session's queue and `run`: one page action at a time per session, on the session's worker,
//! after the browser's health check.
//!
//! [`Queue::run`] waits for the session's turn (a fair async mutex around its worker) within the
//! request's budget, gets a checked browser link ([`BrowserHealth::link`]), brings the tab list up
//! to date when a tab closed, starts a fresh worker when the last one was killed, died, belongs to a
//! replaced browser or drives another tab, runs the action, then applies what the worker reported
//! (dialogs, a page reset, the main frame's URL, counters). Other sessions never wait on it.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use sb_protocol::ipc::{Action, Counter, Output};
use sb_protocol::{Budget, ErrorBody, ErrorCode, Phase};
use tokio_util::sync::CancellationToken;

use crate::lifecycle::health::BrowserHealth;
use crate::lifecycle::link::Link;
use crate::pipeline::call::Call;
use crate::sessions::store::StoreEvent;
use crate::sessions::unstick;
use crate::sessions::{SessionEntry, Sessions};
use crate::stats::Stats;
use crate::workers::worker::{WorkerHandle, WorkerLauncher};

/// Longest a background worker replacement may take to attach.
const WORKER_START: Duration = Duration::from_secs(10);
/// How long a new worker may take to attach before the supervisor looks at its tab
/// ([`unstick::free`]); at most a third of the budget.
const ATTACH_PATIENCE: Duration = Duration::from_millis(1_000);

/// What running a page action takes: the browser's health, the sessions, workers, counters.
#[derive(Clone)]
pub struct Queue {
    pub(crate) health: Arc<BrowserHealth>,
    pub(crate) sessions: Arc<Sessions>,
    pub(crate) launcher: WorkerLauncher,
    pub(crate) stats: Arc<Stats>,
    /// The sessions' kept states (`crate::sessions::kept`); `None` without a runtime dir to keep them in.
    pub(crate) kept: Option<Arc<crate::sessions::kept::Kept>>,
}

impl Queue {
    /// Runs one action on the session's worker, in the session's queue, after the health check; starts
    /// a fresh worker on the session's target first when the last one was killed or died, belongs to a
    /// browser that has been replaced, or drives another tab than the active one.
    ///
    /// # Errors
    /// `timeout` (phase `worker`) when the budget ran out in the queue; the health check's errors
    /// (`browser_unavailable`, `timeout` in `launch`); the worker's.
    pub async fn run(
        &self,
        session: &Arc<SessionEntry>,
        call: Call<'_>,
        action: Action,
    ) -> Result<Output, ErrorBody> {
        let Call { method, budget, steps, .. } = call;
        let (queued_at, replacing) = (std::time::Instant::now(), session.replacing.load(Ordering::SeqCst));
        let behind = if replacing {
            "a worker started after the last one ended"
        } else {
            "the session's earlier actions"
        };
        let free = session.worker.try_lock().ok();
        let waited = free.is_none();
        let queued = match free {
            Some(slot) => Ok(slot),
            None => tokio::time::timeout(budget.remaining(), session.worker.lock()).await,
        };
        let mut slot = queued.map_err(|_| {
            ErrorBody::new(
                ErrorCode::Timeout,
                Phase::Worker,
                format!("{} waited its whole budget behind {behind}", method.name()),
            )
        })?;
        if replacing {
            session.recovery_waited(queued_at.elapsed().as_millis() as u64);
        }
        if waited {
            steps.log(format!("waited {} ms in the queue behind {behind}", queued_at.elapsed().as_millis()));
        }
        // An action that only reads, or whose repetition is what was asked (a goto), and that the
        // browser died under, waits for the recovery and runs again on the reopened page, within its
        // budget: its result says `session_reset`. Other actions answer `page_reset`: their effect may
        // or may not have happened.
        let again = method.repeatable().then(|| action.clone());
        let mut result = self.run_once(session, &mut slot, call, action).await;
        if let (Some(action), Err(e)) = (again, &result) {
            if e.code == ErrorCode::PageReset
                && e.message == sb_protocol::error::BROWSER_GONE
                && !budget.expired()
            {
                tracing::info!(browser.session_id = %session.id, browser.action = method.name(), "action_repeated_after_restart");
                result = self.run_once(session, &mut slot, call, action).await;
            }
        }
        // A worker that answered `worker_crashed` itself (it lost its connection: it fell a whole
        // queue behind the page) is on its way out: replaced now, so that the next action does not
        // meet it exiting (`worker_crashed` again, measured under load).
        if let (Err(e), Some(w)) = (&result, slot.as_mut()) {
            if e.code == ErrorCode::WorkerCrashed && !w.is_spent() {
                w.kill();
            }
        }
        if slot.as_mut().is_some_and(|w| w.is_spent()) {
            *slot = None;
            drop(slot);
            self.replace_worker_soon(session.clone()).await;
        }
        result
    }

    /// One run of `action` on the session's worker (`slot`, the session's queue held), after the
    /// health check; the worker it ran on stays in `slot`, spent or not.
    async fn run_once(
        &self,
        session: &Arc<SessionEntry>,
        slot: &mut Option<WorkerHandle>,
        call: Call<'_>,
        action: Action,
    ) -> Result<Output, ErrorBody> {
        let Call { method, budget, cancel, steps } = call;
        // A worker is started only on a browser known to be alive: when the start fails because the
        // browser died a moment ago, the health check restarts it (and reopens the session's page), and
        // the start is tried once more on the new one.
        let mut attempts = 0;
        let (worker, link) = loop {
            attempts += 1;
            let link = self.health.link(budget).await?;
            if session.tabs_dirty.swap(false, Ordering::SeqCst) {
                steps.log("read the session's tabs");
                Sessions::current_tabs(session, &link, budget).await?;
            }
            if session.target().is_empty() {
                steps.log("opened a page for the session");
                self.sessions.open_target(session, &link, budget).await?;
            }
            // A worker on another tab than the session's active one (that tab closed) is replaced too;
            // why, is the step's word.
            let why = match slot.as_mut() {
                None => Some("started a worker for the session's tab"),
                Some(w) if w.browser() != link.browser => {
                    Some("started a worker in the new browser (the last one was replaced)")
                }
                Some(w) if w.target_id() != session.target() => {
                    Some("started a worker for the session's active tab")
                }
                Some(w) => w.is_spent().then_some("started a worker (the last one had ended)"),
            };
            let Some(why) = why else {
                match slot.as_mut() {
                    Some(w) => break (w, link),
                    None => return Err(ErrorBody::new(ErrorCode::Internal, Phase::Worker, "no worker")),
                }
            };
            *slot = None;
            session.tab_sessions.store(0, Ordering::Relaxed);
            steps.log(why);
            match self.start_worker(session, &link, budget).await {
                Ok(fresh) => {
                    tracing::info!(browser.session_id = %session.id, worker.pid = fresh.pid(), "worker_replaced");
                    break (slot.insert(fresh), link);
                }
                Err(e) if attempts == 1 && self.browser_gone_since(&link).await => {
                    tracing::warn!(browser.session_id = %session.id, error.message = %e.message, "worker_start_on_dead_browser");
                    self.health.mark_suspect().await;
                }
                Err(e) => return Err(e),
            }
        };
        *session.worker_tx.lock().unwrap() = Some(worker.sender());
        // A new browser context (a restart) gets the session's kept login back before its page is
        // reloaded below, or the action navigates.
        let mut held = None;
        if session.context_renewed.swap(false, Ordering::SeqCst) {
            if let Some(kept) = &self.kept {
                steps.log("put the session's login back in the new browser");
                if let Some(put) = kept.restore(session, &link, budget).await {
                    *session.restored.lock().unwrap() = Some(put.restored);
                    held = put.held;
                }
            }
        }
        let attaching = matches!(action, Action::Attach { .. });
        // A page reopened after a restart loads its URL before the action runs (a goto needs none).
        let restored = match session.take_restore() {
            Some(url) if !matches!(action, Action::Goto { .. } | Action::Attach { .. }) => {
                steps.log(format!("reopened the session's page at {}", sb_protocol::redact::in_url(&url)));
                restore(worker, session, &url, budget, cancel).await
            }
            _ => Ok(()),
        };
        let result = match restored {
            Ok(()) => {
                worker.run(method.name(), (method.phase(), method.reads_only()), action, budget, cancel).await
            }
            Err(e) => Err(e),
        };
        // The page has been reloaded with its sessionStorage: the script that put it back goes.
        if let Some(held) = held {
            crate::sessions::kept::end_held(held);
        }
        session.dialogs.lock().unwrap().append(worker.take_dialogs());
        let (count, texts) = worker.take_console_errors();
        {
            let mut errors = session.console_errors.lock().unwrap();
            errors.0 += count;
            errors.1.extend(texts);
            let extra = errors.1.len().saturating_sub(sb_protocol::ipc::CONSOLE_TEXTS);
            errors.1.drain(..extra);
        }
        for counter in worker.take_tallies() {
            match counter {
                Counter::TerminateExecution => self.stats.terminate_executions.inc(),
                Counter::RendererCrash => self.stats.renderer_crashes.inc(),
            }
        }
        if worker.overran() {
            self.stats.worker_kills.inc();
        }
        session.tab_sessions.store(worker.tab_sessions(), Ordering::Relaxed);
        if let Some(ms) = worker.take_recovery_waited() {
            session.recovery_waited(ms);
        }
        let reset_reason = worker.take_reset_reason();
        // A worker whose browser has since been replaced did not move the tab: the restart gave the
        // session a new page (rehydration), which must not be set back to the dead browser's target
        // (the repeated read's worker then failed to attach: "No target with given id found").
        if worker.target_id() != session.target() && !self.browser_gone_since(&link).await {
            let target_id = worker.target_id().to_string();
            if attaching {
                session.set_target(target_id.clone());
            } else {
                session.replace_tab(&session.target(), &target_id);
                // No reason: a crash the action already answered as `page_reset`.
                if let Some(reason) = &reset_reason {
                    session.mark_reset(reason);
                }
                self.stats.page_resets.inc();
            }
            self.sessions.record(StoreEvent::TargetBound { session_id: session.id.clone(), target_id }).await;
        }
        if let Some(url) = worker.take_navigated() {
            self.sessions.url_seen(session, &url).await;
        }
        if worker.take_download_began() {
            session.download_began.store(true, Ordering::Relaxed);
        }
        // The supervisor's standby session on the tab (for freeing it should no worker be able to
        // attach), attached while the page is idle: it has just answered.
        // Then the session's kept state is brought up to date, on that standby session (read after
        // the answer: nothing waits for it).
        if result.is_ok() {
            let (session, link, kept) = (session.clone(), link.clone(), self.kept.clone());
            let stale = session.standby_stale(link.browser);
            tokio::spawn(async move {
                if stale {
                    unstick::keep_standby(&session, &link).await;
                }
                if let Some(kept) = kept {
                    kept.refresh(&session, &link).await;
                }
            });
        }
        let mut result = result;
        if let Err(e) = &mut result {
            if matches!(
                e.code,
                ErrorCode::Timeout | ErrorCode::WorkerCrashed | ErrorCode::CdpError | ErrorCode::PageReset
            ) {
                self.health.mark_suspect().await;
            }
            // The browser died under the action: one code and the right cause, whatever the worker saw
            // of it (a closed connection, a renderer gone with it, its own exit). It may already have
            // been replaced by the time the worker's end is told (the connection's watcher restarted
            // it meanwhile): the browser the action ran on is not the current one then, and a read is
            // still repeated on the reopened page.
            if matches!(e.code, ErrorCode::WorkerCrashed | ErrorCode::CdpError | ErrorCode::PageReset)
                && self.browser_gone_since(&link).await
            {
                *e = browser_gone(e.phase);
            }
        }
        result
    }

    /// Whether the browser of `link` is gone: down now, or already replaced by a restart (the
    /// connection's watcher, or another request's health check, may restart it before a worker's end
    /// is told).
    async fn browser_gone_since(&self, link: &Link) -> bool {
        let replaced = self.health.current_link().await.is_some_and(|now| now.browser != link.browser);
        replaced || self.health.is_down().await
    }

    /// Starts a fresh worker for `session` in the background (the answer that reported the old one's
    /// end is not held up); the session's next action waits for it in the queue.
    async fn replace_worker_soon(&self, session: Arc<SessionEntry>) {
        let Some(link) = self.health.current_link().await else { return };
        let queue = self.clone();
        session.replacing.store(true, Ordering::SeqCst);
        tokio::spawn(async move {
            let mut slot = session.worker.lock().await;
            if slot.is_none() {
                match queue.start_worker(&session, &link, Budget::new(WORKER_START)).await {
                    Ok(fresh) => {
                        tracing::info!(browser.session_id = %session.id, worker.pid = fresh.pid(), "worker_replaced");
                        *slot = Some(fresh);
                    }
                    Err(e) => {
                        tracing::warn!(browser.session_id = %session.id, error.message = %e.message, "worker_replace_failed")
                    }
                }
            }
            session.replacing.store(false, Ordering::SeqCst);
        });
    }

    /// [`unstick::reset`], counted as a page reset (`runtime.stats` `page_resets`), as the worker's
    /// own resets are.
    ///
    /// # Errors
    /// As [`unstick::reset`].
    async fn reset_tab(&self, session: &SessionEntry, link: &Link, budget: Budget) -> Result<(), ErrorBody> {
        unstick::reset(&self.sessions, session, link, budget).await?;
        self.stats.page_resets.inc();
        Ok(())
    }

    /// Starts a worker on the session's active tab within `budget`, and sees that it can attach.
    ///
    /// A worker attaches in well under a second. One that has not after [`ATTACH_PATIENCE`] (a third
    /// of the budget at most) may be waiting on a renderer busy in a script, which nothing else would
    /// stop: the supervisor frees the tab from its own connection meanwhile ([`unstick::free`]), and
    /// the worker's queued calls are answered once the script stops. A tab that cannot be freed so,
    /// and a session whose worker failed to attach twice in a row, gets a new page first
    /// ([`unstick::reset`]: `session_reset`, `tab_stuck`), and the worker starts on that.
    ///
    /// # Errors
    /// [`WorkerHandle::spawn`]'s; the reset's (phase `session`).
    async fn start_worker(
        &self,
        session: &Arc<SessionEntry>,
        link: &Link,
        budget: Budget,
    ) -> Result<WorkerHandle, ErrorBody> {
        let emulation = session.emulation.lock().unwrap().clone();
        let launcher = self.launcher.for_session(*session.display.lock().unwrap(), emulation);
        if session.attach_failures.load(Ordering::SeqCst) >= 2 {
            tracing::warn!(browser.session_id = %session.id, "worker_cannot_attach");
            self.reset_tab(session, link, budget).await?;
        }
        let target = session.target();
        // Boxed, so that dropping it (a reset) kills the worker it was starting.
        let mut spawning =
            Box::pin(WorkerHandle::spawn(&launcher, link, &target, session.dialog_policy.clone(), budget));
        let patience = ATTACH_PATIENCE.min(budget.remaining() / 3);
        let attached = tokio::select! {
            started = &mut spawning => Some(started),
            _ = tokio::time::sleep(patience) => None,
        };
        let attached = match attached {
            Some(started) => Some(started),
            None => {
                // The worker is slow to attach: is the tab stuck? Freed while the worker waits.
                let freeing = unstick::free(session, link, &target, budget);
                tokio::pin!(freeing);
                tokio::select! {
                    started = &mut spawning => Some(started),
                    freed = &mut freeing => match freed {
                        unstick::Freed::Stuck => None,
                        unstick::Freed::Responsive | unstick::Freed::Terminated => Some((&mut spawning).await),
                    },
                }
            }
        };
        let started = match attached {
            Some(started) => started,
            None => {
                // Not even a terminated script freed it: a new page, and a worker on it.
                drop(spawning);
                self.reset_tab(session, link, budget).await?;
                WorkerHandle::spawn(&launcher, link, &session.target(), session.dialog_policy.clone(), budget)
                    .await
            }
        };
        match &started {
            Ok(fresh) => {
                session.attach_failures.store(0, Ordering::SeqCst);
                // A `page.handle_dialog` the last worker had not used yet is the new one's (the frame
                // arrives before any run).
                let answer = session.dialog_policy.lock().unwrap().clone();
                if answer.is_some() {
                    let _ = fresh.sender().send(sb_protocol::ipc::ToWorker::NextDialog { answer });
                }
                // The tabs the last worker left: held by the supervisor until one is focused again.
                if session.tabs().len() > 1 {
                    tokio::spawn(Sessions::hold_left_tabs(session.clone(), link.clone(), launcher.viewport));
                }
            }
            Err(e) => {
                let failures = session.attach_failures.fetch_add(1, Ordering::SeqCst) + 1;
                tracing::warn!(browser.session_id = %session.id, failures, error.message = %e.message, "worker_attach_failed");
            }
        }
        started
    }
}

/// Loads `url` in the session's reopened page (a goto on its worker, within the action's `budget`),
/// so that the action runs on the page, not on `about:blank` or a document still loading; the time it
/// took counts as the action's wait for recovery (`waited_for_recovery_ms`).
///
/// # Errors
/// `timeout` (phase `navigate`) when the page did not even commit in time (kept for the next action);
/// `page_reset` when it could not be loaded; the worker's errors.
async fn restore(
    worker: &mut WorkerHandle,
    session: &SessionEntry,
    url: &str,
    budget: Budget,
    cancel: &CancellationToken,
) -> Result<(), ErrorBody> {
    let started = std::time::Instant::now();
    let outcome = worker
        .run(
            "reopening the page",
            (Phase::Navigate, false),
            Action::Goto { url: url.to_string() },
            budget,
            cancel,
        )
        .await;
    session.recovery_waited(started.elapsed().as_millis() as u64);
    match outcome {
        Ok(Output::Goto(g)) if g.timed_out && g.load_state == "none" => {
            session.keep_restore(url.to_string());
            Err(ErrorBody::new(
                ErrorCode::Timeout,
                Phase::Navigate,
                format!("the session's page was reopened and {url} did not load within the budget; the next action tries again"),
            ))
        }
        Ok(_) => Ok(()),
        Err(e) if e.code == ErrorCode::NavigationFailed => Err(ErrorBody::new(
            ErrorCode::PageReset,
            Phase::Navigate,
            format!("the session's page was reopened but {url} could not be loaded ({}); the tab shows an error page", e.message),
        )),
        Err(e) => {
            if e.code == ErrorCode::Timeout {
                session.keep_restore(url.to_string());
            }
            Err(e)
        }
    }
}

/// `page_reset` for an action the browser died under (`browser_restarted`).
pub(crate) fn browser_gone(phase: Phase) -> ErrorBody {
    ErrorBody::new(ErrorCode::PageReset, phase, sb_protocol::error::BROWSER_GONE)
}
