//! Hand-written serde types for the CDP methods and events the runtime uses.
//!
//! Field names follow the protocol (camelCase on the wire). No type denies unknown fields, and enum-like
//! protocol values (`type`, `subtype`, ...) are `String`s, so a newer Chromium never breaks decoding.
//! Method reference: <https://chromedevtools.github.io/devtools-protocol/>.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `GET /json/version`.
#[derive(Debug, Clone, Deserialize)]
pub struct VersionInfo {
    /// E.g. `"Chrome/156.0.8078.79"` (`HeadlessChrome/...` in headless mode).
    #[serde(rename = "Browser", default)]
    pub browser: String,
    /// `Protocol-Version`: the CDP version, e.g. `"1.3"`.
    #[serde(rename = "Protocol-Version", default)]
    pub protocol_version: String,
    /// `webSocketDebuggerUrl`: the browser's CDP endpoint (`ws://host:port/devtools/browser/<id>`).
    #[serde(rename = "webSocketDebuggerUrl")]
    pub web_socket_debugger_url: String,
}

/// One entry of `GET /json/list`.
#[derive(Debug, Clone, Deserialize)]
pub struct ListedTarget {
    /// The target's id (CDP `targetId`).
    pub id: String,
    /// `type`: `page`, `iframe`, `service_worker`, `browser`, ...
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The page's title.
    #[serde(default)]
    pub title: String,
    /// The target's URL.
    #[serde(default)]
    pub url: String,
    /// Its own CDP endpoint, when the browser lists one.
    #[serde(rename = "webSocketDebuggerUrl", default)]
    pub web_socket_debugger_url: Option<String>,
}

/// `Browser.getVersion` result.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserVersion {
    /// The CDP version, e.g. `"1.3"`.
    #[serde(default)]
    pub protocol_version: String,
    /// E.g. `"HeadlessChrome/156.0.8078.79"`.
    #[serde(default)]
    pub product: String,
    /// The Chromium revision (a commit hash).
    #[serde(default)]
    pub revision: String,
    /// The browser's `User-Agent` header.
    #[serde(default)]
    pub user_agent: String,
    /// The V8 version.
    #[serde(default)]
    pub js_version: String,
}

/// `Target.createTarget` result.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTargetResult {
    /// The new target's `targetId`.
    pub target_id: String,
}

/// `Target.attachToTarget` result (flat mode).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachToTargetResult {
    /// The flat session's `sessionId`, which later messages name.
    pub session_id: String,
}

/// `Target.TargetInfo`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    /// CDP `targetId`.
    pub target_id: String,
    /// `type`: `page`, `iframe`, `worker`, `service_worker`, `browser`, ...
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The page's title (its URL while it has none).
    #[serde(default)]
    pub title: String,
    /// The target's URL.
    #[serde(default)]
    pub url: String,
    /// Whether some client is attached to it.
    #[serde(default)]
    pub attached: bool,
    /// The target that opened this one (`window.open`, `target=_blank`), when any.
    #[serde(default)]
    pub opener_id: Option<String>,
    /// The browser context the target belongs to.
    #[serde(default)]
    pub browser_context_id: Option<String>,
}

/// `Target.getTargets` result.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTargetsResult {
    /// Every target the browser has.
    pub target_infos: Vec<TargetInfo>,
}

/// `Page.Frame` (the fields the runtime uses).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// The frame's id (a page's main frame has its target's id).
    pub id: String,
    /// Absent for a tree's root.
    #[serde(default)]
    pub parent_id: Option<String>,
    /// The frame's current document.
    #[serde(default)]
    pub loader_id: String,
    /// The `<iframe>`'s `name` attribute.
    #[serde(default)]
    pub name: String,
    /// The frame's document URL, without its fragment.
    #[serde(default)]
    pub url: String,
    /// The URL's fragment, with its `#` (`urlFragment`; absent when the URL has none).
    #[serde(default)]
    pub url_fragment: Option<String>,
}

