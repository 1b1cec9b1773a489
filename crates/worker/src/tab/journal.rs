//! What a tab said and fetched: its console messages and uncaught exceptions
//! (`Runtime.consoleAPICalled`, `Runtime.exceptionThrown`), its requests (`Network.requestWillBeSent`,
//! `responseReceived`, `loadingFinished`, `loadingFailed`), each in a bounded buffer, and its frames'
//! main-world execution contexts (`Runtime.executionContextCreated`, `...Destroyed`, `...Cleared`),
//! which `worlds` reads.
//!
//! `Runtime` stays enabled on the page's session for this, as Playwright keeps it (`crPage.ts`).
//! `Runtime.enable` replays the messages V8 kept for the page, so a worker that replaced a killed one
//! still lists what was logged before. Console levels follow Playwright MCP's
//! `consoleLevelForMessageType` (`tools/backend/tab.ts`): `error` and `assert` are errors, `warning`
//! warnings, the group, profile, `clear` and `trace` calls and `debug` are debug, the rest info.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use sb_cdp::types::{
    ConsoleApiCalled, ExceptionThrown, ExecutionContextCreated, LoadingFailed, LoadingFinished, RemoteObject,
    RequestWillBeSent, ResponseReceived,
};
use sb_cdp::Session;
use sb_protocol::api::{
    ConsoleLevel, ConsoleMessage, ConsoleResult, NetworkRequest, NetworkResult, RequestDetails,
    CONSOLE_BUFFER, NETWORK_BODY_BYTES, NETWORK_BUFFER,
};
use sb_protocol::Budget;
use serde_json::Value;

/// The longest text kept of one console argument, chars.
const ARG_CHARS: usize = 2_000;

/// The longest `data:` URL kept, chars.
const DATA_URL_CHARS: usize = 100;

/// A tab's journal, filled by the task [`track_journal`] starts.
#[derive(Default)]
pub(crate) struct Journal {
    inner: Mutex<Inner>,
    /// Notified on each response and each request's end (`page.wait_for {response}`).
    pub(crate) changed: tokio::sync::Notify,
}

#[derive(Default)]
struct Inner {
    console: VecDeque<ConsoleMessage>,
    console_last: u64,
    console_dropped: u64,
    /// Errors (console errors and uncaught exceptions) so far, for each run's count.
    errors: u64,
    requests: VecDeque<Request>,
    request_last: u64,
    requests_dropped: u64,
    /// CDP `requestId` -> the entry of its latest hop.
    by_cdp: HashMap<String, u64>,
    /// The first request id of the previous run and of the current one.
    previous_run: u64,
    current_run: u64,
    /// Frame id -> its main world's execution context id.
    contexts: HashMap<String, i64>,
    /// The file chooser the page opened last and nothing took yet: its input's `backendNodeId`, and
    /// whether it takes several files.
    chooser: Option<(i64, bool)>,
    /// File choosers opened so far.
    choosers: u64,
}

struct Request {
    entry: NetworkRequest,
    /// `Network.MonotonicTime` of the request, s.
    started: f64,
    /// A response came (`Network.responseReceived`).
    answered: bool,
    /// CDP's `requestId` (shared by a redirect's hops).
    cdp_id: String,
    /// The request's headers as the page sent them.
    headers: serde_json::Map<String, Value>,
    /// Its body when `Network.requestWillBeSent` carried it (cut at [`NETWORK_BODY_BYTES`]), and
    /// whether it has one at all.
    post_data: Option<String>,
    has_post_data: bool,
    /// `post_data` was cut.
    post_data_cut: bool,
    /// The response's status text, headers and MIME type, once it came.
    response: Option<(String, serde_json::Map<String, Value>, String)>,
    /// The next hop of a redirect took its place (this hop's body is the redirect's: none).
    redirected: bool,
    /// `Network.loadingFinished` came: the browser holds the whole body.
    finished: bool,
    /// What a HAR entry says beyond the above ([`Journal::details`]).
    har: HarFacts,
}

