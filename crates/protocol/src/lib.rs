//! Wire types of sandbox-browser, and nothing else.
//!
//! This crate owns the two protocols that cross a process boundary, kept apart on purpose:
//!
//! - [`api`]: the harness API, newline-delimited JSON on the supervisor's Unix socket. One request a
//!   line (`{"id", "method", "session_id"?, "timeout_ms"?, "params"?}`), one response a line
//!   (`{"id", "ok": true, "result": {...}}` or `{"id", "ok": false, "error": {...}}`).
//! - [`ipc`]: supervisor <-> worker frames, postcard-encoded and length-prefixed with tokio-util's
//!   [`LengthDelimitedCodec`](tokio_util::codec::LengthDelimitedCodec) (see [`ipc::codec`]).
//!
//! Shared by both: the stable [`ErrorCode`]s and [`Phase`]s ([`error`]) and the one end-to-end
//! deadline, [`Budget`] ([`budget`]), with its timing margins ([`margins`]).
//!
//! It must not touch sockets, processes or CDP: it is plain data that every other crate agrees on.
//!
//! ```
//! use sb_protocol::api::{Method, Request};
//! let req: Request = serde_json::from_str(
//!     r#"{"id":1,"method":"page.goto","session_id":"s1","params":{"url":"http://127.0.0.1/"}}"#,
//! ).unwrap();
//! assert_eq!(Method::parse(&req.method), Some(Method::PageGoto));
//! ```

pub mod api;
pub mod budget;
pub mod error;
pub mod fields;
pub mod files;
pub mod ipc;
pub mod margins;
pub mod pattern;
pub mod redact;
pub mod schema;

pub use budget::Budget;
pub use error::{ErrorBody, ErrorCode, Phase};
