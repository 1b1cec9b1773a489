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

/// A mouse button (`Input.dispatchMouseEvent`'s `button`): `left`, `right` or `middle`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    /// The primary button.
    #[default]
    Left,
    /// The secondary button (context menu).
    Right,
    /// The wheel button.
    Middle,
}

impl MouseButton {
    /// The CDP name (`Input.MouseButton`): `left`, `right`, `middle`.
    pub fn as_str(self) -> &'static str {
        match self {
            MouseButton::Left => "left",
            MouseButton::Right => "right",
            MouseButton::Middle => "middle",
        }
    }

    /// The bit of this button in `Input.dispatchMouseEvent`'s `buttons` (left 1, right 2, middle 4).
    pub fn bit(self) -> u32 {
        match self {
            MouseButton::Left => 1,
            MouseButton::Right => 2,
            MouseButton::Middle => 4,
        }
    }
}

/// A modifier key held during an input: `Alt`, `Control`, `Meta`, `Shift`, or `ControlOrMeta`
/// (Playwright's name for the platform's command key: `Control` on Linux, where the runtime runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Modifier {
    /// Alt (CDP modifier bit 1).
    Alt,
    /// Control (bit 2).
    Control,
    /// Meta (bit 4).
    Meta,
    /// Shift (bit 8).
    Shift,
    /// Control on Linux.
    ControlOrMeta,
}

impl Modifier {
    /// The key's name as `Input.dispatchKeyEvent` knows it (`ControlOrMeta` is `Control`).
    pub fn key(self) -> &'static str {
        match self {
            Modifier::Alt => "Alt",
            Modifier::Control | Modifier::ControlOrMeta => "Control",
            Modifier::Meta => "Meta",
            Modifier::Shift => "Shift",
        }
    }
}

/// The state `page.wait_for {selector}` waits for (Playwright's `waitForSelector` states).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ElementState {
    /// In the DOM.
    Attached,
    /// Not in the DOM.
    Detached,
    /// In the DOM and visible as Playwright has it: a non-empty box, `visibility: visible`, not under
    /// `display: none` or `content-visibility: hidden`; a `display: contents` element when a child is
    /// (the default).
    #[default]
    Visible,
    /// Not in the DOM, or in it but not visible.
    Hidden,
}