/// A HAR recording in progress (`session.har`, read and written by `har`): where each tab's journal
/// stood when it began.
pub(crate) struct HarRecording {
    /// Each tab's newest request and requests let go when the recording began, by target id.
    pub(crate) marks: HashMap<String, (u64, u64)>,
    /// Keep the response bodies.
    pub(crate) embed: bool,
    /// Only requests whose URL matches.
    pub(crate) filter: Option<regex_lite::Regex>,
}

/// What a request's HAR entry needs beyond `page.network {id}`'s details.
#[derive(Debug, Clone, Default)]
pub(crate) struct HarFacts {
    /// When it was sent, seconds since the Unix epoch.
    pub(crate) wall_time: f64,
    /// When it was sent and when it ended (finished or failed), `Network.MonotonicTime` s.
    pub(crate) started: f64,
    pub(crate) ended: Option<f64>,
    /// The response's protocol (`http/1.1`, `h2`) and the server's address.
    pub(crate) protocol: String,
    pub(crate) remote_ip: String,
    /// The response's `Network.ResourceTiming`.
    pub(crate) timing: Option<sb_cdp::types::ResourceTiming>,
}

/// What `page.network {id}` reads of one request: its entry and details as the journal kept them,
/// and what is still to be asked of the browser ([`Journal::details`], [`Found::fetch`]).
pub(crate) struct Found {
    /// The request's entry.
    pub(crate) entry: NetworkRequest,
    /// Its details so far (no body yet).
    pub(crate) details: RequestDetails,
    cdp_id: String,
    /// The body left out of `Network.requestWillBeSent`, to ask for.
    post_data_left_out: bool,
    /// Why there is no response body to ask for, or `None` when there is one.
    no_body: Option<&'static str>,
    /// What its HAR entry says beyond the details.
    pub(crate) har: HarFacts,
}

impl Inner {
    fn request(&mut self, id: u64) -> Option<&mut Request> {
        let first = self.requests.front()?.entry.id;
        self.requests.get_mut(id.checked_sub(first)? as usize)
    }
}

/// Follows `session`'s events into a new journal. Subscribe before `Runtime.enable` is sent, so its
/// replay is kept.
pub(crate) fn track_journal(session: &Session) -> Arc<Journal> {
    let journal = Arc::new(Journal::default());
    let mut events = session.events();
    let weak = Arc::downgrade(&journal);
    tokio::spawn(async move {
        while let Some(ev) = events.recv().await {
            let Some(journal) = weak.upgrade() else { return };
            journal.note(&ev.method, &ev);
        }
    });
    journal
}

