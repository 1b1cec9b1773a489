//! An API answer as MCP content: compact text for the model (a snapshot as its aria text, a screenshot
//! as an image block and its path), errors as one line with the code and what to do about it.

use rmcp::model::{CallToolResult, ContentBlock};
use sb_protocol::api::{CommonResult, Method};
use sb_protocol::ErrorBody;
use serde_json::Value;

/// A successful `result` of `method` as a tool result.
///
/// `page.snapshot`: `url`/`title` lines, then the aria text. `page.screenshot` (called with
/// `inline: true`): the image block, then a line with its path, size (device px) and bytes.
/// `page.evaluate`: the value as JSON (or `undefined`, `NaN`, ... as JavaScript writes them).
/// `page.extract`: the content. Anything else: the result as compact JSON without `elapsed_ms`.
/// The common result part ([`CommonResult`]) is rendered on every tool: a page reset since the last
/// tool first, as one line (`session reset (browser_restarted): ...`), the dialogs answered and
/// downloads seen during the action after the result, each kind as a line of its own.
pub fn success(method: Option<Method>, mut result: Value) -> CallToolResult {
    let mut blocks = Vec::new();
    let common = take_common(&mut result);
    if let Some(line) = reset_line(&common) {
        blocks.push(ContentBlock::text(line));
    }
    if let Some(line) = human_line(&common) {
        blocks.push(ContentBlock::text(line));
    }
    // Dialogs and downloads as the runtime sent them (a field this build does not know still shows);
    // the tabs a page opened with what to do with them, as Playwright MCP lists a new tab under "Open
    // tabs" (it does not drive it until it is selected either).
    let events: Vec<String> = ["dialogs", "dialogs_dropped", "downloads", "console_errors", "popups"]
        .into_iter()
        .filter_map(|key| {
            let value = result.as_object_mut()?.remove(key)?;
            Some(match (key, value.as_array()) {
                ("popups", Some(ids)) => format!(
                    "the page opened {} new tab{} (not the active one; browser_tabs select with its target_id drives it): {}",
                    ids.len(),
                    if ids.len() == 1 { "" } else { "s" },
                    ids.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", ")
                ),
                _ => format!("{key}: {value}"),
            })
        })
        .collect();
    let text = match method {
        Some(Method::PageSnapshot) => {
            let mut text = format!("url: {}\ntitle: {}\n", str_of(&result, "url"), str_of(&result, "title"));
            if result["diff"] == true {
                text.push_str("(changes since the previous snapshot)\n");
            }
            text.push_str(str_of(&result, "snapshot"));
            text
        }
        Some(Method::PageScreenshot) => {
            if let Some(data) = result.get("data").and_then(Value::as_str) {
                let mime = if result["format"] == "jpeg" { "image/jpeg" } else { "image/png" };
                blocks.push(ContentBlock::image(data, mime));
            }
            format!(
                "screenshot {} ({}x{} px, {} bytes{})",
                str_of(&result, "path"),
                result["width"],
                result["height"],
                result["bytes"],
                if result["truncated"] == true { ", cut at max_height" } else { "" }
            )
        }
        Some(Method::PageEvaluate) => match (result.get("value"), result.get("unserializable")) {
            (Some(value), _) => value.to_string(),
            (None, Some(Value::String(u))) => u.clone(),
            _ if result["type"] == "undefined" => "undefined".into(),
            _ => str_of(&result, "description").to_string(),
        },
        Some(Method::PageExtract) => {
            let mut text = str_of(&result, "content").to_string();
            if result["truncated"] == true {
                text.push_str("\n(truncated at max_chars)");
            }
            text
        }
        // As Playwright MCP lists them: one line a message or request.
        Some(Method::PageConsole) => {
            let lines = result["messages"].as_array().into_iter().flatten().map(|m| {
                let source =
                    m.get("source").and_then(Value::as_str).map(|s| format!(" @ {s}")).unwrap_or_default();
                // An uncaught error with its stack, as Playwright MCP writes a page error.
                let text = m.get("stack").and_then(Value::as_str).unwrap_or_else(|| str_of(m, "text"));
                format!("[{}] {text}{source}", str_of(m, "type").to_uppercase())
            });
            let mut text = lines.collect::<Vec<_>>().join("\n");
            if text.is_empty() {
                text = "no console messages".into();
            }
            text
        }
        Some(Method::PageNetwork) if result.get("details").is_some_and(Value::is_object) => {
            request_details(&result)
        }
        Some(Method::PageNetwork) => {
            let lines = result["requests"].as_array().into_iter().flatten().map(|r| {
                let outcome = match (r.get("status"), r.get("failure").and_then(Value::as_str)) {
                    (_, Some(failure)) => format!("failed: {failure}"),
                    (Some(status), None) => format!("[{status}]"),
                    (None, None) => "pending".into(),
                };
                let blocked = r
                    .get("blocked")
                    .and_then(Value::as_str)
                    .map(|b| format!(" (blocked: {b})"))
                    .unwrap_or_default();
                // Numbered as Playwright MCP numbers its list (`1. [GET] ...`), by the id
                // browser_network_request takes.
                let id = r.get("id").and_then(Value::as_u64).unwrap_or(0);
                format!("{id}. [{}] {} => {outcome}{blocked}", str_of(r, "method"), str_of(r, "url"))
            });
            let mut text = lines.collect::<Vec<_>>().join("\n");
            if text.is_empty() {
                text = "no requests".into();
            }
            text
        }
        _ => match result {
            Value::String(text) => text,
            other => other.to_string(),
        },
    };
    blocks.push(ContentBlock::text(text));
    blocks.extend(events.into_iter().map(ContentBlock::text));
    CallToolResult::success(blocks)
}

