//! A session's targets and browser context: opening its page, its context (made per browser), its tab
//! list brought up to date with the browser's targets, and closing targets.

use std::collections::HashMap;
use std::time::Duration;

use sb_cdp::commands::TargetCloseTarget;
use sb_cdp::types::TargetInfo;
use sb_cdp::CdpClient;
use sb_protocol::api::TabInfo;
use sb_protocol::{Budget, ErrorBody, ErrorCode, Phase};

use super::{SessionEntry, Sessions, Tab};
use crate::lifecycle::link::Link;
use crate::sessions::store::StoreEvent;

/// Longest one `Target.closeTarget` may take when nothing else bounds it (shutdown, a raced start).
const CLOSE_TARGET: Duration = Duration::from_millis(1_000);

impl Sessions {
    /// [`Sessions::new_target`], recorded in the store.
    ///
    /// # Errors
    /// As [`Sessions::new_target`].
    pub async fn open_target(
        &self,
        session: &SessionEntry,
        link: &Link,
        budget: Budget,
    ) -> Result<(), ErrorBody> {
        let target_id = self.new_target(session, link, budget).await?;
        self.record(StoreEvent::TargetBound { session_id: session.id.clone(), target_id }).await;
        Ok(())
    }

    /// A new target for `session`, at `about:blank` with its last URL to restore (the next action loads
    /// it first: `SessionEntry::take_restore`), in a window of its own
    /// (a background tab gets no animation frames, and actionability waits on them), now its only tab;
    /// its id. (`session.start` records it itself, after `session_started`.)
    ///
    /// # Errors
    /// `cdp_error` / `timeout` (phase `session`) from `Target.createTarget`; the session then has no
    /// target and the next action tries again.
    pub async fn new_target(
        &self,
        session: &SessionEntry,
        link: &Link,
        budget: Budget,
    ) -> Result<String, ErrorBody> {
        let context = self.context(session, link, budget).await?;
        let created =
            link.client.create_target("about:blank", true, Some(&context), budget.remaining()).await;
        match created {
            Ok(target_id) => {
                session.bind_fresh(target_id.clone());
                // The page is loaded by the session's next action (a navigation it waits for), so that
                // action never runs on `about:blank` or a document still loading.
                if let Some(url) = session.last_url().filter(|u| u != "about:blank") {
                    *session.restore.lock().unwrap() = Some(url);
                }
                Ok(target_id)
            }
            Err(e) => {
                session.bind_fresh(String::new());
                Err(cdp_error(Phase::Session, "Target.createTarget", e))
            }
        }
    }

    /// The session's browser context in `link`'s browser, made when it has none there yet
    /// (`Target.createBrowserContext`): at start, and after the browser was restarted. Its downloads go
    /// into the session's own directory ([`crate::sessions::downloads`]).
    ///
    /// # Errors
    /// `cdp_error` / `timeout` (phase `session`) from `Target.createBrowserContext`.
    pub async fn context(
        &self,
        session: &SessionEntry,
        link: &Link,
        budget: Budget,
    ) -> Result<String, ErrorBody> {
        let known = session.context.lock().unwrap().clone();
        if let Some((_, id)) = known.filter(|(browser, _)| *browser == link.browser) {
            return Ok(id);
        }
        let id = link
            .client
            .create_browser_context(self.context_proxy.as_ref(), budget.remaining())
            .await
            .map_err(|e| cdp_error(Phase::Session, "Target.createBrowserContext", e))?;
        if let Err(e) = self.downloads.allow(link, &session.id, &id).await {
            tracing::warn!(browser.session_id = %session.id, error.message = %e, "download_behavior_not_set");
        }
        *session.context.lock().unwrap() = Some((link.browser, id.clone()));
        session.context_renewed.store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(id)
    }

    /// Disposes of the session's browser context (`Target.disposeBrowserContext`: its pages closed,
    /// its cookies, storage and cache deleted), when it has one in `link`'s browser.
    pub async fn dispose_context(session: &SessionEntry, link: &Link, budget: Budget) {
        let known = session.context.lock().unwrap().take();
        if let Some((_, id)) = known.filter(|(browser, _)| *browser == link.browser) {
            if let Err(e) = link.client.dispose_browser_context(&id, budget.remaining()).await {
                tracing::warn!(browser.session_id = %session.id, error.message = %e, "context_dispose_failed");
            }
        }
    }

