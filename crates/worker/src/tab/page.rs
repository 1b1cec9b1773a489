//! The page: the worker's browser connection, the flat CDP session on the session's target, and what
//! the worker follows on it (lifecycle, crashes, dialogs, out-of-process iframes); attaching to a target
//! (`Target.attachToTarget {flatten: true}`) and adopting another; the isolated world the runtime's own
//! scripts run in; and the small evaluate helpers every action uses.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sb_cdp::calls::{CallFunctionOn, Evaluate};
use sb_cdp::commands::{
    EmulationSetFocusEmulationEnabled, InspectorEnable, NetworkEnable, PageEnable,
    PageSetInterceptFileChooserDialog, PageSetLifecycleEventsEnabled, RuntimeEnable,
    RuntimeReleaseObjectGroup, RuntimeRunIfWaitingForDebugger, TargetSetAutoAttach,
};
use sb_cdp::types::EvaluateResult;
use sb_cdp::{CdpClient, CdpError, Session};
use sb_protocol::api::Emulation;
use sb_protocol::ipc::{Counter, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde_json::Value;

use crate::error::{cdp_failure, fail};
use crate::progress::Progress;
use crate::tab::conns::Conns;
use crate::tab::dialogs::Dialogs;
use crate::tab::journal::{track_journal, Journal};
use crate::tab::lifecycle::{track_lifecycle, Lifecycle};
use crate::tab::oopifs::{track_oopifs, Oopifs};

/// Time allowed to connect and attach before `Ready`.
pub(crate) const ATTACH_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest a small call of the runtime's own (URL and title) may take.
const SMALL_CALL: Duration = Duration::from_millis(1_000);

/// The object group (CDP `objectGroup`) of the remote objects an action makes: the elements it
/// resolves (`DOM.resolveNode`, a selector's or a ref's lookup) and the nodes its hit tests find.
/// Released when the action ends ([`Page::release_objects`]): a remote object keeps its node alive
/// until it is released or its document goes, so a long-lived page whose script replaces the elements
/// an agent acts on (a single-page app) kept every one of them, with what hangs on them.
pub(crate) const ACTION_GROUP: &str = "sandbox-browser-action";

/// The isolated world (`Page.createIsolatedWorld`) the runtime's own page scripts run in: the walker's
/// registry of large-page refs lives there, out of the page's reach.
pub(crate) const WORLD: &str = "sandbox-browser";

/// The isolated world ([`WORLD`]) of the frames the snapshot walked, kept as their execution context
/// ids: `Page.createIsolatedWorld` (a round trip) once a document instead of once a call. In the
/// page's own session a kept id is forgotten as soon as its context goes ([`KeptWorlds::follow`]), so
/// the first call in a new document does not try the old one first. A kept id is trusted only where
/// the world's marker answers, a global named by [`KeptWorlds::marker`] (128 random bits a page cannot
/// guess, set when the world is made ready): a context goes with its document, and after a renderer
/// swap the new renderer's ids start again and may name another world.
pub(crate) struct KeptWorlds {
    marker: String,
    contexts: std::sync::Mutex<std::collections::HashMap<(String, String), i64>>,
}

/// At most this many worlds are kept (one for each frame walked); past it all are forgotten, and made
/// ready again as they are walked.
const KEPT_WORLDS: usize = 64;

impl KeptWorlds {
    /// No worlds kept yet, and a new marker.
    fn new() -> Arc<KeptWorlds> {
        use std::hash::{BuildHasher, RandomState};
        let random = RandomState::new();
        let marker = format!("__sandboxBrowser{:016x}{:016x}", random.hash_one(1u8), random.hash_one(2u8));
        Arc::new(KeptWorlds { marker, contexts: Default::default() })
    }

    /// Forgets the kept contexts of `session` as they go (`Runtime.executionContextDestroyed`,
    /// `...Cleared`: its document went), for a session with `Runtime` enabled.
    pub(crate) fn follow(self: &Arc<Self>, session: &Session) {
        let mut events = session.events();
        let worlds = Arc::downgrade(self);
        let session = session.clone();
        tokio::spawn(async move {
            while let Some(ev) = events.recv().await {
                let Some(worlds) = worlds.upgrade() else { return };
                match ev.method.as_str() {
                    "Runtime.executionContextDestroyed" => {
                        let id = ev.params.get("executionContextId").and_then(Value::as_i64);
                        let mut contexts = worlds.contexts.lock().unwrap();
                        contexts.retain(|(s, _), c| s != session.id() || Some(*c) != id);
                    }
                    "Runtime.executionContextsCleared" => {
                        worlds.contexts.lock().unwrap().retain(|(s, _), _| s != session.id());
                    }
                    _ => {}
                }
            }
        });
    }

    /// The name of the global that marks a world made ready by this worker (`__sandboxBrowser` and 32
    /// hex digits).
    pub(crate) fn marker(&self) -> &str {
        &self.marker
    }

    fn key(session: &Session, frame_id: &str) -> (String, String) {
        (session.id().to_string(), frame_id.to_string())
    }

    /// The kept context of `frame_id`'s world in `session`, if any.
    pub(crate) fn kept(&self, session: &Session, frame_id: &str) -> Option<i64> {
        self.contexts.lock().unwrap().get(&Self::key(session, frame_id)).copied()
    }

    /// Keeps `context` as `frame_id`'s world in `session` (its marker set).
    pub(crate) fn keep(&self, session: &Session, frame_id: &str, context: i64) {
        let mut contexts = self.contexts.lock().unwrap();
        if contexts.len() >= KEPT_WORLDS {
            contexts.clear();
        }
        contexts.insert(Self::key(session, frame_id), context);
    }

    /// Forgets `frame_id`'s world in `session` (its context is gone, or is not the world).
    pub(crate) fn forget(&self, session: &Session, frame_id: &str) {
        self.contexts.lock().unwrap().remove(&Self::key(session, frame_id));
    }

    /// Calls `call` (a function of the runtime's own that needs nothing the walker installs; its
    /// `execution_context_id` and `object_id` are set here) in `frame_id`'s isolated world in
    /// `session` (`Runtime.callFunctionOn` on the world's global object): in the kept context where the
    /// marker answers (one round trip), else in the world asked for anew (`Page.createIsolatedWorld`;
    /// not kept: only a walk makes a world ready). Each call within what is left of `budget`.
    ///
    /// What varies from call to call goes in `call.arguments`, never in its source: V8 keeps each
    /// distinct source compiled through the inspector for the context's life (with the ref and the
    /// storage item in the sources, a round of a click, a hover and a `page.storage` write kept about
    /// 27 KB of the page's heap).
    ///
    /// # Errors
    /// The call's [`CdpError`]; a kept context that ran out of time is not asked again (its timeout).
    pub(crate) async fn call(
        &self,
        session: &Session,
        frame_id: &str,
        mut call: CallFunctionOn,
        budget: Budget,
    ) -> Result<EvaluateResult, CdpError> {
        let marker = self.marker.as_str();
        call.object_id = String::new();
        if let Some(context) = self.kept(session, frame_id) {
            // Elsewhere than the world, the answer is the marker's name. The guard's source is the
            // same for every call of one function in this worker.
            let guarded = CallFunctionOn {
                function_declaration: format!(
                    "function(...args) {{ return globalThis.{marker} ? ({}).apply(this, args) : {marker:?}; }}",
                    call.function_declaration
                ),
                execution_context_id: Some(context),
                ..call.clone()
            };
            match session.call_function_on(&guarded, budget.remaining()).await {
                Err(e) if e.is_timeout() => return Err(e),
                Ok(r) if r.result.value.as_ref().and_then(Value::as_str) != Some(marker) => return Ok(r),
                _ => self.forget(session, frame_id),
            }
        }
        call.execution_context_id =
            Some(session.create_isolated_world(frame_id, WORLD, budget.remaining()).await?);
        session.call_function_on(&call, budget.remaining()).await
    }
}

/// The session's previous snapshot of this page, which the next `page.snapshot {diff: true}` compares
/// against (the snapshot module's `diff`).
pub(crate) struct Previous {
    /// The main frame's document (`loaderId`).
    pub(crate) document: String,
    /// The options it was taken with, but `max_chars` and `diff`.
    pub(crate) options: String,
    pub(crate) text: String,
}

/// The attached page and what the worker remembers of it.
pub(crate) struct Page {
    /// Opens the worker's connections to the browser (the ladder's second one).
    pub(crate) conns: Conns,
    /// The worker's browser-level connection.
    pub(crate) browser: CdpClient,
    /// The page's current target.
    pub(crate) target_id: String,
    /// The flat session on the page's target.
    pub(crate) session: Session,
    /// The main frame's lifecycle events (for `networkidle`).
    pub(crate) lifecycle: tokio::sync::watch::Receiver<Lifecycle>,
    /// Dialogs answered, and how to answer the next one.
    pub(crate) dialogs: Dialogs,
    /// Set when the worker moved to another target (a page reset, or another tab); reported to the
    /// supervisor.
    pub(crate) moved: Option<Moved>,
    /// How often the renderer crashed at each URL in this worker's life: a URL that crashed it twice is
    /// not reopened again (`crash_loop`).
    pub(crate) crashes: std::collections::HashMap<String, u32>,
    /// Becomes true when the page's renderer crashes (`Inspector.targetCrashed`).
    pub(crate) crashed: tokio::sync::watch::Receiver<bool>,
    /// Set before the worker ends the renderer itself (`Page.crash` in a page reset): that crash is
    /// not a fault to answer.
    pub(crate) crash_expected: Arc<AtomicBool>,
    /// The page's out-of-process iframes, by frame id.
    pub(crate) oopifs: Oopifs,
    /// The active tab's console messages, requests and main-world contexts.
    pub(crate) journal: Arc<Journal>,
    /// An input of the current run started a download (reported before its `Done`).
    pub(crate) download_began: AtomicBool,
    /// The session's HAR recording, while one is on (`session.har`).
    pub(crate) har: Option<crate::tab::journal::HarRecording>,
    /// Where the last mouse event put the pointer, CSS px in the viewport (unknown on a new page).
    pub(crate) mouse_at: std::sync::Mutex<Option<(f64, f64)>>,
    /// The mouse buttons `page.mouse` pressed and did not release (left 1, right 2, middle 4).
    pub(crate) buttons_held: std::sync::Mutex<u32>,
    /// The modifiers `page.keyboard` pressed and did not release (Alt 1, Control 2, Meta 4, Shift 8).
    pub(crate) keys_held: std::sync::Mutex<u32>,
    /// Counted events of the current run, reported to the supervisor after it.
    pub(crate) tallies: Vec<Counter>,
    /// The main frame URL last reported to the supervisor.
    pub(crate) reported_url: String,
    /// The viewport every page of the session gets, CSS px.
    pub(crate) viewport: Option<sb_protocol::ipc::Display>,
    /// What every page of the session emulates (`page.emulate`).
    pub(crate) emulation: Emulation,
    /// The last snapshot's text, for the next `page.snapshot {diff: true}`.
    pub(crate) last_snapshot: std::sync::Mutex<Option<Previous>>,
    /// The frames' isolated worlds kept ready.
    pub(crate) worlds: Arc<KeptWorlds>,
    /// The last element found stable, for the stability check of the next action on it
    /// (`crate::elements::actionability`).
    pub(crate) last_stable: std::sync::Mutex<Option<SeenStable>>,
    /// The sessions (the page's, an out-of-process iframe's) that got objects in [`ACTION_GROUP`]
    /// during the current action, by CDP `sessionId`: [`Page::release_objects`] releases them there.
    pub(crate) grouped: std::sync::Mutex<std::collections::HashMap<String, Session>>,
    /// The sessions on the tabs the worker left (`tabs.focus` elsewhere), by `targetId`, with the
    /// display and emulation each was last given: kept (their dialogs answered, their overrides held)
    /// and driven again when the tab is focused again.
    pub(crate) left: std::collections::HashMap<String, Left>,
    /// The CDP `sessionId`s of the worker's page sessions that the browser ended since the worker
    /// last looked (`Target.detachedFromTarget` on its browser connection: their tab closed, or a
    /// page reset closed it), let go by [`Page::let_go_of_closed_tabs`].
    detached: Arc<std::sync::Mutex<Vec<String>>>,
    /// The number of sessions on tabs last reported to the supervisor.
    reported_tab_sessions: u32,
}

/// A session on a tab the worker left, and the settings it carries.
pub(crate) struct Left {
    pub(crate) attached: Attached,
    pub(crate) viewport: Option<sb_protocol::ipc::Display>,
    pub(crate) emulation: Emulation,
}

/// An element a stability check found still, and its box when that check ended: the CDP `sessionId`
/// of its renderer, what names the element (`ref e5`, or `node 42` by `backendNodeId`), and
/// `{x, y, width, height, time}` (CSS px; `time`: the page's `document.timeline.currentTime` then, ms).
#[derive(Debug, Clone)]
pub(crate) struct SeenStable {
    pub(crate) session: String,
    pub(crate) element: String,
    pub(crate) seen: Value,
}

impl Page {
    /// Opens the worker's first connection to the browser and attaches to `target_id`
    /// ([`attach_session`]; its dialogs answered through `dialogs`), within [`ATTACH_TIMEOUT`].
    pub(crate) async fn attach(
        conns: Conns,
        target_id: &str,
        viewport: Option<sb_protocol::ipc::Display>,
        emulation: Emulation,
        dialogs: Dialogs,
    ) -> Result<Page, CdpError> {
        let worlds = KeptWorlds::new();
        let browser = conns.open();
        let budget = Budget::new(ATTACH_TIMEOUT);
        let detached = follow_detached(&browser);
        let setup = Setup { dialogs: &dialogs, viewport, emulation: &emulation, worlds: &worlds };
        let attached = attach_session(&browser, target_id, None, setup, budget).await?;
        Ok(Page {
            conns,
            browser,
            target_id: target_id.to_string(),
            session: attached.session,
            dialogs,
            lifecycle: attached.lifecycle,
            moved: None,
            crashes: Default::default(),
            viewport,
            emulation,
            crashed: attached.crashed,
            crash_expected: attached.crash_expected,
            oopifs: attached.oopifs,
            journal: attached.journal,
            har: None,
            download_began: Default::default(),
            mouse_at: std::sync::Mutex::new(None),
            buttons_held: Default::default(),
            keys_held: Default::default(),
            tallies: Vec::new(),
            reported_url: String::new(),
            last_snapshot: Default::default(),
            worlds,
            last_stable: Default::default(),
            grouped: Default::default(),
            left: Default::default(),
            detached,
            reported_tab_sessions: 0,
        })
    }

    /// Lets go of the sessions on tabs that closed: a tab the worker left (`tabs.focus` elsewhere)
    /// and the session's `tabs.close` or its own `window.close()` then closed, or the target a page
    /// reset replaced. Their event streams end ([`CdpClient::forget_session`], its out-of-process
    /// iframes' too), so the tasks following them (lifecycle, dialogs, journal, crash, worlds,
    /// iframes) stop and their journal goes; before, each stayed for the worker's life (about 34 KB
    /// a tab focused and closed, measured). The active tab's session is not touched here: the
    /// waits of an action on a tab that closes under it answer at the action's deadline, as every
    /// wait does; it is let go once the worker has left it.
    pub(crate) fn let_go_of_closed_tabs(&mut self) {
        let ended = std::mem::take(&mut *self.detached.lock().unwrap());
        for session_id in ended {
            if session_id == self.session.id() {
                self.detached.lock().unwrap().push(session_id);
                continue;
            }
            let tab = self.left.iter().find(|(_, l)| l.attached.session.id() == session_id);
            if let Some(left) = tab.map(|(t, _)| t.clone()).and_then(|t| self.left.remove(&t)) {
                for frame in left.attached.oopifs.lock().unwrap().values() {
                    self.browser.forget_session(frame.session.id());
                }
            }
            self.browser.forget_session(&session_id);
        }
    }

    /// The number of CDP sessions the worker holds on tabs (the active tab's and those it left),
    /// when it changed since the last report (reported once).
    pub(crate) fn take_tab_sessions_change(&mut self) -> Option<u32> {
        let count = 1 + self.left.len() as u32;
        (count != std::mem::replace(&mut self.reported_tab_sessions, count)).then_some(count)
    }

    /// [`ACTION_GROUP`], for an object the action makes in `session`, which is noted for
    /// [`Page::release_objects`].
    pub(crate) fn group(&self, session: &Session) -> &'static str {
        let mut grouped = self.grouped.lock().unwrap();
        grouped.entry(session.id().to_string()).or_insert_with(|| session.clone());
        ACTION_GROUP
    }

    /// Releases the objects the action made ([`ACTION_GROUP`], `Runtime.releaseObjectGroup`) in each
    /// session that got some. Sent now, so each runs before that session's next call; the answers
    /// are not waited for (a session that is gone has nothing left to release). An action cut short
    /// at its deadline leaves its objects to the next action's release (the same group).
    pub(crate) fn release_objects(&self) {
        let sessions: Vec<Session> = self.grouped.lock().unwrap().drain().map(|(_, s)| s).collect();
        let release = RuntimeReleaseObjectGroup { object_group: ACTION_GROUP.into() };
        for session in sessions {
            tokio::spawn(session.send(&release, SMALL_CALL));
        }
    }

    /// Attaches to `target_id` as the page's own target was ([`attach_session`]: its dialogs, viewport,
    /// emulation and worlds), on the page's browser connection, taking over `held` (the
    /// supervisor's session on a popup) when given; [`Page::adopt`] then drives it.
    ///
    /// # Errors
    /// The attach's [`CdpError`].
    pub(crate) async fn attach_another(
        &self,
        target_id: &str,
        held: Option<&str>,
        budget: Budget,
    ) -> Result<Attached, CdpError> {
        let setup = Setup {
            dialogs: &self.dialogs,
            viewport: self.viewport,
            emulation: &self.emulation,
            worlds: &self.worlds,
        };
        attach_session(&self.browser, target_id, held, setup, budget).await
    }

    /// The page's session and what follows it, as [`Page::adopt`] took them.
    pub(crate) fn attached(&self) -> Attached {
        Attached {
            session: self.session.clone(),
            lifecycle: self.lifecycle.clone(),
            crashed: self.crashed.clone(),
            crash_expected: self.crash_expected.clone(),
            oopifs: self.oopifs.clone(),
            journal: self.journal.clone(),
        }
    }

    /// Drives `target_id` through `attached` from now on (another tab, or the target that replaced a
    /// stuck or crashed one); the supervisor hears of the change after the run.
    pub(crate) fn adopt(&mut self, target_id: &str, attached: Attached, why: Moved) {
        self.session = attached.session;
        self.lifecycle = attached.lifecycle;
        self.crashed = attached.crashed;
        self.crash_expected = attached.crash_expected;
        self.oopifs = attached.oopifs;
        self.journal = attached.journal;
        *self.mouse_at.lock().unwrap() = None;
        *self.last_stable.lock().unwrap() = None;
        *self.buttons_held.lock().unwrap() = 0;
        *self.keys_held.lock().unwrap() = 0;
        self.target_id = target_id.to_string();
        self.moved = Some(why);
    }

    /// The new target id and, for a page reset, its reason, when the page moved since the last report
    /// (reported once).
    pub(crate) fn take_target_change(&mut self) -> Option<(String, Option<String>)> {
        let moved = self.moved.take()?;
        let reason = match moved {
            Moved::Tab | Moved::Reopened => None,
            Moved::Reset(reason) => Some(reason.to_string()),
        };
        Some((self.target_id.clone(), reason))
    }

    /// The main frame's URL when it changed since the last report.
    pub(crate) fn take_url_change(&mut self) -> Option<String> {
        let url = self.lifecycle.borrow().url.clone();
        (!url.is_empty() && url != self.reported_url).then(|| {
            self.reported_url = url.clone();
            url
        })
    }
}

