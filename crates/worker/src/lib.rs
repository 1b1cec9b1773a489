//! The worker: the killable process that runs one session's page actions over CDP.
//!
//! The supervisor starts one worker per session (the hidden `sandbox-browser worker` subcommand) in
//! its own process group, hands it a connected Unix stream, and kills the group when an action
//! overruns its budget. So everything that can hang on a page (navigation, in-page JavaScript,
//! screenshots) happens here, never in the supervisor.
//!
//! The worker opens its *own* CDP WebSocket to the browser, attaches to its session's target
//! (`Target.attachToTarget {flatten: true}`), answers [`sb_protocol::ipc::FromWorker::Ready`], then
//! runs [`sb_protocol::ipc::ToWorker::Run`] requests one at a time, each within the `budget_ms` it is
//! given. Each action keeps part of its budget back for the escalation ladder (`ladder`), which
//! frees a stuck tab before the worker answers. It must not touch the harness API, other sessions, or
//! the browser process.

mod actions;
mod dialogs;
mod frames;
mod input;
mod keys;
mod ladder;
mod snapshot;
mod wait;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use sb_cdp::{CdpClient, CdpError, Session};
use sb_protocol::ipc::{
    self, Action, AttachedOutput, Counter, DialogPolicyOutput, FromWorker, Output, ToWorker, WorkerError,
};
use sb_protocol::{Budget, ErrorCode, Phase};
use tokio::net::UnixStream;
use tokio::sync::mpsc;
use tokio_util::codec::Framed;

/// How the worker finds its page.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// The browser's CDP WebSocket URL (`ws://127.0.0.1:<port>/devtools/browser/<id>`).
    pub ws_url: String,
    /// CDP `targetId` of the session's page.
    pub target_id: String,
}

/// Time the worker takes to stop a cancelled action's script (nobody waits on the answer, but the
/// session's next action does).
const CANCEL_TIME: Duration = Duration::from_millis(1_500);

/// How long a failed CDP call waits for an `Inspector.targetCrashed` that may explain it.
const CRASH_EVENT_WAIT: Duration = Duration::from_millis(100);

/// Time allowed to connect and attach before `Ready`.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs the worker on `ipc` until the supervisor says `Shutdown`, closes the stream, or the browser
/// connection is lost.
///
/// # Errors
/// When the browser cannot be reached or the target cannot be attached (the supervisor sees the
/// stream close without `Ready`), or the IPC stream breaks.
pub async fn run(ipc: UnixStream, config: WorkerConfig) -> Result<(), String> {
    let framed = Framed::new(ipc, ipc::codec());
    let (mut sink, mut frames) = framed.split();

    let mut page = Page::attach(&config.ws_url, &config.target_id)
        .await
        .map_err(|e| format!("attach to {}: {e}", config.target_id))?;
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<FromWorker>();
    let _ = out_tx.send(FromWorker::Ready {
        target_id: config.target_id.clone(),
        cdp_session_id: page.session.id().to_string(),
    });
    let writer = tokio::spawn(async move {
        while let Some(msg) = out_rx.recv().await {
            let frame = ipc::encode(&msg).map_err(|e| e.to_string())?;
            sink.send(frame).await.map_err(|e| e.to_string())?;
        }
        Ok::<(), String>(())
    });

    let result = loop {
        let frame = tokio::select! {
            f = frames.next() => f,
            reason = page.browser.closed() => break Err(format!("browser connection lost: {reason}")),
        };
        let (seq, budget_ms, action) = match read(frame) {
            Err(e) => break e,
            Ok(ToWorker::Shutdown) => break Ok(()),
            Ok(ToWorker::Cancel { .. }) => continue,
            Ok(ToWorker::Run { seq, budget_ms, action }) => (seq, budget_ms, *action),
        };
        let budget = Budget::new(Duration::from_millis(budget_ms));
        page.progress = Some((seq, out_tx.clone()));
        // The action runs while the stream is still read, so that a Cancel can stop it.
        let mut exit = None;
        let finished = {
            let running = page.run(action, budget);
            tokio::pin!(running);
            loop {
                tokio::select! {
                    outcome = &mut running => break Some(outcome),
                    frame = frames.next() => match read(frame) {
                        Ok(ToWorker::Cancel { seq: s }) if s == seq => break None,
                        Ok(ToWorker::Shutdown) => { exit = Some(Ok(())); break None }
                        Err(e) => { exit = Some(e); break None }
                        Ok(_) => {}
                    },
                }
            }
        };
        let outcome = match finished {
            Some(outcome) => outcome,
            None => {
                page.stop_scripts(Budget::new(CANCEL_TIME)).await;
                Err(WorkerError {
                    code: ErrorCode::Cancelled,
                    phase: Phase::Worker,
                    message: "the client went away; the action was stopped".into(),
                })
            }
        };
        for (kind, message, accepted) in page.dialogs.take() {
            let _ = out_tx.send(FromWorker::Dialog { seq, kind, message, accepted });
        }
        if let Some(target_id) = page.take_target_change() {
            let _ = out_tx.send(FromWorker::TargetChanged { target_id });
        }
        for counter in std::mem::take(&mut page.tallies) {
            let _ = out_tx.send(FromWorker::Tally { counter });
        }
        if let Some(url) = page.take_url_change() {
            let _ = out_tx.send(FromWorker::Navigated { url });
        }
        page.progress = None;
        let _ = out_tx.send(FromWorker::Done { seq, outcome });
        if let Some(exit) = exit {
            break exit;
        }
    };
    drop(out_tx);
    let _ = writer.await;
    page.browser.close();
    result
}

