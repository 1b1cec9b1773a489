//! The page methods' params and results: navigation, reading (extract, screenshot, evaluate,
//! snapshot), waiting, frames, the viewport, dialogs, downloads and PDFs.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::input::{ElementParams, ElementState};
use super::network::NetworkRequest;

/// A document load state `page.wait_for {load_state}` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LoadState {
    /// `DOMContentLoaded` fired (`document.readyState` is `interactive` or `complete`).
    DomContentLoaded,
    /// `load` fired (`document.readyState` is `complete`).
    Load,
    /// Chromium's `networkIdle` lifecycle event of the main frame: no request for 500 ms.
    NetworkIdle,
}

impl LoadState {
    /// The wire name: `domcontentloaded`, `load`, `networkidle`.
    pub fn as_str(self) -> &'static str {
        match self {
            LoadState::DomContentLoaded => "domcontentloaded",
            LoadState::Load => "load",
            LoadState::NetworkIdle => "networkidle",
        }
    }
}

/// `page.set_viewport` params: the viewport in CSS px (each side 1..=10000) and device pixels per CSS
/// px (0.5..=4, 1 when absent).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SetViewportParams {
    /// Viewport width, CSS px (1..=10000).
    pub width: u32,
    /// Viewport height, CSS px (1..=10000).
    pub height: u32,
    /// Device pixels per CSS px (0.5..=4); the session's current one when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_scale_factor: Option<f64>,
}

/// `page.set_viewport` result: the viewport now in force.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SetViewportResult {
    /// Viewport width, CSS px.
    pub width: u32,
    /// Viewport height, CSS px.
    pub height: u32,
    /// Device pixels per CSS px.
    pub device_scale_factor: f64,
}

/// One frame of a page (`Page.getFrameTree`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FrameInfo {
    /// CDP `frameId` (the main frame's is the tab's `target_id`).
    pub frame_id: String,
    /// The parent frame's id; absent for the main frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// The `<iframe>`'s `name` attribute (empty when none).
    pub name: String,
    /// The frame's document URL.
    pub url: String,
}

/// `page.frames` result: the main frame first, then its descendants, parents before children.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FramesResult {
    /// The active tab's frames, main frame first, parents before children.
    pub frames: Vec<FrameInfo>,
}

/// A viewport size in CSS px.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Viewport {
    /// Width, CSS px.
    pub width: u32,
    /// Height, CSS px.
    pub height: u32,
}

/// `page.goto` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GotoParams {
    /// The URL to load: `http(s)`, `about:blank`, `data:` or what the URL policy allows (docs/security.md).
    pub url: String,
}

/// What `page.extract` returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExtractFormat {
    /// The rendered text (`document.body.innerText`).
    #[default]
    Text,
    /// The serialized DOM (`document.documentElement.outerHTML`).
    Html,
}

/// Default `max_chars` of `page.extract`.
pub const DEFAULT_EXTRACT_MAX_CHARS: u64 = 100_000;

/// `page.extract` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExtractParams {
    /// `text` (the page's `innerText`, the default) or `html` (`document.documentElement.outerHTML`).
    #[serde(default)]
    pub format: ExtractFormat,
    /// Cap on the content, in Unicode scalar values; default 100000 ([`DEFAULT_EXTRACT_MAX_CHARS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<u64>,
}

impl ExtractParams {
    /// The cap on the content, Unicode scalar values: `max_chars`, else
    /// [`DEFAULT_EXTRACT_MAX_CHARS`].
    pub fn cap(&self) -> u64 {
        self.max_chars.unwrap_or(DEFAULT_EXTRACT_MAX_CHARS)
    }
}

impl ScreenshotParams {
    /// A full page's tallest capture, CSS px: `max_height`, else [`DEFAULT_SCREENSHOT_MAX_HEIGHT`].
    pub fn tallest(&self) -> u32 {
        self.max_height.unwrap_or(DEFAULT_SCREENSHOT_MAX_HEIGHT)
    }
}

