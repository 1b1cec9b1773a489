//! The action table: each [`Action`] to its handler, with a read retried in the new document when
//! its document went away under it.

use std::time::Duration;

use sb_protocol::ipc::{Action, AttachedOutput, DialogPolicyOutput, Display, Output, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};

use super::{actions, calls, evaluate, har, history, wait};
use crate::error::{cdp_failure, fail};
use crate::inputs::interact;
use crate::progress::Progress;
use crate::tab::page::{url_and_title, Moved, Page};
use crate::tab::{emulate, page};
use crate::{error, progress, snapshot};

/// The action within `p`. A read of the page (snapshot, screenshot, a call that reads) whose
/// document went away under it ([`error::went_away`]: a navigation, a page that reloads itself) is
/// read again in the new document while the budget lasts, as Playwright's reads wait across a
/// navigation; it answered `cdp_error` "Cannot find context with specified id" at once.
pub(crate) async fn act(page: &mut Page, action: Action, p: &Progress) -> Result<Output, WorkerError> {
    let rereads = match &action {
        Action::Call { method, .. } => calls::rereads(method),
        other => matches!(other, Action::Snapshot { .. } | Action::Screenshot { .. }),
    };
    if !rereads {
        return act_once(page, action, p).await;
    }
    loop {
        match act_once(page, action.clone(), p).await {
            Err(e) if error::went_away(&e) && !p.budget().expired() => {
                p.log(format!(
                    "the page navigated during the read ({}); reading the new document",
                    e.message
                ));
                tokio::time::sleep(p.budget().capped(REREAD_PAUSE)).await;
            }
            outcome => return outcome,
        }
    }
}

/// The pause before a read whose document went away is tried again ([`act`]): the new document's
/// first calls.
const REREAD_PAUSE: Duration = Duration::from_millis(20);

/// The action itself within `p`, once. An action that failed gets its cleanups run first
/// (`Progress::abort`).
async fn act_once(page: &mut Page, action: Action, p: &Progress) -> Result<Output, WorkerError> {
    let outcome = match action {
        Action::Call { method, params, target } => {
            calls::call(page, &method, params, target.as_ref(), p).await
        }
        Action::Goto { url } => actions::goto(page, &url, p).await,
        Action::History { delta } => history::go(page, delta, p).await,
        Action::Reload => history::reload(page, p).await,
        Action::Screenshot { params, path, target } => {
            actions::screenshot(page, &params, target.as_ref(), &path, p).await
        }
        Action::FillForm { fields } => interact::fill_form(page, &fields, p).await,
        Action::Upload { target, paths, names, bytes } => {
            actions::upload(page, target.as_ref(), paths, names, bytes, p).await
        }
        Action::Pdf { params, path } => actions::pdf(page, &params, &path, p).await,
        Action::Evaluate { expression, frame, arg_json } => {
            evaluate::evaluate(page, &expression, frame.as_ref(), arg_json.as_deref(), p).await
        }
        Action::CallFunction { function, target, frame, arg_json } => {
            let call = evaluate::FunctionCall {
                function: &function,
                target: target.as_ref(),
                arg_json: arg_json.as_deref(),
            };
            evaluate::call_function(page, call, frame.as_ref(), p).await
        }
        Action::Scroll { dx, dy } => actions::scroll(page, dx, dy, p).await,
        Action::WaitFor { condition } => wait::wait_for(page, &condition, p).await,
        Action::Snapshot { options, next_ref } => snapshot::snapshot(page, &options, next_ref, p).await,
        Action::Input { target, input, settle_ms } => {
            interact::act(page, target.as_ref(), &input, settle_ms, p).await
        }
        Action::HandleDialog { accept, prompt_text } => {
            page.dialogs.set_next(accept, prompt_text);
            Ok(Output::DialogPolicy(DialogPolicyOutput { accept }))
        }
        Action::Attach { target_id, held_session, held_scripts } => {
            if let Some(id) = &held_session {
                emulate::adopt_scripts(id, held_scripts);
            }
            switch_to(page, &target_id, held_session.as_deref(), p.budget()).await
        }
        Action::SetDisplay { display } => set_display(page, display, p.budget()).await,
        Action::Emulate { emulation } => {
            if emulation.timezone != page.emulation.timezone {
                if let Some(zone) = emulation.timezone.as_deref().filter(|z| !z.is_empty()) {
                    check_time_zone(page, zone, p.budget()).await?;
                }
            }
            let set = emulate::apply(
                &page.browser,
                &page.session,
                &page.target_id,
                None,
                &page.emulation,
                &emulation,
                p.budget(),
            )
            .await;
            set.map_err(|e| match e {
                sb_cdp::CdpError::Protocol { message, .. } => fail(
                    ErrorCode::BadRequest,
                    Phase::Cdp,
                    format!("page.emulate: Chromium refused it: {message}"),
                ),
                e => cdp_failure(Phase::Cdp, e),
            })?;
            page.emulation = emulation.clone();
            // Init scripts, routes and credentials hold in every tab of the session, as
            // Playwright's context-wide ones do: the tabs left in the background and every
            // out-of-process iframe take them now, not when they are next active.
            let mut others: Vec<sb_cdp::Session> =
                page.oopifs.lock().unwrap().values().map(|o| o.session.clone()).collect();
            for left in page.left.values() {
                others.push(left.attached.session.clone());
                others.extend(left.attached.oopifs.lock().unwrap().values().map(|o| o.session.clone()));
            }
            // As `apply` just set them on the active tab (its scripts and compiled routes, kept in
            // this process for the sessions that join later).
            let left = p.budget().remaining();
            let synced = others.iter().map(|s| emulate::extend_to(s, left));
            // A tab that closed meanwhile has nothing to intercept.
            let _ = futures_util::future::join_all(synced).await;
            Ok(Output::Emulate(sb_protocol::api::EmulateResult { emulation }))
        }
        Action::Har { params, path: None } => har::start(page, &params),
        Action::Har { path: Some(path), .. } => har::stop(page, &path, p).await,
    };
    // The elements the action resolved are the page's again: what it removes can be collected.
    page.release_objects();
    match outcome {
        Err(e) => {
            p.abort(progress::CLEANUP_TIME).await;
            // A timeout names what was tried, as Playwright's call log does: the steps the action's
            // leaves logged (the last one is where the time went).
            Err(if e.code == ErrorCode::Timeout { p.with_steps(e) } else { e })
        }
        ok => ok,
    }
}

