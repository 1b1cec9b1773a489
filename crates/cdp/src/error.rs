use std::time::Duration;

/// Everything a CDP call or discovery request can fail with.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CdpError {
    /// No answer within the call's timeout. The pending entry has been removed.
    #[error("CDP {method} timed out after {} ms", .timeout.as_millis())]
    Timeout {
        /// The CDP method, e.g. `Page.navigate`.
        method: String,
        /// The time it had.
        timeout: Duration,
    },
    /// The WebSocket is closed (or closed while the call was pending).
    #[error("CDP connection closed: {reason}")]
    Closed {
        /// Why, e.g. `"browser connection lost"`.
        reason: String,
    },
    /// Chromium answered with a JSON-RPC error, e.g. `-32000 "No target with given id found"`.
    #[error("CDP {method} failed: {message}")]
    Protocol {
        /// The CDP method.
        method: String,
        /// The JSON-RPC error code, e.g. `-32000`.
        code: i64,
        /// Chromium's message.
        message: String,
    },
    /// The WebSocket handshake failed.
    #[error("could not connect to {url}: {reason}")]
    Connect {
        /// The endpoint.
        url: String,
        /// The handshake's failure.
        reason: String,
    },
    /// The TLS configuration for a remote browser could not be made (a CA file unreadable or without
    /// a certificate, no trusted root).
    #[error("TLS: {reason}")]
    Tls {
        /// What went wrong.
        reason: String,
    },
    /// A discovery request (`/json/...`) failed or answered something else than JSON.
    #[error("HTTP {url}: {reason}")]
    Http {
        /// The URL requested.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// A response did not have the expected shape.
    #[error("unexpected CDP answer to {method}: {reason}")]
    Decode {
        /// The CDP method answered.
        method: String,
        /// serde's message.
        reason: String,
    },
    /// A URL could not be parsed or used.
    #[error("bad URL {url}: {reason}")]
    Url {
        /// The URL as given.
        url: String,
        /// Why it cannot be used.
        reason: String,
    },
}

impl CdpError {
    /// Whether this is a [`CdpError::Timeout`].
    pub fn is_timeout(&self) -> bool {
        matches!(self, CdpError::Timeout { .. })
    }
}
