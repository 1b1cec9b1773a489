//! `page.wait_for`: poll a condition until it holds or the budget runs out.
//!
//! Every condition but `networkidle` and `time_ms` is a small check expression evaluated every
//! [`POLL`] (`Runtime.evaluate`, each call bounded), so a navigation during the wait is harmless and
//! nothing keeps running in the page after a timeout. `networkidle` is Chromium's own lifecycle event
//! for the main frame (`Page.lifecycleEvent` `networkIdle`), tracked by `lifecycle`.

use std::time::Duration;

use sb_cdp::types::EvaluateResult;
use sb_cdp::CdpError;
use sb_protocol::api::{ElementState, LoadState};
use sb_protocol::ipc::{Output, WaitCondition, WaitForOutput, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde_json::{json, Value};

use crate::error::{cdp_failure, fail};
use crate::page::{url_and_title, Page};
use crate::progress::Progress;

/// Time between two checks.
const POLL: Duration = Duration::from_millis(50);
/// Longest one check may take.
const CHECK: Duration = Duration::from_millis(1_000);

/// Waits for `condition` within `budget`.
///
/// Errors: `timeout` (phase `wait`) naming the condition; `bad_request` for an invalid selector or
/// load state; `evaluate_error` when a `function` throws.
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
        WaitCondition::LoadState(LoadState::NetworkIdle) => {
            let mut lifecycle = page.lifecycle.clone();
            let idle = tokio::time::timeout(
                budget.remaining(),
                lifecycle.wait_for(|l| l.events.iter().any(|e| e == "networkIdle")),
            )
            .await;
            match idle {
                Ok(Ok(_)) => {}
                _ => return Err(not_met()),
            }
        }
        _ => {
            let check = check_expression(condition)?;
            loop {
                match truthy(page, &check, condition, budget).await {
                    Ok(true) => break,
                    Ok(false) => {}
                    // A check that ran out of time found nothing: the page is busy (laying out a large
                    // document, say) or stuck; the next check tries again while the budget lasts (the
                    // ladder frees a stuck page once it is spent).
                    Err(e) if e.code == ErrorCode::Timeout => {}
                    Err(e) => return Err(e),
                }
                if budget.remaining() <= POLL {
                    return Err(not_met());
                }
                tokio::time::sleep(POLL).await;
            }
        }
    }
    let url = url_and_title(page, budget).await.0.unwrap_or_default();
    Ok(Output::WaitFor(WaitForOutput { matched: what, url }))
}

/// One check: whether `check` is truthy now.
async fn truthy(
    page: &Page,
    check: &str,
    condition: &WaitCondition,
    budget: Budget,
) -> Result<bool, WorkerError> {
    let timeout = budget.capped(CHECK);
    let r: EvaluateResult = page
        .session
        .call(
            "Runtime.evaluate",
            json!({"expression": check, "returnByValue": true, "awaitPromise": true, "timeout": timeout.as_millis() as u64}),
            timeout,
        )
        .await
        .map_err(|e| match e {
            CdpError::Protocol { .. } if budget.expired() => cdp_failure(Phase::Wait, CdpError::Timeout { method: "Runtime.evaluate".into(), timeout }),
            other => cdp_failure(Phase::Wait, other),
        })?;
    if let Some(details) = r.exception_details {
        let code = match condition {
            WaitCondition::Function(_) => ErrorCode::EvaluateError,
            _ => ErrorCode::BadRequest,
        };
        return Err(fail(
            code,
            Phase::Wait,
            format!("wait_for {}: {}", describe(condition), details.message()),
        ));
    }
    Ok(r.result.value.as_ref().is_some_and(|v| v.as_bool() == Some(true)))
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
    }
}

/// The JS expression that is `true` once `condition` holds.
fn check_expression(condition: &WaitCondition) -> Result<String, WorkerError> {
    let q = |s: &str| Value::String(s.to_string()).to_string();
    let bad = |message: String| fail(ErrorCode::BadRequest, Phase::Wait, message);
    Ok(match condition {
        WaitCondition::Selector { selector, state } => {
            let test = match state {
                ElementState::Attached => "!!el",
                ElementState::Detached => "!el",
                ElementState::Visible => "!!el && visible(el)",
                ElementState::Hidden => "!el || !visible(el)",
            };
            format!(
                "(() => {{ const visible = (e) => {{ const r = e.getBoundingClientRect(); \
                 return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; }}; \
                 const el = document.querySelector({}); return {test}; }})()",
                q(selector)
            )
        }
        WaitCondition::Text(t) => {
            format!("(document.body ? document.body.innerText : '').includes({})", q(t))
        }
        WaitCondition::TextGone(t) => {
            format!("!(document.body ? document.body.innerText : '').includes({})", q(t))
        }
        WaitCondition::Url(glob) => format!("new RegExp({}).test(location.href)", q(&glob_to_regex(glob))),
        WaitCondition::LoadState(LoadState::Load) => "document.readyState === 'complete'".into(),
        WaitCondition::LoadState(LoadState::DomContentLoaded) => "document.readyState !== 'loading'".into(),
        WaitCondition::LoadState(LoadState::NetworkIdle) | WaitCondition::Time(_) => {
            return Err(bad("networkidle and time_ms are not polled".into()))
        }
        WaitCondition::Function(f) => {
            format!("(async () => {{ let v = ({f}); if (typeof v === 'function') v = v(); return !!(await v); }})()")
        }
    })
}

/// A URL glob as an anchored regex: `**/` zero or more directories, `**` any characters, `*` any but
/// `/`, `?` one character.
pub(crate) fn glob_to_regex(glob: &str) -> String {
    let mut re = String::from("^");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                // `**/` is zero or more directories; a lone `**` any characters.
                if chars.peek() == Some(&'/') {
                    chars.next();
                    re.push_str("(?:.*/)?");
                } else {
                    re.push_str(".*");
                }
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push('.'),
            c if "\\^$.|+()[]{}".contains(c) => {
                re.push('\\');
                re.push(c);
            }
            c => re.push(c),
        }
    }
    re.push('$');
    re
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_become_anchored_regexes() {
        assert_eq!(glob_to_regex("**/done.html"), "^(?:.*/)?done\\.html$");
        assert_eq!(glob_to_regex("**/c/**/s.html"), "^(?:.*/)?c/(?:.*/)?s\\.html$");
        assert_eq!(glob_to_regex("http://h/**"), "^http://h/.*$");
        assert_eq!(glob_to_regex("http://h/*/x?y"), "^http://h/[^/]*/x.y$");
        assert_eq!(glob_to_regex("a+(b)"), "^a\\+\\(b\\)$");
    }
}
