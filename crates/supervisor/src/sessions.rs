//! Sessions: each one's entry (its tabs, its ref table, its queue), the registry of open sessions,
//! and what the sessions do when the browser changes under them.
//!
//! A session is one harness conversation with one page (and the popups it opens). Its entry outlives
//! its worker and its target: a replaced worker or a page reset keeps the entry, its ref table and
//! its queue. The registry keeps the store ([`SessionStore`]) in step and implements
//! [`BrowserObserver`]: when a new browser comes up every open session gets a new target at its last
//! URL, and `Target.targetDestroyed` marks the sessions whose tab closed.
//!
//! Arrows: sessions -> [`crate::health`] -> [`crate::browser`]; nothing here runs a page action.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures_util::future::BoxFuture;
use sb_cdp::commands::{TargetCloseTarget, TargetSetDiscoverTargets};
use sb_cdp::types::{DownloadProgress, DownloadWillBegin, TargetDestroyed, TargetInfo};
use sb_cdp::CdpClient;
use sb_protocol::api::{DialogInfo, SessionInfo, TabInfo};
use sb_protocol::ipc::RefRecord;
use sb_protocol::{Budget, ErrorBody, ErrorCode, Phase};

use crate::health::BrowserObserver;
use crate::link::Link;
use crate::stats::Stats;
use crate::store::{SessionStore, StoreEvent, StoredSession};
use crate::worker::WorkerHandle;

/// Longest a session id may be, in bytes.
pub const MAX_SESSION_ID: usize = 128;

/// Most refs a session keeps. Past it the refs of its oldest documents are dropped first (never the
/// newest document's); a dropped ref answers `stale_ref`.
pub const MAX_REFS: usize = 50_000;

/// Longest `Target.createTarget` may take for one session during rehydration.
const REHYDRATE_TIMEOUT: Duration = Duration::from_secs(5);

/// Longest one `Target.closeTarget` may take when nothing else bounds it (shutdown, a raced start).
const CLOSE_TARGET: Duration = Duration::from_millis(1_000);

/// One tab of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tab {
    /// CDP `targetId`.
    pub target_id: String,
    /// The tab that opened it (a popup).
    pub opener_id: Option<String>,
}

/// The refs a session's snapshots issued: by id, bounded by [`MAX_REFS`] (oldest documents out
/// first).
#[derive(Default)]
struct RefTable {
    by_id: HashMap<String, RefRecord>,
    /// Documents (`loaderId`) in the order their first ref was kept.
    documents: VecDeque<String>,
}

impl RefTable {
    fn keep(&mut self, refs: Vec<RefRecord>) {
        for r in refs {
            if !self.documents.contains(&r.loader_id) {
                self.documents.push_back(r.loader_id.clone());
            }
            self.by_id.insert(r.id.clone(), r);
        }
        while self.by_id.len() > MAX_REFS && self.documents.len() > 1 {
            let Some(oldest) = self.documents.pop_front() else { break };
            self.by_id.retain(|_, r| r.loader_id != oldest);
        }
    }
}

/// A flat session of the supervisor's own on a session's active tab, attached while the page was
/// idle (after an action answered), kept for freeing the tab should no worker be able to attach
/// (`unstick`).
#[derive(Clone)]
pub(crate) struct Standby {
    /// The browser it is on ([`Link::browser`]).
    pub(crate) browser: u64,
    /// The tab it is attached to.
    pub(crate) target_id: String,
    /// The flat session, on the supervisor's own route.
    pub(crate) session: sb_cdp::Session,
}

impl Standby {
    /// Whether it is attached to `target_id` of browser `browser` ([`Link::browser`]).
    pub(crate) fn is_on(&self, browser: u64, target_id: &str) -> bool {
        self.browser == browser && self.target_id == target_id
    }
}

