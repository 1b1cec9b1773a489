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
//!
//! The modules form one-way layers (a module imports only from the layers below it):
//! - this file: the run loop and the dispatch of an [`Action`] to its module, crash handling;
//! - actions (`goto`, `extract`, `screenshot`, `evaluate`, `scroll`), `wait`, `snapshot`, `interact`
//!   (input on elements), `ladder` (freeing a stuck tab);
//! - `actionability` (the checks and the one retry loop), `input` (mouse and keyboard);
//! - `resolve` (refs and selectors to nodes), `frames` (a frame's session, offset and document);
//! - `page` (the connection, the session and its followers, evaluate helpers), `progress`;
//! - leaves: `lifecycle`, `oopifs`, `dialogs`, `keys`, `error`.

mod actionability;
mod actions;
mod dialogs;
mod error;
mod frames;
mod input;
mod interact;
mod keys;
mod ladder;
mod lifecycle;
mod oopifs;
mod page;
mod progress;
mod resolve;
mod snapshot;
mod wait;

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use sb_protocol::ipc::{
    self, Action, AttachedOutput, Counter, DialogPolicyOutput, FromWorker, Output, ToWorker, WorkerError,
};
use sb_protocol::{Budget, ErrorCode, Phase};
use tokio::net::UnixStream;
use tokio::sync::mpsc;
use tokio_util::codec::Framed;

use crate::error::{cdp_failure, fail};
use crate::page::{attach_session, url_and_title, Page};
use crate::progress::Progress;

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

/// Time the cleanups of an action cut short get (`Progress::abort`).
const CLEANUP_TIME: Duration = Duration::from_millis(200);

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
        // The action gets its budget less a reserve for the escalation ladder.
        let progress =
            Progress::new(budget.child(ladder::reserve(budget)), action.phase(), Some((seq, out_tx.clone())));
        // The action runs while the stream is still read, so that a Cancel can stop it.
        let mut exit = None;
        let finished = {
            let running = run_action(&mut page, action, budget, &progress);
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
                progress.abort(CLEANUP_TIME).await;
                let _ = ladder::free(&mut page, Budget::new(CANCEL_TIME)).await;
                Err(fail(ErrorCode::Cancelled, Phase::Worker, "the client went away; the action was stopped"))
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

/// Runs one action within `budget`: the action itself within `progress`'s part of it, then, when it timed
/// out, the escalation ladder, which makes sure the tab is free (or replaced) before the answer goes out.
async fn run_action(
    page: &mut Page,
    action: Action,
    budget: Budget,
    progress: &Progress,
) -> Result<Output, WorkerError> {
    if *page.crashed.borrow() {
        return Err(after_crash(page, action.phase(), budget).await);
    }
    let mut crashed = page.crashed.clone();
    let phase = action.phase();
    let outcome = {
        let running = act(page, action, budget, progress);
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
                Err(after_crash(page, phase, budget).await)
            } else {
                Err(e)
            }
        }
        Some(outcome) => outcome,
        None => Err(after_crash(page, phase, budget).await),
    }
}

/// The renderer crashed (before or during an action): reopen the tab at its last URL and answer
/// `page_reset`. The action is not run again: its effects on the old page are unknown.
async fn after_crash(page: &mut Page, phase: Phase, budget: Budget) -> WorkerError {
    page.tallies.push(Counter::RendererCrash);
    tracing::warn!(target_id = %page.target_id, "renderer_crashed");
    let reset =
        ladder::reset(page, Budget::until(budget.deadline() + sb_protocol::margins::RESET_OVERRUN)).await;
    let message = if reset {
        "the page's renderer crashed; the tab was reopened at its last URL (page state is lost); take a new snapshot"
    } else {
        "the page's renderer crashed and the tab could not be reopened yet; the next action tries again"
    };
    fail(ErrorCode::PageReset, phase, message)
}

/// The action itself within `p`, with the escalation ladder (within all of `budget`) after a timeout.
/// An action that failed gets its cleanups run first (`Progress::abort`).
async fn act(page: &mut Page, action: Action, budget: Budget, p: &Progress) -> Result<Output, WorkerError> {
    let outcome = match action {
        Action::Goto { url } => actions::goto(page, &url, p).await,
        Action::Extract { format, max_chars } => actions::extract(page, format, max_chars, p).await,
        Action::Screenshot { full_page, format, quality, inline, max_height, path } => {
            let shot = actions::Shot { full_page, format, quality, inline, max_height };
            actions::screenshot(page, shot, &path, p).await
        }
        Action::Evaluate { expression } => actions::evaluate(page, &expression, p).await,
        Action::CallFunction { function, target } => {
            actions::call_function(page, &function, target.as_ref(), p).await
        }
        Action::Scroll { dx, dy } => actions::scroll(page, dx, dy, p).await,
        Action::WaitFor { condition } => wait::wait_for(page, &condition, p).await,
        Action::Snapshot { options, next_ref } => snapshot::snapshot(page, &options, next_ref, p).await,
        Action::Input { target, input } => interact::act(page, target.as_ref(), &input, p).await,
        Action::HandleDialog { accept, prompt_text } => {
            page.dialogs.set_next(accept, prompt_text);
            Ok(Output::DialogPolicy(DialogPolicyOutput { accept }))
        }
        Action::Attach { target_id } => switch_to(page, &target_id, p.budget()).await,
    };
    let Err(e) = outcome else { return outcome };
    p.abort(CLEANUP_TIME).await;
    if e.code == ErrorCode::Timeout {
        return Err(ladder::after_timeout(page, e, budget).await);
    }
    Err(e)
}

/// Attaches to another tab of the session and drives it from now on (`tabs.focus`).
async fn switch_to(page: &mut Page, target_id: &str, budget: Budget) -> Result<Output, WorkerError> {
    let attached = attach_session(&page.browser, target_id, &page.dialogs, budget)
        .await
        .map_err(|e| cdp_failure(Phase::Session, e))?;
    page.adopt(target_id, attached);
    let (url, title, _) = url_and_title(page, budget).await;
    let url = url.unwrap_or_default();
    page.reported_url = url.clone();
    Ok(Output::Attached(AttachedOutput { url, title: title.unwrap_or_default() }))
}
