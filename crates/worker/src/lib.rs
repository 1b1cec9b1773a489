//! The worker: the killable process that runs one session's page actions over CDP.
//!
//! The supervisor starts one worker per session (the hidden `sandbox-browser worker` subcommand) in
//! its own process group, hands it a connected Unix stream, and kills the group when an action
//! overruns its budget. So everything that can hang on a page (navigation, in-page JavaScript,
//! screenshots) happens here, never in the supervisor.
//!
//! The worker speaks CDP on connections carried by the same stream (routes of the supervisor's relay
//! on the browser's pipe: `conns`), attaches to its session's target
//! (`Target.attachToTarget {flatten: true}`), answers [`sb_protocol::ipc::FromWorker::Ready`], then
//! runs [`sb_protocol::ipc::ToWorker::Run`] requests one at a time, each within the `budget_ms` it is
//! given: the action owns its whole budget, and a tab left stuck (or crashed) is freed by the
//! escalation ladder (`ladder`) after the answer. It must not touch the harness API, other sessions, or
//! the browser process.
//!
//! The modules form one-way layers (a module imports only from the layers below it):
//! - this file: the run loop and the dispatch of an [`Action`] to its module, crash handling;
//! - actions (`goto`, `extract`, `screenshot`, `evaluate`, `scroll`), `wait`, `snapshot`, `interact`
//!   (input on elements), `ladder` (freeing a stuck tab);
//! - `actionability` (the checks and the one retry loop), `input` (mouse and keyboard);
//! - `resolve` (refs and selectors to nodes), `frames` (a frame's session, offset and document),
//!   `settle` (waiting for the navigation an input started, for a loading document);
//! - `page` (the connection, the session and its followers, evaluate helpers), `progress`;
//! - leaves: `conns` (the browser connections over the stream), `lifecycle`, `oopifs`, `dialogs`,
//!   `keys`, `error`.

mod action;
mod elements;
mod error;
mod inputs;
mod ladder;
mod progress;
mod snapshot;
mod tab;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use sb_cdp::wire::Inbound;
use sb_protocol::api::DialogInfo;
use sb_protocol::ipc::{
    self, Action, Counter, Display, FromWorker, Output, ToWorker, WorkerError, CONSOLE_TEXTS,
    CONSOLE_TEXT_CHARS,
};
use sb_protocol::margins::RECOVERY_MAX;
use sb_protocol::{Budget, ErrorCode, Phase};
use tokio::net::UnixStream;
use tokio::sync::mpsc;
use tokio_util::codec::Framed;

pub use crate::action::calls::handles;
use crate::tab::conns::{Conns, Deliveries};
pub use crate::tab::dialogs::{answer_dialog, DialogAnswer};
pub use crate::tab::emulate::{apply as emulate_page, scripts_on, start_held_page};

use crate::action::act;
use crate::error::{browser_gone, fail};
use crate::progress::Progress;
use crate::tab::page::{Moved, Page};
use crate::tab::{dialogs, lifecycle};

/// How the worker finds its page.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// CDP `targetId` of the session's page.
    pub target_id: String,
    /// The page's viewport, CSS px (`Emulation.setDeviceMetricsOverride` on every page the worker
    /// attaches to); `None` leaves the window's own.
    pub viewport: Option<Display>,
}

/// Longest the checks after a failed call take: is the renderer alive, is the browser.
const CRASH_CHECK: Duration = Duration::from_millis(1_000);

/// A run the supervisor sent: its `seq`, when it was read, its budget (from that moment), its action,
/// and whether its method only reads the page.
struct Job {
    seq: u64,
    arrived: Instant,
    budget: Budget,
    action: Action,
    /// The method only reads the page ([`ToWorker::Run`]'s `reads`).
    reads: bool,
    /// The phase the method's work starts in.
    phase: Phase,
}

impl Job {
    /// A run read now.
    fn new(seq: u64, budget_ms: u64, action: Action, (reads, phase): (bool, Phase)) -> Job {
        let arrived = Instant::now();
        let budget = Budget::until(arrived + Duration::from_millis(budget_ms));
        Job { seq, arrived, budget, action, reads, phase }
    }
}