/// `page.network {id}` as Playwright MCP's `browser_network_request` shows a request
/// (`renderRequestDetails`): the request line, its status, type and MIME type, the headers of both
/// sides, then the bodies.
fn request_details(result: &Value) -> String {
    let r = &result["requests"][0];
    let d = &result["details"];
    let mut lines =
        vec![format!("#{} [{}] {}", r["id"], str_of(r, "method"), str_of(r, "url")), String::new()];
    lines.push("  General".into());
    match (r.get("status"), r.get("failure").and_then(Value::as_str)) {
        (_, Some(failure)) => lines.push(format!("    status:    [FAILED] {failure}")),
        (Some(status), None) => lines.push(format!("    status:    [{status}] {}", str_of(d, "status_text"))),
        (None, None) => lines.push("    status:    pending".into()),
    }
    if let Some(ms) = r.get("ms").and_then(Value::as_u64) {
        lines.push(format!("    duration:  {ms}ms"));
    }
    lines.push(format!("    type:      {}", str_of(r, "resource_type")));
    if let Some(mime) = d.get("mime_type").and_then(Value::as_str) {
        lines.push(format!("    mimeType:  {mime}"));
    }
    for (title, key) in [("Request headers", "request_headers"), ("Response headers", "response_headers")] {
        if let Some(headers) = d.get(key).and_then(Value::as_object).filter(|h| !h.is_empty()) {
            lines.push(String::new());
            lines.push(format!("  {title}"));
            lines.extend(headers.iter().map(|(k, v)| format!("    {k}: {}", v.as_str().unwrap_or_default())));
        }
    }
    if let Some(post) = d.get("post_data").and_then(Value::as_str) {
        lines.extend([String::new(), "  Request body".into(), post.to_string()]);
    }
    let cut = if d.get("truncated") == Some(&Value::Bool(true)) { " (cut)" } else { "" };
    match (d.get("body").and_then(Value::as_str), d.get("body_missing").and_then(Value::as_str)) {
        (Some(body), _) if d.get("body_base64") == Some(&Value::Bool(true)) => {
            lines.extend([String::new(), format!("  Response body (base64){cut}"), body.to_string()])
        }
        (Some(body), _) => lines.extend([String::new(), format!("  Response body{cut}"), body.to_string()]),
        (None, Some(why)) => lines.extend([String::new(), format!("  Response body: none ({why})")]),
        (None, None) => {}
    }
    lines.join("\n")
}