/// One harness session: its tabs, its refs, and the worker that drives its active tab.
pub struct SessionEntry {
    /// The harness's `session_id`.
    pub id: String,
    /// CDP `targetId` of the session's active tab (a page reset replaces it).
    target_id: Mutex<String>,
    /// The session's queue: held for the whole of an action.
    pub(crate) worker: tokio::sync::Mutex<Option<WorkerHandle>>,
    last_url: Mutex<Option<String>>,
    /// Screenshots taken, for file names.
    shots: AtomicU64,
    refs: Mutex<RefTable>,
    /// The number of the next ref (`e{n}`).
    next_ref: AtomicU64,
    /// Serializes snapshots' ref numbering.
    pub(crate) snapshotting: tokio::sync::Mutex<()>,
    /// Dialogs answered during the current action, for its result.
    pub(crate) dialogs: Mutex<Vec<DialogInfo>>,
    /// Why the session's page was replaced, until its next result reports it (`session_reset`).
    reset: Mutex<Option<String>>,
    /// The session's own display (`session.start {viewport, device_scale_factor}`); `None`: the
    /// configured one. Every worker of the session gets it.
    pub(crate) display: Mutex<Option<sb_protocol::ipc::Display>>,
    /// The URL the session's new page must load before its next action runs (after a browser or
    /// supervisor restart, or when its last tab closed).
    restore: Mutex<Option<String>>,
    /// The session's browser context (cookies, storage, cache and permissions of its own) as
    /// `(browser, browserContextId)` ([`Link::browser`]): a context of another browser (one that was
    /// restarted) is gone, and the session's next page gets a new one.
    context: Mutex<Option<(u64, String)>>,
    /// How long the last action waited for the tab to be freed after the one before it, until its
    /// result reports it (`waited_for_recovery_ms`).
    recovery_waited_ms: Mutex<Option<u64>>,
    /// The session's tabs in the order they were opened; the active one is `target_id`.
    tabs: Mutex<Vec<Tab>>,
    /// Tabs that left the session (closed): a target lingers in `Target.getTargets` for a moment after
    /// `Target.closeTarget`, and must not join again as a popup.
    gone_tabs: Mutex<HashSet<String>>,
    /// Set when one of its tabs' targets was destroyed (`Target.targetDestroyed`): the tab list is
    /// brought up to date before the next action.
    pub(crate) tabs_dirty: AtomicBool,
    /// Worker starts in a row that failed to attach to the active tab: at two, the next start resets
    /// the tab first (the supervisor's page reset, `unstick`).
    pub(crate) attach_failures: AtomicU32,
    /// The supervisor's own session on the active tab, for freeing it when no worker can attach.
    pub(crate) standby: Mutex<Option<Standby>>,
    /// Set while a worker is started in the background (after the last one was killed or died): the
    /// next action's wait for it is a wait for recovery.
    pub(crate) replacing: AtomicBool,
}

impl SessionEntry {
    fn new(id: String, last_url: Option<String>) -> SessionEntry {
        SessionEntry {
            id,
            target_id: Mutex::new(String::new()),
            worker: tokio::sync::Mutex::new(None),
            last_url: Mutex::new(last_url),
            shots: AtomicU64::new(0),
            refs: Mutex::new(RefTable::default()),
            next_ref: AtomicU64::new(1),
            snapshotting: tokio::sync::Mutex::new(()),
            dialogs: Mutex::new(Vec::new()),
            reset: Mutex::new(None),
            display: Mutex::new(None),
            restore: Mutex::new(None),
            context: Mutex::new(None),
            recovery_waited_ms: Mutex::new(None),
            tabs: Mutex::new(Vec::new()),
            gone_tabs: Mutex::new(HashSet::new()),
            tabs_dirty: AtomicBool::new(false),
            attach_failures: AtomicU32::new(0),
            standby: Mutex::new(None),
            replacing: AtomicBool::new(false),
        }
    }

    /// The session's page is a new target, its only tab (session start, rehydration).
    fn bind_fresh(&self, target_id: String) {
        *self.tabs.lock().unwrap() = if target_id.is_empty() {
            Vec::new()
        } else {
            vec![Tab { target_id: target_id.clone(), opener_id: None }]
        };
        self.set_target(target_id);
    }

    /// The tab `old` was replaced by `new` (a page reset).
    pub(crate) fn replace_tab(&self, old: &str, new: &str) {
        for t in self.tabs.lock().unwrap().iter_mut().filter(|t| t.target_id == old) {
            t.target_id = new.to_string();
        }
        self.set_target(new.to_string());
    }

    /// Whether `target_id` is one of the session's tabs.
    pub fn has_tab(&self, target_id: &str) -> bool {
        self.tabs.lock().unwrap().iter().any(|t| t.target_id == target_id)
    }

    /// The session's tabs, oldest first.
    pub fn tabs(&self) -> Vec<Tab> {
        self.tabs.lock().unwrap().clone()
    }

    /// Adds a tab the session opened itself (`tabs.open`).
    pub(crate) fn add_tab(&self, target_id: String) {
        self.tabs.lock().unwrap().push(Tab { target_id, opener_id: None });
    }

