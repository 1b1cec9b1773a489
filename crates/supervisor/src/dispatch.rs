//! Dispatch as data: what each API method does, one entry a method.
//!
//! A page method is a [`PageMethod`]: a pure `params -> Action` ([`PageMethod::prepare`], given what it
//! needs of its session through [`Context`]) and a pure `Output -> result` ([`PageMethod::finish`]).
//! Neither touches a browser, so both are unit-tested here without Chromium; the runtime runs the
//! action in the session's queue between them. Methods that are not page actions the runtime answers
//! itself: without a session ([`RuntimeOp`]: `runtime.*`, `session.start`, `session.list`) or on one
//! ([`SessionOp`]: `session.close`, `tabs.*`). The route is total, so the runtime's handlers have no
//! arm for a method routed elsewhere.
//!
//! Adding a page method is adding one entry to [`route`] (and its `Action` and `Output` kinds to
//! `sb_protocol::ipc`). Every parameter is checked in `prepare`, so a bad request answers
//! `bad_request` before it waits in the session's queue or triggers a health check.

use sb_protocol::api::{
    CheckParams, ClickParams, ConsoleParams, ConsoleResult, DragParams, ElementParams, EvaluateParams,
    EvaluateResult, ExtractParams, ExtractResult, FillFormParams, FillFormResult, FillParams, FramesResult,
    GotoParams, GotoResult, HandleDialogParams, HandleDialogResult, HoverParams, InputResult, Method,
    NetworkParams, NetworkResult, PdfParams, PdfResult, PressParams, ScreenshotParams, ScreenshotResult,
    ScrollParams, ScrollResult, SelectParams, SelectResult, SetViewportParams, SetViewportResult, Settle,
    SnapshotParams, SnapshotResult, TypeParams, UploadParams, UploadResult, WaitForParams, WaitForResult,
    DEFAULT_EXTRACT_MAX_CHARS, DEFAULT_SCREENSHOT_MAX_HEIGHT, DEFAULT_SNAPSHOT_MAX_CHARS, MAX_CLICK_COUNT,
    MAX_FORM_FIELDS, MAX_JOURNAL_LIMIT, MAX_PDF_PAGES, MAX_SCROLL_DELTA, MAX_SETTLE_MS, MAX_UPLOAD_FILES,
};
use sb_protocol::api::{ClipboardAction, ClipboardParams, ClipboardResult, MAX_CLIPBOARD_CHARS};
use sb_protocol::api::{
    EmulateParams, EmulateResult, Emulation, KeyboardAction, KeyboardParams, MouseAction, MouseParams,
    QueryParams, QueryResult, StorageAction, StorageParams, StorageResult, VerifyCheck, VerifyParams,
    VerifyResult, MAX_EXTRA_HEADERS, MAX_INIT_SCRIPTS, MAX_INIT_SCRIPT_BYTES,
};
use sb_protocol::api::{HarContent, HarParams, HarResult, TraceAction};
use sb_protocol::api::{Route as UrlRoute, UnrouteParams, MAX_ROUTE_BODY_BYTES};
use sb_protocol::error::bad_request;
use sb_protocol::ipc::{
    Action, DialogPolicyOutput, Display, EvaluateOutput, FrameTarget, InputAction, Locator, MouseInput,
    Output, RefRecord, SnapshotOptions, SnapshotOutput, WaitCondition,
};
use sb_protocol::{ErrorBody, ErrorCode, Phase};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// What a page method may ask of its session while it builds its action.
pub trait Context {
    /// A ref the session issued.
    ///
    /// # Errors
    /// `unknown_ref` / `stale_ref`.
    fn reference(&self, id: &str) -> Result<RefRecord, ErrorBody>;
    /// Whether in-page JavaScript of the caller's may run (`evaluate_enabled`).
    fn evaluate_enabled(&self) -> bool;
    /// Whether sessions are kept apart by their tokens (`[limits] session_tokens`).
    fn sessions_apart(&self) -> bool;
    /// Where `page.upload` takes files from (`[files] uploads_dir`); `None`: uploads are off.
    fn uploads_dir(&self) -> Option<&std::path::Path>;
    /// The files `names` of the uploads dir `dir`, each opened once ([`crate::files::open_regular_under`]:
    /// a plain name of a regular file, not a symlink) and copied into a new directory of the session
    /// owner's uploads ([`crate::files::Kind::Uploads`]) under its own name: their paths there and
    /// their bytes in all. The browser reads a chosen file by its path, later (when the page reads
    /// it): the copy is the file that was checked, whatever is swapped in the uploads dir meanwhile.
    ///
    /// # Errors
    /// `bad_request` naming a file that is missing, not plain, a symlink or not a regular file;
    /// `internal` when a copy cannot be written.
    fn stage_uploads(&self, dir: &std::path::Path, names: &[String])
        -> Result<(Vec<String>, u64), ErrorBody>;
    /// Where the session's next artifact (a screenshot, a PDF) with file `extension` is written: in
    /// its owner's directory of that kind ([`crate::files::owned_dir`]).
    ///
    /// # Errors
    /// `internal` when that directory cannot be made.
    fn artifact_path(&self, extension: &str) -> Result<String, ErrorBody>;
    /// Where the session's artifact named `name` (a plain file name; `.extension` added when it
    /// does not end so) is written: in its owner's directory of that kind.
    ///
    /// # Errors
    /// `bad_request` for a name that is not plain; `internal` when the directory cannot be made.
    fn named_artifact(&self, extension: &str, name: &str) -> Result<String, ErrorBody>;
    /// The number the session's next new ref gets (held steady while a snapshot runs).
    fn next_ref(&self) -> u64;
    /// What the session's pages emulate now (`page.emulate`).
    fn emulation(&self) -> Emulation;
    /// The bytes of file `name` of the uploads dir (opened once as
    /// [`crate::files::open_regular_under`] opens it), at most `max_bytes`.
    ///
    /// # Errors
    /// `bad_request` when uploads are off, or naming a file that is missing, not plain, a symlink,
    /// not a regular file or larger than `max_bytes`.
    fn read_upload(&self, name: &str, max_bytes: usize) -> Result<Vec<u8>, ErrorBody>;
}

/// A finished page action: its result, and what the session keeps of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    /// The method's result object (the API's `*Result` type as JSON).
    pub result: Value,
    /// Refs a snapshot issued, for the session's ref table.
    pub refs: Vec<RefRecord>,
    /// The main frame's URL the action reports (goto), for the session store.
    pub url: Option<String>,
    /// The session's display from now on (`page.set_viewport`).
    pub display: Option<Display>,
    /// What the session's pages emulate from now on (`page.emulate`).
    pub emulation: Option<Emulation>,
}

impl Done {
    fn of<T: serde::Serialize>(result: T) -> Done {
        // The API's result types are plain structs: they always serialize.
        Done {
            result: serde_json::to_value(result).unwrap_or(Value::Null),
            refs: Vec::new(),
            url: None,
            display: None,
            emulation: None,
        }
    }
}

/// One page method.
pub struct PageMethod {
    /// Params -> the worker's action. Checks every parameter.
    pub prepare: fn(Value, &dyn Context) -> Result<Action, ErrorBody>,
    /// The worker's output -> the result. An output of another kind is answered `internal`.
    pub finish: fn(Output) -> Result<Done, ErrorBody>,
    /// Holds the session's ref numbering from `prepare` to storing the refs (snapshots), so two
    /// snapshots never share numbers.
    pub numbers_refs: bool,
}

/// Where a method is answered.
pub enum Route {
    /// By the runtime itself, without a session.
    Runtime(RuntimeOp),
    /// On a session.
    Session(OnSession),
}

/// How a method on a session is answered.
pub enum OnSession {
    /// By the runtime itself.
    Op(SessionOp),
    /// By a page action in the session's worker.
    Page(&'static PageMethod),
}

/// The methods the runtime answers without a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeOp {
    /// `runtime.health`.
    Health,
    /// `runtime.stats`.
    Stats,
    /// `runtime.metrics`.
    Metrics,
    /// `session.start`.
    SessionStart,
    /// `session.list`.
    SessionList,
}

