//! What the sessions do when the browser changes under them: every open session gets a new target at
//! its last URL on a new browser (rehydration), `Target.targetDestroyed` marks the sessions whose tab
//! closed, and the browser's download events are routed to the session they belong to. The browser
//! holds every new page until the supervisor lets it run (`Target.setAutoAttach` on the browser
//! connection, `waitForDebuggerOnStart`): a popup of a session's page first gets the session's
//! display and emulation, as Playwright sets a context's options on its popups before they run.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use futures_util::future::BoxFuture;
use sb_cdp::commands::{
    PageEnable, RuntimeRunIfWaitingForDebugger, TargetDetachFromTarget, TargetSetAutoAttach,
    TargetSetDiscoverTargets,
};
use sb_cdp::types::{
    AttachedToTarget, DownloadProgress, DownloadWillBegin, JavascriptDialogOpening, TargetCreated,
    TargetDestroyed,
};
use sb_protocol::api::{DialogInfo, Emulation};
use sb_protocol::ipc::Display;
use sb_protocol::Budget;

use super::{SessionEntry, Sessions};
use crate::lifecycle::health::BrowserObserver;
use crate::lifecycle::link::Link;

/// Longest `Target.createTarget` may take for one session during rehydration.
const REHYDRATE_TIMEOUT: Duration = Duration::from_secs(5);

/// Longest a new page's settings may take to be answered (it runs whether or not they were).
const LET_RUN_TIMEOUT: Duration = Duration::from_secs(5);