    /// [`Sessions::refresh_tabs`], then, when the active tab is gone (a page that closed itself with
    /// `window.close()`), the newest remaining tab becomes the active one (none left: a new one at the
    /// last URL, opened by the next action); the session's next result says so (`session_reset`,
    /// `reset_reason: "active_tab_closed"`).
    ///
    /// # Errors
    /// As [`Sessions::refresh_tabs`].
    pub async fn current_tabs(
        session: &SessionEntry,
        link: &Link,
        budget: Budget,
    ) -> Result<HashMap<String, (String, String)>, ErrorBody> {
        let infos = Self::refresh_tabs(session, link, budget).await?;
        let active = session.target();
        if !active.is_empty() && !session.has_tab(&active) {
            let next = session.tabs().last().map(|t| t.target_id.clone()).unwrap_or_default();
            tracing::info!(browser.session_id = %session.id, closed = %active, active = %next, "active_tab_closed");
            session.set_target(next);
            session.mark_reset("active_tab_closed");
        }
        Ok(infos)
    }

    /// Brings the session's tab list up to date with the browser (`Target.getTargets`): popups
    /// opened by any of its tabs (`window.open`, `target=_blank`) join it, closed tabs leave it.
    /// Returns `(url, title)` of every page target by id.
    ///
    /// # Errors
    /// `cdp_error` / `timeout` (phase `session`) from `Target.getTargets`.
    pub async fn refresh_tabs(
        session: &SessionEntry,
        link: &Link,
        budget: Budget,
    ) -> Result<HashMap<String, (String, String)>, ErrorBody> {
        let targets = link
            .client
            .targets(budget.remaining())
            .await
            .map_err(|e| cdp_error(Phase::Session, "Target.getTargets", e))?;
        let pages: Vec<TargetInfo> = targets.into_iter().filter(|t| t.kind == "page").collect();
        let mut tabs = session.tabs.lock().unwrap();
        let mut gone = session.gone_tabs.lock().unwrap();
        tabs.retain(|t| {
            let open = pages.iter().any(|p| p.target_id == t.target_id);
            if !open {
                gone.insert(t.target_id.clone());
            }
            open
        });
        // Popups of popups too: repeat until nothing joins.
        loop {
            let joining: Vec<Tab> = pages
                .iter()
                .filter(|p| !tabs.iter().any(|t| p.target_id == t.target_id))
                .filter(|p| !gone.contains(&p.target_id))
                .filter_map(|p| {
                    let opener = p.opener_id.as_deref()?;
                    tabs.iter()
                        .any(|t| t.target_id == opener)
                        .then(|| Tab { target_id: p.target_id.clone(), opener_id: Some(opener.to_string()) })
                })
                .collect();
            if joining.is_empty() {
                break;
            }
            tabs.extend(joining);
        }
        Ok(pages.into_iter().map(|p| (p.target_id, (p.url, p.title))).collect())
    }
}

/// The session's tabs as the API shows them, with `(url, title)` by target id.
pub fn tab_infos(session: &SessionEntry, infos: &HashMap<String, (String, String)>) -> Vec<TabInfo> {
    let active = session.target();
    session
        .tabs()
        .into_iter()
        .map(|t| {
            let (url, title) = infos.get(&t.target_id).cloned().unwrap_or_default();
            TabInfo {
                active: t.target_id == active,
                target_id: t.target_id,
                url,
                title,
                opener_id: t.opener_id,
            }
        })
        .collect()
}

/// `Target.closeTarget`, within `timeout`; a failure is ignored (the target may be gone already).
pub async fn close_target(client: &CdpClient, target_id: &str, timeout: Duration) {
    if target_id.is_empty() || timeout.is_zero() {
        return;
    }
    let _ = client.run(&TargetCloseTarget { target_id: target_id.to_string() }, timeout).await;
}

/// [`close_target`] with the default bound (1 s).
pub async fn close_target_soon(client: &CdpClient, target_id: &str) {
    close_target(client, target_id, CLOSE_TARGET).await;
}

/// A CDP failure of a supervisor-side call: `timeout` when it ran out of time, else `cdp_error`.
pub fn cdp_error(phase: Phase, method: &str, e: sb_cdp::CdpError) -> ErrorBody {
    let code = if e.is_timeout() { ErrorCode::Timeout } else { ErrorCode::CdpError };
    ErrorBody::new(code, phase, format!("{method}: {e}"))
}
