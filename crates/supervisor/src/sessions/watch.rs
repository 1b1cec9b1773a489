//! What the sessions do when the browser changes under them: every open session gets a new target at
//! its last URL on a new browser (rehydration), `Target.targetDestroyed` marks the sessions whose tab
//! closed, and the browser's download events are routed to the session they belong to.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use futures_util::future::BoxFuture;
use sb_cdp::commands::TargetSetDiscoverTargets;
use sb_cdp::types::{DownloadProgress, DownloadWillBegin, TargetCreated, TargetDestroyed};
use sb_protocol::Budget;

use super::Sessions;
use crate::health::BrowserObserver;
use crate::link::Link;

/// Longest `Target.createTarget` may take for one session during rehydration.
const REHYDRATE_TIMEOUT: Duration = Duration::from_secs(5);

impl Sessions {
    /// Gives every open session a new target on `link`, at its last URL. Sessions restored from the
    /// store keep their reason (`supervisor_restarted`); the others get `browser_restarted`.
    pub(super) async fn rehydrate(&self, link: &Link) {
        let reopen = self.all().into_iter().map(|s| async move {
            let result = self.open_target(&s, link, Budget::new(REHYDRATE_TIMEOUT)).await;
            s.mark_reset("browser_restarted");
            match result {
                Ok(()) => self.stats.sessions_rehydrated.inc(),
                Err(e) => tracing::warn!(
                    browser.session_id = %s.id,
                    error.message = %e.message,
                    "session_rehydrate_failed"
                ),
            }
        });
        futures_util::future::join_all(reopen).await;
    }

    /// Follows `Target.targetDestroyed` on the browser connection: a session that had the target as one
    /// of its tabs brings its tab list up to date before its next action. And the downloads: one that
    /// begins in a session's tab is that session's (`Browser.downloadWillBegin`'s `frameId` is the
    /// tab's main frame, whose id is the target's; one a subframe starts is owned once its file shows in
    /// a session's directory), and its progress is checked against `downloads.max_bytes`.
    pub(super) async fn watch_targets(self: Arc<Self>, link: &Link) {
        let mut events = link.client.browser_events();
        let discover = link
            .client
            .run(&TargetSetDiscoverTargets { discover: true }, crate::browser::HANDSHAKE_TIMEOUT)
            .await;
        if let Err(e) = discover {
            tracing::warn!(error.message = %e, "target_discovery_unavailable");
            return;
        }
        let this: Weak<Sessions> = Arc::downgrade(&self);
        let link = link.clone();
        tokio::spawn(async move {
            while let Some(ev) = events.recv().await {
                let Some(this) = this.upgrade() else { return };
                match ev.method.as_str() {
                    "Target.targetCreated" => {
                        let Some(TargetCreated { target_info: t }) = ev.parse() else { continue };
                        let Some(opener) = t.opener_id.filter(|_| t.kind == "page") else { continue };
                        for s in this.all().into_iter().filter(|s| s.has_tab(&opener)) {
                            let mut popups = s.popups.lock().unwrap();
                            if popups.len() >= 100 {
                                popups.remove(0);
                            }
                            popups.push((std::time::Instant::now(), t.target_id.clone()));
                            drop(popups);
                            s.popup_opened.notify_waiters();
                        }
                    }
                    "Target.targetDestroyed" => {
                        let Some(gone) = ev.parse::<TargetDestroyed>() else { continue };
                        for s in this.all() {
                            if s.has_tab(&gone.target_id) {
                                s.tabs_dirty.store(true, Ordering::SeqCst);
                            }
                        }
                    }
                    "Browser.downloadWillBegin" => {
                        let Some(began) = ev.parse::<DownloadWillBegin>() else { continue };
                        let owner = this.all().into_iter().find(|s| s.has_tab(&began.frame_id));
                        let context = owner.as_ref().and_then(|s| s.context.lock().unwrap().clone());
                        match (owner, context) {
                            (Some(s), Some((_, context))) => this.downloads.began(&s.id, &context, began),
                            _ => this.downloads.began_unowned(began),
                        }
                    }
                    "Browser.downloadProgress" => {
                        let Some(progress) = ev.parse::<DownloadProgress>() else { continue };
                        this.downloads.progressed(&link, &progress, || {
                            let sessions = this.all().into_iter();
                            sessions
                                .filter_map(|s| {
                                    s.context
                                        .lock()
                                        .unwrap()
                                        .clone()
                                        .map(|(_, context)| (s.id.clone(), context))
                                })
                                .collect()
                        })
                    }
                    _ => {}
                }
            }
        });
    }
}

/// What watches each new browser: for a browser elsewhere the guard first (every request checked,
/// [`crate::guard::Guard::intercept`]), then the registry (its targets), then the sessions' pages on
/// it.
pub(crate) struct Observer {
    pub(crate) sessions: Weak<Sessions>,
    /// The guard, when the browser is elsewhere (the connection gate does not front it).
    pub(crate) intercept: Option<Arc<crate::guard::Guard>>,
}

impl BrowserObserver for Observer {
    fn browser_ready<'a>(&'a self, link: &'a Link) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Some(guard) = &self.intercept {
                if let Err(e) = guard.intercept(link).await {
                    tracing::error!(error.message = %e, "url_policy_not_held_by_the_remote_browser");
                }
            }
            let Some(sessions) = self.sessions.upgrade() else { return };
            sessions.clone().watch_targets(link).await;
            sessions.rehydrate(link).await;
        })
    }

    fn busy(&self) -> bool {
        self.sessions.upgrade().is_some_and(|s| !s.is_empty())
    }
}
