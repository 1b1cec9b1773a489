//! Out-of-process iframes (OOPIFs): a cross-site iframe runs in a renderer of its own and is a CDP
//! target of type `iframe`, reached through auto-attach (`Target.setAutoAttach {flatten: true}` on the
//! page session), held until it is set up: the session's init scripts and request interception are in
//! before its first document runs. This module follows them as they attach and detach, at any depth.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sb_cdp::commands::{RuntimeRunIfWaitingForDebugger, TargetSetAutoAttach};
use sb_cdp::types::{AttachedToTarget, DetachedFromTarget};
use sb_cdp::{CdpClient, Session};

/// Longest one auto-attach CDP call may take.
const STEP: Duration = Duration::from_millis(1_000);

/// An out-of-process iframe attached under a page: its session, and the out-of-process frame its
/// `<iframe>` element lives in (`None`: the page's own renderer; else that frame's id).
#[derive(Clone)]
pub(crate) struct Oopif {
    pub(crate) session: Session,
    pub(crate) parent: Option<String>,
}

/// The out-of-process iframes attached under a page, at any depth, by frame id (= their target id).
pub(crate) type Oopifs = Arc<Mutex<HashMap<String, Oopif>>>;

/// Follows `Target.attachedToTarget` / `Target.detachedFromTarget` of iframe targets on `session`
/// (subscribe before `Target.setAutoAttach`, which attaches the existing ones at once). Each iframe
/// attached gets auto-attach too, so an out-of-process iframe inside one is followed as well.
pub(crate) fn track_oopifs(browser: &CdpClient, session: &Session) -> Oopifs {
    let oopifs: Oopifs = Arc::default();
    follow(browser.clone(), session, None, oopifs.clone());
    oopifs
}

/// Follows the iframe targets attached to `session` (the frame `parent`, `None` for the page).
fn follow(browser: CdpClient, session: &Session, parent: Option<String>, found: Oopifs) {
    let mut events = session.events();
    tokio::spawn(async move {
        while let Some(ev) = events.recv().await {
            match ev.method.as_str() {
                "Target.attachedToTarget" => {
                    let Some(attached) = ev.parse::<AttachedToTarget>() else { continue };
                    let child = browser.session(attached.session_id);
                    if attached.target_info.kind != "iframe" {
                        // A worker of the page: nothing to set up, it runs at once.
                        if attached.waiting_for_debugger {
                            tokio::spawn(child.send(&RuntimeRunIfWaitingForDebugger {}, STEP));
                        }
                        continue;
                    }
                    let target = attached.target_info.target_id;
                    found
                        .lock()
                        .unwrap()
                        .insert(target.clone(), Oopif { session: child.clone(), parent: parent.clone() });
                    // Its own out-of-process iframes: followed before auto-attach reports them.
                    follow(browser.clone(), &child, Some(target), found.clone());
                    // Held until the session's init scripts, routes and credentials are in, so they
                    // hold from the frame's first document (its own iframes held the same way).
                    let waiting = attached.waiting_for_debugger;
                    tokio::spawn(async move {
                        let auto = child.send(&TargetSetAutoAttach::children_held(), STEP);
                        let set_up = crate::tab::emulate::extend_to(&child, STEP);
                        let _ = futures_util::join!(auto, set_up);
                        if waiting {
                            let _ = child.send(&RuntimeRunIfWaitingForDebugger {}, STEP).await;
                        }
                    });
                }
                "Target.detachedFromTarget" => {
                    let Some(DetachedFromTarget { session_id }) = ev.parse() else { continue };
                    let id = session_id.as_str();
                    // The frame and the out-of-process frames inside it go; their events end, so
                    // the tasks following them stop.
                    for session in forget(&found, id) {
                        crate::tab::emulate::forget_scripts(&session);
                        browser.forget_session(&session);
                    }
                }
                _ => {}
            }
        }
    });
}

/// Removes the frame of session `session_id` and every out-of-process frame inside it from `found`;
/// their session ids.
fn forget(found: &Oopifs, session_id: &str) -> Vec<String> {
    let mut found = found.lock().unwrap();
    let mut frames: Vec<String> =
        found.iter().filter(|(_, o)| o.session.id() == session_id).map(|(f, _)| f.clone()).collect();
    let mut sessions = Vec::new();
    while let Some(frame) = frames.pop() {
        if let Some(o) = found.remove(&frame) {
            sessions.push(o.session.id().to_string());
        }
        frames
            .extend(found.iter().filter(|(_, o)| o.parent.as_ref() == Some(&frame)).map(|(f, _)| f.clone()));
    }
    sessions
}
