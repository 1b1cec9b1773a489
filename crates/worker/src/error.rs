//! The worker's one error shape: [`WorkerError`] (`code`, `phase`, one-line `message`), built here and
//! nowhere else by hand. A CDP failure becomes [`ErrorCode::Timeout`] when the call ran out of its time
//! (the action's budget), else [`ErrorCode::CdpError`].

use std::time::Instant;

use sb_cdp::CdpError;
use sb_protocol::ipc::WorkerError;
use sb_protocol::{ErrorCode, Phase};

/// An error of `code` in `phase`.
pub(crate) fn fail(code: ErrorCode, phase: Phase, message: impl Into<String>) -> WorkerError {
    WorkerError { code, phase, message: message.into(), url: None }
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

/// A failed `Runtime.evaluate` or `callFunctionOn` of a script given `v8_timeout_ms` of V8's own time
/// (`timeout` param), sent at `started`: when V8's timeout fired (Chromium answers "Execution was
/// terminated", or, with `awaitPromise`, `-32603` "Internal error", told apart from a real internal
/// error by the time it took) it is the action's [`ErrorCode::Timeout`]; else [`cdp_failure`].
///
/// A script whose document went away under it (a navigation) is `evaluate_error` "the page navigated
/// while the script ran": what the caller did made the page leave, not a fault of the runtime; so is
/// a result longer than one CDP message may be ([`sb_cdp::TOO_LONG`]).
pub(crate) fn script_failure(phase: Phase, e: CdpError, started: Instant, v8_timeout_ms: u64) -> WorkerError {
    if context_lost(&e) {
        return navigated_away(phase);
    }
    match e {
        CdpError::Protocol { code, message, .. }
            if message.contains("Execution was terminated")
                || (code == -32603 && started.elapsed().as_millis() as u64 >= v8_timeout_ms) =>
        {
            fail(
                ErrorCode::Timeout,
                phase,
                format!("the script ran past its budget of {v8_timeout_ms} ms and was terminated"),
            )
        }
        // The script's value is longer than one CDP message may be: the script's doing, as a
        // value that cannot be serialized is.
        CdpError::Protocol { code: sb_cdp::TOO_LONG, message, .. } => fail(
            ErrorCode::EvaluateError,
            phase,
            format!(
                "the script's result could not be returned: {message}; return less of it (a slice, a count)"
            ),
        ),
        other => cdp_failure(phase, other),
    }
}

/// What Chromium answers a call whose document went away under it (a navigation, the target closed).
const CONTEXT_LOST: [&str; 4] = [
    "Execution context was destroyed",
    "Inspected target navigated or closed",
    "Cannot find context",
    "Cannot find default execution context",
];

/// Whether `e` says the call's document went away under it (a navigation, the target closed):
/// `Execution context was destroyed`, `Inspected target navigated or closed`, `Cannot find context`.
pub(crate) fn context_lost(e: &CdpError) -> bool {
    match e {
        CdpError::Protocol { message, .. } => CONTEXT_LOST.iter().any(|m| message.contains(m)),
        _ => false,
    }
}

/// Whether an action's failure is a CDP call whose document went away under it ([`context_lost`]'s
/// answers, or `Page.captureScreenshot`'s "Not attached to an active page" while a navigation swaps
/// the frame): the page navigated, and the same call in the new document may well succeed.
pub(crate) fn went_away(e: &WorkerError) -> bool {
    e.code == ErrorCode::CdpError
        && (CONTEXT_LOST.iter().any(|m| e.message.contains(m))
            || e.message.contains("Not attached to an active page"))
}

/// `page_reset` for an action the browser went away under (`browser_restarted`).
pub(crate) fn browser_gone(phase: Phase) -> WorkerError {
    fail(ErrorCode::PageReset, phase, sb_protocol::error::BROWSER_GONE)
}

/// `evaluate_error`: the page navigated while the script ran (its result is gone with its document).
pub(crate) fn navigated_away(phase: Phase) -> WorkerError {
    fail(
        ErrorCode::EvaluateError,
        phase,
        "the page navigated while the script ran; its result is gone with the old document",
    )
}