impl Clip {
    /// `[x, y, width, height]`, CSS px.
    pub fn as_array(&self) -> [f64; 4] {
        [self.x, self.y, self.width, self.height]
    }
}

/// Image format of `page.screenshot`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ImageFormat {
    /// PNG (the default): lossless.
    #[default]
    Png,
    /// JPEG, with `quality`.
    Jpeg,
}

impl ImageFormat {
    /// File extension and CDP `format` value.
    pub fn as_str(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpeg",
        }
    }
}

/// `page.screenshot` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScreenshotParams {
    /// The whole scrollable page rather than the viewport.
    #[serde(default)]
    pub full_page: bool,
    /// `png` (the default) or `jpeg`.
    #[serde(default)]
    pub format: ImageFormat,
    /// JPEG quality 0..=100.
    #[schemars(range(max = 100))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<u8>,
    /// Also return the image as base64 in `data`.
    #[serde(default)]
    pub inline: bool,
    /// Full page only: the tallest capture, CSS px. Default 16384 ([`DEFAULT_SCREENSHOT_MAX_HEIGHT`]),
    /// at most 65535 ([`MAX_SCREENSHOT_HEIGHT`]); a taller page is cut and the result says
    /// `truncated: true`, as is a page wider than 16384 CSS px ([`FULL_PAGE_MAX_WIDTH`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_height: Option<u32>,
    /// A region to capture, CSS px: of the viewport, or of the whole page with `full_page` (as
    /// Playwright's `clip`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<Clip>,
    /// An element to capture (its border box, scrolled into view first), by `ref` or `selector`, as
    /// Playwright's element screenshots; not with `clip` or `full_page`.
    #[serde(flatten)]
    pub element: ElementParams,
}

/// A rectangle in CSS px.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Clip {
    /// Left edge, CSS px of the viewport (of the page with `full_page`).
    pub x: f64,
    /// Top edge, CSS px of the viewport (of the page with `full_page`).
    pub y: f64,
    /// Width, CSS px (at least 1).
    pub width: f64,
    /// Height, CSS px (at least 1).
    pub height: f64,
}

/// Default cap on a full-page screenshot's height, in CSS px: taller images help no model, and
/// capturing them costs seconds.
pub const DEFAULT_SCREENSHOT_MAX_HEIGHT: u32 = 16_384;

/// Hard cap on a screenshot's height, in px: JPEG cannot encode more than 65535 px a side.
pub const MAX_SCREENSHOT_HEIGHT: u32 = 65_535;

/// The widest full-page capture, CSS px: a wider page is cut at it (`truncated: true`), as a taller
/// one is at `max_height`; a picture 40000 px wide helps no model.
pub const FULL_PAGE_MAX_WIDTH: u32 = 16_384;

/// Hard cap on a screenshot's size, in device px (width x height x the device scale squared): 64 Mi
/// px, 256 MiB of pixels as Chromium renders them. A larger capture is refused (`bad_request`) before
/// it is rendered: a 40000 px wide page or clip would otherwise be.
pub const MAX_SCREENSHOT_PIXELS: u64 = 64 * 1024 * 1024;

/// `page.evaluate` params: an `expression`, or a `function` called with the element named by `ref` or
/// `selector` (if any) and `arg` (if any) as its arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EvaluateParams {
    /// A JavaScript expression; a promise is awaited. One whose value is a function
    /// (`() => document.title`) is called without arguments, as Playwright's Python `page.evaluate`
    /// calls it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
    /// A JavaScript function such as `(el) => el.textContent`; a promise it returns is awaited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// The element a `function` is called with (`ref` or `selector`), when any.
    #[serde(flatten)]
    pub element: ElementParams,
    /// The frame to run in: a `frame_id` from `page.frames`, or an `<iframe>`'s ref. As Playwright's
    /// `frame.evaluate`. The script runs in that frame's main world; default: the main frame.
    /// Not with `ref`/`selector` (an element names its own frame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    /// A JSON value passed to the function, as Playwright's `evaluate(fn, arg)`. A `function`
    /// gets it as its argument (after the element, `(el, arg) => ...`, when `ref`/`selector` names one,
    /// as `locator.evaluate(fn, arg)`); an `expression` whose value is a function is called with it
    /// (Playwright's `page.evaluate(string, arg)`). Data goes here rather than into the source, which
    /// then needs no quoting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arg: Option<Value>,
}