impl ElementState {
    /// The wire name: `attached`, `detached`, `visible`, `hidden`.
    pub fn as_str(self) -> &'static str {
        match self {
            ElementState::Attached => "attached",
            ElementState::Detached => "detached",
            ElementState::Visible => "visible",
            ElementState::Hidden => "hidden",
        }
    }
}

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
/// result types and its default budget. Everything about a method that is not its behaviour comes from
/// here: the [`Method`] enum, [`Method::ALL`], [`Method::name`], [`Method::needs_session`],
/// [`Method::default_timeout_ms`], the check of a request's params against the fields its type takes
/// ([`Method::check_params`], `bad_request` for one it does not), and each method's JSON Schema
/// ([`Method::schemas`], from which `sandbox-browser schema`, `docs/api.schema.json` and the generated
/// clients come), as Playwright generates its channels and validator from `protocol.yml`.
macro_rules! methods {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal {
        session: $session:literal, params: $params:ty, result: $result:ty, timeout_ms: $timeout:expr
        $(, facts: [$($fact:ident),* $(,)?])? $(,)?
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

            /// The method's params and result schemas, as subschemas of `generator` (their types'
            /// definitions land in its `$defs`).
            pub fn schemas(self, generator: &mut schemars::SchemaGenerator) -> (schemars::Schema, schemars::Schema) {
                match self {
                    $(Method::$variant => (generator.subschema_for::<$params>(), generator.subschema_for::<$result>()),)*
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

/// A method as a type: its [`Method`], the type of its params and of its result (without the
/// [`CommonResult`] every result also carries). One per method in [`call`], from the declaration.
pub trait ApiMethod {
    /// The method.
    const METHOD: Method;
    /// Its params (`{}` on the wire for [`NoParams`]).
    type Params: Serialize + for<'de> Deserialize<'de> + schemars::JsonSchema;
    /// Its own result fields.
    type Result: for<'de> Deserialize<'de> + schemars::JsonSchema;
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

use crate::fields::NoParams;

methods! {
    /// `runtime.health` -> [`HealthResult`]: the browser's state (probed when the last probe is old);
    /// `browser_unavailable` when the browser is down.
    RuntimeHealth = "runtime.health" { session: false, params: NoParams, result: HealthResult, timeout_ms: 8_000 }
    /// `runtime.stats` -> [`StatsResult`]: the runtime's counters since it started.
    RuntimeStats = "runtime.stats" { session: false, params: NoParams, result: StatsResult, timeout_ms: 8_000 }
    /// `runtime.metrics` -> [`MetricsResult`]: the same counters in Prometheus text format.
    RuntimeMetrics = "runtime.metrics" { session: false, params: NoParams, result: MetricsResult, timeout_ms: 8_000 }
    /// `session.start {session_id?, viewport?, device_scale_factor?, storage_state?, ...emulation}` ->
    /// [`SessionStartResult`]: a new session with its own browser context and tab, its pages emulating
    /// what `page.emulate` takes (extra headers and permissions included) from their first request. `session_id`: 1..=128 chars of `[A-Za-z0-9._-]`
    /// starting with a letter or digit, generated when absent; `viewport`: `{width, height}` in CSS px.
    SessionStart = "session.start" { session: false, params: SessionStartParams, result: SessionStartResult, timeout_ms: 8_000 }
    /// `session.close` -> [`SessionCloseResult`]: closes the session's tabs and its browser context.
    SessionClose = "session.close" { session: true, params: NoParams, result: SessionCloseResult, timeout_ms: 8_000 }
    /// `session.cookies {action: get | set | clear, cookies?, urls?}` -> [`CookiesResult`]: the
    /// cookies of the session's browser context (`Storage.getCookies`, `setCookies`, `clearCookies`),
    /// as they are after the action (only those sent to `urls` when given).
    SessionCookies = "session.cookies" { session: true, params: CookiesParams, result: CookiesResult, timeout_ms: 8_000 }
    /// `session.storage_state {action: save | load, name?}` -> [`StorageStateResult`]: the session's
    /// cookies and the local storage of its tabs' origins saved to a JSON file in Playwright's
    /// `storageState` format (under the artifacts dir), or such a file (from the uploads dir, else the
    /// artifacts dir) loaded into the session: its cookies set, each origin's local storage written.
    SessionStorageState = "session.storage_state" { session: true, params: StorageStateParams, result: StorageStateResult, timeout_ms: 15_000 }
    /// `session.trace {action: start | stop, name?}` -> [`TraceResult`]: records each of the session's
    /// actions (params redacted, timing, outcome, URL, dialogs, downloads, console errors, resets, a
    /// small JPEG after it) as JSON lines under the artifacts dir; `stop` also writes one self-contained
    /// HTML report (a timeline with the screenshots inline) named `name` (default
    /// `<session>-trace-<ms>.html`).
    SessionTrace = "session.trace" { session: true, params: TraceParams, result: TraceResult, timeout_ms: 15_000 }
    /// `session.har {action: start | stop, content?, url_filter?, name?}` -> [`HarResult`]: records
    /// the session's requests, in every tab the session drives, as Playwright's `recordHar`; `stop`
    /// writes them as one HAR 1.2 file (timings, headers, post data, response bodies cut at
    /// [`NETWORK_BODY_BYTES`] each) under the artifacts dir (`<owner>/hars`). What a tab closed during
    /// the recording requested, and a tab's requests past its buffer ([`NETWORK_BUFFER`]), are left
    /// out (the file's `comment` counts the latter).
    SessionHar = "session.har" { session: true, params: HarParams, result: HarResult, timeout_ms: 15_000 }
    /// `session.list` -> [`SessionListResult`]: the open sessions.
    SessionList = "session.list" { session: false, params: NoParams, result: SessionListResult, timeout_ms: 8_000 }
    /// `page.goto {url}` -> [`GotoResult`]: loads `url` and answers once its document reached
    /// `DOMContentLoaded` (`load_state` says what it had reached by then: `load` when its subresources
    /// were done), or what it reached when the budget ran out (`timed_out: true`). A document that
    /// sends the tab on while it loads (a script's `location.href = ...`) is followed: the answer comes
    /// once the page it went to is loaded, with the first response's `status`.
    PageGoto = "page.goto" { session: true, params: GotoParams, result: GotoResult, timeout_ms: 15_000, facts: [Navigates, Repeatable] }
    /// `page.back` -> [`GotoResult`]: the previous entry of the tab's history, waited for as `page.goto`
    /// waits, until `DOMContentLoaded` (`timed_out` with what it reached); `bad_request` when there is
    /// none.
    PageBack = "page.back" { session: true, params: NoParams, result: GotoResult, timeout_ms: 15_000, facts: [Navigates] }
    /// `page.forward` -> [`GotoResult`]: the next entry of the tab's history, as `page.back`.
    PageForward = "page.forward" { session: true, params: NoParams, result: GotoResult, timeout_ms: 15_000, facts: [Navigates] }
    /// `page.reload` -> [`GotoResult`]: the tab's document loaded again, waited for as `page.goto`.
    PageReload = "page.reload" { session: true, params: NoParams, result: GotoResult, timeout_ms: 15_000, facts: [Navigates] }
    /// `page.extract {format?, max_chars?}` -> [`ExtractResult`]: the page's `text` (innerText) or
    /// `html`, at most `max_chars`.
    PageExtract = "page.extract" { session: true, params: ExtractParams, result: ExtractResult, timeout_ms: 8_000, facts: [Reads] }
    /// `page.screenshot {full_page?, format?, quality?, inline?, max_height?, clip?, ref? | selector?}` ->
    /// [`ScreenshotResult`]: the viewport, the full page (cut at `max_height` CSS px), a `clip` region
    /// (`{x, y, width, height}`, CSS px) or an element, saved under the runtime's artifacts directory;
    /// `inline` also returns it as base64 `data`.
    PageScreenshot = "page.screenshot" { session: true, params: ScreenshotParams, result: ScreenshotResult, timeout_ms: 8_000, facts: [Artifact, Reads] }
    /// `page.evaluate {expression | function, ref? | selector?, frame?, arg?}` -> [`EvaluateResult`]:
    /// an `expression`, or a `function` called with the element named by `ref`/`selector` and the
    /// JSON `arg` (Playwright's `evaluate(fn, arg)`); promises are awaited; `evaluate_error` when it
    /// throws.
    PageEvaluate = "page.evaluate" { session: true, params: EvaluateParams, result: EvaluateResult, timeout_ms: 8_000 }
    /// `page.wait_for {selector+state | text | text_gone | url | load_state | function | time_ms}` ->
    /// [`WaitForResult`]: exactly one condition (a `selector` in a `state`, `text` to appear, `text_gone`,
    /// a `url` glob, a `load_state`, a JS `function` truthy, or `time_ms`).
    PageWaitFor = "page.wait_for" { session: true, params: WaitForParams, result: WaitForResult, timeout_ms: 20_000 }
    /// `page.snapshot {interactive?, compact?, max_depth?, scope?, max_chars?, diff?}` ->
    /// [`SnapshotResult`]: the page as aria-snapshot text with `[ref=eN]` refs to act on.
    PageSnapshot = "page.snapshot" { session: true, params: SnapshotParams, result: SnapshotResult, timeout_ms: 8_000, facts: [Reads] }
    /// `page.click {ref | selector, button?, click_count?, modifiers?}` -> [`InputResult`]: waits until
    /// the element is actionable (visible, stable, enabled, not covered), then clicks it with `button`
    /// `click_count` times.
    PageClick = "page.click" { session: true, params: ClickParams, result: InputResult, timeout_ms: 8_000 }
    /// `page.type {ref | selector, text, clear?, submit?}` -> [`InputResult`]: types `text` key by key
    /// (`clear` first empties the field, `submit` presses Enter after).
    PageType = "page.type" { session: true, params: TypeParams, result: InputResult, timeout_ms: 8_000 }
    /// `page.fill {ref | selector, value}` -> [`InputResult`]: sets an input's value at once (as
    /// Playwright's `fill`).
    PageFill = "page.fill" { session: true, params: FillParams, result: InputResult, timeout_ms: 8_000 }
    /// `page.press {key, ref? | selector?}` -> [`InputResult`]: `Enter`, `Tab`, `Control+A`, ... on the
    /// element, or on the focused one.
    PagePress = "page.press" { session: true, params: PressParams, result: InputResult, timeout_ms: 8_000 }
    /// `page.hover {ref | selector}` -> [`InputResult`]: moves the mouse over the element.
    PageHover = "page.hover" { session: true, params: HoverParams, result: InputResult, timeout_ms: 8_000 }
    /// `page.handle_dialog {accept, prompt_text?}` -> [`HandleDialogResult`]: how the session answers
    /// its next JavaScript dialog, in any of its tabs (a popup not focused yet too); one dialog only.
    PageHandleDialog = "page.handle_dialog" { session: true, params: HandleDialogParams, result: HandleDialogResult, timeout_ms: 8_000 }
    /// `page.select {ref | selector, values? | labels? | indexes?}` -> [`SelectResult`]: selects a
    /// `<select>`'s options.
    PageSelect = "page.select" { session: true, params: SelectParams, result: SelectResult, timeout_ms: 8_000 }
    /// `page.check {ref | selector, checked?}` -> [`InputResult`]: brings a checkbox or radio to
    /// `checked` (default true).
    PageCheck = "page.check" { session: true, params: CheckParams, result: InputResult, timeout_ms: 8_000 }
    /// `page.scroll {ref | selector}` -> [`InputResult`]: an element into view; or `{dx?, dy?}` ->
    /// [`ScrollResult`]: the page by a wheel delta (CSS px).
    PageScroll = "page.scroll" { session: true, params: ScrollParams, result: ScrollAnswer, timeout_ms: 8_000 }
    /// `page.drag {from: {ref | selector}, to: {ref | selector}}` -> [`InputResult`]: drags with the
    /// mouse from one element to the other.
    PageDrag = "page.drag" { session: true, params: DragParams, result: InputResult, timeout_ms: 8_000 }
    /// `page.set_viewport {width, height, device_scale_factor?}` -> [`SetViewportResult`]: the session's
    /// viewport in CSS px from now on (its pages, and the pages of every later worker).
    PageSetViewport = "page.set_viewport" { session: true, params: SetViewportParams, result: SetViewportResult, timeout_ms: 8_000 }
    /// `page.frames` -> [`FramesResult`]: the active tab's frame tree, main frame first (out-of-process
    /// iframes included).
    PageFrames = "page.frames" { session: true, params: NoParams, result: FramesResult, timeout_ms: 8_000, facts: [Reads] }
    /// `page.pdf {paper?, landscape?, print_background?, margin_in?, scale?, page_ranges?}` ->
    /// [`PdfResult`]: the page printed to PDF (`Page.printToPDF`, print media), written under the
    /// artifacts directory.
    PagePdf = "page.pdf" { session: true, params: PdfParams, result: PdfResult, timeout_ms: 15_000, facts: [Artifact, Reads] }
    /// `page.fill_form {fields: [{ref | selector, value}]}` -> [`FillFormResult`]: fills several fields
    /// in order, each as its element takes a value (text: filled; checkbox, radio: checked by
    /// `"true"`/`"false"`; select: chosen by value or label), stopping at the first that fails and
    /// naming it.
    PageFillForm = "page.fill_form" { session: true, params: FillFormParams, result: FillFormResult, timeout_ms: 15_000 }
    /// `page.upload {ref | selector, files}` -> [`UploadResult`]: sets the files of a file input
    /// (`DOM.setFileInputFiles`), each a plain name of a file in `[files] uploads_dir`.
    PageUpload = "page.upload" { session: true, params: UploadParams, result: UploadResult, timeout_ms: 8_000 }
    /// `page.downloads` -> [`DownloadsResult`]: every download of the session so far (its pages' and
    /// popups'), oldest first, each in its latest state.
    PageDownloads = "page.downloads" { session: true, params: NoParams, result: DownloadsResult, timeout_ms: 8_000 }
    /// `page.console {since?, level?, limit?}` -> [`ConsoleResult`]: the active tab's console messages
    /// and uncaught exceptions (`Runtime.consoleAPICalled`, `Runtime.exceptionThrown`) from a bounded
    /// buffer ([`CONSOLE_BUFFER`] entries), oldest first, at `level` or more severe.
    PageConsole = "page.console" { session: true, params: ConsoleParams, result: ConsoleResult, timeout_ms: 8_000, facts: [Reads] }
    /// `page.network {since?, filter?, include_static?, limit?}` -> [`NetworkResult`]: the active tab's
    /// requests (`Network.requestWillBeSent` and what followed) from a bounded buffer
    /// ([`NETWORK_BUFFER`] entries), oldest first; `page.network {id}`: that request alone with its
    /// [`RequestDetails`] (headers, post data, the response's headers and body, capped).
    PageNetwork = "page.network" { session: true, params: NetworkParams, result: NetworkResult, timeout_ms: 8_000, facts: [Reads] }
    /// `page.mouse {action, x?, y?, button?, click_count?, dx?, dy?, to_x?, to_y?}` -> [`InputResult`]:
    /// raw mouse input at viewport coordinates (CSS px), as Playwright's `page.mouse` (`move`, `down`,
    /// `up`, `click`, `wheel`) plus `drag` (down at x, y, move to to_x, to_y, up); no element is
    /// checked. Buttons stay down between calls until `up`.
    PageMouse = "page.mouse" { session: true, params: MouseParams, result: InputResult, timeout_ms: 8_000 }
    /// `page.keyboard {action, key? | text?}` -> [`InputResult`]: raw keys on the focused element, as
    /// Playwright's `page.keyboard` (`down` and `up` of one key, modifiers held between calls until
    /// their `up`; `press` of a key or combo; `insert_text` as `Input.insertText`).
    PageKeyboard = "page.keyboard" { session: true, params: KeyboardParams, result: InputResult, timeout_ms: 8_000 }
    /// `page.emulate {color_scheme?, reduced_motion?, locale?, timezone?, geolocation?, user_agent?,
    /// offline?, extra_http_headers?, permissions?, reset?}` -> [`EmulateResult`]: what the session's
    /// pages emulate from now on, as Playwright's context options (each
    /// field given replaces the one in force; `reset` clears them all first), on every page of the
    /// session and kept across a supervisor restart, as the viewport is.
    PageEmulate = "page.emulate" { session: true, params: EmulateParams, result: EmulateResult, timeout_ms: 8_000 }
    /// `page.storage {kind: local | session, action?: get | set | delete | clear, key?, value?}` ->
    /// [`StorageResult`]: the active tab's `localStorage` or `sessionStorage` (its origin's), after the
    /// action.
    PageStorage = "page.storage" { session: true, params: StorageParams, result: StorageResult, timeout_ms: 8_000 }
    /// `page.verify {ref | selector | role+name, visible | text | value | checked | count | attribute |
    /// items}` -> [`VerifyResult`]: one check of the page as it is now (Playwright MCP's
    /// `browser_verify_*`, Playwright's `expect` without its retries); `verify_failed` (not retryable)
    /// with what the page has when it does not hold. `text` without an element: visible text anywhere
    /// on the page.
    PageVerify = "page.verify" { session: true, params: VerifyParams, result: VerifyResult, timeout_ms: 8_000, facts: [Reads] }
    /// `page.query {ref | selector}` -> [`QueryResult`]: how many elements a selector matches (and how
    /// many are visible), and the first one's tag, text, value, checked state, visibility, attributes
    /// and bounding box, read at once without JavaScript of the caller's.
    PageQuery = "page.query" { session: true, params: QueryParams, result: QueryResult, timeout_ms: 8_000, facts: [Reads] }
    /// `page.clipboard {action: read | write, text?}` -> [`ClipboardResult`]: the system clipboard as
    /// the active tab's page sees it (`navigator.clipboard.readText` / `writeText`, in the runtime's
    /// isolated world, as a user's gesture). Reading needs the session's `clipboard-read` permission
    /// (`session.start` or `page.emulate {permissions}`); without it `bad_request` says so.
    PageClipboard = "page.clipboard" { session: true, params: ClipboardParams, result: ClipboardResult, timeout_ms: 8_000 }
    /// `page.route {url, action?, status?, content_type?, headers?, body? | body_base64? | body_file?,
    /// error?, request_headers?, remove_headers?, method?, post_data?}` -> [`RoutesResult`]: a
    /// [`Route`] of the session's requests, in every tab, tried before the ones already there (as
    /// Playwright's `context.route`); at most [`MAX_ROUTES`]. While a session has no route (and no
    /// `http_credentials`) its requests are not intercepted at all.
    PageRoute = "page.route" { session: true, params: Route, result: RoutesResult, timeout_ms: 8_000 }
    /// `page.unroute {url?}` -> [`RoutesResult`]: removes the routes added with that `url` (every
    /// route without it), as Playwright's `context.unroute(url)` / `unrouteAll()`.
    PageUnroute = "page.unroute" { session: true, params: UnrouteParams, result: RoutesResult, timeout_ms: 8_000 }
    /// `page.routes` -> [`RoutesResult`]: the session's routes, newest first.
    PageRoutes = "page.routes" { session: true, params: NoParams, result: RoutesResult, timeout_ms: 8_000 }
    /// `tabs.list` -> [`TabsListResult`]: the session's tabs (popups included).
    TabsList = "tabs.list" { session: true, params: NoParams, result: TabsListResult, timeout_ms: 8_000 }
    /// `tabs.open {url?}` -> [`TabInfo`]: a new tab, the active one from now on, loaded at `url` as
    /// `page.goto` loads it, with the session's viewport and emulation from its first request (a load
    /// that fails answers `page.goto`'s error; the tab stays open and active).
    TabsOpen = "tabs.open" { session: true, params: TabsOpenParams, result: TabResult, timeout_ms: 15_000, facts: [Navigates] }
    /// `tabs.focus {target_id}` -> [`TabInfo`]: page methods go to this tab from now on (a unique
    /// `target_id` prefix is enough).
    TabsFocus = "tabs.focus" { session: true, params: TabTargetParams, result: TabResult, timeout_ms: 8_000 }
    /// `tabs.close {target_id}` -> [`TabsCloseResult`]: closes the tab.
    TabsClose = "tabs.close" { session: true, params: TabTargetParams, result: TabsCloseResult, timeout_ms: 8_000 }
}

impl Method {
    /// Parses a wire name such as `"page.goto"`.
    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// `session.start` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionStartParams {
    /// The id to use; generated when absent. 1..=128 chars of `[A-Za-z0-9._-]`, starting with a letter or
    /// digit (never `.` or `..`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The session's viewport, CSS px (each side 1..=10000); the configured one (1280x800 by default)
    /// when absent. Every page of the session measures it (`innerWidth` x `innerHeight`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Viewport>,
    /// Device pixels per CSS px (`devicePixelRatio`), 0.5..=4; 1 when absent. Screenshots are taken at
    /// this scale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_scale_factor: Option<f64>,
    /// A storage state file to start from (`session.storage_state`'s `name`: a Playwright
    /// `storageState` JSON in the uploads dir, else the artifacts dir): its cookies and local storage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_state: Option<String>,
    /// What the session's pages emulate from their first request, as `page.emulate` sets it later
    /// (Playwright's context options: `colorScheme`, `locale`, `timezoneId`, `geolocation`,
    /// `userAgent`, `offline`, `extraHTTPHeaders`, `permissions`).
    #[serde(flatten)]
    pub emulation: Emulation,
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

/// How many console messages a tab keeps (the oldest go first; `page.console`'s `dropped` counts them).
pub const CONSOLE_BUFFER: usize = 1_000;

/// How many requests a tab keeps (the oldest go first; `page.network`'s `dropped` counts them).
pub const NETWORK_BUFFER: usize = 1_000;

/// The most entries one `page.console` or `page.network` answer lists (the newest kept).
pub const MAX_JOURNAL_LIMIT: u32 = 1_000;

/// A console message's severity, most severe first (Playwright MCP's `browser_console_messages`
/// levels: each level includes the more severe ones).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ConsoleLevel {
    /// `console.error`, `console.assert` failures, uncaught exceptions.
    Error,
    /// `console.warn`.
    Warning,
    /// `console.log`, `console.info` and the rest (the default).
    #[default]
    Info,
    /// `console.debug`, `console.trace` and the like.
    Debug,
}

/// `page.console` params.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConsoleParams {
    /// Only entries after this `id` (a previous answer's `last_id`); all kept when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
    /// The least severe level listed (default `info`: errors, warnings and info).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<ConsoleLevel>,
    /// At most this many, the newest (1..=1000, default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// One console message or uncaught exception.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConsoleMessage {
    /// Its number in the tab's buffer (increasing; `since` takes it).
    pub id: u64,
    /// Its severity.
    pub level: ConsoleLevel,
    /// The console call (`log`, `error`, `warning`, `info`, `debug`, `assert`, `trace`, ...) or
    /// `pageerror` for an uncaught exception (Playwright's names).
    #[serde(rename = "type")]
    pub kind: String,
    /// The arguments as text, joined by spaces, as Playwright's `ConsoleMessage.text()` writes them
    /// (`hello 5 {foo: bar}`, `[1, empty, 3]`; each at most 2000 chars), or the exception's first line
    /// (`Error: boom`).
    pub text: String,
    /// An uncaught exception's stack as V8 writes it (`Error: boom\n    at f (http://...:3:9)`), as
    /// Playwright's `pageerror` error's `stack`; absent for console calls and for a thrown value that
    /// is not an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    /// Where it came from, `url:line` (1-based), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// When, ms since the Unix epoch.
    pub timestamp_ms: u64,
}

/// `page.console` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConsoleResult {
    /// The messages, oldest first.
    pub messages: Vec<ConsoleMessage>,
    /// The newest `id` in the buffer (pass it as `since` to get only what comes next); 0 when empty.
    pub last_id: u64,
    /// Messages the buffer let go since the tab was opened (it keeps the newest [`CONSOLE_BUFFER`]).
    pub dropped: u64,
}

/// `page.network` params.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetworkParams {
    /// Only entries after this `id` (a previous answer's `last_id`); all kept when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
    /// A URL glob (`**` any characters, `*` any but `/`) or a `/pattern/flags` regular expression. The
    /// glob as `page.wait_for`'s `url`; the regular expression as Playwright writes it
    /// (`/api\/v\d+/i`), found anywhere in the URL; one that does not compile is `bad_request`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// Also list images, fonts, stylesheets and media that loaded. They are left out by default, as
    /// Playwright MCP's `browser_network_requests` does; a failed one is always listed.
    #[serde(default)]
    pub include_static: bool,
    /// At most this many, the newest (1..=1000, default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// One request's details instead of a list (an `id` from a listing): its headers and body, the
    /// response's status, headers and body (as Playwright MCP's `browser_network_request`); the other
    /// fields are then not taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
}

/// The most of a request's or a response's body `page.network {id}` gives, bytes (64 KiB; a binary
/// body is cut before it is base64-encoded).
pub const NETWORK_BODY_BYTES: usize = 65_536;

/// One request's details (`page.network {id}`), beside its [`NetworkRequest`] entry. Headers are
/// name -> value, as the page sent them (`Network.requestWillBeSent`: the browser's own, such as
/// `Cookie`, are added on the way and not shown) and as the response came (repeated ones joined by a
/// newline).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RequestDetails {
    /// The request's headers.
    pub request_headers: std::collections::BTreeMap<String, String>,
    /// The request's body (a form's, a `fetch`'s), cut at [`NETWORK_BODY_BYTES`]; absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_data: Option<String>,
    /// The status line's text (`OK`; empty over HTTP/2), once a response came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_text: Option<String>,
    /// The response's headers, once it came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_headers: Option<std::collections::BTreeMap<String, String>>,
    /// The response's MIME type (`text/html`, `image/png`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The response's body (`Network.getResponseBody`), cut at [`NETWORK_BODY_BYTES`]: text, or
    /// base64 when `body_base64`. Absent when there is none to give (`body_missing` says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// `body` is base64 (a binary response).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub body_base64: bool,
    /// The whole body's size, bytes (before any cut).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_bytes: Option<u64>,
    /// `body` (or `post_data`) was cut at [`NETWORK_BODY_BYTES`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Why there is no body: the request is still in flight, it failed, a redirect or a `204`/`304`
    /// has none, or the browser no longer holds it (a page that navigated away lets its bodies go).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_missing: Option<String>,
}

/// One request of a tab (a redirect's hops are one entry each).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetworkRequest {
    /// Its number in the tab's buffer (increasing; `since` takes it).
    pub id: u64,
    /// `GET`, `POST`, ...
    pub method: String,
    /// The URL (credentials redacted; `data:` URLs cut at 100 chars).
    pub url: String,
    /// The resource type as Playwright's `request.resourceType()` gives it: `document`, `stylesheet`,
    /// `image`, `script`, `xhr`, `fetch`, `font`, `websocket`, ... (`other` for the rest).
    pub resource_type: String,
    /// The HTTP status, once a response came (a redirect's hop has its 3xx).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Bytes received over the network (`encodedDataLength`), once it finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// From the request to its end (finished or failed), ms; absent while in flight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// Why it failed (Chromium's `net::ERR_...` text), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// The URL policy's rule that refused its host, when the runtime's gate refused it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<String>,
}

