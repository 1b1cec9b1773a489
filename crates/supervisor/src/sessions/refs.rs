//! The refs a session's snapshots issued: those of the documents its last [`KEPT_SNAPSHOTS`]
//! snapshots showed, bounded by [`MAX_REFS`] (the oldest documents' refs dropped first), and how a ref
//! the session no longer keeps is told from one it never issued.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use sb_protocol::ipc::RefRecord;
use sb_protocol::{ErrorBody, ErrorCode, Phase};

/// Most refs a session keeps. Past it the refs of its oldest documents are dropped first (never the
/// newest document's), then the refs of the documents left in the order they were issued (never one the
/// last snapshot showed); a dropped ref answers `stale_ref`.
pub const MAX_REFS: usize = 50_000;

/// Snapshots whose documents' refs a session keeps (snapshots that issued refs; an action's answer
/// without refs does not count): a ref of a document none of its last four snapshots showed answers
/// `stale_ref` (that document is almost always gone: the page navigated).
/// Before, every document's refs stayed until [`MAX_REFS`]: a session looping goto -> snapshot ->
/// click on a docs page kept about 40 KB more each loop, and the soak's supervisor grew from 47 MB to
/// 131 MB in 8 minutes with 16 sessions (toward 50,000 refs each).
pub const KEPT_SNAPSHOTS: usize = 4;

/// The refs a session's snapshots issued: by id, those of the documents its last [`KEPT_SNAPSHOTS`]
/// snapshots showed, bounded by [`MAX_REFS`] (oldest documents out first, then the oldest refs no
/// snapshot has shown since).
#[derive(Default)]
pub(super) struct RefTable {
    pub(super) by_id: HashMap<String, RefRecord>,
    /// Documents (`loaderId`) in the order their first ref was kept.
    documents: VecDeque<String>,
    /// The ids kept, in the order they were first kept (the order they were issued).
    order: VecDeque<String>,
    /// The documents each of the last [`KEPT_SNAPSHOTS`] snapshots showed, oldest first.
    recent: VecDeque<HashSet<String>>,
}

impl RefTable {
    /// Keeps the refs one snapshot showed, then drops what is past [`MAX_REFS`]: the oldest documents'
    /// refs, then, when one document still holds too many (a page whose script keeps making new
    /// elements, as a single-page app does, stays one document through every snapshot), its refs in
    /// the order they were issued. The refs of `refs` (the snapshot the agent just read) all stay,
    /// however many: a page larger than the bound is shown whole.
    pub(super) fn keep(&mut self, refs: Vec<RefRecord>) {
        // An action's answer with no refs (a click, a goto) is no snapshot: it moves nothing.
        if !refs.is_empty() {
            self.recent.push_back(refs.iter().map(|r| r.loader_id.clone()).collect());
            if self.recent.len() > KEPT_SNAPSHOTS {
                self.recent.pop_front();
            }
        }
        let live: HashSet<&String> = self.recent.iter().flatten().collect();
        if self.documents.iter().any(|d| !live.contains(d)) {
            let live: HashSet<String> = live.into_iter().cloned().collect();
            self.by_id.retain(|_, r| live.contains(&r.loader_id));
            self.documents.retain(|d| live.contains(d));
            let by_id = &self.by_id;
            self.order.retain(|id| by_id.contains_key(id));
        }
        let mut shown = Vec::with_capacity(refs.len());
        for r in refs {
            if !self.documents.contains(&r.loader_id) {
                self.documents.push_back(r.loader_id.clone());
            }
            let id = r.id.clone();
            if self.by_id.insert(id.clone(), r).is_none() {
                self.order.push_back(id.clone());
            }
            shown.push(id);
        }
        if self.by_id.len() <= MAX_REFS {
            return;
        }
        let shown: HashSet<String> = shown.into_iter().collect();
        while self.by_id.len() > MAX_REFS && self.documents.len() > 1 {
            let Some(oldest) = self.documents.pop_front() else { break };
            self.by_id.retain(|_, r| r.loader_id != oldest);
        }
        let mut excess = self.by_id.len().saturating_sub(MAX_REFS);
        for id in &self.order {
            if excess == 0 {
                break;
            }
            if !shown.contains(id) && self.by_id.remove(id).is_some() {
                excess -= 1;
            }
        }
        let by_id = &self.by_id;
        self.order.retain(|id| by_id.contains_key(id));
    }
}

/// A session's refs: the table of those it keeps, and the number its next new ref gets (refs are
/// never reused: `e1`, `e2`, ... for the session's life).
pub(super) struct Refs {
    table: Mutex<RefTable>,
    next: AtomicU64,
}

impl Default for Refs {
    fn default() -> Refs {
        Refs { table: Mutex::new(RefTable::default()), next: AtomicU64::new(1) }
    }
}

impl Refs {
    /// A ref the session issued.
    ///
    /// # Errors
    /// `unknown_ref` for a ref no snapshot of this session issued; `stale_ref` for one dropped with its
    /// document (past [`MAX_REFS`]).
    pub(super) fn reference(&self, id: &str) -> Result<RefRecord, ErrorBody> {
        if let Some(r) = self.table.lock().unwrap().by_id.get(id) {
            return Ok(r.clone());
        }
        let issued = id
            .strip_prefix('e')
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| n >= 1 && n < self.next.load(Ordering::SeqCst));
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
    pub(super) fn next_ref(&self) -> u64 {
        self.next.load(Ordering::SeqCst)
    }

    /// Stores a snapshot's refs; refs are never reused, so the counter moves past them.
    pub(super) fn keep(&self, refs: Vec<RefRecord>) {
        for r in &refs {
            if let Some(n) = r.id.strip_prefix('e').and_then(|n| n.parse::<u64>().ok()) {
                self.next.fetch_max(n + 1, Ordering::SeqCst);
            }
        }
        self.table.lock().unwrap().keep(refs);
    }

    /// How many refs the session keeps now.
    pub(super) fn kept(&self) -> usize {
        self.table.lock().unwrap().by_id.len()
    }
}
