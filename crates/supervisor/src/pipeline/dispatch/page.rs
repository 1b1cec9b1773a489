//! The page methods' entries: navigation, reading (extract, screenshot, PDF, evaluate, snapshot),
//! waiting, the viewport and frames, checks (`page.verify`, `page.query`), storage, the clipboard
//! and dialogs.

use sb_protocol::api::{
    ElementParams, EvaluateParams, EvaluateResult, FillFormParams, FillFormResult, GotoParams, GotoResult,
    HandleDialogParams, HandleDialogResult, PdfParams, PdfResult, ScreenshotParams, ScreenshotResult,
    SetViewportParams, SetViewportResult, SnapshotParams, SnapshotResult, UploadParams, UploadResult,
    WaitForResult, DEFAULT_SNAPSHOT_MAX_CHARS, MAX_FORM_FIELDS, MAX_PDF_PAGES, MAX_UPLOAD_FILES,
};
use sb_protocol::error::bad_request;
use sb_protocol::ipc::{
    Action, DialogPolicyOutput, Display, EvaluateOutput, Locator, SnapshotOptions, SnapshotOutput,
    WaitCondition,
};
use sb_protocol::{Budget, ErrorBody, ErrorCode, Phase};
use serde_json::Value;

use super::method::{
    evaluate_allowed, finish_as, frame_target, locator, looks_like_ref, params, required, wait_condition,
    Done, PageMethod, Supervised,
};
use crate::sessions::downloads::DOWNLOAD_NEWS;

pub(super) static GOTO: PageMethod = PageMethod {
    prepare: |_, v, _| {
        let p: GotoParams = params(v)?;
        Ok(Action::Goto { url: p.url })
    },
    // The page's URL as the agent is told it: without a `user:password@` it was given.
    finish: |o| {
        finish_as(o, |mut g: GotoResult| {
            g.url = sb_protocol::redact::userinfo(&g.url).into_owned();
            Done { url: Some(g.url.clone()), ..Done::of(g) }
        })
    },
    numbers_refs: false,
    after: Some(|s, outcome| Box::pin(said_a_download(s, outcome))),
};

/// A `page.goto` that failed with `net::ERR_ABORTED` because its URL is a download (Chromium saves it
/// and leaves the tab where it was) says so, naming the file, where it said only "navigation ...
/// failed: net::ERR_ABORTED" (Playwright's goto: "Download is starting"). The download's
/// `Browser.downloadWillBegin` comes on the supervisor's connection, at about the time the worker
/// answers: waited for at most [`DOWNLOAD_NEWS`], within the request's budget.
async fn said_a_download(s: &Supervised<'_>, outcome: &mut Result<Value, ErrorBody>) {
    let Err(e) = outcome else { return };
    if e.code != ErrorCode::NavigationFailed || !e.message.contains("net::ERR_ABORTED") {
        return;
    }
    let started = Budget::new(s.budget.capped(DOWNLOAD_NEWS))
        .wait_notified(&s.downloads.changed, || {
            let all = s.downloads.list(s.session_id);
            all.get(s.downloads_before..).and_then(|new| new.first().cloned())
        })
        .await;
    if let Some(d) = started {
        e.message = format!(
            "{} is a download, not a page: the browser saved it ({:?}) and the tab stays where it was; \
             page.downloads lists it, page.wait_for {{download: true}} waits for it to end",
            d.url, d.suggested_filename
        );
    }
}

/// `page.back`, `page.forward`, `page.reload`: answered as `page.goto` is (their params, none, are
/// checked before dispatch, as `page.frames`').
pub(super) static BACK: PageMethod = PageMethod {
    prepare: |_, _, _| Ok(Action::History { delta: -1 }),
    finish: GOTO.finish,
    numbers_refs: false,
    after: None,
};

pub(super) static FORWARD: PageMethod = PageMethod {
    prepare: |_, _, _| Ok(Action::History { delta: 1 }),
    finish: GOTO.finish,
    numbers_refs: false,
    after: None,
};

pub(super) static RELOAD: PageMethod = PageMethod {
    prepare: |_, _, _| Ok(Action::Reload),
    finish: GOTO.finish,
    numbers_refs: false,
    after: None,
};