    /// Removes a closed tab; it never joins again.
    pub(crate) fn remove_tab(&self, target_id: &str) {
        self.tabs.lock().unwrap().retain(|t| t.target_id != target_id);
        self.gone_tabs.lock().unwrap().insert(target_id.to_string());
    }

    /// A tab by its whole `target_id` or a unique prefix of it (case-insensitive).
    ///
    /// # Errors
    /// `tab_not_found` when none matches, `ambiguous_target` when several do.
    pub fn find_tab(&self, wanted: &str) -> Result<String, ErrorBody> {
        let tabs = self.tabs();
        if let Some(t) = tabs.iter().find(|t| t.target_id == wanted) {
            return Ok(t.target_id.clone());
        }
        let upper = wanted.to_ascii_uppercase();
        let matches: Vec<&Tab> =
            tabs.iter().filter(|t| t.target_id.to_ascii_uppercase().starts_with(&upper)).collect();
        match matches.as_slice() {
            [one] => Ok(one.target_id.clone()),
            [] => Err(ErrorBody::new(
                ErrorCode::TabNotFound,
                Phase::Session,
                format!("no tab of session '{}' has target_id '{wanted}'; tabs.list shows them", self.id),
            )),
            many => Err(ErrorBody::new(
                ErrorCode::AmbiguousTarget,
                Phase::Session,
                format!(
                    "'{wanted}' matches {} tabs ({}); give more of the target_id",
                    many.len(),
                    many.iter().map(|t| t.target_id.as_str()).collect::<Vec<_>>().join(", ")
                ),
            )),
        }
    }

    /// The session's active target (empty while it has none: a rehydration that failed).
    pub fn target(&self) -> String {
        self.target_id.lock().unwrap().clone()
    }

    pub(crate) fn set_target(&self, target_id: String) {
        *self.target_id.lock().unwrap() = target_id;
    }

    /// The main frame's last known URL.
    pub fn last_url(&self) -> Option<String> {
        self.last_url.lock().unwrap().clone()
    }

    /// Records the main frame's URL; whether it changed.
    fn set_url(&self, url: &str) -> bool {
        let mut last = self.last_url.lock().unwrap();
        if last.as_deref() == Some(url) {
            return false;
        }
        *last = Some(url.to_string());
        true
    }

    /// Notes that the session's page was replaced (a reason already pending is kept).
    pub fn mark_reset(&self, reason: &str) {
        self.reset.lock().unwrap().get_or_insert_with(|| reason.to_string());
    }

    /// The URL the session's page must load before its next action, taken.
    pub(crate) fn take_restore(&self) -> Option<String> {
        self.restore.lock().unwrap().take()
    }

    /// Whether the supervisor's standby session ([`Standby`]) is not on the active
    /// tab of browser `browser`.
    pub(crate) fn standby_stale(&self, browser: u64) -> bool {
        let target = self.target();
        !self.standby.lock().unwrap().as_ref().is_some_and(|s| s.is_on(browser, &target))
    }

    /// Whether the session's page must load its URL before the next action.
    pub(crate) fn restore_pending(&self) -> bool {
        self.restore.lock().unwrap().is_some()
    }

    /// Keeps `url` to load before the next action (a restore that could not finish).
    pub(crate) fn keep_restore(&self, url: String) {
        *self.restore.lock().unwrap() = Some(url);
    }

    /// The session's last action waited `ms` for its tab to be freed after the action before it (added
    /// to what it waited already: a worker replaced in the background, a page reloaded).
    pub(crate) fn recovery_waited(&self, ms: u64) {
        let mut waited = self.recovery_waited_ms.lock().unwrap();
        *waited = Some(waited.unwrap_or(0) + ms);
    }

    /// How long the last action waited for its tab to be freed (ms), taken (it is reported once).
    pub(crate) fn take_recovery_waited(&self) -> Option<u64> {
        self.recovery_waited_ms.lock().unwrap().take()
    }

    /// The pending reset reason, taken (it is reported once).
    pub(crate) fn take_reset(&self) -> Option<String> {
        self.reset.lock().unwrap().take()
    }