/// `page.network` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetworkResult {
    /// The requests, oldest first.
    pub requests: Vec<NetworkRequest>,
    /// The newest `id` in the buffer (pass it as `since` to get only what comes next); 0 when empty.
    pub last_id: u64,
    /// Requests the buffer let go since the tab was opened (it keeps the newest [`NETWORK_BUFFER`]).
    pub dropped: u64,
    /// With `id`: that request's details (`requests` then lists its entry alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Box<RequestDetails>>,
}

/// Default `max_chars` of `page.snapshot`.
pub const DEFAULT_SNAPSHOT_MAX_CHARS: u64 = 40_000;

/// The largest `page.scroll` delta (`dx`, `dy`), CSS px: a larger or non-finite one is `bad_request`
/// (Chromium takes a wheel of `1e308` and then acknowledges no input on the tab).
pub const MAX_SCROLL_DELTA: f64 = 100_000.0;

/// The largest `click_count` of `page.click` (a triple click).
pub const MAX_CLICK_COUNT: u32 = 3;

/// The largest `settle_ms` an input takes (the budget, at most 120 s, caps it further).
pub const MAX_SETTLE_MS: u64 = 120_000;

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

/// The element an input action targets: a ref from a snapshot, or a selector (one of them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ElementParams {
    /// A ref from a snapshot (`e12`).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// A selector, its first match in document order, through open shadow roots: CSS (`#save`), or
    /// Playwright's selectors (`text=Save`, `role=button[name="Save"]`, `//xpath`, `css >> nth=1`,
    /// `button:has-text("Save")`, ...) and locators (`getByRole('button', { name: 'Save' })`,
    /// `getByLabel('Email')`, `getByText(...)`, `.first()`, `.nth(i)`, `.filter({ hasText })`), with
    /// Playwright's matching rules (docs/protocol.md, Selectors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