impl Journal {
    fn note(&self, method: &str, ev: &sb_cdp::Event) {
        let mut inner = self.inner.lock().unwrap();
        let inner = &mut *inner;
        match method {
            "Runtime.consoleAPICalled" => {
                let Some(call) = ev.parse::<ConsoleApiCalled>() else { return };
                let source =
                    call.stack_trace.as_ref().and_then(|s| s.call_frames.first()).and_then(|f| {
                        (!f.url.is_empty()).then(|| format!("{}:{}", f.url, f.line_number + 1))
                    });
                let text = call.args.iter().map(arg_text).collect::<Vec<_>>().join(" ");
                let level = level_of(&call.kind);
                push_console(
                    inner,
                    level,
                    Message { kind: call.kind, text, source, stack: None },
                    call.timestamp,
                );
            }
            "Runtime.exceptionThrown" => {
                let Some(thrown) = ev.parse::<ExceptionThrown>() else { return };
                let d = &thrown.exception_details;
                let source =
                    d.url.as_ref().filter(|u| !u.is_empty()).map(|u| format!("{u}:{}", d.line_number + 1));
                let text = d.message();
                // The stack, when the thrown value is an error whose description has one.
                let stack = d
                    .exception
                    .as_ref()
                    .and_then(|e| e.description.clone())
                    .filter(|d| d.lines().nth(1).is_some_and(|l| l.trim_start().starts_with("at ")));
                let message = Message { kind: "pageerror".into(), text, source, stack };
                push_console(inner, ConsoleLevel::Error, message, thrown.timestamp);
            }
            "Runtime.executionContextCreated" => {
                let Some(ExecutionContextCreated { context }) = ev.parse() else { return };
                if context.aux_data.is_default {
                    inner.contexts.insert(context.aux_data.frame_id, context.id);
                    self.changed.notify_waiters();
                }
            }
            "Runtime.executionContextDestroyed" => {
                let id = ev.params.get("executionContextId").and_then(Value::as_i64);
                inner.contexts.retain(|_, c| Some(*c) != id);
            }
            "Runtime.executionContextsCleared" => inner.contexts.clear(),
            "Page.fileChooserOpened" => {
                let node = ev.params.get("backendNodeId").and_then(Value::as_i64);
                let multiple = ev.params.get("mode").and_then(Value::as_str) == Some("selectMultiple");
                inner.chooser = node.map(|n| (n, multiple));
                inner.choosers += 1;
            }
            "Network.requestWillBeSent" => {
                let Some(sent) = ev.parse::<RequestWillBeSent>() else { return };
                // A redirect's next hop: the previous one ends with its 3xx.
                if let (Some(redirect), Some(&hop)) =
                    (&sent.redirect_response, inner.by_cdp.get(&sent.request_id))
                {
                    if let Some(r) = inner.request(hop) {
                        r.entry.status = Some(redirect.status as u16);
                        r.entry.ms = Some(ms_between(r.started, sent.timestamp));
                        r.answered = true;
                        r.redirected = true;
                        r.response = Some((
                            redirect.status_text.clone(),
                            redirect.headers.clone(),
                            redirect.mime_type.clone(),
                        ));
                        r.har.ended = Some(sent.timestamp);
                        r.har.protocol = redirect.protocol.clone();
                        r.har.remote_ip = redirect.remote_ip_address.clone();
                        r.har.timing = redirect.timing;
                    }
                }
                inner.request_last += 1;
                let id = inner.request_last;
                let request = sent.request;
                let post_data_cut = request.post_data.as_ref().is_some_and(|d| d.len() > NETWORK_BODY_BYTES);
                let post_data = request.post_data.map(|d| cut_bytes(d, NETWORK_BODY_BYTES));
                let has_post_data = request.has_post_data || post_data.is_some();
                let entry = NetworkRequest {
                    id,
                    method: request.method,
                    url: shown_url(&request.url),
                    resource_type: resource_type(&sent.kind).to_string(),
                    status: None,
                    bytes: None,
                    ms: None,
                    failure: None,
                    blocked: None,
                };
                if inner.requests.len() >= NETWORK_BUFFER {
                    inner.requests.pop_front();
                    inner.requests_dropped += 1;
                }
                inner.requests.push_back(Request {
                    entry,
                    started: sent.timestamp,
                    answered: false,
                    cdp_id: sent.request_id.clone(),
                    headers: request.headers,
                    post_data,
                    has_post_data,
                    post_data_cut,
                    response: None,
                    redirected: false,
                    finished: false,
                    har: HarFacts {
                        wall_time: sent.wall_time,
                        started: sent.timestamp,
                        ..HarFacts::default()
                    },
                });
                inner.by_cdp.insert(sent.request_id, id);
                if inner.by_cdp.len() > 2 * NETWORK_BUFFER {
                    let first = inner.requests.front().map_or(0, |r| r.entry.id);
                    inner.by_cdp.retain(|_, id| *id >= first);
                }
            }
            "Network.responseReceived" => {
                let Some(got) = ev.parse::<ResponseReceived>() else { return };
                let Some(&id) = inner.by_cdp.get(&got.request_id) else { return };
                if let Some(r) = inner.request(id) {
                    r.entry.status = Some(got.response.status as u16);
                    r.answered = true;
                    let response = got.response;
                    r.har.protocol = response.protocol;
                    r.har.remote_ip = response.remote_ip_address;
                    r.har.timing = response.timing;
                    r.response = Some((response.status_text, response.headers, response.mime_type));
                }
                self.changed.notify_waiters();
            }
            "Network.loadingFinished" => {
                let Some(done) = ev.parse::<LoadingFinished>() else { return };
                let Some(id) = inner.by_cdp.remove(&done.request_id) else { return };
                if let Some(r) = inner.request(id) {
                    r.entry.bytes = Some(done.encoded_data_length.max(0.0) as u64);
                    r.entry.ms = Some(ms_between(r.started, done.timestamp));
                    r.finished = true;
                    r.har.ended = Some(done.timestamp);
                }
                self.changed.notify_waiters();
            }
            "Network.loadingFailed" => {
                let Some(failed) = ev.parse::<LoadingFailed>() else { return };
                let Some(id) = inner.by_cdp.remove(&failed.request_id) else { return };
                if let Some(r) = inner.request(id) {
                    let text = if failed.canceled && failed.error_text.is_empty() {
                        "canceled".to_string()
                    } else {
                        failed.error_text
                    };
                    r.entry.failure = Some(text);
                    r.entry.ms = Some(ms_between(r.started, failed.timestamp));
                    r.har.ended = Some(failed.timestamp);
                }
                self.changed.notify_waiters();
            }
            _ => {}
        }
    }

