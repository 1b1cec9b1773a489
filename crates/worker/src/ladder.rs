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
//! 3. Page reset: end the stuck renderer (`Page.crash`), close the target and open a new one at its
//!    last URL (`Target.getTargetInfo`), answered as `page_reset`.
//!
//! Past the ladder there is one more step, the supervisor's: when the worker has not answered by the
//! request's deadline plus a grace, it kills the worker's process group and starts a fresh worker.

use std::time::Duration;

use sb_cdp::types::{CreateTargetResult, EvaluateResult};
use sb_cdp::{CdpClient, Session};
use sb_protocol::ipc::WorkerError;
use sb_protocol::margins::{self, RESET_OVERRUN, RESET_TIME};
use sb_protocol::{Budget, ErrorCode};
use serde_json::json;

use crate::error::fail;
use crate::page::{attach_session, Page};

/// Longest the responsiveness probe may take (a free page answers in a few ms).
const PROBE: Duration = Duration::from_millis(150);
/// Longest a `Runtime.terminateExecution` call may take.
const TERMINATE: Duration = Duration::from_millis(200);

/// How much of an action's budget is kept back for the ladder ([`margins::ladder_reserve`]).
pub(crate) fn reserve(budget: Budget) -> Duration {
    margins::ladder_reserve(budget.remaining())
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
        Freed::Reset => fail(
            ErrorCode::PageReset,
            error.phase,
            format!(
                "{}; the tab was stuck and was reopened at its last URL (page state is lost)",
                error.message
            ),
        ),
        Freed::Stuck => WorkerError { message: format!("{}; the tab is still busy", error.message), ..error },
    }
}

/// Longest the second connection may take in all (connect, attach, terminate).
const SECOND: Duration = Duration::from_millis(250);

/// Steps 0 to 3 within `budget`; steps 0 to 2 leave [`RESET_TIME`] for step 3.
pub(crate) async fn free(page: &mut Page, budget: Budget) -> Freed {
    let early = budget.child(RESET_TIME);
    if responsive(&page.session, early).await {
        return Freed::Responsive;
    }
    let answered = terminate(&page.session, early).await;
    if answered {
        page.tallies.push(sb_protocol::ipc::Counter::TerminateExecution);
        if responsive(&page.session, early).await {
            return Freed::Terminated;
        }
    }
    if !answered && !early.expired() {
        let second = Budget::new(early.capped(SECOND));
        let attempt = async {
            let client = CdpClient::connect(&page.ws_url, second.remaining()).await.ok()?;
            let session = client.attach(&page.target_id, second.remaining()).await.ok();
            let answered = match &session {
                Some(s) => terminate(s, second).await,
                None => false,
            };
            client.close();
            Some(answered)
        };
        if tokio::time::timeout(second.remaining(), attempt).await.ok().flatten() == Some(true) {
            page.tallies.push(sb_protocol::ipc::Counter::TerminateExecution);
            if responsive(&page.session, early).await {
                return Freed::Terminated;
            }
        }
    }
    if reset(page, Budget::until(budget.deadline() + RESET_OVERRUN)).await {
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

/// Step 3 (and the answer to a renderer crash): a new target at the old one's URL replaces it; the
/// page's session moves to it. Whether it worked within `budget`.
pub(crate) async fn reset(page: &mut Page, budget: Budget) -> bool {
    let browser = page.browser.clone();
    let info = browser
        .call_raw("Target.getTargetInfo", None, json!({"targetId": page.target_id}), budget.capped(TERMINATE))
        .await;
    let url = info
        .ok()
        .and_then(|v| v["targetInfo"]["url"].as_str().map(str::to_string))
        .unwrap_or_else(|| "about:blank".into());
    // The stuck renderer must go first: a new page at the same site would share its process (and
    // its blocked main thread). `Page.crash` runs on the renderer's IO thread, so it works even then.
    // It never answers (the renderer is gone): a short wait is enough to send it.
    page.crash_expected.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = page.session.call_raw("Page.crash", json!({}), budget.capped(Duration::from_millis(50))).await;
    let _ = browser
        .call_raw("Target.closeTarget", None, json!({"targetId": page.target_id}), budget.capped(TERMINATE))
        .await;
    let created: Result<CreateTargetResult, _> = browser
        .call("Target.createTarget", None, json!({"url": url, "newWindow": true}), budget.remaining())
        .await;
    let created = match created {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error.message = %e, "page_reset_failed");
            return false;
        }
    };
    let attached = match attach_session(&browser, &created.target_id, &page.dialogs, budget).await {
        Ok(attached) => attached,
        Err(e) => {
            tracing::warn!(error.message = %e, "page_reset_failed");
            return false;
        }
    };
    // The new page loads its URL; wait for its DOMContentLoaded with what is left of the time.
    let mut loading = attached.lifecycle.clone();
    let _ = tokio::time::timeout(
        budget.remaining(),
        loading.wait_for(|l| l.events.iter().any(|e| e == "DOMContentLoaded")),
    )
    .await;
    tracing::warn!(old = %page.target_id, new = %created.target_id, %url, "page_reset");
    page.session = attached.session;
    page.lifecycle = attached.lifecycle;
    page.crashed = attached.crashed;
    page.crash_expected = attached.crash_expected;
    page.oopifs = attached.oopifs;
    *page.mouse_at.lock().unwrap() = None;
    page.target_id = created.target_id;
    page.target_changed = true;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserve_is_a_third_within_bounds() {
        let r = |ms| reserve(Budget::new(Duration::from_millis(ms))).as_millis() as i64;
        assert!((r(6_000) - 2_000).abs() <= 5);
        assert!((r(1_500) - 800).abs() <= 5, "at least 800 ms");
        assert!((r(120_000) - 3_000).abs() <= 5, "at most 3 s");
        assert!(r(300) <= 300, "never more than the budget");
    }
}
