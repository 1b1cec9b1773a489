//! One session's entry: its tabs, its active target, what its next result must report, and the
//! supervisor's standby session on its tab. The entry outlives its worker and its target.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;

use sb_protocol::api::{DialogLog, HumanTookOver};
use sb_protocol::{ErrorBody, ErrorCode, Phase};

use super::refs::Refs;
use crate::workers::worker::WorkerHandle;

/// One tab of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tab {
    /// CDP `targetId`.
    pub target_id: String,
    /// The tab that opened it (a popup).
    pub opener_id: Option<String>,
}

/// A flat session of the supervisor's own on a session's active tab, attached while the page was
/// idle (after an action answered), kept for freeing the tab should no worker be able to attach
/// (`unstick`).
#[derive(Clone)]
pub(crate) struct Standby {
    /// The browser it is on ([`crate::lifecycle::link::Link::browser`]).
    pub(crate) browser: u64,
    /// The tab it is attached to.
    pub(crate) target_id: String,
    /// The flat session, on the supervisor's own route.
    pub(crate) session: sb_cdp::Session,
}

impl Standby {
    /// Whether it is attached to `target_id` of browser `browser` ([`crate::lifecycle::link::Link::browser`]).
    pub(crate) fn is_on(&self, browser: u64, target_id: &str) -> bool {
        self.browser == browser && self.target_id == target_id
    }
}

/// A tab of a session no worker drives, as the supervisor has it: a popup until it is focused, a tab
/// a replaced worker left (`sessions/watch.rs`).
pub(crate) enum Held {
    /// The supervisor's own flat session on it, in browser `.0` ([`crate::lifecycle::link::Link::browser`]),
    /// holds the session's display and emulation (Chromium keeps a session's overrides while it stays
    /// attached).
    By(u64, sb_cdp::Session),
    /// A worker took the tab (`tabs.focus`), or is about to: the supervisor holds nothing on it.
    Released,
}