    /// A run starts: what `page.wait_for {response}` may match from now on begins with the previous
    /// run's first request.
    pub(crate) fn begin_run(&self) {
        let mut inner = self.inner.lock().unwrap();
        inner.previous_run = inner.current_run;
        inner.current_run = inner.request_last + 1;
    }

    /// File choosers opened so far, and whether the last one takes several files.
    pub(crate) fn choosers(&self) -> (u64, bool) {
        let inner = self.inner.lock().unwrap();
        (inner.choosers, inner.chooser.is_some_and(|(_, m)| m))
    }

    /// Takes the file chooser the page opened last (its input's `backendNodeId`), if one is open.
    pub(crate) fn take_chooser(&self) -> Option<i64> {
        self.inner.lock().unwrap().chooser.take().map(|(n, _)| n)
    }

    /// Errors so far (console errors and uncaught exceptions).
    pub(crate) fn errors(&self) -> u64 {
        self.inner.lock().unwrap().errors
    }

    /// The main world's execution context of frame `frame_id`, when it has one.
    pub(crate) fn context(&self, frame_id: &str) -> Option<i64> {
        self.inner.lock().unwrap().contexts.get(frame_id).copied()
    }

    /// [`Journal::context`], waiting within `budget` for one to be created: a frame the frame tree
    /// lists may not have its document's context yet (its `Runtime.executionContextCreated` is on its
    /// way, late on a loaded machine).
    pub(crate) async fn context_by(&self, frame_id: &str, budget: Budget) -> Option<i64> {
        let created = budget.wait_notified(&self.changed, || self.context(frame_id)).await;
        created.or_else(|| self.context(frame_id))
    }

    /// `page.console`: the messages after `since` at `level` or more severe, the newest `limit`.
    pub(crate) fn console(&self, since: u64, level: ConsoleLevel, limit: u32) -> ConsoleResult {
        let inner = self.inner.lock().unwrap();
        let listed = inner.console.iter().filter(|m| m.id > since && m.level <= level);
        ConsoleResult {
            messages: newest(listed, limit),
            last_id: inner.console_last,
            dropped: inner.console_dropped,
        }
    }

    /// `page.network`: the requests after `since` whose URL matches `filter`, static resources that
    /// loaded only with `include_static`, the newest `limit`.
    pub(crate) fn network(
        &self,
        since: u64,
        filter: Option<&regex_lite::Regex>,
        include_static: bool,
        limit: u32,
    ) -> NetworkResult {
        let inner = self.inner.lock().unwrap();
        let listed = inner
            .requests
            .iter()
            .map(|r| &r.entry)
            .filter(|e| e.id > since && filter.is_none_or(|f| f.is_match(&e.url)))
            .filter(|e| include_static || e.failure.is_some() || !is_static(&e.resource_type));
        NetworkResult {
            requests: newest(listed, limit),
            last_id: inner.request_last,
            dropped: inner.requests_dropped,
            details: None,
        }
    }