/// The methods the runtime answers on a session, without its worker's page action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionOp {
    /// `session.close`.
    Close,
    /// `tabs.list`.
    TabsList,
    /// `page.downloads`.
    Downloads,
    /// `tabs.open`.
    TabsOpen,
    /// `tabs.focus`.
    TabsFocus,
    /// `tabs.close`.
    TabsClose,
    /// `session.cookies`.
    Cookies,
    /// `session.storage_state`.
    StorageState,
    /// `session.trace`.
    Trace,
    /// `page.wait_for {download}`, `{popup}` and `{dialog}`: events the supervisor sees (a dialog of a
    /// tab it holds), or sees first.
    WaitForEvent,
}

/// The route of a request of `method` with `params`: [`route`]'s, but `page.wait_for` of a download
/// or a popup (which the supervisor sees, not the session's page) or of a dialog (which may open in a
/// tab the supervisor holds as well as in the worker's) is the runtime's.
pub fn route_call(method: Method, params: &Value) -> Route {
    let event = |name: &str| params.get(name) == Some(&Value::Bool(true));
    if method == Method::PageWaitFor && (event("download") || event("popup") || event("dialog")) {
        return Route::Session(OnSession::Op(SessionOp::WaitForEvent));
    }
    route(method)
}

/// The route of `method`: the dispatch table.
pub fn route(method: Method) -> Route {
    use Method::*;
    let entry: &'static PageMethod = match method {
        RuntimeHealth => return Route::Runtime(RuntimeOp::Health),
        RuntimeStats => return Route::Runtime(RuntimeOp::Stats),
        RuntimeMetrics => return Route::Runtime(RuntimeOp::Metrics),
        SessionStart => return Route::Runtime(RuntimeOp::SessionStart),
        SessionList => return Route::Runtime(RuntimeOp::SessionList),
        SessionClose => return Route::Session(OnSession::Op(SessionOp::Close)),
        SessionCookies => return Route::Session(OnSession::Op(SessionOp::Cookies)),
        SessionStorageState => return Route::Session(OnSession::Op(SessionOp::StorageState)),
        SessionTrace => return Route::Session(OnSession::Op(SessionOp::Trace)),
        TabsList => return Route::Session(OnSession::Op(SessionOp::TabsList)),
        PageDownloads => return Route::Session(OnSession::Op(SessionOp::Downloads)),
        TabsOpen => return Route::Session(OnSession::Op(SessionOp::TabsOpen)),
        TabsFocus => return Route::Session(OnSession::Op(SessionOp::TabsFocus)),
        TabsClose => return Route::Session(OnSession::Op(SessionOp::TabsClose)),
        PageGoto => &GOTO,
        PageBack => &BACK,
        PageForward => &FORWARD,
        PageReload => &RELOAD,
        PageExtract => &EXTRACT,
        PageScreenshot => &SCREENSHOT,
        PagePdf => &PDF,
        PageUpload => &UPLOAD,
        PageFillForm => &FILL_FORM,
        PageEvaluate => &EVALUATE,
        PageWaitFor => &WAIT_FOR,
        PageSnapshot => &SNAPSHOT,
        PageClick => &CLICK,
        PageType => &TYPE,
        PageFill => &FILL,
        PagePress => &PRESS,
        PageHover => &HOVER,
        PageHandleDialog => &HANDLE_DIALOG,
        PageSelect => &SELECT,
        PageCheck => &CHECK,
        PageScroll => &SCROLL,
        PageDrag => &DRAG,
        PageSetViewport => &SET_VIEWPORT,
        PageFrames => &FRAMES,
        PageConsole => &CONSOLE,
        PageEmulate => &EMULATE,
        PageStorage => &STORAGE,
        PageMouse => &MOUSE,
        PageKeyboard => &KEYBOARD,
        PageNetwork => &NETWORK,
        PageVerify => &VERIFY,
        PageQuery => &QUERY,
        PageClipboard => &CLIPBOARD,
        PageRoute => &ROUTE,
        PageUnroute => &UNROUTE,
        PageRoutes => &ROUTES,
        SessionHar => &HAR,
    };
    Route::Session(OnSession::Page(entry))
}

static GOTO: PageMethod = PageMethod {
    prepare: |v, _| {
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
};

/// `page.back`, `page.forward`, `page.reload`: answered as `page.goto` is (their params, none, are
/// checked before dispatch, as `page.frames`').
static BACK: PageMethod = PageMethod {
    prepare: |_, _| Ok(Action::History { delta: -1 }),
    finish: GOTO.finish,
    numbers_refs: false,
};

static FORWARD: PageMethod =
    PageMethod { prepare: |_, _| Ok(Action::History { delta: 1 }), finish: GOTO.finish, numbers_refs: false };

static RELOAD: PageMethod =
    PageMethod { prepare: |_, _| Ok(Action::Reload), finish: GOTO.finish, numbers_refs: false };

static EXTRACT: PageMethod = PageMethod {
    prepare: |v, _| {
        let p: ExtractParams = params(v)?;
        Ok(Action::Extract { format: p.format, max_chars: p.max_chars.unwrap_or(DEFAULT_EXTRACT_MAX_CHARS) })
    },
    finish: |o| finish_as(o, Done::of::<ExtractResult>),
    numbers_refs: false,
};

static SCREENSHOT: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: ScreenshotParams = params(v)?;
        let target = locator(cx, p.element, true)?;
        if target.is_some() && (p.clip.is_some() || p.full_page) {
            return Err(bad_request(
                "page.screenshot takes an element (ref or selector), or clip and full_page, not both",
            ));
        }
        let clip = match p.clip {
            None => None,
            Some(c) => {
                let ok = [c.x, c.y, c.width, c.height].iter().all(|v| v.is_finite() && v.abs() <= 1e6)
                    && c.width >= 1.0
                    && c.height >= 1.0;
                if !ok {
                    return Err(bad_request(
                        "page.screenshot clip needs finite x, y within ±1000000 and width, height of at least 1 CSS px",
                    ));
                }
                Some([c.x, c.y, c.width, c.height])
            }
        };
        Ok(Action::Screenshot {
            full_page: p.full_page,
            format: p.format,
            quality: p.quality,
            inline: p.inline,
            max_height: p.max_height.unwrap_or(DEFAULT_SCREENSHOT_MAX_HEIGHT),
            path: cx.artifact_path(p.format.as_str())?,
            clip,
            target,
        })
    },
    finish: |o| finish_as(o, Done::of::<ScreenshotResult>),
    numbers_refs: false,
};

/// `page.fill_form`: each field named by exactly one of ref or selector; at most
/// [`MAX_FORM_FIELDS`].
static FILL_FORM: PageMethod = PageMethod {
    prepare: |v, cx| {
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
};

/// `page.upload`: each name a plain name of a regular file in the uploads dir, opened once and
/// copied into the session owner's own directory ([`Context::stage_uploads`]), which the browser
/// reads.
static UPLOAD: PageMethod = PageMethod {
    prepare: |v, cx| {
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
};

/// `page.pdf`: its numbers checked here (in range; NaN is not), the paper in portrait inches with
/// `landscape` beside it, as Playwright's `page.pdf()` passes them to `Page.printToPDF`.
static PDF: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: PdfParams = params(v)?;
        let margin_in = p.margin_in.unwrap_or(0.4);
        let scale = p.scale.unwrap_or(1.0);
        if !(0.0..=5.0).contains(&margin_in) {
            return Err(bad_request("page.pdf margin_in is inches, from 0 to 5"));
        }
        if !(0.1..=2.0).contains(&scale) {
            return Err(bad_request("page.pdf scale is from 0.1 to 2"));
        }
        let page_ranges = p.page_ranges.unwrap_or_default();
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
        // Without ranges, the first MAX_PDF_PAGES (Chromium prints a shorter document whole).
        let page_ranges =
            if page_ranges.trim().is_empty() { format!("1-{MAX_PDF_PAGES}") } else { page_ranges };
        let (w, h) = p.paper.inches();
        Ok(Action::Pdf {
            paper_in: (w, h),
            landscape: p.landscape,
            print_background: p.print_background,
            margin_in,
            scale,
            page_ranges,
            path: cx.artifact_path("pdf")?,
        })
    },
    finish: |o| finish_as(o, Done::of::<PdfResult>),
    numbers_refs: false,
};

