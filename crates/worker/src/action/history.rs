//! `page.back`, `page.forward` and `page.reload`: the tab's session history, waited for as `page.goto`
//! waits, until `DOMContentLoaded` (Playwright MCP's `browser_navigate_back` waits for the commit and
//! then the snapshot's DOM; Playwright's `goBack` with `waitUntil: 'domcontentloaded'`).
//!
//! The entry is found in `Page.getNavigationHistory` and loaded with `Page.navigateToHistoryEntry`
//! (`Page.reload` for a reload); the action then waits for the main frame to commit its navigation (a
//! new document, a page restored from the back/forward cache, or, for a step, a same-document entry's
//! URL: not a URL the page moves to itself meanwhile, see [`Reached`]) and for that document's
//! `DOMContentLoaded`, within the budget. What it reached when the budget ran out is the answer, with
//! `timed_out: true`, as `page.goto`'s is.

use sb_protocol::api::GotoResult;
use sb_protocol::ipc::{Output, WorkerError};
use sb_protocol::{ErrorCode, Phase};
use serde::Deserialize;
use serde_json::json;

use crate::action::actions::{not_committed, AFTER_NAV_RESERVE};
use crate::error::{cdp_failure, fail};
use crate::progress::Progress;
use crate::tab::lifecycle::wait_until;
use crate::tab::page::{url_and_title, Page};

/// `Page.getNavigationHistory`'s answer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NavigationHistory {
    current_index: i64,
    entries: Vec<HistoryEntry>,
}

/// One entry of the tab's session history.
#[derive(Debug, Deserialize)]
struct HistoryEntry {
    id: i64,
    url: String,
}

/// `page.back` (`delta` -1) or `page.forward` (+1).
///
/// # Errors
/// `bad_request` when there is no entry to go to (naming where the tab is); CDP failures.
pub(crate) async fn go(page: &Page, delta: i64, p: &Progress) -> Result<Output, WorkerError> {
    let budget = p.budget();
    let phase = Phase::Navigate;
    let history: NavigationHistory = page
        .session
        .call("Page.getNavigationHistory", json!({}), budget.remaining())
        .await
        .map_err(|e| cdp_failure(phase, e))?;
    let wanted = history.current_index + delta;
    let Some(entry) = usize::try_from(wanted).ok().and_then(|i| history.entries.get(i)) else {
        let (way, end) = if delta < 0 { ("back", "first") } else { ("forward", "last") };
        return Err(fail(
            ErrorCode::BadRequest,
            phase,
            format!(
                "no history entry to go {way} to: the tab is at the {end} of its {} entries",
                history.entries.len()
            ),
        ));
    };
    p.log(format!("going {} to {}", if delta < 0 { "back" } else { "forward" }, entry.url));
    let target = entry.url.clone();
    let id = entry.id;
    traverse(page, &target, Reached::Entry(&target), p, || async move {
        page.session
            .call::<serde_json::Value>(
                "Page.navigateToHistoryEntry",
                json!({"entryId": id}),
                budget.remaining(),
            )
            .await
    })
    .await
}

/// `page.reload`.
///
/// # Errors
/// CDP failures.
pub(crate) async fn reload(page: &Page, p: &Progress) -> Result<Output, WorkerError> {
    let budget = p.budget();
    let url = page.lifecycle.borrow().url.clone();
    p.log(format!("reloading {url}"));
    traverse(page, &url, Reached::NewDocument, p, || async move {
        page.session.call::<serde_json::Value>("Page.reload", json!({}), budget.remaining()).await
    })
    .await
}

/// What commit ends a history action's wait for one.
///
/// The page's own `history.replaceState` or `pushState` while the action is under way also commits a
/// URL (in the document being left): that is not the action's. As Playwright's `reload`, which waits
/// with `requiresNewDocument` ("should not be confused with a stray pushState"); for a history step,
/// also a same-document commit of the entry's own URL (an entry the page pushed).
enum Reached<'a> {
    /// A new document (`Page.frameNavigated`): `page.reload`.
    NewDocument,
    /// A new document, or the same document committing this URL: `page.back` and `page.forward`.
    Entry(&'a str),
}

/// Starts a navigation with `start` and waits for its commit ([`Reached`]) and its
/// `DOMContentLoaded`, within the budget.
async fn traverse<F, Fut>(
    page: &Page,
    url: &str,
    reached: Reached<'_>,
    p: &Progress,
    start: F,
) -> Result<Output, WorkerError>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<serde_json::Value, sb_cdp::CdpError>>,
{
    let budget = p.budget();
    let wait = budget.child(AFTER_NAV_RESERVE);
    let mut lifecycle = page.lifecycle.clone();
    let (commits, documents) = {
        let l = lifecycle.borrow_and_update();
        (l.commits, l.documents)
    };
    start().await.map_err(|e| cdp_failure(Phase::Navigate, e))?;
    // The commit: a new document, a same-document entry, or a restored page.
    let committed = wait_until(&mut lifecycle, wait.remaining(), |l| {
        l.documents != documents
            || matches!(reached, Reached::Entry(entry) if l.commits != commits && l.url == entry)
    })
    .await;
    if !committed {
        // As `page.goto`'s: the load stopped, the tab's previous document reported, `timed_out`.
        return not_committed(page, url, budget).await;
    }
    p.log("committed; waiting for DOMContentLoaded");
    // A document restored from the back/forward cache or a same-document entry fires no lifecycle
    // events: its `readyState` says how far it is. (Waiting for `load` here held a page whose image
    // never came to the whole budget, where `page.goto` of the same page answers at once.)
    let (mut shown, mut title, mut ready) = url_and_title(page, budget).await;
    let mut timed_out = false;
    if !matches!(ready.as_deref(), Some("complete" | "interactive")) {
        timed_out = !wait_until(&mut lifecycle, wait.remaining(), |l| l.has("DOMContentLoaded")).await;
        (shown, title, ready) = url_and_title(page, budget).await;
    }
    let load_state = match ready.as_deref() {
        Some("complete") => "load",
        Some("interactive") => "domcontentloaded",
        // The page did not say (busy): what the lifecycle saw.
        _ if !timed_out && lifecycle.borrow().has("load") => "load",
        _ if !timed_out => "domcontentloaded",
        _ => "commit",
    };
    Ok(Output::Goto(GotoResult {
        url: shown.unwrap_or_else(|| url.to_string()),
        title: title.unwrap_or_default(),
        status: None,
        load_state: load_state.into(),
        timed_out,
    }))
}
