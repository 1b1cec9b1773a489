//! `tabs.*`: a session's tabs, as the harness sees them.
//!
//! A session's tab list lives in its entry ([`SessionEntry::tabs`]) and is brought up to date from
//! `Target.getTargets` when it is read ([`Sessions::current_tabs`]): popups join it, closed tabs leave
//! it. Focusing a tab runs `Action::Attach` in the session's queue, so the worker drives that tab from
//! then on; the tab it leaves keeps its flat session (its dialogs are still answered). A popup the
//! supervisor held with the session's settings until then (`sessions/watch.rs`) is handed over: the
//! worker takes the supervisor's session on it.

use std::sync::Arc;

use sb_protocol::api::{
    GotoResult, TabInfo, TabTargetParams, TabsCloseResult, TabsListResult, TabsOpenParams,
};
use sb_protocol::error::bad_request;
use sb_protocol::ipc::{Action, AttachedOutput};
use sb_protocol::{Budget, ErrorBody, Phase};

use crate::lifecycle::link::Link;
use crate::pipeline::call::Call;
use crate::pipeline::queue::Queue;
use crate::sessions::{cdp_error, close_target, tab_infos, SessionEntry, Sessions};

/// `tabs.list`: the session's tabs, popups included. A page reopened after a browser restart first
/// loads its URL (and a list read as the browser died waits for the recovery and reads again).
///
/// # Errors
/// The health check's; `Target.getTargets`'s (phase `session`).
pub async fn list(
    q: &Queue,
    session: &Arc<SessionEntry>,
    call: Call<'_>,
) -> Result<TabsListResult, ErrorBody> {
    let budget = call.budget;
    let link = q.health.link(budget).await?;
    let read = Sessions::current_tabs(session, &link, budget).await;
    // The browser died as the list was read (it only reads: it waits for the recovery and reads again),
    // or the session's page was reopened after a restart: the page loads its URL first, as it does
    // before a page action, so the list shows what the next action will act on.
    let died = read.is_err() && q.health.is_down().await;
    let infos = if (died || session.restore_pending()) && !budget.expired() {
        q.run(
            session,
            call,
            Action::call::<sb_protocol::api::call::PageFrames>(&sb_protocol::fields::NoParams {}, None),
        )
        .await?;
        let link = q.health.link(budget).await?;
        Sessions::current_tabs(session, &link, budget).await?
    } else {
        read?
    };
    Ok(TabsListResult { tabs: tab_infos(session, &infos) })
}

/// `tabs.open {url?}`: a new tab in a window of its own, which becomes the active one, then loaded
/// at `url` as `page.goto` loads it. The tab is made at `about:blank` and the worker attaches to it
/// (setting the session's viewport and emulation) before it navigates, so the page's first request
/// and first script see what the session emulates (its user agent, language, time zone, viewport),
/// as a page of a Playwright context does, and as Playwright MCP's `browser_tabs` opens a tab
/// (`context.newPage()`, then `navigate`): a tab made at its URL loaded it before the attach.
///
/// # Errors
/// The health check's; `Target.createTarget`'s (phase `session`); the attach's; the navigation's, as
/// `page.goto`'s (the tab stays open and active).
pub async fn open(
    q: &Queue,
    session: &Arc<SessionEntry>,
    p: TabsOpenParams,
    call: Call<'_>,
) -> Result<TabInfo, ErrorBody> {
    let budget = call.budget;
    let link = q.health.link(budget).await?;
    let context = q.sessions.context(session, &link, budget).await?;
    let target_id = link
        .client
        .create_target("about:blank", true, Some(&context), budget.remaining())
        .await
        .map_err(|e| cdp_error(Phase::Session, "Target.createTarget", e))?;
    session.add_tab(target_id.clone());
    let tab = focus_tab(q, session, target_id, call).await?;
    let Some(url) = p.url.filter(|u| u != "about:blank") else { return Ok(tab) };
    let loaded: GotoResult = q.run(session, call, Action::Goto { url }).await?.into_kind()?;
    q.sessions.url_seen(session, &loaded.url).await;
    Ok(TabInfo { url: loaded.url, title: loaded.title, ..tab })
}

/// `tabs.focus {target_id}`: page actions go to that tab from now on.
///
/// # Errors
/// `tab_not_found`, `ambiguous_target`; the attach's.
pub async fn focus(
    q: &Queue,
    session: &Arc<SessionEntry>,
    p: TabTargetParams,
    call: Call<'_>,
) -> Result<TabInfo, ErrorBody> {
    let (_, target_id) = named_tab(q, session, &p, call.budget).await?;
    focus_tab(q, session, target_id, call).await
}

/// `tabs.close {target_id}`: closes a tab (not the last: close the session); closing the active one
/// makes the newest remaining tab active.
///
/// # Errors
/// `tab_not_found`, `ambiguous_target`, `bad_request` for the last tab; the attach's.
pub async fn close(
    q: &Queue,
    session: &Arc<SessionEntry>,
    p: TabTargetParams,
    call: Call<'_>,
) -> Result<TabsCloseResult, ErrorBody> {
    let budget = call.budget;
    let (link, target_id) = named_tab(q, session, &p, budget).await?;
    if session.tabs().len() == 1 {
        return Err(bad_request(format!(
            "{target_id} is the session's last tab; close the session instead (session.close)"
        )));
    }
    close_target(&link.client, &target_id, budget.remaining()).await;
    session.remove_tab(&target_id);
    let mut active = session.target();
    if active == target_id {
        let next = session.tabs().last().map(|t| t.target_id.clone()).unwrap_or_default();
        active = focus_tab(q, session, next, call).await?.target_id;
    }
    Ok(TabsCloseResult { closed: target_id, active })
}

/// The browser link and the `targetId` of the session's tab that `p` names, after the tab list is
/// brought up to date.
///
/// # Errors
/// The health check's; `tab_not_found`, `ambiguous_target`.
async fn named_tab(
    q: &Queue,
    session: &Arc<SessionEntry>,
    p: &TabTargetParams,
    budget: Budget,
) -> Result<(Link, String), ErrorBody> {
    let link = q.health.link(budget).await?;
    Sessions::current_tabs(session, &link, budget).await?;
    Ok((link, session.find_tab(&p.target_id)?))
}

/// Makes `target_id` (one of the session's tabs) the one its page actions go to.
async fn focus_tab(
    q: &Queue,
    session: &Arc<SessionEntry>,
    target_id: String,
    call: Call<'_>,
) -> Result<TabInfo, ErrorBody> {
    let opener_id = session.tabs().into_iter().find(|t| t.target_id == target_id).and_then(|t| t.opener_id);
    // A popup the supervisor held with the session's settings: the worker takes its session over, so
    // the page keeps them throughout (a session that detaches takes its overrides with it).
    let held = session.release(&target_id);
    let held_session = held.as_ref().map(|s| s.id().to_string());
    let held_scripts = held_session.as_deref().map(sb_worker::scripts_on).unwrap_or_default();
    let action = Action::Attach { target_id: target_id.clone(), held_session, held_scripts };
    let ran = q.run(session, call, action).await;
    if let Some(held) = held {
        Sessions::handed_over(held);
    }
    let attached: AttachedOutput = ran?.into_kind()?;
    q.sessions.url_seen(session, &attached.url).await;
    Ok(TabInfo { target_id, url: attached.url, title: attached.title, active: true, opener_id })
}
