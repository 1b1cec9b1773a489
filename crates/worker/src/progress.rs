//! A [`Progress`] per action, modelled on Playwright's `server/progress.ts`: the action's budget, the
//! phase it is in and a log of the steps taken (both reported to the supervisor as they happen, so that
//! a timeout it answers after stopping the worker names them; the worker's own timeout error says what
//! was tried), and cleanups to run when the action is cut short (Playwright's
//! `cleanupWhenAborted`).
//!
//! Like Playwright's, a progress belongs to one action: it is made when the action starts and dropped
//! when it answers. Unlike Playwright's, it does not abort anything itself: the action's futures are
//! dropped by the worker (cancel) or end at their own deadline (every CDP call takes its time from
//! [`Progress::budget`]).

use std::sync::Mutex;
use std::time::Duration;

use sb_cdp::Session;
use sb_protocol::ipc::{FromWorker, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::error::fail;

/// Time the cleanups of an action cut short get ([`Progress::abort`]).
pub(crate) const CLEANUP_TIME: Duration = Duration::from_millis(200);

/// Where [`FromWorker::Phase`] reports go: the run's `seq` and the worker's outgoing channel.
pub(crate) type Reporter = (u64, mpsc::UnboundedSender<FromWorker>);

/// A CDP call that undoes a step (`Input.setInterceptDrags {enabled: false}`, a mouse button left
/// pressed), sent when the action is cut short.
struct Cleanup {
    session: Session,
    method: &'static str,
    params: Value,
}

/// One action's budget, phase, step log and cleanups.
pub(crate) struct Progress {
    budget: Budget,
    first_phase: Phase,
    phase: Mutex<Phase>,
    steps: Mutex<Vec<String>>,
    cleanups: Mutex<Vec<Cleanup>>,
    reporter: Option<Reporter>,
}

impl Progress {
    /// A progress for an action that starts in `phase` with `budget`.
    pub(crate) fn new(budget: Budget, phase: Phase, reporter: Option<Reporter>) -> Progress {
        Progress {
            budget,
            first_phase: phase,
            phase: Mutex::new(phase),
            steps: Mutex::default(),
            cleanups: Mutex::default(),
            reporter,
        }
    }

    /// The action's budget (the escalation ladder's reserve is already taken out).
    pub(crate) fn budget(&self) -> Budget {
        self.budget
    }

    /// The phase the action started in (its method's).
    pub(crate) fn first_phase(&self) -> Phase {
        self.first_phase
    }

    /// The phase the action is in.
    pub(crate) fn phase(&self) -> Phase {
        *self.phase.lock().unwrap()
    }

    /// Enters `phase` and tells the supervisor (a hard timeout then names it).
    pub(crate) fn enter(&self, phase: Phase) {
        *self.phase.lock().unwrap() = phase;
        if let Some((seq, tx)) = &self.reporter {
            let _ = tx.send(FromWorker::Phase { seq: *seq, phase });
        }
    }

    /// Logs a step taken ("waited for visible: ok"), and tells the supervisor (a hard timeout then
    /// names the last ones).
    pub(crate) fn log(&self, step: impl Into<String>) {
        let step = step.into();
        if let Some((seq, tx)) = &self.reporter {
            let _ = tx.send(FromWorker::Step { seq: *seq, step: step.clone() });
        }
        self.steps.lock().unwrap().push(step);
    }

    /// Logs `step` unless this action logged it already: a step a leaf takes again and again (a
    /// locator resolved each round of the actionability checks, a frame's document found) is said
    /// once, where it first happened.
    pub(crate) fn log_once(&self, step: impl Into<String>) {
        let step = step.into();
        if self.steps.lock().unwrap().contains(&step) {
            return;
        }
        self.log(step);
    }

    /// An error of `code` in the current phase.
    pub(crate) fn fail(&self, code: ErrorCode, message: impl Into<String>) -> WorkerError {
        fail(code, self.phase(), message)
    }

    /// `e` with what was tried appended to its message: ` (step; step)`, the step log (`e` as it is
    /// when nothing was logged). The log is reported once: a second call adds nothing.
    pub(crate) fn with_steps(&self, mut e: WorkerError) -> WorkerError {
        let steps = std::mem::take(&mut *self.steps.lock().unwrap());
        if !steps.is_empty() {
            e.message = format!("{} ({})", e.message, steps.join("; "));
        }
        e
    }

    /// Registers a CDP call to send should the action be cut short (a timeout or a cancel).
    pub(crate) fn on_abort<C: sb_cdp::commands::Command>(&self, session: &Session, cmd: &C) {
        let params = sb_cdp::commands::params(cmd);
        self.cleanups.lock().unwrap().push(Cleanup { session: session.clone(), method: C::METHOD, params });
    }

    /// The step those cleanups undo is done: they are not needed any more.
    pub(crate) fn forget_cleanups(&self) {
        self.cleanups.lock().unwrap().clear();
    }

    /// Sends the registered cleanups (newest first) and waits for their answers within `time`.
    pub(crate) async fn abort(&self, time: Duration) {
        let cleanups = std::mem::take(&mut *self.cleanups.lock().unwrap());
        let sent: Vec<_> =
            cleanups.iter().rev().map(|c| c.session.send_raw(c.method, c.params.clone(), time)).collect();
        let _ = tokio::time::timeout(time, futures_util::future::join_all(sent)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_says_what_was_tried() {
        let p = Progress::new(Budget::new(Duration::from_secs(1)), Phase::Actionability, None);
        let moving = || fail(ErrorCode::Timeout, Phase::Actionability, "button \"Go\" is still moving");
        assert_eq!(p.with_steps(moving()).message, "button \"Go\" is still moving");
        p.log("waited for visible: ok");
        p.log("stable: the box moved 3 times");
        let e = p.with_steps(moving());
        assert_eq!((e.code, e.phase), (ErrorCode::Timeout, Phase::Actionability));
        assert_eq!(
            e.message,
            "button \"Go\" is still moving (waited for visible: ok; stable: the box moved 3 times)"
        );
        p.enter(Phase::Cdp);
        assert_eq!(p.fail(ErrorCode::CdpError, "x").phase, Phase::Cdp);
    }
}
