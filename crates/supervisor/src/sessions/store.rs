//! The session store: an append-only JSONL file, `<runtime_dir>/sessions.jsonl`, so that open sessions
//! survive a restart of the supervisor itself.
//!
//! One event a line, each written whole (one `write` of the complete line, `O_APPEND`) and fsynced
//! before the request that caused it is answered:
//!
//! ```text
//! {"event":"session_started","session_id":"s1","at_ms":1763760000000}
//! {"event":"target_bound","session_id":"s1","target_id":"6F1C..."}
//! {"event":"url_changed","session_id":"s1","url":"https://example.com/"}
//! {"event":"display_set","session_id":"s1","display":{"width":390,"height":700,"scale":2.0}}
//! {"event":"session_closed","session_id":"s1"}
//! ```
//!
//! Reading folds the events into the open sessions ([`StoredSession`]); a line that does not parse (a
//! torn last line after a crash mid-write) is skipped. The file is compacted at start, and while the
//! supervisor runs whenever it has grown past [`COMPACT_AFTER`] lines and twice what its last
//! compaction left: rewritten to a temp file with only the open sessions' events, fsynced, and renamed
//! over the old one (a supervisor up for weeks, with sessions opening and closing and pages
//! navigating, appended without end: 1 000 lines for 200 sessions of a goto and a click each).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sb_protocol::ipc::Display;
use serde::{Deserialize, Serialize};

/// The file's name in the runtime dir.
pub const FILE_NAME: &str = "sessions.jsonl";

/// One line of the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum StoreEvent {
    /// `session.start` succeeded; `at_ms` is Unix time in ms.
    SessionStarted {
        /// The session.
        session_id: String,
        /// When, Unix time in ms.
        at_ms: u64,
        /// The session's token (`session.start`); absent in a store written before tokens.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
    },
    /// The session's page is the CDP target `target_id` (after start, page reset, rehydration).
    TargetBound {
        /// The session.
        session_id: String,
        /// CDP `targetId` of its page.
        target_id: String,
    },
    /// The session's main frame is at `url`.
    UrlChanged {
        /// The session.
        session_id: String,
        /// The URL, credentials redacted.
        url: String,
    },
    /// The session's own display (`session.start {viewport}`, `page.set_viewport`): its pages keep it
    /// after a restart.
    DisplaySet {
        /// The session.
        session_id: String,
        /// Its viewport and scale.
        display: Display,
    },
    /// What the session's pages emulate (`page.emulate`), the whole of it: they keep it after a
    /// restart.
    EmulationSet {
        /// The session.
        session_id: String,
        /// What is emulated (boxed: the other events are small).
        emulation: Box<sb_protocol::api::Emulation>,
    },
    /// `session.close`.
    SessionClosed {
        /// The session.
        session_id: String,
    },
}

/// An open session as the store remembers it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StoredSession {
    /// The session's id.
    pub session_id: String,
    /// Its token (`session.start`), when the store has one.
    pub token: Option<String>,
    /// The last target bound (gone after a supervisor restart: the browser died with it).
    pub target_id: Option<String>,
    /// The last URL, when any.
    pub url: Option<String>,
    /// The session's own display; `None`: the configured window's.
    pub display: Option<Display>,
    /// What its pages emulate.
    pub emulation: sb_protocol::api::Emulation,
}