/// An API error as a tool error (`isError: true`): `message (code: C, phase: P)`, then whether the
/// same call may succeed again, then the operator hint if any. A down runtime's message already says
/// "Do NOT retry browser tool; browser runtime is unavailable.".
pub fn error(body: &ErrorBody) -> CallToolResult {
    let advice = if body.retryable { "retryable: the same call may succeed" } else { "not retryable as is" };
    let mut text =
        format!("{} (code: {}, phase: {}; {advice})", body.message, body.code, body.phase.as_str());
    if let Some(hint) = &body.hint {
        text.push_str(&format!(" Hint: {hint}"));
    }
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// Takes the common part's timing and reset fields out of `result` (dialogs and downloads stay, for the
/// event lines); each field read on its own, so one of another shape loses only itself.
fn take_common(result: &mut Value) -> CommonResult {
    let Value::Object(map) = result else { return CommonResult::default() };
    CommonResult {
        elapsed_ms: map.remove("elapsed_ms").and_then(|v| v.as_u64()).unwrap_or(0),
        session_reset: map.remove("session_reset").and_then(|v| v.as_bool()),
        reset_reason: map.remove("reset_reason").and_then(|v| v.as_str().map(str::to_string)),
        waited_for_recovery_ms: map.remove("waited_for_recovery_ms").and_then(|v| v.as_u64()),
        dialogs: Vec::new(),
        dialogs_dropped: None,
        downloads: Vec::new(),
        popups: Vec::new(),
        console_errors: None,
        human_took_over: map.remove("human_took_over").and_then(|v| serde_json::from_value(v).ok()),
        restored: map.remove("restored").and_then(|v| serde_json::from_value(v).ok()),
    }
}

/// The line a person's takeover in the live view gets (`None` when there was none): how long, where
/// the page was and is, their note, and to read the page again.
fn human_line(common: &CommonResult) -> Option<String> {
    let h = common.human_took_over.as_ref()?;
    let mut line = format!("a person took over the browser for {} ms", h.ms);
    match (&h.url_before, &h.url_after) {
        (Some(a), Some(b)) if a != b => line.push_str(&format!(" (page {a} -> {b})")),
        (_, Some(b)) => line.push_str(&format!(" (page {b})")),
        _ => {}
    }
    if let Some(note) = &h.note {
        line.push_str(&format!("; their note: {note}"));
    }
    line.push_str("; the page may have changed: take a new snapshot before using old refs");
    Some(line)
}

/// The `reset_reason` the server gives a result when the runtime no longer had the connection's
/// session (closed for being idle, or by someone else) and a new one was started for the call.
pub const SESSION_RESTARTED: &str = "session_restarted";

/// The line a page reset gets: what happened and what to do (`None` when there was none).
fn reset_line(common: &CommonResult) -> Option<String> {
    if common.session_reset != Some(true) {
        return None;
    }
    let reason = common.reset_reason.as_deref().unwrap_or("unknown");
    if reason == SESSION_RESTARTED {
        return Some(format!(
            "session reset ({reason}): the runtime no longer had this conversation's browser session (closed \
             for being idle, or by someone else) and a new one was started: a blank page, no cookies; refs \
             from before are stale, navigate again and take a new snapshot"
        ));
    }
    let mut line = match common.restored {
        Some(r) => format!(
            "session reset ({reason}): the page was reopened with the session's login put back ({} cookies, local storage of {} origins) but the rest of its state is lost; refs from before are stale, take a new snapshot",
            r.cookies, r.origins
        ),
        None => format!(
            "session reset ({reason}): the page was reopened and its state is lost; refs from before are stale, take a new snapshot"
        ),
    };
    if let Some(ms) = common.waited_for_recovery_ms {
        line.push_str(&format!(" (waited {ms} ms for it)"));
    }
    Some(line)
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use sb_protocol::{ErrorCode, Phase};
    use serde_json::json;

    fn texts(result: &CallToolResult) -> Vec<String> {
        result.content.iter().filter_map(|b| b.as_text().map(|t| t.text.clone())).collect()
    }

    #[test]
    fn a_takeover_is_one_line_before_the_result() {
        let r = success(
            Some(Method::PageClick),
            json!({"human_took_over": {"ms": 5200, "url_before": "https://a/login", "url_after": "https://a/home", "note": "logged in, continue"}}),
        );
        let t = texts(&r);
        assert_eq!(
            t[0],
            "a person took over the browser for 5200 ms (page https://a/login -> https://a/home); their note: logged in, continue; the page may have changed: take a new snapshot before using old refs"
        );
        assert!(!t[1].contains("human_took_over"), "{t:?}");
    }

    #[test]
    fn tabs_a_page_opened_are_a_line_saying_how_to_drive_them() {
        let r =
            success(Some(Method::PageClick), json!({"element": "link \"Docs\"", "popups": ["AB12", "CD34"]}));
        assert_eq!(
            texts(&r)[1],
            "the page opened 2 new tabs (not the active one; browser_tabs select with its target_id drives it): AB12, CD34"
        );
    }

    #[test]
    fn snapshots_are_their_text_and_results_lose_elapsed() {
        let snap = success(
            Some(Method::PageSnapshot),
            json!({"snapshot": "- button \"Go\" [ref=e1]", "url": "u", "title": "t", "elapsed_ms": 3}),
        );
        assert_eq!(texts(&snap), ["url: u\ntitle: t\n- button \"Go\" [ref=e1]"]);
        let click = success(
            Some(Method::PageClick),
            json!({"element": "button \"Go\"", "elapsed_ms": 3, "dialogs": [{"type": "alert"}]}),
        );
        assert_eq!(texts(&click), ["{\"element\":\"button \\\"Go\\\"\"}", "dialogs: [{\"type\":\"alert\"}]"]);
        assert_eq!(click.is_error, Some(false));
        assert_eq!(texts(&success(None, json!("session closed"))), ["session closed"]);
        let reset = success(
            Some(Method::PageExtract),
            json!({"content": "Hello", "session_reset": true, "reset_reason": "browser_restarted", "elapsed_ms": 9}),
        );
        assert_eq!(
            texts(&reset),
            [
                "session reset (browser_restarted): the page was reopened and its state is lost; refs from before are stale, take a new snapshot",
                "Hello"
            ]
        );
        let restarted = success(
            Some(Method::PageExtract),
            json!({"content": "", "session_reset": true, "reset_reason": SESSION_RESTARTED, "elapsed_ms": 9}),
        );
        assert!(
            texts(&restarted)[0].starts_with("session reset (session_restarted): the runtime no longer had")
        );
    }

    #[test]
    fn errors_keep_code_and_retry_guidance() {
        let body = ErrorBody::new(ErrorCode::BrowserUnavailable, Phase::Launch, "down. Do NOT retry")
            .with_hint("check the container");
        let result = error(&body);
        assert_eq!(result.is_error, Some(true));
        let text = &texts(&result)[0];
        assert!(text.contains("code: browser_unavailable") && text.contains("not retryable"), "{text}");
        assert!(text.ends_with("Hint: check the container"), "{text}");
    }
}