/// One harness session: its tabs, its refs, and the worker that drives its active tab.
pub struct SessionEntry {
    /// The harness's `session_id`.
    pub id: String,
    /// The session's token (`session.start`'s `session_token`).
    pub(crate) token: String,
    /// CDP `targetId` of the session's active tab (a page reset replaces it).
    pub(super) target_id: Mutex<String>,
    /// The session's queue: held for the whole of an action.
    pub(crate) worker: tokio::sync::Mutex<Option<WorkerHandle>>,
    pub(super) last_url: Mutex<Option<String>>,
    /// Screenshots taken, for file names.
    pub(super) shots: AtomicU64,
    /// The refs its snapshots issued, and the number of the next (`e{n}`).
    pub(super) refs: Refs,
    /// Serializes snapshots' ref numbering.
    pub(crate) snapshotting: tokio::sync::Mutex<()>,
    /// Dialogs answered during the current action (or since the last result), for the next result:
    /// the first [`sb_protocol::api::DIALOGS_LISTED`] and a count of the rest.
    pub(crate) dialogs: Mutex<DialogLog>,
    /// How `page.handle_dialog` asked the next dialog to be answered `(accept, prompt_text)`, until one
    /// is: taken by a dialog of a tab the supervisor holds, or claimed by one of the worker's
    /// ([`crate::workers::worker::DialogPolicy`]).
    pub(crate) dialog_policy: crate::workers::worker::DialogPolicy,
    /// The session's worker's frames (set as it runs an action), for `ToWorker::NextDialog`.
    pub(crate) worker_tx: Mutex<Option<tokio::sync::mpsc::UnboundedSender<sb_protocol::ipc::ToWorker>>>,
    /// Notified when the supervisor answers a dialog of a tab it holds (joining `dialogs`), for
    /// `page.wait_for {dialog}`.
    pub(crate) dialog_answered: tokio::sync::Notify,
    /// The popups its tabs opened (`Target.targetCreated` with one of its tabs as the opener), when,
    /// the newest 100, for `page.wait_for {popup}`.
    pub(crate) popups: Mutex<Vec<(std::time::Instant, String)>>,
    /// When its previous request and its current one started: `page.wait_for {download | popup}`
    /// counts what came from the previous one's start.
    pub(crate) marks: Mutex<(std::time::Instant, std::time::Instant)>,
    /// The popups and downloads (`guid`) a wait returned: each is returned once.
    pub(crate) waited: Mutex<HashSet<String>>,
    /// Notified when one joins `popups`.
    pub(crate) popup_opened: tokio::sync::Notify,
    /// The popups its next result reports (`popups`), the newest 100.
    new_popups: Mutex<Vec<String>>,
    /// Console errors the current action's tab raised, for its result, and the newest texts (at most
    /// [`sb_protocol::ipc::CONSOLE_TEXTS`]).
    pub(crate) console_errors: Mutex<(u64, Vec<String>)>,
    /// The current action's input started a download, which its result reports (the browser tells the
    /// supervisor of it on its own connection, maybe after the worker answered).
    pub(crate) download_began: AtomicBool,
    /// The console error texts of the session's last result (the live view and traces show them).
    pub(crate) last_console: Mutex<Vec<String>>,
    /// Why the session's page was replaced, until its next result reports it (`session_reset`).
    pub(super) reset: Mutex<Option<String>>,
    /// The session's own display (`session.start {viewport, device_scale_factor}`); `None`: the
    /// configured one. Every worker of the session gets it.
    pub(crate) display: Mutex<Option<sb_protocol::ipc::Display>>,
    /// What the session's pages emulate (`page.emulate`); every worker of the session gets it.
    pub(crate) emulation: Mutex<sb_protocol::api::Emulation>,
    /// The URL the session's new page must load before its next action runs (after a browser or
    /// supervisor restart, or when its last tab closed).
    pub(super) restore: Mutex<Option<String>>,
    /// The session's browser context (cookies, storage, cache and permissions of its own) as
    /// `(browser, browserContextId)` ([`crate::lifecycle::link::Link::browser`]): a context of another browser (one that was
    /// restarted) is gone, and the session's next page gets a new one.
    pub(super) context: Mutex<Option<(u64, String)>>,
    /// How long the last action waited for the tab to be freed after the one before it, until its
    /// result reports it (`waited_for_recovery_ms`).
    pub(super) recovery_waited_ms: Mutex<Option<u64>>,
    /// The session's tabs in the order they were opened; the active one is `target_id`.
    pub(super) tabs: Mutex<Vec<Tab>>,
    /// Tabs that left the session (closed): a target lingers in `Target.getTargets` for a moment after
    /// `Target.closeTarget`, and must not join again as a popup.
    pub(crate) gone_tabs: Mutex<HashSet<String>>,
    /// Set when one of its tabs' targets was destroyed (`Target.targetDestroyed`): the tab list is
    /// brought up to date before the next action.
    pub(crate) tabs_dirty: AtomicBool,
    /// CDP sessions its worker holds on tabs, as the worker last said (`runtime.stats`
    /// `tab_sessions`; 0 while it has none).
    pub(crate) tab_sessions: AtomicU32,
    /// Worker starts in a row that failed to attach to the active tab: at two, the next start resets
    /// the tab first (the supervisor's page reset, `unstick`).
    pub(crate) attach_failures: AtomicU32,
    /// The supervisor's own session on the active tab, for freeing it when no worker can attach.
    pub(crate) standby: Mutex<Option<Standby>>,
    /// Set when the session got a new browser context (`Sessions::context`): its kept state is put
    /// back before its next action (`crate::sessions::kept`).
    pub(crate) context_renewed: AtomicBool,
    /// What was put back of its kept state, until its next result reports it (`restored`).
    pub(crate) restored: Mutex<Option<sb_protocol::api::Restored>>,
    /// Set as `session.close` (or the idle expiry) begins: nothing of it is kept from then on.
    pub(crate) closing: AtomicBool,
    /// The session's tabs the supervisor holds or held, by `targetId`: held with the session's
    /// settings until a worker takes one; forgotten when its target goes.
    held: Mutex<HashMap<String, Held>>,
    /// Set while a worker is started in the background (after the last one was killed or died): the
    /// next action's wait for it is a wait for recovery.
    pub(crate) replacing: AtomicBool,
    /// A person holding the session in the live view, and what the next result reports of it.
    human: Mutex<Human>,
    /// Notified when a person hands the session back.
    human_left: tokio::sync::Notify,
    /// Requests on it in progress ([`SessionEntry::in_use`]), and when the last one ended (or the
    /// session opened): what its idle time is counted from.
    use_: Mutex<(usize, std::time::Instant)>,
}

/// A request on a session in progress ([`SessionEntry::in_use`]): while one lives the session is not
/// idle; its drop starts the idle time again.
pub struct InUse<'a>(&'a SessionEntry);

impl Drop for InUse<'_> {
    fn drop(&mut self) {
        let mut used = self.0.use_.lock().unwrap();
        used.0 = used.0.saturating_sub(1);
        used.1 = std::time::Instant::now();
    }
}

