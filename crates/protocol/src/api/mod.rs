//! The harness API: newline-delimited JSON on the supervisor's Unix socket.
//!
//! Request line: `{"id": <number|string>, "method": "page.goto", "session_id": "s1",
//! "timeout_ms": 15000, "params": {"url": "..."}}`. `session_id` is needed by `page.*` and
//! `session.close`; `timeout_ms` is the one end-to-end budget (see [`crate::budget`]).
//!
//! Response line: `{"id", "ok": true, "result": {..., "elapsed_ms": 12}}` or
//! `{"id", "ok": false, "error": {"code", "message", "phase", "retryable", "hint"?}}`. Responses on
//! one connection may come out of order; `id` pairs them with their requests. A line that could not be
//! read at all is answered with `"id": null`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ErrorBody;
use crate::fields::NoParams;

mod checks;
mod emulation;
mod input;
mod network;
mod page;
mod runtime;
mod session;

pub use self::checks::{
    Attribute, AttributeCheck, BoundingBox, ClipboardAction, ClipboardParams, ClipboardResult, ElementFacts,
    GenerateLocatorParams, GenerateLocatorResult, QueryParams, QueryResult, VerifyCheck, VerifyParams,
    VerifyResult, MAX_CLIPBOARD_CHARS, MAX_VERIFY_CHARS, MAX_VERIFY_ITEMS, QUERY_TEXT_CHARS,
};
pub use self::emulation::{
    ColorScheme, Contrast, EmulateParams, EmulateResult, Emulation, ForcedColors, Geolocation, MediaType,
    Permission, ReducedMotion, MAX_EXTRA_HEADERS, MAX_INIT_SCRIPTS, MAX_INIT_SCRIPT_BYTES,
};
pub use self::input::{
    css_px, CheckParams, ClickParams, DragParams, ElementParams, ElementState, FileChooser, FillFormParams,
    FillFormResult, FillParams, FormField, HoverParams, InputResult, KeyboardAction, KeyboardParams,
    Modifier, MouseAction, MouseButton, MouseParams, PressParams, ScrollParams, ScrollResult, SelectParams,
    SelectResult, Settle, TypeParams, UploadParams, UploadResult, ELEMENT_EXACTLY_ONE, MAX_CLICK_COUNT,
    MAX_FORM_FIELDS, MAX_SCROLL_DELTA, MAX_SETTLE_MS, MAX_UPLOAD_FILES, MCP_SETTLE_MS,
};
pub use self::network::{
    AbortReason, ConsoleLevel, ConsoleMessage, ConsoleParams, ConsoleResult, HarContent, HarParams,
    HarResult, HttpCredentials, NetworkParams, NetworkRequest, NetworkResult, RequestDetails, Route,
    RouteAction, RouteInfo, RoutesResult, TraceAction, UnrouteParams, CONSOLE_BUFFER, DEFAULT_JOURNAL_LIMIT,
    MAX_JOURNAL_LIMIT, MAX_ROUTES, MAX_ROUTES_BODY_BYTES, MAX_ROUTE_BODY_BYTES, NETWORK_BODY_BYTES,
    NETWORK_BUFFER,
};
pub use self::page::{
    dialog_text, Clip, DialogInfo, DialogLog, DownloadInfo, DownloadsResult, EvaluateParams, EvaluateResult,
    ExtractFormat, ExtractParams, ExtractResult, FrameInfo, FramesResult, GotoParams, GotoResult,
    HandleDialogParams, HandleDialogResult, ImageFormat, LoadState, PaperSize, PdfParams, PdfResult,
    ScreenshotParams, ScreenshotResult, SetViewportParams, SetViewportResult, SnapshotParams, SnapshotResult,
    TabInfo, Viewport, WaitForParams, WaitForResult, DEFAULT_EXTRACT_MAX_CHARS,
    DEFAULT_SCREENSHOT_MAX_HEIGHT, DEFAULT_SNAPSHOT_MAX_CHARS, DIALOGS_LISTED, DIALOG_TEXT_CHARS,
    FULL_PAGE_MAX_WIDTH, MAX_PDF_PAGES, MAX_SCREENSHOT_HEIGHT, MAX_SCREENSHOT_PIXELS,
};
pub use self::runtime::{ActionStats, HealthResult, Histogram, MetricsResult, StatsResult};
pub use self::session::{
    Cookie, CookieParam, CookiesAction, CookiesParams, CookiesResult, SameSite, SessionCloseResult,
    SessionInfo, SessionListResult, SessionStartParams, SessionStartResult, StorageAction, StorageItem,
    StorageKind, StorageParams, StorageResult, StorageStateAction, StorageStateParams, StorageStateResult,
    TabTargetParams, TabsCloseResult, TabsListResult, TabsOpenParams, TraceParams, TraceResult,
    MAX_SET_COOKIES, MAX_STORAGE_CHARS,
};

/// Default cap on one request line, in bytes (1 MiB).
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 1024 * 1024;

/// The default socket path: `$XDG_RUNTIME_DIR/sandbox-browser/browser.sock`, else
/// `/tmp/sandbox-browser-$UID/browser.sock` (the uid is the owner of `/proc/self`).
pub fn default_socket_path() -> std::path::PathBuf {
    use std::os::unix::fs::MetadataExt;
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => std::path::PathBuf::from(dir).join("sandbox-browser").join("browser.sock"),
        None => {
            let uid = std::fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(0);
            std::path::PathBuf::from(format!("/tmp/sandbox-browser-{uid}")).join("browser.sock")
        }
    }
}

/// A request id: a JSON number or string, echoed back unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A number id, echoed back as it was sent.
    Number(serde_json::Number),
    /// A string id, echoed back as it was sent.
    String(String),
}

