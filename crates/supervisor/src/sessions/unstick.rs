//! Freeing a tab that a new worker cannot attach to, from the supervisor's own connection.
//!
//! A worker attaches to its session's target and enables what it follows there (`Page.enable`,
//! `Network.enable`, ...). Those calls run on the renderer's main thread, so a page busy in a script
//! (a loop the page started from a timer) never answers them and the worker never becomes ready. The
//! worker's own escalation ladder cannot help: it frees a tab after an answer, and a worker that is
//! not attached has none to give. This happens when the supervisor killed the last worker as its last
//! resort (a worker that did not answer in time, a starved one on a loaded machine) while the page
//! was spinning: nothing else would ever stop the script.
//!
//! So the supervisor frees the tab itself, on its own route of the relay, as the ladder does
//! (`sb_worker`'s `ladder`):
//!
//! 1. [`free`]: on the session's standby (a flat session of the supervisor's own), probe (`Runtime.evaluate "1"`, at most [`PROBE`]);
//!    when the page does not answer, `Runtime.terminateExecution` (Chromium runs it on the renderer's
//!    IO thread, so it reaches a busy main thread) and the probe again. The worker's queued calls are
//!    answered once the script stops, and it becomes ready.
//! 2. [`reset`]: a tab that is still stuck (its main thread blocked outside JavaScript), or a session
//!    whose worker could not attach twice in a row, gets a new page: `Page.crash` on the standby ends
//!    the renderer (it too runs on the IO thread), the target is closed, and a new one in the session's browser
//!    context takes its place as the active tab; the session's next action loads its last URL
//!    first, and its result says `session_reset: true, reset_reason: "tab_stuck"`.
//!
//! Arrows: unstick -> [`crate::sessions`], [`crate::lifecycle::health`]; nothing here runs a page action.

use std::time::Duration;

use sb_cdp::commands::{PageCrash, RuntimeTerminateExecution, TargetDetachFromTarget};
use sb_cdp::Session;
use sb_protocol::{Budget, ErrorBody};

use crate::lifecycle::link::Link;
use crate::sessions::store::StoreEvent;
use crate::sessions::{cdp_error, close_target, SessionEntry, Sessions, Standby};

/// Longest the responsiveness probe may take. Longer than the worker ladder's 150 ms: this runs only
/// when a worker has not attached for a while, and a page that is merely slow (a loaded machine) must
/// not be taken for a stuck one.
pub(crate) const PROBE: Duration = Duration::from_millis(500);
/// Longest a small call of the freeing may take (attach, terminate, detach, crash, close).
const STEP: Duration = Duration::from_millis(500);

/// How [`free`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Freed {
    /// The page answered without help (the worker is slow, not blocked).
    Responsive,
    /// `Runtime.terminateExecution` stopped the page's script.
    Terminated,
    /// The page still does not answer (or could not be attached to): only a reset frees it.
    Stuck,
}

/// Step 1: probes `target_id` from the supervisor's own connection, and stops its running script
/// when it does not answer; within `budget`. It uses the session's standby ([`keep_standby`]) when it
/// is on that target: a session attached while the page was idle, whose `Runtime.terminateExecution`
/// the renderer's IO thread takes. A session attached now, while the main thread spins, is answered by
/// the browser but never set up in the renderer, so nothing sent on it arrives: then it is `Stuck`.
pub(crate) async fn free(session: &SessionEntry, link: &Link, target_id: &str, budget: Budget) -> Freed {
    let Some((cdp, fresh)) = session_on(session, link, target_id, budget).await else {
        return Freed::Stuck;
    };
    let mut terminated = None;
    let freed = if responsive(&cdp, budget).await {
        Freed::Responsive
    } else {
        terminated = Some(cdp.run(&RuntimeTerminateExecution {}, budget.capped(STEP)).await.is_ok());
        if responsive(&cdp, budget).await {
            Freed::Terminated
        } else {
            Freed::Stuck
        }
    };
    if fresh && freed != Freed::Stuck {
        detach(&cdp).await;
    }
    tracing::warn!(target_id, standby = !fresh, freed = ?freed, terminate_answered = ?terminated, "tab_freed_by_supervisor");
    freed
}

