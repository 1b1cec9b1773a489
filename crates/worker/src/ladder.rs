//! The escalation ladder: what the worker does after an action ran out of time (or was cancelled), so
//! that the next action on the tab works; and the reopening of a page whose renderer crashed.
//!
//! It runs *after* the answer: the action owns its whole budget, and the session's next action waits
//! for the freeing inside its own budget (`waited_for_recovery_ms`). Each step is bounded and the
//! ladder stops at the first that frees the tab:
//!
//! 0. Is the tab responsive? (`Runtime.evaluate "1"`, at most [`PROBE`].) An action can time out
//!    without the page being stuck: a promise that never resolves, a slow server.
//! 1. `Runtime.terminateExecution` on the page's session, then the probe again. This stops a loop
//!    after an `await` and a loop the page started from a timer, which `Runtime.evaluate`'s own
//!    `timeout` does not.
//! 2. When the terminate call itself got no answer: the same on a new session over a second
//!    connection (another route of the supervisor's relay).
//! 3. Page reset: end the stuck renderer (`Page.crash`), close the target and open a new one, which
//!    loads the old one's URL (`Target.getTargetInfo`) up to `DOMContentLoaded`; the session's next
//!    result says `session_reset` (`tab_stuck`).
//!
//! A renderer crash reopens the page at the last URL that reached `DOMContentLoaded` (never the URL
//! that crashed it); a URL that crashed the renderer twice is not reopened again (`about:blank`,
//! `crash_loop`).
//!
//! Past the ladder there is one more step, the supervisor's: when the worker has not answered by the
//! request's deadline plus a grace, it kills the worker's process group and starts a fresh worker.

use std::time::Duration;

use sb_cdp::commands::{InputDispatchMouseEvent, PageCrash, RuntimeTerminateExecution, TargetCloseTarget};
use sb_cdp::types::NavigateResult;
use sb_cdp::Session;
use sb_protocol::margins::RESET_TIME;
use sb_protocol::Budget;
use serde_json::json;

use crate::tab::page::{Moved, Page};

/// Longest the responsiveness probe may take (a free page answers in a few ms).
const PROBE: Duration = Duration::from_millis(150);
/// Longest a `Runtime.terminateExecution` call may take.
const TERMINATE: Duration = Duration::from_millis(200);

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

/// Longest the second connection may take in all (connect, attach, terminate).
const SECOND: Duration = Duration::from_millis(250);

