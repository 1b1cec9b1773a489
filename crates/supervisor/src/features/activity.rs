//! What the sessions did, as the live view ([`crate::front::view`]) and the traces ([`crate::features::trace`]) see it:
//! one [`ActionRecord`] per answered request on a session (its params redacted by
//! [`sb_protocol::redact::params`]), a feed of them for the view's open pages, and per session the last
//! ones, its resets and its last snapshot's text.
//!
//! Nothing is recorded unless the view is on or the session is traced ([`Activity::wanted`]): an
//! unwatched runtime pays one branch per request.
//!
//! Arrows: activity is a leaf (runtime, trace and view import it).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use sb_protocol::api::HumanTookOver;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;

/// Actions kept per session for a page that opens later (newest last).
pub const KEPT: usize = 50;
/// The longest snapshot text kept per session for the view, bytes (cut at a char boundary).
pub const SNAPSHOT_BYTES: usize = 100 * 1024;

/// One answered request on a session.
#[derive(Debug, Clone, Serialize)]
pub struct ActionRecord {
    /// The harness's session id.
    pub session_id: String,
    /// The method, e.g. `page.click`.
    pub method: &'static str,
    /// Its params without typed text or URL credentials ([`sb_protocol::redact::params`]).
    pub params: Value,
    /// When it started, ms since the Unix epoch.
    pub at_ms: u64,
    /// How long it took, ms.
    pub ms: u64,
    /// The error's code; absent when it succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    /// The error's message (credentials redacted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The URL it reached, else the session's last known one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Dialogs answered during it (`{type, message, accepted}`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dialogs: Vec<Value>,
    /// Downloads that started or ended (`{guid, url, state, path?}`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<Value>,
    /// Console errors it raised.
    #[serde(skip_serializing_if = "is_zero")]
    pub console_errors: u64,
    /// The newest of their texts (at most [`sb_protocol::ipc::CONSOLE_TEXTS`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub console: Vec<String>,
    /// Why the session's page was replaced before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reset: Option<String>,
    /// What a person did in the live view before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub human_took_over: Option<HumanTookOver>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl ActionRecord {
    /// The record of `method` on `session_id` that started at `at_ms` and took `ms`: the common part
    /// read from its answer (`outcome`: the result's JSON object, or the error's code and message).
    pub fn of(
        session_id: &str,
        method: &'static str,
        params: &Value,
        at_ms: u64,
        ms: u64,
        outcome: Result<&Value, (&'static str, &str)>,
        last_url: Option<String>,
    ) -> ActionRecord {
        let mut record = ActionRecord {
            session_id: session_id.to_string(),
            method,
            params: sb_protocol::redact::params(params),
            at_ms,
            ms,
            code: None,
            message: None,
            url: last_url,
            dialogs: Vec::new(),
            downloads: Vec::new(),
            console_errors: 0,
            console: Vec::new(),
            reset: None,
            human_took_over: None,
        };
        match outcome {
            Ok(result) => {
                if let Some(url) = result.get("url").and_then(Value::as_str) {
                    record.url = Some(url.to_string());
                }
                let list = |k: &str| result.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
                record.dialogs = list("dialogs");
                record.downloads = list("downloads");
                record.console_errors = result.get("console_errors").and_then(Value::as_u64).unwrap_or(0);
                record.reset = result.get("reset_reason").and_then(Value::as_str).map(str::to_string);
                record.human_took_over =
                    result.get("human_took_over").and_then(|h| serde_json::from_value(h.clone()).ok());
            }
            Err((code, message)) => {
                record.code = Some(code);
                record.message = Some(message.to_string());
            }
        }
        record.url = record.url.map(|u| sb_protocol::redact::in_url(&u).into_owned());
        record
    }
}

/// What the view shows of one session besides its page.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// The last [`KEPT`] actions, oldest first.
    pub recent: VecDeque<Arc<ActionRecord>>,
    /// Actions answered.
    pub actions: u64,
    /// Page resets its results reported.
    pub resets: u64,
    /// The text of its last `page.snapshot` (at most [`SNAPSHOT_BYTES`]).
    pub snapshot: Option<Arc<str>>,
}

/// The feed and the per-session record (see the module doc).
pub struct Activity {
    /// Whether the live view is on (then every session's actions are recorded).
    view: bool,
    feed: broadcast::Sender<Arc<ActionRecord>>,
    seen: Mutex<HashMap<String, Seen>>,
}

impl Activity {
    /// `view`: the live view is on.
    pub fn new(view: bool) -> Activity {
        Activity { view, feed: broadcast::channel(256).0, seen: Mutex::default() }
    }

    /// Whether a request on a session must be recorded: the view is on, or `traced`.
    pub fn wanted(&self, traced: bool) -> bool {
        self.view || traced
    }

    /// Records `record` (and the snapshot text of a `page.snapshot` answer) and tells the view's pages.
    pub fn push(&self, record: Arc<ActionRecord>, snapshot: Option<&str>) {
        if !self.view {
            return;
        }
        {
            let mut seen = self.seen.lock().unwrap();
            let s = seen.entry(record.session_id.clone()).or_default();
            s.actions += 1;
            s.resets += u64::from(record.reset.is_some());
            if let Some(text) = snapshot {
                let mut end = text.len().min(SNAPSHOT_BYTES);
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                s.snapshot = Some(Arc::from(&text[..end]));
            }
            if s.recent.len() == KEPT {
                s.recent.pop_front();
            }
            s.recent.push_back(record.clone());
        }
        let _ = self.feed.send(record);
    }

    /// The actions as they are answered, from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<ActionRecord>> {
        self.feed.subscribe()
    }

    /// What was recorded of `session_id`.
    pub fn seen(&self, session_id: &str) -> Seen {
        self.seen.lock().unwrap().get(session_id).cloned().unwrap_or_default()
    }

    /// The text of `session_id`'s last snapshot, if any.
    pub fn snapshot(&self, session_id: &str) -> Option<Arc<str>> {
        self.seen.lock().unwrap().get(session_id).and_then(|s| s.snapshot.clone())
    }

    /// Forgets a closed session.
    pub fn forget(&self, session_id: &str) {
        self.seen.lock().unwrap().remove(session_id);
    }
}