/// Who holds a session ([`SessionEntry::take_control`]) and what they did.
#[derive(Debug, Default)]
struct Human {
    /// The viewer holding it: their id, since when, the URL then.
    held: Option<(u64, std::time::Instant, Option<String>)>,
    /// Reported (and taken) by the agent's next result.
    took_over: Option<HumanTookOver>,
}

impl SessionEntry {
    /// A ref this session issued.
    ///
    /// # Errors
    /// `unknown_ref` for a ref no snapshot of this session issued; `stale_ref` for one dropped with its
    /// document ([`super::KEPT_SNAPSHOTS`], [`super::MAX_REFS`]).
    pub fn reference(&self, id: &str) -> Result<sb_protocol::ipc::RefRecord, ErrorBody> {
        self.refs.reference(id)
    }

    /// The number the next snapshot's first new ref gets.
    pub(crate) fn next_ref(&self) -> u64 {
        self.refs.next_ref()
    }

    /// Stores a snapshot's refs; refs are never reused, so the counter moves past them.
    pub(crate) fn keep_refs(&self, refs: Vec<sb_protocol::ipc::RefRecord>) {
        self.refs.keep(refs)
    }

    /// How many refs the session keeps now.
    pub fn refs_kept(&self) -> usize {
        self.refs.kept()
    }

    pub(super) fn new(id: String, last_url: Option<String>, token: String) -> SessionEntry {
        SessionEntry {
            id,
            token,
            target_id: Mutex::new(String::new()),
            worker: tokio::sync::Mutex::new(None),
            last_url: Mutex::new(last_url),
            shots: AtomicU64::new(0),
            refs: Refs::default(),
            snapshotting: tokio::sync::Mutex::new(()),
            dialogs: Mutex::new(DialogLog::default()),
            console_errors: Mutex::default(),
            download_began: Default::default(),
            last_console: Mutex::default(),
            popups: Mutex::default(),
            marks: Mutex::new((std::time::Instant::now(), std::time::Instant::now())),
            waited: Mutex::default(),
            popup_opened: tokio::sync::Notify::new(),
            dialog_answered: tokio::sync::Notify::new(),
            dialog_policy: Default::default(),
            worker_tx: Mutex::new(None),
            new_popups: Mutex::default(),
            reset: Mutex::new(None),
            display: Mutex::new(None),
            emulation: Mutex::default(),
            restore: Mutex::new(None),
            context: Mutex::new(None),
            recovery_waited_ms: Mutex::new(None),
            tabs: Mutex::new(Vec::new()),
            gone_tabs: Mutex::new(HashSet::new()),
            tabs_dirty: AtomicBool::new(false),
            tab_sessions: Default::default(),
            attach_failures: AtomicU32::new(0),
            standby: Mutex::new(None),
            context_renewed: AtomicBool::new(false),
            restored: Mutex::new(None),
            closing: AtomicBool::new(false),
            held: Mutex::default(),
            replacing: AtomicBool::new(false),
            human: Mutex::default(),
            human_left: tokio::sync::Notify::new(),
            use_: Mutex::new((0, std::time::Instant::now())),
        }
    }

