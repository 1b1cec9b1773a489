//! `page.wait_for`: wait until a condition holds or the budget runs out, reacting to the page.
//!
//! Every condition but `networkidle` and `time_ms` is a test run by an in-page waiter (`wait.js`): it
//! checks on every DOM mutation, animation frame, `readystatechange` and `load` (and a 100 ms tick),
//! and resolves once the test holds or its time (the budget) is up; one `Runtime.callFunctionOn` of one
//! source for every wait (`Runtime.evaluate` for the caller's own function) awaits it.
//! A navigation during the wait destroys the waiter's document: the wait goes on in the new one.
//! `networkidle` is Chromium's own lifecycle event for the main frame (`Page.lifecycleEvent`
//! `networkIdle`), tracked by `lifecycle`.

use std::time::Duration;

use sb_cdp::calls::{CallFunctionOn, Evaluate};
use sb_protocol::api::WaitForResult;
use sb_protocol::api::{ElementState, LoadState};
use sb_protocol::ipc::{Output, WaitCondition, WorkerError};
use sb_protocol::{ErrorCode, Phase};
use serde_json::{json, Value};

use crate::elements::resolve::{QUERY, VISIBLE};
use crate::error::{cdp_failure, context_lost, fail};
use crate::progress::Progress;
use crate::tab::page::{url_and_title, Page};

/// The in-page waiter: `(test, timeoutMs) => Promise<{ok} | {error}>`.
const WAITER: &str = include_str!("wait.js");

/// Time the waiter's own clock ends before the budget, so that its `{ok: false}` (not the CDP call's
/// timeout) answers.
const SETTLE: Duration = Duration::from_millis(10);

/// Longest the wait for a new document takes before the waiter is tried again in it.
const NEW_DOCUMENT: Duration = Duration::from_millis(100);

/// Waits for `condition` within the action's budget.
///
/// Errors: `timeout` (phase `wait`) naming the condition, at the deadline; `bad_request` for an invalid
/// selector; `evaluate_error` when a `function` throws.
pub(crate) async fn wait_for(
    page: &Page,
    condition: &WaitCondition,
    p: &Progress,
) -> Result<Output, WorkerError> {
    let budget = p.budget();
    let phase = Phase::Wait;
    let what = describe(condition);
    let not_met = || fail(ErrorCode::Timeout, phase, format!("wait_for {what}: not met within the budget"));
    match condition {
        WaitCondition::Time(ms) => {
            let wanted = Duration::from_millis(*ms);
            if wanted > budget.remaining() {
                return Err(fail(
                    ErrorCode::Timeout,
                    phase,
                    format!("wait_for {ms} ms is longer than the budget; raise timeout_ms"),
                ));
            }
            tokio::time::sleep(wanted).await;
        }
        WaitCondition::Dialog => {
            let answered = budget.wait_notified(&page.dialogs.opened, || page.dialogs.any().then_some(()));
            answered.await.ok_or_else(not_met)?;
        }
        WaitCondition::Response(glob) => {
            let pattern =
                sb_protocol::pattern::url_pattern(glob).map_err(|e| fail(ErrorCode::BadRequest, phase, e))?;
            let response = budget.wait_notified(&page.journal.changed, || page.journal.response(&pattern));
            let response = response.await.ok_or_else(not_met)?;
            let url = url_and_title(page, budget).await.0.unwrap_or_default();
            return Ok(Output::WaitFor(WaitForResult {
                matched: what,
                url,
                response: Some(Box::new(response)),
                download: None,
                popup: None,
            }));
        }
        WaitCondition::Download | WaitCondition::Popup => {
            return Err(fail(
                ErrorCode::Internal,
                phase,
                format!("wait_for {what} is the supervisor's to answer"),
            ));
        }
        WaitCondition::LoadState(LoadState::NetworkIdle) => {
            let mut lifecycle = page.lifecycle.clone();
            if !crate::tab::lifecycle::wait_until(&mut lifecycle, budget.remaining(), |l| {
                l.has("networkIdle")
            })
            .await
            {
                return Err(not_met());
            }
        }
        _ => {
            let mut navigations = 0;
            loop {
                let wait_ms = budget.remaining().saturating_sub(SETTLE).as_millis() as u64;
                let mut lifecycle = page.lifecycle.clone();
                lifecycle.borrow_and_update();
                let waited = match (in_page_test(condition), page.journal.context(&page.target_id)) {
                    // The one waiter source, called with the condition (compiled once a document).
                    (Some((kind, arg)), Some(context)) => {
                        let call = CallFunctionOn {
                            function_declaration: WAIT_FN.clone(),
                            execution_context_id: Some(context),
                            arguments: vec![
                                json!({"value": kind}),
                                json!({"value": arg}),
                                json!({"value": wait_ms}),
                            ],
                            return_by_value: true,
                            await_promise: true,
                            ..CallFunctionOn::default()
                        };
                        page.session.call_function_on(&call, budget.remaining()).await
                    }
                    // The main world's context not seen yet (a document on its way), or the caller's
                    // own function: an expression in the default context.
                    (Some((kind, arg)), None) => {
                        let (kind, arg) = (Value::from(kind), Value::from(arg));
                        let call = Evaluate::by_value(format!("({})({kind}, {arg}, {wait_ms})", *WAIT_FN));
                        page.session
                            .evaluate(&Evaluate { user_gesture: false, ..call }, budget.remaining())
                            .await
                    }
                    (None, _) => {
                        let test = function_test(condition);
                        let call = Evaluate::by_value(format!("({WAITER})({test}, {wait_ms})"));
                        page.session
                            .evaluate(&Evaluate { user_gesture: false, ..call }, budget.remaining())
                            .await
                    }
                };
                match waited {
                    Ok(r) => {
                        if let Some(details) = r.exception_details {
                            return Err(thrown(condition, details.message()));
                        }
                        // The waiter's answer: `{ok: true}`, or `{error}` when the condition threw.
                        #[derive(serde::Deserialize, Default)]
                        #[serde(default)]
                        struct Waited {
                            ok: bool,
                            error: Option<String>,
                        }
                        let waited: Waited =
                            r.result.value.and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default();
                        if let Some(message) = waited.error {
                            return Err(thrown(condition, message));
                        }
                        if waited.ok {
                            break;
                        }
                        return Err(not_met());
                    }
                    // The document went away under the waiter: go on waiting in the new one.
                    Err(e) if context_lost(&e) && !budget.expired() => {
                        navigations += 1;
                        p.log(format!("the page navigated ({navigations}); waiting in the new document"));
                        let _ = tokio::time::timeout(budget.capped(NEW_DOCUMENT), lifecycle.changed()).await;
                    }
                    Err(e) if e.is_timeout() || budget.expired() => return Err(p.with_steps(not_met())),
                    Err(e) => return Err(cdp_failure(phase, e)),
                }
            }
        }
    }
    let url = url_and_title(page, budget).await.0.unwrap_or_default();
    Ok(Output::WaitFor(WaitForResult { matched: what, url, response: None, download: None, popup: None }))
}