impl From<u64> for RequestId {
    fn from(n: u64) -> Self {
        RequestId::Number(n.into())
    }
}

/// One request line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Pairs the response with this request; echoed back as it was sent.
    pub id: RequestId,
    /// The method's wire name, e.g. `"page.goto"` (`docs/protocol.md`).
    pub method: String,
    /// The session a `page.*`, `tabs.*` or `session.close` request acts on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The caller's session token (from `session.start`'s result): with `[limits] session_tokens`, a
    /// call on a session must carry that session's token, and `session.list` shows only the sessions
    /// of the token it carries; on `session.start` it is the token the new session gets (one agent,
    /// one token for all its sessions). The clients carry it by themselves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_token: Option<String>,
    /// End-to-end budget in ms, clamped to 1000..=120000; absent means the method's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The method's params (an object; absent or `null` is `{}`).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub params: Value,
}

/// One response line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The request's id; `null` when the request line could not be read.
    pub id: Option<RequestId>,
    /// `true` with a `result`, `false` with an `error`.
    pub ok: bool,
    /// The method's result with the common part ([`CommonResult`]), when `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Why the request failed, when not `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

impl Response {
    /// A success; `elapsed_ms` is added to `result` (which must be a JSON object to carry it).
    pub fn success(id: Option<RequestId>, mut result: Value, elapsed_ms: u64) -> Self {
        if let Value::Object(map) = &mut result {
            map.insert("elapsed_ms".into(), elapsed_ms.into());
        }
        Response { id, ok: true, result: Some(result), error: None }
    }

    /// A failure.
    pub fn failure(id: Option<RequestId>, error: ErrorBody) -> Self {
        Response { id, ok: false, result: None, error: Some(error) }
    }
}

/// The API's methods, one declaration each: the wire name, whether it needs a session, its params and
/// result types, its default budget, the phase its work starts in, who runs it and its facts.
/// Everything about a method that is not its behaviour comes from here: the [`Method`] enum, [`Method::ALL`], [`Method::name`], [`Method::needs_session`],
/// [`Method::default_timeout_ms`], the check of a request's params against the fields its type takes
/// ([`Method::check_params`], `bad_request` for one it does not), and each method's JSON Schema
/// ([`Method::schemas`], from which `sandbox-browser schema`, `docs/api.schema.json` and the generated
/// clients come), as Playwright generates its channels and validator from `protocol.yml`.
macro_rules! methods {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal {
        session: $session:literal, params: $params:ty, result: $result:ty, timeout_ms: $timeout:expr,
        phase: $phase:ident, runs: $runs:ident
        $(, facts: [$($fact:ident),* $(,)?])? $(, tool: $tool:literal in $group:ident)?
        $(, check: $check:path)? $(,)?
    })*) => {
        /// Every method of the API.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Method {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Method {
            /// All methods, in documentation order.
            pub const ALL: [Method; [$($name),*].len()] = [$(Method::$variant),*];

            /// The wire name, e.g. `"page.goto"`.
            pub fn name(self) -> &'static str {
                match self { $(Method::$variant => $name,)* }
            }

            /// The method's documentation (its doc comment in the declaration, Markdown with rustdoc's
            /// `[`Type`]` links): the schema's `description`, the generated clients' doc strings.
            pub fn description(self) -> &'static str {
                match self { $(Method::$variant => concat!($($doc, "\n"),*),)* }
            }

            /// Whether the request must name an open session (`session_id`).
            pub fn needs_session(self) -> bool {
                match self { $(Method::$variant => $session,)* }
            }

            /// The budget in ms when the request gives no `timeout_ms`.
            pub fn default_timeout_ms(self) -> u64 {
                match self { $(Method::$variant => $timeout,)* }
            }

            /// Checks that `params` names only fields the method takes ([`crate::fields::check`] of
            /// its params type).
            ///
            /// # Errors
            /// The first field it does not take, with the accepted ones and the closest name.
            pub fn check_params(self, params: &Value) -> Result<(), crate::fields::UnknownField> {
                match self { $(Method::$variant => crate::fields::check::<$params>(params),)* }
            }

            /// Decodes `params` (absent or `null` is `{}`) as the method's params type and holds them
            /// to the rules that type states beyond its fields' types (`check: ConsoleParams::check`
            /// in the declaration: a limit's range, fields that go together): what the supervisor
            /// checks of a method it hands to the worker as given ([`crate::ipc::Action::Call`]),
            /// before the request waits in the session's queue.
            ///
            /// # Errors
            /// One line for the caller: `bad params: ...` naming the field, or the rule's words.
            pub fn check_value(self, params: &Value) -> Result<(), String> {
                match self {
                    $(Method::$variant => {
                        let _p: $params = decode_params(params)?;
                        $($check(&_p)?;)?
                        Ok(())
                    })*
                }
            }

            /// The method's params and result schemas, as subschemas of `generator` (their types'
            /// definitions land in its `$defs`).
            pub fn schemas(self, generator: &mut schemars::SchemaGenerator) -> (schemars::Schema, schemars::Schema) {
                match self {
                    $(Method::$variant => (generator.subschema_for::<$params>(), generator.subschema_for::<$result>()),)*
                }
            }

            /// The phase its work starts in: the phase of a `timeout` answered before its first step,
            /// and the first of the worker's progress for a method the worker runs.
            pub fn phase(self) -> crate::Phase {
                match self { $(Method::$variant => crate::Phase::$phase,)* }
            }

            /// Who runs it: the session's worker, or the supervisor itself.
            pub fn runs(self) -> Runner {
                match self { $(Method::$variant => Runner::$runs,)* }
            }

            /// The MCP tool that calls the method with the model's arguments as its params (Playwright
            /// MCP's name where it has the same action, `browser_navigate`), and the group that offers
            /// it (`tool: "browser_navigate" in Core`). `None` for a method MCP calls only through tools
            /// of its own that fix some params (`browser_cookie_list` is `session.cookies {action:
            /// "get"}`; the MCP server declares those beside their method), or not at all.
            pub fn tool(self) -> Option<(&'static str, ToolGroup)> {
                match self {
                    $(Method::$variant => None $(.or(Some(($tool, ToolGroup::$group))))?,)*
                }
            }

            /// What the declaration says of the method beside its types ([`Fact`]); empty for most.
            pub fn facts(self) -> &'static [Fact] {
                match self { $(Method::$variant => &[$($(Fact::$fact),*)?],)* }
            }
        }

        /// One type per method, named as its [`Method`] variant, that carries its params and result
        /// types ([`ApiMethod`]): `Client::invoke::<call::PageGoto>(...)` in the Rust client takes
        /// [`GotoParams`] and answers [`GotoResult`].
        pub mod call {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[doc = $doc])*
                #[derive(Debug, Clone, Copy, PartialEq, Eq)]
                pub struct $variant;

                impl ApiMethod for $variant {
                    const METHOD: Method = Method::$variant;
                    type Params = $params;
                    type Result = $result;
                }
            )*
        }
    };
}