impl Frame {
    /// The frame's URL with its fragment, as a page's `location.href` reads it (Playwright's
    /// `crPage.ts` `_onFrameNavigated`: `url + urlFragment`).
    pub fn full_url(&self) -> String {
        format!("{}{}", self.url, self.url_fragment.as_deref().unwrap_or_default())
    }
}

/// `Page.FrameTree`: a frame and its child frames (of the same renderer).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameTree {
    /// The frame.
    pub frame: Frame,
    /// Its child frames of the same renderer (an out-of-process iframe is a target of its own).
    #[serde(default)]
    pub child_frames: Vec<FrameTree>,
}

impl FrameTree {
    /// Frame `id` in this tree.
    pub fn find(&self, id: &str) -> Option<&Frame> {
        if self.frame.id == id {
            return Some(&self.frame);
        }
        self.child_frames.iter().find_map(|c| c.find(id))
    }

    /// Every frame of the tree, parents before children.
    pub fn frames(&self) -> Vec<&Frame> {
        let mut out = vec![&self.frame];
        for child in &self.child_frames {
            out.extend(child.frames());
        }
        out
    }
}

/// `Page.navigate` result.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigateResult {
    /// The frame that navigated.
    pub frame_id: String,
    /// Absent for same-document navigations.
    #[serde(default)]
    pub loader_id: Option<String>,
    /// Chromium's net error, e.g. `"net::ERR_CONNECTION_REFUSED"`.
    #[serde(default)]
    pub error_text: Option<String>,
}

/// A rectangle in CSS pixels (`DOM.Rect`).
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rect {
    /// Left edge, CSS px.
    #[serde(default)]
    pub x: f64,
    /// Top edge, CSS px.
    #[serde(default)]
    pub y: f64,
    /// Width, CSS px.
    #[serde(default)]
    pub width: f64,
    /// Height, CSS px.
    #[serde(default)]
    pub height: f64,
}

/// `Page.getLayoutMetrics` result (the CSS-pixel fields).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutMetrics {
    /// Size of the whole scrollable content, CSS px.
    pub css_content_size: Rect,
    /// The visible viewport, CSS px (`clientWidth`, `clientHeight`, ...).
    #[serde(default)]
    pub css_visual_viewport: Value,
    /// The layout viewport, CSS px: its size and where it is scrolled to in the page.
    #[serde(default)]
    pub css_layout_viewport: LayoutViewport,
}

/// `Page.LayoutViewport`, CSS px.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutViewport {
    /// Scroll offset of the viewport's left edge in the page.
    #[serde(default)]
    pub page_x: f64,
    /// Scroll offset of the viewport's top edge in the page.
    #[serde(default)]
    pub page_y: f64,
    /// Width of the viewport without scroll bars, CSS px.
    #[serde(default)]
    pub client_width: f64,
    /// Height of the viewport without scroll bars, CSS px.
    #[serde(default)]
    pub client_height: f64,
}

/// `Page.screencastFrame`: one frame of a screencast (`Page.startScreencast`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreencastFrame {
    /// Base64 image (the screencast's format).
    pub data: String,
    /// Where the frame is and how large.
    pub metadata: ScreencastFrameMetadata,
    /// The frame's number, for `Page.screencastFrameAck`.
    pub session_id: i64,
}

/// `Page.ScreencastFrameMetadata`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreencastFrameMetadata {
    /// Top offset of the page in the frame, DIP (CSS px).
    #[serde(default)]
    pub offset_top: f64,
    /// The page's pinch-zoom factor.
    #[serde(default = "one")]
    pub page_scale_factor: f64,
    /// The device's width, DIP (CSS px).
    #[serde(default)]
    pub device_width: f64,
    /// The device's height, DIP (CSS px).
    #[serde(default)]
    pub device_height: f64,
    /// When the frame was captured, s since the epoch.
    #[serde(default)]
    pub timestamp: Option<f64>,
}