/// The part every input's params have: how long to wait after the input for what its handlers do
/// later (`page.click {ref, settle_ms: 300}`). Without it the answer comes as soon as the input's
/// effects are known (the navigation it started committed, the requests it started answered); a
/// dialog raised later is answered by the session's policy and reported in its next result. The MCP
/// tools use [`MCP_SETTLE_MS`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Settle {
    /// Ms more to wait after the input (capped by the budget): a dialog its handlers raise within it is
    /// in this result; default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle_ms: Option<u64>,
}

/// The `settle_ms` the MCP server gives its input tools (a click, a key, a fill) when the model gives
/// none: 200 ms, a window in which a dialog or a navigation counts as the action's, as Playwright MCP's
/// tools have (theirs waits for the requests the action started, then about 500 ms).
pub const MCP_SETTLE_MS: u64 = 200;

/// `page.hover` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HoverParams {
    /// The element to hover.
    #[serde(flatten)]
    pub element: ElementParams,
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
}

/// `page.click` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClickParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The element to click.
    #[serde(flatten)]
    pub element: ElementParams,
    /// `left` (default), `right` or `middle`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// 2 for a double click.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub click_count: Option<u32>,
    /// `Alt`, `Control`, `Meta`, `Shift` (or `ControlOrMeta`) held during the click.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modifiers: Vec<Modifier>,
}

/// `prefers-color-scheme` as a page sees it, spelled as Playwright's `emulateMedia` and CSS spell it
/// (`no-preference`; `no_preference` is taken too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ColorScheme {
    /// `light`.
    Light,
    /// `dark`.
    Dark,
    /// `no-preference`.
    #[serde(alias = "no_preference")]
    NoPreference,
}

/// `prefers-reduced-motion` as a page sees it (`reduce`, `no-preference`; `no_preference` is taken
/// too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ReducedMotion {
    /// `reduce`.
    Reduce,
    /// `no-preference`.
    #[serde(alias = "no_preference")]
    NoPreference,
}

/// `forced-colors` as a page sees it (Playwright's `forcedColors`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ForcedColors {
    /// `active`: the page is shown with a forced palette (Windows high contrast).
    Active,
    /// `none`.
    None,
}

/// `prefers-contrast` as a page sees it (Playwright's `contrast`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Contrast {
    /// `more`.
    More,
    /// `no-preference`.
    #[serde(alias = "no_preference")]
    NoPreference,
}

/// The CSS media type a page is laid out for (Playwright's `emulateMedia({media})`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MediaType {
    /// `screen`.
    Screen,
    /// `print`: `@media print` rules apply, as when printing.
    Print,
}

/// A position `navigator.geolocation` reports (`Emulation.setGeolocationOverride`; the session's
/// context is granted the `geolocation` permission).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Geolocation {
    /// Degrees, -90..=90.
    pub latitude: f64,
    /// Degrees, -180..=180.
    pub longitude: f64,
    /// Metres, 0 or more (default 0).
    #[serde(default)]
    pub accuracy: f64,
}

/// What a session's pages emulate; an absent field is the browser's own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Emulation {
    /// `prefers-color-scheme` (`Emulation.setEmulatedMedia`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_scheme: Option<ColorScheme>,
    /// `prefers-reduced-motion` (`Emulation.setEmulatedMedia`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduced_motion: Option<ReducedMotion>,
    /// `forced-colors` (`Emulation.setEmulatedMedia`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forced_colors: Option<ForcedColors>,
    /// `prefers-contrast` (`Emulation.setEmulatedMedia`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contrast: Option<Contrast>,
    /// The CSS media type, `screen` or `print` (`Emulation.setEmulatedMedia`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<MediaType>,
    /// A BCP 47 locale such as `de-DE`: `Intl` and dates (`Emulation.setLocaleOverride`),
    /// `navigator.language` and the `Accept-Language` header (`Emulation.setUserAgentOverride`), as
    /// Playwright's `locale` sets them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// An IANA time zone such as `Europe/Berlin` (`Emulation.setTimezoneOverride`); one the
    /// browser's ICU data does not know answers `bad_request`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// The position the page gets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Geolocation>,
    /// The `User-Agent` header and `navigator.userAgent` (`Emulation.setUserAgentOverride`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// No network: every request fails as offline (`Network.emulateNetworkConditions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offline: Option<bool>,
    /// Headers sent with every request of the session's pages, as Playwright's `extraHTTPHeaders`
    /// (`Network.setExtraHTTPHeaders`). At most [`MAX_EXTRA_HEADERS`], names as HTTP tokens, values
    /// without line breaks; `{}` sends none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_http_headers: Option<std::collections::BTreeMap<String, String>>,
    /// Permissions granted to every origin in the session's browser context, as Playwright's
    /// `permissions` (`Browser.grantPermissions`); the rest are denied. `[]` grants none
    /// (`geolocation` stays granted while a position is emulated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Vec<Permission>>,
    /// Scripts run in every document of the session's pages before the page's own, as Playwright's
    /// `addInitScript` (`Page.addScriptToEvaluateOnNewDocument`), in every frame: a cross-site
    /// (out-of-process) iframe is held as it attaches until they are in; at most
    /// [`MAX_INIT_SCRIPTS`] of at most [`MAX_INIT_SCRIPT_BYTES`] each. `page.emulate` replaces the
    /// list (the next document of every tab runs the new one: a script left out is removed,
    /// `Page.removeScriptToEvaluateOnNewDocument`); its `reset` keeps them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_scripts: Option<Vec<String>>,
    /// HTTP authentication for the session's pages, as Playwright's `httpCredentials`: a server's
    /// Basic or Digest challenge (a 401 with `WWW-Authenticate`) is answered with them, once a
    /// request. Results show the password as `***`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_credentials: Option<HttpCredentials>,
    /// Routes the session's requests take, newest first (`page.route` adds one, `page.unroute`
    /// removes them; `session.start` may give the first ones). `page.emulate` does not take them,
    /// its `reset` keeps them, and its result leaves them out (`page.routes` lists them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routes: Option<Vec<Route>>,
}