/// Why the worker moved to another target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Moved {
    /// `tabs.focus` / `tabs.open`: another tab of the session.
    Tab,
    /// A page reset, with its reason as the session's next result reports it (`tab_stuck`,
    /// `renderer_crashed`, `crash_loop`).
    Reset(&'static str),
    /// A page reopened after a crash its action already answered (`page_reset`): not reported again.
    Reopened,
}

/// A flat session on a page target, with what the worker follows on it.
pub(crate) struct Attached {
    pub(crate) session: Session,
    pub(crate) lifecycle: tokio::sync::watch::Receiver<Lifecycle>,
    pub(crate) crashed: tokio::sync::watch::Receiver<bool>,
    pub(crate) crash_expected: Arc<AtomicBool>,
    pub(crate) oopifs: Oopifs,
    pub(crate) journal: Arc<Journal>,
}

/// What every page of the session gets as the worker attaches to it.
#[derive(Clone, Copy)]
struct Setup<'a> {
    dialogs: &'a Dialogs,
    /// The session's display (CSS px).
    viewport: Option<sb_protocol::ipc::Display>,
    emulation: &'a Emulation,
    worlds: &'a Arc<KeptWorlds>,
}

/// Attaches to `target_id` (or takes over `held`, the supervisor's session on it, which already set
/// the session's settings on the page: `sb_cdp::CdpClient::adopt`; one that cannot be taken over is
/// attached to as any other) and enables what the actions need (`Page`, `Network`, lifecycle events,
/// followed by [`track_lifecycle`]; `Inspector` for `Inspector.targetCrashed`; `Runtime` and
/// `Network` followed by [`track_journal`] and [`KeptWorlds::follow`]), sets what the session
/// emulates ([`crate::tab::emulate`]), and sets `viewport` (CSS px) as the page's own size, as Playwright does for a context's viewport
/// (`Emulation.setDeviceMetricsOverride`, scale 1, not mobile): the page's `innerWidth` and
/// `innerHeight` are the viewport's, whatever the window's chrome takes.
async fn attach_session(
    browser: &CdpClient,
    target_id: &str,
    held: Option<&str>,
    setup: Setup<'_>,
    budget: Budget,
) -> Result<Attached, CdpError> {
    let Setup { dialogs, viewport, emulation, worlds } = setup;
    // What follows a session's events subscribes before the session is this process's (an event
    // nobody here follows yet is dropped: a paused request would hang, a dialog stay open).
    let follow_events = |session: &Session| {
        let lifecycle = track_lifecycle(session, target_id);
        worlds.follow(session);
        let crash_expected = Arc::new(AtomicBool::new(false));
        let crashed = watch_crash(session, crash_expected.clone());
        let oopifs = track_oopifs(browser, session);
        let journal = track_journal(session);
        dialogs.watch(session);
        (lifecycle, crash_expected, crashed, oopifs, journal)
    };
    let mut adopted = None;
    if let Some(id) = held {
        let session = browser.session(id.to_string());
        let followed = follow_events(&session);
        crate::tab::intercept::follow_before_taking(&session);
        match browser.adopt(id, budget.remaining()).await {
            Ok(_) => adopted = Some((session, followed)),
            // Not ours after all: what followed it ends.
            Err(_) => browser.forget_session(id),
        }
    }
    let adopted_here = adopted.is_some();
    let (session, (lifecycle, crash_expected, crashed, oopifs, journal)) = match adopted {
        Some(adopted) => adopted,
        None => {
            let session = browser.attach(target_id, budget.remaining()).await?;
            let followed = follow_events(&session);
            (session, followed)
        }
    };
    // Focus emulation keeps every tab "focused": without it, once a popup's window takes the focus,
    // input to the opener's page is never acknowledged (Input.dispatchMouseEvent hangs).
    let (a, b, c, d, e, f, g, h) = tokio::join!(
        // Cross-site iframes are targets of their own: attach to them as they appear.
        session.send(&TargetSetAutoAttach::children_held(), budget.remaining()),
        session.send(&PageEnable {}, budget.remaining()),
        session.send(&EmulationSetFocusEmulationEnabled { enabled: true }, budget.remaining()),
        session.send(&NetworkEnable {}, budget.remaining()),
        session.send(&PageSetLifecycleEventsEnabled { enabled: true }, budget.remaining()),
        session.send(&InspectorEnable {}, budget.remaining()),
        session.send(&RuntimeEnable {}, budget.remaining()),
        // A file chooser a click opens is reported (`Page.fileChooserOpened`), never shown: the
        // journal keeps it for `page.upload`.
        session.send(&PageSetInterceptFileChooserDialog { enabled: true }, budget.remaining()),
    );
    a?;
    b?;
    c?;
    d?;
    e?;
    f?;
    g?;
    h?;
    // A session taken over from the supervisor (a popup it held) has the init scripts the supervisor
    // added on it (`Action::Attach`'s `held_scripts`): added again, they would run twice; those the
    // session no longer has are removed.
    let held: Vec<String> =
        crate::tab::emulate::scripts_on(session.id()).into_iter().map(|(s, _)| s).collect();
    let before = match adopted_here {
        true => Emulation { init_scripts: Some(held), ..Emulation::default() },
        false => Emulation::default(),
    };
    crate::tab::emulate::apply(browser, &session, target_id, viewport, &before, emulation, budget).await?;
    // A new page the supervisor holds until its settings are in (a popup, `start_held_page`) runs
    // from here at the latest; for any other page this does nothing.
    session.run(&RuntimeRunIfWaitingForDebugger {}, budget.remaining()).await?;
    Ok(Attached { session, lifecycle, crashed, crash_expected, oopifs, journal })
}