/// The supervisor's session on `target_id`: the session's standby when it is on that tab, else one
/// attached now (`true`: the caller detaches it); `None` when the tab cannot be attached to.
pub(crate) async fn session_on(
    session: &SessionEntry,
    link: &Link,
    target_id: &str,
    budget: Budget,
) -> Option<(Session, bool)> {
    let standby = session.standby.lock().unwrap().clone();
    if let Some(standby) = standby.filter(|s| s.is_on(link.browser, target_id)) {
        return Some((standby.session, false));
    }
    match link.client.attach(target_id, budget.capped(STEP)).await {
        Ok(cdp) => Some((cdp, true)),
        Err(e) => {
            tracing::warn!(target_id, error.message = %e, "tab_not_attachable");
            None
        }
    }
}

/// Attaches the session's standby to its active tab on `link`'s browser, when it is not there yet
/// (the old one detached); a failure is logged and leaves none.
pub(crate) async fn keep_standby(session: &SessionEntry, link: &Link) {
    let target_id = session.target();
    let current = session.standby.lock().unwrap().clone();
    if current.as_ref().is_some_and(|s| s.is_on(link.browser, &target_id)) {
        return;
    }
    let attached = link.client.attach(&target_id, STEP).await;
    let fresh = match attached {
        Ok(cdp) => Some(Standby { browser: link.browser, target_id, session: cdp }),
        Err(e) => {
            tracing::warn!(browser.session_id = %session.id, error.message = %e, "standby_not_attached");
            None
        }
    };
    let old = std::mem::replace(&mut *session.standby.lock().unwrap(), fresh);
    if let Some(old) = old.filter(|o| o.browser == link.browser) {
        detach(&old.session).await;
    }
}

/// Whether the page's main thread runs a trivial script within [`PROBE`] (and `budget`).
async fn responsive(session: &Session, budget: Budget) -> bool {
    session.responsive(budget.capped(PROBE)).await
}

/// `Target.detachFromTarget` of the supervisor's own session (its events stop).
pub(crate) async fn detach(session: &Session) {
    let client = session.client();
    let _ = client.run(&TargetDetachFromTarget { session_id: session.id().to_string() }, STEP).await;
    client.forget_session(session.id());
}

/// Step 2: the session's active tab is replaced by a new page in its browser context (`Page.crash`
/// of the old renderer, `Target.closeTarget`, `Target.createTarget`), recorded in the store; the
/// session's next action loads its last URL first, and its result says `session_reset`
/// (`tab_stuck`). Within `budget`.
///
/// # Errors
/// `cdp_error` / `timeout` (phase `session`) from `Target.createTarget` or
/// `Target.createBrowserContext`.
pub(crate) async fn reset(
    sessions: &Sessions,
    session: &SessionEntry,
    link: &Link,
    budget: Budget,
) -> Result<(), ErrorBody> {
    let old = session.target();
    // The stuck renderer goes first: a new page at the same site would share its process. On the
    // standby, set up while the page was idle, `Page.crash` reaches the renderer; one attached now may
    // never be set up in it, and then closing the target is what ends the page.
    if let Some((crashing, fresh)) = session_on(session, link, &old, budget).await {
        let _ = crashing.run(&PageCrash {}, budget.capped(Duration::from_millis(50))).await;
        if fresh {
            link.client.forget_session(crashing.id());
        }
    }
    close_target(&link.client, &old, budget.capped(STEP)).await;
    let context = sessions.context(session, link, budget).await?;
    let created = link
        .client
        .create_target("about:blank", true, Some(&context), budget.remaining())
        .await
        .map_err(|e| cdp_error(sb_protocol::Phase::Session, "Target.createTarget", e))?;
    tracing::warn!(browser.session_id = %session.id, old = %old, new = %created, reason = "tab_stuck", "page_reset");
    session.replace_tab(&old, &created);
    if let Some(url) = session.last_url().filter(|u| u != "about:blank") {
        session.keep_restore(url);
    }
    session.mark_reset("tab_stuck");
    sessions.record(StoreEvent::TargetBound { session_id: session.id.clone(), target_id: created }).await;
    Ok(())
}