static EVALUATE: PageMethod = PageMethod {
    prepare: |v, cx| {
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
};

static WAIT_FOR: PageMethod = PageMethod {
    prepare: |v, cx| {
        let condition = wait_condition(params(v)?)?;
        if matches!(condition, WaitCondition::Function(_)) {
            evaluate_allowed(cx, Phase::Wait)?;
        }
        Ok(Action::WaitFor { condition })
    },
    finish: |o| finish_as(o, Done::of::<WaitForResult>),
    numbers_refs: false,
};

static SNAPSHOT: PageMethod = PageMethod {
    prepare: |v, cx| {
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
};

/// An input action on one element (`optional`: on the focused element when none is named).
fn input(
    cx: &dyn Context,
    element: ElementParams,
    optional: bool,
    input: InputAction,
    settle: Settle,
) -> Result<Action, ErrorBody> {
    Ok(Action::Input { target: locator(cx, element, optional)?, input, settle_ms: settle_ms(settle)? })
}

/// An input's `settle_ms`: at most [`MAX_SETTLE_MS`] (the budget caps it further), 0 when absent.
fn settle_ms(settle: Settle) -> Result<u64, ErrorBody> {
    match settle.settle_ms.unwrap_or(0) {
        ms @ 0..=MAX_SETTLE_MS => Ok(ms),
        ms => Err(bad_request(format!("settle_ms must be 0 to {MAX_SETTLE_MS}; got {ms}"))),
    }
}

/// A scroll delta (CSS px): finite and within [`MAX_SCROLL_DELTA`] either way (0 when absent).
fn delta(name: &str, v: Option<f64>) -> Result<f64, ErrorBody> {
    css_px(&format!("page.scroll {name}"), v.unwrap_or(0.0))
}

/// A length or coordinate `what` (CSS px): finite and within ±[`MAX_SCROLL_DELTA`].
fn css_px(what: &str, v: f64) -> Result<f64, ErrorBody> {
    if !v.is_finite() || v.abs() > MAX_SCROLL_DELTA {
        let got = if v.is_finite() && v.abs() < 1e9 { format!("{v}") } else { format!("{v:e}") };
        return Err(bad_request(format!(
            "{what} must be a number of CSS px within ±{MAX_SCROLL_DELTA}; got {got}"
        )));
    }
    Ok(v)
}

/// A click count: 1 (the default) to [`MAX_CLICK_COUNT`].
fn click_count(n: Option<u32>) -> Result<u32, ErrorBody> {
    match n.unwrap_or(1) {
        n @ 1..=MAX_CLICK_COUNT => Ok(n),
        n => Err(bad_request(format!("page.click click_count must be 1 to {MAX_CLICK_COUNT}; got {n}"))),
    }
}

/// The result of the input actions: the element acted on.
fn input_done(o: Output) -> Result<Done, ErrorBody> {
    finish_as(o, Done::of::<InputResult>)
}

static CLICK: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: ClickParams = params(v)?;
        let click = InputAction::Click {
            button: p.button.unwrap_or_default(),
            click_count: click_count(p.click_count)?,
            modifiers: p.modifiers,
        };
        input(cx, p.element, false, click, p.settle)
    },
    finish: input_done,
    numbers_refs: false,
};

static TYPE: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: TypeParams = params(v)?;
        let typing = InputAction::Type { text: p.text, clear: p.clear, submit: p.submit };
        input(cx, p.element, false, typing, p.settle)
    },
    finish: input_done,
    numbers_refs: false,
};

static FILL: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: FillParams = params(v)?;
        input(cx, p.element, false, InputAction::Fill { value: p.value }, p.settle)
    },
    finish: input_done,
    numbers_refs: false,
};

static PRESS: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: PressParams = params(v)?;
        input(cx, p.element, true, InputAction::Press { key: p.key }, p.settle)
    },
    finish: input_done,
    numbers_refs: false,
};

static HOVER: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: HoverParams = params(v)?;
        input(cx, p.element, false, InputAction::Hover, p.settle)
    },
    finish: input_done,
    numbers_refs: false,
};

static CHECK: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: CheckParams = params(v)?;
        input(cx, p.element, false, InputAction::Check { checked: p.checked.unwrap_or(true) }, p.settle)
    },
    finish: input_done,
    numbers_refs: false,
};

static SELECT: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: SelectParams = params(v)?;
        if p.values.is_empty() && p.labels.is_empty() && p.indexes.is_empty() {
            return Err(bad_request("page.select needs values, labels or indexes"));
        }
        let select = InputAction::Select { values: p.values, labels: p.labels, indexes: p.indexes };
        input(cx, p.element, false, select, p.settle)
    },
    finish: |o| finish_as(o, Done::of::<SelectResult>),
    numbers_refs: false,
};

static DRAG: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: DragParams = params(v)?;
        let to = required(cx, p.to)?;
        input(cx, p.from, false, InputAction::DragTo { to }, p.settle)
    },
    finish: input_done,
    numbers_refs: false,
};

static SCROLL: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: ScrollParams = params(v)?;
        match (locator(cx, p.element, true)?, p.dx, p.dy) {
            (Some(target), None, None) => {
                Ok(Action::Input { target: Some(target), input: InputAction::ScrollIntoView, settle_ms: 0 })
            }
            (None, dx, dy) if dx.is_some() || dy.is_some() => {
                Ok(Action::Scroll { dx: delta("dx", dx)?, dy: delta("dy", dy)? })
            }
            _ => Err(bad_request("page.scroll takes ref or selector, or dx and dy")),
        }
    },
    finish: |o| match InputResult::try_from(o) {
        Ok(i) => Ok(Done::of(i)),
        Err(o) => finish_as(o, Done::of::<ScrollResult>),
    },
    numbers_refs: false,
};

