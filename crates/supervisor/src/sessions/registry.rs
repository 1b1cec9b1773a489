//! The registry of open sessions ([`Sessions`]): ids (per token), the store kept in step, idle
//! expiry, what a session is asked for by id.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sb_protocol::api::SessionInfo;
use sb_protocol::{ErrorBody, ErrorCode, Phase};

use super::SessionEntry;

use crate::sessions::store::{SessionStore, StoreEvent, StoredSession};
use crate::stats::Stats;

/// Longest a session id may be, in bytes.
pub const MAX_SESSION_ID: usize = 128;

/// How many expired sessions the registry remembers, to tell a caller of one why it is gone.
const EXPIRED_KEPT: usize = 256;

/// A session closed for being idle ([`Sessions::take_idle`]): its id, its token, how long it had been
/// idle.
struct Expired {
    id: String,
    token: String,
    idle: Duration,
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
    pub(super) stats: Arc<Stats>,
    /// Where the sessions' downloads go, and what each is yet to hear of them.
    pub downloads: crate::sessions::downloads::Downloads,
    /// The newest [`EXPIRED_KEPT`] sessions closed for being idle.
    expired: Mutex<VecDeque<Expired>>,
    /// The proxy each session's browser context is made with ([`Sessions::with_context_proxy`]).
    pub(super) context_proxy: Option<sb_cdp::calls::ContextProxy>,
}

