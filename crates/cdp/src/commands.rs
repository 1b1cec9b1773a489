//! Typed params for the CDP commands the runtime sends whose answers it reads little or nothing of:
//! each is a struct named after its method (`PageEnable` is `Page.enable`) that implements [`Command`],
//! and goes out with [`Session::run`] / [`Session::send`] on a page session or [`CdpClient::run`] on the
//! browser connection. Field names are CDP's, in snake case (serialized in camelCase); an `Option` left
//! `None` is left out. Method reference: <https://chromedevtools.github.io/devtools-protocol/>.
//!
//! ```no_run
//! # async fn demo(session: &sb_cdp::Session) -> Result<(), sb_cdp::CdpError> {
//! use sb_cdp::commands::{InputInsertText, PageEnable};
//! use std::time::Duration;
//! session.run(&PageEnable {}, Duration::from_secs(1)).await?;
//! session.run(&InputInsertText { text: "é".into() }, Duration::from_secs(1)).await?;
//! # Ok(()) }
//! ```

use std::future::Future;
use std::time::Duration;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::calls::decode;
use crate::types::BrowserVersion;
use crate::{CdpClient, CdpError, Session};

/// A CDP command: its params (this value, serialized) and what its answer decodes to.
pub trait Command: Serialize {
    /// The method, e.g. `"Page.enable"`.
    const METHOD: &'static str;
    /// The answer (`IgnoredAny` for a command whose answer is `{}` or not read).
    type Output: DeserializeOwned;
}

/// `Network.getResponseBody`'s answer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseBody {
    /// The body: text, or base64 when `base64_encoded`.
    #[serde(default)]
    pub body: String,
    /// Whether `body` is base64 (a binary response).
    #[serde(default)]
    pub base64_encoded: bool,
}

/// `Network.getRequestPostData`'s answer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPostData {
    /// The request's body.
    #[serde(default)]
    pub post_data: String,
}

macro_rules! command {
    ($(#[$doc:meta])* $name:ident = $method:literal -> $out:ty { $($(#[$fmeta:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, Serialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            $($(#[$fmeta])* pub $field: $ty,)*
        }

        impl Command for $name {
            const METHOD: &'static str = $method;
            type Output = $out;
        }
    };
}