static SET_VIEWPORT: PageMethod = PageMethod {
    prepare: |v, _| {
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
};

static FRAMES: PageMethod = PageMethod {
    prepare: |_, _| Ok(Action::Frames),
    finish: |o| finish_as(o, Done::of::<FramesResult>),
    numbers_refs: false,
};

/// A coordinate or delta of `page.mouse`, when given ([`css_px`]).
fn coordinate(name: &str, v: Option<f64>) -> Result<Option<f64>, ErrorBody> {
    v.map(|v| css_px(&format!("page.mouse {name}"), v)).transpose()
}

/// `page.mouse`: each coordinate checked ([`coordinate`]); move, click and drag need x and y, drag
/// to_x and to_y too; the others take x and y together or not at all.
static MOUSE: PageMethod = PageMethod {
    prepare: |v, _| {
        let p: MouseParams = params(v)?;
        let at = match (coordinate("x", p.x)?, coordinate("y", p.y)?) {
            (Some(x), Some(y)) => Some((x, y)),
            (None, None) => None,
            _ => return Err(bad_request("page.mouse takes x and y together")),
        };
        let to = match (coordinate("to_x", p.to_x)?, coordinate("to_y", p.to_y)?) {
            (Some(x), Some(y)) => Some((x, y)),
            (None, None) => None,
            _ => return Err(bad_request("page.mouse takes to_x and to_y together")),
        };
        let needs_at = matches!(p.action, MouseAction::Move | MouseAction::Click | MouseAction::Drag);
        if needs_at && at.is_none() {
            return Err(bad_request("page.mouse move, click and drag need x and y"));
        }
        if (p.action == MouseAction::Drag) != to.is_some() {
            return Err(bad_request("page.mouse to_x and to_y go with drag, and drag needs them"));
        }
        let delta = (coordinate("dx", p.dx)?.unwrap_or(0.0), coordinate("dy", p.dy)?.unwrap_or(0.0));
        if p.action != MouseAction::Wheel && (p.dx.is_some() || p.dy.is_some()) {
            return Err(bad_request("page.mouse dx and dy go with wheel"));
        }
        let click_count = if p.action == MouseAction::Click { click_count(p.click_count)? } else { 1 };
        let button = p.button.unwrap_or_default();
        let mouse = InputAction::Mouse(MouseInput { action: p.action, at, button, click_count, delta, to });
        Ok(Action::Input { target: None, input: mouse, settle_ms: settle_ms(p.settle)? })
    },
    finish: input_done,
    numbers_refs: false,
};

/// `page.keyboard`: down, up and press need `key`, insert_text `text`.
static KEYBOARD: PageMethod = PageMethod {
    prepare: |v, _| {
        let p: KeyboardParams = params(v)?;
        let key = match (p.action, p.key, p.text) {
            (KeyboardAction::InsertText, None, Some(text)) => text,
            (KeyboardAction::InsertText, ..) => {
                return Err(bad_request("page.keyboard insert_text takes text (not key)"))
            }
            (_, Some(key), None) if !key.is_empty() => key,
            _ => return Err(bad_request("page.keyboard down, up and press take key (not text)")),
        };
        let keyboard = InputAction::Keyboard { action: p.action, key };
        Ok(Action::Input { target: None, input: keyboard, settle_ms: settle_ms(p.settle)? })
    },
    finish: input_done,
    numbers_refs: false,
};

/// `page.emulate`: each field checked (a position on the globe, names of sane length and characters),
/// then merged into what the session emulates (or into nothing, with `reset`): the worker gets the
/// whole emulation.
/// Checks what `method` (`page.emulate`, `session.start`) is asked to emulate: a position on Earth,
/// names of a sane length without control characters, headers HTTP can carry, routes
/// ([`crate::routes::checked`], each completed in place: its action decided).
///
/// # Errors
/// `bad_request` naming the field.
pub fn check_emulation(method: &str, e: &mut Emulation, sessions_apart: bool) -> Result<(), ErrorBody> {
    // The clipboard is the browser's, one for all its sessions: with sessions kept apart, none may
    // read what another's page wrote.
    let reads_clipboard =
        e.permissions.iter().flatten().any(|p| *p == sb_protocol::api::Permission::ClipboardRead);
    if sessions_apart && reads_clipboard {
        return Err(bad_request(format!(
            "{method}: clipboard-read is not granted with [limits] session_tokens on: the browser's clipboard is shared by every session"
        )));
    }
    if let Some(g) = e.geolocation {
        let ok = (-90.0..=90.0).contains(&g.latitude)
            && (-180.0..=180.0).contains(&g.longitude)
            && g.accuracy.is_finite()
            && g.accuracy >= 0.0;
        if !ok {
            return Err(bad_request(format!(
                "{method} geolocation needs latitude -90..90, longitude -180..180 and accuracy 0 or more (metres)"
            )));
        }
    }
    let name = |field: &str, v: &Option<String>, max: usize| match v {
        Some(s) if s.is_empty() || s.len() > max || s.chars().any(char::is_control) => Err(bad_request(
            format!("{method} {field} must be 1 to {max} characters without control characters"),
        )),
        _ => Ok(()),
    };
    name("locale", &e.locale, 35)?;
    name("timezone", &e.timezone, 64)?;
    name("user_agent", &e.user_agent, 1_000)?;
    if let Some(headers) = &e.extra_http_headers {
        crate::routes::check_headers(method, "extra_http_headers", headers.iter(), MAX_EXTRA_HEADERS)?;
    }
    if let Some(c) = &e.http_credentials {
        let plain = |s: &str| s.len() <= 1_024 && !s.chars().any(char::is_control);
        let origin_ok = c.origin.as_deref().is_none_or(|o| {
            url::Url::parse(o).is_ok_and(|u| {
                matches!(u.scheme(), "http" | "https")
                    && u.path() == "/"
                    && u.query().is_none()
                    && u.fragment().is_none()
                    && u.username().is_empty()
                    && u.password().is_none()
            })
        });
        if !plain(&c.username) || !plain(&c.password) || !origin_ok {
            return Err(bad_request(format!(
                "{method} http_credentials: username and password of at most 1024 characters without control characters; origin as scheme://host[:port]"
            )));
        }
    }
    if let Some(routes) = e.routes.as_mut() {
        for r in routes.iter_mut() {
            *r = crate::routes::checked(method, std::mem::take(r), None)?;
        }
        crate::routes::check_all(method, routes)?;
    }
    if let Some(scripts) = &e.init_scripts {
        if scripts.len() > MAX_INIT_SCRIPTS || scripts.iter().any(|s| s.len() > MAX_INIT_SCRIPT_BYTES) {
            return Err(bad_request(format!(
                "{method} takes at most {MAX_INIT_SCRIPTS} init_scripts of at most {MAX_INIT_SCRIPT_BYTES} bytes each"
            )));
        }
    }
    Ok(())
}

static EMULATE: PageMethod = PageMethod {
    prepare: |v, cx| {
        let mut p: EmulateParams = params(v)?;
        check_emulation("page.emulate", &mut p.emulation, cx.sessions_apart())?;
        if p.emulation.routes.is_some() {
            return Err(bad_request(
                "page.emulate does not take routes: add one with page.route, remove them with page.unroute",
            ));
        }
        let e = &p.emulation;
        // `reset` clears what the session emulates, not the scripts it was started with nor its
        // routes.
        let now = cx.emulation();
        let base = match p.reset {
            true => Emulation { init_scripts: now.init_scripts, routes: now.routes, ..Emulation::default() },
            false => now,
        };
        Ok(Action::Emulate { emulation: base.merged(e) })
    },
    // The session keeps the password; the caller's answer shows `***`.
    finish: |o| {
        finish_as(o, |r: EmulateResult| {
            let mut shown = r.clone();
            if let Some(c) = shown.emulation.http_credentials.as_mut() {
                c.password = "***".into();
            }
            // Routes are listed by page.routes, without their bodies.
            shown.emulation.routes = None;
            Done { emulation: Some(r.emulation), ..Done::of(shown) }
        })
    },
    numbers_refs: false,
};

/// The longest key or value `page.storage` sets, chars (a browser keeps about 5 MB an origin).
const MAX_STORAGE_CHARS: usize = 5_000_000;

/// `page.verify`: the element by exactly one of ref, selector or role (`name` only with a role; none
/// for `text` on the whole page) and exactly one check.
static VERIFY: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: VerifyParams = params(v)?;
        let by_role = match (p.role, p.name) {
            (None, None) => None,
            (None, Some(_)) => return Err(bad_request("page.verify takes name only with role")),
            (Some(role), name) => Some(role_selector(&role, name.as_deref())?),
        };
        let element = match by_role {
            None => p.element,
            Some(_) if p.element.reference.is_some() || p.element.selector.is_some() => {
                return Err(bad_request("name the element with exactly one of ref, selector or role"))
            }
            Some(selector) => ElementParams { reference: None, selector: Some(selector) },
        };
        let long = |s: &String| s.chars().count() > MAX_VERIFY_CHARS;
        let mut checks = Vec::new();
        checks.extend(p.visible.map(VerifyCheck::Visible));
        checks.extend(p.text.map(VerifyCheck::Text));
        checks.extend(p.value.map(VerifyCheck::Value));
        checks.extend(p.checked.map(VerifyCheck::Checked));
        checks.extend(p.count.map(VerifyCheck::Count));
        checks.extend(p.attribute.map(|a| VerifyCheck::Attribute { name: a.name, value: a.value }));
        checks.extend(p.items.map(VerifyCheck::Items));
        let [check] = <[VerifyCheck; 1]>::try_from(checks).map_err(|_| {
            bad_request("page.verify takes exactly one check: visible, text, value, checked, count, attribute or items")
        })?;
        let too_long = match &check {
            VerifyCheck::Text(t) | VerifyCheck::Value(t) => long(t),
            VerifyCheck::Attribute { name, value } => long(name) || value.as_ref().is_some_and(long),
            VerifyCheck::Items(items) => {
                items.is_empty() || items.len() > MAX_VERIFY_ITEMS || items.iter().any(long)
            }
            VerifyCheck::Visible(_) | VerifyCheck::Checked(_) | VerifyCheck::Count(_) => false,
        };
        if too_long {
            return Err(bad_request(format!(
                "page.verify texts are at most {MAX_VERIFY_CHARS} chars, items 1 to {MAX_VERIFY_ITEMS}"
            )));
        }
        let target = locator(cx, element, true)?;
        if target.is_none() && !matches!(check, VerifyCheck::Text(_)) {
            return Err(bad_request(format!(
                "page.verify {} needs an element: ref, selector or role",
                check.name()
            )));
        }
        Ok(Action::Verify { target, check })
    },
    finish: |o| finish_as(o, Done::of::<VerifyResult>),
    numbers_refs: false,
};