/// Sets the page's viewport and scale (`Emulation.setDeviceMetricsOverride`, not mobile, the screen as
/// large as the viewport).
pub(crate) async fn set_display(
    session: &Session,
    d: sb_protocol::ipc::Display,
    budget: Budget,
) -> Result<(), CdpError> {
    session.run(&crate::tab::emulate::display_metrics(d), budget.remaining()).await.map(|_| ())
}

/// Collects the `sessionId` of each session the browser ends on `browser` (`Target.detachedFromTarget`
/// at the browser level: the worker's page sessions), for [`Page::let_go_of_closed_tabs`]. Subscribed
/// before the worker's first attach; the task ends with the connection or the page.
fn follow_detached(browser: &CdpClient) -> Arc<std::sync::Mutex<Vec<String>>> {
    let detached = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut events = browser.browser_events();
    let kept = Arc::downgrade(&detached);
    tokio::spawn(async move {
        while let Some(ev) = events.recv().await {
            if ev.method != "Target.detachedFromTarget" {
                continue;
            }
            let Some(ended) = ev.parse::<sb_cdp::types::DetachedFromTarget>() else { continue };
            let Some(detached) = kept.upgrade() else { return };
            detached.lock().unwrap().push(ended.session_id);
        }
    });
    detached
}

