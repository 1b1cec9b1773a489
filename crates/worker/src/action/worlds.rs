//! The JavaScript world a caller's script runs in: the main world (the page's own globals, as
//! Playwright's `frame.evaluate` uses) of the main frame or of a frame the caller names
//! (`page.evaluate {frame}`).
//!
//! A frame's main world is an execution context of the renderer the frame lives in: the page's, or
//! an out-of-process iframe's session. In a frame that is the top of its session (the page, an
//! OOPIF) it is the session's default context, so no id is needed. For a child frame in the same
//! process the context id is read as Playwright's `crPage.ts` does, from
//! `Runtime.executionContextCreated {context: {auxData: {frameId, isDefault: true}}}`: on the page's
//! session, where `Runtime` stays enabled, the journal keeps them as they come; an out-of-process
//! iframe's session keeps `Runtime` off, so it is enabled there for the moment of the lookup
//! (`Runtime.enable` reports every existing context before it answers).

use std::time::Duration;

use sb_cdp::commands::{RuntimeDisable, RuntimeEnable};
use sb_cdp::types::ExecutionContextCreated;
use sb_cdp::Session;
use sb_protocol::ipc::{FrameTarget, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};

use crate::elements::resolve::resolve;
use crate::error::{cdp_failure, fail};
use crate::progress::Progress;
use crate::tab::frames;
use crate::tab::page::Page;

/// Longest a same-process frame's main-world context is waited for: a frame without a document never
/// gets one, and that is an answer (the frame is not found), not the action's timeout.
const CONTEXT_WAIT: Duration = Duration::from_millis(1_000);

/// Where a script runs: the session, and the execution context (`None`: the session's default, its
/// top frame's main world).
pub(crate) struct World {
    pub(crate) session: Session,
    pub(crate) context_id: Option<i64>,
}

/// The main world of `target` (`None`: the main frame's).
///
/// # Errors
/// `bad_request` for a ref that is not a frame's owner or a frame id the page does not have;
/// `stale_ref` for a ref of an earlier document; a CDP failure or timeout.
pub(crate) async fn main_world(
    page: &Page,
    target: Option<&FrameTarget>,
    p: &Progress,
) -> Result<World, WorkerError> {
    let budget = p.budget();
    let phase = Phase::Evaluate;
    let frame_id = match target {
        None => return Ok(World { session: page.session.clone(), context_id: None }),
        Some(FrameTarget::Id(id)) => id.clone(),
        Some(FrameTarget::Owner(locator)) => {
            let owner = resolve(page, locator, p).await?.ok_or_else(|| {
                fail(ErrorCode::BadRequest, phase, "the frame's element is not in the page")
            })?;
            let node = owner.session.describe_node(&owner.object_id, budget.remaining()).await;
            let node = node.map_err(|e| cdp_failure(phase, e))?;
            node.frame_id.ok_or_else(|| {
                fail(ErrorCode::BadRequest, phase, format!("{} is not an <iframe> or <frame>", owner.label))
            })?
        }
    };
    let not_found = || {
        fail(
            ErrorCode::BadRequest,
            phase,
            format!("the page has no frame {frame_id} (page.frames lists the frames)"),
        )
    };
    let (session, _, _) = frames::context(page, &frame_id, p).await?.ok_or_else(not_found)?;
    let top = frame_id == page.target_id || page.oopifs.lock().unwrap().contains_key(&frame_id);
    if top {
        return Ok(World { session, context_id: None });
    }
    let context_id = if session.id() == page.session.id() {
        // At most a small call's time: a frame without a document never gets one.
        page.journal.context_by(&frame_id, Budget::new(budget.capped(CONTEXT_WAIT))).await
    } else {
        default_context(&session, &frame_id, budget).await?
    };
    let context_id = context_id.ok_or_else(not_found)?;
    Ok(World { session, context_id: Some(context_id) })
}

/// The id of the main-world context of same-process frame `frame_id` in `session`
/// (`Runtime.enable`, whose replayed `Runtime.executionContextCreated` events name it, then
/// `Runtime.disable`); `None` when the frame has none (gone, or its document not created yet).
async fn default_context(
    session: &Session,
    frame_id: &str,
    budget: Budget,
) -> Result<Option<i64>, WorkerError> {
    let mut events = session.events();
    let enabled = session.run(&RuntimeEnable {}, budget.remaining()).await;
    let _ = session.run(&RuntimeDisable {}, budget.remaining()).await;
    enabled.map_err(|e| cdp_failure(Phase::Evaluate, e))?;
    let mut found = None;
    while let Some(ev) = events.try_recv() {
        if ev.method != "Runtime.executionContextCreated" {
            continue;
        }
        let Some(ExecutionContextCreated { context }) = ev.parse() else { continue };
        if context.aux_data.frame_id == frame_id && context.aux_data.is_default {
            // The last one reported is the frame's current document's.
            found = Some(context.id);
        }
    }
    Ok(found)
}