/// Folds `text` (the file's content) into the open sessions, in start order. Lines that do not parse
/// are skipped.
pub fn fold(text: &str) -> Vec<StoredSession> {
    let mut open: BTreeMap<String, (u64, StoredSession)> = BTreeMap::new();
    let mut order = 0;
    for event in text.lines().filter_map(|l| serde_json::from_str::<StoreEvent>(l).ok()) {
        match event {
            StoreEvent::SessionStarted { session_id, token, .. } => {
                order += 1;
                let s = StoredSession { session_id: session_id.clone(), token, ..Default::default() };
                open.insert(session_id, (order, s));
            }
            StoreEvent::TargetBound { session_id, target_id } => {
                if let Some((_, s)) = open.get_mut(&session_id) {
                    s.target_id = Some(target_id);
                }
            }
            StoreEvent::UrlChanged { session_id, url } => {
                if let Some((_, s)) = open.get_mut(&session_id) {
                    s.url = Some(url);
                }
            }
            StoreEvent::DisplaySet { session_id, display } => {
                if let Some((_, s)) = open.get_mut(&session_id) {
                    s.display = Some(display);
                }
            }
            StoreEvent::EmulationSet { session_id, emulation } => {
                if let Some((_, s)) = open.get_mut(&session_id) {
                    s.emulation = *emulation;
                }
            }
            StoreEvent::SessionClosed { session_id } => {
                open.remove(&session_id);
            }
        }
    }
    let mut sessions: Vec<(u64, StoredSession)> = open.into_values().collect();
    sessions.sort_by_key(|(n, _)| *n);
    sessions.into_iter().map(|(_, s)| s).collect()
}

/// The events that describe `sessions` (what compaction writes).
fn events_of(sessions: &[StoredSession]) -> Vec<StoreEvent> {
    let mut events = Vec::new();
    for s in sessions {
        events.push(StoreEvent::SessionStarted {
            session_id: s.session_id.clone(),
            at_ms: now_ms(),
            token: s.token.clone(),
        });
        if let Some(t) = &s.target_id {
            events.push(StoreEvent::TargetBound { session_id: s.session_id.clone(), target_id: t.clone() });
        }
        if let Some(u) = &s.url {
            events.push(StoreEvent::UrlChanged { session_id: s.session_id.clone(), url: u.clone() });
        }
        if let Some(display) = s.display {
            events.push(StoreEvent::DisplaySet { session_id: s.session_id.clone(), display });
        }
        if !s.emulation.is_empty() {
            let emulation = Box::new(s.emulation.clone());
            events.push(StoreEvent::EmulationSet { session_id: s.session_id.clone(), emulation });
        }
    }
    events
}

/// Unix time in ms.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn line_of(event: &StoreEvent) -> Vec<u8> {
    let mut line = serde_json::to_vec(event).expect("store events serialize");
    line.push(b'\n');
    line
}

/// Lines the store may reach while the supervisor runs before it is compacted (and at least twice
/// what the last compaction left, so that many open sessions do not make it compact at every append):
/// about 1 MB of events.
pub const COMPACT_AFTER: usize = 10_000;

/// The open store: appends events to the file.
#[derive(Clone)]
pub struct SessionStore {
    path: PathBuf,
    file: Arc<Mutex<Appending>>,
    compact_after: usize,
}

/// The file appended to, and its length in lines.
struct Appending {
    file: File,
    lines: usize,
    /// Compact when `lines` passes this.
    limit: usize,
}

impl Appending {
    /// `file`, compacted down to `lines`, compacted again past `compact_after` lines and twice `lines`.
    fn new(file: File, lines: usize, compact_after: usize) -> Appending {
        Appending { file, lines, limit: compact_after.max(2 * lines) }
    }
}

/// Rewrites the store at `path` with only the open sessions' events (a temp file, fsynced, renamed
/// over it, the directory fsynced) and opens it for appending: the open sessions and the lines left.
fn compact(path: &Path) -> std::io::Result<(File, Vec<StoredSession>, usize)> {
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let sessions = fold(&text);
    let events = events_of(&sessions);
    let tmp = path.with_file_name(format!("{FILE_NAME}.tmp"));
    // Created new, 0600, never through a file or symlink planted at its name.
    let mut written = crate::files::create_private(&tmp)?;
    for event in &events {
        written.write_all(&line_of(event))?;
    }
    written.sync_all()?;
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent().and_then(|d| File::open(d).ok()) {
        let _ = dir.sync_all();
    }
    // Appended to with `O_APPEND`; where it cannot be opened again after the rename, through the
    // handle that wrote it (the same file, at its end): never the old file, which is gone.
    let file = crate::files::append_private(path).unwrap_or(written);
    Ok((file, sessions, events.len()))
}