    /// The number of the session's next screenshot (1, 2, ...).
    pub(crate) fn next_shot(&self) -> u64 {
        self.shots.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// A ref this session issued.
    ///
    /// # Errors
    /// `unknown_ref` for a ref no snapshot of this session issued; `stale_ref` for one dropped with its
    /// document (past [`MAX_REFS`]).
    pub fn reference(&self, id: &str) -> Result<RefRecord, ErrorBody> {
        if let Some(r) = self.refs.lock().unwrap().by_id.get(id) {
            return Ok(r.clone());
        }
        let issued = id
            .strip_prefix('e')
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| n >= 1 && n < self.next_ref.load(Ordering::SeqCst));
        Err(if issued {
            ErrorBody::new(
                ErrorCode::StaleRef,
                Phase::Request,
                format!(
                    "Ref {id} belongs to an older document that the session no longer keeps; take a new snapshot."
                ),
            )
        } else {
            ErrorBody::new(
                ErrorCode::UnknownRef,
                Phase::Request,
                format!("Ref {id} was never issued in this session; take a new snapshot."),
            )
        })
    }

    /// The number the next snapshot's first new ref gets.
    pub(crate) fn next_ref(&self) -> u64 {
        self.next_ref.load(Ordering::SeqCst)
    }

    /// Stores a snapshot's refs; refs are never reused, so the counter moves past them.
    pub(crate) fn keep_refs(&self, refs: Vec<RefRecord>) {
        for r in &refs {
            if let Some(n) = r.id.strip_prefix('e').and_then(|n| n.parse::<u64>().ok()) {
                self.next_ref.fetch_max(n + 1, Ordering::SeqCst);
            }
        }
        self.refs.lock().unwrap().keep(refs);
    }

    /// How many refs the session keeps now.
    pub fn refs_kept(&self) -> usize {
        self.refs.lock().unwrap().by_id.len()
    }
}

/// A session id held for a `session.start` in progress: counted against `max_sessions` and taken
/// for its id from the moment it is checked, so concurrent starts can never pass the limit. Dropped
/// without [`Sessions::commit`], it frees the slot.
pub struct Reservation<'a> {
    sessions: &'a Sessions,
    id: String,
}

impl Reservation<'_> {
    /// The reserved session id.
    pub fn id(&self) -> &str {
        &self.id
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.sessions.inner.lock().unwrap().pending.remove(&self.id);
    }
}

#[derive(Default)]
struct Registry {
    open: HashMap<String, Arc<SessionEntry>>,
    /// Ids of starts in progress ([`Reservation`]).
    pending: HashSet<String>,
}

/// The open sessions, the store that keeps them across supervisor restarts, and the limit.
pub struct Sessions {
    inner: Mutex<Registry>,
    max: usize,
    generated: AtomicU64,
    store: Option<SessionStore>,
    stats: Arc<Stats>,
    /// Where the sessions' downloads go, and what each is yet to hear of them.
    pub downloads: crate::downloads::Downloads,
}

impl Sessions {
    /// The registry, with `restored` sessions from an earlier supervisor: they get new pages when the
    /// browser comes up, and `session_reset` (`supervisor_restarted`) on their next result.
    pub fn new(
        max: usize,
        store: Option<SessionStore>,
        restored: Vec<StoredSession>,
        stats: Arc<Stats>,
        downloads: crate::downloads::Downloads,
    ) -> Sessions {
        let open = restored
            .into_iter()
            // A store written before ids had to be plain names may hold one that is not (`..`): it is
            // not reopened (its paths could leave their roots).
            .filter(|s| match validate_session_id(&s.session_id) {
                Ok(()) => true,
                Err(e) => {
                    tracing::warn!(browser.session_id = %s.session_id, error.message = %e.message, "session_not_restored");
                    false
                }
            })
            .map(|s| {
                let entry = SessionEntry::new(s.session_id.clone(), s.url);
                *entry.display.lock().unwrap() = s.display;
                entry.mark_reset("supervisor_restarted");
                (s.session_id, Arc::new(entry))
            })
            .collect();
        Sessions {
            inner: Mutex::new(Registry { open, pending: HashSet::new() }),
            max,
            generated: AtomicU64::new(0),
            store,
            stats,
            downloads,
        }
    }

    /// Appends to the session store (when there is one); durable before it returns.
    pub async fn record(&self, event: StoreEvent) {
        if let Some(store) = &self.store {
            store.append(event).await;
        }
    }

