//! Stable error codes and phases, as the harness API reports them.
//!
//! A code names *what* broke and decides `retryable`; a phase names *where* (which step was running).
//! Both serialize as `snake_case` strings and are part of the public contract: never rename one.

use serde::{Deserialize, Serialize};

/// The message suffix for a runtime that is down: a model must stop retrying.
pub const DO_NOT_RETRY: &str = "Do NOT retry browser tool; browser runtime is unavailable.";
/// The message of `page_reset` for an action the browser died under (the worker sees its connection
/// close, the supervisor sees the browser gone: both answer it).
pub const BROWSER_GONE: &str = "the browser went away during the action (browser_restarted): the runtime restarts it and the session's next action runs on its page reopened at its last URL (page state is lost); take a new snapshot";
/// The operator hint that goes with [`ErrorCode::BrowserUnavailable`].
pub const RUNTIME_HINT: &str = "Check sandbox browser runtime/container health.";

/// A stable error code (`error.code` in a response).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request line is not JSON, or a field is missing or of the wrong type.
    BadRequest,
    /// `method` is not one the runtime knows.
    UnknownMethod,
    /// `session_id` names no open session.
    UnknownSession,
    /// `session.start` named a session id that is already open.
    SessionExists,
    /// `session.start` over the configured limit of open sessions, or with too few file descriptors
    /// free in the browser or the runtime (`RLIMIT_NOFILE`; the message says whose); close one first.
    TooManySessions,
    /// A connection over the configured limit of open connections (`limits.max_connections`): answered
    /// once, then closed. Retryable once another connection closed.
    TooManyConnections,
    /// The request line is longer than the configured limit (default 1 MiB).
    FrameTooLarge,
    /// The action did not finish within its budget (`timeout_ms`).
    Timeout,
    /// The page could not be loaded: DNS, refused connection, bad URL (Chromium's net error).
    NavigationFailed,
    /// The tab was stuck and could not be freed in place: it was closed and reopened at its last URL;
    /// or its renderer crashed, the browser went away, or the tab closed itself under the action.
    /// The page's state (inputs, scroll, JS variables) is gone.
    PageReset,
    /// The request was cancelled because its client disconnected.
    Cancelled,
    /// In-page JavaScript threw; the message is the JS error's.
    EvaluateError,
    /// `page.evaluate` is turned off by configuration (`evaluate_enabled = false`).
    EvaluateDisabled,
    /// The URL policy (`[policy]`) refuses the URL; the message names the rule. Not retryable.
    UrlBlocked,
    /// The worker process died while running the action; it has been replaced.
    WorkerCrashed,
    /// The browser is down and could not be restarted. Not retryable.
    BrowserUnavailable,
    /// Chromium answered a CDP call with an error the runtime did not expect.
    CdpError,
    /// A bug in the runtime itself.
    Internal,
    /// The ref belongs to a document that is gone (navigation, reload); take a new snapshot.
    StaleRef,
    /// No snapshot of this session issued the ref.
    UnknownRef,
    /// Another element receives pointer events at the click point; the message names it.
    ElementCovered,
    /// The element is not visible (an empty box, `visibility` other than `visible`, under `display:
    /// none` or `content-visibility: hidden`: Playwright's rule).
    NotVisible,
    /// The element is disabled.
    NotEnabled,
    /// The element kept moving (its box changed across an animation frame).
    NotStable,
    /// A `target_id` prefix matches several of the session's tabs; the message lists them.
    AmbiguousTarget,
    /// No tab of the session has that `target_id` (or prefix).
    TabNotFound,
    /// A person holds the session in the live view (`[view] takeover`) and did not hand it back within
    /// the action's budget. Retryable: send it again later; its result will say `human_took_over`.
    HumanInControl,
    /// A file the action writes (a screenshot, a PDF, a storage state, a trace) could not be written:
    /// the disk it goes to is full or over its quota (`ENOSPC`, `EDQUOT`). Nothing was written (no
    /// partial file is left) and the session goes on. Free space, or lower `[artifacts] max_bytes`.
    DiskFull,
    /// `page.verify`'s check does not hold: the message says what was wanted and what the page has.
    /// Not retryable as is (the page decides; wait for the state with `page.wait_for` first).
    VerifyFailed,
    /// The server asks for HTTP authentication (a 401 challenge) and the session has no credentials
    /// that it takes (full Chromium's `net::ERR_INVALID_AUTH_CREDENTIALS`): set `http_credentials`
    /// (`session.start`, `page.emulate`). Not retryable as is.
    AuthRequired,
    /// A code from a newer runtime that this build does not know.
    #[serde(other)]
    Unknown,
}

