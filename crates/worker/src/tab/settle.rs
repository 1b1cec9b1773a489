//! Settled pages: an input that starts a navigation waits for it to commit, and a read of the page
//! (snapshot, extract, screenshot) waits for a document still loading to reach `DOMContentLoaded`.
//!
//! The navigation wait follows Playwright's `FrameManager.waitForSignalsCreatedBy` (`server/frames.ts`):
//! navigations the input requested are collected while it runs (Chromium's renderer reports each one
//! as `Page.frameRequestedNavigation`), and the action answers once each has committed (a new document
//! in the main frame, or a same-document URL change) or was given up (`Page.frameStoppedLoading`
//! without a commit: a 204, a download, a cancelled navigation), within the action's budget.
//!
//! An input that started no navigation answers once the requests it started are answered (a `fetch`
//! its click handler sent: Playwright MCP's `waitForCompletion` waits for them the same way), for at
//! most [`REQUESTS_CAP`]; nothing else is waited for (a dialog a timer raises
//! later is answered by the dialog watcher and reported with the session's next result).

use std::time::Duration;

use sb_cdp::calls::Evaluate;
use sb_cdp::types::{
    FrameNavigated, FrameRequestedNavigation, FrameStoppedLoading, NavigatedWithinDocument, RequestWillBeSent,
};
use sb_cdp::EventStream;
use sb_protocol::Budget;

use crate::progress::Progress;
use crate::tab::lifecycle::Lifecycle;
use crate::tab::page::Page;

/// Longest the round trip that flushes the renderer's navigation requests may take.
const FLUSH: Duration = Duration::from_millis(500);

/// Longest an input waits for the requests it started to be answered (2 s), within its budget.
pub(crate) const REQUESTS_CAP: Duration = Duration::from_millis(2_000);

/// The page's events since an input started (or since [`NavigationWatch::restart`]).
pub(crate) struct NavigationWatch {
    events: EventStream,
    /// Requests started since the input (`Network.requestWillBeSent`) and not yet answered
    /// (`Network.loadingFinished` / `loadingFailed`), by `requestId`.
    requests: std::collections::HashSet<String>,
}

/// How a navigation an input requested ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Navigation {
    /// The input requested no navigation of the page's main frame.
    None,
    /// The main frame committed `url` (a new document, or a same-document change).
    Committed(String),
    /// The navigation was requested but ended without a commit (a 204, cancelled).
    Abandoned,
    /// The navigation became a download (`Page.downloadWillBegin`) and ended there.
    Download,
    /// The navigation had not committed when the budget ran out.
    Pending,
}

impl NavigationWatch {
    /// Starts watching the page's main frame: call before the input is sent.
    pub(crate) fn start(page: &Page) -> NavigationWatch {
        NavigationWatch { events: page.session.events(), requests: Default::default() }
    }

    /// Starts again from now: what the page did so far is dropped (call right before the input, when
    /// its element was waited for).
    pub(crate) fn restart(&mut self) {
        while self.events.try_recv().is_some() {}
        self.requests.clear();
    }

    /// Follows the page's requests: one that starts joins the set (an `EventSource` never ends and is
    /// left out), one answered or failed leaves it.
    fn track(&mut self, ev: &sb_cdp::Event) {
        match ev.method.as_str() {
            "Network.requestWillBeSent" => {
                if let Some(r) = ev.parse::<RequestWillBeSent>().filter(|r| r.kind != "EventSource") {
                    self.requests.insert(r.request_id);
                }
            }
            "Network.loadingFinished" | "Network.loadingFailed" => {
                if let Some(id) = ev.params.get("requestId").and_then(|v| v.as_str()) {
                    self.requests.remove(id);
                }
            }
            _ => {}
        }
    }

    /// After an input that started no navigation: waits until the requests it started are answered,
    /// for at most [`REQUESTS_CAP`] of `budget`; how many were still open then (0: all answered).
    pub(crate) async fn requests_answered(&mut self, budget: Budget) -> usize {
        while let Some(ev) = self.events.try_recv() {
            self.track(&ev);
        }
        let until = tokio::time::Instant::now() + budget.capped(REQUESTS_CAP);
        while !self.requests.is_empty() {
            match tokio::time::timeout_at(until, self.events.recv()).await {
                Ok(Some(ev)) => self.track(&ev),
                Ok(None) | Err(_) => break,
            }
        }
        self.requests.len()
    }