command!(
    /// `Browser.getVersion`.
    BrowserGetVersion = "Browser.getVersion" -> BrowserVersion {}
);
command!(
    /// `Browser.setDownloadBehavior`: `behavior` `deny`, `allow` or `allowAndName` (files named by guid).
    BrowserSetDownloadBehavior = "Browser.setDownloadBehavior" -> IgnoredAny {
        /// `deny`, `allow`, `allowAndName` or `default`.
        behavior: String,
        /// The browser context it applies to (the default context when absent).
        #[serde(skip_serializing_if = "Option::is_none")]
        browser_context_id: Option<String>,
        /// The directory downloads go to (an absolute path).
        #[serde(skip_serializing_if = "Option::is_none")]
        download_path: Option<String>,
        /// Whether `Browser.downloadWillBegin` and `Browser.downloadProgress` are sent.
        #[serde(skip_serializing_if = "Option::is_none")]
        events_enabled: Option<bool>,
    }
);
command!(
    /// `Browser.cancelDownload`.
    BrowserCancelDownload = "Browser.cancelDownload" -> IgnoredAny {
        /// The download (`Browser.downloadWillBegin`'s `guid`).
        guid: String,
        /// Its browser context.
        #[serde(skip_serializing_if = "Option::is_none")]
        browser_context_id: Option<String>,
    }
);
command!(
    /// `DOM.scrollIntoViewIfNeeded` of a node named by `object_id` or `backend_node_id`.
    DomScrollIntoViewIfNeeded = "DOM.scrollIntoViewIfNeeded" -> IgnoredAny {
        /// The node, by `Runtime.RemoteObjectId`.
        #[serde(skip_serializing_if = "Option::is_none")]
        object_id: Option<String>,
        /// The node, by `DOM.BackendNodeId`.
        #[serde(skip_serializing_if = "Option::is_none")]
        backend_node_id: Option<i64>,
    }
);
command!(
    /// `DOM.getContentQuads` of a node named by `object_id` or `backend_node_id`.
    DomGetContentQuads = "DOM.getContentQuads" -> crate::calls::ContentQuads {
        /// The node, by `Runtime.RemoteObjectId`.
        #[serde(skip_serializing_if = "Option::is_none")]
        object_id: Option<String>,
        /// The node, by `DOM.BackendNodeId`.
        #[serde(skip_serializing_if = "Option::is_none")]
        backend_node_id: Option<i64>,
    }
);
command!(
    /// `Emulation.setDeviceMetricsOverride`: the viewport (CSS px), its scale, the screen's size.
    EmulationSetDeviceMetricsOverride = "Emulation.setDeviceMetricsOverride" -> IgnoredAny {
        /// Viewport width, CSS px.
        width: u32,
        /// Viewport height, CSS px.
        height: u32,
        /// Device px per CSS px (`devicePixelRatio`).
        device_scale_factor: f64,
        /// Whether to emulate a mobile device (meta viewport, overlay scroll bars).
        mobile: bool,
        /// `screen.width`, CSS px.
        screen_width: u32,
        /// `screen.height`, CSS px.
        screen_height: u32,
    }
);
command!(
    /// `Emulation.setFocusEmulationEnabled`: the page behaves as focused whatever window has the focus.
    EmulationSetFocusEmulationEnabled = "Emulation.setFocusEmulationEnabled" -> IgnoredAny {
        /// Whether the emulation is on.
        enabled: bool,
    }
);
command!(
    /// `Input.dispatchDragEvent` (`dragEnter`, `dragOver`, `drop`, `dragCancel`) with the data of an
    /// intercepted drag.
    InputDispatchDragEvent = "Input.dispatchDragEvent" -> IgnoredAny {
        /// `type`: `dragEnter`, `dragOver`, `drop` or `dragCancel`.
        #[serde(rename = "type")]
        kind: String,
        /// X in the viewport, CSS px.
        x: f64,
        /// Y in the viewport, CSS px.
        y: f64,
        /// The `Input.DragData` of `Input.dragIntercepted`.
        data: Value,
    }
);
command!(
    /// `Input.dispatchKeyEvent` (`rawKeyDown`, `keyDown`, `keyUp`); `text` and `unmodified_text` for a
    /// key that types.
    InputDispatchKeyEvent = "Input.dispatchKeyEvent" -> IgnoredAny {
        /// `type`: `rawKeyDown`, `keyDown`, `keyUp` or `char`.
        #[serde(rename = "type")]
        kind: String,
        /// `KeyboardEvent.key`, e.g. `"a"`, `"Enter"`.
        key: String,
        /// `KeyboardEvent.code`, e.g. `"KeyA"`.
        code: String,
        /// The Windows virtual key code (`keyCode`).
        windows_virtual_key_code: u32,
        /// The platform's key code (the same as the Windows one here).
        native_virtual_key_code: u32,
        /// Held modifiers: Alt 1, Control 2, Meta 4, Shift 8.
        modifiers: u32,
        /// `KeyboardEvent.location`: 0 standard, 1 left, 2 right, 3 numpad.
        location: u32,
        /// Whether the key is on the numeric keypad.
        is_keypad: bool,
        /// The text the key types (a `keypress` and an `input` follow).
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// The text it types without Shift.
        #[serde(skip_serializing_if = "Option::is_none")]
        unmodified_text: Option<String>,
    }
);
command!(
    /// `Input.dispatchMouseEvent` (`mouseMoved`, `mousePressed`, `mouseReleased`, `mouseWheel`) at
    /// (`x`, `y`), CSS px in the viewport; `buttons` is the held buttons' bit mask.
    InputDispatchMouseEvent = "Input.dispatchMouseEvent" -> IgnoredAny {
        /// `type`: `mouseMoved`, `mousePressed`, `mouseReleased` or `mouseWheel`.
        #[serde(rename = "type")]
        kind: String,
        /// X in the viewport, CSS px.
        x: f64,
        /// Y in the viewport, CSS px.
        y: f64,
        /// `none`, `left`, `middle`, `right`, `back`, `forward`.
        #[serde(skip_serializing_if = "Option::is_none")]
        button: Option<String>,
        /// The buttons held, a bit mask (left 1, right 2, middle 4).
        #[serde(skip_serializing_if = "Option::is_none")]
        buttons: Option<u32>,
        /// The press's number in a run of clicks (2 for a double click).
        #[serde(skip_serializing_if = "Option::is_none")]
        click_count: Option<u32>,
        /// Held modifiers: Alt 1, Control 2, Meta 4, Shift 8.
        #[serde(skip_serializing_if = "Option::is_none")]
        modifiers: Option<u32>,
        /// Horizontal wheel delta, CSS px.
        #[serde(skip_serializing_if = "Option::is_none")]
        delta_x: Option<f64>,
        /// Vertical wheel delta, CSS px.
        #[serde(skip_serializing_if = "Option::is_none")]
        delta_y: Option<f64>,
    }
);
command!(
    /// `Input.insertText`: text as an IME commits it (no key events).
    InputInsertText = "Input.insertText" -> IgnoredAny {
        /// The text to insert.
        text: String,
    }
);
command!(
    /// `Input.setInterceptDrags`: a drag the page starts is reported (`Input.dragIntercepted`) instead of
    /// run.
    InputSetInterceptDrags = "Input.setInterceptDrags" -> IgnoredAny {
        /// Whether drags are intercepted.
        enabled: bool,
    }
);
command!(
    /// `Inspector.enable` (for `Inspector.targetCrashed`).
    InspectorEnable = "Inspector.enable" -> IgnoredAny {}
);
command!(
    /// `Network.enable` (for `Network.responseReceived`).
    NetworkEnable = "Network.enable" -> IgnoredAny {}
);
command!(
    /// `Network.getResponseBody`: a response's body while the renderer still holds it.
    NetworkGetResponseBody = "Network.getResponseBody" -> ResponseBody {
        /// The request (`Network.requestWillBeSent`'s `requestId`).
        request_id: String,
    }
);
command!(
    /// `Network.getRequestPostData`: a request's body that `Network.requestWillBeSent` left out.
    NetworkGetRequestPostData = "Network.getRequestPostData" -> RequestPostData {
        /// The request (`Network.requestWillBeSent`'s `requestId`).
        request_id: String,
    }
);
command!(
    /// `Page.enable`.
    PageEnable = "Page.enable" -> IgnoredAny {}
);
command!(
    /// `Page.crash`: the renderer dies (the ladder's last step before a reset).
    PageCrash = "Page.crash" -> IgnoredAny {}
);
command!(
    /// `Page.stopLoading`.
    PageStopLoading = "Page.stopLoading" -> IgnoredAny {}
);
command!(
    /// `Page.getLayoutMetrics` (also [`Session::layout_metrics`]).
    PageGetLayoutMetrics = "Page.getLayoutMetrics" -> crate::types::LayoutMetrics {}
);
command!(
    /// `Page.handleJavaScriptDialog`: accept or dismiss the open dialog; `prompt_text` answers a prompt.
    PageHandleJavaScriptDialog = "Page.handleJavaScriptDialog" -> IgnoredAny {
        /// Accept (OK) or dismiss (Cancel).
        accept: bool,
        /// The text a prompt answers with.
        #[serde(skip_serializing_if = "Option::is_none")]
        prompt_text: Option<String>,
    }
);
command!(
    /// `Page.captureScreenshot` of a region (`clip`, scaled by its `scale`) as `format` (`jpeg`, `png`)
    /// at `quality` (0..=100, jpeg only).
    PageCaptureScreenshot = "Page.captureScreenshot" -> crate::types::CaptureScreenshotResult {
        /// `jpeg`, `png` or `webp`.
        format: String,
        /// 0..=100 (jpeg, webp).
        #[serde(skip_serializing_if = "Option::is_none")]
        quality: Option<u8>,
        /// `{x, y, width, height, scale}`, CSS px; the viewport when absent.
        #[serde(skip_serializing_if = "Option::is_none")]
        clip: Option<Value>,
    }
);
command!(
    /// `Page.startScreencast`: the page's frames as `Page.screencastFrame` events (each acknowledged with
    /// `Page.screencastFrameAck` before the next comes), at most `max_width` x `max_height` device px.
    PageStartScreencast = "Page.startScreencast" -> IgnoredAny {
        /// `jpeg` or `png`.
        format: String,
        /// 0..=100 (jpeg).
        quality: u8,
        /// The largest frame width, device px.
        max_width: u32,
        /// The largest frame height, device px.
        max_height: u32,
        /// Send every n-th frame (1: every one).
        every_nth_frame: u32,
    }
);
command!(
    /// `Page.stopScreencast`.
    PageStopScreencast = "Page.stopScreencast" -> IgnoredAny {}
);
command!(
    /// `Page.screencastFrameAck`: the frame `session_id` (the frame's number, not a CDP session) was
    /// shown; the next may come.
    PageScreencastFrameAck = "Page.screencastFrameAck" -> IgnoredAny {
        /// `Page.screencastFrame`'s `sessionId`.
        session_id: i64,
    }
);
command!(
    /// `Page.setLifecycleEventsEnabled`.
    PageSetLifecycleEventsEnabled = "Page.setLifecycleEventsEnabled" -> IgnoredAny {
        /// Whether `Page.lifecycleEvent` is sent.
        enabled: bool,
    }
);
command!(
    /// `Runtime.enable` (replays `Runtime.executionContextCreated` for the live contexts).
    RuntimeEnable = "Runtime.enable" -> IgnoredAny {}
);
command!(
    /// `Runtime.disable`.
    RuntimeDisable = "Runtime.disable" -> IgnoredAny {}
);
command!(
    /// `Runtime.releaseObject`.
    RuntimeReleaseObject = "Runtime.releaseObject" -> IgnoredAny {
        /// The `Runtime.RemoteObjectId` to release.
        object_id: String,
    }
);
command!(
    /// `Runtime.releaseObjectGroup`.
    RuntimeReleaseObjectGroup = "Runtime.releaseObjectGroup" -> IgnoredAny {
        /// The group whose objects are released.
        object_group: String,
    }
);
command!(
    /// `Runtime.terminateExecution`: stops the script running on the page's main thread.
    RuntimeTerminateExecution = "Runtime.terminateExecution" -> IgnoredAny {}
);
command!(
    /// `Runtime.runIfWaitingForDebugger`: lets a target that waits for it (auto-attached with
    /// `waitForDebuggerOnStart`) run. Its session's commands sent before it are done before the page
    /// runs or loads anything; their answers come after it.
    RuntimeRunIfWaitingForDebugger = "Runtime.runIfWaitingForDebugger" -> IgnoredAny {}
);
command!(
    /// `Target.closeTarget`.
    TargetCloseTarget = "Target.closeTarget" -> IgnoredAny {
        /// CDP `targetId`.
        target_id: String,
    }
);
command!(
    /// `Target.detachFromTarget`: ends the flat session `session_id`.
    TargetDetachFromTarget = "Target.detachFromTarget" -> IgnoredAny {
        /// CDP `sessionId`.
        session_id: String,
    }
);
command!(
    /// `Target.setAutoAttach`: attach to the targets this one creates (out-of-process iframes, on a
    /// page's session), or to every new target (on the browser connection), as flat sessions with
    /// `flatten`.
    TargetSetAutoAttach = "Target.setAutoAttach" -> IgnoredAny {
        /// Whether to attach to related targets.
        auto_attach: bool,
        /// Whether a new target waits for `Runtime.runIfWaitingForDebugger`.
        wait_for_debugger_on_start: bool,
        /// Flat sessions (messages carry `sessionId`), the only mode the runtime uses.
        flatten: bool,
        /// Which targets, as CDP's `TargetFilter` (`[{"type": "page"}, {"exclude": true}]`: pages
        /// only); absent: Chromium's default.
        #[serde(skip_serializing_if = "Option::is_none")]
        filter: Option<Value>,
    }
);
command!(
    /// `Target.setDiscoverTargets`: `Target.targetCreated` / `targetDestroyed` / `targetInfoChanged`.
    TargetSetDiscoverTargets = "Target.setDiscoverTargets" -> IgnoredAny {
        /// Whether target events are sent.
        discover: bool,
    }
);