impl ErrorCode {
    /// The wire name, e.g. `"bad_request"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::UnknownMethod => "unknown_method",
            ErrorCode::UnknownSession => "unknown_session",
            ErrorCode::SessionExists => "session_exists",
            ErrorCode::TooManySessions => "too_many_sessions",
            ErrorCode::TooManyConnections => "too_many_connections",
            ErrorCode::FrameTooLarge => "frame_too_large",
            ErrorCode::Timeout => "timeout",
            ErrorCode::NavigationFailed => "navigation_failed",
            ErrorCode::PageReset => "page_reset",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::EvaluateError => "evaluate_error",
            ErrorCode::EvaluateDisabled => "evaluate_disabled",
            ErrorCode::UrlBlocked => "url_blocked",
            ErrorCode::WorkerCrashed => "worker_crashed",
            ErrorCode::BrowserUnavailable => "browser_unavailable",
            ErrorCode::CdpError => "cdp_error",
            ErrorCode::Internal => "internal",
            ErrorCode::StaleRef => "stale_ref",
            ErrorCode::UnknownRef => "unknown_ref",
            ErrorCode::ElementCovered => "element_covered",
            ErrorCode::NotVisible => "not_visible",
            ErrorCode::NotEnabled => "not_enabled",
            ErrorCode::NotStable => "not_stable",
            ErrorCode::AmbiguousTarget => "ambiguous_target",
            ErrorCode::TabNotFound => "tab_not_found",
            ErrorCode::HumanInControl => "human_in_control",
            ErrorCode::DiskFull => "disk_full",
            ErrorCode::VerifyFailed => "verify_failed",
            ErrorCode::AuthRequired => "auth_required",
            ErrorCode::Unknown => "unknown",
        }
    }

    /// Whether the same request may succeed when sent again unchanged.
    ///
    /// Client mistakes (bad input, unknown names) and a down runtime are not retryable; transient
    /// faults (a timeout, a crashed worker that has been replaced, a failed navigation) are.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            ErrorCode::Timeout
                | ErrorCode::TooManyConnections
                | ErrorCode::NavigationFailed
                | ErrorCode::PageReset
                | ErrorCode::ElementCovered
                | ErrorCode::NotVisible
                | ErrorCode::NotEnabled
                | ErrorCode::NotStable
                | ErrorCode::WorkerCrashed
                | ErrorCode::CdpError
                | ErrorCode::HumanInControl
        )
    }
}

/// `bad_request` (phase `request`) with `message`: the request itself is wrong (not JSON, an unknown
/// or mistyped parameter, a value out of range). Not retryable as is.
pub fn bad_request(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorCode::BadRequest, Phase::Request, message)
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The step that was running when an error happened (`error.phase`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Reading and validating the request line.
    Request,
    /// Creating, finding or closing a session and its target.
    Session,
    /// Launching the browser process.
    Launch,
    /// The CDP probe (`Browser.getVersion` on the browser's pipe).
    Handshake,
    /// Starting or talking to the worker process.
    Worker,
    /// `Page.navigate` and waiting for the load state.
    Navigate,
    /// Reading the page's text or HTML.
    Extract,
    /// `Page.captureScreenshot` and writing the file.
    Screenshot,
    /// In-page JavaScript (`Runtime.evaluate`).
    Evaluate,
    /// Waiting for a page condition.
    Wait,
    /// Actionability checks before input.
    Actionability,
    /// A CDP call outside the phases above.
    Cdp,
    /// Reading an element's state for a check (`page.verify`, `page.query`).
    Verify,
    /// A phase from a newer runtime that this build does not know.
    #[serde(other)]
    Unknown,
}

impl Phase {
    /// The wire name, e.g. `"handshake"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Request => "request",
            Phase::Session => "session",
            Phase::Launch => "launch",
            Phase::Handshake => "handshake",
            Phase::Worker => "worker",
            Phase::Navigate => "navigate",
            Phase::Extract => "extract",
            Phase::Screenshot => "screenshot",
            Phase::Evaluate => "evaluate",
            Phase::Wait => "wait",
            Phase::Actionability => "actionability",
            Phase::Cdp => "cdp",
            Phase::Verify => "verify",
            Phase::Unknown => "unknown",
        }
    }
}

/// `error` of a failed response: `{"code", "message", "phase", "retryable", "hint"?}`.
///
/// `message` is one line for a model to read: no tracebacks, no raw CDP dumps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ErrorBody {
    /// Stable code (docs/errors.md).
    pub code: ErrorCode,
    /// One line for a model to read: what happened and what to do.
    pub message: String,
    /// The step the request failed in.
    pub phase: Phase,
    /// Whether the same request may succeed if sent again.
    pub retryable: bool,
    /// For an operator: how to fix what the model cannot (e.g. the browser runtime being down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// In the supervisor only, never on the wire: the URL a failed navigation last asked for (the
    /// worker's [`crate::ipc::WorkerError::url`]), for the connection gate's explanation.
    #[serde(skip)]
    pub url: Option<String>,
}

impl ErrorBody {
    /// An error whose `retryable` follows from its code; newlines in `message` are folded to spaces.
    pub fn new(code: ErrorCode, phase: Phase, message: impl Into<String>) -> Self {
        let message: String = message.into();
        let message = if message.contains(['\n', '\r']) {
            message.split(['\n', '\r']).filter(|l| !l.trim().is_empty()).collect::<Vec<_>>().join(" ")
        } else {
            message
        };
        ErrorBody { code, retryable: code.retryable(), phase, message, hint: None, url: None }
    }

    /// The same error with an operator hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl std::fmt::Display for ErrorBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.phase.as_str(), self.message)
    }
}

impl std::error::Error for ErrorBody {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialize_as_their_wire_names() {
        for code in [ErrorCode::BadRequest, ErrorCode::FrameTooLarge, ErrorCode::BrowserUnavailable] {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        }
        let unknown: ErrorCode = serde_json::from_str("\"from_the_future\"").unwrap();
        assert_eq!(unknown, ErrorCode::Unknown);
    }

    #[test]
    fn messages_are_one_line() {
        let e = ErrorBody::new(
            ErrorCode::EvaluateError,
            Phase::Evaluate,
            "Error: boom\n    at <anonymous>:1:7\n",
        );
        assert_eq!(e.message, "Error: boom     at <anonymous>:1:7");
        assert!(!e.retryable);
    }
}