/// `params` as a `T`: absent or `null` is `{}`, so a missing required field is named.
///
/// # Errors
/// `bad params: ...` naming the field.
pub fn decode_params<T: for<'de> Deserialize<'de>>(params: &Value) -> Result<T, String> {
    let decoded =
        if params.is_null() { T::deserialize(&serde_json::json!({})) } else { T::deserialize(params) };
    decoded.map_err(|e| format!("bad params: {e}"))
}

/// A method as a type: its [`Method`], the type of its params and of its result (without the
/// [`CommonResult`] every result also carries). One per method in [`call`], from the declaration.
pub trait ApiMethod {
    /// The method.
    const METHOD: Method;
    /// Its params (`{}` on the wire for [`NoParams`]).
    type Params: Serialize + for<'de> Deserialize<'de> + schemars::JsonSchema;
    /// Its own result fields.
    type Result: Serialize + for<'de> Deserialize<'de> + schemars::JsonSchema;
}

/// A group of MCP tools a deployment can leave out (`sandbox-browser mcp --caps`), as Playwright
/// MCP's `--caps` does. A method's own tool is declared with its group ([`Method::tool`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolGroup {
    /// Always on: navigate, snapshot, the input actions, waiting, tabs, dialogs.
    Core,
    /// `browser_evaluate`: JavaScript of the model's choosing runs in the page.
    Evaluate,
    /// Tools that write files on the host: `browser_take_screenshot` (the image is saved under the
    /// runtime's artifacts directory).
    Files,
    /// `browser_pdf_save`: the page printed to a PDF under the artifacts directory (Playwright MCP's
    /// `pdf` group).
    Pdf,
    /// The session's cookies, the page's local and session storage, and storage state files
    /// (Playwright MCP's `storage` group's names: `browser_cookie_*`, `browser_localstorage_*`,
    /// `browser_sessionstorage_*`, `browser_storage_state`, `browser_set_storage_state`).
    Storage,
    /// `browser_network_requests` and `browser_network_request`: the requests of the active tab, and
    /// one request's headers and bodies; `browser_route`, `browser_route_list`, `browser_unroute`:
    /// the session's routes (Playwright MCP's `network` group).
    Network,
    /// Raw input at coordinates, for models that read screenshots (Playwright MCP's `vision` group):
    /// `browser_mouse_move_xy`, `_click_xy`, `_drag_xy`, `_down`, `_up`, `_wheel`; and
    /// `browser_keydown`, `browser_keyup` (Playwright MCP's `core-input`, offered there to skills only).
    Vision,
    /// `browser_start_tracing`, `browser_stop_tracing`: a trace of the session's actions with a
    /// screenshot after each, and its HTML report (`session.trace`; Playwright MCP's `devtools` group
    /// has the same two names).
    Devtools,
    /// Checks of the page as it is now (`page.verify`), under Playwright MCP's `testing` group's names:
    /// `browser_verify_element_visible`, `browser_verify_text_visible`, `browser_verify_list_visible`,
    /// `browser_verify_value`.
    Testing,
}

impl ToolGroup {
    /// The optional groups, as `--caps` names them.
    pub const OPTIONAL: [ToolGroup; 8] = [
        ToolGroup::Evaluate,
        ToolGroup::Files,
        ToolGroup::Pdf,
        ToolGroup::Storage,
        ToolGroup::Network,
        ToolGroup::Vision,
        ToolGroup::Devtools,
        ToolGroup::Testing,
    ];

    /// The `--caps` name.
    pub fn name(self) -> &'static str {
        match self {
            ToolGroup::Core => "core",
            ToolGroup::Evaluate => "evaluate",
            ToolGroup::Files => "files",
            ToolGroup::Pdf => "pdf",
            ToolGroup::Storage => "storage",
            ToolGroup::Network => "network",
            ToolGroup::Vision => "vision",
            ToolGroup::Devtools => "devtools",
            ToolGroup::Testing => "testing",
        }
    }
}

impl std::str::FromStr for ToolGroup {
    type Err = String;

    fn from_str(s: &str) -> Result<ToolGroup, String> {
        std::iter::once(ToolGroup::Core).chain(ToolGroup::OPTIONAL).find(|c| c.name() == s).ok_or_else(|| {
            let names: Vec<&str> =
                std::iter::once(ToolGroup::Core).chain(ToolGroup::OPTIONAL).map(ToolGroup::name).collect();
            format!("unknown capability {s:?}: the groups are {}", names.join(", "))
        })
    }
}