impl Sessions {
    /// The registry, with `restored` sessions from an earlier supervisor: they get new pages when the
    /// browser comes up, and `session_reset` (`supervisor_restarted`) on their next result.
    pub fn new(
        max: usize,
        store: Option<SessionStore>,
        restored: Vec<StoredSession>,
        stats: Arc<Stats>,
        downloads: crate::sessions::downloads::Downloads,
    ) -> Sessions {
        let open = restored
            .into_iter()
            // A store written before ids had to be plain names may hold one that is not (`..`): it is
            // not reopened (its paths could leave their roots).
            .filter(|s| match validate_session_id(bare(&s.session_id)) {
                Ok(()) => true,
                Err(e) => {
                    tracing::warn!(browser.session_id = %s.session_id, error.message = %e.message, "session_not_restored");
                    false
                }
            })
            .map(|s| {
                let token = s.token.unwrap_or_else(new_token);
                let entry = SessionEntry::new(s.session_id.clone(), s.url, token);
                *entry.display.lock().unwrap() = s.display;
                *entry.emulation.lock().unwrap() = s.emulation;
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
            expired: Mutex::default(),
            context_proxy: None,
        }
    }

    /// These sessions with every browser context made with `proxy` (`Target.createBrowserContext
    /// {proxyServer, proxyBypassList}`): a remote browser's, which refuses WebSockets
    /// ([`crate::lifecycle::browser::RemoteEndpoint::context_proxy`]).
    pub fn with_context_proxy(mut self, proxy: Option<sb_cdp::calls::ContextProxy>) -> Sessions {
        self.context_proxy = proxy;
        self
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
        let open = self.inner.lock().unwrap().open.get(id).cloned();
        open.ok_or_else(|| self.gone(id, None))
    }

    /// Whether `session` is (still) the open session of its id.
    pub fn is_open(&self, session: &Arc<SessionEntry>) -> bool {
        self.inner.lock().unwrap().open.get(&session.id).is_some_and(|s| Arc::ptr_eq(s, session))
    }

    /// Takes out of the registry every session idle ([`SessionEntry::idle_for`]) for `after` or
    /// longer, with how long each was; the caller closes them. A later call on one answers
    /// `unknown_session` saying it expired. A request that marks its session in use
    /// ([`SessionEntry::in_use`]) and then finds it still open ([`Sessions::is_open`]) is never cut
    /// off: the two are decided under the registry's lock.
    pub fn take_idle(&self, after: Duration) -> Vec<(Arc<SessionEntry>, Duration)> {
        let mut inner = self.inner.lock().unwrap();
        let idle: Vec<(String, Duration)> = inner
            .open
            .iter()
            .filter_map(|(id, s)| s.idle_for().filter(|d| *d >= after).map(|d| (id.clone(), d)))
            .collect();
        let taken: Vec<(Arc<SessionEntry>, Duration)> =
            idle.into_iter().filter_map(|(id, d)| Some((inner.open.remove(&id)?, d))).collect();
        drop(inner);
        let mut expired = self.expired.lock().unwrap();
        for (s, idle) in &taken {
            expired.push_back(Expired { id: s.id.clone(), token: s.token.clone(), idle: *idle });
        }
        let extra = expired.len().saturating_sub(EXPIRED_KEPT);
        expired.drain(..extra);
        taken
    }

    /// The error for a session id that is not open: `unknown_session`, saying when it expired for
    /// being idle (to its own token's holder, when `token` is given).
    fn gone(&self, id: &str, token: Option<&str>) -> ErrorBody {
        let expired = self.expired.lock().unwrap();
        let idle = expired
            .iter()
            .rev()
            .find(|e| e.id == id && token.is_none_or(|t| same(t, &e.token)))
            .map(|e| e.idle);
        match idle {
            Some(idle) => ErrorBody::new(
                ErrorCode::UnknownSession,
                Phase::Session,
                format!(
                    "session '{id}' was closed after {} s without a request \
                     (limits.session_idle_timeout_ms); start a new one with session.start",
                    idle.as_secs()
                ),
            ),
            None => unknown_session(id),
        }
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

    /// CDP sessions the open sessions' workers hold on tabs, summed (`runtime.stats` `tab_sessions`).
    pub fn tab_sessions(&self) -> u64 {
        let open = self.inner.lock().unwrap();
        open.open.values().map(|e| u64::from(e.tab_sessions.load(Ordering::Relaxed))).sum()
    }

    /// `session.list`: every open session (only those of `token`, when given, by the ids their agent
    /// gave them: [`bare`]), by id.
    pub fn list(&self, token: Option<&str>) -> Vec<SessionInfo> {
        let mut sessions: Vec<SessionInfo> = self
            .all()
            .iter()
            .filter(|s| token.is_none_or(|t| same(t, &s.token)))
            .map(|s| SessionInfo {
                session_id: shown(&s.id, token.is_some()).to_string(),
                target_id: s.target(),
                url: s.last_url(),
            })
            .collect();
        sessions.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        sessions
    }

    /// Reserves a slot for a new session (`requested` id, or a generated one), atomically against the
    /// limit and the ids in use. With `owner` (`[limits] session_tokens`: the owner of the caller's
    /// token, [`crate::files::owner`]) the id is that owner's ([`namespaced`]): another owner's session of
    /// the same id is another session, and its existence is never told.
    ///
    /// # Errors
    /// `bad_request` for an invalid id; `too_many_sessions` at the limit (starts in progress count);
    /// `session_exists` for an id open or being started (the owner's own).
    pub fn reserve(
        &self,
        requested: Option<String>,
        owner: Option<&str>,
    ) -> Result<Reservation<'_>, ErrorBody> {
        let id = match requested {
            Some(id) => {
                validate_session_id(&id)?;
                id
            }
            None => format!("s{}-{}", self.generated.fetch_add(1, Ordering::Relaxed) + 1, short_random()),
        };
        let id = match owner {
            Some(owner) => format!("{id}.{owner}"),
            None => id,
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
                format!(
                    "session '{}' is already open; close it or use another id",
                    shown(&id, owner.is_some())
                ),
            ));
        }
        inner.pending.insert(id.clone());
        Ok(Reservation { sessions: self, id })
    }

    /// A new entry for a reservation (not yet open), with `token` (a new random one when `None`; with
    /// an owner given to [`Sessions::reserve`], the token that owner is of).
    pub fn entry(&self, reservation: &Reservation<'_>, token: Option<String>) -> Arc<SessionEntry> {
        let token = token.filter(|t| !t.is_empty()).unwrap_or_else(new_token);
        Arc::new(SessionEntry::new(reservation.id.clone(), None, token))
    }

    /// An open session whose token is `token` (`[limits] session_tokens`): a missing or wrong token
    /// answers exactly as an unknown id does, so a caller learns nothing of other callers' sessions.
    ///
    /// # Errors
    /// `unknown_session`.
    pub fn get_as(&self, id: &str, token: Option<&str>) -> Result<Arc<SessionEntry>, ErrorBody> {
        let open = self.inner.lock().unwrap().open.get(id).cloned();
        match (open, token) {
            (Some(s), Some(t)) if same(t, &s.token) => Ok(s),
            (Some(_), _) | (None, None) => Err(unknown_session(id)),
            (None, Some(t)) => Err(self.gone(id, Some(t))),
        }
    }

    /// Opens the reserved session with its entry and records it (`session_started`, `target_bound`).
    pub async fn commit(&self, reservation: Reservation<'_>, entry: Arc<SessionEntry>) {
        {
            let mut inner = self.inner.lock().unwrap();
            inner.pending.remove(&reservation.id);
            entry.used_now();
            inner.open.insert(reservation.id.clone(), entry.clone());
        }
        self.expired.lock().unwrap().retain(|e| e.id != reservation.id);
        drop(reservation);
        self.record(StoreEvent::SessionStarted {
            session_id: entry.id.clone(),
            at_ms: crate::sessions::store::now_ms(),
            token: Some(entry.token.clone()),
        })
        .await;
        self.record(StoreEvent::TargetBound { session_id: entry.id.clone(), target_id: entry.target() })
            .await;
        let display = *entry.display.lock().unwrap();
        if let Some(display) = display {
            self.record(StoreEvent::DisplaySet { session_id: entry.id.clone(), display }).await;
        }
        let emulation = entry.emulation.lock().unwrap().clone();
        if !emulation.is_empty() {
            self.record(StoreEvent::EmulationSet {
                session_id: entry.id.clone(),
                emulation: Box::new(emulation),
            })
            .await;
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

/// Bytes an owner adds to a session id with `[limits] session_tokens`: `.` and 32 hex digits.
const OWNER_SUFFIX: usize = 33;

/// The id of `owner`'s session `id` in the registry (`<id>.<owner>`, 32 hex digits of the owner): with
/// `[limits] session_tokens` each token's sessions are ids of their own, so two agents may both name
/// a session `main`, and neither learns that the other has one.
pub fn namespaced(id: &str, token: &str) -> String {
    format!("{id}.{}", crate::files::owner(Some(token)))
}

/// A registry id as its agent named it: without its owner ([`namespaced`]) when it has one.
pub fn bare(id: &str) -> &str {
    let owned = id.len() > OWNER_SUFFIX
        && id.as_bytes()[id.len() - OWNER_SUFFIX] == b'.'
        && id[id.len() - OWNER_SUFFIX + 1..].bytes().all(|b| b.is_ascii_hexdigit());
    if owned {
        &id[..id.len() - OWNER_SUFFIX]
    } else {
        id
    }
}

/// `id` as its agent knows it: [`bare`] when ids are owned (`tokens`), else as it is.
pub fn shown(id: &str, tokens: bool) -> &str {
    if tokens {
        bare(id)
    } else {
        id
    }
}

/// A new session token: 128 random bits as 32 hex digits.
pub fn new_token() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// `unknown_session` for `id`: the one answer for an id that is not open and for a token that is not
/// the session's.
fn unknown_session(id: &str) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::UnknownSession,
        Phase::Session,
        format!("no open session '{id}'; start one with session.start"),
    )
}

