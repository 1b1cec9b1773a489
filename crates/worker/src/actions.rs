//! The page actions: navigation, extraction, screenshots, evaluation.

use std::time::Duration;

use base64::Engine;
use sb_cdp::types::{CaptureScreenshotResult, EvaluateResult, LayoutMetrics, NavigateResult, RemoteObject};
use sb_cdp::CdpError;
use sb_protocol::api::{ExtractFormat, ImageFormat, MAX_SCREENSHOT_HEIGHT};
use sb_protocol::ipc::{Output, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde_json::{json, Value};

use crate::{cdp_failure, Page};

/// Time kept back from a navigation's wait to read the URL and title afterwards.
const AFTER_NAV_RESERVE: Duration = Duration::from_millis(300);
/// Longest a small bookkeeping call (URL, title) may take.
const SMALL_CALL: Duration = Duration::from_millis(1_000);

/// `Page.navigate`, then wait for the `DOMContentLoaded` lifecycle event of the new document
/// (`Page.lifecycleEvent` with the navigation's `loaderId`). When the budget runs out first, answer
/// with what was reached (`commit`, from `Page.frameNavigated`) and `timed_out: true`.
///
/// Errors: `navigation_failed` with Chromium's net error (`errorText`); `timeout` when not even the
/// commit happened within the budget.
pub(crate) async fn goto(page: &Page, url: &str, budget: Budget) -> Result<Output, WorkerError> {
    let phase = Phase::Navigate;
    let mut events = page.session.events();
    let nav: NavigateResult =
        page.session.call("Page.navigate", json!({"url": url}), budget.remaining()).await.map_err(
            |e| match e {
                CdpError::Protocol { message, .. } => WorkerError {
                    code: ErrorCode::NavigationFailed,
                    phase,
                    message: format!("cannot navigate to {url}: {message}"),
                },
                other => cdp_failure(phase, other),
            },
        )?;
    if let Some(err) = nav.error_text.filter(|t| !t.is_empty()) {
        return Err(WorkerError {
            code: ErrorCode::NavigationFailed,
            phase,
            message: format!("navigation to {url} failed: {err}"),
        });
    }

    let mut status = None;
    let mut load_state = "commit";
    let mut committed = nav.loader_id.is_none();
    let mut timed_out = false;
    if let Some(loader_id) = nav.loader_id.as_deref() {
        let wait = budget.child(AFTER_NAV_RESERVE);
        loop {
            let ev = match tokio::time::timeout(wait.remaining(), events.recv()).await {
                Ok(Some(ev)) => ev,
                Ok(None) => {
                    return Err(cdp_failure(
                        phase,
                        CdpError::Closed { reason: "browser connection lost".into() },
                    ))
                }
                Err(_) => {
                    timed_out = true;
                    break;
                }
            };
            let p = &ev.params;
            match ev.method.as_str() {
                "Network.responseReceived" if p["requestId"] == loader_id => {
                    status = p["response"]["status"].as_f64().map(|s| s as u16);
                }
                "Page.frameNavigated" if p["frame"]["loaderId"] == loader_id => committed = true,
                "Page.lifecycleEvent" if p["loaderId"] == loader_id => match p["name"].as_str() {
                    Some("commit") => committed = true,
                    Some("DOMContentLoaded") => {
                        committed = true;
                        load_state = "domcontentloaded";
                        break;
                    }
                    Some("load") => {
                        load_state = "load";
                        break;
                    }
                    _ => {}
                },
                _ => {}
            }
        }
    }
    if timed_out && !committed {
        let _ = page.session.call_raw("Page.stopLoading", json!({}), budget.capped(SMALL_CALL)).await;
        return Err(WorkerError {
            code: ErrorCode::Timeout,
            phase,
            message: format!("navigation to {url} did not commit within the budget"),
        });
    }
    let (final_url, title, ready) = url_and_title(page, budget).await;
    if nav.loader_id.is_none() || ready.as_deref() == Some("complete") {
        load_state = match ready.as_deref() {
            Some("complete") => "load",
            Some("interactive") => "domcontentloaded",
            _ => load_state,
        };
    }
    Ok(Output::Goto {
        url: final_url.unwrap_or_else(|| url.to_string()),
        title: title.unwrap_or_default(),
        status,
        load_state: load_state.to_string(),
        timed_out,
    })
}

/// `location.href`, `document.title`, `document.readyState`, each `None` when the page does not answer
/// in time (a page busy in a script still has a committed URL worth reporting).
async fn url_and_title(page: &Page, budget: Budget) -> (Option<String>, Option<String>, Option<String>) {
    let expr = "[location.href, document.title, document.readyState]";
    let timeout = budget.capped(SMALL_CALL).max(Duration::from_millis(50));
    let r: Result<EvaluateResult, _> = page
        .session
        .call(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "timeout": timeout.as_millis() as u64}),
            timeout,
        )
        .await;
    match r.ok().and_then(|r| r.result.value) {
        Some(Value::Array(v)) => {
            let s = |i: usize| v.get(i).and_then(Value::as_str).map(str::to_string);
            (s(0), s(1), s(2))
        }
        _ => (None, None, None),
    }
}

