//! What a session's pages send and receive: the console and network journals (`page.console`,
//! `page.network`), routes (`page.route`), HTTP credentials and HAR recording (`session.har`).

use serde::{Deserialize, Serialize};

/// How many console messages a tab keeps (the oldest go first; `page.console`'s `dropped` counts them).
pub const CONSOLE_BUFFER: usize = 1_000;

/// How many requests a tab keeps (the oldest go first; `page.network`'s `dropped` counts them).
pub const NETWORK_BUFFER: usize = 1_000;

/// The most entries one `page.console` or `page.network` answer lists (the newest kept).
pub const MAX_JOURNAL_LIMIT: u32 = 1_000;

/// How many entries `page.console` and `page.network` list without a `limit` (the newest).
pub const DEFAULT_JOURNAL_LIMIT: u32 = 100;

impl ConsoleParams {
    /// How many entries are listed, the newest: `limit`, else [`DEFAULT_JOURNAL_LIMIT`].
    pub fn newest(&self) -> u32 {
        self.limit.unwrap_or(DEFAULT_JOURNAL_LIMIT)
    }

    /// `page.console`'s rule beyond its fields' types (its declaration's `check`).
    ///
    /// # Errors
    /// A `limit` outside 1..=[`MAX_JOURNAL_LIMIT`].
    pub fn check(&self) -> Result<(), String> {
        journal_limit("page.console", self.newest())
    }
}

impl NetworkParams {
    /// How many requests are listed, the newest: `limit`, else [`DEFAULT_JOURNAL_LIMIT`].
    pub fn newest(&self) -> u32 {
        self.limit.unwrap_or(DEFAULT_JOURNAL_LIMIT)
    }

    /// `page.network`'s rules beyond its fields' types (its declaration's `check`).
    ///
    /// # Errors
    /// A `limit` outside 1..=[`MAX_JOURNAL_LIMIT`]; `id` beside a list's fields.
    pub fn check(&self) -> Result<(), String> {
        journal_limit("page.network", self.newest())?;
        let lists =
            self.since.is_some() || self.filter.is_some() || self.include_static || self.limit.is_some();
        if self.id.is_some() && lists {
            return Err(
                "page.network: id names one request; since, filter, include_static and limit are for a list"
                    .into(),
            );
        }
        Ok(())
    }
}

/// `limit` of `page.console` and `page.network`: 1..=[`MAX_JOURNAL_LIMIT`].
fn journal_limit(method: &str, limit: u32) -> Result<(), String> {
    match limit {
        1..=MAX_JOURNAL_LIMIT => Ok(()),
        n => Err(format!("{method} limit is 1 to {MAX_JOURNAL_LIMIT}; got {n}")),
    }
}

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

/// `session.trace`'s action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceAction {
    /// Start recording (a trace already running goes on).
    Start,
    /// Stop recording and write the HTML report.
    Stop,
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

impl HarParams {
    /// `session.har`'s rules beyond its fields' types (its declaration's `check`): `content` and
    /// `url_filter` with start only (a filter that compiles), `name` with stop only.
    ///
    /// # Errors
    /// The rule broken, in one line.
    pub fn check(&self) -> Result<(), String> {
        match self.action {
            TraceAction::Start if self.name.is_none() => match &self.url_filter {
                Some(f) => crate::pattern::url_pattern(f)
                    .map(drop)
                    .map_err(|e| format!("session.har url_filter: {e}")),
                None => Ok(()),
            },
            TraceAction::Stop if self.content.is_none() && self.url_filter.is_none() => Ok(()),
            _ => Err("session.har: start takes content and url_filter, stop takes name".into()),
        }
    }

    /// Whether the recording keeps the response bodies: `content` is not `omit`.
    pub fn embeds(&self) -> bool {
        self.content != Some(HarContent::Omit)
    }
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
