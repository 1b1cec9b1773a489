//! The main frame's lifecycle as the worker follows it: the current document (`loaderId`), the
//! lifecycle events it has seen (`Page.lifecycleEvent`: `init`, `commit`, `DOMContentLoaded`, `load`,
//! `networkIdle`) and its URL (`Page.frameNavigated`, `Page.navigatedWithinDocument`).

use sb_cdp::types::{FrameNavigated, LifecycleEvent, NavigatedWithinDocument};
use sb_cdp::Session;
use tokio::sync::watch;

/// The main frame's lifecycle: the current document's `loaderId` and the events it has seen
/// (`init`, `commit`, `DOMContentLoaded`, `load`, `networkIdle`, ...).
#[derive(Debug, Clone, Default)]
pub(crate) struct Lifecycle {
    pub loader_id: String,
    pub events: Vec<String>,
    /// The main frame's URL with its fragment (`Page.frameNavigated`, `Page.navigatedWithinDocument`);
    /// empty until the first navigation after attaching.
    pub url: String,
    /// The URL of the last main-frame document that reached `DOMContentLoaded`: the page to reopen
    /// after a renderer crash (a URL that crashes its renderer while loading never becomes it).
    pub loaded_url: String,
    /// How many URLs the main frame committed since attaching (`Page.frameNavigated` and
    /// `Page.navigatedWithinDocument`): it moves when `url` does.
    pub commits: u64,
    /// How many documents the main frame committed since attaching (`Page.frameNavigated` only): a
    /// reload waits for this to move, not [`Self::commits`], which the page's own `history.replaceState`
    /// also moves.
    pub documents: u64,
}

impl Lifecycle {
    /// Whether the current document has seen lifecycle event `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.events.iter().any(|e| e == name)
    }
}

/// Waits until `pred` holds for the value of `rx` (now or after a change), within `timeout`: whether it
/// did. Unlike `watch::Receiver::wait_for`, whose answer is a read guard of the channel, nothing is
/// held after it returns: a guard kept across an `.await` blocks the sender's next `send_modify`,
/// which on the worker's one thread is the whole process (clippy's `disallowed_methods` holds every
/// other caller to this).
pub(crate) async fn wait_until<T>(
    rx: &mut watch::Receiver<T>,
    timeout: std::time::Duration,
    pred: impl FnMut(&T) -> bool,
) -> bool {
    tokio::time::timeout(timeout, until(rx, pred)).await.unwrap_or(false)
}

/// [`wait_until`] without a time limit: whether `pred` came to hold (`false` once the sender is gone).
pub(crate) async fn until<T>(rx: &mut watch::Receiver<T>, pred: impl FnMut(&T) -> bool) -> bool {
    #[allow(clippy::disallowed_methods)] // The guard is dropped here, before anything else runs.
    let met = rx.wait_for(pred).await.is_ok();
    met
}

/// Follows `Page.lifecycleEvent` of the main frame (its `frameId` is the target's id) on `session`.
/// Subscribe before `Page.setLifecycleEventsEnabled`: enabling replays the current document's events.
pub(crate) fn track_lifecycle(session: &Session, target_id: &str) -> watch::Receiver<Lifecycle> {
    let (tx, rx) = watch::channel(Lifecycle::default());
    let mut events = session.events();
    let main_frame = target_id.to_string();
    tokio::spawn(async move {
        while let Some(ev) = events.recv().await {
            if ev.method == "Page.frameNavigated" {
                let Some(n) = ev.parse::<FrameNavigated>().filter(|n| n.frame.id == main_frame) else {
                    continue;
                };
                tx.send_modify(|l| {
                    l.url = n.frame.full_url();
                    l.commits += 1;
                    l.documents += 1;
                    // The events seen so far are the previous document's (this one's `init` may come
                    // before or after its commit). A document shown again from the back/forward cache
                    // fires none: it is complete.
                    if l.loader_id != n.frame.loader_id {
                        l.loader_id = n.frame.loader_id;
                        l.events.clear();
                    }
                    if n.kind.as_deref() == Some("BackForwardCacheRestore") {
                        l.events = ["init", "commit", "DOMContentLoaded", "load"].map(String::from).to_vec();
                    }
                });
                continue;
            }
            if ev.method == "Page.navigatedWithinDocument" {
                if let Some(n) = ev.parse::<NavigatedWithinDocument>().filter(|n| n.frame_id == main_frame) {
                    tx.send_modify(|l| {
                        l.url = n.url;
                        l.commits += 1;
                    });
                }
                continue;
            }
            if ev.method != "Page.lifecycleEvent" {
                continue;
            }
            let Some(LifecycleEvent { loader_id: loader, name, .. }) =
                ev.parse::<LifecycleEvent>().filter(|e| e.frame_id == main_frame)
            else {
                continue;
            };
            tx.send_modify(|l| {
                if l.loader_id != loader || name == "init" {
                    l.loader_id = loader;
                    l.events.clear();
                }
                if name == "DOMContentLoaded" && !l.url.is_empty() {
                    l.loaded_url = l.url.clone();
                }
                l.events.push(name);
            });
        }
    });
    rx
}