impl SessionStore {
    /// Opens (or creates) the store in `runtime_dir`, compacts it, and returns it with the sessions
    /// that were open. It is compacted again as it grows ([`COMPACT_AFTER`]).
    ///
    /// # Errors
    /// When the file cannot be read, written or renamed (a read-only runtime dir).
    pub fn open(runtime_dir: &Path) -> std::io::Result<(SessionStore, Vec<StoredSession>)> {
        Self::open_compacting_after(runtime_dir, COMPACT_AFTER)
    }

    /// [`SessionStore::open`], compacting past `compact_after` lines.
    fn open_compacting_after(
        runtime_dir: &Path,
        compact_after: usize,
    ) -> std::io::Result<(SessionStore, Vec<StoredSession>)> {
        crate::files::private_dir(runtime_dir)?;
        let path = runtime_dir.join(FILE_NAME);
        let (file, sessions, lines) = compact(&path)?;
        let appending = Appending::new(file, lines, compact_after);
        Ok((SessionStore { path, file: Arc::new(Mutex::new(appending)), compact_after }, sessions))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `event` (one write of the whole line) and fsyncs, on a blocking thread; past the
    /// store's limit it is compacted there too (appends wait meanwhile). A failure is logged, never
    /// returned: the store is best effort and never fails a request.
    pub async fn append(&self, event: StoreEvent) {
        let file = self.file.clone();
        let line = line_of(&event);
        let (path, compact_after) = (self.path.clone(), self.compact_after);
        let written = tokio::task::spawn_blocking(move || {
            let mut f = file.lock().unwrap();
            f.file.write_all(&line)?;
            f.file.sync_data()?;
            f.lines += 1;
            if f.lines > f.limit {
                match compact(&path) {
                    Ok((compacted, _, lines)) => *f = Appending::new(compacted, lines, compact_after),
                    Err(e) => {
                        // Kept as it was (a failed compaction changes nothing before its rename);
                        // tried again once the file has doubled, not at every append.
                        f.limit = 2 * f.lines;
                        return Err(e);
                    }
                }
            }
            Ok::<(), std::io::Error>(())
        })
        .await;
        match written {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::warn!(error.message = %e, path = %self.path.display(), "session_store_write_failed")
            }
            Err(e) => tracing::warn!(error.message = %e, "session_store_write_failed"),
        }
    }
}