/// Becomes true on `Inspector.targetCrashed` for `session`'s target (the renderer died: out of memory,
/// a renderer bug, `Page.crash` from elsewhere), unless `expected` says the worker ended it itself.
fn watch_crash(session: &Session, expected: Arc<AtomicBool>) -> tokio::sync::watch::Receiver<bool> {
    let (tx, rx) = tokio::sync::watch::channel(false);
    let mut events = session.events();
    tokio::spawn(async move {
        while let Some(ev) = events.recv().await {
            if ev.method == "Inspector.targetCrashed" && !expected.load(Ordering::SeqCst) {
                let _ = tx.send(true);
                break;
            }
        }
    });
    rx
}

/// Calls `function` on the remote object `object_id` (`Runtime.callFunctionOn`, by value, promises
/// awaited) with `args` (CDP `CallArgument`s), sent now (in order with the session's other calls);
/// the answer's future yields the returned value (JSON `null` for `undefined`).
pub(crate) fn call_function_on(
    session: &Session,
    object_id: &str,
    function: &str,
    args: Value,
    timeout: Duration,
) -> impl std::future::Future<Output = Result<Value, CdpError>> {
    let arguments = args.as_array().cloned().unwrap_or_default();
    let call = CallFunctionOn {
        function_declaration: function.to_string(),
        object_id: object_id.to_string(),
        arguments,
        return_by_value: true,
        await_promise: true,
        ..CallFunctionOn::default()
    };
    let sent = session.call_function_on(&call, timeout);
    async move { Ok(sent.await?.result.value.unwrap_or(Value::Null)) }
}