/// `page.wait_for` params: exactly one condition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WaitForParams {
    /// A selector (as [`ElementParams::selector`]), with `state`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// For `selector`: `attached`, `detached`, `visible` (default) or `hidden`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<ElementState>,
    /// Text that must appear in the page (case-insensitive, as `getByText`). In an element that shows
    /// it, whitespace (a no-break space too) normalized, as Playwright MCP's `browser_wait_for` waits
    /// for `page.getByText(text)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Text that must disappear from the page: no element that shows it (matched as `text` is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_gone: Option<String>,
    /// A glob the URL must match: `**` any characters, `*` any but `/`, `?` one character.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `load`, `domcontentloaded` or `networkidle` (Chromium's lifecycle event: no request for 500 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_state: Option<LoadState>,
    /// A JavaScript expression polled until truthy (a promise is awaited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// Just wait this long, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// Wait for a JavaScript dialog in any of the session's tabs. One answered since the session's
    /// last result counts; each is answered by the session's policy (`page.handle_dialog`) and is in
    /// this result's `dialogs`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dialog: bool,
    /// A glob or `/pattern/flags` a response's URL must match. As `url`'s glob, or `page.network`'s
    /// `filter` regular expression: one the active tab received since the session's previous action
    /// started, or one that comes within the budget. It is this result's `response`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// Wait for a download of the session to end (completed, canceled or too large). One that ended
    /// since the session's previous request started counts (each is returned once); it is this
    /// result's `download`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub download: bool,
    /// Wait for a tab of the session to open another (a popup: `window.open`, `target=_blank`). One
    /// opened since the session's previous request started counts (each is returned once); it is this
    /// result's `popup` (`tabs.focus` drives it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub popup: bool,
}

/// `page.wait_for` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WaitForResult {
    /// Which condition was met, e.g. `"selector #done visible"`.
    pub matched: String,
    /// The page's URL when it was met.
    pub url: String,
    /// The response waited for (`response`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Box<NetworkRequest>>,
    /// The download waited for (`download`), as it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download: Option<Box<DownloadInfo>>,
    /// The popup waited for (`popup`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub popup: Option<Box<TabInfo>>,
}

/// Default `max_chars` of `page.snapshot`.
pub const DEFAULT_SNAPSHOT_MAX_CHARS: u64 = 40_000;

/// `page.snapshot` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SnapshotParams {
    /// Only the elements with refs, as a flat list.
    #[serde(default)]
    pub interactive: bool,
    /// Drop unnamed structure (lists, groups, paragraphs without a name).
    #[serde(default)]
    pub compact: bool,
    /// Deepest level shown (the root's children are level 1); all levels when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u32>,
    /// A ref (`e3`) or a selector to snapshot under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Cap on the text (default 40000 ([`DEFAULT_SNAPSHOT_MAX_CHARS`])); when cut, a marker line ends it and
    /// `truncated` is true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<u64>,
    /// Answer only what changed since the session's previous snapshot of this document and options.
    /// Changed lines are marked `+ ` (added) and `- ` (removed), each under its unchanged parents'
    /// lines (marked with two spaces); a new document, other options, or no earlier snapshot answer
    /// the whole snapshot (`diff` is then false in the result).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub diff: bool,
}

