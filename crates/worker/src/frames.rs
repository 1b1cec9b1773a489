//! Frames: same-process iframes (reached through the page's own session, `frameId`) and out-of-process
//! iframes (OOPIFs: a cross-site iframe runs in a renderer of its own and is a CDP target of type
//! `iframe`, reached through auto-attach: `Target.setAutoAttach {flatten: true}` on the page session).
//!
//! For a frame the worker needs: the session its document lives in, where that session's viewport lies
//! in the page's (an OOPIF's coordinates start at its `<iframe>`'s content box), and its current
//! document (`loaderId`, to tell a stale ref).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sb_cdp::{CdpClient, Session};
use sb_protocol::ipc::WorkerError;
use sb_protocol::{Budget, Phase};
use serde_json::{json, Value};

use crate::{cdp_failure, Page};

/// Longest one frame-related CDP call may take.
const STEP: Duration = Duration::from_millis(1_000);

/// The out-of-process iframes attached under a page, by frame id (= their target id).
pub(crate) type Oopifs = Arc<Mutex<HashMap<String, Session>>>;

/// Follows `Target.attachedToTarget` / `Target.detachedFromTarget` of iframe targets on `session`
/// (subscribe before `Target.setAutoAttach`, which attaches the existing ones at once).
pub(crate) fn track_oopifs(browser: &CdpClient, session: &Session) -> Oopifs {
    let oopifs: Oopifs = Arc::default();
    let mut events = session.events();
    let (found, browser) = (oopifs.clone(), browser.clone());
    tokio::spawn(async move {
        while let Some(ev) = events.recv().await {
            match ev.method.as_str() {
                "Target.attachedToTarget" if ev.params["targetInfo"]["type"] == "iframe" => {
                    let target = ev.params["targetInfo"]["targetId"].as_str().unwrap_or_default().to_string();
                    let id = ev.params["sessionId"].as_str().unwrap_or_default().to_string();
                    found.lock().unwrap().insert(target, browser.session(id));
                }
                "Target.detachedFromTarget" => {
                    let id = ev.params["sessionId"].as_str().unwrap_or_default();
                    found.lock().unwrap().retain(|_, s| s.id() != id);
                }
                _ => {}
            }
        }
    });
    oopifs
}

/// What the worker needs of a frame: its session, its viewport's offset in the page's, its document.
pub(crate) type FrameContext = (Session, (f64, f64), String);

/// `(session, offset, loaderId)` of frame `frame_id` now; `Ok(None)` when the frame is gone.
///
/// # Errors
/// A CDP call that failed or ran out of time (never reported as a gone frame).
pub(crate) async fn context(
    page: &Page,
    frame_id: &str,
    budget: Budget,
) -> Result<Option<FrameContext>, WorkerError> {
    let fail = |e| cdp_failure(Phase::Actionability, e);
    if frame_id == page.target_id {
        // The main frame's document is followed from its lifecycle events: no call needed.
        let loader = page.lifecycle.borrow().loader_id.clone();
        if !loader.is_empty() {
            return Ok(Some((page.session.clone(), (0.0, 0.0), loader)));
        }
    }
    let oopif = page.oopifs.lock().unwrap().get(frame_id).cloned();
    if let Some(session) = oopif {
        let tree =
            session.call_raw("Page.getFrameTree", json!({}), budget.capped(STEP)).await.map_err(fail)?;
        let loader = tree["frameTree"]["frame"]["loaderId"].as_str().unwrap_or_default().to_string();
        let Some(offset) = owner_offset(page, frame_id, budget).await? else { return Ok(None) };
        return Ok(Some((session, offset, loader)));
    }
    let tree =
        page.session.call_raw("Page.getFrameTree", json!({}), budget.capped(STEP)).await.map_err(fail)?;
    Ok(find_loader(&tree["frameTree"], frame_id).map(|loader| (page.session.clone(), (0.0, 0.0), loader)))
}

/// The `loaderId` of `frame_id` in a `Page.getFrameTree` subtree.
pub(crate) fn find_loader(node: &Value, frame_id: &str) -> Option<String> {
    if node["frame"]["id"] == frame_id {
        return node["frame"]["loaderId"].as_str().map(str::to_string);
    }
    node["childFrames"].as_array()?.iter().find_map(|c| find_loader(c, frame_id))
}

