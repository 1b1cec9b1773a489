//! Frames: same-process iframes (reached through the page's own session, `frameId`) and out-of-process
//! iframes (OOPIFs: a cross-site iframe runs in a renderer of its own and is a CDP target of type
//! `iframe`, reached through auto-attach: `Target.setAutoAttach {flatten: true}` on the page session).
//!
//! Out-of-process iframes are followed by `oopifs`; this module answers for one frame. For a frame the
//! worker needs: the session its document lives in, where that session's viewport lies
//! in the page's (an OOPIF's coordinates start at its `<iframe>`'s content box), and its current
//! document (`loaderId`, to tell a stale ref).

use futures_util::StreamExt;
use sb_cdp::{CdpError, Session};
use sb_protocol::ipc::WorkerError;
use sb_protocol::{Budget, Phase};

use crate::error::cdp_failure;
use crate::progress::Progress;
use crate::tab::page::Page;

/// What the worker needs of a frame: its session, its viewport's offset in the page's, its document.
pub(crate) type FrameContext = (Session, (f64, f64), String);

/// `(session, offset, loaderId)` of frame `frame_id` now; `Ok(None)` when the frame is gone.
///
/// # Errors
/// A CDP call that failed or ran out of time (never reported as a gone frame).
pub(crate) async fn context(
    page: &Page,
    frame_id: &str,
    p: &Progress,
) -> Result<Option<FrameContext>, WorkerError> {
    let budget = p.budget();
    let fail = |e| cdp_failure(Phase::Actionability, e);
    if frame_id == page.target_id {
        // The main frame's document is followed from its lifecycle events: no call needed.
        let loader = page.lifecycle.borrow().loader_id.clone();
        if !loader.is_empty() {
            return Ok(Some((page.session.clone(), (0.0, 0.0), loader)));
        }
    }
    // The calls below ask the page's renderers: said, so that a timeout names it.
    p.log_once(format!("finding frame {frame_id}'s document"));
    let oopif = page.oopifs.lock().unwrap().get(frame_id).cloned();
    if let Some(oopif) = oopif {
        let tree = oopif.session.frame_tree(budget.remaining()).await.map_err(fail)?;
        let loader = tree.frame.loader_id;
        let Some(offset) = owner_offset(page, frame_id, budget).await? else { return Ok(None) };
        return Ok(Some((oopif.session, offset, loader)));
    }
    // A same-process frame: of the page's renderer, or of an out-of-process iframe's (whose
    // coordinates its quads are in).
    let tree = page.session.frame_tree(budget.remaining()).await.map_err(fail)?;
    if let Some(frame) = tree.find(frame_id) {
        return Ok(Some((page.session.clone(), (0.0, 0.0), frame.loader_id.clone())));
    }
    // Every out-of-process iframe's tree is asked at once and the first that holds the frame answers:
    // a renderer that does not answer (an iframe of another site stuck in a script or a synchronous
    // request) holds up only a frame that is in it, not one of another renderer's.
    let mut trees: futures_util::stream::FuturesUnordered<_> = page
        .oopifs
        .lock()
        .unwrap()
        .iter()
        .map(|(oopif_frame, oopif)| {
            let (oopif_frame, oopif) = (oopif_frame.clone(), oopif.clone());
            async move {
                let tree = oopif.session.frame_tree(budget.remaining()).await;
                (oopif_frame, oopif, tree)
            }
        })
        .collect();
    let mut unanswered = None;
    while let Some((oopif_frame, oopif, tree)) = trees.next().await {
        let tree = match tree {
            Ok(tree) => tree,
            // One that ran out of time may hold the frame: if no other does, the action's timeout,
            // not a frame gone.
            Err(e) if e.is_timeout() => {
                unanswered = Some(e);
                continue;
            }
            Err(_) => continue,
        };
        if let Some(frame) = tree.find(frame_id) {
            let loader = frame.loader_id.clone();
            let Some(offset) = owner_offset(page, &oopif_frame, budget).await? else { return Ok(None) };
            return Ok(Some((oopif.session, offset, loader)));
        }
    }
    match unanswered {
        Some(e) => Err(cdp_failure(Phase::Actionability, e)),
        None => Ok(None),
    }
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
        let Some(backend) = gone(session.frame_owner(&frame, budget.remaining()).await)? else {
            return Ok(None);
        };
        let Some(model) = gone(session.get_box_model(backend, budget.remaining()).await)? else {
            return Ok(None);
        };
        let (Some(&x), Some(&y)) = (model.content.first(), model.content.get(1)) else { return Ok(None) };
        offset = (offset.0 + x, offset.1 + y);
        match parent {
            None => return Ok(Some(offset)),
            Some(p) => frame = p,
        }
    }
    Ok(None)
}

/// A call's answer, `None` when it failed but for a timeout (the frame or its box is gone); a timeout
/// is a failure.
fn gone<T>(r: Result<T, CdpError>) -> Result<Option<T>, WorkerError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_timeout() => Err(cdp_failure(Phase::Actionability, e)),
        Err(_) => Ok(None),
    }
}

/// The page's frames (`Page.getFrameTree` of the page's session and of each out-of-process iframe's,
/// whose root frame names its parent): the main frame first, parents before children.
///
/// # Errors
/// A `Page.getFrameTree` that failed or ran out of time.
pub(crate) async fn list(
    page: &Page,
    budget: Budget,
) -> Result<Vec<sb_protocol::api::FrameInfo>, WorkerError> {
    let mut sessions = vec![page.session.clone()];
    sessions.extend(page.oopifs.lock().unwrap().values().map(|o| o.session.clone()));
    let mut frames = Vec::new();
    for session in sessions {
        let tree = session.frame_tree(budget.remaining()).await.map_err(|e| cdp_failure(Phase::Cdp, e))?;
        // A frame already listed is replaced: an out-of-process frame's own tree knows its URL best,
        // once it has committed a document. Before (a target attached while its first navigation
        // commits), its tree says `""`: the parent's entry stays (issue 57 §3: `page.frames` gave a
        // child's URL as `""` once under load).
        for f in tree.frames() {
            let info = sb_protocol::api::FrameInfo {
                frame_id: f.id.clone(),
                parent_id: f.parent_id.clone(),
                name: f.name.clone(),
                url: f.url.clone(),
            };
            match frames.iter_mut().find(|x: &&mut sb_protocol::api::FrameInfo| x.frame_id == info.frame_id) {
                Some(_) if info.url.is_empty() => {}
                Some(seen) => *seen = info,
                None => frames.push(info),
            }
        }
    }
    Ok(frames)
}
