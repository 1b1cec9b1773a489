//! The escalation ladder: what the worker does when an action ran out of time, so that the next
//! action on the tab works.
//!
//! Each step is bounded and the ladder stops at the first that frees the tab:
//!
//! 0. Is the tab responsive? (`Runtime.evaluate "1"`, at most [`PROBE`].) An action can time out
//!    without the page being stuck: a promise that never resolves, a slow server.
//! 1. `Runtime.terminateExecution` on the page's session, then the probe again. This stops a loop
//!    after an `await` and a loop the page started from a timer, which `Runtime.evaluate`'s own
//!    `timeout` does not.
//! 2. When the terminate call itself got no answer: the same over a second CDP connection.
//! 3. Page reset: close the target and open a new one at its last URL (`Target.getTargetInfo`), answered
//!    as `page_reset`.
//!
//! Past the ladder there is one more step, the supervisor's: when the worker has not answered by the
//! request's deadline plus a grace, it kills the worker's process group and starts a fresh worker.

use std::time::Duration;

use sb_cdp::types::{CreateTargetResult, EvaluateResult};
use sb_cdp::{CdpClient, Session};
use sb_protocol::ipc::WorkerError;
use sb_protocol::{Budget, ErrorCode};
use serde_json::json;

use crate::Page;

/// Longest the responsiveness probe may take.
const PROBE: Duration = Duration::from_millis(250);
/// Longest a `Runtime.terminateExecution` call may take.
const TERMINATE: Duration = Duration::from_millis(250);

/// How much of an action's budget is kept back for the ladder: a quarter, at least 400 ms, at most 2 s
/// (never more than the budget).
pub(crate) fn reserve(budget: Budget) -> Duration {
    let total = budget.remaining();
    (total / 4).clamp(Duration::from_millis(400), Duration::from_secs(2)).min(total)
}

/// How the ladder ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Freed {
    /// The tab answered without help.
    Responsive,
    /// `Runtime.terminateExecution` stopped a script.
    Terminated,
    /// The target was replaced (page reset).
    Reset,
    /// Nothing worked within the budget.
    Stuck,
}

/// Runs the ladder after an action's timeout `error`, within `budget`, and returns the error to
/// answer: the timeout (saying whether a script was stopped), or `page_reset`.
pub(crate) async fn after_timeout(page: &mut Page, error: WorkerError, budget: Budget) -> WorkerError {
    match free(page, budget).await {
        Freed::Responsive => error,
        Freed::Terminated => WorkerError {
            message: format!("{}; the page's script was stopped (Runtime.terminateExecution)", error.message),
            ..error
        },
        Freed::Reset => WorkerError {
            code: ErrorCode::PageReset,
            phase: error.phase,
            message: format!(
                "{}; the tab was stuck and was reopened at its last URL (page state is lost)",
                error.message
            ),
        },
        Freed::Stuck => WorkerError { message: format!("{}; the tab is still busy", error.message), ..error },
    }
}

/// Steps 0 to 3 within `budget`.
pub(crate) async fn free(page: &mut Page, budget: Budget) -> Freed {
    if responsive(&page.session, budget).await {
        return Freed::Responsive;
    }
    let answered = terminate(&page.session, budget).await;
    if responsive(&page.session, budget).await {
        return Freed::Terminated;
    }
    if !answered && !budget.expired() {
        if let Ok(second) = CdpClient::connect(&page.ws_url, budget.capped(TERMINATE * 2)).await {
            if let Ok(session) = second.attach(&page.target_id, budget.capped(TERMINATE)).await {
                terminate(&session, budget).await;
            }
            second.close();
            if responsive(&page.session, budget).await {
                return Freed::Terminated;
            }
        }
    }
    if reset(page, budget).await {
        Freed::Reset
    } else {
        Freed::Stuck
    }
}

/// `Runtime.terminateExecution`; whether Chromium answered.
async fn terminate(session: &Session, budget: Budget) -> bool {
    session.call_raw("Runtime.terminateExecution", json!({}), budget.capped(TERMINATE)).await.is_ok()
}

/// Whether the page's main thread runs a trivial script within [`PROBE`].
async fn responsive(session: &Session, budget: Budget) -> bool {
    let timeout = budget.capped(PROBE);
    if timeout.is_zero() {
        return false;
    }
    let r: Result<EvaluateResult, _> =
        session.call("Runtime.evaluate", json!({"expression": "1", "returnByValue": true}), timeout).await;
    r.is_ok_and(|r| r.exception_details.is_none())
}

/// Step 3: a new target at the old one's URL replaces it; the page's session moves to it.
async fn reset(page: &mut Page, budget: Budget) -> bool {
    let browser = page.browser.clone();
    let info = browser
        .call_raw("Target.getTargetInfo", None, json!({"targetId": page.target_id}), budget.capped(TERMINATE))
        .await;
    let url = info
        .ok()
        .and_then(|v| v["targetInfo"]["url"].as_str().map(str::to_string))
        .unwrap_or_else(|| "about:blank".into());
    let created: Result<CreateTargetResult, _> = browser
        .call("Target.createTarget", None, json!({"url": url, "newWindow": true}), budget.remaining())
        .await;
    let Ok(created) = created else { return false };
    let _ = browser
        .call_raw("Target.closeTarget", None, json!({"targetId": page.target_id}), budget.capped(TERMINATE))
        .await;
    let Ok((session, lifecycle)) =
        crate::attach_session(&browser, &created.target_id, &page.dialogs, budget).await
    else {
        return false;
    };
    tracing::warn!(old = %page.target_id, new = %created.target_id, %url, "page_reset");
    page.session = session;
    page.lifecycle = lifecycle;
    page.target_id = created.target_id;
    page.target_changed = true;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserve_is_a_quarter_within_bounds() {
        let r = |ms| reserve(Budget::new(Duration::from_millis(ms))).as_millis() as i64;
        assert!((r(8_000) - 2_000).abs() <= 5);
        assert!((r(2_000) - 500).abs() <= 5);
        assert!((r(1_000) - 400).abs() <= 5, "at least 400 ms");
        assert!((r(120_000) - 2_000).abs() <= 5, "at most 2 s");
        assert!(r(300) <= 300, "never more than the budget");
    }
}