/// Reads the store at `path` without changing it (what a new supervisor would restore).
///
/// # Errors
/// When the file cannot be read.
pub fn read(path: &Path) -> std::io::Result<Vec<StoredSession>> {
    let mut text = String::new();
    for line in BufReader::new(File::open(path)?).lines() {
        text.push_str(&line?);
        text.push('\n');
    }
    Ok(fold(&text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;

    fn s(id: &str, target: Option<&str>, url: Option<&str>) -> StoredSession {
        StoredSession {
            session_id: id.into(),
            target_id: target.map(Into::into),
            url: url.map(Into::into),
            display: None,
            token: None,
            emulation: Default::default(),
        }
    }

    #[test]
    fn events_fold_into_open_sessions_and_a_torn_line_is_skipped() {
        let text = concat!(
            "{\"event\":\"session_started\",\"session_id\":\"a\",\"at_ms\":1}\n",
            "{\"event\":\"target_bound\",\"session_id\":\"a\",\"target_id\":\"T1\"}\n",
            "{\"event\":\"session_started\",\"session_id\":\"b\",\"at_ms\":2}\n",
            "{\"event\":\"url_changed\",\"session_id\":\"a\",\"url\":\"http://x/1\"}\n",
            "{\"event\":\"session_closed\",\"session_id\":\"b\"}\n",
            "{\"event\":\"url_changed\",\"session_id\":\"a\",\"url\":\"http://x/2\"}\n",
            "{\"event\":\"url_changed\",\"session_id\":\"a\",\"ur",
        );
        assert_eq!(fold(text), vec![s("a", Some("T1"), Some("http://x/2"))]);
    }

    #[test]
    fn a_sessions_token_is_kept_and_a_store_without_tokens_still_reads() {
        let text = "{\"event\":\"session_started\",\"session_id\":\"a\",\"at_ms\":1,\"token\":\"t1\"}\n";
        assert_eq!(fold(text)[0].token.as_deref(), Some("t1"));
        let folded = fold(text);
        let compacted: String =
            events_of(&folded).iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect();
        assert_eq!(fold(&compacted)[0].token.as_deref(), Some("t1"), "{compacted}");
    }

    #[tokio::test]
    async fn the_store_survives_reopening_and_is_compacted() {
        let dir = tempfile::tempdir().unwrap();
        let (store, open) = SessionStore::open(dir.path()).unwrap();
        assert!(open.is_empty());
        for id in ["a", "b", "c"] {
            store.append(StoreEvent::SessionStarted { session_id: id.into(), at_ms: 1, token: None }).await;
            store
                .append(StoreEvent::TargetBound { session_id: id.into(), target_id: format!("T-{id}") })
                .await;
        }
        for n in 0..20 {
            store
                .append(StoreEvent::UrlChanged { session_id: "a".into(), url: format!("http://x/{n}") })
                .await;
        }
        let phone = Display { width: 390, height: 700, scale: 2.0 };
        store.append(StoreEvent::DisplaySet { session_id: "c".into(), display: phone }).await;
        store.append(StoreEvent::SessionClosed { session_id: "b".into() }).await;
        drop(store);
        // A crash mid-write leaves half a line.
        let path = dir.path().join(FILE_NAME);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"event\":\"session_clo").unwrap();
        drop(f);
        let before = std::fs::read_to_string(&path).unwrap().lines().count();

        let (_store, open) = SessionStore::open(dir.path()).unwrap();
        let c = StoredSession { display: Some(phone), ..s("c", Some("T-c"), None) };
        assert_eq!(open, vec![s("a", Some("T-a"), Some("http://x/19")), c]);
        let after = std::fs::read_to_string(&path).unwrap();
        assert_eq!(after.lines().count(), 6, "compacted from {before} lines:\n{after}");
        assert_eq!(read(&path).unwrap(), open);
    }

    /// A supervisor that stays up keeps its store small: past its limit the store is compacted while
    /// it runs, not only at the next start (before: every event ever appended stayed, 3 000 lines here).
    #[tokio::test]
    async fn a_store_that_keeps_growing_is_compacted_while_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = SessionStore::open_compacting_after(dir.path(), 100).unwrap();
        store.append(StoreEvent::SessionStarted { session_id: "kept".into(), at_ms: 1, token: None }).await;
        let path = dir.path().join(FILE_NAME);
        let mut most = 0;
        for n in 0..1_000 {
            let id = format!("s{n}");
            store.append(StoreEvent::SessionStarted { session_id: id.clone(), at_ms: 1, token: None }).await;
            let url = format!("http://x/{n}");
            store.append(StoreEvent::UrlChanged { session_id: "kept".into(), url }).await;
            store.append(StoreEvent::SessionClosed { session_id: id }).await;
            most = most.max(std::fs::read_to_string(&path).unwrap().lines().count());
        }
        assert!(most <= 101, "the store reached {most} lines");
        assert_eq!(read(&path).unwrap(), vec![s("kept", None, Some("http://x/999"))]);
        // Appends after a compaction go to the compacted file.
        store.append(StoreEvent::SessionClosed { session_id: "kept".into() }).await;
        assert_eq!(read(&path).unwrap(), vec![]);
    }
}
