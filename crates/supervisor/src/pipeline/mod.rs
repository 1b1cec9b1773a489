//! The request pipeline: one request line parsed, checked, routed and answered (`runtime`), the method table (`dispatch`), a request's budget and cancel (`call`), a session's queue (`queue`) and `tabs.*` (`tabs`).

pub mod call;
pub mod dispatch;
pub mod queue;
pub mod runtime;
pub mod tabs;
pub mod timeouts;
