//! A session's login kept outside the browser, so that a browser death loses none: its cookies
//! (HttpOnly ones included) and the local storage of the origins its pages visited, in Playwright's
//! `storageState` shape, at `<runtime_dir>/kept/<session>.json` (0600, written new and renamed over
//! the last: a reader never sees half a file), removed with `session.close`.
//!
//! - **Kept fresh after each action** ([`Kept::refresh`]): once an action answered, in the background
//!   (the answer is not held up), the session's cookies are read from its browser context
//!   (`Storage.getCookies`) and the active tab's origin's local storage from the supervisor's standby
//!   session on that tab (`DOMStorage.getDOMStorageItems`: the browser's storage, not the page's
//!   script, so a stuck page does not hold it up). The file is written only when what it would hold
//!   changed; refreshes of one session never overlap (one asked for meanwhile runs once after).
//! - **Put back** ([`Kept::restore`]): a session whose browser context is new (a browser restart, a
//!   supervisor restart: `SessionEntry::context_renewed`) has its kept cookies set in the new context
//!   and each kept origin's local storage written (`storage_state::write_origins`) before its next
//!   action, and so before its page is reloaded at its last URL; that result says `restored: {cookies,
//!   origins}` beside its `session_reset`.
//! - **The tab's `sessionStorage`** of its active origin is kept beside that origin's local storage,
//!   and put back into the reopened tab by a script that runs before its page's ([`Kept::restore`]).
//! - **Not kept**: IndexedDB, Cache Storage, service workers, the `sessionStorage` of the session's
//!   other tabs and the page's own memory (docs/architecture.md, "Recovery").
//!
//! Arrows: kept -> files, link, sessions, storage_state.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sb_protocol::api::{Restored, StorageItem};
use sb_protocol::Budget;

use crate::lifecycle::link::Link;
use crate::sessions::storage_state::{self, OriginState, StorageState};
use crate::sessions::SessionEntry;

/// Longest one refresh may take (cookies and one origin's local storage).
const REFRESH: Duration = Duration::from_secs(2);

/// An origin's `localStorage` items, and the `sessionStorage` items the session's tab held for it.
type Storages = (Vec<StorageItem>, Vec<StorageItem>);

/// What one session's refreshes share.
#[derive(Default)]
struct Track {
    /// A refresh runs.
    busy: bool,
    /// Another was asked for while one ran.
    again: bool,
    /// Each origin's local storage and the active tab's session storage as last read, by origin.
    origins: BTreeMap<String, Storages>,
    /// A hash of the file's bytes as last written.
    written: Option<u64>,
}

/// The kept states of a runtime's sessions (see the module doc).
pub struct Kept {
    dir: PathBuf,
    tracks: Mutex<HashMap<String, Track>>,
}

impl Kept {
    /// Kept states in `<runtime_dir>/kept` (made 0700, or checked as the runtime dir is).
    ///
    /// # Errors
    /// When the directory cannot be made or is refused ([`crate::files::private_dir`]).
    pub fn open(runtime_dir: &Path) -> std::io::Result<Kept> {
        let dir = runtime_dir.join("kept");
        crate::files::private_dir(&dir)?;
        Ok(Kept { dir, tracks: Mutex::default() })
    }

    /// The file name of `session`'s kept state.
    fn name(session: &str) -> String {
        format!("{session}.json")
    }

