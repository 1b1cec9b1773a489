//! One request as it travels through the supervisor: its method, its one budget and the token that
//! says its connection went away. A leaf: every layer that runs a request takes one [`Call`] instead of
//! the three separately.

use sb_protocol::api::Method;
use sb_protocol::Budget;
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
}