/// A route of the session's requests, as Playwright's `context.route(url, handler)` with the
/// handler's one answer: the first route whose `url` matches a request (the newest first) answers
/// it, in every tab of the session (`Fetch.requestPaused`, then `Fetch.fulfillRequest`,
/// `Fetch.failRequest` or `Fetch.continueRequest`). The URL policy comes first: a request a route
/// lets go (`continue`) still meets the connection gate, and `page.goto` to a blocked URL is
/// refused whatever routes say; a route may fulfill a request for a blocked URL (nothing reaches
/// the network).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Route {
    /// A glob matched against the whole URL (`**/api/*`, `**/*.{png,jpg}`) or `/regex/flags`.
    pub url: String,
    /// When absent: `abort` with `error`, `fulfill` with a status, body, content type or headers,
    /// else `continue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<RouteAction>,
    /// fulfill: the status (100..=599), 200 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// fulfill: the `Content-Type` (from `body_file`'s name when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// fulfill: the response's headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<std::collections::BTreeMap<String, String>>,
    /// fulfill: the body, text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// fulfill: the body, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_base64: Option<String>,
    /// fulfill: the body from this file of the uploads dir, read once (`page.route` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_file: Option<String>,
    /// abort: Playwright's error code, `failed` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<AbortReason>,
    /// continue: request headers set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_headers: Option<std::collections::BTreeMap<String, String>>,
    /// continue: request headers removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remove_headers: Option<Vec<String>>,
    /// continue: another method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// continue: another body, text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_data: Option<String>,
}

impl Route {
    /// The route as results show it: its bodies left out (`body_file` kept), their size in
    /// [`RouteInfo::body_bytes`].
    pub fn shown(&self) -> RouteInfo {
        // Field by field: the bodies, which may be a megabyte, are not copied to be dropped.
        let route = Route {
            url: self.url.clone(),
            action: self.action,
            status: self.status,
            content_type: self.content_type.clone(),
            headers: self.headers.clone(),
            body: None,
            body_base64: None,
            body_file: self.body_file.clone(),
            error: self.error,
            request_headers: self.request_headers.clone(),
            remove_headers: self.remove_headers.clone(),
            method: self.method.clone(),
            post_data: self.post_data.clone(),
        };
        RouteInfo { route, body_bytes: self.body_bytes() }
    }

    /// The size of the body it answers with, bytes (`body`'s, or `body_base64`'s decoded: 3 bytes in
    /// 4 characters, less its padding); `None` without one.
    pub fn body_bytes(&self) -> Option<u64> {
        match (&self.body, &self.body_base64) {
            (Some(text), _) => Some(text.len() as u64),
            (None, Some(b64)) => {
                let padding = b64.bytes().rev().take_while(|b| *b == b'=').count() as u64;
                Some((b64.len() as u64 / 4 * 3).saturating_sub(padding))
            }
            (None, None) => None,
        }
    }
}

/// What a [`Route`] does with a request it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RouteAction {
    /// Answer it with the route's status, headers and body; nothing reaches the network
    /// (`Fetch.fulfillRequest`).
    Fulfill,
    /// Fail it with the route's `error` (`Fetch.failRequest`).
    Abort,
    /// Let it go on, with the route's request headers, method and post data (`Fetch.continueRequest`).
    Continue,
}

/// How an aborted request fails, as Playwright's `route.abort(errorCode)` names it (CDP's
/// `Network.ErrorReason`; the page sees `net::ERR_FAILED`, `net::ERR_CONNECTION_REFUSED`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AbortReason {
    /// `net::ERR_ABORTED`.
    Aborted,
    /// `net::ERR_ACCESS_DENIED`.
    AccessDenied,
    /// `net::ERR_ADDRESS_UNREACHABLE`.
    AddressUnreachable,
    /// `net::ERR_BLOCKED_BY_CLIENT`.
    BlockedByClient,
    /// `net::ERR_BLOCKED_BY_RESPONSE`.
    BlockedByResponse,
    /// `net::ERR_CONNECTION_ABORTED`.
    ConnectionAborted,
    /// `net::ERR_CONNECTION_CLOSED`.
    ConnectionClosed,
    /// `net::ERR_CONNECTION_FAILED`.
    ConnectionFailed,
    /// `net::ERR_CONNECTION_REFUSED`.
    ConnectionRefused,
    /// `net::ERR_CONNECTION_RESET`.
    ConnectionReset,
    /// `net::ERR_INTERNET_DISCONNECTED`.
    InternetDisconnected,
    /// `net::ERR_NAME_NOT_RESOLVED`.
    NameNotResolved,
    /// `net::ERR_TIMED_OUT`.
    TimedOut,
    /// `net::ERR_FAILED`.
    Failed,
}

impl AbortReason {
    /// CDP's `Network.ErrorReason` for it.
    pub fn cdp_name(self) -> &'static str {
        match self {
            AbortReason::Aborted => "Aborted",
            AbortReason::AccessDenied => "AccessDenied",
            AbortReason::AddressUnreachable => "AddressUnreachable",
            AbortReason::BlockedByClient => "BlockedByClient",
            AbortReason::BlockedByResponse => "BlockedByResponse",
            AbortReason::ConnectionAborted => "ConnectionAborted",
            AbortReason::ConnectionClosed => "ConnectionClosed",
            AbortReason::ConnectionFailed => "ConnectionFailed",
            AbortReason::ConnectionRefused => "ConnectionRefused",
            AbortReason::ConnectionReset => "ConnectionReset",
            AbortReason::InternetDisconnected => "InternetDisconnected",
            AbortReason::NameNotResolved => "NameNotResolved",
            AbortReason::TimedOut => "TimedOut",
            AbortReason::Failed => "Failed",
        }
    }
}

/// A route as results list it ([`Route::shown`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RouteInfo {
    /// The route, without its body.
    #[serde(flatten)]
    pub route: Route,
    /// The size of the body it answers with, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_bytes: Option<u64>,
}

/// The most routes a session has.
pub const MAX_ROUTES: usize = 32;
/// The largest body a route answers with, bytes.
pub const MAX_ROUTE_BODY_BYTES: usize = 1024 * 1024;
/// The most bytes the bodies of a session's routes take together.
pub const MAX_ROUTES_BODY_BYTES: usize = 4 * 1024 * 1024;

/// `page.unroute` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UnrouteParams {
    /// The `url` the routes were added with; every route when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `page.route`, `page.unroute` and `page.routes` result: the session's routes now.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RoutesResult {
    /// Newest first: the order requests are matched in.
    pub routes: Vec<RouteInfo>,
}

/// `http_credentials`: who the session's pages sign in to HTTP authentication as.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCredentials {
    /// The user name.
    pub username: String,
    /// The password.
    pub password: String,
    /// Only for this origin (`https://example.com`, scheme, host and port as a URL gives them); for
    /// every origin when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

/// The most `init_scripts` a session runs.
pub const MAX_INIT_SCRIPTS: usize = 16;
/// The longest init script, bytes.
pub const MAX_INIT_SCRIPT_BYTES: usize = 256 * 1024;

/// The most `extra_http_headers` a session sends.
pub const MAX_EXTRA_HEADERS: usize = 64;

/// A permission a session's pages may be granted ([`Emulation::permissions`]), as Playwright names
/// it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Permission {
    /// `navigator.clipboard.read`/`readText` (CDP `clipboardReadWrite`).
    ClipboardRead,
    /// `navigator.clipboard.write`/`writeText` (CDP `clipboardSanitizedWrite`).
    ClipboardWrite,
    /// `Notification` (CDP `notifications`).
    Notifications,
    /// `navigator.geolocation` (CDP `geolocation`).
    Geolocation,
    /// The camera (CDP `videoCapture`).
    Camera,
    /// The microphone (CDP `audioCapture`).
    Microphone,
}

impl Permission {
    /// CDP's `Browser.PermissionType` for it, as Playwright's `crBrowser.ts` maps it.
    pub fn cdp_name(self) -> &'static str {
        match self {
            Permission::ClipboardRead => "clipboardReadWrite",
            Permission::ClipboardWrite => "clipboardSanitizedWrite",
            Permission::Notifications => "notifications",
            Permission::Geolocation => "geolocation",
            Permission::Camera => "videoCapture",
            Permission::Microphone => "audioCapture",
        }
    }
}

impl Emulation {
    /// `self` with each field `other` gives replacing its own.
    pub fn merged(&self, other: &Emulation) -> Emulation {
        Emulation {
            color_scheme: other.color_scheme.or(self.color_scheme),
            reduced_motion: other.reduced_motion.or(self.reduced_motion),
            forced_colors: other.forced_colors.or(self.forced_colors),
            contrast: other.contrast.or(self.contrast),
            media: other.media.or(self.media),
            locale: other.locale.clone().or_else(|| self.locale.clone()),
            timezone: other.timezone.clone().or_else(|| self.timezone.clone()),
            geolocation: other.geolocation.or(self.geolocation),
            user_agent: other.user_agent.clone().or_else(|| self.user_agent.clone()),
            offline: other.offline.or(self.offline),
            extra_http_headers: other.extra_http_headers.clone().or_else(|| self.extra_http_headers.clone()),
            permissions: other.permissions.clone().or_else(|| self.permissions.clone()),
            init_scripts: other.init_scripts.clone().or_else(|| self.init_scripts.clone()),
            http_credentials: other.http_credentials.clone().or_else(|| self.http_credentials.clone()),
            routes: other.routes.clone().or_else(|| self.routes.clone()),
        }
    }