/// The longest text, value or attribute `page.verify` takes, chars.
const MAX_VERIFY_CHARS: usize = 10_000;
/// The most `items` `page.verify` takes.
const MAX_VERIFY_ITEMS: usize = 100;

/// `role` and `name` as the selector Playwright's `getByRole(role, {name})` writes
/// (`internal:role=button[name="Save"i]`: the name a case-insensitive substring).
///
/// # Errors
/// `bad_request` for a role that is not a word of letters.
fn role_selector(role: &str, name: Option<&str>) -> Result<String, ErrorBody> {
    if role.is_empty() || role.len() > 64 || !role.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(bad_request(format!(
            "page.verify role {role:?} is not an ARIA role (button, heading, ...)"
        )));
    }
    Ok(match name {
        None => format!("internal:role={}", role.to_ascii_lowercase()),
        Some(name) => format!("internal:role={}[name={}i]", role.to_ascii_lowercase(), Value::from(name)),
    })
}

/// `page.clipboard`: write takes text (at most [`MAX_CLIPBOARD_CHARS`] characters), read none.
static CLIPBOARD: PageMethod = PageMethod {
    prepare: |v, _| {
        let p: ClipboardParams = params(v)?;
        match (p.action, &p.text) {
            (ClipboardAction::Write, Some(t)) if t.chars().count() <= MAX_CLIPBOARD_CHARS => {}
            (ClipboardAction::Read, None) => {}
            _ => {
                return Err(bad_request(format!(
                    "page.clipboard: write takes text (at most {MAX_CLIPBOARD_CHARS} characters), read none"
                )))
            }
        }
        Ok(Action::Clipboard { action: p.action, text: p.text })
    },
    finish: |o| finish_as(o, Done::of::<ClipboardResult>),
    numbers_refs: false,
};

/// `page.route`: the route checked and completed ([`crate::routes::checked`]: a `body_file` read
/// from the uploads dir now), put before the session's others; the worker gets the whole emulation.
static ROUTE: PageMethod = PageMethod {
    prepare: |v, cx| {
        let route: UrlRoute = params(v)?;
        let file = match &route.body_file {
            Some(name) => Some((name.clone(), cx.read_upload(name, MAX_ROUTE_BODY_BYTES)?)),
            None => None,
        };
        let route = crate::routes::checked("page.route", route, file)?;
        let now = cx.emulation();
        let routes: Vec<UrlRoute> =
            std::iter::once(route).chain(now.routes.clone().unwrap_or_default()).collect();
        crate::routes::check_all("page.route", &routes)?;
        Ok(Action::Emulate { emulation: Emulation { routes: Some(routes), ..now } })
    },
    finish: routes_listed,
    numbers_refs: false,
};

/// `page.unroute`: the session's routes less those added with `url` (all without it).
static UNROUTE: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: UnrouteParams = params(v)?;
        let now = cx.emulation();
        let kept = crate::routes::without(now.routes.clone().unwrap_or_default(), p.url.as_deref());
        Ok(Action::Emulate { emulation: Emulation { routes: Some(kept), ..now } })
    },
    finish: routes_listed,
    numbers_refs: false,
};

/// `page.routes`: the session's emulation as it is (the worker changes nothing), its routes listed.
static ROUTES: PageMethod = PageMethod {
    prepare: |_, cx| Ok(Action::Emulate { emulation: cx.emulation() }),
    finish: routes_listed,
    numbers_refs: false,
};

/// The session's emulation from now on, and its routes listed ([`crate::routes::listed`]).
fn routes_listed(o: Output) -> Result<Done, ErrorBody> {
    finish_as(o, |r: EmulateResult| {
        let listed = crate::routes::listed(r.emulation.routes.as_deref());
        Done { emulation: Some(r.emulation), ..Done::of(listed) }
    })
}

/// `session.har`: `content` and `url_filter` with start only (a filter that compiles), `name` with
/// stop only; the file's path under the owner's `hars` directory.
static HAR: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: HarParams = params(v)?;
        match p.action {
            TraceAction::Start if p.name.is_none() => {
                if let Some(f) = &p.url_filter {
                    sb_protocol::pattern::url_pattern(f)
                        .map_err(|e| bad_request(format!("session.har url_filter: {e}")))?;
                }
                Ok(Action::HarStart { embed: p.content != Some(HarContent::Omit), url_filter: p.url_filter })
            }
            TraceAction::Stop if p.content.is_none() && p.url_filter.is_none() => {
                let path = match &p.name {
                    Some(name) => cx.named_artifact("har", name)?,
                    None => cx.artifact_path("har")?,
                };
                Ok(Action::HarStop { path })
            }
            _ => Err(bad_request("session.har: start takes content and url_filter, stop takes name")),
        }
    },
    finish: |o| finish_as(o, Done::of::<HarResult>),
    numbers_refs: false,
};

/// `page.query`: the element by exactly one of ref or selector.
static QUERY: PageMethod = PageMethod {
    prepare: |v, cx| {
        let p: QueryParams = params(v)?;
        Ok(Action::Query { target: required(cx, p.element)? })
    },
    finish: |o| finish_as(o, Done::of::<QueryResult>),
    numbers_refs: false,
};

/// `page.storage`: set needs key and value, delete a key, clear neither; get takes a key or none.
static STORAGE: PageMethod = PageMethod {
    prepare: |v, _| {
        let p: StorageParams = params(v)?;
        let fits = |s: &Option<String>| s.as_ref().is_none_or(|s| s.chars().count() <= MAX_STORAGE_CHARS);
        if !fits(&p.key) || !fits(&p.value) {
            return Err(bad_request(format!(
                "page.storage keys and values are at most {MAX_STORAGE_CHARS} chars"
            )));
        }
        let ok = match p.action {
            StorageAction::Get => p.value.is_none(),
            StorageAction::Set => p.key.is_some() && p.value.is_some(),
            StorageAction::Delete => p.key.is_some() && p.value.is_none(),
            StorageAction::Clear => p.key.is_none() && p.value.is_none(),
        };
        if !ok {
            return Err(bad_request(
                "page.storage: get takes key or nothing, set key and value, delete key, clear nothing",
            ));
        }
        Ok(Action::Storage { kind: p.kind, action: p.action, key: p.key, value: p.value })
    },
    finish: |o| finish_as(o, Done::of::<StorageResult>),
    numbers_refs: false,
};

/// `limit` of `page.console` and `page.network`: 1..=[`MAX_JOURNAL_LIMIT`], 100 when absent.
fn journal_limit(method: &str, limit: Option<u32>) -> Result<u32, ErrorBody> {
    match limit.unwrap_or(100) {
        n @ 1..=MAX_JOURNAL_LIMIT => Ok(n),
        n => Err(bad_request(format!("{method} limit is 1 to {MAX_JOURNAL_LIMIT}; got {n}"))),
    }
}

static CONSOLE: PageMethod = PageMethod {
    prepare: |v, _| {
        let p: ConsoleParams = params(v)?;
        let limit = journal_limit("page.console", p.limit)?;
        Ok(Action::Console { since: p.since.unwrap_or(0), level: p.level.unwrap_or_default(), limit })
    },
    finish: |o| finish_as(o, Done::of::<ConsoleResult>),
    numbers_refs: false,
};