pub(super) static SCREENSHOT: PageMethod = PageMethod {
    prepare: |_, v, cx| {
        let p: ScreenshotParams = params(v)?;
        let target = locator(cx, p.element.clone(), true)?;
        if target.is_some() && (p.clip.is_some() || p.full_page) {
            return Err(bad_request(
                "page.screenshot takes an element (ref or selector), or clip and full_page, not both",
            ));
        }
        if let Some(c) = &p.clip {
            let ok = c.as_array().iter().all(|v| v.is_finite() && v.abs() <= 1e6)
                && c.width >= 1.0
                && c.height >= 1.0;
            if !ok {
                return Err(bad_request(
                    "page.screenshot clip needs finite x, y within ±1000000 and width, height of at least 1 CSS px",
                ));
            }
        }
        let path = cx.artifact_path(p.format.as_str())?;
        Ok(Action::Screenshot { params: p, path, target })
    },
    finish: |o| finish_as(o, Done::of::<ScreenshotResult>),
    numbers_refs: false,
    after: None,
};

/// `page.fill_form`: each field named by exactly one of ref or selector; at most
/// [`MAX_FORM_FIELDS`].
pub(super) static FILL_FORM: PageMethod = PageMethod {
    prepare: |_, v, cx| {
        let p: FillFormParams = params(v)?;
        if p.fields.is_empty() || p.fields.len() > MAX_FORM_FIELDS {
            return Err(bad_request(format!("page.fill_form takes 1 to {MAX_FORM_FIELDS} fields")));
        }
        let mut fields = Vec::new();
        for (i, f) in p.fields.into_iter().enumerate() {
            // The field named in the message; the code stays (an unknown or stale ref says so).
            let target = required(cx, f.element).map_err(|mut e| {
                e.message = format!("page.fill_form field {}: {}", i + 1, e.message);
                e
            })?;
            fields.push((target, f.value));
        }
        Ok(Action::FillForm { fields })
    },
    finish: |o| finish_as(o, Done::of::<FillFormResult>),
    numbers_refs: false,
    after: None,
};

/// `page.upload`: each name a plain name of a regular file in the uploads dir, opened once and
/// copied into the session owner's own directory ([`Context::stage_uploads`](super::Context::stage_uploads)), which the browser
/// reads.
pub(super) static UPLOAD: PageMethod = PageMethod {
    prepare: |_, v, cx| {
        let p: UploadParams = params(v)?;
        let Some(dir) = cx.uploads_dir() else {
            return Err(bad_request(
                "page.upload is off: the runtime has no [files] uploads_dir to take files from",
            ));
        };
        if p.files.len() > MAX_UPLOAD_FILES {
            return Err(bad_request(format!("page.upload takes at most {MAX_UPLOAD_FILES} files")));
        }
        let target = locator(cx, p.element, true)?;
        let (paths, bytes) = cx.stage_uploads(dir, &p.files)?;
        Ok(Action::Upload { target, paths, names: p.files, bytes })
    },
    finish: |o| finish_as(o, Done::of::<UploadResult>),
    numbers_refs: false,
    after: None,
};

/// `page.pdf`: its numbers checked here (in range; NaN is not), the paper in portrait inches with
/// `landscape` beside it, as Playwright's `page.pdf()` passes them to `Page.printToPDF`.
pub(super) static PDF: PageMethod = PageMethod {
    prepare: |_, v, cx| {
        let p: PdfParams = params(v)?;
        if !(0.0..=5.0).contains(&p.margin()) {
            return Err(bad_request("page.pdf margin_in is inches, from 0 to 5"));
        }
        if !(0.1..=2.0).contains(&p.scale()) {
            return Err(bad_request("page.pdf scale is from 0.1 to 2"));
        }
        let page_ranges = p.page_ranges.as_deref().unwrap_or_default();
        let ranges_ok = page_ranges.len() <= 200
            && page_ranges.chars().all(|c| c.is_ascii_digit() || matches!(c, '-' | ',' | ' '));
        if !ranges_ok {
            return Err(bad_request("page.pdf page_ranges are 1-based pages and ranges: \"1-5, 8, 11-13\""));
        }
        let past_the_cap = page_ranges
            .split(|c: char| !c.is_ascii_digit())
            .any(|n| !n.is_empty() && n.parse::<u64>().map_or(true, |n| n > u64::from(MAX_PDF_PAGES)));
        if past_the_cap {
            return Err(bad_request(format!(
                "page.pdf prints at most {MAX_PDF_PAGES} pages: page_ranges past page {MAX_PDF_PAGES}"
            )));
        }
        Ok(Action::Pdf { params: p, path: cx.artifact_path("pdf")? })
    },
    finish: |o| finish_as(o, Done::of::<PdfResult>),
    numbers_refs: false,
    after: None,
};