fn one() -> f64 {
    1.0
}

/// `Page.captureScreenshot` result.
#[derive(Debug, Clone, Deserialize)]
pub struct CaptureScreenshotResult {
    /// Base64 image.
    pub data: String,
}

/// `Runtime.RemoteObject`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    /// `typeof`: `object`, `function`, `undefined`, `string`, `number`, `boolean`, `symbol`, `bigint`.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// For objects: `node`, `array`, `null`, `error`, `regexp`, `date`, `map`, `promise`, ...
    #[serde(default)]
    pub subtype: Option<String>,
    /// The constructor's name of an object, e.g. `"HTMLDivElement"`.
    #[serde(default)]
    pub class_name: Option<String>,
    /// Present with `returnByValue` for JSON-representable values (may be JSON `null`).
    #[serde(default, deserialize_with = "present")]
    pub value: Option<Value>,
    /// `NaN`, `-0`, `Infinity`, `-Infinity`, or a bigint such as `12n`.
    #[serde(default)]
    pub unserializable_value: Option<String>,
    /// V8's short text of the value, e.g. `"Error: boom\n    at ..."` or `"Array(3)"`.
    #[serde(default)]
    pub description: Option<String>,
    /// A handle to the object in its context (until its object group is released or the document goes).
    #[serde(default)]
    pub object_id: Option<String>,
    /// Its first properties, for an object V8 previews (console arguments: `Runtime.consoleAPICalled`
    /// sends them).
    #[serde(default)]
    pub preview: Option<ObjectPreview>,
}

/// `Runtime.ObjectPreview`: an object's first properties, as text.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectPreview {
    /// The properties previewed (an array's by index: `"0"`, `"1"`, ...).
    #[serde(default)]
    pub properties: Vec<PropertyPreview>,
    /// Whether there are more than these.
    #[serde(default)]
    pub overflow: bool,
}

/// `Runtime.PropertyPreview`: one property's name and its value as V8 writes it (`bar`, `Object`,
/// `Array(3)`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PropertyPreview {
    /// The property's name.
    pub name: String,
    /// Its value as text; absent for an accessor.
    #[serde(default)]
    pub value: Option<String>,
}

/// Keeps a present JSON `null` as `Some(Value::Null)`, so `value: null` differs from no value.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// `Runtime.ExceptionDetails`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionDetails {
    /// Often just `"Uncaught"`; the message is in `exception.description`.
    #[serde(default)]
    pub text: String,
    /// The thrown value.
    #[serde(default)]
    pub exception: Option<RemoteObject>,
    /// The line it was thrown at, 0-based.
    #[serde(default)]
    pub line_number: i64,
    /// The column it was thrown at, 0-based.
    #[serde(default)]
    pub column_number: i64,
    /// The script it was thrown in, when known.
    #[serde(default)]
    pub url: Option<String>,
}

impl ExceptionDetails {
    /// The JS error's message in one line, e.g. `"Error: boom"` (the stack is dropped).
    pub fn message(&self) -> String {
        let from_exception = self.exception.as_ref().and_then(|e| {
            e.description.clone().or_else(|| e.value.as_ref().map(|v| format!("Uncaught {v}")))
        });
        let text = from_exception.unwrap_or_else(|| self.text.clone());
        text.lines().next().unwrap_or("").trim().to_string()
    }
}

/// `Runtime.evaluate` / `Runtime.callFunctionOn` result.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateResult {
    /// The value (or a handle to it).
    pub result: RemoteObject,
    /// Present when the script threw (or its promise rejected).
    #[serde(default)]
    pub exception_details: Option<ExceptionDetails>,
}