static NETWORK: PageMethod = PageMethod {
    prepare: |v, _| {
        let p: NetworkParams = params(v)?;
        let limit = journal_limit("page.network", p.limit)?;
        let lists = p.since.is_some() || p.filter.is_some() || p.include_static || p.limit.is_some();
        if p.id.is_some() && lists {
            return Err(bad_request(
                "page.network: id names one request; since, filter, include_static and limit are for a list",
            ));
        }
        Ok(Action::Network {
            since: p.since.unwrap_or(0),
            filter: p.filter,
            include_static: p.include_static,
            limit,
            id: p.id,
        })
    },
    finish: |o| finish_as(o, Done::of::<NetworkResult>),
    numbers_refs: false,
};

static HANDLE_DIALOG: PageMethod = PageMethod {
    prepare: |v, _| {
        let p: HandleDialogParams = params(v)?;
        Ok(Action::HandleDialog { accept: p.accept, prompt_text: p.prompt_text })
    },
    finish: |o| {
        finish_as(o, |d: DialogPolicyOutput| {
            Done::of(HandleDialogResult { next_dialog: if d.accept { "accept" } else { "dismiss" }.into() })
        })
    },
    numbers_refs: false,
};

/// The output as kind `O`, finished by `f`; another kind is the worker's bug, answered `internal`.
fn finish_as<O: TryFrom<Output, Error = Output>>(
    o: Output,
    f: impl FnOnce(O) -> Done,
) -> Result<Done, ErrorBody> {
    o.into_kind().map(f)
}

/// Decodes `params`; absent params are `{}`, so a missing required field is named in the error.
///
/// # Errors
/// `bad_request` naming the field.
pub fn params<T: DeserializeOwned>(params: Value) -> Result<T, ErrorBody> {
    let params = if params.is_null() { json!({}) } else { params };
    serde_json::from_value(params).map_err(|e| bad_request(format!("bad params: {e}")))
}

/// `evaluate_disabled` when the configuration turned in-page JavaScript off (`page.evaluate`,
/// `page.wait_for {function}`).
fn evaluate_allowed(cx: &dyn Context, phase: Phase) -> Result<(), ErrorBody> {
    if cx.evaluate_enabled() {
        return Ok(());
    }
    Err(ErrorBody::new(
        ErrorCode::EvaluateDisabled,
        phase,
        "in-page JavaScript is turned off in this runtime (evaluate_enabled = false)",
    ))
}

/// The element an input names: a ref or a selector, exactly one (`optional`: neither is fine).
/// `page.evaluate {frame}`: a ref (`e` and digits, as snapshots name them) is the `<iframe>` it names;
/// anything else is a CDP `frameId`.
fn frame_target(cx: &dyn Context, frame: String) -> Result<FrameTarget, ErrorBody> {
    if looks_like_ref(&frame) {
        Ok(FrameTarget::Owner(Locator::Ref(cx.reference(&frame)?)))
    } else if frame.is_empty() {
        Err(bad_request("frame is empty: give a frame_id from page.frames or the ref of an <iframe>"))
    } else {
        Ok(FrameTarget::Id(frame))
    }
}

/// The element `e` names, `None` when it names none and that is allowed (`optional`).
fn locator(cx: &dyn Context, e: ElementParams, optional: bool) -> Result<Option<Locator>, ErrorBody> {
    if optional && e.reference.is_none() && e.selector.is_none() {
        return Ok(None);
    }
    required(cx, e).map(Some)
}

/// The element `e` names with exactly one of ref or selector.
fn required(cx: &dyn Context, e: ElementParams) -> Result<Locator, ErrorBody> {
    match (e.reference, e.selector) {
        (Some(r), None) => Ok(Locator::Ref(cx.reference(&r)?)),
        (None, Some(css)) => Ok(Locator::Selector(css)),
        _ => Err(bad_request("name the element with exactly one of ref or selector")),
    }
}