/// `page.snapshot` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SnapshotResult {
    /// Aria-snapshot text: `- button "Submit" [ref=e12]`, one node a line, two-space indent.
    pub snapshot: String,
    /// Lines in `snapshot`.
    pub lines: u64,
    /// Characters (Unicode scalar values) in `snapshot`.
    pub chars: u64,
    /// The text's size in model tokens, estimated as one token per 4 characters (rounded up): the
    /// rule of thumb for English text in the common tokenizers; snapshot text, with its markup, runs
    /// a little over it.
    pub tokens_estimate: u64,
    /// True when `snapshot` is a diff against the previous snapshot (`page.snapshot {diff: true}`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub diff: bool,
    /// How many refs the text carries.
    pub refs: u64,
    /// True when the text was cut at `max_chars` (it ends with a marker line saying so).
    pub truncated: bool,
    /// True when the page's document was still loading (it had not reached `DOMContentLoaded` within
    /// half the budget, which the snapshot waits): the text may be partial and starts with a marker
    /// line, `- note "the page is still loading; take another snapshot"`. An empty page is never an
    /// empty text either: it says `- note "the page is empty"`.
    #[serde(default)]
    pub loading: bool,
    /// The page's URL.
    pub url: String,
    /// The page's title.
    pub title: String,
}

/// A JavaScript dialog that opened during an action and was answered; page actions list them in
/// their result as `dialogs` (absent when there were none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DialogInfo {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The dialog's text: its first [`DIALOG_TEXT_CHARS`] chars, then `…` when it was longer.
    pub message: String,
    /// Whether it was accepted (OK) or dismissed (Cancel).
    pub accepted: bool,
    /// A `prompt`'s default value (`defaultPrompt`), when it has a non-empty one; an accepted prompt without
    /// `prompt_text` answers with it (whole; cut here as `message` is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_value: Option<String>,
}

/// The most dialogs one result lists ([`CommonResult::dialogs`](super::CommonResult::dialogs)); those answered beyond them are
/// counted in [`CommonResult::dialogs_dropped`](super::CommonResult::dialogs_dropped). A page that opened 5000 alerts in a loop was reported
/// in one result of 5000 entries, each message whole, held in memory until that result.
pub const DIALOGS_LISTED: usize = 20;

/// The longest dialog text a result gives ([`DialogInfo::message`], `default_value`), chars.
pub const DIALOG_TEXT_CHARS: usize = 1_000;

/// Dialogs answered and not reported yet: the first [`DIALOGS_LISTED`], and a count of the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DialogLog {
    /// The first ones.
    pub listed: Vec<DialogInfo>,
    /// How many came after them.
    pub dropped: u64,
}

impl DialogLog {
    /// Adds one: listed while there is room, else counted.
    pub fn push(&mut self, dialog: DialogInfo) {
        if self.listed.len() < DIALOGS_LISTED {
            self.listed.push(dialog);
        } else {
            self.dropped += 1;
        }
    }

    /// Adds `other`'s, after these.
    pub fn append(&mut self, other: DialogLog) {
        let dropped = other.dropped;
        for dialog in other.listed {
            self.push(dialog);
        }
        self.dropped += dropped;
    }

    /// Whether none was answered.
    pub fn is_empty(&self) -> bool {
        self.listed.is_empty() && self.dropped == 0
    }
}