    /// Marks a request on the session in progress until the guard drops.
    pub fn in_use(&self) -> InUse<'_> {
        self.use_.lock().unwrap().0 += 1;
        InUse(self)
    }

    /// Starts the session's idle time now (it opens: the time its start took is not idleness).
    pub(super) fn used_now(&self) {
        self.use_.lock().unwrap().1 = std::time::Instant::now();
    }

    /// How long the session has been idle: no request on it in progress and no person holding it in
    /// the live view since its last request ended (or since it opened); `None` while it is in use.
    pub fn idle_for(&self) -> Option<std::time::Duration> {
        if self.held_by().is_some() {
            return None;
        }
        let used = self.use_.lock().unwrap();
        (used.0 == 0).then(|| used.1.elapsed())
    }

    /// The first popup opened since the previous request started that no wait returned yet; it is
    /// returned from now on.
    pub(crate) fn take_popup(&self) -> Option<String> {
        let since = self.marks.lock().unwrap().0;
        let mut waited = self.waited.lock().unwrap();
        let popups = self.popups.lock().unwrap();
        let (_, id) = popups.iter().find(|(t, id)| *t >= since && !waited.contains(id))?;
        waited.insert(id.clone());
        Some(id.clone())
    }

    /// A popup one of its tabs opened: its waits and its next result hear of it.
    pub(crate) fn popup_opened(&self, target_id: &str) {
        push_newest(&self.new_popups, target_id.to_string());
        push_newest(&self.popups, (std::time::Instant::now(), target_id.to_string()));
        self.popup_opened.notify_waiters();
    }

    /// The popups opened since the last call (the result's `popups`).
    pub(crate) fn take_new_popups(&self) -> Vec<String> {
        std::mem::take(&mut *self.new_popups.lock().unwrap())
    }

    /// The session's page is a new target, its only tab (session start, rehydration).
    pub(super) fn bind_fresh(&self, target_id: String) {
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
    /// `tab_not_found` when none matches, `ambiguous_target` when several do; `bad_request` for an
    /// empty one (a prefix of every id: it named the only tab of a session of one).
    pub fn find_tab(&self, wanted: &str) -> Result<String, ErrorBody> {
        if wanted.trim().is_empty() {
            return Err(ErrorBody::new(
                ErrorCode::BadRequest,
                Phase::Request,
                "target_id is empty; tabs.list shows the session's tabs",
            ));
        }
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

    /// Holds popup `target_id` on `session` (browser `browser`), unless a worker took it first;
    /// whether it is now held.
    pub(crate) fn hold(&self, target_id: &str, browser: u64, session: sb_cdp::Session) -> bool {
        match self.held.lock().unwrap().entry(target_id.to_string()) {
            Entry::Occupied(_) => false,
            Entry::Vacant(v) => {
                v.insert(Held::By(browser, session));
                true
            }
        }
    }

    /// Holds tab `target_id` on `session` (browser `browser`) again after the worker that had it went,
    /// unless something holds it or it is the active tab now (a worker's); whether it is now held.
    pub(crate) fn hold_again(&self, target_id: &str, browser: u64, session: sb_cdp::Session) -> bool {
        let mut held = self.held.lock().unwrap();
        let free = !matches!(held.get(target_id), Some(Held::By(..))) && self.target() != target_id;
        if free {
            held.insert(target_id.to_string(), Held::By(browser, session));
        }
        free
    }

    /// Whether the supervisor holds tab `target_id`.
    pub(crate) fn is_held(&self, target_id: &str) -> bool {
        matches!(self.held.lock().unwrap().get(target_id), Some(Held::By(..)))
    }

    /// A worker takes tab `target_id`: the supervisor's session on it, if it held one, for the worker
    /// to take over (Chromium allows one time zone and one locale override a renderer, and a session
    /// that detaches takes its overrides, the viewport's among them, with it). Its events are still
    /// followed here until the worker took it ([`Sessions::handed_over`]): a request paused before
    /// is answered, a dialog opened before is answered.
    ///
    /// [`Sessions::handed_over`]: super::Sessions::handed_over
    pub(crate) fn release(&self, target_id: &str) -> Option<sb_cdp::Session> {
        match self.held.lock().unwrap().insert(target_id.to_string(), Held::Released) {
            Some(Held::By(_, session)) => Some(session),
            _ => None,
        }
    }

    /// Whether `target_id` was still held (it is not now): a popup whose settings failed.
    pub(crate) fn unhold(&self, target_id: &str) -> bool {
        let mut held = self.held.lock().unwrap();
        match held.get(target_id) {
            Some(Held::By(_, session)) => {
                session.client().forget_session(session.id());
                held.insert(target_id.to_string(), Held::Released);
                true
            }
            _ => false,
        }
    }

    /// Forgets tab `target_id` (its target went).
    pub(crate) fn forget_held(&self, target_id: &str) {
        if let Some(Held::By(_, session)) = self.held.lock().unwrap().remove(target_id) {
            session.client().forget_session(session.id());
        }
    }

    /// Forgets every tab held (a new browser: they went with the old one).
    pub(crate) fn forget_all_held(&self) {
        for (_, held) in self.held.lock().unwrap().drain() {
            if let Held::By(_, session) = held {
                session.client().forget_session(session.id());
            }
        }
    }

    /// The tabs held in browser `browser` now, with the supervisor's session on each.
    pub(crate) fn held_in(&self, browser: u64) -> Vec<(String, sb_cdp::Session)> {
        let held = self.held.lock().unwrap();
        held.iter()
            .filter_map(|(t, h)| match h {
                Held::By(b, s) if *b == browser => Some((t.clone(), s.clone())),
                _ => None,
            })
            .collect()
    }

    /// The session's browser context in browser `browser`, when it has one there.
    pub(crate) fn context_in(&self, browser: u64) -> Option<String> {
        self.context.lock().unwrap().clone().filter(|(b, _)| *b == browser).map(|(_, c)| c)
    }

    /// The origin of the main frame's last known URL (`https://example.com`), for an `http(s)` one.
    pub(crate) fn active_origin(&self) -> Option<String> {
        let url = url::Url::parse(&self.last_url()?).ok()?;
        matches!(url.scheme(), "http" | "https").then(|| url.origin().ascii_serialization())
    }

    /// The supervisor's standby session on the active tab of browser `browser`, when it is there.
    pub(crate) fn standby_on(&self, browser: u64) -> Option<sb_cdp::Session> {
        let target = self.target();
        self.standby.lock().unwrap().as_ref().filter(|s| s.is_on(browser, &target)).map(|s| s.session.clone())
    }

    /// Whether the session's browser context is `context` of browser `browser`.
    pub(crate) fn has_context(&self, browser: u64, context: &str) -> bool {
        self.context.lock().unwrap().as_ref().is_some_and(|(b, c)| *b == browser && c == context)
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
    pub(super) fn set_url(&self, url: &str) -> bool {
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

    /// The directory name of the owner of the session's files ([`crate::files::owner`]): its token's
    /// when `tokens` (`[limits] session_tokens`), else the runtime's one agent's.
    pub(crate) fn owner(&self, tokens: bool) -> String {
        crate::files::owner(tokens.then_some(self.token.as_str()))
    }

    /// The number of the session's next screenshot (1, 2, ...).
    pub(crate) fn next_shot(&self) -> u64 {
        self.shots.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Viewer `viewer` takes the session (the live view's takeover); the agent's actions wait from now
    /// on. `false` when another viewer holds it.
    pub fn take_control(&self, viewer: u64, url: Option<String>) -> bool {
        let mut human = self.human.lock().unwrap();
        match &human.held {
            Some((holder, ..)) => *holder == viewer,
            None => {
                human.held = Some((viewer, std::time::Instant::now(), url));
                true
            }
        }
    }

    /// Viewer `viewer` hands the session back (or their view closed): the agent's waiting action runs,
    /// its result reports [`HumanTookOver`] with `note`, and the session's idle time starts again.
    /// `false` when `viewer` did not hold it.
    pub fn hand_back(&self, viewer: u64, note: Option<String>, url: Option<String>) -> bool {
        let mut human = self.human.lock().unwrap();
        let Some((_, since, url_before)) = human.held.take_if(|(holder, ..)| *holder == viewer) else {
            return false;
        };
        let earlier = human.took_over.take().unwrap_or_default();
        human.took_over = Some(HumanTookOver {
            ms: earlier.ms + since.elapsed().as_millis() as u64,
            url_before: earlier.url_before.or(url_before),
            url_after: url,
            note: note.filter(|n| !n.trim().is_empty()).or(earlier.note),
        });
        drop(human);
        // What the person did was use: the idle time starts now.
        self.use_.lock().unwrap().1 = std::time::Instant::now();
        self.human_left.notify_waiters();
        true
    }

    /// The viewer holding the session, if any.
    pub fn held_by(&self) -> Option<u64> {
        self.human.lock().unwrap().held.as_ref().map(|(viewer, ..)| *viewer)
    }

    /// Waits, within `budget`, until no person holds the session.
    ///
    /// # Errors
    /// `human_in_control` (phase `session`, retryable) at the budget's deadline.
    pub(crate) async fn wait_for_human(&self, budget: sb_protocol::Budget) -> Result<(), ErrorBody> {
        let free = budget.wait_notified(&self.human_left, || self.held_by().is_none().then_some(()));
        free.await.ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::HumanInControl,
                Phase::Session,
                "a person has taken over this session in the live view and has not handed it back; \
                 wait and send the action again (its result will say what changed)",
            )
            .with_hint("The operator holds the session in the live view ([view] takeover).")
        })
    }

    /// What a person did while holding the session, taken (it is reported once).
    pub(crate) fn take_human_took_over(&self) -> Option<HumanTookOver> {
        self.human.lock().unwrap().took_over.take()
    }
}

/// Appends `item` to `list`, which keeps its newest 100 (the oldest goes).
fn push_newest<T>(list: &Mutex<Vec<T>>, item: T) {
    let mut list = list.lock().unwrap();
    if list.len() >= 100 {
        list.remove(0);
    }
    list.push(item);
}