/// Whether a scope string is a ref (`e12`) rather than a CSS selector.
fn looks_like_ref(s: &str) -> bool {
    s.strip_prefix('e').is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// The one condition of `page.wait_for`.
///
/// # Errors
/// `bad_request` when it has none or more than one, or `state` without `selector`.
pub fn wait_condition(p: WaitForParams) -> Result<WaitCondition, ErrorBody> {
    let state = p.state;
    let mut found: Vec<WaitCondition> = Vec::new();
    if let Some(selector) = p.selector {
        found.push(WaitCondition::Selector { selector, state: state.unwrap_or_default() });
    } else if state.is_some() {
        return Err(bad_request("state goes with selector"));
    }
    found.extend(p.text.map(WaitCondition::Text));
    found.extend(p.text_gone.map(WaitCondition::TextGone));
    found.extend(p.url.map(WaitCondition::Url));
    found.extend(p.load_state.map(WaitCondition::LoadState));
    found.extend(p.function.map(WaitCondition::Function));
    found.extend(p.time_ms.map(WaitCondition::Time));
    found.extend(p.response.map(WaitCondition::Response));
    if p.download {
        found.push(WaitCondition::Download);
    }
    if p.popup {
        found.push(WaitCondition::Popup);
    }
    if p.dialog {
        found.push(WaitCondition::Dialog);
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        n => Err(bad_request(format!(
            "page.wait_for takes exactly one of selector, text, text_gone, url, load_state, function, time_ms, dialog, response, download, popup (got {n})"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sb_protocol::api::{ElementState, ExtractFormat, Modifier, MouseButton};

    /// A session with one ref (`e1`) and evaluate on or off.
    struct Fake {
        evaluate: bool,
    }

    impl Context for Fake {
        fn reference(&self, id: &str) -> Result<RefRecord, ErrorBody> {
            if id == "e1" {
                Ok(RefRecord {
                    id: "e1".into(),
                    role: "button".into(),
                    name: "Go".into(),
                    backend_node_id: 7,
                    frame_id: "F".into(),
                    loader_id: "L".into(),
                })
            } else {
                Err(ErrorBody::new(ErrorCode::UnknownRef, Phase::Request, format!("Ref {id}")))
            }
        }
        fn evaluate_enabled(&self) -> bool {
            self.evaluate
        }
        fn sessions_apart(&self) -> bool {
            false
        }
        fn uploads_dir(&self) -> Option<&std::path::Path> {
            None
        }
        fn stage_uploads(
            &self,
            _: &std::path::Path,
            names: &[String],
        ) -> Result<(Vec<String>, u64), ErrorBody> {
            Ok((names.iter().map(|n| format!("/staged/{n}")).collect(), 0))
        }
        fn artifact_path(&self, extension: &str) -> Result<String, ErrorBody> {
            Ok(format!("/shots/s-1.{extension}"))
        }
        fn next_ref(&self) -> u64 {
            5
        }
        fn named_artifact(&self, extension: &str, name: &str) -> Result<String, ErrorBody> {
            Ok(format!("/hars/{name}.{extension}"))
        }
        fn read_upload(&self, name: &str, _: usize) -> Result<Vec<u8>, ErrorBody> {
            Ok(name.as_bytes().to_vec())
        }

        fn emulation(&self) -> Emulation {
            Emulation { timezone: Some("Asia/Tokyo".into()), ..Default::default() }
        }
    }

    #[test]
    fn emulation_is_checked_and_merged_into_the_sessions() {
        let emulated = |v: Value| match prepare(Method::PageEmulate, v, &ON) {
            Ok(Action::Emulate { emulation }) => emulation,
            other => panic!("{other:?}"),
        };
        let merged = emulated(json!({"locale": "de-DE"}));
        assert_eq!(
            (merged.locale.as_deref(), merged.timezone.as_deref()),
            (Some("de-DE"), Some("Asia/Tokyo"))
        );
        assert_eq!(
            emulated(json!({"reset": true, "offline": true})),
            Emulation { offline: Some(true), ..Default::default() }
        );
        for bad in [
            json!({"geolocation": {"latitude": 0, "longitude": 181}}),
            json!({"geolocation": {"latitude": 0, "longitude": 0, "accuracy": -1}}),
            json!({"locale": "x".repeat(40)}),
            json!({"user_agent": "a\nb"}),
            json!({"timezone": ""}),
        ] {
            assert_eq!(code(prepare(Method::PageEmulate, bad.clone(), &ON)), ErrorCode::BadRequest, "{bad}");
        }
    }

    const ON: Fake = Fake { evaluate: true };

    fn prepare(method: Method, params: Value, cx: &Fake) -> Result<Action, ErrorBody> {
        match route(method) {
            Route::Session(OnSession::Page(m)) => (m.prepare)(params, cx),
            _ => panic!("{} is not a page method", method.name()),
        }
    }

    fn finish(method: Method, output: impl Into<Output>) -> Result<Done, ErrorBody> {
        match route(method) {
            Route::Session(OnSession::Page(m)) => (m.finish)(output.into()),
            _ => panic!("{} is not a page method", method.name()),
        }
    }

    fn code(r: Result<Action, ErrorBody>) -> ErrorCode {
        r.expect_err("an error").code
    }

    /// `page.pdf`: margins, scale and page ranges out of range are refused before the worker; the
    /// paper goes as portrait inches with `landscape` beside it, the file under the artifacts.
    #[test]
    fn pdf_params_are_checked() {
        for bad in [
            json!({"margin_in": 6}),
            json!({"margin_in": -1}),
            json!({"scale": 0}),
            json!({"scale": 1e308}),
            json!({"page_ranges": "1-2; rm -rf"}),
            // Issue 53 §11: no page past MAX_PDF_PAGES.
            json!({"page_ranges": "1-1001"}),
            json!({"page_ranges": "99999999999999999999999"}),
            json!({"paper": "b5"}),
            json!({"landscpae": true}),
        ] {
            assert_eq!(code(prepare(Method::PagePdf, bad.clone(), &ON)), ErrorCode::BadRequest, "{bad}");
        }
        let a =
            prepare(Method::PagePdf, json!({"paper": "a4", "landscape": true, "page_ranges": "1-2, 4"}), &ON);
        match a.unwrap() {
            Action::Pdf { paper_in, landscape, margin_in, scale, page_ranges, path, .. } => {
                assert_eq!((paper_in, landscape, margin_in, scale), ((8.27, 11.69), true, 0.4, 1.0));
                assert_eq!((page_ranges.as_str(), path.as_str()), ("1-2, 4", "/shots/s-1.pdf"));
            }
            other => panic!("{other:?}"),
        }
        match prepare(Method::PagePdf, json!({}), &ON).unwrap() {
            Action::Pdf { page_ranges, .. } => assert_eq!(page_ranges, "1-1000", "the first 1000 pages"),
            other => panic!("{other:?}"),
        }
    }

    /// `page.fill_form` names the field whose element it cannot name, and keeps the error's code: a
    /// ref the session never gave is `unknown_ref`, not `bad_request`.
    #[test]
    fn fill_form_names_the_field_and_keeps_the_refs_code() {
        let fields = json!({"fields": [{"ref": "e1", "value": "a"}, {"ref": "e9", "value": "b"}]});
        let e = prepare(Method::PageFillForm, fields, &ON).expect_err("e9 is unknown");
        assert_eq!(e.code, ErrorCode::UnknownRef, "{}", e.message);
        assert!(e.message.starts_with("page.fill_form field 2: "), "{}", e.message);
        let e = prepare(Method::PageFillForm, json!({"fields": [{"value": "b"}]}), &ON).unwrap_err();
        assert_eq!(e.code, ErrorCode::BadRequest);
    }

    /// The declaration's facts agree with what each page method asks of its worker: it navigates
    /// exactly when its action moves the tab to another document, and writes an artifact exactly when
    /// its action makes a file (a method added without its fact, or a fact on the wrong method,
    /// fails here).
    #[test]
    fn declared_facts_match_the_actions() {
        for m in Method::ALL {
            let Route::Session(OnSession::Page(_)) = route(m) else { continue };
            let action =
                [json!({}), json!({"url": "http://x/"})].into_iter().find_map(|p| prepare(m, p, &ON).ok());
            let Some(action) = action else { continue };
            let navigates = matches!(action, Action::Goto { .. } | Action::History { .. } | Action::Reload);
            assert_eq!(m.navigates(), navigates, "{}: {action:?}", m.name());
            let artifact = matches!(action, Action::Screenshot { .. } | Action::Pdf { .. });
            assert_eq!(m.writes_artifact(), artifact, "{}: {action:?}", m.name());
            // What only reads the page: run again after a crash or a dead browser (the worker and the
            // queue take it from the declaration).
            let reads = matches!(
                action,
                Action::Extract { .. }
                    | Action::Screenshot { .. }
                    | Action::Pdf { .. }
                    | Action::Snapshot { .. }
                    | Action::Frames
                    | Action::Console { .. }
                    | Action::Network { .. }
                    | Action::Verify { .. }
                    | Action::Query { .. }
            );
            assert_eq!(m.reads_only(), reads, "{}: {action:?}", m.name());
            assert_eq!(m.repeatable(), reads || m == Method::PageGoto, "{}", m.name());
        }
        // tabs.open is the supervisor's, and loads its URL as page.goto does.
        assert!(Method::TabsOpen.navigates());
    }

    #[test]
    fn every_method_has_a_route() {
        assert!(matches!(route(Method::TabsOpen), Route::Session(OnSession::Op(SessionOp::TabsOpen))));
        assert!(matches!(route(Method::PageDownloads), Route::Session(OnSession::Op(SessionOp::Downloads))));
        assert!(matches!(route(Method::SessionStart), Route::Runtime(RuntimeOp::SessionStart)));
        let numbering: Vec<_> = Method::ALL
            .iter()
            .filter(|m| matches!(route(**m), Route::Session(OnSession::Page(p)) if p.numbers_refs))
            .collect();
        assert_eq!(numbering, [&Method::PageSnapshot]);
    }

    #[test]
    fn goto_takes_its_url_and_reports_it_for_the_store() {
        let a = prepare(Method::PageGoto, json!({"url": "http://x/"}), &ON).unwrap();
        assert_eq!(a, Action::Goto { url: "http://x/".into() });
        assert_eq!(code(prepare(Method::PageGoto, Value::Null, &ON)), ErrorCode::BadRequest);
        let out = GotoResult {
            url: "http://x/a".into(),
            title: "A".into(),
            status: Some(200),
            load_state: "load".into(),
            timed_out: false,
        };
        let done = finish(Method::PageGoto, out).unwrap();
        assert_eq!(done.url.as_deref(), Some("http://x/a"));
        assert_eq!(done.result["status"], 200);
        assert_eq!(done.result["load_state"], "load");
    }

    #[test]
    fn an_output_of_another_kind_is_internal() {
        let e = finish(Method::PageGoto, InputResult::of("x")).unwrap_err();
        assert_eq!(e.code, ErrorCode::Internal);
        assert!(e.message.contains("Input"), "{}", e.message);
    }

    #[test]
    fn inputs_need_exactly_one_element() {
        let a = prepare(Method::PageClick, json!({"ref": "e1"}), &ON).unwrap();
        let Action::Input {
            target: Some(Locator::Ref(r)),
            input: InputAction::Click { button, click_count, .. },
            settle_ms: 0,
        } = a
        else {
            panic!("{a:?}")
        };
        assert_eq!((r.backend_node_id, button, click_count), (7, MouseButton::Left, 1));
        // `settle_ms` on any input, bounded.
        let a = prepare(Method::PageFill, json!({"ref": "e1", "value": "x", "settle_ms": 250}), &ON).unwrap();
        assert!(matches!(a, Action::Input { settle_ms: 250, .. }), "{a:?}");
        let huge = json!({"ref": "e1", "settle_ms": MAX_SETTLE_MS + 1});
        assert_eq!(code(prepare(Method::PageHover, huge, &ON)), ErrorCode::BadRequest);
        assert_eq!(code(prepare(Method::PageClick, json!({}), &ON)), ErrorCode::BadRequest);
        assert_eq!(
            code(prepare(Method::PageClick, json!({"ref": "e1", "selector": "b"}), &ON)),
            ErrorCode::BadRequest
        );
        assert_eq!(code(prepare(Method::PageClick, json!({"ref": "e9"}), &ON)), ErrorCode::UnknownRef);
        // press may go to the focused element.
        let a = prepare(Method::PagePress, json!({"key": "Enter"}), &ON).unwrap();
        assert!(matches!(a, Action::Input { target: None, .. }));
        assert_eq!(
            code(prepare(Method::PageDrag, json!({"from": {"ref": "e1"}, "to": {}}), &ON)),
            ErrorCode::BadRequest
        );
    }

    #[test]
    fn evaluate_is_refused_when_turned_off_before_anything_runs() {
        let off = Fake { evaluate: false };
        let e = prepare(Method::PageEvaluate, json!({"expression": "1"}), &off).unwrap_err();
        assert_eq!((e.code, e.phase), (ErrorCode::EvaluateDisabled, Phase::Evaluate));
        let e = prepare(Method::PageWaitFor, json!({"function": "true"}), &off).unwrap_err();
        assert_eq!((e.code, e.phase), (ErrorCode::EvaluateDisabled, Phase::Wait));
        assert!(prepare(Method::PageWaitFor, json!({"text": "x"}), &off).is_ok());
        assert_eq!(
            code(prepare(Method::PageEvaluate, json!({"expression": "1", "ref": "e1"}), &ON)),
            ErrorCode::BadRequest
        );
        let out = EvaluateOutput {
            kind: "number".into(),
            value_json: Some("3".into()),
            unserializable: None,
            description: None,
        };
        assert_eq!(finish(Method::PageEvaluate, out).unwrap().result["value"], 3);
    }

    #[test]
    fn wait_for_takes_exactly_one_condition() {
        assert_eq!(
            prepare(Method::PageWaitFor, json!({"selector": "#a"}), &ON).unwrap(),
            Action::WaitFor {
                condition: WaitCondition::Selector { selector: "#a".into(), state: ElementState::Visible }
            }
        );
        assert_eq!(
            code(prepare(Method::PageWaitFor, json!({"text": "a", "url": "b"}), &ON)),
            ErrorCode::BadRequest
        );
        assert_eq!(
            code(prepare(Method::PageWaitFor, json!({"state": "visible"}), &ON)),
            ErrorCode::BadRequest
        );
    }

    #[test]
    fn a_method_is_routed_to_a_session_exactly_when_the_protocol_says_it_needs_one() {
        for method in Method::ALL {
            let on_session = !matches!(route(method), Route::Runtime(_));
            assert_eq!(on_session, method.needs_session(), "{}", method.name());
        }
    }

    #[test]
    fn string_typed_fields_are_checked_when_the_request_is_parsed() {
        // A bad button, modifier, state or load state is bad_request before the action is queued.
        for (method, params) in [
            (Method::PageClick, json!({"ref": "e1", "button": "fourth"})),
            (Method::PageClick, json!({"ref": "e1", "modifiers": ["Hyper"]})),
            (Method::PageWaitFor, json!({"selector": "#a", "state": "shown"})),
            (Method::PageWaitFor, json!({"load_state": "idle"})),
        ] {
            let e = prepare(method, params.clone(), &ON).unwrap_err();
            assert_eq!(e.code, ErrorCode::BadRequest, "{params}");
            assert!(e.message.contains("unknown variant"), "{params}: {}", e.message);
        }
        let a =
            prepare(Method::PageClick, json!({"ref": "e1", "button": "right", "modifiers": ["Shift"]}), &ON);
        let Ok(Action::Input { input: InputAction::Click { button, modifiers, .. }, .. }) = a else {
            panic!()
        };
        assert_eq!((button, modifiers), (MouseButton::Right, vec![Modifier::Shift]));
    }

    #[test]
    fn snapshot_numbers_from_the_session_and_hands_its_refs_back() {
        let a = prepare(Method::PageSnapshot, json!({"scope": "e1", "interactive": true}), &ON).unwrap();
        let Action::Snapshot { options, next_ref } = a else { panic!() };
        assert_eq!(next_ref, 5);
        assert!(options.interactive && matches!(options.scope, Some(Locator::Ref(_))));
        assert_eq!(options.max_chars, DEFAULT_SNAPSHOT_MAX_CHARS);
        let a = prepare(Method::PageSnapshot, json!({"scope": "main"}), &ON).unwrap();
        assert!(matches!(
            a,
            Action::Snapshot { options: SnapshotOptions { scope: Some(Locator::Selector(_)), .. }, .. }
        ));
        let r = ON.reference("e1").unwrap();
        let out = SnapshotOutput {
            text: "- button \"Go\" [ref=e1]".into(),
            lines: 1,
            chars: 22,
            truncated: false,
            loading: false,
            diff: false,
            refs: vec![r.clone()],
            url: "u".into(),
            title: "t".into(),
        };
        let done = finish(Method::PageSnapshot, out).unwrap();
        assert_eq!((done.result["refs"].as_u64(), done.refs), (Some(1), vec![r]));
        assert_eq!(done.result["tokens_estimate"], 6, "22 chars, one token per 4, rounded up");
    }

    #[test]
    fn scroll_takes_an_element_or_deltas_and_answers_either() {
        assert!(matches!(
            prepare(Method::PageScroll, json!({"ref": "e1"}), &ON).unwrap(),
            Action::Input { input: InputAction::ScrollIntoView, .. }
        ));
        assert_eq!(
            prepare(Method::PageScroll, json!({"dy": 10.0}), &ON).unwrap(),
            Action::Scroll { dx: 0.0, dy: 10.0 }
        );
        assert_eq!(code(prepare(Method::PageScroll, json!({}), &ON)), ErrorCode::BadRequest);
        // Out of range: Chromium would take the wheel and then wedge the tab's input.
        for bad in [json!({"dy": 1e308}), json!({"dx": -1e6}), json!({"dy": 100_001.0})] {
            assert_eq!(code(prepare(Method::PageScroll, bad.clone(), &ON)), ErrorCode::BadRequest, "{bad}");
        }
        assert_eq!(
            prepare(Method::PageScroll, json!({"dy": -100_000.0}), &ON).unwrap(),
            Action::Scroll { dx: 0.0, dy: -100_000.0 }
        );
        for n in [0, 4, 1_000_000] {
            let click = json!({"selector": "#b", "click_count": n});
            assert_eq!(code(prepare(Method::PageClick, click, &ON)), ErrorCode::BadRequest, "{n}");
        }
        assert_eq!(
            finish(Method::PageScroll, ScrollResult { scroll_x: 0.0, scroll_y: 9.0 }).unwrap().result
                ["scroll_y"],
            9.0
        );
        assert_eq!(finish(Method::PageScroll, InputResult::of("b")).unwrap().result["element"], "b");
    }

    #[test]
    fn extract_screenshot_select_and_dialogs_map_their_params() {
        let a = prepare(Method::PageExtract, json!({"format": "html"}), &ON).unwrap();
        assert_eq!(a, Action::Extract { format: ExtractFormat::Html, max_chars: DEFAULT_EXTRACT_MAX_CHARS });
        let a = prepare(Method::PageScreenshot, json!({"format": "jpeg"}), &ON).unwrap();
        assert!(
            matches!(a, Action::Screenshot { ref path, max_height: DEFAULT_SCREENSHOT_MAX_HEIGHT, .. } if path == "/shots/s-1.jpeg")
        );
        assert_eq!(code(prepare(Method::PageSelect, json!({"ref": "e1"}), &ON)), ErrorCode::BadRequest);
        let done = finish(Method::PageHandleDialog, DialogPolicyOutput { accept: true }).unwrap();
        assert_eq!(done.result["next_dialog"], "accept");
    }
}
