//! One request as it travels through the supervisor: its method, its one budget, the token that
//! says its connection went away, and the steps the supervisor took for it. A leaf: every layer that
//! runs a request takes one [`Call`] instead of the four separately.

use std::sync::Mutex;

use sb_protocol::api::Method;
use sb_protocol::{Budget, ErrorBody, ErrorCode};
use tokio_util::sync::CancellationToken;

/// A request in flight: what runs it needs besides its params.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The API method (its name is the action's in logs and errors).
    pub method: Method,
    /// The request's one deadline ([`Budget`]: `timeout_ms`, clamped).
    pub budget: Budget,
    /// Cancelled when the request's connection closes: the action is stopped and its worker freed.
    pub cancel: &'a CancellationToken,
    /// What the supervisor did for the request so far.
    pub steps: &'a Steps,
}

/// The supervisor's steps for one request, as the worker's `Progress` logs its own (after
/// Playwright's `server/progress.ts` call log): what takes time or may hold the request up (waiting
/// in the session's queue, starting a worker, opening or reopening the session's page, putting its
/// login back). A `timeout` answer ends with them ([`Steps::told`]).
#[derive(Debug, Default)]
pub struct Steps(Mutex<Vec<String>>);

impl Steps {
    /// Logs a step taken ("started a worker for the session's tab").
    pub fn log(&self, step: impl Into<String>) {
        self.0.lock().unwrap().push(step.into());
    }

    /// `e` with the steps at the end of its message when it is a `timeout` and steps were taken:
    /// `... (the runtime first: waited 812 ms in the queue behind the session's earlier actions;
    /// started a worker for the session's tab)`. Other errors, and a timeout without steps, as they are.
    pub fn told(&self, mut e: ErrorBody) -> ErrorBody {
        let steps = self.0.lock().unwrap();
        if e.code == ErrorCode::Timeout && !steps.is_empty() {
            e.message = format!("{} (the runtime first: {})", e.message, steps.join("; "));
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sb_protocol::Phase;

    #[test]
    fn a_timeout_ends_with_the_steps_and_nothing_else_does() {
        let steps = Steps::default();
        let timeout = ErrorBody::new(ErrorCode::Timeout, Phase::Wait, "wait_for selector: not met");
        assert_eq!(steps.told(timeout.clone()).message, "wait_for selector: not met", "no steps, as it was");
        steps.log("waited 812 ms in the queue behind the session's earlier actions");
        steps.log("started a worker for the session's tab");
        assert_eq!(
            steps.told(timeout).message,
            "wait_for selector: not met (the runtime first: waited 812 ms in the queue behind the session's earlier actions; started a worker for the session's tab)"
        );
        let other = ErrorBody::new(ErrorCode::NotVisible, Phase::Actionability, "not visible");
        assert_eq!(steps.told(other).message, "not visible");
    }
}