/// `Network.responseReceived` params (the fields used).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseReceived {
    /// The request's `requestId` (a navigation's document request has its `loaderId`).
    pub request_id: String,
    /// The document (`loaderId`) the request belongs to.
    #[serde(default)]
    pub loader_id: String,
    /// `type`: the resource type (`Document`, `Script`, `Image`, ...).
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The response.
    pub response: NetworkResponse,
}

/// `Network.requestWillBeSent` params (the fields used).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestWillBeSent {
    /// The request's id (`Network.loadingFinished` and `loadingFailed` name it). A navigation's
    /// request has its `loaderId`, and each hop of a redirect is sent again under the same id.
    pub request_id: String,
    /// The request (its URL).
    #[serde(default)]
    pub request: SentRequest,
    /// `type`: the resource type (`Document`, `XHR`, `Fetch`, `EventSource`, ...).
    #[serde(rename = "type", default)]
    pub kind: String,
    /// When, seconds on the browser's monotonic clock (`Network.MonotonicTime`).
    #[serde(default)]
    pub timestamp: f64,
    /// When, seconds since the Unix epoch.
    #[serde(default)]
    pub wall_time: f64,
    /// For a redirect's next hop: the previous hop's response (its 3xx).
    #[serde(default)]
    pub redirect_response: Option<NetworkResponse>,
}

/// `Network.Request` (the fields used).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SentRequest {
    /// The requested URL (without its fragment).
    #[serde(default)]
    pub url: String,
    /// The HTTP method.
    #[serde(default)]
    pub method: String,
    /// The request's headers as the page asked for them, name -> value (`Network.Headers`; the
    /// browser's own, such as `Cookie`, are added on the way and are not here).
    #[serde(default)]
    pub headers: serde_json::Map<String, Value>,
    /// The body (a form's, a `fetch`'s), when Chromium includes it: a large one is left out and
    /// `Network.getRequestPostData` gives it.
    #[serde(default)]
    pub post_data: Option<String>,
    /// Whether the request has a body.
    #[serde(default)]
    pub has_post_data: bool,
}

/// `Network.loadingFinished` params (the fields used).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadingFinished {
    /// The request.
    pub request_id: String,
    /// When, seconds on the browser's monotonic clock.
    #[serde(default)]
    pub timestamp: f64,
    /// Bytes received over the network for it.
    #[serde(default)]
    pub encoded_data_length: f64,
}

/// `Network.loadingFailed` params (the fields used).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadingFailed {
    /// The request.
    pub request_id: String,
    /// When, seconds on the browser's monotonic clock.
    #[serde(default)]
    pub timestamp: f64,
    /// Chromium's error text, e.g. `net::ERR_CONNECTION_REFUSED`.
    #[serde(default)]
    pub error_text: String,
    /// Whether it was cancelled (by the page, or a navigation away).
    #[serde(default)]
    pub canceled: bool,
}

/// `Runtime.consoleAPICalled` params (the fields used).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleApiCalled {
    /// `log`, `debug`, `info`, `error`, `warning`, `dir`, `table`, `trace`, `assert`, ...
    #[serde(rename = "type")]
    pub kind: String,
    /// The call's arguments.
    #[serde(default)]
    pub args: Vec<RemoteObject>,
    /// When, ms since the Unix epoch.
    #[serde(default)]
    pub timestamp: f64,
    /// Where it was called from.
    #[serde(default)]
    pub stack_trace: Option<StackTrace>,
}

/// `Runtime.exceptionThrown` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionThrown {
    /// When, ms since the Unix epoch.
    #[serde(default)]
    pub timestamp: f64,
    /// The exception.
    pub exception_details: ExceptionDetails,
}

/// `Runtime.StackTrace` (the fields used).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTrace {
    /// Innermost first.
    #[serde(default)]
    pub call_frames: Vec<CallFrame>,
}

/// `Runtime.CallFrame` (the fields used).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFrame {
    /// The script's URL.
    #[serde(default)]
    pub url: String,
    /// 0-based.
    #[serde(default)]
    pub line_number: i64,
}