/// Who runs a method ([`Method::runs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// The session's worker, as a page action: the supervisor checks the params, builds the action and
    /// queues it on the session (`page.wait_for` of a download, a popup or a dialog is the
    /// supervisor's: it sees those events first).
    Worker,
    /// The supervisor itself (the runtime's methods, sessions, tabs, cookies, traces, downloads).
    Supervisor,
}

/// A fact about a method that is not its types, declared beside them (`facts: [...]` in the
/// declaration) and read by whoever needs it, so that no list of methods is written twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fact {
    /// It moves the tab to another document (`page.goto`, `page.back`, ..., `tabs.open`): the URL it
    /// names is checked by the policy first, and a refusal or a failed connection on the way is
    /// reported as the navigation's error.
    Navigates,
    /// It writes a file under the artifacts directory (a screenshot, a PDF): after it the directory
    /// is pruned to its limit.
    Artifact,
    /// It only reads the page (extract, screenshot, snapshot, ...): running it again changes nothing,
    /// so one whose renderer crashed or whose browser died under it runs again on the reopened page,
    /// within its budget.
    Reads,
    /// Running it again is what was asked, though it does not only read (a second `page.goto` lands
    /// where the first would have): one the browser died under runs again, as a read does.
    Repeatable,
}

impl Method {
    /// Whether [`Fact::Navigates`] is declared.
    pub fn navigates(self) -> bool {
        self.facts().contains(&Fact::Navigates)
    }

    /// Whether [`Fact::Artifact`] is declared.
    pub fn writes_artifact(self) -> bool {
        self.facts().contains(&Fact::Artifact)
    }

    /// Whether [`Fact::Reads`] is declared.
    pub fn reads_only(self) -> bool {
        self.facts().contains(&Fact::Reads)
    }

    /// Whether running it again after the browser died under it is what was asked: [`Fact::Reads`]
    /// or [`Fact::Repeatable`].
    pub fn repeatable(self) -> bool {
        self.reads_only() || self.facts().contains(&Fact::Repeatable)
    }
}

/// The part every result has, beside its method's own fields (in the same JSON object): how long
/// the request took, and what happened to the session's page since its last result. Every front door
/// shows it: a reset page, a dialog or a download always reaches the caller.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommonResult {
    /// The runtime's time for the request, ms.
    #[serde(default)]
    pub elapsed_ms: u64,
    /// `true` when the session's page was replaced since its last result (its state is lost: take a
    /// new snapshot); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_reset: Option<bool>,
    /// Why: `browser_restarted`, `supervisor_restarted`, `tab_stuck`, `renderer_crashed`, `crash_loop`,
    /// `active_tab_closed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset_reason: Option<String>,
    /// How long the action first waited for the tab to be freed (or its worker started, or its page
    /// reopened) after the previous one, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited_for_recovery_ms: Option<u64>,
    /// Dialogs answered during the action, or since the session's last result: the first
    /// [`DIALOGS_LISTED`] of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dialogs: Vec<DialogInfo>,
    /// How many more dialogs were answered than `dialogs` lists (a page that opens them in a loop);
    /// absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialogs_dropped: Option<u64>,
    /// Downloads that started or ended since the session's last result, each once in its latest state
    /// (one that a click started and that ended within it: `completed`, with its path).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<DownloadInfo>,
    /// Tabs a page of the session opened since its last result (`window.open`, a `target=_blank`
    /// link), by CDP `targetId`, oldest first: `tabs.focus` drives one (`tabs.list` gives their URLs).
    /// Each is reported once; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub popups: Vec<String>,
    /// Console errors and uncaught exceptions the active tab raised during the action (`page.console
    /// {level: "error"}` lists them); absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub console_errors: Option<u64>,
    /// A person held the session in the live view since its last result (what they did to the page is
    /// not in any result: take a new snapshot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human_took_over: Option<HumanTookOver>,
    /// What of the session's kept login was put back into its new browser context before this action
    /// (after a browser or supervisor restart, beside `session_reset`): its cookies and the origins
    /// whose local storage was written; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored: Option<Restored>,
}

/// The session state put back after a restart (`CommonResult::restored`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Restored {
    /// Cookies set again (HttpOnly ones included).
    pub cookies: u64,
    /// Origins whose `localStorage` was written again.
    pub origins: u64,
    /// Origins whose `sessionStorage` the reopened tab gets again, before its page's first script.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub session_storage: u64,
}

/// Whether a count is 0 (then left out of a result).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `page.scroll`'s result: [`InputResult`] when it scrolled an element into view, [`ScrollResult`]
/// when it scrolled the page by `dx`/`dy`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ScrollAnswer {
    /// `{ref | selector}`.
    Element(InputResult),
    /// `{dx?, dy?}`.
    Page(ScrollResult),
}

/// `tabs.open`, `tabs.focus` result: the tab.
pub type TabResult = TabInfo;