/// `text` cut to [`DIALOG_TEXT_CHARS`] chars, ending `…` when it was longer.
pub fn dialog_text(text: String) -> String {
    match text.char_indices().nth(DIALOG_TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// A download a page started, reported in the session's next result as `downloads` (once when it
/// starts, once when it ends; absent when there is nothing new).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DownloadInfo {
    /// Where it came from (credentials redacted).
    pub url: String,
    /// The name the page or server suggested; the completed file is saved under it, made one safe
    /// plain name and unique in the session's directory (`data (1).bin` beside `data.bin`).
    pub suggested_filename: String,
    /// `started`, `completed`, `canceled`, or `too_large` (cancelled by the runtime at
    /// `downloads.max_bytes`, its file removed).
    pub state: String,
    /// Bytes received when it ended (0 when it started).
    pub bytes: u64,
    /// The file, once `completed`: under the session's downloads directory (0700), removed with the
    /// session unless `downloads.keep`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// A paper size of `page.pdf` (Playwright's `format` names), in inches: letter 8.5 x 11, legal 8.5 x
/// 14, tabloid 11 x 17, a3 11.69 x 16.54, a4 8.27 x 11.69, a5 5.83 x 8.27.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PaperSize {
    /// 8.5 x 11 in (the default, as Chromium's and Playwright's).
    #[default]
    Letter,
    /// 8.5 x 14 in.
    Legal,
    /// 11 x 17 in.
    Tabloid,
    /// 11.69 x 16.54 in.
    A3,
    /// 8.27 x 11.69 in.
    A4,
    /// 5.83 x 8.27 in.
    A5,
}

impl PaperSize {
    /// Width and height, inches (portrait).
    pub fn inches(self) -> (f64, f64) {
        match self {
            PaperSize::Letter => (8.5, 11.0),
            PaperSize::Legal => (8.5, 14.0),
            PaperSize::Tabloid => (11.0, 17.0),
            PaperSize::A3 => (11.69, 16.54),
            PaperSize::A4 => (8.27, 11.69),
            PaperSize::A5 => (5.83, 8.27),
        }
    }
}

/// `page.pdf` params (`Page.printToPDF`'s, in Playwright's `page.pdf()` terms).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PdfParams {
    /// Paper size; default `letter`.
    #[serde(default)]
    pub paper: PaperSize,
    /// Landscape instead of portrait.
    #[serde(default)]
    pub landscape: bool,
    /// Print background colours and images (off by default, as in print).
    #[serde(default)]
    pub print_background: bool,
    /// Every margin, inches, 0..=5; default 0.4 (Chromium's 1 cm).
    #[serde(default)]
    pub margin_in: Option<f64>,
    /// Scale of the rendering, 0.1..=2; default 1.
    #[serde(default)]
    pub scale: Option<f64>,
    /// Pages to print, 1-based: `1-5, 8, 11-13`, none past page 1000 ([`MAX_PDF_PAGES`]); default all,
    /// up to the 1000th.
    #[serde(default)]
    pub page_ranges: Option<String>,
}

impl PdfParams {
    /// Every margin, inches: `margin_in`, else 0.4 (Chromium's 1 cm).
    pub fn margin(&self) -> f64 {
        self.margin_in.unwrap_or(0.4)
    }

    /// The rendering's scale: `scale`, else 1.
    pub fn scale(&self) -> f64 {
        self.scale.unwrap_or(1.0)
    }

    /// The pages printed (`Page.printToPDF`'s `pageRanges`): `page_ranges`, else the first
    /// [`MAX_PDF_PAGES`] (Chromium prints a shorter document whole).
    pub fn ranges(&self) -> String {
        match self.page_ranges.as_deref().map(str::trim) {
            Some(ranges) if !ranges.is_empty() => ranges.to_string(),
            _ => format!("1-{MAX_PDF_PAGES}"),
        }
    }
}

/// The most pages `page.pdf` prints: without `page_ranges`, the first 1000 of a longer document; a
/// range past it is refused (`bad_request`). A page of a million lines would otherwise print as a
/// million pages, for as long as the budget lasts.
pub const MAX_PDF_PAGES: u32 = 1000;

/// `page.pdf` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PdfResult {
    /// The file written, under the runtime's artifacts directory.
    pub path: String,
    /// Its size, bytes.
    pub bytes: u64,
    /// The pages in it (the PDF's `/Type /Page` objects).
    pub pages: u32,
}

/// `page.downloads` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DownloadsResult {
    /// The session's downloads, oldest first, each in its latest state (`started` while in flight).
    /// (Not `downloads`: that is the common part's news of downloads since the last result.)
    pub entries: Vec<DownloadInfo>,
}