impl TargetSetAutoAttach {
    /// Auto-attach with flat sessions, not waiting for a debugger.
    pub fn flat() -> TargetSetAutoAttach {
        TargetSetAutoAttach {
            auto_attach: true,
            wait_for_debugger_on_start: false,
            flatten: true,
            filter: None,
        }
    }

    /// On a page's session: its new child targets (out-of-process iframes, workers) attached flat as
    /// they are made, each held until `Runtime.runIfWaitingForDebugger` on its session, as
    /// Playwright's `crPage.ts` attaches them: what the page's frames need (init scripts, request
    /// interception) is in before their first document runs.
    pub fn children_held() -> TargetSetAutoAttach {
        TargetSetAutoAttach { wait_for_debugger_on_start: true, ..TargetSetAutoAttach::flat() }
    }

    /// On the browser connection: every new page (a tab, a popup) attached as it is made, and held
    /// until `Runtime.runIfWaitingForDebugger` on its session; no other kind of target.
    pub fn new_pages_held() -> TargetSetAutoAttach {
        TargetSetAutoAttach {
            auto_attach: true,
            wait_for_debugger_on_start: true,
            flatten: true,
            filter: Some(serde_json::json!([{"type": "page", "exclude": false}, {"exclude": true}])),
        }
    }
}