    /// Request `id`'s entry and the details the journal kept of it (`page.network {id}`); `None` when
    /// the buffer does not hold it (never listed, or let go).
    pub(crate) fn details(&self, id: u64) -> Option<Found> {
        let mut inner = self.inner.lock().unwrap();
        let r = inner.request(id)?;
        let status = r.entry.status.unwrap_or(0);
        // Playwright MCP's `canHaveResponseBody`: no body for 1xx, 204, 304; and none for a hop a
        // redirect replaced.
        let no_body = if r.entry.failure.is_some() {
            Some("the request failed")
        } else if r.redirected {
            Some("a redirect has no body of its own; its next hop is the next request")
        } else if !r.answered {
            Some("no response yet")
        } else if matches!(status, 100..=199 | 204 | 304) {
            Some("a response of this status has no body")
        } else if !r.finished {
            Some("the response is still loading")
        } else {
            None
        };
        let response = r.response.as_ref();
        let details = RequestDetails {
            request_headers: headers(&r.headers),
            post_data: r.post_data.clone(),
            status_text: response.map(|(text, _, _)| text.clone()),
            response_headers: response.map(|(_, h, _)| headers(h)),
            mime_type: response.map(|(_, _, m)| m.clone()).filter(|m| !m.is_empty()),
            truncated: r.post_data_cut,
            ..RequestDetails::default()
        };
        Some(Found {
            entry: r.entry.clone(),
            details,
            cdp_id: r.cdp_id.clone(),
            post_data_left_out: r.has_post_data && r.post_data.is_none(),
            no_body,
            har: r.har.clone(),
        })
    }

    /// The id of the newest request so far (0 before the first), and how many were let go for
    /// room.
    pub(crate) fn last_request(&self) -> (u64, u64) {
        let inner = self.inner.lock().unwrap();
        (inner.request_last, inner.requests_dropped)
    }

    /// The ids of the requests still held that came after `since`.
    pub(crate) fn request_ids(&self, since: u64) -> Vec<u64> {
        let inner = self.inner.lock().unwrap();
        inner.requests.iter().map(|r| r.entry.id).filter(|id| *id > since).collect()
    }

    /// The first response since the previous run started whose URL matches `glob`.
    pub(crate) fn response(&self, glob: &regex_lite::Regex) -> Option<NetworkRequest> {
        let inner = self.inner.lock().unwrap();
        let from = inner.previous_run;
        inner
            .requests
            .iter()
            .find(|r| r.entry.id >= from && r.answered && glob.is_match(&r.entry.url))
            .map(|r| r.entry.clone())
    }
}

/// A console message's parts as the journal reads them from an event.
struct Message {
    /// The console call's `type`, or `pageerror`.
    kind: String,
    text: String,
    /// `url:line`, when known.
    source: Option<String>,
    /// An uncaught error's stack.
    stack: Option<String>,
}

fn push_console(inner: &mut Inner, level: ConsoleLevel, message: Message, timestamp: f64) {
    let Message { kind, text, source, stack } = message;
    inner.console_last += 1;
    if level == ConsoleLevel::Error {
        inner.errors += 1;
    }
    if inner.console.len() >= CONSOLE_BUFFER {
        inner.console.pop_front();
        inner.console_dropped += 1;
    }
    let timestamp_ms = if timestamp.is_finite() { timestamp.max(0.0) as u64 } else { 0 };
    inner.console.push_back(ConsoleMessage {
        id: inner.console_last,
        level,
        kind,
        text,
        source,
        stack,
        timestamp_ms,
    });
}

/// The newest `limit` of `items`, oldest first.
fn newest<'a, T: Clone + 'a>(items: impl Iterator<Item = &'a T>, limit: u32) -> Vec<T> {
    let all: Vec<&T> = items.collect();
    let skip = all.len().saturating_sub(limit as usize);
    all.into_iter().skip(skip).cloned().collect()
}

/// Playwright MCP's level of a console call's `type`.
fn level_of(kind: &str) -> ConsoleLevel {
    match kind {
        "assert" | "error" => ConsoleLevel::Error,
        "warning" => ConsoleLevel::Warning,
        "clear"
        | "debug"
        | "endGroup"
        | "profile"
        | "profileEnd"
        | "startGroup"
        | "startGroupCollapsed"
        | "trace" => ConsoleLevel::Debug,
        _ => ConsoleLevel::Info,
    }
}