/// What the tab needs after an answer, before the next action runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Aftercare {
    /// The action timed out or was cancelled: the escalation ladder ([`ladder::free`]); `input` when
    /// an input call (`Input.dispatch*`) got no answer: the tab's input is checked too.
    Free { input: bool },
    /// The renderer crashed: reopen the page ([`ladder::reopen_after_crash`]).
    Reopen,
}

/// How the loop ends: `Ok` on `Shutdown` or a closed stream, `Err` when the stream broke.
type Exit = Result<(), String>;

/// What the stream's reader hands the run loop: a frame other than CDP traffic, or why it ended
/// (`Err`: the stream broke); nothing more once it ends.
type Control = mpsc::UnboundedReceiver<Result<ToWorker, String>>;

/// Longest the worker waits at exit for its last frames to be written.
const FLUSH: Duration = Duration::from_millis(1_000);

/// Runs the worker on `ipc` until the supervisor says `Shutdown`, closes the stream, or the browser
/// connection is lost.
///
/// Each run gets its whole budget; when it timed out, was cancelled or its renderer crashed, the tab is
/// freed *after* the answer (the stream is still read meanwhile), and the next run waits for that
/// within its own budget ([`FromWorker::Recovered`]).
///
/// # Errors
/// When the browser cannot be reached or the target cannot be attached (the supervisor sees the
/// stream close without `Ready`), or the IPC stream breaks.
pub async fn run(ipc: UnixStream, config: WorkerConfig) -> Result<(), String> {
    let framed = Framed::new(ipc, ipc::codec());
    let (mut sink, mut stream) = framed.split();
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<FromWorker>();
    let writer = tokio::spawn(async move {
        while let Some(msg) = out_rx.recv().await {
            // What else is already waiting goes out in the same write.
            ipc::send_batch(&mut sink, msg, || out_rx.try_recv().ok()).await.map_err(|e| e.to_string())?;
        }
        Ok::<(), String>(())
    });
    // The reader: the browser's messages to their connections, everything else to the loop.
    let deliveries = Deliveries::default();
    let (control_tx, mut frames): (_, Control) = mpsc::unbounded_channel();
    let reader_deliveries = deliveries.clone();
    // How the next dialog is answered: claimed from the supervisor, which may have used it first.
    let dialogs = dialogs::Dialogs::new(out_tx.clone());
    let reader_dialogs = dialogs.clone();
    tokio::spawn(async move {
        let reason = loop {
            let msg = match stream.next().await {
                None => break "the supervisor closed the stream".to_string(),
                Some(Err(e)) => Err(format!("ipc: {e}")),
                Some(Ok(bytes)) => ipc::decode(&bytes).map_err(|e| format!("ipc: undecodable frame: {e}")),
            };
            match msg {
                Ok(ToWorker::Cdp { conn, message }) => {
                    reader_deliveries.deliver(conn, Inbound::Message(message)).await
                }
                Ok(ToWorker::CdpClosed { conn, reason }) => {
                    reader_deliveries.deliver(conn, Inbound::Closed(reason)).await
                }
                Ok(ToWorker::NextDialog { answer }) => match answer {
                    Some((accept, prompt_text)) => reader_dialogs.set_next(accept, prompt_text),
                    None => reader_dialogs.forget_next(),
                },
                Ok(ToWorker::DialogClaimed { answer }) => reader_dialogs.claimed(answer),
                Ok(other) => {
                    let _ = control_tx.send(Ok(other));
                }
                Err(e) => {
                    let _ = control_tx.send(Err(e.clone()));
                    break e;
                }
            }
        };
        reader_deliveries.close_all(&reason);
    });
    let conns = Conns::new(out_tx.clone(), deliveries);
    // What every page the worker attaches to emulates: the supervisor's first frame.
    let emulation = match frames.recv().await {
        Some(Ok(ToWorker::Setup { emulation })) => *emulation,
        Some(Ok(other)) => return Err(format!("expected Setup first, got {other:?}")),
        Some(Err(e)) => return Err(e),
        None => return Err("the supervisor closed the stream before Setup".into()),
    };

    let mut page = Page::attach(conns, &config.target_id, config.viewport, emulation, dialogs)
        .await
        .map_err(|e| format!("attach to {}: {e}", config.target_id))?;
    let _ = out_tx.send(FromWorker::Ready {
        target_id: config.target_id.clone(),
        cdp_session_id: page.session.id().to_string(),
    });

    let mut queued: Option<Job> = None;
    let mut aftercare: Option<Aftercare> = None;
    let result = loop {
        // The tab is freed after the previous answer; a run that arrives meanwhile waits for it.
        if let Some(care) = aftercare.take() {
            if let Err(exit) = recover(&mut page, care, &mut frames, &out_tx, &mut queued).await {
                break exit;
            }
            report_moves(&mut page, &out_tx);
        }
        let job = match queued.take() {
            Some(queued) => queued,
            None => {
                let frame = tokio::select! {
                    f = frames.recv() => f,
                    reason = page.browser.closed() => break Err(format!("browser connection lost: {reason}")),
                };
                match read(frame) {
                    Err(e) => break e,
                    Ok(ToWorker::Shutdown) => break Ok(()),
                    Ok(
                        ToWorker::Cancel { .. }
                        | ToWorker::Setup { .. }
                        | ToWorker::Cdp { .. }
                        | ToWorker::CdpClosed { .. }
                        | ToWorker::NextDialog { .. }
                        | ToWorker::DialogClaimed { .. },
                    ) => continue,
                    Ok(ToWorker::Run { seq, budget_ms, action, reads, phase }) => {
                        Job::new(seq, budget_ms, *action, (reads, phase))
                    }
                }
            }
        };
        let Job { seq, arrived, budget, action, reads, phase } = job;
        let mut waited = arrived.elapsed();
        // A renderer that crashed between two actions: reopen the page before this one runs.
        let mut reopen_failed = None;
        if *page.crashed.borrow() {
            let started = Instant::now();
            let (reason, reopened) = crash_reopen(&mut page, budget).await;
            waited += started.elapsed();
            if !reopened {
                reopen_failed = Some(reason);
            }
        }
        if waited >= Duration::from_millis(1) {
            let _ = out_tx.send(FromWorker::Recovered { seq, waited_ms: waited.as_millis() as u64 });
        }
        page.journal.begin_run();
        let errors_before = (std::sync::Arc::as_ptr(&page.journal), page.journal.errors());
        let progress = Progress::new(budget, phase, Some((seq, out_tx.clone())));
        // The action runs while the stream is still read, so that a Cancel can stop it.
        let mut exit = None;
        let finished = if let Some(reason) = reopen_failed {
            let e = fail(
                ErrorCode::PageReset,
                phase,
                format!("the page's renderer crashed ({reason}) and the tab could not be reopened within the budget; the next action tries again"),
            );
            Some((Err(e), None))
        } else {
            let again = reads.then(|| action.clone());
            let recovered = out_tx.clone();
            let page = &mut page;
            let progress = &progress;
            let running = async move {
                let first = run_action(page, action, progress).await;
                match (first, again) {
                    // A renderer that crashed before this action but whose crash event was read only
                    // once it ran (the crash raced the request), or under it: an action that only
                    // reads runs again on the reopened page, within its own budget.
                    ((Err(e), Some(Aftercare::Reopen)), Some(again)) if e.code == ErrorCode::PageReset => {
                        let started = Instant::now();
                        let (_, reopened) = crash_reopen(page, progress.budget()).await;
                        let waited_ms = (waited + started.elapsed()).as_millis() as u64;
                        let _ = recovered.send(FromWorker::Recovered { seq, waited_ms });
                        if reopened {
                            run_action(page, again, progress).await
                        } else {
                            (Err(e), None)
                        }
                    }
                    (first, _) => first,
                }
            };
            tokio::pin!(running);
            loop {
                tokio::select! {
                    outcome = &mut running => break Some(outcome),
                    frame = frames.recv() => match read(frame) {
                        Ok(ToWorker::Cancel { seq: s }) if s == seq => break None,
                        Ok(ToWorker::Shutdown) => { exit = Some(Ok(())); break None }
                        Err(e) => { exit = Some(e); break None }
                        Ok(_) => {}
                    },
                }
            }
        };
        let outcome = match finished {
            Some((outcome, care)) => {
                aftercare = care;
                outcome
            }
            None => {
                progress.abort(progress::CLEANUP_TIME).await;
                aftercare = Some(Aftercare::Free { input: false });
                Err(fail(ErrorCode::Cancelled, Phase::Worker, "the client went away; the action was stopped"))
            }
        };
        // Errors of the tab the run ended on (a run that moved to another tab counts that tab's).
        let errors = match errors_before {
            (journal, before) if std::ptr::eq(journal, std::sync::Arc::as_ptr(&page.journal)) => {
                page.journal.errors() - before
            }
            _ => page.journal.errors(),
        };
        if errors > 0 {
            let newest = (errors as usize).min(CONSOLE_TEXTS) as u32;
            let listed = page.journal.console(0, sb_protocol::api::ConsoleLevel::Error, newest);
            let texts = listed
                .messages
                .into_iter()
                .map(|m| m.text.chars().take(CONSOLE_TEXT_CHARS).collect())
                .collect();
            let _ = out_tx.send(FromWorker::ConsoleErrors { seq, count: errors, texts });
        }
        let answered = page.dialogs.take();
        for DialogInfo { kind, message, accepted, default_value } in answered.listed {
            let _ = out_tx.send(FromWorker::Dialog { seq, kind, message, accepted, default_value });
        }
        if answered.dropped > 0 {
            let _ = out_tx.send(FromWorker::DialogsDropped { seq, count: answered.dropped });
        }
        report_moves(&mut page, &out_tx);
        let _ = out_tx.send(FromWorker::Done { seq, outcome });
        if let Some(exit) = exit {
            break exit;
        }
    };
    page.browser.close();
    drop(page);
    drop(out_tx);
    let _ = tokio::time::timeout(FLUSH, writer).await;
    result
}

