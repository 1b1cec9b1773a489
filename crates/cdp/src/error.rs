use std::time::Duration;

/// Everything a CDP call or discovery request can fail with.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CdpError {
    /// No answer within the call's timeout. The pending entry has been removed.
    #[error("CDP {method} timed out after {} ms", .timeout.as_millis())]
    Timeout { method: String, timeout: Duration },
    /// The WebSocket is closed (or closed while the call was pending).
    #[error("CDP connection closed: {reason}")]
    Closed { reason: String },
    /// Chromium answered with a JSON-RPC error, e.g. `-32000 "No target with given id found"`.
    #[error("CDP {method} failed: {message}")]
    Protocol { method: String, code: i64, message: String },
    /// The WebSocket handshake failed.
    #[error("could not connect to {url}: {reason}")]
    Connect { url: String, reason: String },
    /// A discovery request (`/json/...`) failed or answered something else than JSON.
    #[error("HTTP {url}: {reason}")]
    Http { url: String, reason: String },
    /// A response did not have the expected shape.
    #[error("unexpected CDP answer to {method}: {reason}")]
    Decode { method: String, reason: String },
    /// A URL could not be parsed or used.
    #[error("bad URL {url}: {reason}")]
    Url { url: String, reason: String },
}

impl CdpError {
    /// Whether this is a [`CdpError::Timeout`].
    pub fn is_timeout(&self) -> bool {
        matches!(self, CdpError::Timeout { .. })
    }
}
