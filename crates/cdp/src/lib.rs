//! A thin, typed Chrome DevTools Protocol client.
//!
//! What this crate owns:
//! - [`discovery`]: the HTTP endpoints `GET /json/version` and `GET /json/list`.
//! - [`normalize_ws_url`]: making a `webSocketDebuggerUrl` reachable from where the caller stands.
//! - [`wire`]: the transports: the browser's pipe (`--remote-debugging-pipe`, our own browser), a
//!   WebSocket (a browser reached over the network), a relay's route.
//! - [`CdpClient`]: one transport, JSON-RPC multiplexing (increasing ids, one pending map, many calls
//!   in flight), a timeout on every call, events routed by flat `sessionId`
//!   (`Target.attachToTarget {flatten: true}`), and every pending call failed at once when the
//!   transport drops. Messages up to [`MAX_MESSAGE_BYTES`].
//! - [`relay`]: one browser connection shared by many clients (the supervisor's and each worker's),
//!   calls and sessions routed to the client they belong to.
//! - [`calls`]: typed params and helpers for the calls every page action makes (evaluate,
//!   callFunctionOn, resolveNode, describeNode, getBoxModel).
//! - [`types`]: hand-written serde types for the methods the runtime uses; unknown fields and enum
//!   values are tolerated.
//!
//! It knows nothing of sessions in the harness sense, workers or budgets: callers pass a
//! [`Duration`](std::time::Duration) per call.
//!
//! ```no_run
//! # async fn demo() -> Result<(), sb_cdp::CdpError> {
//! use std::time::Duration;
//! use sb_cdp::{discovery, CdpClient, types::BrowserVersion};
//! let endpoint = url::Url::parse("http://127.0.0.1:9222").unwrap();
//! let info = discovery::version(&endpoint, Duration::from_millis(500)).await?;
//! let client = CdpClient::connect(&info.web_socket_debugger_url, Duration::from_secs(2)).await?;
//! let v: BrowserVersion = client.call("Browser.getVersion", None, serde_json::json!({}), Duration::from_millis(800)).await?;
//! println!("{}", v.product);
//! # Ok(()) }
//! ```

pub mod calls;
mod client;
pub mod commands;
pub mod discovery;
mod error;
pub mod relay;
pub mod tls;
pub mod types;
pub mod wire;
mod wsurl;

pub use client::{CdpClient, Event, EventStream, Session, SESSION_ENDED, SESSION_ENDED_CODE};
pub use error::CdpError;
pub use relay::Relay;
pub use tls::Remote;
pub use wire::{MAX_MESSAGE_BYTES, TOO_LONG};
pub use wsurl::{basic_auth_header, normalize_ws_url};