/// `Network.Response` (the fields used).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkResponse {
    /// The response's URL (after redirects).
    #[serde(default)]
    pub url: String,
    /// The HTTP status (Chromium reports 200 for `data:` and the like).
    #[serde(default)]
    pub status: f64,
    /// The status line's text (`OK`, `Not Found`; empty over HTTP/2).
    #[serde(default)]
    pub status_text: String,
    /// The response's headers, name -> value (`Network.Headers`; repeated headers joined by `\n`).
    #[serde(default)]
    pub headers: serde_json::Map<String, Value>,
    /// The MIME type Chromium took it as (`text/html`, `application/json`).
    #[serde(default)]
    pub mime_type: String,
    /// The protocol it came over (`http/1.1`, `h2`, `data`).
    #[serde(default)]
    pub protocol: String,
    /// The server's IP address.
    #[serde(default, rename = "remoteIPAddress")]
    pub remote_ip_address: String,
    /// When its phases happened, as the HAR's timings read them.
    #[serde(default)]
    pub timing: Option<ResourceTiming>,
}

/// `Network.ResourceTiming` (the fields used): `request_time` in seconds on the browser's monotonic
/// clock, each phase's start and end in ms after it (-1 when the phase did not happen).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTiming {
    /// When the request started, s.
    pub request_time: f64,
    /// The name lookup, ms.
    #[serde(default = "not_happened")]
    pub dns_start: f64,
    /// See `dns_start`.
    #[serde(default = "not_happened")]
    pub dns_end: f64,
    /// The connection (TLS included), ms.
    #[serde(default = "not_happened")]
    pub connect_start: f64,
    /// See `connect_start`.
    #[serde(default = "not_happened")]
    pub connect_end: f64,
    /// The TLS handshake, ms.
    #[serde(default = "not_happened")]
    pub ssl_start: f64,
    /// See `ssl_start`.
    #[serde(default = "not_happened")]
    pub ssl_end: f64,
    /// Writing the request, ms.
    #[serde(default = "not_happened")]
    pub send_start: f64,
    /// See `send_start`.
    #[serde(default = "not_happened")]
    pub send_end: f64,
    /// The response's headers received, ms.
    #[serde(default = "not_happened")]
    pub receive_headers_end: f64,
}

/// A phase that did not happen (`Network.ResourceTiming`'s -1).
fn not_happened() -> f64 {
    -1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn remote_object_keeps_null_apart_from_absent() {
        let null: RemoteObject =
            serde_json::from_value(json!({"type": "object", "subtype": "null", "value": null})).unwrap();
        assert_eq!(null.value, Some(Value::Null));
        let undef: RemoteObject = serde_json::from_value(json!({"type": "undefined"})).unwrap();
        assert_eq!(undef.value, None);
    }

    #[test]
    fn unknown_fields_and_values_are_tolerated() {
        let t: TargetInfo = serde_json::from_value(
            json!({"targetId": "T", "type": "brand_new_kind", "title": "", "url": "", "attached": false, "newField": 1}),
        )
        .unwrap();
        assert_eq!(t.kind, "brand_new_kind");
    }

    #[test]
    fn exception_message_is_the_first_line_of_the_description() {
        let d: ExceptionDetails = serde_json::from_value(json!({
            "text": "Uncaught", "lineNumber": 0, "columnNumber": 6,
            "exception": {"type": "object", "subtype": "error", "description": "Error: boom\n    at <anonymous>:1:7"}
        }))
        .unwrap();
        assert_eq!(d.message(), "Error: boom");
        let thrown: ExceptionDetails = serde_json::from_value(json!({
            "text": "Uncaught", "exception": {"type": "string", "value": "plain"}
        }))
        .unwrap();
        assert_eq!(thrown.message(), "Uncaught \"plain\"");
    }
}

