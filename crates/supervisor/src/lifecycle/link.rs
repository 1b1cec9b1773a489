//! The link to the current browser that sessions, workers and the URL guard use: a leaf every
//! module below the health check may import without importing the health check.

use sb_cdp::{CdpClient, Relay};

/// The browser connection sessions use: the supervisor's own route, the relay a worker gets a
/// route of its own on, and which browser this is.
#[derive(Clone)]
pub struct Link {
    /// The supervisor's browser-level route (targets are created and closed on it).
    pub client: CdpClient,
    /// The browser's one connection (its pipe), shared by routes.
    pub relay: Relay,
    /// Which browser of the runtime's life this is (1 for the first; a restart makes a new one): a
    /// worker or a browser context of an older one is obsolete.
    pub browser: u64,
}