    /// `session`'s kept state, when there is one that reads.
    pub fn read(&self, session: &str) -> Option<StorageState> {
        let (mut file, _) = crate::files::open_regular_under(&self.dir, &Self::name(session)).ok()??;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Writes `bytes` as `session`'s kept state: a new file beside it (0600), renamed over it.
    fn write(&self, session: &str, bytes: &[u8]) -> std::io::Result<()> {
        let path = crate::files::under(&self.dir, &Self::name(session))?;
        let temporary = crate::files::under(&self.dir, &format!(".{session}.json.new"))?;
        let mut file = crate::files::create_private(&temporary)?;
        file.write_all(bytes)?;
        std::fs::rename(&temporary, &path)
    }

    /// Forgets `session`'s kept state: its file and what its refreshes shared (`session.close`, after
    /// `SessionEntry::closing` is set; a new session under the id). Under the lock a refresh writes
    /// in, so a refresh of a closing session never writes the file again after it.
    pub fn remove(&self, session: &str) {
        let mut tracks = self.tracks.lock().unwrap();
        tracks.remove(session);
        if let Ok(path) = crate::files::under(&self.dir, &Self::name(session)) {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Brings `session`'s kept state up to date with its browser context on `link` (see the module
    /// doc); a failed read or write is logged and changes nothing.
    pub async fn refresh(self: &Arc<Self>, session: &Arc<SessionEntry>, link: &Link) {
        {
            let mut tracks = self.tracks.lock().unwrap();
            if session.closing.load(Ordering::SeqCst) {
                return;
            }
            let track = tracks.entry(session.id.clone()).or_default();
            if track.busy {
                track.again = true;
                return;
            }
            track.busy = true;
        }
        loop {
            self.refresh_once(session, link).await;
            let mut tracks = self.tracks.lock().unwrap();
            let Some(track) = tracks.get_mut(&session.id) else { return };
            if !std::mem::take(&mut track.again) {
                track.busy = false;
                return;
            }
        }
    }

    async fn refresh_once(&self, session: &SessionEntry, link: &Link) {
        let budget = Budget::new(REFRESH);
        let Some(context) = session.context_in(link.browser) else { return };
        let cookies = match storage_state::cookies(link, &context, budget).await {
            Ok(c) => c,
            Err(e) => {
                tracing::debug!(browser.session_id = %session.id, error.message = %e.message, "kept_state_not_read");
                return;
            }
        };
        // Each storage as read; one that could not be read (the browser going away meanwhile) keeps
        // what was kept of it.
        let read = match session.active_origin() {
            Some(origin) => {
                let local = storage_items(session, link, &origin, true, budget).await;
                let tab = storage_items(session, link, &origin, false, budget).await;
                Some((origin, local, tab))
            }
            None => None,
        };
        let mut tracks = self.tracks.lock().unwrap();
        if session.closing.load(Ordering::SeqCst) {
            return;
        }
        let written = {
            let Some(track) = tracks.get_mut(&session.id) else { return };
            if let Some((origin, local, tab)) = read {
                let mut items = track.origins.remove(&origin).unwrap_or_default();
                if let Some(local) = local {
                    items.0 = local;
                }
                if let Some(tab) = tab {
                    items.1 = tab;
                }
                if !items.0.is_empty() || !items.1.is_empty() {
                    track.origins.insert(origin, items);
                }
            }
            let origins = track
                .origins
                .iter()
                .map(|(origin, (local, tab))| OriginState {
                    origin: origin.clone(),
                    local_storage: local.clone(),
                    session_storage: tab.clone(),
                })
                .collect();
            let bytes = serde_json::to_vec(&StorageState { cookies, origins }).unwrap_or_default();
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut hasher);
            let hash = hasher.finish();
            if track.written == Some(hash) {
                return;
            }
            // Written under the lock `remove` takes: a closing session's file is never written again
            // after its removal (a small file, one write and a rename).
            let written = self.write(&session.id, &bytes);
            track.written = written.is_ok().then_some(hash);
            written
        };
        if let Err(e) = written {
            tracing::warn!(browser.session_id = %session.id, error.message = %e, "kept_state_not_written");
        }
    }

    /// Puts `session`'s kept state into its new browser context on `link` (see the module doc), within
    /// `budget`: what was put back, `None` when nothing was kept. A failure is logged and the action
    /// goes on (its page then loads without the login).
    ///
    /// The tab's `sessionStorage` cannot be written from another page (it is the tab's own): it is
    /// put back by a script that runs in the reopened tab before any of its page's (an isolated
    /// world's `Page.addScriptToEvaluateOnNewDocument`, on a session of the supervisor's own), into a
    /// `sessionStorage` still empty, for the origin the page loads. That session is `held`: the caller
    /// ends it ([`end_held`]) once the action that reloads the page has answered, and the script goes
    /// with it.
    pub async fn restore(&self, session: &SessionEntry, link: &Link, budget: Budget) -> Option<Put> {
        let state = self.read(&session.id)?;
        let context = session.context_in(link.browser)?;
        {
            let mut tracks = self.tracks.lock().unwrap();
            let track = tracks.entry(session.id.clone()).or_default();
            track.origins = state
                .origins
                .iter()
                .map(|o| (o.origin.clone(), (o.local_storage.clone(), o.session_storage.clone())))
                .collect();
        }
        let tab: Vec<(String, Vec<StorageItem>)> = state
            .origins
            .iter()
            .filter(|o| !o.session_storage.is_empty())
            .map(|o| (o.origin.clone(), o.session_storage.clone()))
            .collect();
        let local: Vec<OriginState> =
            state.origins.into_iter().filter(|o| !o.local_storage.is_empty()).collect();
        let mut restored =
            Restored { cookies: state.cookies.len() as u64, origins: local.len() as u64, session_storage: 0 };
        let put = async {
            storage_state::set_cookies(link, &context, state.cookies, budget).await?;
            storage_state::write_origins(session, link, &context, &local, budget).await
        };
        if let Err(e) = put.await {
            tracing::warn!(browser.session_id = %session.id, error.message = %e.message, "session_state_not_restored");
            return None;
        }
        let held =
            if tab.is_empty() { None } else { session_storage_script(session, link, &tab, budget).await };
        if held.is_some() {
            restored.session_storage = tab.len() as u64;
        }
        tracing::info!(
            browser.session_id = %session.id,
            cookies = restored.cookies,
            origins = restored.origins,
            session_storage = restored.session_storage,
            "session_state_restored"
        );
        Some(Put { restored, held })
    }
}

/// What [`Kept::restore`] put back, and the session that holds the reopened tab's `sessionStorage`
/// script until the action that reloads its page has answered.
pub struct Put {
    /// What was put back (the result's `restored`).
    pub restored: Restored,
    /// The supervisor's session on the reopened tab whose script puts the `sessionStorage` back; end it
    /// with [`end_held`].
    pub held: Option<sb_cdp::Session>,
}

/// Ends a session [`Kept::restore`] held (`unstick::detach`, in the background): its
/// `sessionStorage` script no longer runs in the tab's next documents, and the connection forgets it.
pub fn end_held(held: sb_cdp::Session) {
    tokio::spawn(async move { crate::sessions::unstick::detach(&held).await });
}

/// A session on the session's active tab with a script that, in each new document of an origin in
/// `tab` whose `sessionStorage` is empty, writes that origin's items, before the page's own scripts
/// (in an isolated world: the page cannot see or change it). `None` when it could not be set (logged;
/// the page then loads without them).
async fn session_storage_script(
    session: &SessionEntry,
    link: &Link,
    tab: &[(String, Vec<StorageItem>)],
    budget: Budget,
) -> Option<sb_cdp::Session> {
    let by_origin: serde_json::Map<String, serde_json::Value> = tab
        .iter()
        .map(|(origin, items)| {
            let pairs: Vec<[&str; 2]> = items.iter().map(|i| [i.name.as_str(), i.value.as_str()]).collect();
            (origin.clone(), serde_json::json!(pairs))
        })
        .collect();
    let source = format!(
        "(() => {{ const kept = {}; const items = kept[location.origin]; if (!items) return; \
         try {{ if (sessionStorage.length) return; for (const [k, v] of items) sessionStorage.setItem(k, v); }} catch (e) {{}} }})()",
        serde_json::Value::Object(by_origin)
    );
    let target = session.target();
    let held = match link.client.attach(&target, budget.remaining()).await {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(browser.session_id = %session.id, error.message = %e, "session_storage_not_restored");
            return None;
        }
    };
    // The page agent runs a session's scripts only while that session has it enabled.
    let params = serde_json::json!({"source": source, "worldName": "sandbox-browser-restore"});
    let added = async {
        held.call_raw("Page.enable", serde_json::json!({}), budget.remaining()).await?;
        held.call_raw("Page.addScriptToEvaluateOnNewDocument", params, budget.remaining()).await
    };
    match added.await {
        Ok(_) => Some(held),
        Err(e) => {
            tracing::warn!(browser.session_id = %session.id, error.message = %e, "session_storage_not_restored");
            end_held(held);
            None
        }
    }
}

/// The local storage of `origin` (`local`), or the session's active tab's session storage of it,
/// read on the supervisor's standby session there (`DOMStorage.getDOMStorageItems`); `None` when
/// there is no standby session on it yet or the call fails.
async fn storage_items(
    session: &SessionEntry,
    link: &Link,
    origin: &str,
    local: bool,
    budget: Budget,
) -> Option<Vec<StorageItem>> {
    let standby = session.standby_on(link.browser)?;
    let params = serde_json::json!({"storageId": {"securityOrigin": origin, "isLocalStorage": local}});
    let got = standby.call_raw("DOMStorage.getDOMStorageItems", params, budget.remaining()).await.ok()?;
    let entries = got.get("entries")?.as_array()?;
    Some(
        entries
            .iter()
            .filter_map(|e| {
                let pair = e.as_array()?;
                Some(StorageItem {
                    name: pair.first()?.as_str()?.to_string(),
                    value: pair.get(1)?.as_str()?.to_string(),
                })
            })
            .collect(),
    )
}
