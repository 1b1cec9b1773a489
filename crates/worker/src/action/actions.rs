//! The page actions: navigation, extraction, screenshots, uploads, PDFs, scrolling, storage and the
//! clipboard (evaluation is `evaluate`'s).

use std::time::Duration;

use base64::Engine;
use sb_cdp::calls::CallFunctionOn;
use sb_cdp::commands::{DomSetFileInputFiles, InputDispatchMouseEvent, PageStopLoading};
use sb_cdp::types::{
    CaptureScreenshotResult, FrameNavigated, LifecycleEvent, NavigateResult, RequestWillBeSent,
    ResponseReceived,
};
use sb_cdp::CdpError;
use sb_protocol::api::{
    Clip, ClipboardParams, ClipboardResult, PdfParams, ScreenshotParams, StorageParams, StorageResult,
};
use sb_protocol::api::{
    ExtractFormat, ImageFormat, PdfResult, FULL_PAGE_MAX_WIDTH, MAX_SCREENSHOT_HEIGHT, MAX_SCREENSHOT_PIXELS,
};
use sb_protocol::api::{
    ExtractParams, ExtractResult, GotoResult, ScreenshotResult, ScrollResult, UploadResult,
};
use sb_protocol::ipc::{Locator, Output, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde_json::{json, Value};

use crate::elements::resolve::resolve;
use crate::error::{cdp_failure, fail};
use crate::progress::Progress;
use crate::tab::page::{browser_url_and_title, eval_as, url_and_title, Page};
use crate::tab::settle;

/// Time kept back from a navigation's wait to stop the load and read the URL and title afterwards: a
/// navigation that runs out of time answers `timed_out` within the answer window
/// ([`sb_protocol::margins::EARLY`], 100 ms, of which the worker's headroom takes 20), not earlier.
/// 60 ms: with 15, two calls on a machine with two busy processes and the suite's other tests did
/// not fit, and the action's own deadline answered `timeout` instead of what the tab showed (tests/e2e.rs
/// `back_forward_and_reload_wait_like_goto`, one load run in three).
pub(crate) const AFTER_NAV_RESERVE: Duration = Duration::from_millis(60);
/// Longest a small bookkeeping call (URL, title) may take.
pub(crate) const SMALL_CALL: Duration = Duration::from_millis(1_000);

/// `Page.navigate`, then wait for the `DOMContentLoaded` lifecycle event of the new document
/// (`Page.lifecycleEvent` with the navigation's `loaderId`). When the budget runs out first, answer
/// with what was reached (`commit`, from `Page.frameNavigated`) and `timed_out: true`.
///
/// Errors: `navigation_failed` with Chromium's net error (`errorText`). A navigation that does not
/// even commit within the budget is not an error: see [`not_committed`].
pub(crate) async fn goto(page: &Page, url: &str, p: &Progress) -> Result<Output, WorkerError> {
    let budget = p.budget();
    let phase = Phase::Navigate;
    let mut events = page.session.events();
    // Keep time back to stop the load and read the URL and title when the budget runs out.
    let wait = budget.child(AFTER_NAV_RESERVE);
    let navigated: Result<NavigateResult, CdpError> =
        page.session.call("Page.navigate", json!({"url": url}), wait.remaining()).await;
    let nav = match navigated {
        Ok(nav) => nav,
        // No commit within the budget (Page.navigate answers only once the navigation commits): a
        // server that accepts and never answers, say.
        Err(CdpError::Timeout { .. }) => return not_committed(page, url, budget).await,
        Err(CdpError::Protocol { message, .. }) => {
            return Err(fail(
                ErrorCode::NavigationFailed,
                phase,
                format!("cannot navigate to {url}: {message}"),
            ))
        }
        Err(other) => return Err(cdp_failure(phase, other)),
    };
    if let Some(err) = nav.error_text.filter(|t| !t.is_empty()) {
        let mut e = match err.as_str() {
            // Full Chromium's answer to a challenge nobody answered (the headless shell shows the 401).
            "net::ERR_INVALID_AUTH_CREDENTIALS" => fail(
                ErrorCode::AuthRequired,
                phase,
                format!("{url} asks for HTTP authentication ({err}): give the session http_credentials (session.start or page.emulate)"),
            ),
            _ => fail(ErrorCode::NavigationFailed, phase, format!("navigation to {url} failed: {err}")),
        };
        e.url = Some(last_hop(&mut events, nav.loader_id.as_deref()).unwrap_or_else(|| url.to_string()));
        return Err(e);
    }

    let mut status = None;
    let mut load_state = "commit";
    let mut committed = nav.loader_id.is_none();
    let mut timed_out = false;
    // The main frame's document the goto waits for: its own, until a document that replaces it
    // commits (a script's `location.href = ...` or a `<meta http-equiv=refresh content=0>` while it
    // loads): then that one, as Playwright's goto waits for its frame's `load` whatever document
    // reaches it. It waited out its budget for a `DOMContentLoaded` the replaced document never fired.
    let mut current = nav.loader_id.clone();
    if let Some(loader_id) = nav.loader_id.as_deref() {
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
            match ev.method.as_str() {
                // Only an HTTP response has a status (Chromium reports 200 for `data:` and the like).
                "Network.responseReceived" => {
                    if let Some(r) = ev.parse::<ResponseReceived>().filter(|r| r.request_id == loader_id) {
                        let http = r.response.url.starts_with("http");
                        status = http.then_some(r.response.status as u16);
                    }
                }
                "Page.frameNavigated" => {
                    let Some(n) = ev.parse::<FrameNavigated>().filter(|n| n.frame.parent_id.is_none()) else {
                        continue;
                    };
                    if n.frame.loader_id == loader_id {
                        committed = true;
                    } else if committed {
                        p.log(format!("the page went on to {} (a redirect of its own)", n.frame.url));
                        current = Some(n.frame.loader_id);
                    }
                }
                "Page.lifecycleEvent" => {
                    let Some(e) =
                        ev.parse::<LifecycleEvent>().filter(|e| Some(&e.loader_id) == current.as_ref())
                    else {
                        continue;
                    };
                    match e.name.as_str() {
                        "commit" => committed = true,
                        "DOMContentLoaded" => {
                            committed = true;
                            load_state = "domcontentloaded";
                            break;
                        }
                        "load" => {
                            load_state = "load";
                            break;
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
    }
    if timed_out && !committed {
        return not_committed(page, url, budget).await;
    }
    let (final_url, title) = match current.as_deref() {
        // A new document: the load event may have come meanwhile, and the URL and title are the
        // browser's (the renderer, busy with the page it just parsed, is not asked: that round trip
        // was a fifth of a goto alone and a third under concurrency; Playwright's goto reads none).
        Some(loader_id) => {
            while let Some(ev) = events.try_recv() {
                if ev.method == "Page.lifecycleEvent"
                    && ev
                        .parse::<LifecycleEvent>()
                        .is_some_and(|e| e.loader_id == loader_id && e.name == "load")
                {
                    load_state = "load";
                }
            }
            browser_url_and_title(page, budget.capped(SMALL_CALL)).await
        }
        // The same document (a fragment, `history.pushState`): its readyState says how far it is.
        None => {
            let (final_url, title, ready) = url_and_title(page, budget).await;
            load_state = match ready.as_deref() {
                Some("complete") => "load",
                Some("interactive") => "domcontentloaded",
                _ => load_state,
            };
            (final_url, title)
        }
    };
    Ok(Output::Goto(GotoResult {
        url: final_url.unwrap_or_else(|| url.to_string()),
        title: title.unwrap_or_default(),
        status,
        load_state: load_state.to_string(),
        timed_out,
    }))
}

/// The URL a navigation (its `loaderId`) last asked for: the last `Network.requestWillBeSent` of its
/// request (each hop of a redirect is sent again under the navigation's id), from the events already
/// read; `None` when none was seen.
fn last_hop(events: &mut sb_cdp::EventStream, loader_id: Option<&str>) -> Option<String> {
    let loader_id = loader_id?;
    let mut last = None;
    while let Some(ev) = events.try_recv() {
        if ev.method == "Network.requestWillBeSent" {
            if let Some(sent) = ev.parse::<RequestWillBeSent>().filter(|s| s.request_id == loader_id) {
                last = Some(sent.request.url);
            }
        }
    }
    last
}

/// The answer of a navigation that did not commit within the budget: the load is stopped
/// (`Page.stopLoading`) and the tab still shows its previous document, reported with
/// `load_state: "none"` and `timed_out: true`.
pub(crate) async fn not_committed(page: &Page, url: &str, budget: Budget) -> Result<Output, WorkerError> {
    let _ = page.session.run(&PageStopLoading {}, budget.capped(SMALL_CALL)).await;
    let (shown, title, _) = url_and_title(page, budget).await;
    let Some(shown) = shown else {
        // The page does not answer either: let the ladder look at it.
        return Err(fail(
            ErrorCode::Timeout,
            Phase::Navigate,
            format!("navigation to {url} did not commit within the budget"),
        ));
    };
    Ok(Output::Goto(GotoResult {
        url: shown,
        title: title.unwrap_or_default(),
        status: None,
        load_state: "none".into(),
        timed_out: true,
    }))
}

/// The page's text (`document.body.innerText`) or HTML (`document.documentElement.outerHTML`), cut at
/// `max_chars` Unicode scalar values.
pub(crate) async fn extract(
    page: &Page,
    params: ExtractParams,
    _: Option<&Locator>,
    p: &Progress,
) -> Result<ExtractResult, WorkerError> {
    let (format, max_chars) = (params.format, params.cap());
    settle::before_read(page, p).await;
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
    let step = match format {
        ExtractFormat::Text => "reading the page's text",
        ExtractFormat::Html => "reading the page's HTML",
    };
    let (text, cut_in_page, url, title): (String, bool, String, String) =
        eval_as(page, &expr, phase, step, p).await?;
    let (content, cut_here) = match text.char_indices().nth(max_chars as usize) {
        Some((at, _)) => (text[..at].to_string(), true),
        None => (text, false),
    };
    Ok(ExtractResult {
        format,
        chars: content.chars().count() as u64,
        content,
        truncated: cut_in_page || cut_here,
        url,
        title,
    })
}

/// An element's border box in the page's coordinates (CSS px, scroll offset added), after scrolling
/// it into view: `[x, y, width, height]`.
const ELEMENT_BOX: &str =
    "function() { this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' }); \
    const r = this.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }";

/// `Page.captureScreenshot`, written to `path`. Full page: the clip is `Page.getLayoutMetrics`'s
/// `cssContentSize` (cut at `max_height` and [`FULL_PAGE_MAX_WIDTH`]) with `captureBeyondViewport: true`. Width and height are
/// read from the image.
pub(crate) async fn screenshot(
    page: &Page,
    shot: &ScreenshotParams,
    target: Option<&Locator>,
    path: &str,
    p: &Progress,
) -> Result<Output, WorkerError> {
    let budget = p.budget();
    settle::before_read(page, p).await;
    let phase = Phase::Screenshot;
    let mut params =
        json!({"format": shot.format.as_str(), "fromSurface": true, "captureBeyondViewport": shot.full_page});
    if let (ImageFormat::Jpeg, Some(q)) = (shot.format, shot.quality) {
        params["quality"] = json!(q.min(100));
    }
    let mut truncated = false;
    // Chromium's clip is in the document's CSS px; a viewport region and an element's box are in the
    // viewport's, so the page's scroll offset is added (as Playwright's crPage does).
    let scroll =
        || eval_as::<[f64; 2]>(page, "[scrollX, scrollY]", phase, "reading the page's scroll offset", p);
    let region = match (target, shot.clip.as_ref().map(Clip::as_array)) {
        (Some(locator), _) => {
            let el = resolve(page, locator, p).await?.ok_or_else(|| {
                fail(ErrorCode::BadRequest, phase, "the element to capture matches nothing")
            })?;
            let [x, y, width, height]: [f64; 4] =
                el.call_as(ELEMENT_BOX, phase, "the element's box", budget).await?;
            if width < 1.0 || height < 1.0 {
                return Err(fail(
                    ErrorCode::NotVisible,
                    phase,
                    format!("{} has no visible box to capture", el.label),
                ));
            }
            let [sx, sy] = scroll().await?;
            Some([x + el.offset.0 + sx, y + el.offset.1 + sy, width, height])
        }
        (None, Some(c)) if !shot.full_page => {
            let [sx, sy] = scroll().await?;
            Some([c[0] + sx, c[1] + sy, c[2], c[3]])
        }
        (None, clip) => clip,
    };
    // The clip `[x, y, width, height]`, CSS px of the document.
    let clip = if let Some([x, y, width, height]) = region {
        params["captureBeyondViewport"] = json!(true);
        Some([x, y, width, height.min(f64::from(MAX_SCREENSHOT_HEIGHT))])
    } else if shot.full_page {
        let m = page.session.layout_metrics(budget.remaining()).await.map_err(|e| cdp_failure(phase, e))?;
        let size = m.css_content_size;
        let max_height = f64::from(shot.tallest().clamp(1, MAX_SCREENSHOT_HEIGHT));
        let max_width = f64::from(FULL_PAGE_MAX_WIDTH);
        truncated = size.height.ceil() > max_height || size.width.ceil() > max_width;
        Some([0.0, 0.0, size.width.ceil().clamp(1.0, max_width), size.height.ceil().clamp(1.0, max_height)])
    } else {
        None
    };
    if let Some([x, y, width, height]) = clip {
        params["clip"] = json!({"x": x, "y": y, "width": width, "height": height, "scale": 1});
    }
    // The capture's size in device px, refused past the cap before Chromium renders it.
    let scale = page.viewport.map_or(1.0, |d| d.scale);
    let size = match clip {
        Some([_, _, width, height]) => (width, height),
        None => page.viewport.map_or((0.0, 0.0), |d| (f64::from(d.width), f64::from(d.height))),
    };
    let pixels = (size.0 * scale).ceil() * (size.1 * scale).ceil();
    if !pixels.is_finite() || pixels > MAX_SCREENSHOT_PIXELS as f64 {
        return Err(fail(
            ErrorCode::BadRequest,
            phase,
            format!(
                "the screenshot would be {:.0}x{:.0} device px, past the cap of {MAX_SCREENSHOT_PIXELS} px (width x height); capture a clip, an element or a lower max_height",
                (size.0 * scale).ceil(),
                (size.1 * scale).ceil()
            ),
        ));
    }
    p.log(format!("capturing {:.0}x{:.0} CSS px", size.0, size.1));
    let captured: CaptureScreenshotResult = page
        .session
        .call("Page.captureScreenshot", params, budget.remaining())
        .await
        .map_err(|e| cdp_failure(phase, e))?;
    let fail = |message: String| fail(ErrorCode::Internal, phase, message);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(captured.data.as_bytes())
        .map_err(|e| fail(format!("screenshot data is not base64: {e}")))?;
    let dims = imagesize::blob_size(&bytes).map_err(|e| {
        fail(format!("Chromium returned an unreadable {} image: {e:?}", shot.format.as_str()))
    })?;
    write_private(std::path::Path::new(path), &bytes, phase)?;
    Ok(Output::Screenshot(ScreenshotResult {
        path: path.to_string(),
        format: shot.format,
        width: dims.width as u32,
        height: dims.height as u32,
        bytes: bytes.len() as u64,
        truncated,
        data: shot.inline.then_some(captured.data),
    }))
}

/// `page.upload`: the element must be an `<input type=file>` (else `bad_request` naming what it is);
/// its files become `paths` (`DOM.setFileInputFiles` on the element's object, in its own frame's
/// session), which fires its `input` and `change` events as a person's choice does.
pub(crate) async fn upload(
    page: &Page,
    target: Option<&Locator>,
    paths: Vec<String>,
    names: Vec<String>,
    bytes: u64,
    p: &Progress,
) -> Result<Output, WorkerError> {
    let budget = p.budget();
    let phase = Phase::Actionability;
    let Some(target) = target else {
        // The file chooser the page opened: its input, by `backendNodeId` (Playwright's
        // `FileChooser.setFiles` sets them on that element too).
        let node = page.journal.take_chooser().ok_or_else(|| {
            fail(
                ErrorCode::BadRequest,
                phase,
                "no file chooser is open: click what opens one first (its result says file_chooser), or name the file input",
            )
        })?;
        p.log(format!("setting {} files on the file chooser's input", paths.len()));
        let set = DomSetFileInputFiles { files: paths, object_id: None, backend_node_id: Some(node) };
        page.session.run(&set, budget.remaining()).await.map_err(|e| cdp_failure(phase, e))?;
        return Ok(Output::Upload(UploadResult { element: "the file chooser".into(), files: names, bytes }));
    };
    let el = resolve(page, target, p)
        .await?
        .ok_or_else(|| fail(ErrorCode::BadRequest, phase, "the file input to upload to matches nothing"))?;
    let kind = "function() { return this instanceof HTMLInputElement ? this.type : this.localName; }";
    let kind: String = el.call_as(kind, phase, "the element's kind", budget).await?;
    if kind != "file" {
        return Err(fail(
            ErrorCode::BadRequest,
            phase,
            format!("{} is not a file input (it is {kind:?}); upload to an <input type=file>", el.label),
        ));
    }
    p.log(format!("setting {} files on {}", paths.len(), el.label));
    let set =
        DomSetFileInputFiles { files: paths, object_id: Some(el.object_id.clone()), backend_node_id: None };
    el.session.run(&set, budget.remaining()).await.map_err(|e| cdp_failure(phase, e))?;
    Ok(Output::Upload(UploadResult { element: el.label, files: names, bytes }))
}

/// `page.pdf`: `Page.printToPDF` (print media, Chromium's headless printing) with the paper, margins,
/// scale and page ranges asked for, written to `path`; the answer counts the PDF's pages (its
/// `/Type /Page` objects). A page range past the document's end is Chromium's error, answered
/// `bad_request`.
pub(crate) async fn pdf(
    page: &Page,
    print: &PdfParams,
    path: &str,
    p: &Progress,
) -> Result<Output, WorkerError> {
    let budget = p.budget();
    let phase = Phase::Screenshot;
    settle::before_read(page, p).await;
    let (width, height) = print.paper.inches();
    let m = print.margin();
    let params = json!({
        "landscape": print.landscape,
        "printBackground": print.print_background,
        "paperWidth": width,
        "paperHeight": height,
        "marginTop": m, "marginBottom": m, "marginLeft": m, "marginRight": m,
        "scale": print.scale(),
        "pageRanges": print.ranges(),
        "preferCSSPageSize": false,
    });
    p.log(format!("printing on {width} x {height} in"));
    let printed: Result<PrintToPdfResult, CdpError> =
        page.session.call("Page.printToPDF", params, budget.remaining()).await;
    let printed = match printed {
        Ok(printed) => printed,
        Err(CdpError::Protocol { message, .. }) => {
            return Err(fail(
                ErrorCode::BadRequest,
                phase,
                format!("page.pdf: Chromium refused the print: {message}"),
            ))
        }
        Err(e) => return Err(cdp_failure(phase, e)),
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(printed.data.as_bytes())
        .map_err(|e| fail(ErrorCode::Internal, phase, format!("PDF data is not base64: {e}")))?;
    let pages = count_pages(&bytes);
    write_private(std::path::Path::new(path), &bytes, phase)?;
    Ok(Output::Pdf(PdfResult { path: path.to_string(), bytes: bytes.len() as u64, pages }))
}

/// `Page.printToPDF`'s answer (base64 `data`).
#[derive(Debug, serde::Deserialize)]
struct PrintToPdfResult {
    data: String,
}

/// The page objects of a PDF Chromium wrote: `/Type /Page` not followed by `s` (`/Pages` is the
/// tree's root).
fn count_pages(pdf: &[u8]) -> u32 {
    let needle = b"/Type /Page";
    pdf.windows(needle.len() + 1).filter(|w| w.starts_with(needle) && w[needle.len()] != b's').count() as u32
}

/// Writes an artifact as the runtime writes every file ([`sb_protocol::files`]): its directory made
/// 0700 when missing, the file created new, 0600, never through a file or symlink already there, and
/// none left behind when the write fails; a full disk answers `disk_full`.
pub(crate) fn write_private(path: &std::path::Path, bytes: &[u8], phase: Phase) -> Result<(), WorkerError> {
    use std::os::unix::fs::DirBuilderExt;
    let written = match path.parent().filter(|d| !d.exists()) {
        Some(dir) => {
            std::fs::DirBuilder::new().recursive(true).mode(sb_protocol::files::DIR_MODE).create(dir)
        }
        None => Ok(()),
    }
    .and_then(|()| sb_protocol::files::write_private(path, bytes));
    written.map_err(|e| {
        let body = sb_protocol::files::failed_write(phase, path, &e);
        fail(body.code, phase, body.message)
    })
}

/// Scrolls the page by (`dx`, `dy`) CSS px with a mouse wheel at the viewport's center
/// (`Input.dispatchMouseEvent` `mouseWheel`) and answers the new scroll position.
pub(crate) async fn scroll(page: &Page, dx: f64, dy: f64, p: &Progress) -> Result<Output, WorkerError> {
    let budget = p.budget();
    // A scroll by deltas has no element to check (`page.scroll` starts in `actionability`).
    let phase = Phase::Cdp;
    p.enter(phase);
    let [width, height] =
        eval_as::<[f64; 2]>(page, "[innerWidth, innerHeight]", phase, "reading the viewport's size", p)
            .await?;
    page.session
        .run(
            &InputDispatchMouseEvent {
                kind: "mouseWheel".into(),
                x: width / 2.0,
                y: height / 2.0,
                delta_x: Some(dx),
                delta_y: Some(dy),
                ..InputDispatchMouseEvent::default()
            },
            budget.remaining(),
        )
        .await
        .map_err(|e| cdp_failure(phase, e))?;
    // The wheel scrolls on the compositor; the position is read once a frame has gone by.
    let [scroll_x, scroll_y] = eval_as::<[f64; 2]>(
        page,
        "new Promise((r) => { const t = setTimeout(() => r([scrollX, scrollY]), 100); requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(t); r([scrollX, scrollY]); })); })",
        phase,
        "reading the scroll position after the wheel",
        p,
    )
    .await?;
    Ok(Output::Scrolled(ScrollResult { scroll_x, scroll_y }))
}

/// The in-page part of `page.storage`: `(area, op) => {origin, items}` in the runtime's isolated world
/// (the page's own globals cannot stand in for `Storage`'s methods there), or `{error}` for an origin
/// without storage (`about:blank`, `data:`: an opaque origin throws `SecurityError`).
const STORAGE: &str = r#"(kind, op) => {
  let s;
  try { s = kind === 'local' ? localStorage : sessionStorage; } catch (e) { return {error: String(e.message || e)}; }
  if (op.action === 'set') s.setItem(op.key, op.value);
  else if (op.action === 'delete') s.removeItem(op.key);
  else if (op.action === 'clear') s.clear();
  const items = [];
  for (let i = 0; i < s.length; i++) { const name = s.key(i); items.push({name, value: s.getItem(name)}); }
  const only = op.action === 'get' && op.key != null;
  return {origin: location.origin, items: only ? items.filter(i => i.name === op.key) : items};
}"#;

/// `page.storage`: the active tab's `localStorage` or `sessionStorage` after `action`.
///
/// # Errors
/// `bad_request` when the page's origin has no storage (opaque) or `set` would pass the origin's
/// quota; a CDP failure or timeout.
pub(crate) async fn storage(
    page: &Page,
    params: StorageParams,
    _: Option<&Locator>,
    p: &Progress,
) -> Result<StorageResult, WorkerError> {
    let StorageParams { kind, action, key, value } = params;
    let phase = Phase::Cdp;
    let budget = p.budget();
    let kind = json!(kind);
    let op = json!({"action": action, "key": key, "value": value});
    let call = CallFunctionOn {
        function_declaration: STORAGE.to_string(),
        arguments: vec![json!({ "value": kind }), json!({ "value": op })],
        return_by_value: true,
        await_promise: true,
        ..CallFunctionOn::default()
    };
    let r = page.worlds.call(&page.session, &page.target_id, call, budget).await;
    let r = r.map_err(|e| cdp_failure(phase, e))?;
    if let Some(details) = r.exception_details {
        return Err(fail(ErrorCode::BadRequest, phase, format!("page.storage: {}", details.message())));
    }
    let value = r.result.value.unwrap_or(Value::Null);
    if let Some(error) = value.get("error").and_then(Value::as_str) {
        let url = url_and_title(page, budget).await.0.unwrap_or_default();
        return Err(fail(
            ErrorCode::BadRequest,
            phase,
            format!("page.storage: the page at {url} has no storage of its own ({error})"),
        ));
    }
    crate::tab::page::decode(value, phase, "page.storage")
}

/// `page.clipboard`'s script, in the runtime's isolated world: `{text}`, or `{error}` with the page's
/// refusal.
const CLIPBOARD: &str = r#"async (action, text) => {
  if (!navigator.clipboard) return { error: 'no navigator.clipboard: the page is not a secure context (https, or localhost)' };
  try {
    if (action === 'write') { await navigator.clipboard.writeText(text); return { text }; }
    return { text: await navigator.clipboard.readText() };
  } catch (e) { return { error: String((e && e.message) || e) }; }
}"#;

/// `page.clipboard`: the system clipboard as the active tab's page sees it
/// (`navigator.clipboard.readText` / `writeText`), called as a user's gesture.
///
/// # Errors
/// `bad_request` when the page may not (a read without the `clipboard-read` permission, a page that is
/// not a secure context); a CDP failure or timeout.
pub(crate) async fn clipboard(
    page: &Page,
    params: ClipboardParams,
    _: Option<&Locator>,
    p: &Progress,
) -> Result<ClipboardResult, WorkerError> {
    let ClipboardParams { action, text } = params;
    let phase = Phase::Cdp;
    let call = CallFunctionOn {
        function_declaration: CLIPBOARD.to_string(),
        arguments: vec![json!({ "value": action }), json!({ "value": text })],
        return_by_value: true,
        await_promise: true,
        user_gesture: true,
        ..CallFunctionOn::default()
    };
    let r = page.worlds.call(&page.session, &page.target_id, call, p.budget()).await;
    let value = r.map_err(|e| cdp_failure(phase, e))?.result.value.unwrap_or(Value::Null);
    if let Some(error) = value.get("error").and_then(Value::as_str) {
        let permission = match action {
            sb_protocol::api::ClipboardAction::Read => "clipboard-read",
            sb_protocol::api::ClipboardAction::Write => "clipboard-write",
        };
        return Err(fail(
            ErrorCode::BadRequest,
            phase,
            format!("page.clipboard: the page may not use the clipboard ({error}); grant the session {permission} (session.start or page.emulate {{permissions}})"),
        ));
    }
    crate::tab::page::decode(value, phase, "page.clipboard")
}