/// Sends what changed about the page since the last report: a new target (page reset, tab switch),
/// counted events, the main frame's URL, the sessions it holds on tabs (after letting go of those
/// whose tab closed: [`Page::let_go_of_closed_tabs`]).
fn report_moves(page: &mut Page, out_tx: &mpsc::UnboundedSender<FromWorker>) {
    if let Some((target_id, reason)) = page.take_target_change() {
        let _ = out_tx.send(FromWorker::TargetChanged { target_id, reason });
    }
    page.let_go_of_closed_tabs();
    if let Some(count) = page.take_tab_sessions_change() {
        let _ = out_tx.send(FromWorker::TabSessions { count });
    }
    for counter in std::mem::take(&mut page.tallies) {
        let _ = out_tx.send(FromWorker::Tally { counter });
    }
    if let Some(url) = page.take_url_change() {
        let _ = out_tx.send(FromWorker::Navigated { url });
    }
    if page.download_began.swap(false, std::sync::atomic::Ordering::Relaxed) {
        let _ = out_tx.send(FromWorker::DownloadBegan);
    }
}

/// Frees the tab after an answer (`care`), within [`RECOVERY_MAX`], while reading the stream: a run
/// that arrives meanwhile is kept in `queued` (with its arrival) and waits; should its own budget run
/// out first, it is answered `timeout` at its deadline while the freeing goes on. A cancel of the
/// queued run answers `cancelled`.
///
/// # Errors
/// The loop's exit, on `Shutdown` or a closed or broken stream.
async fn recover(
    page: &mut Page,
    care: Aftercare,
    frames: &mut Control,
    out_tx: &mpsc::UnboundedSender<FromWorker>,
    queued: &mut Option<Job>,
) -> Result<(), Exit> {
    let started = Instant::now();
    let budget = Budget::new(RECOVERY_MAX);
    let freeing = async {
        match care {
            Aftercare::Free { input } => format!("{:?}", ladder::free(page, budget, input).await),
            Aftercare::Reopen => {
                let (reason, reopened) = crash_reopen(page, budget).await;
                // The crash was answered (`page_reset`); a crash loop is news for the next result.
                if reason != "crash_loop" && page.moved.is_some() {
                    page.moved = Some(Moved::Reopened);
                }
                format!("{reason}, reopened: {reopened}")
            }
        }
    };
    tokio::pin!(freeing);
    loop {
        let deadline = queued.as_ref().map(|j| j.budget.deadline());
        let far = Instant::now() + RECOVERY_MAX;
        tokio::select! {
            freed = &mut freeing => {
                tracing::info!(outcome = %freed, took_ms = started.elapsed().as_millis() as u64, "tab_recovered");
                return Ok(());
            }
            frame = frames.recv() => match read(frame)? {
                ToWorker::Run { seq, budget_ms, action, reads, phase } => {
                    *queued = Some(Job::new(seq, budget_ms, *action, (reads, phase)));
                }
                ToWorker::Cancel { seq } => {
                    if queued.as_ref().is_some_and(|j| j.seq == seq) {
                        *queued = None;
                        let e = fail(ErrorCode::Cancelled, Phase::Worker, "the client went away; the action was dropped");
                        let _ = out_tx.send(FromWorker::Done { seq, outcome: Err(e) });
                    }
                }
                ToWorker::Shutdown => return Err(Ok(())),
                ToWorker::Setup { .. }
                | ToWorker::Cdp { .. }
                | ToWorker::CdpClosed { .. }
                | ToWorker::NextDialog { .. }
                | ToWorker::DialogClaimed { .. } => {}
            },
            _ = tokio::time::sleep_until(deadline.unwrap_or(far).into()), if deadline.is_some() => {
                if let Some(job) = queued.take() {
                    let waited = job.arrived.elapsed().as_millis();
                    let e = fail(
                        ErrorCode::Timeout,
                        job.phase,
                        format!("the tab was still being freed after the previous action's timeout ({waited} ms waited); the next action waits for it again"),
                    );
                    let _ = out_tx.send(FromWorker::Done { seq: job.seq, outcome: Err(e) });
                }
            }
        }
    }
}