/// Decodes one IPC frame; `Err(exit)` when the stream ended or broke.
fn read(frame: Option<Result<bytes::BytesMut, std::io::Error>>) -> Result<ToWorker, Result<(), String>> {
    match frame {
        None => Err(Ok(())),
        Some(Err(e)) => Err(Err(format!("ipc: {e}"))),
        Some(Ok(bytes)) => ipc::decode(&bytes).map_err(|e| Err(format!("ipc: undecodable frame: {e}"))),
    }
}

/// The attached page and what the worker remembers of it.
pub(crate) struct Page {
    /// The browser's WebSocket URL (for a second connection).
    pub(crate) ws_url: String,
    /// The worker's browser-level connection.
    pub(crate) browser: CdpClient,
    /// The page's current target.
    pub(crate) target_id: String,
    /// The flat session on the page's target.
    pub(crate) session: Session,
    /// The main frame's lifecycle events (for `networkidle`).
    pub(crate) lifecycle: tokio::sync::watch::Receiver<wait::Lifecycle>,
    /// Dialogs answered, and how to answer the next one.
    pub(crate) dialogs: dialogs::Dialogs,
    /// Set when a page reset replaced the target; reported to the supervisor.
    target_changed: bool,
    /// Becomes true when the page's renderer crashes (`Inspector.targetCrashed`).
    pub(crate) crashed: tokio::sync::watch::Receiver<bool>,
    /// Set before the worker ends the renderer itself (`Page.crash` in a page reset): that crash is
    /// not a fault to answer.
    pub(crate) crash_expected: Arc<AtomicBool>,
    /// The page's out-of-process iframes, by frame id.
    pub(crate) oopifs: frames::Oopifs,
    /// Where the last mouse event put the pointer, CSS px in the viewport (unknown on a new page).
    pub(crate) mouse_at: std::sync::Mutex<Option<(f64, f64)>>,
    /// The run in progress and where its [`FromWorker::Phase`] reports go.
    progress: Option<(u64, mpsc::UnboundedSender<FromWorker>)>,
    /// Counted events of the current run, reported to the supervisor after it.
    pub(crate) tallies: Vec<Counter>,
    /// The main frame URL last reported to the supervisor.
    reported_url: String,
}

impl Page {
    async fn attach(ws_url: &str, target_id: &str) -> Result<Page, CdpError> {
        let browser = CdpClient::connect(ws_url, ATTACH_TIMEOUT).await?;
        let dialogs = dialogs::Dialogs::default();
        let attached = attach_session(&browser, target_id, &dialogs, Budget::new(ATTACH_TIMEOUT)).await?;
        Ok(Page {
            ws_url: ws_url.to_string(),
            browser,
            target_id: target_id.to_string(),
            session: attached.session,
            dialogs,
            lifecycle: attached.lifecycle,
            target_changed: false,
            crashed: attached.crashed,
            crash_expected: attached.crash_expected,
            oopifs: attached.oopifs,
            mouse_at: std::sync::Mutex::new(None),
            progress: None,
            tallies: Vec::new(),
            reported_url: String::new(),
        })
    }