impl Sessions {
    /// Gives every open session a new target on `link`, at its last URL. Sessions restored from the
    /// store keep their reason (`supervisor_restarted`); the others get `browser_restarted`.
    pub(super) async fn rehydrate(&self, link: &Link) {
        let reopen = self.all().into_iter().map(|s| async move {
            s.forget_all_held();
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
    ///
    /// And every new page ([`Sessions::let_run`]): `display` is the configured one, for a session
    /// without its own.
    pub(super) async fn watch_targets(self: Arc<Self>, link: &Link, display: Option<Display>) {
        let mut events = link.client.browser_events();
        let discover = link
            .client
            .run(&TargetSetDiscoverTargets { discover: true }, crate::lifecycle::browser::HANDSHAKE_TIMEOUT)
            .await;
        if let Err(e) = discover {
            tracing::warn!(error.message = %e, "target_discovery_unavailable");
            return;
        }
        let held = link
            .client
            .run(&TargetSetAutoAttach::new_pages_held(), crate::lifecycle::browser::HANDSHAKE_TIMEOUT)
            .await;
        if let Err(e) = held {
            // Popups then run with the browser's defaults until a worker takes them.
            tracing::warn!(error.message = %e, "new_pages_not_held");
        }
        let this: Weak<Sessions> = Arc::downgrade(&self);
        let link = link.clone();
        tokio::spawn(async move {
            while let Some(ev) = events.recv().await {
                let Some(this) = this.upgrade() else { return };
                match ev.method.as_str() {
                    "Target.attachedToTarget" => {
                        let Some(new) = ev.parse::<AttachedToTarget>() else { continue };
                        if new.waiting_for_debugger {
                            tokio::spawn(this.let_run(link.clone(), display, new));
                        }
                    }
                    "Target.targetCreated" => {
                        let Some(TargetCreated { target_info: t }) = ev.parse() else { continue };
                        let Some(opener) = t.opener_id.filter(|_| t.kind == "page") else { continue };
                        for s in this.all().into_iter().filter(|s| s.has_tab(&opener)) {
                            s.popup_opened(&t.target_id);
                        }
                    }
                    "Target.targetDestroyed" => {
                        let Some(gone) = ev.parse::<TargetDestroyed>() else { continue };
                        for s in this.all() {
                            s.forget_held(&gone.target_id);
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

impl Sessions {
    /// Lets `new`, a page the browser holds (every new page: [`TargetSetAutoAttach::new_pages_held`]),
    /// run. A popup of a session's page (it has an opener, in the session's browser context) first
    /// gets the session's display (else `display`) and emulation on the supervisor's session on it
    /// (`sb_worker::start_held_page`), which stays attached, holding them, until a worker takes the
    /// tab ([`SessionEntry::release`]) or it closes. Any other page (a session's own, `tabs.open`'s,
    /// which its worker sets up as it attaches) runs at once, and the session on it is detached.
    async fn let_run(self: Arc<Self>, link: Link, display: Option<Display>, new: AttachedToTarget) {
        let session = link.client.session(new.session_id.clone());
        let target_id = new.target_info.target_id.clone();
        let owner = match (&new.target_info.opener_id, &new.target_info.browser_context_id) {
            (Some(_), Some(context)) => self.all().into_iter().find(|s| s.has_context(link.browser, context)),
            _ => None,
        };
        let Some(owner) = owner.filter(|s| s.hold(&target_id, link.browser, session.clone())) else {
            // Sent in order: the page runs, then the session goes.
            drop(session.send(&RuntimeRunIfWaitingForDebugger {}, LET_RUN_TIMEOUT));
            detach(&link, &session, LET_RUN_TIMEOUT).await;
            return;
        };
        keep(&owner, &link, session, &target_id, display).await;
    }

    /// Holds each tab of `owner` but its active one that nothing holds (a worker's sessions on the tabs
    /// it left end with it), as a popup is held ([`Sessions::let_run`]): the session's settings on the
    /// supervisor's own session on it, its dialogs answered. Called as a new worker takes the active
    /// tab; without it a dialog in such a tab (sharing its renderer with the active one, as a
    /// `window.open` popup does) stalled the session's page again after a worker was replaced.
    pub(crate) async fn hold_left_tabs(owner: Arc<SessionEntry>, link: Link, display: Option<Display>) {
        let active = owner.target();
        let left =
            owner.tabs().into_iter().map(|t| t.target_id).filter(|t| *t != active && !owner.is_held(t));
        let holds = left.map(|target_id| {
            let (owner, link) = (&owner, &link);
            async move {
                let Ok(session) = link.client.attach(&target_id, LET_RUN_TIMEOUT).await else { return };
                if owner.hold_again(&target_id, link.browser, session.clone()) {
                    keep(owner, link, session, &target_id, display).await;
                } else {
                    detach(link, &session, LET_RUN_TIMEOUT).await;
                }
            }
        });
        futures_util::future::join_all(holds).await;
    }

    /// Lets go of `held`, the supervisor's session on a tab it held, once a worker was asked to take
    /// it over ([`SessionEntry::release`]): its events end here (those it was sent before the worker
    /// took it are answered first: the relay lets this route answer the paused requests of a session
    /// it gave away, `sb_cdp::relay::FETCH_ANSWERS`). A session the worker did not take (it attached
    /// anew, or failed) is still this route's: it is detached, so that its settings and its request
    /// interception, which nobody answers any more, end with it.
    pub(crate) fn handed_over(held: sb_cdp::Session) {
        tokio::spawn(async move {
            let client = held.client().clone();
            // Answered on a session still ours; refused (`Session with given id not found`) on one
            // the worker took or that went.
            let ours = held.run(&RuntimeRunIfWaitingForDebugger {}, LET_RUN_TIMEOUT).await.is_ok();
            if ours {
                let detach = TargetDetachFromTarget { session_id: held.id().to_string() };
                if let Err(e) = client.run(&detach, LET_RUN_TIMEOUT).await {
                    tracing::debug!(error.message = %e, "detach_failed");
                }
            }
            client.forget_session(held.id());
        });
    }

    /// Sets what `session` now emulates (it emulated `before`) and its new `display`, when given, on
    /// the tabs the supervisor holds for it in `link`'s browser (its worker set them on its own
    /// page); not waited for (a popup whose renderer is busy gets them when it answers, within
    /// [`LET_RUN_TIMEOUT`]).
    pub(crate) fn restyle_held(
        session: &SessionEntry,
        link: &Link,
        before: &Emulation,
        display: Option<Display>,
    ) {
        let emulation = session.emulation.lock().unwrap().clone();
        for (target_id, held) in session.held_in(link.browser) {
            let (link, before, emulation) = (link.clone(), before.clone(), emulation.clone());
            tokio::spawn(async move {
                let budget = Budget::new(LET_RUN_TIMEOUT);
                let set = sb_worker::emulate_page(
                    &link.client,
                    &held,
                    &target_id,
                    display,
                    &before,
                    &emulation,
                    budget,
                );
                if let Err(e) = set.await {
                    tracing::warn!(browser.target_id = %target_id, error.message = %e, "held_tab_settings_failed");
                }
            });
        }
    }
}

/// Sets `owner`'s display (else `display`) and emulation on `session`, the supervisor's on
/// `target_id` (held: [`SessionEntry::hold`]), and answers its dialogs ([`answer_dialogs`]); lets it
/// run if it waits. Settings that fail are let go with the session.
async fn keep(
    owner: &Arc<SessionEntry>,
    link: &Link,
    session: sb_cdp::Session,
    target_id: &str,
    display: Option<Display>,
) {
    // Its dialogs answered from the start (subscribed before `Page.enable`, which is sent first and
    // reports one already open).
    let events = session.events();
    drop(session.send(&PageEnable {}, LET_RUN_TIMEOUT));
    tokio::spawn(answer_dialogs(Arc::downgrade(owner), session.clone(), events));
    let display = owner.display.lock().unwrap().or(display);
    let emulation = owner.emulation.lock().unwrap().clone();
    let budget = Budget::new(LET_RUN_TIMEOUT);
    let started =
        sb_worker::start_held_page(&link.client, &session, target_id, display, &emulation, budget).await;
    if let Err(e) = started {
        tracing::warn!(browser.session_id = %owner.id, browser.target_id = %target_id, error.message = %e, "held_tab_settings_failed");
        if owner.unhold(target_id) {
            detach(link, &session, LET_RUN_TIMEOUT).await;
        }
    }
}

/// Answers the dialogs of a tab the supervisor holds for `owner` as its worker answers its own: as
/// `page.handle_dialog` asked for the next one (`SessionEntry::dialog_policy`), else by default
/// (dismissed; `beforeunload` accepted, so navigations go on), each reported in the session's next
/// result: a dialog blocks its renderer's main thread, which a `window.open` popup shares with
/// its opener, so an unanswered one stalled the session's own page (an evaluate on the opener timed
/// out, then the focus on the popup). Ends with the session's events (the tab went, or a worker took
/// the session over: `CdpClient::forget_session`).
async fn answer_dialogs(
    owner: Weak<SessionEntry>,
    session: sb_cdp::Session,
    mut events: sb_cdp::EventStream,
) {
    while let Some(ev) = events.recv().await {
        if ev.method != "Page.javascriptDialogOpening" {
            continue;
        }
        let Some(opening) = ev.parse::<JavascriptDialogOpening>() else { continue };
        let Some(owner) = owner.upgrade() else { return };
        // As `page.handle_dialog` asked, when it did (the worker's copy then goes), as the worker
        // answers its tabs' dialogs.
        let asked = owner.dialog_policy.lock().unwrap().take();
        let sb_worker::DialogAnswer { kind, message, default_value, answer } =
            sb_worker::answer_dialog(opening, asked.clone());
        let accepted = answer.accept;
        if session.run(&answer, LET_RUN_TIMEOUT).await.is_err() {
            // Taken over meanwhile: the worker answers it (`Page.enable` reports an open dialog),
            // with the policy it still has.
            if let Some(policy) = asked {
                owner.dialog_policy.lock().unwrap().get_or_insert(policy);
            }
            continue;
        }
        if asked.is_some() {
            if let Some(worker) = owner.worker_tx.lock().unwrap().as_ref() {
                let _ = worker.send(sb_protocol::ipc::ToWorker::NextDialog { answer: None });
            }
        }
        tracing::info!(browser.session_id = %owner.id, dialog.kind = %kind, dialog.accepted = accepted, "dialog_answered");
        let info = DialogInfo { kind, message, accepted, default_value };
        owner.dialogs.lock().unwrap().push(info);
        owner.dialog_answered.notify_waiters();
    }
}

/// Detaches the supervisor's `session` within `timeout` (its overrides end with it).
async fn detach(link: &Link, session: &sb_cdp::Session, timeout: Duration) {
    let detach = TargetDetachFromTarget { session_id: session.id().to_string() };
    if let Err(e) = link.client.run(&detach, timeout).await {
        tracing::debug!(error.message = %e, "detach_failed");
    }
}

/// What watches each new browser: for a browser elsewhere the guard first (every request checked,
/// [`crate::gate::guard::Guard::intercept`]), then the registry (its targets), then the sessions' pages on
/// it.
pub(crate) struct Observer {
    pub(crate) sessions: Weak<Sessions>,
    /// The guard, when the browser is elsewhere (the connection gate does not front it).
    pub(crate) intercept: Option<Arc<crate::gate::guard::Guard>>,
    /// The configured display, for a popup of a session without its own.
    pub(crate) display: Option<Display>,
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
            sessions.clone().watch_targets(link, self.display).await;
            sessions.rehydrate(link).await;
        })
    }

    fn busy(&self) -> bool {
        self.sessions.upgrade().is_some_and(|s| !s.is_empty())
    }
}