/// Counts the crash and reopens the page ([`ladder::reopen_after_crash`]) within `budget`.
async fn crash_reopen(page: &mut Page, budget: Budget) -> (&'static str, bool) {
    page.tallies.push(Counter::RendererCrash);
    tracing::warn!(target_id = %page.target_id, "renderer_crashed");
    ladder::reopen_after_crash(page, budget).await
}

/// One frame from the reader; `Err(exit)` when the stream ended or broke.
fn read(frame: Option<Result<ToWorker, String>>) -> Result<ToWorker, Exit> {
    match frame {
        None => Err(Ok(())),
        Some(Err(e)) => Err(Err(e)),
        Some(Ok(msg)) => Ok(msg),
    }
}

/// Runs one action within `progress`'s budget (all of the run's), and says what the tab needs after
/// the answer: the ladder after a timeout, a reopen after a renderer crash.
async fn run_action(
    page: &mut Page,
    action: Action,
    progress: &Progress,
) -> (Result<Output, WorkerError>, Option<Aftercare>) {
    let mut crashed = page.crashed.clone();
    let phase = progress.first_phase();
    let input = match &action {
        Action::Call { method, .. } => {
            sb_protocol::api::Method::parse(method).is_some_and(|m| m.phase() == Phase::Actionability)
        }
        other => matches!(other, Action::Input { .. } | Action::FillForm { .. }),
    };
    // The action ends at its budget's deadline whatever call it is in: a call given a floor of time
    // of its own (an input event's `DISPATCH_MIN`, a navigation's last reads) must not carry the
    // answer past the supervisor's grace, where the worker is killed and its steps are lost. The
    // worker's deadline is `T - HEADROOM` and the kill comes at `T + GRACE`: the cut falls halfway,
    // leaving the other half for the answer's trip.
    let slack = (sb_protocol::margins::HEADROOM + sb_protocol::margins::GRACE) / 2;
    let deadline = tokio::time::Instant::from_std(progress.budget().deadline() + slack);
    let outcome = {
        let running = act::act(page, action, progress);
        tokio::select! {
            outcome = running => Some(outcome),
            _ = lifecycle::until(&mut crashed, |c| *c) => None,
            _ = tokio::time::sleep_until(deadline) => {
                let what = match progress.phase() {
                    Phase::Cdp if input => "the input",
                    _ => "the action",
                };
                let e = fail(ErrorCode::Timeout, progress.phase(), format!("{what} did not finish within its budget"));
                // The cleanups go out now, unwaited for (the ladder after the answer frees the rest).
                progress.abort(Duration::ZERO).await;
                return (Err(progress.with_steps(e)), Some(Aftercare::Free { input }));
            }
        }
    };
    match outcome {
        // A call on a crashed target can fail before the crash event is read (a navigation to a URL
        // that crashes the renderer answers `net::ERR_ABORTED` first): ask the page.
        // The worker's own connection to the browser closed: the browser went away (it closes its
        // sockets while it exits, before the supervisor can see it gone), whatever the action made of
        // the failed calls.
        Some(Err(_)) if page.browser.closed_reason().is_some() => (Err(connection_lost(page, phase)), None),
        Some(Err(e)) if matches!(e.code, ErrorCode::CdpError | ErrorCode::NavigationFailed) => {
            if tab_closed(page).await {
                (Err(fail(ErrorCode::PageReset, phase, TAB_CLOSED)), None)
            } else if renderer_gone(page, &mut crashed).await {
                (Err(crash_or_browser(page, phase).await), Some(Aftercare::Reopen))
            } else {
                (Err(e), None)
            }
        }
        Some(Err(e)) if e.code == ErrorCode::Timeout => {
            let input = e.phase == Phase::Cdp && e.message.contains("Input.");
            (Err(e), Some(Aftercare::Free { input }))
        }
        Some(outcome) => (outcome, None),
        None => (Err(crash_or_browser(page, phase).await), Some(Aftercare::Reopen)),
    }
}