/// Steps 0 to 3 within `budget`; steps 0 to 2 leave [`RESET_TIME`] for step 3. With `input` (an input
/// call got no answer), a tab whose JavaScript answers but whose input does not (Chromium took a wheel
/// it cannot scroll, and acknowledges no input after it) is stuck too: it is reset.
pub(crate) async fn free(page: &mut Page, budget: Budget, input: bool) -> Freed {
    let early = budget.child(RESET_TIME);
    if responsive(&page.session, early).await {
        if !input || takes_input(&page.session, early).await {
            return Freed::Responsive;
        }
        tracing::warn!(target_id = %page.target_id, "input_stuck");
        let url = target_url(page, budget).await;
        return if reset(page, &url, "tab_stuck", budget).await { Freed::Reset } else { Freed::Stuck };
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
            let client = page.conns.open();
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
    let url = target_url(page, budget).await;
    if reset(page, &url, "tab_stuck", budget).await {
        Freed::Reset
    } else {
        Freed::Stuck
    }
}

/// `Runtime.terminateExecution`; whether Chromium answered.
async fn terminate(session: &Session, budget: Budget) -> bool {
    session.run(&RuntimeTerminateExecution {}, budget.capped(TERMINATE)).await.is_ok()
}

/// Whether the tab acknowledges a mouse move (`Input.dispatchMouseEvent` to its corner) within
/// [`PROBE`] twice over.
async fn takes_input(session: &Session, budget: Budget) -> bool {
    let moved = InputDispatchMouseEvent { kind: "mouseMoved".into(), ..InputDispatchMouseEvent::default() };
    session.run(&moved, budget.capped(PROBE * 2)).await.is_ok()
}

/// Whether the page's main thread runs a trivial script within [`PROBE`].
async fn responsive(session: &Session, budget: Budget) -> bool {
    session.responsive(budget.capped(PROBE)).await
}

/// The URL `Target.getTargetInfo` gives for the page's target (`about:blank` when it does not answer).
async fn target_url(page: &Page, budget: Budget) -> String {
    let info = page.browser.target_info(&page.target_id, budget.capped(TERMINATE)).await;
    info.ok().map(|i| i.url).unwrap_or_else(|| "about:blank".into())
}

/// The page's renderer crashed: reopen it at the last URL that reached `DOMContentLoaded`, unless that
/// URL has crashed the renderer twice (then `about:blank`). Returns the reset's reason
/// (`renderer_crashed` or `crash_loop`) and whether the page was reopened within `budget`.
pub(crate) async fn reopen_after_crash(page: &mut Page, budget: Budget) -> (&'static str, bool) {
    let crashed_at = target_url(page, budget).await;
    *page.crashes.entry(crashed_at.clone()).or_default() += 1;
    let loaded = page.lifecycle.borrow().loaded_url.clone();
    let good = if loaded.is_empty() { crashed_at } else { loaded };
    let (url, reason) = if page.crashes.get(&good).copied().unwrap_or(0) >= 2 {
        ("about:blank".to_string(), "crash_loop")
    } else {
        (good, "renderer_crashed")
    };
    tracing::warn!(target_id = %page.target_id, url = %sb_protocol::redact::in_url(&url), reason, "reopen_after_crash");
    (reason, reset(page, &url, reason, budget).await)
}

/// Step 3 (and the answer to a renderer crash): a new target replaces the page's, loads `url` up to
/// `DOMContentLoaded` (`Page.navigate`, then the lifecycle event of its `loaderId`, so the answer
/// never comes from the new target's first `about:blank`), and the page's session moves to it
/// (reported with `reason`). Whether the new target was attached within `budget`.
pub(crate) async fn reset(page: &mut Page, url: &str, reason: &'static str, budget: Budget) -> bool {
    let browser = page.browser.clone();
    // The stuck renderer must go first: a new page at the same site would share its process (and
    // its blocked main thread). `Page.crash` runs on the renderer's IO thread, so it works even then.
    // It never answers (the renderer is gone): a short wait is enough to send it.
    // The new page goes into the old one's browser context (the session's cookies and storage).
    let context = browser
        .target_info(&page.target_id, budget.capped(TERMINATE))
        .await
        .ok()
        .and_then(|i| i.browser_context_id);
    page.crash_expected.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = page.session.run(&PageCrash {}, budget.capped(Duration::from_millis(50))).await;
    let close = TargetCloseTarget { target_id: page.target_id.clone() };
    let _ = browser.run(&close, budget.capped(TERMINATE)).await;
    let created =
        match browser.create_target("about:blank", true, context.as_deref(), budget.remaining()).await {
            Ok(target_id) => target_id,
            Err(e) => {
                tracing::warn!(error.message = %e, "page_reset_failed");
                return false;
            }
        };
    let attached = match page.attach_another(&created, None, budget).await {
        Ok(attached) => attached,
        Err(e) => {
            tracing::warn!(error.message = %e, "page_reset_failed");
            return false;
        }
    };
    tracing::warn!(old = %page.target_id, new = %created, url = %sb_protocol::redact::in_url(url), reason, "page_reset");
    page.adopt(&created, attached, Moved::Reset(reason));
    if url != "about:blank" {
        settle_at(page, url, budget).await;
    }
    true
}

/// `Page.navigate` to `url`, then waits within `budget` for its document's `DOMContentLoaded`. A
/// navigation that fails or does not settle in time leaves the page as it is (the next action sees it).
async fn settle_at(page: &Page, url: &str, budget: Budget) {
    let nav: Result<NavigateResult, _> =
        page.session.call("Page.navigate", json!({"url": url}), budget.remaining()).await;
    let Some(loader) = nav.ok().and_then(|n| n.loader_id) else { return };
    let mut lifecycle = page.lifecycle.clone();
    let ready = |l: &crate::tab::lifecycle::Lifecycle| l.loader_id == loader && l.has("DOMContentLoaded");
    crate::tab::lifecycle::wait_until(&mut lifecycle, budget.remaining(), ready).await;
}