    /// Whether nothing is emulated.
    pub fn is_empty(&self) -> bool {
        *self == Emulation::default()
    }
}

/// `page.emulate` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EmulateParams {
    /// What to emulate from now on (each field given replaces the one in force).
    #[serde(flatten)]
    pub emulation: Emulation,
    /// Clear everything emulated first (then set what is given).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reset: bool,
}

/// `page.emulate` result: everything the session's pages emulate now.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EmulateResult {
    /// In force from now on.
    pub emulation: Emulation,
}

/// Which Web Storage area `page.storage` works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StorageKind {
    /// `localStorage`: the origin's, kept across tabs and reloads.
    Local,
    /// `sessionStorage`: the tab's, for its origin.
    Session,
}

/// What `page.storage` does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StorageAction {
    /// List the items (only `key`'s when given).
    #[default]
    Get,
    /// Set `key` to `value`.
    Set,
    /// Remove `key`.
    Delete,
    /// Remove every item.
    Clear,
}

/// `page.storage` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StorageParams {
    /// local or session.
    pub kind: StorageKind,
    /// get (default), set, delete or clear.
    #[serde(default)]
    pub action: StorageAction,
    /// The item (set and delete need it; get lists only it when given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// For set: its value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// One Web Storage item (Playwright's `storageState` shape).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StorageItem {
    /// Its key.
    pub name: String,
    /// Its value.
    pub value: String,
}

/// `page.storage` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StorageResult {
    /// The origin whose storage it is, e.g. `https://example.com`.
    pub origin: String,
    /// The items after the action, in the storage's order.
    pub items: Vec<StorageItem>,
}

/// What `session.storage_state` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StorageStateAction {
    /// Write the session's state to a file.
    Save,
    /// Read a file into the session.
    Load,
}

/// `session.storage_state` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StorageStateParams {
    /// save or load.
    pub action: StorageStateAction,
    /// A plain file name (`state.json`): save writes it under the artifacts dir (default
    /// `state-<session>.json`); load reads it from the uploads dir, else the artifacts dir.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `session.storage_state` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StorageStateResult {
    /// The file written or read.
    pub path: String,
    /// Cookies saved or set.
    pub cookies: u64,
    /// Origins whose local storage was saved or written.
    pub origins: u64,
}

/// `session.trace`'s action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceAction {
    /// Start recording (a trace already running goes on).
    Start,
    /// Stop recording and write the HTML report.
    Stop,
}

/// `session.trace` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TraceParams {
    /// start or stop.
    pub action: TraceAction,
    /// stop: a plain file name for the report under the artifacts dir (`run.html`); default
    /// `<session>-trace-<ms>.html`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `session.har` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HarParams {
    /// start or stop.
    pub action: TraceAction,
    /// start: `embed` the response bodies in the file (the default, each cut at 64 KiB), or `omit`
    /// them, as Playwright's `recordHar.content`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<HarContent>,
    /// start: only requests whose URL matches this glob or `/regex/` (Playwright's `urlFilter`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_filter: Option<String>,
    /// stop: a plain file name (`run.har`; `.har` added when missing); default `<session>-<ms>.har`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Whether a HAR holds the response bodies ([`HarParams::content`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HarContent {
    /// Each body in its entry (`response.content.text`, base64 for binary), cut at 64 KiB.
    Embed,
    /// No bodies (their sizes only).
    Omit,
}

/// `session.har` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HarResult {
    /// Whether the session is recording after this call.
    pub recording: bool,
    /// stop: the HAR file written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// stop: its entries (requests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<u64>,
    /// stop: its size, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

/// `session.trace` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TraceResult {
    /// Whether the session is being traced after this call.
    pub tracing: bool,
    /// Actions recorded so far in this trace.
    pub actions: u64,
    /// The JSON lines file (one line per action).
    pub jsonl: String,
    /// stop: the HTML report written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    /// Bytes the trace's files hold (JSON lines and screenshots).
    pub bytes: u64,
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

/// What `page.mouse` does (Playwright's `Mouse` methods, and `drag`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MouseAction {
    /// Move to (x, y); buttons down stay down (a drag).
    Move,
    /// Press `button` at (x, y), or where the mouse is.
    Down,
    /// Release `button` at (x, y), or where the mouse is.
    Up,
    /// Move to (x, y), press and release `button` `click_count` times.
    Click,
    /// Turn the wheel by (dx, dy) CSS px at (x, y), or where the mouse is.
    Wheel,
    /// Press at (x, y), move to (to_x, to_y), release.
    Drag,
}

/// `page.mouse` params; coordinates are CSS px in the viewport, each within ±100000.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MouseParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// move, down, up, click, wheel or drag.
    pub action: MouseAction,
    /// X, CSS px from the viewport's left (needed by move, click, drag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Y, CSS px from the viewport's top (needed by move, click, drag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// `left` (default), `right` or `middle`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// For click: 2 for a double click (1..=3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub click_count: Option<u32>,
    /// For wheel: horizontal delta, CSS px.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dx: Option<f64>,
    /// For wheel: vertical delta, CSS px.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dy: Option<f64>,
    /// For drag: where to release, X.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_x: Option<f64>,
    /// For drag: where to release, Y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_y: Option<f64>,
}

/// What `page.keyboard` does (Playwright's `Keyboard` methods).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeyboardAction {
    /// Press `key` and keep it down (a modifier stays held for the next keys and clicks).
    Down,
    /// Release `key`.
    Up,
    /// Press and release `key`, a key or a combo such as `Control+A` (as `page.press` without an
    /// element).
    Press,
    /// Type `text` as one `Input.insertText` (no key events; any characters).
    InsertText,
}

/// `page.keyboard` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KeyboardParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// down, up, press or insert_text.
    pub action: KeyboardAction,
    /// For down, up, press: a key name (`Enter`, `Shift`, `a`, `ArrowLeft`; press also takes a combo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// For insert_text: the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// `page.type` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TypeParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The element to type into.
    #[serde(flatten)]
    pub element: ElementParams,
    /// The text, typed key by key (characters without a key are inserted as an IME would).
    pub text: String,
    /// Empty the field first.
    #[serde(default)]
    pub clear: bool,
    /// Press Enter after.
    #[serde(default)]
    pub submit: bool,
}

/// `page.fill` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FillParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The element to fill: a text-like `<input>` (text, email, number, password, search, tel, url),
    /// one whose value is set whole (color, date, time, datetime-local, month, range, week), a
    /// `<textarea>` or a `contenteditable` element (its content selected and the value typed over it
    /// with `Input.insertText`, so that an editor sees the edit), as Playwright's `fill`. Anything else (a checkbox,
    /// a `<select>`, a heading), text that is not a number into a number input, or a value the input
    /// refuses (a malformed date) answers `bad_request` at once, the field left as it was; a read-only
    /// field is waited for (`not_enabled`).
    #[serde(flatten)]
    pub element: ElementParams,
    /// The value it gets (`""` empties it).
    pub value: String,
}

/// One field of `page.fill_form`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FormField {
    /// The field.
    #[serde(flatten)]
    pub element: ElementParams,
    /// Its value: text for a text field; `"true"` or `"false"` for a checkbox or radio; an option's
    /// value or label for a select.
    pub value: String,
}

/// Most fields one `page.fill_form` takes.
pub const MAX_FORM_FIELDS: usize = 100;

/// `page.fill_form` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FillFormParams {
    /// The fields, filled in this order; at most 100 ([`MAX_FORM_FIELDS`]).
    pub fields: Vec<FormField>,
}

/// `page.fill_form` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FillFormResult {
    /// Each field as the action describes it, with what was done (`textbox "Email": filled`).
    pub filled: Vec<String>,
    /// Where a navigation a field's input started went (a select whose `change` navigates): the
    /// fields after it were not filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigated_to: Option<String>,
}

/// `page.press` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PressParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The focused element when no element is named.
    #[serde(flatten)]
    pub element: ElementParams,
    /// `Enter`, `Tab`, `ArrowLeft`, `Control+A`, `Shift+Tab`, ... (US layout).
    pub key: String,
}

/// Result of the input actions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InputResult {
    /// The element acted on, e.g. `button "Submit"`.
    pub element: String,
    /// Where a navigation the action started went, once it committed (a link, a form submitted with
    /// Enter, a select whose `change` navigates): the action waits for that within its budget, as
    /// Playwright's actions do. Absent when the action started none (a URL the page's own timers
    /// changed while the action waited for its element is not the action's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigated_to: Option<String>,
    /// True when a navigation the action started had not committed when the budget ran out (the
    /// action itself was done: do not repeat it; wait for the page instead).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub navigation_pending: bool,
    /// The input opened a file chooser (a click on a file input, or on a button that clicks one):
    /// `page.upload` without an element sets its files. Absent when none opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_chooser: Option<FileChooser>,
}

/// A file chooser a page opened (`Page.fileChooserOpened`: the runtime intercepts it, as Playwright
/// does while a `filechooser` listener waits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FileChooser {
    /// It takes several files.
    pub multiple: bool,
}