/// Whether two tokens are equal, in time that does not depend on where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

fn short_random() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::MAX_REFS;
    use sb_protocol::ipc::RefRecord;

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
        let downloads = crate::sessions::downloads::Downloads::new(
            Default::default(),
            std::path::Path::new("/nonexistent"),
        );
        Sessions::new(max, None, Vec::new(), Arc::new(Stats::default()), downloads)
    }

    #[test]
    fn reservations_count_against_the_limit_before_the_session_opens() {
        let s = registry(2);
        let a = s.reserve(Some("a".into()), None).unwrap();
        let _b = s.reserve(None, None).unwrap();
        assert_eq!(s.reserve(Some("c".into()), None).err().unwrap().code, ErrorCode::TooManySessions);
        assert_eq!(s.reserve(Some("a".into()), None).err().unwrap().code, ErrorCode::TooManySessions);
        drop(a);
        assert_eq!(s.reserve(Some("a".into()), None).unwrap().id(), "a");
    }

    #[test]
    fn an_id_being_started_is_taken() {
        let s = registry(8);
        let _a = s.reserve(Some("a".into()), None).unwrap();
        assert_eq!(s.reserve(Some("a".into()), None).err().unwrap().code, ErrorCode::SessionExists);
        assert_eq!(s.reserve(Some("bad id".into()), None).err().unwrap().code, ErrorCode::BadRequest);
    }

    #[test]
    fn the_ref_table_drops_its_oldest_documents_first() {
        let e = SessionEntry::new("s".into(), None, "t".into());
        let half = MAX_REFS / 2 + 1;
        e.keep_refs((1..=half).map(|n| r(&format!("e{n}"), "old")).collect());
        e.keep_refs((half + 1..=2 * half).map(|n| r(&format!("e{n}"), "new")).collect());
        assert_eq!(e.refs_kept(), half);
        assert_eq!(e.reference("e1").unwrap_err().code, ErrorCode::StaleRef);
        assert_eq!(e.reference(&format!("e{}", 2 * half)).unwrap().loader_id, "new");
        assert_eq!(e.reference(&format!("e{}", 2 * half + 1)).unwrap_err().code, ErrorCode::UnknownRef);
        // One document larger than the bound stays whole: its refs are the page the agent sees.
        let e = SessionEntry::new("s".into(), None, "t".into());
        e.keep_refs((1..=MAX_REFS + 5).map(|n| r(&format!("e{n}"), "only")).collect());
        assert_eq!(e.refs_kept(), MAX_REFS + 5);
    }

    /// Only the documents of the last four snapshots keep their refs: a session looping over pages
    /// (goto -> snapshot -> click) no longer keeps every page's refs up to the bound.
    #[test]
    fn refs_of_documents_no_recent_snapshot_showed_are_dropped() {
        let e = SessionEntry::new("s".into(), None, "t".into());
        for page in 0..6u64 {
            let refs = (1..=10).map(|n| r(&format!("e{}", page * 10 + n), &format!("doc{page}"))).collect();
            e.keep_refs(refs);
        }
        assert_eq!(e.refs_kept(), 40, "the last four documents' refs");
        assert_eq!(e.reference("e1").unwrap_err().code, ErrorCode::StaleRef);
        assert_eq!(e.reference("e20").unwrap_err().code, ErrorCode::StaleRef);
        assert_eq!(e.reference("e21").unwrap().loader_id, "doc2");
        assert_eq!(e.reference("e60").unwrap().loader_id, "doc5");
        // Actions answered without refs (clicks, gotos) are no snapshots: they drop nothing.
        for _ in 0..10 {
            e.keep_refs(Vec::new());
        }
        assert_eq!(e.refs_kept(), 40);
    }

    /// A page whose script keeps replacing its elements (a single-page app) stays one document while
    /// every snapshot issues new refs: the table drops that document's oldest refs, never those the
    /// last snapshot showed (before, one document was never cut: 60 000 refs kept here, and the
    /// supervisor's memory grew with every snapshot of such a page).
    #[test]
    fn one_document_that_keeps_making_elements_keeps_at_most_the_bound() {
        let e = SessionEntry::new("s".into(), None, "t".into());
        let batch = 1_000;
        // Each snapshot shows one element that stays (e1, shown every time) and a thousand new ones.
        let mut next = 2;
        for _ in 0..60 {
            let mut refs = vec![r("e1", "app")];
            refs.extend((next..next + batch).map(|n| r(&format!("e{n}"), "app")));
            next += batch;
            e.keep_refs(refs);
        }
        assert_eq!(e.refs_kept(), MAX_REFS);
        assert_eq!(e.reference("e1").unwrap().loader_id, "app", "shown by the last snapshot: kept");
        assert_eq!(e.reference("e2").unwrap_err().code, ErrorCode::StaleRef, "the oldest went first");
        let last = next - 1;
        assert!(e.reference(&format!("e{last}")).is_ok());
        assert!(e.reference(&format!("e{}", last - MAX_REFS as u64 + 2)).is_ok());
        assert_eq!(
            e.reference(&format!("e{}", last - MAX_REFS as u64 + 1)).unwrap_err().code,
            ErrorCode::StaleRef
        );
    }
}