/// `cmd`'s params as JSON (for a call stored and sent later, such as a cleanup).
pub fn params(cmd: &impl Serialize) -> Value {
    serde_json::to_value(cmd).unwrap_or(Value::Null)
}

impl Session {
    /// Sends `cmd` on this session and waits for its answer, within `timeout`.
    ///
    /// # Errors
    /// The call's [`CdpError`]; [`CdpError::Decode`] when the answer does not fit.
    pub async fn run<C: Command>(&self, cmd: &C, timeout: Duration) -> Result<C::Output, CdpError> {
        self.call(C::METHOD, params(cmd), timeout).await
    }

    /// Sends `cmd` now (in order with this session's other calls); the answer's future.
    pub fn send<C: Command>(
        &self,
        cmd: &C,
        timeout: Duration,
    ) -> impl Future<Output = Result<C::Output, CdpError>> + Send + 'static
    where
        C::Output: Send + 'static,
    {
        let sent = self.send_raw(C::METHOD, params(cmd), timeout);
        async move { decode(C::METHOD, sent.await?) }
    }
}

impl CdpClient {
    /// Sends `cmd` on the browser connection (no session) and waits for its answer, within `timeout`.
    ///
    /// # Errors
    /// The call's [`CdpError`]; [`CdpError::Decode`] when the answer does not fit.
    pub async fn run<C: Command>(&self, cmd: &C, timeout: Duration) -> Result<C::Output, CdpError> {
        self.call(C::METHOD, None, params(cmd), timeout).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn params_are_cdps_names_and_none_is_left_out() {
        let click = InputDispatchMouseEvent {
            kind: "mousePressed".into(),
            x: 1.0,
            y: 2.0,
            button: Some("left".into()),
            click_count: Some(1),
            ..Default::default()
        };
        assert_eq!(
            params(&click),
            json!({"type": "mousePressed", "x": 1.0, "y": 2.0, "button": "left", "clickCount": 1})
        );
        assert_eq!(
            params(&TargetSetAutoAttach::flat()),
            json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true})
        );
        assert_eq!(InputDispatchMouseEvent::METHOD, "Input.dispatchMouseEvent");
        assert_eq!(params(&PageEnable {}), json!({}));
    }
}
command!(
    /// `Emulation.setEmulatedMedia`: the CSS media type (`screen`, `print`; empty: the page's own) and
    /// media features the page sees (`prefers-color-scheme`, `prefers-reduced-motion`,
    /// `forced-colors`, `prefers-contrast`); an empty value ends that feature's emulation.
    EmulationSetEmulatedMedia = "Emulation.setEmulatedMedia" -> IgnoredAny {
        /// The media type (empty: not emulated).
        media: String,
        /// The features.
        features: Vec<MediaFeature>,
    }
);
command!(
    /// `Emulation.setUserAgentOverride`: `navigator.userAgent`, the `User-Agent` header and, with
    /// `accept_language`, `navigator.language` and `Accept-Language`. An empty agent ends it.
    EmulationSetUserAgentOverride = "Emulation.setUserAgentOverride" -> IgnoredAny {
        /// The user agent (empty: the browser's own).
        user_agent: String,
        /// The languages, e.g. `de-DE`.
        #[serde(skip_serializing_if = "Option::is_none")]
        accept_language: Option<String>,
    }
);
command!(
    /// `Emulation.setGeolocationOverride`: the position `navigator.geolocation` reports (all absent:
    /// the override ends).
    EmulationSetGeolocationOverride = "Emulation.setGeolocationOverride" -> IgnoredAny {
        /// Degrees.
        #[serde(skip_serializing_if = "Option::is_none")]
        latitude: Option<f64>,
        /// Degrees.
        #[serde(skip_serializing_if = "Option::is_none")]
        longitude: Option<f64>,
        /// Metres.
        #[serde(skip_serializing_if = "Option::is_none")]
        accuracy: Option<f64>,
    }
);
command!(
    /// `Emulation.setLocaleOverride`: the ICU locale (`Intl`, dates); absent ends the override (one at a
    /// time: a new one needs the old one ended first).
    EmulationSetLocaleOverride = "Emulation.setLocaleOverride" -> IgnoredAny {
        /// A BCP 47 locale.
        #[serde(skip_serializing_if = "Option::is_none")]
        locale: Option<String>,
    }
);
command!(
    /// `Emulation.setTimezoneOverride`: the IANA time zone (empty ends the override).
    EmulationSetTimezoneOverride = "Emulation.setTimezoneOverride" -> IgnoredAny {
        /// E.g. `Europe/Berlin`.
        timezone_id: String,
    }
);
command!(
    /// `Network.emulateNetworkConditions`: `offline` fails every request; throughputs of -1 and no
    /// latency leave the network as it is.
    NetworkEmulateNetworkConditions = "Network.emulateNetworkConditions" -> IgnoredAny {
        /// No network.
        offline: bool,
        /// Added latency, ms.
        latency: f64,
        /// Bytes/s; -1: no limit.
        download_throughput: f64,
        /// Bytes/s; -1: no limit.
        upload_throughput: f64,
    }
);
command!(
    /// `Browser.grantPermissions` in a browser context (`geolocation`, ...).
    BrowserGrantPermissions = "Browser.grantPermissions" -> IgnoredAny {
        /// The permissions.
        permissions: Vec<String>,
        /// The context (the default one when absent).
        #[serde(skip_serializing_if = "Option::is_none")]
        browser_context_id: Option<String>,
    }
);
command!(
    /// `Browser.resetPermissions` of a browser context: every permission back to the browser's default
    /// (asked for, so denied in a headless browser).
    BrowserResetPermissions = "Browser.resetPermissions" -> IgnoredAny {
        /// The context (the default one when absent).
        #[serde(skip_serializing_if = "Option::is_none")]
        browser_context_id: Option<String>,
    }
);
command!(
    /// `Network.setExtraHTTPHeaders`: headers added to every request of the page from now on (an empty
    /// object: none). Needs `Network.enable` on the session.
    NetworkSetExtraHttpHeaders = "Network.setExtraHTTPHeaders" -> IgnoredAny {
        /// Header name -> value.
        headers: std::collections::BTreeMap<String, String>,
    }
);
command!(
    /// `Page.addScriptToEvaluateOnNewDocument`: `source` runs in every new document of the page (its
    /// frames in its process included) before the document's own scripts, for as long as the session
    /// stays attached. Needs `Page.enable` on the session.
    PageAddScriptToEvaluateOnNewDocument = "Page.addScriptToEvaluateOnNewDocument" -> AddedScript {
        /// The script.
        source: String,
    }
);
command!(
    /// `Page.removeScriptToEvaluateOnNewDocument`: a script added on this session no longer runs in
    /// new documents.
    PageRemoveScriptToEvaluateOnNewDocument = "Page.removeScriptToEvaluateOnNewDocument" -> IgnoredAny {
        /// What `Page.addScriptToEvaluateOnNewDocument` answered.
        identifier: String,
    }
);