    /// Runs one action. The action gets its budget less a reserve for the escalation ladder; when it
    /// times out, the ladder makes sure the tab is free (or replaced) before the answer goes out.
    async fn run(&mut self, action: Action, budget: Budget) -> Result<Output, WorkerError> {
        if *self.crashed.borrow() {
            return Err(self.after_crash(action.phase(), budget).await);
        }
        let mut crashed = self.crashed.clone();
        let phase = action.phase();
        let outcome = {
            let running = self.act(action, budget);
            tokio::select! {
                outcome = running => Some(outcome),
                _ = crashed.wait_for(|c| *c) => None,
            }
        };
        match outcome {
            // A call on a crashed target can fail before the crash event is read: give it a moment.
            Some(Err(e)) if e.code == ErrorCode::CdpError => {
                let crash = tokio::time::timeout(CRASH_EVENT_WAIT, crashed.wait_for(|c| *c)).await;
                if crash.is_ok_and(|r| r.is_ok()) {
                    Err(self.after_crash(phase, budget).await)
                } else {
                    Err(e)
                }
            }
            Some(outcome) => outcome,
            None => Err(self.after_crash(phase, budget).await),
        }
    }

    /// The renderer crashed (before or during an action): reopen the tab at its last URL and answer
    /// `page_reset`. The action is not run again: its effects on the old page are unknown.
    async fn after_crash(&mut self, phase: Phase, budget: Budget) -> WorkerError {
        self.tallies.push(Counter::RendererCrash);
        tracing::warn!(target_id = %self.target_id, "renderer_crashed");
        let reset =
            ladder::reset(self, Budget::until(budget.deadline() + sb_protocol::margins::RESET_OVERRUN)).await;
        let message = if reset {
            "the page's renderer crashed; the tab was reopened at its last URL (page state is lost); take a new snapshot"
        } else {
            "the page's renderer crashed and the tab could not be reopened yet; the next action tries again"
        };
        WorkerError { code: ErrorCode::PageReset, phase, message: message.into() }
    }

    /// The action itself, with the escalation ladder after a timeout.
    async fn act(&mut self, action: Action, budget: Budget) -> Result<Output, WorkerError> {
        let inner = budget.child(ladder::reserve(budget));
        let outcome = match action {
            Action::Goto { url } => actions::goto(self, &url, inner).await,
            Action::Extract { format, max_chars } => actions::extract(self, format, max_chars, inner).await,
            Action::Screenshot { full_page, format, quality, inline, max_height, path } => {
                let shot = actions::Shot { full_page, format, quality, inline, max_height };
                actions::screenshot(self, shot, &path, inner).await
            }
            Action::Evaluate { expression } => actions::evaluate(self, &expression, inner).await,
            Action::CallFunction { function, target } => {
                actions::call_function(self, &function, target.as_ref(), inner).await
            }
            Action::Scroll { dx, dy } => actions::scroll(self, dx, dy, inner).await,
            Action::WaitFor { condition } => wait::wait_for(self, &condition, inner).await,
            Action::Snapshot { options, next_ref } => {
                snapshot::snapshot(self, &options, next_ref, inner).await
            }
            Action::Input { target, input } => input::act(self, target.as_ref(), &input, inner).await,
            Action::HandleDialog { accept, prompt_text } => {
                self.dialogs.set_next(accept, prompt_text);
                Ok(Output::DialogPolicy(DialogPolicyOutput { accept }))
            }
            Action::Attach { target_id } => self.switch_to(&target_id, inner).await,
        };
        match outcome {
            Err(e) if e.code == ErrorCode::Timeout => Err(ladder::after_timeout(self, e, budget).await),
            other => other,
        }
    }

    /// Attaches to another tab of the session and drives it from now on (`tabs.focus`).
    async fn switch_to(&mut self, target_id: &str, budget: Budget) -> Result<Output, WorkerError> {
        let attached = attach_session(&self.browser, target_id, &self.dialogs, budget)
            .await
            .map_err(|e| cdp_failure(Phase::Session, e))?;
        self.session = attached.session;
        self.lifecycle = attached.lifecycle;
        self.crashed = attached.crashed;
        self.crash_expected = attached.crash_expected;
        self.oopifs = attached.oopifs;
        *self.mouse_at.lock().unwrap() = None;
        self.target_id = target_id.to_string();
        self.target_changed = true;
        let (url, title, _) = actions::url_and_title(self, budget).await;
        let url = url.unwrap_or_default();
        self.reported_url = url.clone();
        Ok(Output::Attached(AttachedOutput { url, title: title.unwrap_or_default() }))
    }