methods! {
    /// `runtime.health` -> [`HealthResult`]: the browser's state (probed when the last probe is old);
    /// `browser_unavailable` when the browser is down.
    RuntimeHealth = "runtime.health" { session: false, params: NoParams, result: HealthResult, timeout_ms: 8_000, phase: Request, runs: Supervisor }
    /// `runtime.stats` -> [`StatsResult`]: the runtime's counters since it started.
    RuntimeStats = "runtime.stats" { session: false, params: NoParams, result: StatsResult, timeout_ms: 8_000, phase: Request, runs: Supervisor }
    /// `runtime.metrics` -> [`MetricsResult`]: the same counters in Prometheus text format.
    RuntimeMetrics = "runtime.metrics" { session: false, params: NoParams, result: MetricsResult, timeout_ms: 8_000, phase: Request, runs: Supervisor }
    /// `session.start {session_id?, viewport?, device_scale_factor?, storage_state?, ...emulation}` ->
    /// [`SessionStartResult`]: a new session with its own browser context and tab, its pages emulating
    /// what `page.emulate` takes (extra headers and permissions included) from their first request. `session_id`: 1..=128 chars of `[A-Za-z0-9._-]`
    /// starting with a letter or digit, generated when absent; `viewport`: `{width, height}` in CSS px.
    SessionStart = "session.start" { session: false, params: SessionStartParams, result: SessionStartResult, timeout_ms: 8_000, phase: Session, runs: Supervisor }
    /// `session.close` -> [`SessionCloseResult`]: closes the session's tabs and its browser context.
    SessionClose = "session.close" { session: true, params: NoParams, result: SessionCloseResult, timeout_ms: 8_000, phase: Session, runs: Supervisor }
    /// `session.cookies {action: get | set | clear, cookies?, urls?}` -> [`CookiesResult`]: the
    /// cookies of the session's browser context (`Storage.getCookies`, `setCookies`, `clearCookies`),
    /// as they are after the action (only those sent to `urls` when given).
    SessionCookies = "session.cookies" { session: true, params: CookiesParams, result: CookiesResult, timeout_ms: 8_000, phase: Session, runs: Supervisor }
    /// `session.storage_state {action: save | load, name?}` -> [`StorageStateResult`]: the session's
    /// cookies and the local storage of its tabs' origins saved to a JSON file in Playwright's
    /// `storageState` format (under the artifacts dir), or such a file (from the uploads dir, else the
    /// artifacts dir) loaded into the session: its cookies set, each origin's local storage written.
    SessionStorageState = "session.storage_state" { session: true, params: StorageStateParams, result: StorageStateResult, timeout_ms: 15_000, phase: Session, runs: Supervisor }
    /// `session.trace {action: start | stop, name?}` -> [`TraceResult`]: records each of the session's
    /// actions (params redacted, timing, outcome, URL, dialogs, downloads, console errors, resets, a
    /// small JPEG after it) as JSON lines under the artifacts dir; `stop` also writes one self-contained
    /// HTML report (a timeline with the screenshots inline) named `name` (default
    /// `<session>-trace-<ms>.html`).
    SessionTrace = "session.trace" { session: true, params: TraceParams, result: TraceResult, timeout_ms: 15_000, phase: Session, runs: Supervisor }
    /// `session.har {action: start | stop, content?, url_filter?, name?}` -> [`HarResult`]: records
    /// the session's requests, in every tab the session drives, as Playwright's `recordHar`; `stop`
    /// writes them as one HAR 1.2 file (timings, headers, post data, response bodies cut at
    /// [`NETWORK_BODY_BYTES`] each) under the artifacts dir (`<owner>/hars`). What a tab closed during
    /// the recording requested, and a tab's requests past its buffer ([`NETWORK_BUFFER`]), are left
    /// out (the file's `comment` counts the latter).
    SessionHar = "session.har" { session: true, params: HarParams, result: HarResult, timeout_ms: 15_000, phase: Session, runs: Worker, check: HarParams::check }
    /// `session.list` -> [`SessionListResult`]: the open sessions.
    SessionList = "session.list" { session: false, params: NoParams, result: SessionListResult, timeout_ms: 8_000, phase: Session, runs: Supervisor }
    /// `page.goto {url}` -> [`GotoResult`]: loads `url` and answers once its document reached
    /// `DOMContentLoaded` (`load_state` says what it had reached by then: `load` when its subresources
    /// were done), or what it reached when the budget ran out (`timed_out: true`). A document that
    /// sends the tab on while it loads (a script's `location.href = ...`) is followed: the answer comes
    /// once the page it went to is loaded, with the first response's `status`.
    PageGoto = "page.goto" { session: true, params: GotoParams, result: GotoResult, timeout_ms: 15_000, phase: Navigate, runs: Worker, facts: [Navigates, Repeatable], tool: "browser_navigate" in Core }
    /// `page.back` -> [`GotoResult`]: the previous entry of the tab's history, waited for as `page.goto`
    /// waits, until `DOMContentLoaded` (`timed_out` with what it reached); `bad_request` when there is
    /// none.
    PageBack = "page.back" { session: true, params: NoParams, result: GotoResult, timeout_ms: 15_000, phase: Navigate, runs: Worker, facts: [Navigates], tool: "browser_navigate_back" in Core }
    /// `page.forward` -> [`GotoResult`]: the next entry of the tab's history, as `page.back`.
    PageForward = "page.forward" { session: true, params: NoParams, result: GotoResult, timeout_ms: 15_000, phase: Navigate, runs: Worker, facts: [Navigates], tool: "browser_navigate_forward" in Core }
    /// `page.reload` -> [`GotoResult`]: the tab's document loaded again, waited for as `page.goto`.
    PageReload = "page.reload" { session: true, params: NoParams, result: GotoResult, timeout_ms: 15_000, phase: Navigate, runs: Worker, facts: [Navigates], tool: "browser_reload" in Core }
    /// `page.extract {format?, max_chars?}` -> [`ExtractResult`]: the page's `text` (innerText) or
    /// `html`, at most `max_chars`.
    PageExtract = "page.extract" { session: true, params: ExtractParams, result: ExtractResult, timeout_ms: 8_000, phase: Extract, runs: Worker, facts: [Reads], tool: "browser_extract" in Core }
    /// `page.screenshot {full_page?, format?, quality?, inline?, max_height?, clip?, ref? | selector?}` ->
    /// [`ScreenshotResult`]: the viewport, the full page (cut at `max_height` CSS px), a `clip` region
    /// (`{x, y, width, height}`, CSS px) or an element, saved under the runtime's artifacts directory;
    /// `inline` also returns it as base64 `data`.
    PageScreenshot = "page.screenshot" { session: true, params: ScreenshotParams, result: ScreenshotResult, timeout_ms: 8_000, phase: Screenshot, runs: Worker, facts: [Artifact, Reads], tool: "browser_take_screenshot" in Files }
    /// `page.evaluate {expression | function, ref? | selector?, frame?, arg?}` -> [`EvaluateResult`]:
    /// an `expression`, or a `function` called with the element named by `ref`/`selector` and the
    /// JSON `arg` (Playwright's `evaluate(fn, arg)`); promises are awaited; `evaluate_error` when it
    /// throws.
    PageEvaluate = "page.evaluate" { session: true, params: EvaluateParams, result: EvaluateResult, timeout_ms: 8_000, phase: Evaluate, runs: Worker, tool: "browser_evaluate" in Evaluate }
    /// `page.wait_for {selector+state | text | text_gone | url | load_state | function | time_ms}` ->
    /// [`WaitForResult`]: exactly one condition (a `selector` in a `state`, `text` to appear, `text_gone`,
    /// a `url` glob, a `load_state`, a JS `function` truthy, or `time_ms`).
    PageWaitFor = "page.wait_for" { session: true, params: WaitForParams, result: WaitForResult, timeout_ms: 20_000, phase: Wait, runs: Worker, tool: "browser_wait_for" in Core }
    /// `page.snapshot {interactive?, compact?, max_depth?, scope?, max_chars?, diff?}` ->
    /// [`SnapshotResult`]: the page as aria-snapshot text with `[ref=eN]` refs to act on.
    PageSnapshot = "page.snapshot" { session: true, params: SnapshotParams, result: SnapshotResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, facts: [Reads], tool: "browser_snapshot" in Core }
    /// `page.click {ref | selector, button?, click_count?, modifiers?}` -> [`InputResult`]: waits until
    /// the element is actionable (visible, stable, enabled, not covered), then clicks it with `button`
    /// `click_count` times.
    PageClick = "page.click" { session: true, params: ClickParams, result: InputResult, timeout_ms: 8_000, phase: Actionability, runs: Worker, tool: "browser_click" in Core, check: ClickParams::check }
    /// `page.type {ref | selector, text, clear?, submit?}` -> [`InputResult`]: types `text` key by key
    /// (`clear` first empties the field, `submit` presses Enter after).
    PageType = "page.type" { session: true, params: TypeParams, result: InputResult, timeout_ms: 8_000, phase: Actionability, runs: Worker, tool: "browser_type" in Core, check: TypeParams::check }
    /// `page.fill {ref | selector, value}` -> [`InputResult`]: sets an input's value at once (as
    /// Playwright's `fill`).
    PageFill = "page.fill" { session: true, params: FillParams, result: InputResult, timeout_ms: 8_000, phase: Actionability, runs: Worker, check: FillParams::check }
    /// `page.press {key, ref? | selector?}` -> [`InputResult`]: `Enter`, `Tab`, `Control+A`, ... on the
    /// element, or on the focused one.
    PagePress = "page.press" { session: true, params: PressParams, result: InputResult, timeout_ms: 8_000, phase: Actionability, runs: Worker, tool: "browser_press_key" in Core, check: PressParams::check }
    /// `page.hover {ref | selector}` -> [`InputResult`]: moves the mouse over the element.
    PageHover = "page.hover" { session: true, params: HoverParams, result: InputResult, timeout_ms: 8_000, phase: Actionability, runs: Worker, tool: "browser_hover" in Core, check: HoverParams::check }
    /// `page.handle_dialog {accept, prompt_text?}` -> [`HandleDialogResult`]: how the session answers
    /// its next JavaScript dialog, in any of its tabs (a popup not focused yet too); one dialog only.
    PageHandleDialog = "page.handle_dialog" { session: true, params: HandleDialogParams, result: HandleDialogResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, tool: "browser_handle_dialog" in Core }
    /// `page.select {ref | selector, values? | labels? | indexes?}` -> [`SelectResult`]: selects a
    /// `<select>`'s options.
    PageSelect = "page.select" { session: true, params: SelectParams, result: SelectResult, timeout_ms: 8_000, phase: Actionability, runs: Worker, tool: "browser_select_option" in Core, check: SelectParams::check }
    /// `page.check {ref | selector, checked?}` -> [`InputResult`]: brings a checkbox or radio to
    /// `checked` (default true).
    PageCheck = "page.check" { session: true, params: CheckParams, result: InputResult, timeout_ms: 8_000, phase: Actionability, runs: Worker, tool: "browser_check" in Core, check: CheckParams::check }
    /// `page.scroll {ref | selector}` -> [`InputResult`]: an element into view; or `{dx?, dy?}` ->
    /// [`ScrollResult`]: the page by a wheel delta (CSS px).
    PageScroll = "page.scroll" { session: true, params: ScrollParams, result: ScrollAnswer, timeout_ms: 8_000, phase: Actionability, runs: Worker, tool: "browser_scroll" in Core }
    /// `page.drag {from: {ref | selector}, to: {ref | selector}}` -> [`InputResult`]: drags with the
    /// mouse from one element to the other.
    PageDrag = "page.drag" { session: true, params: DragParams, result: InputResult, timeout_ms: 8_000, phase: Actionability, runs: Worker, tool: "browser_drag" in Core }
    /// `page.set_viewport {width, height, device_scale_factor?}` -> [`SetViewportResult`]: the session's
    /// viewport in CSS px from now on (its pages, and the pages of every later worker).
    PageSetViewport = "page.set_viewport" { session: true, params: SetViewportParams, result: SetViewportResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, tool: "browser_resize" in Core }
    /// `page.frames` -> [`FramesResult`]: the active tab's frame tree, main frame first (out-of-process
    /// iframes included).
    PageFrames = "page.frames" { session: true, params: NoParams, result: FramesResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, facts: [Reads] }
    /// `page.pdf {paper?, landscape?, print_background?, margin_in?, scale?, page_ranges?}` ->
    /// [`PdfResult`]: the page printed to PDF (`Page.printToPDF`, print media), written under the
    /// artifacts directory.
    PagePdf = "page.pdf" { session: true, params: PdfParams, result: PdfResult, timeout_ms: 15_000, phase: Screenshot, runs: Worker, facts: [Artifact, Reads], tool: "browser_pdf_save" in Pdf }
    /// `page.fill_form {fields: [{ref | selector, value}]}` -> [`FillFormResult`]: fills several fields
    /// in order, each as its element takes a value (text: filled; checkbox, radio: checked by
    /// `"true"`/`"false"`; select: chosen by value or label), stopping at the first that fails and
    /// naming it.
    PageFillForm = "page.fill_form" { session: true, params: FillFormParams, result: FillFormResult, timeout_ms: 15_000, phase: Actionability, runs: Worker, tool: "browser_fill_form" in Core }
    /// `page.upload {ref | selector, files}` -> [`UploadResult`]: sets the files of a file input
    /// (`DOM.setFileInputFiles`), each a plain name of a file in `[files] uploads_dir`.
    PageUpload = "page.upload" { session: true, params: UploadParams, result: UploadResult, timeout_ms: 8_000, phase: Actionability, runs: Worker, tool: "browser_file_upload" in Core }
    /// `page.downloads` -> [`DownloadsResult`]: every download of the session so far (its pages' and
    /// popups'), oldest first, each in its latest state.
    PageDownloads = "page.downloads" { session: true, params: NoParams, result: DownloadsResult, timeout_ms: 8_000, phase: Session, runs: Supervisor }
    /// `page.console {since?, level?, limit?}` -> [`ConsoleResult`]: the active tab's console messages
    /// and uncaught exceptions (`Runtime.consoleAPICalled`, `Runtime.exceptionThrown`) from a bounded
    /// buffer ([`CONSOLE_BUFFER`] entries), oldest first, at `level` or more severe.
    PageConsole = "page.console" { session: true, params: ConsoleParams, result: ConsoleResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, facts: [Reads], tool: "browser_console_messages" in Core, check: ConsoleParams::check }
    /// `page.network {since?, filter?, include_static?, limit?}` -> [`NetworkResult`]: the active tab's
    /// requests (`Network.requestWillBeSent` and what followed) from a bounded buffer
    /// ([`NETWORK_BUFFER`] entries), oldest first; `page.network {id}`: that request alone with its
    /// [`RequestDetails`] (headers, post data, the response's headers and body, capped).
    PageNetwork = "page.network" { session: true, params: NetworkParams, result: NetworkResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, facts: [Reads], tool: "browser_network_requests" in Network, check: NetworkParams::check }
    /// `page.mouse {action, x?, y?, button?, click_count?, dx?, dy?, to_x?, to_y?}` -> [`InputResult`]:
    /// raw mouse input at viewport coordinates (CSS px), as Playwright's `page.mouse` (`move`, `down`,
    /// `up`, `click`, `wheel`) plus `drag` (down at x, y, move to to_x, to_y, up); no element is
    /// checked. Buttons stay down between calls until `up`.
    PageMouse = "page.mouse" { session: true, params: MouseParams, result: InputResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, check: MouseParams::check }
    /// `page.keyboard {action, key? | text?}` -> [`InputResult`]: raw keys on the focused element, as
    /// Playwright's `page.keyboard` (`down` and `up` of one key, modifiers held between calls until
    /// their `up`; `press` of a key or combo; `insert_text` as `Input.insertText`).
    PageKeyboard = "page.keyboard" { session: true, params: KeyboardParams, result: InputResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, check: KeyboardParams::check }
    /// `page.emulate {color_scheme?, reduced_motion?, locale?, timezone?, geolocation?, user_agent?,
    /// offline?, extra_http_headers?, permissions?, reset?}` -> [`EmulateResult`]: what the session's
    /// pages emulate from now on, as Playwright's context options (each
    /// field given replaces the one in force; `reset` clears them all first), on every page of the
    /// session and kept across a supervisor restart, as the viewport is.
    PageEmulate = "page.emulate" { session: true, params: EmulateParams, result: EmulateResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, tool: "browser_emulate_media" in Core }
    /// `page.storage {kind: local | session, action?: get | set | delete | clear, key?, value?}` ->
    /// [`StorageResult`]: the active tab's `localStorage` or `sessionStorage` (its origin's), after the
    /// action.
    PageStorage = "page.storage" { session: true, params: StorageParams, result: StorageResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, check: StorageParams::check }
    /// `page.verify {ref | selector | role+name, visible | text | value | checked | count | attribute |
    /// items}` -> [`VerifyResult`]: one check of the page as it is now (Playwright MCP's
    /// `browser_verify_*`, Playwright's `expect` without its retries); `verify_failed` (not retryable)
    /// with what the page has when it does not hold. `text` without an element: visible text anywhere
    /// on the page.
    PageVerify = "page.verify" { session: true, params: VerifyParams, result: VerifyResult, timeout_ms: 8_000, phase: Verify, runs: Worker, facts: [Reads], check: VerifyParams::check }
    /// `page.query {ref | selector}` -> [`QueryResult`]: how many elements a selector matches (and how
    /// many are visible), and the first one's tag, text, value, checked state, visibility, attributes
    /// and bounding box, read at once without JavaScript of the caller's.
    PageQuery = "page.query" { session: true, params: QueryParams, result: QueryResult, timeout_ms: 8_000, phase: Verify, runs: Worker, facts: [Reads], check: QueryParams::check }
    /// `page.generate_locator {ref | selector}` -> [`GenerateLocatorResult`]: a locator for the element,
    /// as Playwright writes one for a test: the first of a test id, its role and name, its placeholder,
    /// alt text, text or title, its `id`, its role or its tag that matches it alone, else the first
    /// that matches it, with its index among the matches (Playwright MCP's `browser_generate_locator`).
    PageGenerateLocator = "page.generate_locator" { session: true, params: GenerateLocatorParams, result: GenerateLocatorResult, timeout_ms: 8_000, phase: Verify, runs: Worker, facts: [Reads], tool: "browser_generate_locator" in Testing, check: GenerateLocatorParams::check }
    /// `page.clipboard {action: read | write, text?}` -> [`ClipboardResult`]: the system clipboard as
    /// the active tab's page sees it (`navigator.clipboard.readText` / `writeText`, in the runtime's
    /// isolated world, as a user's gesture). Reading needs the session's `clipboard-read` permission
    /// (`session.start` or `page.emulate {permissions}`); without it `bad_request` says so.
    PageClipboard = "page.clipboard" { session: true, params: ClipboardParams, result: ClipboardResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, check: ClipboardParams::check }
    /// `page.route {url, action?, status?, content_type?, headers?, body? | body_base64? | body_file?,
    /// error?, request_headers?, remove_headers?, method?, post_data?}` -> [`RoutesResult`]: a
    /// [`Route`] of the session's requests, in every tab, tried before the ones already there (as
    /// Playwright's `context.route`); at most [`MAX_ROUTES`]. While a session has no route (and no
    /// `http_credentials`) its requests are not intercepted at all.
    PageRoute = "page.route" { session: true, params: Route, result: RoutesResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, tool: "browser_route" in Network }
    /// `page.unroute {url?}` -> [`RoutesResult`]: removes the routes added with that `url` (every
    /// route without it), as Playwright's `context.unroute(url)` / `unrouteAll()`.
    PageUnroute = "page.unroute" { session: true, params: UnrouteParams, result: RoutesResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, tool: "browser_unroute" in Network }
    /// `page.routes` -> [`RoutesResult`]: the session's routes, newest first.
    PageRoutes = "page.routes" { session: true, params: NoParams, result: RoutesResult, timeout_ms: 8_000, phase: Cdp, runs: Worker, tool: "browser_route_list" in Network }
    /// `tabs.list` -> [`TabsListResult`]: the session's tabs (popups included).
    TabsList = "tabs.list" { session: true, params: NoParams, result: TabsListResult, timeout_ms: 8_000, phase: Session, runs: Supervisor }
    /// `tabs.open {url?}` -> [`TabInfo`]: a new tab, the active one from now on, loaded at `url` as
    /// `page.goto` loads it, with the session's viewport and emulation from its first request (a load
    /// that fails answers `page.goto`'s error; the tab stays open and active).
    TabsOpen = "tabs.open" { session: true, params: TabsOpenParams, result: TabResult, timeout_ms: 15_000, phase: Session, runs: Supervisor, facts: [Navigates] }
    /// `tabs.focus {target_id}` -> [`TabInfo`]: page methods go to this tab from now on (a unique
    /// `target_id` prefix is enough).
    TabsFocus = "tabs.focus" { session: true, params: TabTargetParams, result: TabResult, timeout_ms: 8_000, phase: Session, runs: Supervisor }
    /// `tabs.close {target_id}` -> [`TabsCloseResult`]: closes the tab.
    TabsClose = "tabs.close" { session: true, params: TabTargetParams, result: TabsCloseResult, timeout_ms: 8_000, phase: Session, runs: Supervisor }
}