/// `page.handle_dialog` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HandleDialogParams {
    /// Accept (OK) or dismiss (Cancel) the next dialog.
    pub accept: bool,
    /// The text a `prompt` gets when accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}

/// `page.handle_dialog` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HandleDialogResult {
    /// `accept` or `dismiss`.
    pub next_dialog: String,
}

/// One tab of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TabInfo {
    /// CDP `targetId`.
    pub target_id: String,
    /// The tab's URL.
    pub url: String,
    /// The tab's title.
    pub title: String,
    /// Whether page actions go to this tab.
    pub active: bool,
    /// The tab that opened it (`window.open`, `target=_blank`), when it is a popup.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opener_id: Option<String>,
}

/// `page.goto` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GotoResult {
    /// The URL after redirects.
    pub url: String,
    /// The page's title.
    pub title: String,
    /// HTTP status of the main document; absent for `about:`, `data:` and same-document navigations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// What the navigation reached: `"commit"`, `"domcontentloaded"` or `"load"`.
    pub load_state: String,
    /// True when `domcontentloaded` did not arrive within the budget and the answer is what `commit`
    /// reached.
    #[serde(default)]
    pub timed_out: bool,
}

/// `page.extract` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExtractResult {
    /// `text` or `html`, as asked.
    pub format: ExtractFormat,
    /// The page's text or HTML, at most `max_chars` characters.
    pub content: String,
    /// Length of `content` in Unicode scalar values.
    pub chars: u64,
    /// True when the page had more than `max_chars`.
    pub truncated: bool,
    /// The page's URL.
    pub url: String,
    /// The page's title.
    pub title: String,
}

/// `page.screenshot` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScreenshotResult {
    /// Absolute path of the image under the artifacts dir.
    pub path: String,
    /// `png` or `jpeg`.
    pub format: ImageFormat,
    /// Image size in device pixels.
    pub width: u32,
    /// Image height, device px.
    pub height: u32,
    /// File size in bytes.
    pub bytes: u64,
    /// True when a full-page capture was cut at `max_height`.
    #[serde(default)]
    pub truncated: bool,
    /// Base64 image, only with `inline: true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

/// `page.evaluate` result: a JavaScript value, typed so that nothing is lost.
///
/// `type` is JavaScript's `typeof` (`"undefined"`, `"object"`, `"number"`, ...). JSON-representable
/// values are in `value`; `NaN`, `-0`, `Infinity`, `-Infinity` and bigints are in `unserializable`
/// (CDP's `unserializableValue`, e.g. `"NaN"`, `"12n"`); `description` is CDP's text for the rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EvaluateResult {
    /// `type`: JavaScript's `typeof` of the value.
    #[serde(rename = "type")]
    pub kind: String,
    /// The value as JSON, whole (as Playwright returns it) up to about 64 MiB; absent for `undefined`
    /// and unserializable values; `Some(Value::Null)` for `null`. Inside an object or array, what JSON
    /// cannot hold is a tagged object: `{"$undefined": true}`, `{"$number": "NaN"}`, `{"$bigint": "12"}`,
    /// `{"$function": "f"}`, `{"$node": "<div id=\"x\">"}`, `{"$circular": true}`, `{"$map": [[k, v]]}`,
    /// `{"$set": [..]}`, `{"$regexp": "/a/g"}`, `{"$error": ".."}`, `{"$object": "Window"}`; Date and URL
    /// are their ISO string and href. Past depth 32, or once the value passes 64 MiB (each array then
    /// ends with one `{"$truncated": "N more items: .."}` and each object with a `"$truncated"` key),
    /// what is left out is said by `$truncated`.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub value: Option<Value>,
    /// CDP's `unserializableValue`: `"NaN"`, `"-0"`, `"Infinity"`, `"-Infinity"`, or a bigint such as `"12n"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unserializable: Option<String>,
    /// V8's text of a value JSON cannot hold (a function, a DOM node, a symbol).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Keeps a present JSON `null` as `Some(Value::Null)`, so `"value": null` differs from no value.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}