/// `location.href`, `document.title`, `document.readyState`; when the page does not answer in time (a
/// page busy in a script, or a loaded machine), the URL and title the browser itself knows of the tab
/// (`Target.getTargetInfo`, which needs no renderer), and no `readyState`.
pub(crate) async fn url_and_title(
    page: &Page,
    budget: Budget,
) -> (Option<String>, Option<String>, Option<String>) {
    let expr = "[location.href, document.title, document.readyState]";
    let timeout = budget.capped(SMALL_CALL).max(Duration::from_millis(50));
    let call = Evaluate {
        await_promise: false,
        timeout: Some(timeout.as_millis() as u64),
        ..Evaluate::by_value(expr)
    };
    let r = page.session.evaluate(&call, timeout).await;
    match r.ok().and_then(|r| r.result.value) {
        Some(Value::Array(v)) => {
            let s = |i: usize| v.get(i).and_then(Value::as_str).map(str::to_string);
            (s(0), s(1), s(2))
        }
        _ => {
            let (url, title) = browser_url_and_title(page, timeout).await;
            (url, title, None)
        }
    }
}

/// The URL and title the browser itself knows of the page's tab (`Target.getTargetInfo`: the browser
/// process answers, the renderer is not asked, so a page busy laying out or running a script costs
/// nothing here), within `timeout`; `(None, None)` when the browser does not answer. Before the
/// document has a title the browser gives its URL as the title: that is no title here.
///
/// The browser learns a title from the frame's own channel, the one the frame's CDP events also come
/// on, so a title the document had when one of its lifecycle events was sent is known here once that
/// event has been received.
pub(crate) async fn browser_url_and_title(
    page: &Page,
    timeout: Duration,
) -> (Option<String>, Option<String>) {
    match page.session.client().target_info(&page.target_id, timeout).await {
        Ok(t) => {
            let title = (t.title != t.url).then_some(t.title);
            (Some(t.url), title)
        }
        Err(_) => (None, None),
    }
}