    /// Tells the supervisor the run entered `phase` (a hard timeout then names it).
    pub(crate) fn enter(&self, phase: Phase) {
        if let Some((seq, tx)) = &self.progress {
            let _ = tx.send(FromWorker::Phase { seq: *seq, phase });
        }
    }

    /// Stops whatever script runs in the page (`Runtime.terminateExecution`), within `budget`.
    async fn stop_scripts(&mut self, budget: Budget) {
        let _ = ladder::free(self, budget).await;
    }

    fn take_target_change(&mut self) -> Option<String> {
        std::mem::take(&mut self.target_changed).then(|| self.target_id.clone())
    }

    /// The main frame's URL when it changed since the last report.
    fn take_url_change(&mut self) -> Option<String> {
        let url = self.lifecycle.borrow().url.clone();
        (!url.is_empty() && url != self.reported_url).then(|| {
            self.reported_url = url.clone();
            url
        })
    }
}

/// A flat session on a page target, with what the worker follows on it.
pub(crate) struct Attached {
    pub(crate) session: Session,
    pub(crate) lifecycle: tokio::sync::watch::Receiver<wait::Lifecycle>,
    pub(crate) crashed: tokio::sync::watch::Receiver<bool>,
    pub(crate) crash_expected: Arc<AtomicBool>,
    pub(crate) oopifs: frames::Oopifs,
}

/// Attaches to `target_id` and enables what the actions need (`Page`, `Network`, lifecycle events,
/// followed by [`wait::track_lifecycle`]; `Inspector` for `Inspector.targetCrashed`).
pub(crate) async fn attach_session(
    browser: &CdpClient,
    target_id: &str,
    dialogs: &dialogs::Dialogs,
    budget: Budget,
) -> Result<Attached, CdpError> {
    let session = browser.attach(target_id, budget.remaining()).await?;
    let lifecycle = wait::track_lifecycle(&session, target_id);
    let crash_expected = Arc::new(AtomicBool::new(false));
    let crashed = watch_crash(&session, crash_expected.clone());
    let oopifs = frames::track_oopifs(browser, &session);
    dialogs.watch(&session);
    // Focus emulation keeps every tab "focused": without it, once a popup's window takes the focus,
    // input to the opener's page is never acknowledged (Input.dispatchMouseEvent hangs).
    let (a, b, c, d, e, f) = tokio::join!(
        // Cross-site iframes are targets of their own: attach to them as they appear.
        session.call_raw(
            "Target.setAutoAttach",
            serde_json::json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}),
            budget.remaining()
        ),
        session.call_raw("Page.enable", serde_json::json!({}), budget.remaining()),
        session.call_raw(
            "Emulation.setFocusEmulationEnabled",
            serde_json::json!({"enabled": true}),
            budget.remaining()
        ),
        session.call_raw("Network.enable", serde_json::json!({}), budget.remaining()),
        session.call_raw(
            "Page.setLifecycleEventsEnabled",
            serde_json::json!({"enabled": true}),
            budget.remaining()
        ),
        session.call_raw("Inspector.enable", serde_json::json!({}), budget.remaining()),
    );
    a?;
    b?;
    c?;
    d?;
    e?;
    f?;
    Ok(Attached { session, lifecycle, crashed, crash_expected, oopifs })
}

/// Becomes true on `Inspector.targetCrashed` for `session`'s target (the renderer died: out of memory,
/// a renderer bug, `Page.crash` from elsewhere), unless `expected` says the worker ended it itself.
fn watch_crash(session: &Session, expected: Arc<AtomicBool>) -> tokio::sync::watch::Receiver<bool> {
    let (tx, rx) = tokio::sync::watch::channel(false);
    let mut events = session.events();
    tokio::spawn(async move {
        while let Some(ev) = events.recv().await {
            if ev.method == "Inspector.targetCrashed" && !expected.load(Ordering::SeqCst) {
                let _ = tx.send(true);
                break;
            }
        }
    });
    rx
}

/// Maps a CDP failure in `phase` to the worker's error: a CDP timeout is the action's [`ErrorCode::Timeout`].
pub(crate) fn cdp_failure(phase: Phase, e: CdpError) -> WorkerError {
    let code = if e.is_timeout() { ErrorCode::Timeout } else { ErrorCode::CdpError };
    let message = match &e {
        CdpError::Timeout { method, .. } => format!("{method} did not answer within the budget"),
        other => other.to_string(),
    };
    WorkerError { code, phase, message }
}