impl InputResult {
    /// The result of an input on `element` that started no navigation.
    pub fn of(element: impl Into<String>) -> InputResult {
        InputResult {
            element: element.into(),
            navigated_to: None,
            navigation_pending: false,
            file_chooser: None,
        }
    }
}

/// `page.select` params: one or more of `values`, `labels`, `indexes`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SelectParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The `<select>`.
    #[serde(flatten)]
    pub element: ElementParams,
    /// Options to select by their value (or, failing that, their label).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// Options to select by their label (whitespace normalized).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    /// Options to select by their position, 0-based.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub indexes: Vec<u32>,
}

/// `page.select` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SelectResult {
    /// The `<select>` acted on, e.g. `combobox "Size"`.
    pub element: String,
    /// The values now selected.
    pub values: Vec<String>,
    /// As [`InputResult::navigated_to`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigated_to: Option<String>,
    /// As [`InputResult::navigation_pending`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub navigation_pending: bool,
}

/// Most files one `page.upload` sets.
pub const MAX_UPLOAD_FILES: usize = 100;

/// `page.upload` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UploadParams {
    /// The file input (`<input type=file>`); none: the file chooser the session's last input opened
    /// (its result said `file_chooser`).
    #[serde(flatten)]
    pub element: ElementParams,
    /// Plain names of files in the runtime's `[files] uploads_dir` (no directories, no symlinks);
    /// an empty list clears the input. At most 100 ([`MAX_UPLOAD_FILES`]).
    pub files: Vec<String>,
}

/// `page.upload` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UploadResult {
    /// The input, as the action describes it (`button "Go"` for a ref, `<input id="resume">` for a
    /// selector).
    pub element: String,
    /// The names set, in order.
    pub files: Vec<String>,
    /// Their sizes together, bytes.
    pub bytes: u64,
}

/// `page.check` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The checkbox or radio.
    #[serde(flatten)]
    pub element: ElementParams,
    /// The state wanted (default true). A checked radio button cannot be unchecked (only checking
    /// another of its group does that): `false` for one answers `bad_request`, without a click, as
    /// Playwright's `uncheck`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
}

/// `page.scroll` params: an element to bring into view, or a wheel delta in CSS px.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScrollParams {
    /// The element to scroll into view, when any (else the page is scrolled by `dx`, `dy`).
    #[serde(flatten)]
    pub element: ElementParams,
    /// Horizontal wheel delta, CSS px (positive: right).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dx: Option<f64>,
    /// Vertical wheel delta, CSS px (positive: down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dy: Option<f64>,
}

/// `page.drag` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DragParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The element to press on.
    pub from: ElementParams,
    /// The element to release over.
    pub to: ElementParams,
}

/// `page.scroll {dx, dy}` result: the page's scroll position after it, CSS px.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScrollResult {
    /// `scrollX` after the scroll, CSS px.
    pub scroll_x: f64,
    /// `scrollY` after the scroll, CSS px.
    pub scroll_y: f64,
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

/// The most dialogs one result lists ([`CommonResult::dialogs`]); those answered beyond them are
/// counted in [`CommonResult::dialogs_dropped`]. A page that opened 5000 alerts in a loop was reported
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

/// `runtime.health` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HealthResult {
    /// `Browser.getVersion`'s `product`, e.g. `"HeadlessChrome/156.0.8078.79"`.
    pub browser_version: String,
    /// The browser's process id.
    pub browser_pid: u32,
    /// How the runtime speaks CDP to the browser: `"pipe"` (`--remote-debugging-pipe`: no DevTools
    /// port, no `DevToolsActivePort`; docs/security.md), or `"websocket"` for a browser elsewhere
    /// (`[browser] cdp_url`; `browser_pid` is then 0).
    pub cdp_transport: String,
    /// The browser binary that runs (`/usr/lib/chromium/chromium-headless-shell`); empty for a browser
    /// elsewhere.
    #[serde(default)]
    pub browser_binary: String,
    /// Why it was chosen: `configured` (`[browser] path`, `--browser`), `default: headless shell
    /// installed` (Debian's `chromium-headless-shell`, the default for a headless browser, as
    /// Playwright's), `default: no headless shell installed`, `default: headed mode needs the full
    /// browser`; `remote` for a browser elsewhere.
    #[serde(default)]
    pub browser_choice: String,
    /// Chromium's own sandbox: `"chromium"` (on), or `"off: running as root"` /
    /// `"off: browser.no_sandbox"` (the container is then the only sandbox; `doctor` says why).
    #[serde(default)]
    pub browser_sandbox: String,
    /// Since the supervisor started, ms.
    pub uptime_ms: u64,
    /// Open sessions.
    pub sessions: usize,
    /// Browser restarts since the supervisor started.
    pub restarts: u64,
    /// How long ago the browser last passed its probe, in ms.
    pub last_probe_ms: u64,
    /// The largest `timeout_ms` this runtime honours (its clamp, `timeouts.max_ms`): a client waits
    /// for up to this long (plus its slack) on a request without `timeout_ms`.
    #[serde(default = "default_max_timeout_ms")]
    pub max_timeout_ms: u64,
}

fn default_max_timeout_ms() -> u64 {
    crate::budget::MAX_TIMEOUT_MS
}

/// Calls, failures and timeouts of one method (`runtime.stats`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ActionStats {
    /// Requests answered.
    pub count: u64,
    /// Requests answered with an error.
    pub failures: u64,
    /// Failures with code `timeout` (also counted in `failures`).
    pub timeouts: u64,
}

/// A histogram: `counts[i]` observations were at most `bounds_ms[i]` (cumulative, the last bound is
/// `+Inf`, written `null`); `sum_ms` and `count` over all of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Histogram {
    /// Upper bounds of the buckets, ms (`null`: `+Inf`).
    pub bounds_ms: Vec<Option<f64>>,
    /// Observations at most each bound (cumulative).
    pub counts: Vec<u64>,
    /// Sum of all observations, ms.
    pub sum_ms: f64,
    /// Number of observations.
    pub count: u64,
}

/// `runtime.stats` result: counters since the supervisor started.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StatsResult {
    /// Browser restarts attempted (each recovery cycle makes at most `runtime_restart_attempts`).
    pub restarts: u64,
    /// Restarts that failed (the runtime then answers `browser_unavailable`).
    pub restart_failures: u64,
    /// Health checks that found the browser unhealthy (each starts a recovery cycle).
    pub unhealthy_checks: u64,
    /// Recovery cycles that ended with a working browser.
    pub recoveries: u64,
    /// Health probe rounds run (HTTP `/json/version` + CDP `Browser.getVersion`).
    pub probes: u64,
    /// Actions that skipped the probes because one passed recently.
    pub probes_skipped: u64,
    /// Sessions given a new page after a browser or supervisor restart.
    pub sessions_rehydrated: u64,
    /// Worker processes killed past their deadline.
    pub worker_kills: u64,
    /// `Runtime.terminateExecution` calls that stopped a script.
    pub terminate_executions: u64,
    /// Tabs closed and reopened at their last URL (stuck page or renderer crash).
    pub page_resets: u64,
    /// Renderer crashes seen (`Inspector.targetCrashed`).
    pub renderer_crashes: u64,
    /// Per method (`page.goto`, ...): calls, failures, timeouts.
    pub actions: std::collections::BTreeMap<String, ActionStats>,
    /// Durations of `page.evaluate` calls, ms.
    pub evaluate_ms: Histogram,
    /// Flat CDP sessions the relay routes now: the workers' (a page's, its out-of-process iframes')
    /// and the supervisor's standby sessions (one on each session's active tab).
    #[serde(default)]
    pub cdp_sessions: u64,
    /// CDP sessions the sessions' workers hold on tabs: one on each tab a worker drove that is still
    /// open (its active tab, and those it left for another with `tabs.focus`, kept so their dialogs
    /// are answered and their emulation held). A tab that closes is let go at its worker's next
    /// action; a replaced worker's count is its own.
    #[serde(default)]
    pub tab_sessions: u64,
    /// Screencasts started for the live view (`Page.startScreencast`; one while a session is watched).
    #[serde(default)]
    pub screencasts_started: u64,
    /// Sessions closed for going `limits.session_idle_timeout_ms` without a request.
    #[serde(default)]
    pub sessions_expired: u64,
}

/// `runtime.metrics` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MetricsResult {
    /// `text/plain; version=0.0.4`.
    pub content_type: String,
    /// The Prometheus text exposition.
    pub text: String,
}

/// `session.start` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionStartResult {
    /// The session's id (the one asked for, or a generated one).
    pub session_id: String,
    /// CDP `targetId` of the session's page.
    pub target_id: String,
    /// The session's token: the request's `session_token`, or a new random one (128 bits, hex). With
    /// `[limits] session_tokens` every call on the session must carry it.
    #[serde(default)]
    pub session_token: String,
}

/// What `session.cookies` does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CookiesAction {
    /// List them (the default).
    #[default]
    Get,
    /// Add `cookies` (a cookie of the same name, domain and path is replaced).
    Set,
    /// Delete every cookie of the session.
    Clear,
    /// Delete the cookies named `name` (those sent to `urls` when given).
    Delete,
}

