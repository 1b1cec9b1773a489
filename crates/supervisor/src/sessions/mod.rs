//! Sessions: the registry of open sessions and the store that keeps them across supervisor restarts.
//!
//! A session is one harness conversation with one page (and the popups it opens). Its entry
//! ([`SessionEntry`], `entry.rs`) outlives its worker and its target: a replaced worker or a page reset
//! keeps the entry, its ref table (`refs.rs`) and its queue. The registry (`registry.rs`) keeps the
//! store ([`crate::sessions::store::SessionStore`]) in step; `targets.rs` opens a session's pages and contexts; `watch.rs` is the
//! [`crate::lifecycle::health::BrowserObserver`]: when a new browser comes up every open session gets a new target
//! at its last URL, and `Target.targetDestroyed` marks the sessions whose tab closed.
//!
//! Arrows: sessions -> [`crate::lifecycle::health`] -> [`crate::lifecycle::browser`]; nothing here runs a page action.

pub mod cookies;
pub mod downloads;
mod entry;
pub mod kept;
mod refs;
mod registry;
pub mod storage_state;
pub mod store;
mod targets;
pub(crate) mod unstick;
mod watch;

pub(crate) use entry::Standby;
pub use entry::{InUse, SessionEntry, Tab};
pub use refs::{KEPT_SNAPSHOTS, MAX_REFS};
pub use registry::{bare, namespaced, new_token, shown, Reservation, Sessions, MAX_SESSION_ID};
pub use targets::{cdp_error, close_target, close_target_soon, tab_infos};
pub(crate) use watch::Observer;