/// The error for a test that threw: `evaluate_error` for the caller's function, else `bad_request`
/// (an invalid selector).
fn thrown(condition: &WaitCondition, message: String) -> WorkerError {
    let code = match condition {
        WaitCondition::Function(_) => ErrorCode::EvaluateError,
        _ => ErrorCode::BadRequest,
    };
    fail(code, Phase::Wait, format!("wait_for {}: {message}", describe(condition)))
}

/// A human description of the condition, for results and errors.
fn describe(condition: &WaitCondition) -> String {
    match condition {
        WaitCondition::Selector { selector, state } => format!("selector {selector} {}", state.as_str()),
        WaitCondition::Text(t) => format!("text {t:?}"),
        WaitCondition::TextGone(t) => format!("text {t:?} gone"),
        WaitCondition::Url(g) => format!("url {g}"),
        WaitCondition::LoadState(s) => format!("load_state {}", s.as_str()),
        WaitCondition::Function(_) => "function".into(),
        WaitCondition::Time(ms) => format!("{ms} ms"),
        WaitCondition::Dialog => "dialog".into(),
        WaitCondition::Response(g) => format!("response {g}"),
        WaitCondition::Download => "download".into(),
        WaitCondition::Popup => "popup".into(),
    }
}

/// The selector of an element that shows `text` (Playwright's `getByText`, then `visible=true`).
fn visible_text(text: &str) -> String {
    format!("internal:text={}i >> visible=true", Value::String(text.to_string()))
}

/// The in-page waiter with every test but the caller's function: `function(kind, arg, waitMs)`, where
/// `kind` names the test (`attached`, `detached`, `visible`, `hidden` for the selector `arg`; `url` for
/// the regex `arg`; `load`, `domcontentloaded`). One source for every wait, so that the page compiles
/// it once (V8 keeps each distinct script it compiled for the document's life: a wait's expression
/// made anew each time grew a long-lived page's heap).
static WAIT_FN: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "function(kind, arg, waitMs) {{ \
           {VISIBLE} \
           const find = () => ({QUERY})(arg, document, {WALKER}, isVisible); \
           const tests = {{ \
             attached: () => !!find(), \
             detached: () => !find(), \
             visible: () => {{ const el = find(); return !!el && isVisible(el); }}, \
             hidden: () => {{ const el = find(); return !el || !isVisible(el); }}, \
             url: () => new RegExp(arg).test(location.href), \
             load: () => document.readyState === 'complete', \
             domcontentloaded: () => document.readyState !== 'loading', \
           }}; \
           return ({WAITER})(tests[kind], waitMs); }}",
        WALKER = crate::elements::scripts::WALKER
    )
});

/// The [`WAIT_FN`] test for `condition` and its argument; `None` for the caller's function (and the
/// conditions not run in the page).
fn in_page_test(condition: &WaitCondition) -> Option<(&'static str, String)> {
    Some(match condition {
        WaitCondition::Selector { selector, state } => {
            let kind = match state {
                ElementState::Attached => "attached",
                ElementState::Detached => "detached",
                ElementState::Visible => "visible",
                ElementState::Hidden => "hidden",
            };
            (kind, selector.clone())
        }
        // As Playwright MCP's `browser_wait_for` (`page.getByText(text)` waited visible or hidden): the
        // text in an element that shows it, case-insensitive, its whitespace (a no-break space too)
        // normalized; ours: any such element, where Playwright's `.first()` looks at the first only.
        WaitCondition::Text(t) => ("attached", visible_text(t)),
        WaitCondition::TextGone(t) => ("detached", visible_text(t)),
        WaitCondition::Url(glob) => ("url", sb_protocol::pattern::glob_to_regex(glob)),
        WaitCondition::LoadState(LoadState::Load) => ("load", String::new()),
        WaitCondition::LoadState(LoadState::DomContentLoaded) => ("domcontentloaded", String::new()),
        _ => return None,
    })
}

/// The waiter's test for the caller's function: a JS function, truthy (or resolving truthy) once it
/// holds. The caller's expression is evaluated where no name is declared, so it reads any of the
/// page's globals (a `let v` around it hid a global `v`); a function it gives is called.
fn function_test(condition: &WaitCondition) -> String {
    let WaitCondition::Function(f) = condition else { return "() => true".into() };
    format!("() => ((found) => (typeof found === 'function' ? found() : found))(({f}))")
}