/// A cookie's `SameSite`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum SameSite {
    /// `Strict`.
    Strict,
    /// `Lax` (what Chromium applies to a cookie set without one, and what Playwright reports for it).
    #[default]
    Lax,
    /// `None` (needs `secure`).
    None,
}

/// A cookie, as Playwright's `BrowserContext.cookies()` and its `storageState` give one: its keys as
/// Playwright writes them (`httpOnly`, `sameSite`), in every answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Cookie {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// Its domain (`.example.com` for a domain cookie, `example.com` for a host-only one).
    pub domain: String,
    /// Its path.
    pub path: String,
    /// When it expires, seconds since the Unix epoch; -1 for a session cookie.
    pub expires: f64,
    /// `HttpOnly`: scripts cannot read it.
    pub http_only: bool,
    /// `Secure`: sent over https only.
    pub secure: bool,
    /// `SameSite`: `Lax` for a cookie set without one (`document.cookie = "a=1"`), as Playwright's
    /// `context.cookies()` reports it (`sameSite ?? 'Lax'` in `crBrowser.ts`) and Chromium applies it.
    #[serde(default)]
    pub same_site: SameSite,
}

/// A cookie to set: `url`, or `domain` and `path` (Playwright's `addCookies` rule and keys: `httpOnly`,
/// `sameSite`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CookieParam {
    /// Its name (not empty).
    pub name: String,
    /// Its value.
    pub value: String,
    /// The URL it is for (its host, path and scheme give domain, path and secure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Its domain (with `path`, instead of `url`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Its path (with `domain`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// When it expires, seconds since the Unix epoch; absent: a session cookie.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<f64>,
    /// `HttpOnly`.
    #[serde(default)]
    pub http_only: bool,
    /// `Secure`.
    #[serde(default)]
    pub secure: bool,
    /// `SameSite`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_site: Option<SameSite>,
}

/// Most cookies one `session.cookies {action: set}` takes.
pub const MAX_SET_COOKIES: usize = 200;

/// `session.cookies` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CookiesParams {
    /// `get` (the default), `set` or `clear`.
    #[serde(default)]
    pub action: CookiesAction,
    /// The cookies to set (`set` only), at most 200 ([`MAX_SET_COOKIES`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cookies: Vec<CookieParam>,
    /// Only the cookies a request to one of these URLs would send (domain, path and secure as the
    /// browser matches them); absent: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urls: Option<Vec<String>>,
    /// `get`: only the cookies of this name; `delete`: the cookies to delete (the answer lists those
    /// left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `session.cookies` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CookiesResult {
    /// The session's cookies after the action (those sent to `urls` when given).
    pub cookies: Vec<Cookie>,
}

/// `session.close` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionCloseResult {
    /// The session closed.
    pub session_id: String,
    /// Whether it was open (and is closed now).
    pub closed: bool,
}

/// One entry of `session.list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionInfo {
    /// The session's id.
    pub session_id: String,
    /// CDP `targetId` of its active tab.
    pub target_id: String,
    /// The last URL a `page.goto` reached, when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `session.list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionListResult {
    /// The open sessions, by id.
    pub sessions: Vec<SessionInfo>,
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

/// `tabs.list` result, in the order the tabs were opened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TabsListResult {
    /// The session's tabs, oldest first.
    pub tabs: Vec<TabInfo>,
}

/// `tabs.open` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TabsOpenParams {
    /// Where the new tab goes (`about:blank` when absent), loaded as `page.goto` loads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `tabs.focus` and `tabs.close` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TabTargetParams {
    /// A tab's `target_id`, whole or a unique prefix (`ambiguous_target` when several tabs match,
    /// `tab_not_found` when none does; `bad_request` when empty).
    pub target_id: String,
}

/// `tabs.close` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TabsCloseResult {
    /// The closed tab.
    pub closed: String,
    /// The session's active tab afterwards.
    pub active: String,
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

/// `page.verify` params: the element (a `ref`, a `selector`, or a `role` with its accessible `name`;
/// none for `text` on the whole page) and exactly one check. The page is checked as it is now, once
/// (as Playwright MCP's `browser_verify_*` tools do; `page.wait_for` waits for a state first).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VerifyParams {
    /// The element checked.
    #[serde(flatten)]
    pub element: ElementParams,
    /// An ARIA role, as the snapshot shows it (`button`). With `name`, Playwright's
    /// `getByRole(role, {name})`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The role's accessible name (a case-insensitive substring).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// true: a match is visible; false: none is (no match, or all hidden).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible: Option<bool>,
    /// Text visible on the page, or in the element (case-insensitive). Whitespace collapsed, as
    /// `getByText` matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// An input's value, exactly. Of an input, textarea or select (Playwright's `inputValue`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A checkbox's, radio's or switch's state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
    /// How many elements the selector matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// An attribute: present (no `value`), or with exactly `value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute: Option<AttributeCheck>,
    /// Texts each in the element's text. A list's items, matched as `text` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<String>>,
}

/// `page.verify {attribute}`: the attribute's name, and the value wanted (absent: only present).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttributeCheck {
    /// The attribute, e.g. `href`.
    pub name: String,
    /// Its value, exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// What `page.verify` checks: one per request (from [`VerifyParams`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum VerifyCheck {
    /// A match is visible (true) or none is (false).
    Visible(bool),
    /// The text, on the page or in the element.
    Text(String),
    /// The value, exactly.
    Value(String),
    /// The checked state.
    Checked(bool),
    /// The number of matches.
    Count(u64),
    /// The attribute `name` present, with `value` when given.
    Attribute {
        /// The attribute.
        name: String,
        /// Its value; `None`: only present.
        value: Option<String>,
    },
    /// Each text found in the element's text.
    Items(Vec<String>),
}

impl VerifyCheck {
    /// The param's name (`visible`, `text`, ...), as messages name the check.
    pub fn name(&self) -> &'static str {
        match self {
            VerifyCheck::Visible(_) => "visible",
            VerifyCheck::Text(_) => "text",
            VerifyCheck::Value(_) => "value",
            VerifyCheck::Checked(_) => "checked",
            VerifyCheck::Count(_) => "count",
            VerifyCheck::Attribute { .. } => "attribute",
            VerifyCheck::Items(_) => "items",
        }
    }
}

/// `page.verify` result: the check held. (One that does not hold answers `verify_failed`, naming
/// what was wanted and what the page has.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VerifyResult {
    /// The check that held: `visible`, `text`, `value`, `checked`, `count`, `attribute` or `items`.
    pub check: String,
    /// What the page has: the value, the state, the count (the wanted one, which held).
    pub actual: Value,
}

/// `page.query` params: the element, by `ref` or `selector`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QueryParams {
    /// The element read (a selector: its first match, and how many match).
    #[serde(flatten)]
    pub element: ElementParams,
}

/// `page.query` result: how many elements match and what the first one is now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QueryResult {
    /// Elements the selector matches now (a ref: 1).
    pub count: u64,
    /// Of them, how many are visible.
    pub visible_count: u64,
    /// The first match; absent when nothing matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ElementFacts>,
}

/// An element as it is now (`page.query`, and what `page.verify` compares).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ElementFacts {
    /// Its tag, lower case (`input`).
    pub tag: String,
    /// Its text as the page shows it (`innerText`; `textContent` where it is not rendered),
    /// whitespace collapsed, at most [`QUERY_TEXT_CHARS`] characters.
    pub text: String,
    /// Whether its text was cut at [`QUERY_TEXT_CHARS`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub text_truncated: bool,
    /// The value of an input, textarea or select (Playwright's `inputValue`); absent for others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A checkbox's, radio's or switch's state (`checked`, or `aria-checked` for its role); absent
    /// for others; `aria-checked="mixed"` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
    /// Visible as Playwright has it (a non-empty box, `visibility: visible`).
    pub visible: bool,
    /// Not disabled (`disabled`, a disabled fieldset, `aria-disabled="true"`).
    pub enabled: bool,
    /// Its attributes, in the element's order (values at most [`QUERY_TEXT_CHARS`] characters).
    pub attributes: Vec<Attribute>,
    /// Its border box in the page's viewport, CSS px (`getBoundingClientRect`, offset by an
    /// out-of-process iframe's place); absent when it has no box (`display: none`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounding_box: Option<BoundingBox>,
}

/// An element's box in the page's viewport, CSS px (Playwright's `boundingBox()`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BoundingBox {
    /// Left edge, CSS px from the viewport's left.
    pub x: f64,
    /// Top edge, CSS px from the viewport's top.
    pub y: f64,
    /// Width, CSS px.
    pub width: f64,
    /// Height, CSS px.
    pub height: f64,
}

/// One attribute of an element (`page.query`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Attribute {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
}

/// At most this many characters of an element's text (and of each attribute value) in
/// [`ElementFacts`].
pub const QUERY_TEXT_CHARS: usize = 2_000;

/// What `page.clipboard` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClipboardAction {
    /// The clipboard's text.
    Read,
    /// Puts `text` on the clipboard.
    Write,
}

/// `page.clipboard` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClipboardParams {
    /// read or write.
    pub action: ClipboardAction,
    /// For write: the text, at most [`MAX_CLIPBOARD_CHARS`] characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The most characters `page.clipboard` writes.
pub const MAX_CLIPBOARD_CHARS: usize = 1_000_000;

/// `page.clipboard` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClipboardResult {
    /// The clipboard's text: what was read, or what was written.
    pub text: String,
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