    /// An open session.
    ///
    /// # Errors
    /// `unknown_session`.
    pub fn get(&self, id: &str) -> Result<Arc<SessionEntry>, ErrorBody> {
        self.inner.lock().unwrap().open.get(id).cloned().ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::UnknownSession,
                Phase::Session,
                format!("no open session '{id}'; start one with session.start"),
            )
        })
    }

    /// Open sessions now.
    pub fn len(&self) -> usize {
        self.inner.lock().unwrap().open.len()
    }

    /// Whether no session is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every open session.
    pub fn all(&self) -> Vec<Arc<SessionEntry>> {
        self.inner.lock().unwrap().open.values().cloned().collect()
    }

    /// `session.list`: every open session, by id.
    pub fn list(&self) -> Vec<SessionInfo> {
        let mut sessions: Vec<SessionInfo> = self
            .all()
            .iter()
            .map(|s| SessionInfo { session_id: s.id.clone(), target_id: s.target(), url: s.last_url() })
            .collect();
        sessions.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        sessions
    }

    /// Reserves a slot for a new session (`requested` id, or a generated one), atomically against the
    /// limit and the ids in use.
    ///
    /// # Errors
    /// `bad_request` for an invalid id; `too_many_sessions` at the limit (starts in progress count);
    /// `session_exists` for an id open or being started.
    pub fn reserve(&self, requested: Option<String>) -> Result<Reservation<'_>, ErrorBody> {
        let id = match requested {
            Some(id) => {
                validate_session_id(&id)?;
                id
            }
            None => format!("s{}-{}", self.generated.fetch_add(1, Ordering::Relaxed) + 1, short_random()),
        };
        let mut inner = self.inner.lock().unwrap();
        let used = inner.open.len() + inner.pending.len();
        if used >= self.max {
            return Err(ErrorBody::new(
                ErrorCode::TooManySessions,
                Phase::Session,
                format!(
                    "{used} sessions are open or starting, the limit; close one with session.close first"
                ),
            ));
        }
        if inner.open.contains_key(&id) || inner.pending.contains(&id) {
            return Err(ErrorBody::new(
                ErrorCode::SessionExists,
                Phase::Session,
                format!("session '{id}' is already open; close it or use another id"),
            ));
        }
        inner.pending.insert(id.clone());
        Ok(Reservation { sessions: self, id })
    }

    /// A new entry for a reservation (not yet open).
    pub fn entry(&self, reservation: &Reservation<'_>) -> Arc<SessionEntry> {
        Arc::new(SessionEntry::new(reservation.id.clone(), None))
    }

    /// Opens the reserved session with its entry and records it (`session_started`, `target_bound`).
    pub async fn commit(&self, reservation: Reservation<'_>, entry: Arc<SessionEntry>) {
        {
            let mut inner = self.inner.lock().unwrap();
            inner.pending.remove(&reservation.id);
            inner.open.insert(reservation.id.clone(), entry.clone());
        }
        drop(reservation);
        self.record(StoreEvent::SessionStarted {
            session_id: entry.id.clone(),
            at_ms: crate::store::now_ms(),
        })
        .await;
        self.record(StoreEvent::TargetBound { session_id: entry.id.clone(), target_id: entry.target() })
            .await;
        let display = *entry.display.lock().unwrap();
        if let Some(display) = display {
            self.record(StoreEvent::DisplaySet { session_id: entry.id.clone(), display }).await;
        }
    }

    /// Takes the session out of the registry (its actions then answer `unknown_session`).
    pub fn remove(&self, id: &str) -> Option<Arc<SessionEntry>> {
        self.inner.lock().unwrap().open.remove(id)
    }

    /// Takes every session out (shutdown).
    pub fn drain(&self) -> Vec<Arc<SessionEntry>> {
        self.inner.lock().unwrap().open.drain().map(|(_, s)| s).collect()
    }

    /// Records the session's main frame URL (in the store when it changed, without its credentials:
    /// [`sb_protocol::redact::in_url`]; a page reopened after a restart loads it so).
    pub async fn url_seen(&self, session: &SessionEntry, url: &str) {
        if session.set_url(url) {
            let url = sb_protocol::redact::in_url(url).into_owned();
            self.record(StoreEvent::UrlChanged { session_id: session.id.clone(), url }).await;
        }
    }

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
    /// into the session's own directory ([`crate::downloads`]).
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
            .create_browser_context(budget.remaining())
            .await
            .map_err(|e| cdp_error(Phase::Session, "Target.createBrowserContext", e))?;
        if let Err(e) = self.downloads.allow(link, &session.id, &id).await {
            tracing::warn!(browser.session_id = %session.id, error.message = %e, "download_behavior_not_set");
        }
        *session.context.lock().unwrap() = Some((link.browser, id.clone()));
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

    /// Gives every open session a new target on `link`, at its last URL. Sessions restored from the
    /// store keep their reason (`supervisor_restarted`); the others get `browser_restarted`.
    async fn rehydrate(&self, link: &Link) {
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
    async fn watch_targets(self: Arc<Self>, link: &Link) {
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

/// What watches each new browser: the guard (every request checked from then on), the registry (its
/// targets), then the sessions' pages on it.
pub(crate) struct Observer {
    pub(crate) sessions: Weak<Sessions>,
    pub(crate) guard: Arc<crate::guard::Guard>,
}

impl BrowserObserver for Observer {
    fn browser_ready<'a>(&'a self, link: &'a Link) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Err(e) = self.guard.watch(link).await {
                tracing::error!(error.message = %e, "url_guard_unavailable");
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

/// A session id is a plain name: 1..=[`MAX_SESSION_ID`] chars of `A-Z a-z 0-9 . _ -`, starting with a
/// letter or digit, so it is never `.`, `..`, a hidden name or an option (paths are built from it:
/// a session's downloads directory, its screenshots' names, both through [`crate::files::under`]).
///
/// # Errors
/// `bad_request` stating the rule.
pub(crate) fn validate_session_id(id: &str) -> Result<(), ErrorBody> {
    let ok = id.len() <= MAX_SESSION_ID
        && id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(ErrorBody::new(
            ErrorCode::BadRequest,
            Phase::Request,
            format!(
                "session_id must be 1..={MAX_SESSION_ID} chars of A-Z a-z 0-9 . _ -, starting with a letter or digit (so never . or ..); got {}",
                if id.len() <= MAX_SESSION_ID { format!("{id:?}") } else { format!("{} bytes", id.len()) }
            ),
        ))
    }
}

fn short_random() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(id: &str, loader: &str) -> RefRecord {
        RefRecord {
            id: id.into(),
            role: "button".into(),
            name: id.into(),
            backend_node_id: 1,
            frame_id: "F".into(),
            loader_id: loader.into(),
        }
    }

    fn registry(max: usize) -> Sessions {
        let downloads =
            crate::downloads::Downloads::new(Default::default(), std::path::Path::new("/nonexistent"));
        Sessions::new(max, None, Vec::new(), Arc::new(Stats::default()), downloads)
    }

    #[test]
    fn reservations_count_against_the_limit_before_the_session_opens() {
        let s = registry(2);
        let a = s.reserve(Some("a".into())).unwrap();
        let _b = s.reserve(None).unwrap();
        assert_eq!(s.reserve(Some("c".into())).err().unwrap().code, ErrorCode::TooManySessions);
        assert_eq!(s.reserve(Some("a".into())).err().unwrap().code, ErrorCode::TooManySessions);
        drop(a);
        assert_eq!(s.reserve(Some("a".into())).unwrap().id(), "a");
    }

    #[test]
    fn an_id_being_started_is_taken() {
        let s = registry(8);
        let _a = s.reserve(Some("a".into())).unwrap();
        assert_eq!(s.reserve(Some("a".into())).err().unwrap().code, ErrorCode::SessionExists);
        assert_eq!(s.reserve(Some("bad id".into())).err().unwrap().code, ErrorCode::BadRequest);
    }

    #[test]
    fn the_ref_table_drops_its_oldest_documents_first() {
        let e = SessionEntry::new("s".into(), None);
        let half = MAX_REFS / 2 + 1;
        e.keep_refs((1..=half).map(|n| r(&format!("e{n}"), "old")).collect());
        e.keep_refs((half + 1..=2 * half).map(|n| r(&format!("e{n}"), "new")).collect());
        assert_eq!(e.refs_kept(), half);
        assert_eq!(e.reference("e1").unwrap_err().code, ErrorCode::StaleRef);
        assert_eq!(e.reference(&format!("e{}", 2 * half)).unwrap().loader_id, "new");
        assert_eq!(e.reference(&format!("e{}", 2 * half + 1)).unwrap_err().code, ErrorCode::UnknownRef);
        // One document larger than the bound stays whole: its refs are the page the agent sees.
        let e = SessionEntry::new("s".into(), None);
        e.keep_refs((1..=MAX_REFS + 5).map(|n| r(&format!("e{n}"), "only")).collect());
        assert_eq!(e.refs_kept(), MAX_REFS + 5);
    }
}