/// Evaluates an expression of the runtime's own (not the caller's) within the action's budget and
/// returns its JSON value; `step` (what it reads: "reading the page's text") is logged first, so
/// that a timeout on a page that does not answer names it.
pub(crate) async fn eval_by_value(
    page: &Page,
    expression: &str,
    phase: Phase,
    step: &str,
    p: &Progress,
) -> Result<Value, WorkerError> {
    p.log(step);
    let timeout = p.budget().remaining();
    let call = Evaluate {
        user_gesture: true,
        timeout: Some(timeout.as_millis() as u64),
        ..Evaluate::by_value(expression)
    };
    let r = page.session.evaluate(&call, timeout).await.map_err(|e| cdp_failure(phase, e))?;
    if let Some(details) = r.exception_details {
        return Err(fail(ErrorCode::EvaluateError, phase, details.message()));
    }
    Ok(r.result.value.unwrap_or(Value::Null))
}

/// A page script's answer as the type its caller expects (e.g. `[f64; 2]` for `[scrollX, scrollY]`).
///
/// # Errors
/// `cdp_error` (phase `phase`) naming what was expected when the answer has another shape (a page
/// that replaced `scrollX` with a string, say).
pub(crate) fn decode<T: serde::de::DeserializeOwned>(
    value: Value,
    phase: Phase,
    what: &str,
) -> Result<T, WorkerError> {
    serde_json::from_value(value.clone())
        .map_err(|e| fail(ErrorCode::CdpError, phase, format!("the page answered {value} for {what}: {e}")))
}

/// [`eval_by_value`], its answer decoded ([`decode`]).
///
/// # Errors
/// As [`eval_by_value`] and [`decode`].
pub(crate) async fn eval_as<T: serde::de::DeserializeOwned>(
    page: &Page,
    expression: &str,
    phase: Phase,
    step: &str,
    p: &Progress,
) -> Result<T, WorkerError> {
    decode(eval_by_value(page, expression, phase, step, p).await?, phase, expression)
}