    /// After the input: whether it requested a navigation of the main frame, and, if so, how it ended
    /// within `budget` (a round trip to the renderer first, so that every request it made has been
    /// reported). A commit counts when the watch saw it, from [`Self::start`] or [`Self::restart`] on:
    /// its own events, not the lifecycle's count, which a commit just before the restart may still be
    /// on its way to.
    pub(crate) async fn settle(&mut self, page: &Page, budget: Budget) -> Navigation {
        let main = page.target_id.as_str();
        // A round trip to the renderer: the input's handlers have run (input events are handled before
        // a later script), and every navigation and request they started has been reported. No frame
        // is waited for: an animation frame after each input made a click in a row two frames long.
        let _ = page.session.evaluate(&Evaluate::by_value("0"), budget.capped(FLUSH)).await;
        let mut seen = Seen::default();
        while let Some(ev) = self.events.try_recv() {
            self.see(&ev, main, &mut seen);
        }
        if !seen.requested && seen.committed.is_none() {
            return Navigation::None;
        }
        let until = tokio::time::Instant::now() + budget.remaining();
        loop {
            if let Some(url) = seen.committed.take() {
                return Navigation::Committed(url);
            }
            if seen.stopped && seen.download {
                return Navigation::Download;
            }
            if seen.stopped {
                return Navigation::Abandoned;
            }
            match tokio::time::timeout_at(until, self.events.recv()).await {
                Ok(Some(ev)) => self.see(&ev, main, &mut seen),
                Ok(None) | Err(_) => return Navigation::Pending,
            }
        }
    }

    /// Takes in one event of the page after the input: its requests, a navigation of the main frame
    /// `main` it requested (`Page.frameRequestedNavigation` in the current tab), a commit
    /// (`Page.frameNavigated`, `Page.navigatedWithinDocument`) and a load given up
    /// (`Page.frameStoppedLoading`).
    fn see(&mut self, ev: &sb_cdp::Event, main: &str, seen: &mut Seen) {
        self.track(ev);
        match ev.method.as_str() {
            "Page.frameRequestedNavigation" => {
                let here = ev.parse::<FrameRequestedNavigation>().is_some_and(|r| {
                    r.frame_id == main && r.disposition.as_deref().is_none_or(|d| d == "currentTab")
                });
                if here {
                    seen.requested = true;
                    seen.stopped = false;
                }
            }
            "Page.frameNavigated" => {
                if let Some(n) = ev.parse::<FrameNavigated>().filter(|n| n.frame.id == main) {
                    seen.committed = Some(n.frame.full_url());
                }
            }
            "Page.navigatedWithinDocument" => {
                if let Some(n) = ev.parse::<NavigatedWithinDocument>().filter(|n| n.frame_id == main) {
                    seen.committed = Some(n.url);
                }
            }
            "Page.frameStoppedLoading" if stopped_loading(ev, main) => seen.stopped = true,
            "Page.downloadWillBegin" => seen.download = true,
            _ => {}
        }
    }
}

/// What a [`NavigationWatch`] saw of the main frame after the input.
#[derive(Default)]
struct Seen {
    /// A navigation of the main frame in its tab was requested.
    requested: bool,
    /// The URL the main frame last committed (a new document or a same-document change).
    committed: Option<String>,
    /// The main frame stopped loading after the last request (without a commit, unless `committed`).
    stopped: bool,
    /// The main frame's navigation became a download (`Page.downloadWillBegin`).
    download: bool,
}

/// Before a read of the page (snapshot, extract, screenshot): a document still loading is waited for
/// until `DOMContentLoaded`, for at most half of the action's budget (the read needs the rest); whether
/// it got there (logged in the action's steps when it did not).
pub(crate) async fn before_read(page: &Page, p: &Progress) -> bool {
    let ready = dom_ready(page, Budget::new(p.budget().remaining() / 2)).await;
    if !ready {
        p.log("the document had not reached DOMContentLoaded");
    }
    ready
}

/// Waits, within `budget`, for the main frame's current document to reach `DOMContentLoaded`; whether
/// it did. A document whose lifecycle the worker has not seen yet (no event since attaching) is asked
/// for its `document.readyState`.
async fn dom_ready(page: &Page, budget: Budget) -> bool {
    let mut lifecycle = page.lifecycle.clone();
    let ready = |l: &Lifecycle| l.has("DOMContentLoaded") || l.has("load");
    if lifecycle.borrow().loader_id.is_empty() {
        let state = page
            .session
            .evaluate(&Evaluate::by_value("document.readyState"), budget.capped(FLUSH))
            .await
            .ok()
            .and_then(|r| r.result.value);
        if state.as_ref().and_then(|v| v.as_str()).is_some_and(|s| s != "loading") {
            return true;
        }
    }
    if ready(&lifecycle.borrow_and_update()) {
        return true;
    }
    crate::tab::lifecycle::wait_until(&mut lifecycle, budget.remaining(), ready).await
}

/// Whether the main frame's current document has reached `DOMContentLoaded`, as far as the worker saw
/// (`true` when it has seen no lifecycle event since attaching).
pub(crate) fn is_ready(page: &Page) -> bool {
    let l = page.lifecycle.borrow();
    l.loader_id.is_empty() || l.has("DOMContentLoaded") || l.has("load")
}

/// Whether `ev` (a `Page.frameStoppedLoading`) is of frame `main`.
fn stopped_loading(ev: &sb_cdp::Event, main: &str) -> bool {
    ev.parse::<FrameStoppedLoading>().is_some_and(|s| s.frame_id == main)
}