/// `Page.addScriptToEvaluateOnNewDocument`'s answer.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AddedScript {
    /// The script's identifier on this session (for `Page.removeScriptToEvaluateOnNewDocument`).
    #[serde(default)]
    pub identifier: String,
}
command!(
    /// `Target.getTargetInfo`: a target's type, URL, opener and browser context.
    TargetGetTargetInfo = "Target.getTargetInfo" -> TargetInfoResult {
        /// The target.
        target_id: String,
    }
);
command!(
    /// `Page.setInterceptFileChooserDialog`: a file chooser the page opens is reported
    /// (`Page.fileChooserOpened`) instead of shown.
    PageSetInterceptFileChooserDialog = "Page.setInterceptFileChooserDialog" -> IgnoredAny {
        /// Whether to intercept.
        enabled: bool,
    }
);
command!(
    /// `DOM.setFileInputFiles`: the files of a file input, named by its remote object or its
    /// `backendNodeId` (absolute paths the browser reads).
    DomSetFileInputFiles = "DOM.setFileInputFiles" -> IgnoredAny {
        /// Absolute paths.
        files: Vec<String>,
        /// The input as a remote object.
        #[serde(skip_serializing_if = "Option::is_none")]
        object_id: Option<String>,
        /// The input by its `backendNodeId`.
        #[serde(skip_serializing_if = "Option::is_none")]
        backend_node_id: Option<i64>,
    }
);
command!(
    /// `Fetch.enable`: requests matching `patterns` pause (`Fetch.requestPaused`) until answered.
    FetchEnable = "Fetch.enable" -> IgnoredAny {
        /// `[{urlPattern: "*"}]` for every request.
        patterns: Vec<Value>,
        /// Also pause a request the server answers with an authentication challenge
        /// (`Fetch.authRequired`), until `Fetch.continueWithAuth`.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        handle_auth_requests: bool,
    }
);
command!(
    /// `Fetch.disable`: requests no longer pause.
    FetchDisable = "Fetch.disable" -> IgnoredAny {}
);
command!(
    /// `Fetch.continueWithAuth`: the answer to an authentication challenge (`Fetch.authRequired`).
    FetchContinueWithAuth = "Fetch.continueWithAuth" -> IgnoredAny {
        /// The paused request.
        request_id: String,
        /// `{response: "Default" | "CancelAuth" | "ProvideCredentials", username?, password?}`.
        auth_challenge_response: Value,
    }
);
command!(
    /// `Fetch.fulfillRequest`: a paused request answered by the caller (nothing reaches the network).
    FetchFulfillRequest = "Fetch.fulfillRequest" -> IgnoredAny {
        /// The paused request.
        request_id: String,
        /// The HTTP status.
        response_code: u16,
        /// The headers, `[{name, value}]`.
        response_headers: Vec<Value>,
        /// The body, base64.
        body: String,
    }
);
command!(
    /// `Fetch.continueRequest`: a paused request goes on, unchanged or with what is given.
    FetchContinueRequest = "Fetch.continueRequest" -> IgnoredAny {
        /// The paused request.
        request_id: String,
        /// Its method instead.
        #[serde(skip_serializing_if = "Option::is_none")]
        method: Option<String>,
        /// Its body instead, base64.
        #[serde(skip_serializing_if = "Option::is_none")]
        post_data: Option<String>,
        /// Its headers instead (all of them), `[{name, value}]`.
        #[serde(skip_serializing_if = "Option::is_none")]
        headers: Option<Vec<Value>>,
    }
);
command!(
    /// `Fetch.failRequest`: a paused request fails (`BlockedByClient`: the page sees
    /// `net::ERR_BLOCKED_BY_CLIENT`).
    FetchFailRequest = "Fetch.failRequest" -> IgnoredAny {
        /// The paused request.
        request_id: String,
        /// `Network.ErrorReason`, e.g. `BlockedByClient`.
        error_reason: String,
    }
);
command!(
    /// `Page.navigate`.
    PageNavigate = "Page.navigate" -> IgnoredAny {
        /// The URL.
        url: String,
    }
);

/// `Emulation.MediaFeature`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MediaFeature {
    /// E.g. `prefers-color-scheme`.
    pub name: String,
    /// E.g. `dark`; empty ends the feature's emulation.
    pub value: String,
}

/// `Target.getTargetInfo` result.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfoResult {
    /// The target.
    pub target_info: crate::types::TargetInfo,
}
