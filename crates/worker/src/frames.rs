//! Frames: same-process iframes (reached through the page's own session, `frameId`) and out-of-process
//! iframes (OOPIFs: a cross-site iframe runs in a renderer of its own and is a CDP target of type
//! `iframe`, reached through auto-attach: `Target.setAutoAttach {flatten: true}` on the page session).
//!
//! Out-of-process iframes are followed by `oopifs`; this module answers for one frame. For a frame the
//! worker needs: the session its document lives in, where that session's viewport lies
//! in the page's (an OOPIF's coordinates start at its `<iframe>`'s content box), and its current
//! document (`loaderId`, to tell a stale ref).

use std::time::Duration;

use sb_cdp::Session;
use sb_protocol::ipc::WorkerError;
use sb_protocol::{Budget, Phase};
use serde_json::{json, Value};

use crate::error::cdp_failure;
use crate::oopifs::Oopif;
use crate::page::Page;

/// Longest one frame-related CDP call may take.
const STEP: Duration = Duration::from_millis(1_000);

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
    if let Some(oopif) = oopif {
        let tree = oopif
            .session
            .call_raw("Page.getFrameTree", json!({}), budget.capped(STEP))
            .await
            .map_err(fail)?;
        let loader = tree["frameTree"]["frame"]["loaderId"].as_str().unwrap_or_default().to_string();
        let Some(offset) = owner_offset(page, frame_id, budget).await? else { return Ok(None) };
        return Ok(Some((oopif.session, offset, loader)));
    }
    // A same-process frame: of the page's renderer, or of an out-of-process iframe's (whose
    // coordinates its quads are in).
    let tree =
        page.session.call_raw("Page.getFrameTree", json!({}), budget.capped(STEP)).await.map_err(fail)?;
    if let Some(loader) = find_loader(&tree["frameTree"], frame_id) {
        return Ok(Some((page.session.clone(), (0.0, 0.0), loader)));
    }
    let oopifs: Vec<(String, Oopif)> =
        page.oopifs.lock().unwrap().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    for (oopif_frame, oopif) in oopifs {
        let Ok(tree) = oopif.session.call_raw("Page.getFrameTree", json!({}), budget.capped(STEP)).await
        else {
            continue;
        };
        if let Some(loader) = find_loader(&tree["frameTree"], frame_id) {
            let Some(offset) = owner_offset(page, &oopif_frame, budget).await? else { return Ok(None) };
            return Ok(Some((oopif.session, offset, loader)));
        }
    }
    Ok(None)
}

/// The `loaderId` of `frame_id` in a `Page.getFrameTree` subtree.
pub(crate) fn find_loader(node: &Value, frame_id: &str) -> Option<String> {
    if node["frame"]["id"] == frame_id {
        return node["frame"]["loaderId"].as_str().map(str::to_string);
    }
    node["childFrames"].as_array()?.iter().find_map(|c| find_loader(c, frame_id))
}

/// The top-left corner of the content box of out-of-process frame `frame_id`'s `<iframe>` in the
/// page's viewport (`DOM.getFrameOwner`, `DOM.getBoxModel` in the renderer the `<iframe>` lives in,
/// plus that frame's own offset when it is out of process too); `Ok(None)` when it has none (gone,
/// or not rendered).
async fn owner_offset(
    page: &Page,
    frame_id: &str,
    budget: Budget,
) -> Result<Option<(f64, f64)>, WorkerError> {
    let mut offset = (0.0, 0.0);
    let mut frame = frame_id.to_string();
    // Up the chain of out-of-process frames (bounded: a chain never loops, but a map may change).
    for _ in 0..16 {
        let parent = page.oopifs.lock().unwrap().get(&frame).map(|o| o.parent.clone());
        let Some(parent) = parent else { return Ok(None) };
        let session = match &parent {
            None => page.session.clone(),
            Some(p) => match page.oopifs.lock().unwrap().get(p) {
                Some(o) => o.session.clone(),
                None => return Ok(None),
            },
        };
        let call = |method: &'static str, params: Value| {
            let session = session.clone();
            async move {
                match session.call_raw(method, params, budget.capped(STEP)).await {
                    Ok(v) => Ok(Some(v)),
                    Err(e) if e.is_timeout() => Err(cdp_failure(Phase::Actionability, e)),
                    Err(_) => Ok(None),
                }
            }
        };
        let Some(owner) = call("DOM.getFrameOwner", json!({"frameId": frame})).await? else {
            return Ok(None);
        };
        let Some(backend) = owner["backendNodeId"].as_i64() else { return Ok(None) };
        let Some(model) = call("DOM.getBoxModel", json!({"backendNodeId": backend})).await? else {
            return Ok(None);
        };
        let content = model["model"]["content"].as_array();
        let Some((x, y)) = content.and_then(|c| Some((c.first()?.as_f64()?, c.get(1)?.as_f64()?))) else {
            return Ok(None);
        };
        offset = (offset.0 + x, offset.1 + y);
        match parent {
            None => return Ok(Some(offset)),
            Some(p) => frame = p,
        }
    }
    Ok(None)
}

/// The page's frames (`Page.getFrameTree` of the page's session and of each out-of-process iframe's,
/// whose root frame names its parent): the main frame first, parents before children.
///
/// # Errors
/// A `Page.getFrameTree` that failed or ran out of time.
pub(crate) async fn list(
    page: &Page,
    budget: Budget,
) -> Result<Vec<sb_protocol::ipc::FrameRecord>, WorkerError> {
    let mut sessions = vec![page.session.clone()];
    sessions.extend(page.oopifs.lock().unwrap().values().map(|o| o.session.clone()));
    let mut frames = Vec::new();
    for session in sessions {
        let tree = session
            .call_raw("Page.getFrameTree", json!({}), budget.capped(STEP))
            .await
            .map_err(|e| cdp_failure(Phase::Cdp, e))?;
        collect(&tree["frameTree"], &mut frames);
    }
    Ok(frames)
}

/// `node`'s frame and its descendants into `out` (a frame already listed is replaced: an out-of-process
/// frame's own tree knows its URL best).
fn collect(node: &Value, out: &mut Vec<sb_protocol::ipc::FrameRecord>) {
    let f = &node["frame"];
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let info = sb_protocol::ipc::FrameRecord {
        frame_id: s(&f["id"]),
        parent_id: f["parentId"].as_str().map(str::to_string),
        name: s(&f["name"]),
        url: s(&f["url"]),
    };
    match out.iter_mut().find(|x| x.frame_id == info.frame_id) {
        Some(seen) => *seen = info,
        None => out.push(info),
    }
    for child in node["childFrames"].as_array().into_iter().flatten() {
        collect(child, out);
    }
}