impl Method {
    /// Parses a wire name such as `"page.goto"`.
    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// What a person did while holding the session in the live view (`[view] takeover`), reported in the
/// agent's next result so that it reads the page again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HumanTookOver {
    /// How long the person held the session, ms.
    pub ms: u64,
    /// The active tab's URL when the person took it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_before: Option<String>,
    /// The active tab's URL when the person handed it back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_after: Option<String>,
    /// What the person wrote for the agent ("logged in, continue").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{ErrorCode, Phase};
    use serde_json::json;

    #[test]
    fn method_names_round_trip() {
        for m in Method::ALL {
            assert_eq!(Method::parse(m.name()), Some(m));
        }
        assert_eq!(Method::parse("page.nope"), None);
    }

    #[test]
    fn request_ids_are_numbers_or_strings() {
        let r: Request = serde_json::from_value(json!({"id": "a", "method": "runtime.health"})).unwrap();
        assert_eq!(r.id, RequestId::String("a".into()));
        assert!(r.params.is_null());
        assert!(serde_json::from_value::<Request>(json!({"id": [1], "method": "x"})).is_err());
    }

    #[test]
    fn responses_carry_elapsed_and_errors() {
        let ok = Response::success(Some(7.into()), json!({"a": 1}), 42);
        assert_eq!(
            serde_json::to_value(&ok).unwrap(),
            json!({"id": 7, "ok": true, "result": {"a": 1, "elapsed_ms": 42}})
        );
        let err = Response::failure(None, ErrorBody::new(ErrorCode::BadRequest, Phase::Request, "not JSON"));
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            json!({"id": null, "ok": false, "error": {"code": "bad_request", "message": "not JSON", "phase": "request", "retryable": false}})
        );
    }
}