/// One console argument as Playwright's `ConsoleMessage.text()` writes it (`renderPreview` of
/// `server/chromium/crProtocolHelper.ts`, for each of `JSHandle.preview()`): `undefined`; a primitive as
/// `String(value)`; an `unserializableValue` (`NaN`, `10n`) as it is; a plain object from V8's preview
/// as `{foo: bar, n: Object}`; an array as `[1, empty, 3]`; a DOM node as `JSHandle@node` (Playwright's
/// element handle); anything else as V8 describes it (`Error: boom\n    at ...`, `function f() {}`);
/// cut at [`ARG_CHARS`].
fn arg_text(arg: &RemoteObject) -> String {
    let text = match (&arg.value, &arg.unserializable_value, &arg.preview) {
        _ if arg.kind == "undefined" => "undefined".to_string(),
        (Some(Value::String(s)), _, _) => s.clone(),
        (Some(Value::Null), _, _) => "null".to_string(),
        (Some(v), _, _) if !v.is_object() && !v.is_array() => v.to_string(),
        (_, Some(u), _) => u.clone(),
        _ if arg.subtype.as_deref() == Some("node") => "JSHandle@node".to_string(),
        (_, _, Some(preview)) if arg.description.as_deref() == Some("Object") => {
            let props = preview.properties.iter().map(|p| format!("{}: {}", p.name, shown(&p.value)));
            format!("{{{}}}", props.collect::<Vec<_>>().join(", "))
        }
        (_, _, Some(preview)) if arg.subtype.as_deref() == Some("array") => sparse_array(preview),
        _ => arg.description.clone().unwrap_or_else(|| arg.kind.clone()),
    };
    cut(&text, ARG_CHARS)
}

/// A previewed property's value as `String(value)` writes it (`undefined` for an accessor's).
fn shown(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("undefined")
}

/// An array from its preview, as Playwright's `sparseArrayToString`: its items by index, holes as
/// `empty` (`empty x 3` for several), `[1, empty, 3]`.
fn sparse_array(preview: &sb_cdp::types::ObjectPreview) -> String {
    let mut items: Vec<(u64, &Option<String>)> =
        preview.properties.iter().filter_map(|p| p.name.parse::<u64>().ok().map(|i| (i, &p.value))).collect();
    items.sort_by_key(|(i, _)| *i);
    let mut tokens = Vec::new();
    let mut last: i64 = -1;
    for (index, value) in items {
        let gap = index as i64 - last - 1;
        match gap {
            1 => tokens.push("empty".to_string()),
            n if n > 1 => tokens.push(format!("empty x {n}")),
            _ => {}
        }
        tokens.push(shown(value).to_string());
        last = index as i64;
    }
    format!("[{}]", tokens.join(", "))
}

fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// A request's URL as listed: credentials redacted, a `data:` URL cut.
fn shown_url(url: &str) -> String {
    if url.starts_with("data:") {
        return cut(url, DATA_URL_CHARS);
    }
    sb_protocol::redact::in_url(url).into_owned()
}