/// `Page.lifecycleEvent` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LifecycleEvent {
    /// The frame the event is for.
    pub frame_id: String,
    /// Its document (`loaderId`).
    #[serde(default)]
    pub loader_id: String,
    /// `init`, `commit`, `DOMContentLoaded`, `load`, `networkIdle`, ...
    pub name: String,
}

/// `Page.frameNavigated` params.
#[derive(Debug, Clone, Deserialize)]
pub struct FrameNavigated {
    /// The frame with its new document.
    pub frame: Frame,
    /// `"Navigation"` (a document loaded) or `"BackForwardCacheRestore"` (a kept document shown again,
    /// which fires no lifecycle events); absent from older browsers.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

/// `Page.navigatedWithinDocument` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigatedWithinDocument {
    /// The frame that navigated.
    pub frame_id: String,
    /// Its new URL (a fragment or a `history.pushState` change).
    pub url: String,
}

/// `Page.frameRequestedNavigation` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameRequestedNavigation {
    /// The frame about to navigate.
    pub frame_id: String,
    /// `currentTab`, `newTab`, `newWindow` or `download`.
    #[serde(default)]
    pub disposition: Option<String>,
}

/// `Page.frameStoppedLoading` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameStoppedLoading {
    /// The frame that stopped loading.
    pub frame_id: String,
}

/// `Page.javascriptDialogOpening` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JavascriptDialogOpening {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The dialog's text.
    #[serde(default)]
    pub message: String,
    /// A `prompt`'s default value.
    #[serde(default)]
    pub default_prompt: Option<String>,
}

/// `Target.attachedToTarget` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachedToTarget {
    /// The new flat session's `sessionId`.
    pub session_id: String,
    /// The target attached to.
    pub target_info: TargetInfo,
    /// Whether the target waits for `Runtime.runIfWaitingForDebugger` on this session (a new target
    /// auto-attached with `waitForDebuggerOnStart`).
    #[serde(default)]
    pub waiting_for_debugger: bool,
}

/// `Target.detachedFromTarget` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetachedFromTarget {
    /// The `sessionId` that ended.
    pub session_id: String,
}

/// `Target.targetDestroyed` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetDestroyed {
    /// The destroyed target's `targetId`.
    pub target_id: String,
}

/// `Target.targetCreated` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetCreated {
    /// The new target.
    pub target_info: TargetInfo,
}

/// `Runtime.executionContextCreated` params.
#[derive(Debug, Clone, Deserialize)]
pub struct ExecutionContextCreated {
    /// The new context.
    pub context: ExecutionContext,
}

/// `Runtime.ExecutionContextDescription` (the fields the runtime uses).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionContext {
    /// The context's id (`executionContextId`), unique within its renderer.
    pub id: i64,
    /// Its frame and whether it is the frame's main world.
    #[serde(default)]
    pub aux_data: ContextAuxData,
}

/// An execution context's `auxData`: its frame, and whether it is the frame's main world.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextAuxData {
    /// The frame the context belongs to.
    #[serde(default)]
    pub frame_id: String,
    /// `true` for the frame's main world, `false` for an isolated world.
    #[serde(default)]
    pub is_default: bool,
}

/// `Browser.downloadWillBegin` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DownloadWillBegin {
    /// The frame that started it (a page's main frame has its target's id).
    pub frame_id: String,
    /// The download's id in later `Browser.downloadProgress` events.
    pub guid: String,
    /// The URL downloaded.
    #[serde(default)]
    pub url: String,
    /// The file name the page or the server suggested.
    #[serde(default)]
    pub suggested_filename: String,
}

/// `Browser.downloadProgress` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DownloadProgress {
    /// The download's id (from `Browser.downloadWillBegin`).
    pub guid: String,
    /// Bytes received so far.
    #[serde(default)]
    pub received_bytes: f64,
    /// `inProgress`, `completed` or `canceled`.
    pub state: String,
}
