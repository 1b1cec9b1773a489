//! The worker's one error shape: [`WorkerError`] (`code`, `phase`, one-line `message`), built here and
//! nowhere else by hand. A CDP failure becomes [`ErrorCode::Timeout`] when the call ran out of its time
//! (the action's budget), else [`ErrorCode::CdpError`].

use sb_cdp::CdpError;
use sb_protocol::ipc::WorkerError;
use sb_protocol::{ErrorCode, Phase};

/// An error of `code` in `phase`.
pub(crate) fn fail(code: ErrorCode, phase: Phase, message: impl Into<String>) -> WorkerError {
    WorkerError { code, phase, message: message.into() }
}

/// Maps a CDP failure in `phase` to the worker's error: a CDP timeout is the action's [`ErrorCode::Timeout`].
pub(crate) fn cdp_failure(phase: Phase, e: CdpError) -> WorkerError {
    let code = if e.is_timeout() { ErrorCode::Timeout } else { ErrorCode::CdpError };
    let message = match &e {
        CdpError::Timeout { method, .. } => format!("{method} did not answer within the budget"),
        other => other.to_string(),
    };
    fail(code, phase, message)
}