/// The page's text (`document.body.innerText`) or HTML (`document.documentElement.outerHTML`), cut at
/// `max_chars` Unicode scalar values.
pub(crate) async fn extract(
    page: &Page,
    format: ExtractFormat,
    max_chars: u64,
    budget: Budget,
) -> Result<Output, WorkerError> {
    let phase = Phase::Extract;
    let source = match format {
        ExtractFormat::Text => "document.body ? document.body.innerText : (document.documentElement ? document.documentElement.innerText : '')",
        ExtractFormat::Html => "document.documentElement ? document.documentElement.outerHTML : ''",
    };
    // Cut in the page first (in UTF-16 units, at most two per scalar value) so a huge page is not
    // shipped whole, then exactly in chars here.
    let units = max_chars.saturating_mul(2).saturating_add(2);
    let expr = format!(
        "(() => {{ const s = String({source}); return [s.slice(0, {units}), s.length > {units}, location.href, document.title]; }})()"
    );
    let value = eval_by_value(page, &expr, phase, budget).await?;
    let arr = value.as_array().cloned().unwrap_or_default();
    let text = arr.first().and_then(Value::as_str).unwrap_or("");
    let cut_in_page = arr.get(1).and_then(Value::as_bool).unwrap_or(false);
    let (content, cut_here) = match text.char_indices().nth(max_chars as usize) {
        Some((at, _)) => (text[..at].to_string(), true),
        None => (text.to_string(), false),
    };
    Ok(Output::Extract {
        chars: content.chars().count() as u64,
        content,
        truncated: cut_in_page || cut_here,
        url: arr.get(2).and_then(Value::as_str).unwrap_or("").to_string(),
        title: arr.get(3).and_then(Value::as_str).unwrap_or("").to_string(),
    })
}

/// What `page.screenshot` asked for.
pub(crate) struct Shot {
    pub full_page: bool,
    pub format: ImageFormat,
    pub quality: Option<u8>,
    pub inline: bool,
    /// Full page only: the tallest capture, CSS px.
    pub max_height: u32,
}