/// The answer to an action whose connection to the browser closed: the browser went away
/// (`page_reset`, `browser_restarted`), unless the relay ended the connection because this worker fell
/// a whole queue behind the page's messages ([`ipc::FELL_BEHIND`]): then the browser and the page are
/// as they were (`worker_crashed`; the session gets a worker that reads).
fn connection_lost(page: &Page, phase: Phase) -> WorkerError {
    if page.browser.closed_reason().is_some_and(|r| r.contains(ipc::FELL_BEHIND)) {
        let message = "the session's worker fell too far behind the page's messages (a burst of console \
                       or network events) and lost its connection; the next action gets a new worker, the \
                       page is as it was";
        return fail(ErrorCode::WorkerCrashed, phase, message);
    }
    browser_gone(phase)
}

/// The answer to an action whose tab closed under it.
const TAB_CLOSED: &str = "the tab closed during the action (the page closed itself, window.close()); the \
                          session goes on in its newest remaining tab: take a new snapshot";

/// After a failed call: whether the active tab itself is gone (a page that closed itself under the
/// action: its calls answer "Session with given id not found"), asked of the browser
/// (`Target.getTargetInfo` of the tab's `targetId`, bounded by [`CRASH_CHECK`]). A browser that does
/// not answer is not taken for a closed tab.
async fn tab_closed(page: &Page) -> bool {
    match page.browser.target_info(&page.target_id, CRASH_CHECK).await {
        Err(sb_cdp::CdpError::Protocol { message, .. }) => message.contains("No target with given id"),
        _ => false,
    }
}