impl Found {
    /// The details with what the browser still holds: the response's body (`Network.getResponseBody`)
    /// and a request body `Network.requestWillBeSent` left out (`Network.getRequestPostData`), each cut
    /// at [`NETWORK_BODY_BYTES`], within `budget`. A body the browser no longer has (the page went on
    /// and let it go) is `body_missing`, not an error.
    pub(crate) async fn fetch(mut self, session: &Session, budget: Budget) -> RequestDetails {
        use sb_cdp::commands::{NetworkGetRequestPostData, NetworkGetResponseBody};
        if self.post_data_left_out {
            let ask = NetworkGetRequestPostData { request_id: self.cdp_id.clone() };
            if let Ok(got) = session.run(&ask, budget.remaining()).await {
                self.details.truncated |= got.post_data.len() > NETWORK_BODY_BYTES;
                self.details.post_data = Some(cut_bytes(got.post_data, NETWORK_BODY_BYTES));
            }
        }
        if let Some(why) = self.no_body {
            self.details.body_missing = Some(why.to_string());
            return self.details;
        }
        let ask = NetworkGetResponseBody { request_id: self.cdp_id };
        match session.run(&ask, budget.remaining()).await {
            Ok(got) if got.base64_encoded => {
                use base64::Engine;
                let engine = base64::engine::general_purpose::STANDARD;
                match engine.decode(got.body.as_bytes()) {
                    Ok(bytes) => {
                        self.details.body_bytes = Some(bytes.len() as u64);
                        self.details.truncated |= bytes.len() > NETWORK_BODY_BYTES;
                        let kept = &bytes[..bytes.len().min(NETWORK_BODY_BYTES)];
                        self.details.body = Some(engine.encode(kept));
                        self.details.body_base64 = true;
                    }
                    Err(e) => {
                        self.details.body_missing = Some(format!("the browser's base64 did not decode: {e}"))
                    }
                }
            }
            Ok(got) => {
                self.details.body_bytes = Some(got.body.len() as u64);
                self.details.truncated |= got.body.len() > NETWORK_BODY_BYTES;
                self.details.body = Some(cut_bytes(got.body, NETWORK_BODY_BYTES));
            }
            Err(e) => self.details.body_missing = Some(format!("the browser no longer holds it ({e})")),
        }
        self.details
    }
}

/// `text` cut to at most `max` bytes, at a character boundary.
fn cut_bytes(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

/// CDP's `Network.Headers` (name -> string value) as a sorted map; a value that is not a string is
/// written as JSON.
fn headers(h: &serde_json::Map<String, Value>) -> std::collections::BTreeMap<String, String> {
    h.iter().map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string))).collect()
}

/// ms from `from` to `to` (both `Network.MonotonicTime`, s).
fn ms_between(from: f64, to: f64) -> u64 {
    let ms = (to - from) * 1000.0;
    if ms.is_finite() {
        ms.max(0.0).round() as u64
    } else {
        0
    }
}

/// The resource types Playwright MCP leaves out unless asked (`includeStatic`).
/// Whether a request of resource type `kind` ([`resource_type`]'s) is a static resource.
fn is_static(kind: &str) -> bool {
    matches!(kind, "image" | "font" | "stylesheet" | "media" | "manifest" | "texttrack")
}