/// `Page.captureScreenshot`, written to `path`. Full page: the clip is `Page.getLayoutMetrics`'s
/// `cssContentSize` (cut at `max_height`) with `captureBeyondViewport: true`. Width and height are
/// read from the image.
pub(crate) async fn screenshot(
    page: &Page,
    shot: Shot,
    path: &str,
    budget: Budget,
) -> Result<Output, WorkerError> {
    let phase = Phase::Screenshot;
    let mut params =
        json!({"format": shot.format.as_str(), "fromSurface": true, "captureBeyondViewport": shot.full_page});
    if let (ImageFormat::Jpeg, Some(q)) = (shot.format, shot.quality) {
        params["quality"] = json!(q.min(100));
    }
    let mut truncated = false;
    if shot.full_page {
        let m: LayoutMetrics = page
            .session
            .call("Page.getLayoutMetrics", json!({}), budget.remaining())
            .await
            .map_err(|e| cdp_failure(phase, e))?;
        let size = m.css_content_size;
        let max_height = f64::from(shot.max_height.clamp(1, MAX_SCREENSHOT_HEIGHT));
        truncated = size.height.ceil() > max_height;
        let height = size.height.ceil().clamp(1.0, max_height);
        params["clip"] =
            json!({"x": 0, "y": 0, "width": size.width.ceil().max(1.0), "height": height, "scale": 1});
    }
    let captured: CaptureScreenshotResult = page
        .session
        .call("Page.captureScreenshot", params, budget.remaining())
        .await
        .map_err(|e| cdp_failure(phase, e))?;
    let fail = |message: String| WorkerError { code: ErrorCode::Internal, phase, message };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(captured.data.as_bytes())
        .map_err(|e| fail(format!("screenshot data is not base64: {e}")))?;
    let dims = imagesize::blob_size(&bytes).map_err(|e| {
        fail(format!("Chromium returned an unreadable {} image: {e:?}", shot.format.as_str()))
    })?;
    if let Some(dir) = std::path::Path::new(path).parent() {
        std::fs::create_dir_all(dir).map_err(|e| fail(format!("cannot create {}: {e}", dir.display())))?;
    }
    std::fs::write(path, &bytes).map_err(|e| fail(format!("cannot write {path}: {e}")))?;
    Ok(Output::Screenshot {
        path: path.to_string(),
        width: dims.width as u32,
        height: dims.height as u32,
        bytes: bytes.len() as u64,
        truncated,
        data: shot.inline.then_some(captured.data),
    })
}

/// `Runtime.evaluate {returnByValue, awaitPromise, userGesture: true, timeout}`. A value that cannot
/// be returned by value (a DOM node, a circular object) comes back as its description.
pub(crate) async fn evaluate(page: &Page, expression: &str, budget: Budget) -> Result<Output, WorkerError> {
    let phase = Phase::Evaluate;
    let obj = match run_evaluate(page, expression, true, phase, budget).await {
        Err(CdpError::Protocol { message, .. })
            if message.contains("by value") || message.contains("reference chain") =>
        {
            run_evaluate(page, expression, false, phase, budget).await.map_err(|e| cdp_failure(phase, e))?
        }
        other => other.map_err(|e| cdp_failure(phase, e))?,
    }?;
    // The description only where nothing else says what the value is (a DOM node, a function).
    let described = obj.value.is_none() && obj.unserializable_value.is_none();
    Ok(Output::Evaluate {
        value_json: obj.value.as_ref().map(Value::to_string),
        unserializable: obj.unserializable_value,
        description: if described { obj.description } else { None },
        kind: obj.kind,
    })
}

/// One `Runtime.evaluate`; the outer error is the CDP call's, the inner one a JS exception.
async fn run_evaluate(
    page: &Page,
    expression: &str,
    by_value: bool,
    phase: Phase,
    budget: Budget,
) -> Result<Result<RemoteObject, WorkerError>, CdpError> {
    let timeout = budget.remaining();
    let r: EvaluateResult = page
        .session
        .call(
            "Runtime.evaluate",
            json!({
                "expression": expression,
                "returnByValue": by_value,
                "awaitPromise": true,
                "userGesture": true,
                "timeout": timeout.as_millis() as u64,
            }),
            timeout,
        )
        .await?;
    Ok(match r.exception_details {
        Some(details) => {
            Err(WorkerError { code: ErrorCode::EvaluateError, phase, message: details.message() })
        }
        None => Ok(r.result),
    })
}

/// Evaluates an expression of the runtime's own (not the caller's) and returns its JSON value.
async fn eval_by_value(
    page: &Page,
    expression: &str,
    phase: Phase,
    budget: Budget,
) -> Result<Value, WorkerError> {
    let obj =
        run_evaluate(page, expression, true, phase, budget).await.map_err(|e| cdp_failure(phase, e))??;
    Ok(obj.value.unwrap_or(Value::Null))
}