/// `page.set_viewport`: the page's display now (`Emulation.setDeviceMetricsOverride`), and every page's
/// the worker attaches to from now on.
async fn set_display(page: &mut Page, display: Display, budget: Budget) -> Result<Output, WorkerError> {
    page::set_display(&page.session, display, budget).await.map_err(|e| cdp_failure(Phase::Cdp, e))?;
    page.viewport = Some(display);
    Ok(Output::Display(display))
}

/// Attaches to another tab of the session and drives it from now on (`tabs.focus`).
///
/// A tab the worker drove before is driven through the session it kept there, given the display and
/// emulation the session has now; any other is attached to (taking over `held`, the supervisor's
/// session on it, when given). Each focus attached anew before: every switch back left one more
/// session on the tab, each with its own followers and dialog watcher.
async fn switch_to(
    page: &mut Page,
    target_id: &str,
    held: Option<&str>,
    budget: Budget,
) -> Result<Output, WorkerError> {
    let failed = |e| cdp_failure(Phase::Session, e);
    if target_id != page.target_id {
        let kept = page.left.remove(target_id).filter(|_| held.is_none());
        let attached = match kept {
            Some(left) => {
                let display = page.viewport.filter(|_| left.viewport != page.viewport);
                let (session, before) = (&left.attached.session, &left.emulation);
                emulate::apply(&page.browser, session, target_id, display, before, &page.emulation, budget)
                    .await
                    .map_err(failed)?;
                left.attached
            }
            None => page.attach_another(target_id, held, budget).await.map_err(failed)?,
        };
        let leaving = page::Left {
            attached: page.attached(),
            viewport: page.viewport,
            emulation: page.emulation.clone(),
        };
        page.left.insert(page.target_id.clone(), leaving);
        page.adopt(target_id, attached, Moved::Tab);
    }
    let (url, title, _) = url_and_title(page, budget).await;
    let url = url.unwrap_or_default();
    page.reported_url = url.clone();
    Ok(Output::Attached(AttachedOutput { url, title: title.unwrap_or_default() }))
}
/// Whether the page's renderer knows time zone `zone` (`Intl.DateTimeFormat` throws a `RangeError`
/// for one its ICU data lacks, the data `Emulation.setTimezoneOverride` reads), in the runtime's
/// isolated world.
///
/// Chromium checks the id only when a renderer has no override yet: one already in force is changed
/// to an unknown id without a word (the page keeps the old zone), and every tab opened after that
/// (`tabs.open`, a popup) failed as its first override was refused ("Invalid timezone id").
///
/// # Errors
/// `bad_request` naming the zone when it is unknown; a CDP failure or timeout.
pub(crate) async fn check_time_zone(page: &Page, zone: &str, budget: Budget) -> Result<(), WorkerError> {
    let call = sb_cdp::calls::CallFunctionOn {
        function_declaration: "function(zone) { try { new Intl.DateTimeFormat('en-US', { timeZone: zone }); return true; } catch (e) { return false; } }".into(),
        arguments: vec![serde_json::json!({ "value": zone })],
        return_by_value: true,
        ..sb_cdp::calls::CallFunctionOn::default()
    };
    let r = page.worlds.call(&page.session, &page.target_id, call, budget).await;
    let known = r.map_err(|e| cdp_failure(Phase::Cdp, e))?.result.value;
    if known != Some(serde_json::Value::Bool(true)) {
        let message = format!(
            "page.emulate: unknown time zone {zone:?}; give an IANA id (Europe/Paris, America/New_York, UTC)"
        );
        return Err(fail(ErrorCode::BadRequest, Phase::Request, message));
    }
    Ok(())
}
