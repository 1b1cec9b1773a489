//! Out-of-process iframes (OOPIFs): a cross-site iframe runs in a renderer of its own and is a CDP
//! target of type `iframe`, reached through auto-attach (`Target.setAutoAttach {flatten: true}` on the
//! page session). This module follows them as they attach and detach, at any depth.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sb_cdp::commands::TargetSetAutoAttach;
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
                    if attached.target_info.kind != "iframe" {
                        continue;
                    }
                    let target = attached.target_info.target_id;
                    let child = browser.session(attached.session_id);
                    found
                        .lock()
                        .unwrap()
                        .insert(target.clone(), Oopif { session: child.clone(), parent: parent.clone() });
                    // Its own out-of-process iframes: followed before auto-attach reports them.
                    follow(browser.clone(), &child, Some(target), found.clone());
                    let auto = child.send(&TargetSetAutoAttach::flat(), STEP);
                    tokio::spawn(auto);
                    // The session's routes and credentials hold in the frame's own requests too.
                    tokio::spawn(async move { crate::intercept::sync(&child, STEP).await });
                }
                "Target.detachedFromTarget" => {
                    let Some(DetachedFromTarget { session_id }) = ev.parse() else { continue };
                    let id = session_id.as_str();
                    // The frame and the out-of-process frames inside it go; their events end, so
                    // the tasks following them stop.
                    for session in forget(&found, id) {
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