/// The top-left corner of the content box of `frame_id`'s `<iframe>` in the page's viewport
/// (`DOM.getFrameOwner`, `DOM.getBoxModel`); `Ok(None)` when it has none (gone, or not rendered).
async fn owner_offset(
    page: &Page,
    frame_id: &str,
    budget: Budget,
) -> Result<Option<(f64, f64)>, WorkerError> {
    let call = |method: &'static str, params: Value| async move {
        match page.session.call_raw(method, params, budget.capped(STEP)).await {
            Ok(v) => Ok(Some(v)),
            Err(e) if e.is_timeout() => Err(cdp_failure(Phase::Actionability, e)),
            Err(_) => Ok(None),
        }
    };
    let Some(owner) = call("DOM.getFrameOwner", json!({"frameId": frame_id})).await? else { return Ok(None) };
    let Some(backend) = owner["backendNodeId"].as_i64() else { return Ok(None) };
    let Some(model) = call("DOM.getBoxModel", json!({"backendNodeId": backend})).await? else {
        return Ok(None);
    };
    let content = model["model"]["content"].as_array();
    Ok(content.and_then(|c| Some((c.first()?.as_f64()?, c.get(1)?.as_f64()?))))
}

/// One frame's accessibility tree for the snapshot.
pub(crate) struct FrameTree {
    pub(crate) frame_id: String,
    pub(crate) loader_id: String,
    /// `backendDOMNodeId` of its `<iframe>` in the page's renderer; `None` for the main frame.
    pub(crate) owner: Option<i64>,
    /// `Accessibility.getFullAXTree`'s `nodes`.
    pub(crate) nodes: Vec<Value>,
    /// Read through an out-of-process iframe's session (its backend ids are another renderer's).
    pub(crate) oopif: bool,
}

impl FrameTree {
    /// From `DOM.getFrameOwner`'s and `Accessibility.getFullAXTree`'s answers.
    fn of(frame_id: String, loader_id: String, owner: &Value, ax: &Value, oopif: bool) -> FrameTree {
        let nodes = ax["nodes"].as_array().cloned().unwrap_or_default();
        FrameTree { frame_id, loader_id, owner: owner["backendNodeId"].as_i64(), nodes, oopif }
    }
}

/// The child frames' trees: same-process ones through the page's session (`frameId`), out-of-process
/// ones through their own sessions. A frame that cannot be read in time is left out.
pub(crate) async fn child_trees(page: &Page, budget: Budget) -> Vec<FrameTree> {
    let mut out = Vec::new();
    let Ok(tree) = page.session.call_raw("Page.getFrameTree", json!({}), budget.capped(STEP)).await else {
        return out;
    };
    let mut same_process = Vec::new();
    collect_children(&tree["frameTree"], &mut same_process);
    for (frame_id, loader_id) in same_process {
        let ax = page
            .session
            .call_raw("Accessibility.getFullAXTree", json!({"frameId": frame_id}), budget.remaining())
            .await;
        let owner = page
            .session
            .call_raw("DOM.getFrameOwner", json!({"frameId": frame_id}), budget.capped(STEP))
            .await;
        if let (Ok(ax), Ok(owner)) = (ax, owner) {
            out.push(FrameTree::of(frame_id, loader_id, &owner, &ax, false));
        }
    }
    let oopifs: Vec<(String, Session)> =
        page.oopifs.lock().unwrap().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    for (frame_id, session) in oopifs {
        let ax = session.call_raw("Accessibility.getFullAXTree", json!({}), budget.remaining()).await;
        let tree = session.call_raw("Page.getFrameTree", json!({}), budget.capped(STEP)).await;
        let owner = page
            .session
            .call_raw("DOM.getFrameOwner", json!({"frameId": frame_id}), budget.capped(STEP))
            .await;
        if let (Ok(ax), Ok(tree), Ok(owner)) = (ax, tree, owner) {
            let loader_id = tree["frameTree"]["frame"]["loaderId"].as_str().unwrap_or_default().to_string();
            out.push(FrameTree::of(frame_id, loader_id, &owner, &ax, true));
        }
    }
    out
}

/// Every frame below `node` of a `Page.getFrameTree`: `(frameId, loaderId)`.
fn collect_children(node: &Value, out: &mut Vec<(String, String)>) {
    for c in node["childFrames"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let id = c["frame"]["id"].as_str().unwrap_or_default().to_string();
        let loader = c["frame"]["loaderId"].as_str().unwrap_or_default().to_string();
        out.push((id, loader));
        collect_children(c, out);
    }
}