/// A request's resource type as Playwright's `request.resourceType()` names CDP's
/// `Network.ResourceType` (`toResourceType` in `server/chromium/crNetworkManager.ts`): lower case,
/// `cspreport` for a CSP report, `other` for what it does not name.
fn resource_type(cdp: &str) -> &'static str {
    match cdp {
        "Document" => "document",
        "Stylesheet" => "stylesheet",
        "Image" => "image",
        "Media" => "media",
        "Font" => "font",
        "Script" => "script",
        "TextTrack" => "texttrack",
        "XHR" => "xhr",
        "Fetch" => "fetch",
        "EventSource" => "eventsource",
        "WebSocket" => "websocket",
        "Manifest" => "manifest",
        "Ping" => "ping",
        "CSPViolationReport" => "cspreport",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(method: &str, params: Value) -> sb_cdp::Event {
        sb_cdp::Event { method: method.into(), params: params.into(), session_id: None }
    }

    #[test]
    fn console_levels_filter_and_bound() {
        let j = Journal::default();
        for (kind, text) in [("log", "a"), ("error", "b"), ("debug", "c"), ("warning", "d")] {
            let params = json!({"type": kind, "args": [{"type": "string", "value": text}, {"type": "number", "value": 1}], "timestamp": 1.5e12});
            j.note("Runtime.consoleAPICalled", &event("Runtime.consoleAPICalled", params));
        }
        let thrown = json!({"timestamp": 1.0, "exceptionDetails": {"text": "Uncaught", "lineNumber": 2, "url": "http://h/x.js",
            "exception": {"type": "object", "subtype": "error", "description": "Error: boom\n    at x"}}});
        j.note("Runtime.exceptionThrown", &event("Runtime.exceptionThrown", thrown));
        let info = j.console(0, ConsoleLevel::Info, 100);
        let texts: Vec<&str> = info.messages.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["a 1", "b 1", "d 1", "Error: boom"]);
        assert_eq!(info.messages[3].kind, "pageerror");
        assert_eq!(info.messages[3].source.as_deref(), Some("http://h/x.js:3"));
        assert_eq!(j.errors(), 2);
        let errors = j.console(0, ConsoleLevel::Error, 100);
        assert_eq!(errors.messages.len(), 2);
        assert_eq!(j.console(0, ConsoleLevel::Debug, 100).messages.len(), 5);
        assert_eq!(j.console(4, ConsoleLevel::Debug, 100).messages.len(), 1, "since");
        assert_eq!(j.console(0, ConsoleLevel::Debug, 2).messages[0].text, "d 1", "the newest 2");
        for _ in 0..CONSOLE_BUFFER {
            let params = json!({"type": "log", "args": [], "timestamp": 0});
            j.note("Runtime.consoleAPICalled", &event("Runtime.consoleAPICalled", params));
        }
        let all = j.console(0, ConsoleLevel::Debug, 1_000);
        assert_eq!(
            (all.messages.len(), all.dropped, all.last_id),
            (CONSOLE_BUFFER, 5, CONSOLE_BUFFER as u64 + 5)
        );
    }

    #[test]
    fn requests_follow_redirects_responses_and_failures() {
        let j = Journal::default();
        let sent = |id: &str, url: &str, t: f64, redirect: Option<u16>| {
            let mut p = json!({"requestId": id, "request": {"url": url, "method": "GET"}, "type": "Document", "timestamp": t});
            if let Some(s) = redirect {
                p["redirectResponse"] = json!({"url": "", "status": s});
            }
            event("Network.requestWillBeSent", p)
        };
        j.begin_run();
        j.note("Network.requestWillBeSent", &sent("1", "http://u:p@h/a", 1.0, None));
        j.note("Network.requestWillBeSent", &sent("1", "http://h/b", 1.1, Some(302)));
        j.note("Network.responseReceived", &event("Network.responseReceived", json!({"requestId": "1", "type": "Document", "response": {"url": "http://h/b", "status": 200}})));
        j.note(
            "Network.loadingFinished",
            &event(
                "Network.loadingFinished",
                json!({"requestId": "1", "timestamp": 1.3, "encodedDataLength": 512}),
            ),
        );
        let img = json!({"requestId": "2", "request": {"url": "http://h/i.png", "method": "GET"}, "type": "Image", "timestamp": 2.0});
        j.note("Network.requestWillBeSent", &event("Network.requestWillBeSent", img));
        let r = j.network(0, None, false, 100);
        assert_eq!(r.requests.len(), 2, "the image is static: {r:?}");
        assert_eq!(
            (r.requests[0].url.as_str(), r.requests[0].status, r.requests[0].ms),
            ("http://redacted@h/a", Some(302), Some(100))
        );
        assert_eq!(
            (r.requests[1].status, r.requests[1].bytes, r.requests[1].ms),
            (Some(200), Some(512), Some(200))
        );
        assert_eq!(j.network(0, None, true, 100).requests.len(), 3);
        j.note(
            "Network.loadingFailed",
            &event(
                "Network.loadingFailed",
                json!({"requestId": "2", "timestamp": 2.5, "errorText": "net::ERR_FAILED"}),
            ),
        );
        let failed = j.network(2, None, false, 100);
        assert_eq!(failed.requests.len(), 1, "a failed static one is listed");
        assert_eq!(failed.requests[0].failure.as_deref(), Some("net::ERR_FAILED"));
        let glob = regex_lite::Regex::new(&sb_protocol::pattern::glob_to_regex("**/b")).unwrap();
        assert_eq!(j.response(&glob).map(|r| r.id), Some(2));
        j.begin_run();
        assert!(j.response(&glob).is_some(), "the previous run's responses still count");
        j.begin_run();
        assert!(j.response(&glob).is_none(), "not those of the run before");
    }
}