/// After a failed call: whether the page's renderer is gone. A live page answers a trivial script, a
/// crashed one does not; a crash event settles it either way. Bounded by [`CRASH_CHECK`].
async fn renderer_gone(page: &Page, crashed: &mut tokio::sync::watch::Receiver<bool>) -> bool {
    let one = sb_cdp::calls::Evaluate::by_value("1");
    let answered = {
        let probe = page.session.evaluate(&one, CRASH_CHECK);
        tokio::select! {
            seen = lifecycle::until(crashed, |c| *c) => return seen,
            answered = probe => answered,
        }
    };
    answered.is_err() && lifecycle::wait_until(crashed, CRASH_CHECK, |c| *c).await
}

/// The answer to a renderer that died under an action: `page_reset`, with the cause. When the
/// browser itself is gone (a browser killed takes its renderers with it, and the crash may be
/// reported first), the cause is the browser's (`browser_restarted`), else the renderer's.
async fn crash_or_browser(page: &Page, phase: Phase) -> WorkerError {
    let alive = page.browser.run(&sb_cdp::commands::BrowserGetVersion {}, CRASH_CHECK).await;
    if alive.is_err() {
        return connection_lost(page, phase);
    }
    fail(
        ErrorCode::PageReset,
        phase,
        "the page's renderer crashed during the action; the tab is reopened at its last loaded URL after this answer (page state is lost); take a new snapshot",
    )
}