pub(super) static EVALUATE: PageMethod = PageMethod {
    prepare: |_, v, cx| {
        evaluate_allowed(cx, Phase::Evaluate)?;
        let p: EvaluateParams = params(v)?;
        let has_element = p.element != ElementParams::default();
        if has_element && p.frame.is_some() {
            return Err(bad_request("page.evaluate takes frame or an element (ref, selector), not both"));
        }
        let frame = p.frame.map(|f| frame_target(cx, f)).transpose()?;
        let arg_json = p.arg.map(|v| v.to_string());
        match (p.expression, p.function) {
            (Some(expression), None) if !has_element => Ok(Action::Evaluate { expression, frame, arg_json }),
            (None, Some(function)) => {
                let target = locator(cx, p.element, true)?;
                Ok(Action::CallFunction { function, target, frame, arg_json })
            }
            _ => Err(bad_request(
                "page.evaluate takes an expression, or a function (with ref or selector for its element)",
            )),
        }
    },
    finish: |o| {
        finish_as(o, |e: EvaluateOutput| {
            let value: Option<Value> = e.value_json.and_then(|v| serde_json::from_str(&v).ok());
            let mut done = Done::of(EvaluateResult {
                kind: e.kind,
                value: None,
                unserializable: e.unserializable,
                description: e.description,
            });
            // Moved in, not serialized again: a value can be tens of MB (a copy of its tree cost seconds).
            if let (Some(value), Some(result)) = (value, done.result.as_object_mut()) {
                result.insert("value".into(), value);
            }
            done
        })
    },
    numbers_refs: false,
    after: None,
};

pub(super) static WAIT_FOR: PageMethod = PageMethod {
    prepare: |_, v, cx| {
        let condition = wait_condition(params(v)?)?;
        if matches!(condition, WaitCondition::Function(_)) {
            evaluate_allowed(cx, Phase::Wait)?;
        }
        Ok(Action::WaitFor { condition })
    },
    finish: |o| finish_as(o, Done::of::<WaitForResult>),
    numbers_refs: false,
    after: None,
};

pub(super) static SNAPSHOT: PageMethod = PageMethod {
    prepare: |_, v, cx| {
        let p: SnapshotParams = params(v)?;
        let scope = match p.scope {
            None => None,
            Some(s) if looks_like_ref(&s) => Some(Locator::Ref(cx.reference(&s)?)),
            Some(css) => Some(Locator::Selector(css)),
        };
        let options = SnapshotOptions {
            interactive: p.interactive,
            compact: p.compact,
            max_depth: p.max_depth,
            scope,
            max_chars: p.max_chars.unwrap_or(DEFAULT_SNAPSHOT_MAX_CHARS),
            diff: p.diff,
        };
        Ok(Action::Snapshot { options, next_ref: cx.next_ref() })
    },
    finish: |o| {
        finish_as(o, |s: SnapshotOutput| {
            let result = SnapshotResult {
                snapshot: s.text,
                lines: s.lines,
                chars: s.chars,
                tokens_estimate: s.chars.div_ceil(4),
                diff: s.diff,
                refs: s.refs.len() as u64,
                truncated: s.truncated,
                loading: s.loading,
                url: s.url,
                title: s.title,
            };
            Done { refs: s.refs, ..Done::of(result) }
        })
    },
    numbers_refs: true,
    after: None,
};

pub(super) static SET_VIEWPORT: PageMethod = PageMethod {
    prepare: |_, v, _| {
        let p: SetViewportParams = params(v)?;
        let display = Display::checked(p.width, p.height, p.device_scale_factor.unwrap_or(1.0))
            .map_err(|m| bad_request(format!("page.set_viewport {m}")))?;
        Ok(Action::SetDisplay { display })
    },
    finish: |o| {
        finish_as(o, |d: Display| Done {
            display: Some(d),
            ..Done::of(SetViewportResult { width: d.width, height: d.height, device_scale_factor: d.scale })
        })
    },
    numbers_refs: false,
    after: None,
};

pub(super) static HANDLE_DIALOG: PageMethod = PageMethod {
    prepare: |_, v, _| {
        let p: HandleDialogParams = params(v)?;
        Ok(Action::HandleDialog { accept: p.accept, prompt_text: p.prompt_text })
    },
    finish: |o| {
        finish_as(o, |d: DialogPolicyOutput| {
            Done::of(HandleDialogResult { next_dialog: if d.accept { "accept" } else { "dismiss" }.into() })
        })
    },
    numbers_refs: false,
    after: None,
};
