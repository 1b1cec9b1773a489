//! The Rust client of the sandbox-browser harness API, and the `browserctl` CLI built on it.
//!
//! One [`Client`] is one Unix-socket connection. Calls may be issued concurrently from clones: each
//! request gets its own id and responses are matched by id, in whatever order they arrive.
//!
//! ```no_run
//! # async fn demo() -> Result<(), sb_client::ClientError> {
//! let client = sb_client::Client::connect("/tmp/sandbox-browser-0/browser.sock").await?;
//! let session = client.session_start(None).await?;
//! let page = client.goto(&session.session_id, "https://example.com/", None).await?;
//! println!("{} ({:?})", page.title, page.status);
//! client.session_close(&session.session_id).await?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sb_protocol::api::{
    call, ApiMethod, CheckParams, ClickParams, ClipboardParams, ClipboardResult, CommonResult, ConsoleParams,
    ConsoleResult, CookiesParams, CookiesResult, DownloadsResult, DragParams, ElementParams, EmulateParams,
    EmulateResult, EvaluateParams, EvaluateResult, ExtractParams, ExtractResult, FillFormParams,
    FillFormResult, FillParams, FramesResult, GotoParams, GotoResult, HandleDialogParams, HandleDialogResult,
    HealthResult, InputResult, KeyboardParams, Method, MetricsResult, MouseParams, NetworkParams,
    NetworkResult, PdfParams, PdfResult, PressParams, QueryParams, QueryResult, Request, RequestId, Response,
    ScreenshotParams, ScreenshotResult, ScrollAnswer, ScrollParams, SelectParams, SelectResult,
    SessionCloseResult, SessionListResult, SessionStartParams, SessionStartResult, SetViewportParams,
    SetViewportResult, SnapshotParams, SnapshotResult, StatsResult, StorageParams, StorageResult,
    StorageStateParams, StorageStateResult, TabInfo, TabTargetParams, TabsCloseResult, TabsListResult,
    TabsOpenParams, TraceParams, TraceResult, TypeParams, UploadParams, UploadResult, VerifyParams,
    VerifyResult, WaitForParams, WaitForResult,
};
use sb_protocol::api::{HarParams, HarResult, Route, RoutesResult, UnrouteParams};
use sb_protocol::budget::{MAX_TIMEOUT_MS, MIN_TIMEOUT_MS};
use sb_protocol::ErrorBody;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::UnixStream;
use tokio::sync::oneshot;

/// How long past a request's budget the client waits before giving up on the runtime.
pub const CLIENT_SLACK: Duration = Duration::from_secs(2);

/// What a call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The socket could not be reached (no supervisor, wrong path, no permission).
    #[error("cannot connect to {path}: {source}")]
    Connect {
        /// The socket path tried.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The connection broke or was closed by the runtime.
    #[error("connection to the runtime lost: {0}")]
    Closed(String),
    /// The runtime answered with an error.
    #[error("{0}")]
    Api(ErrorBody),
    /// No answer within the request's budget plus [`CLIENT_SLACK`].
    #[error("the runtime did not answer within {0} ms")]
    NoAnswer(u64),
    /// The answer did not have the expected shape.
    #[error("unexpected answer: {0}")]
    Decode(String),
}

type Pending = Arc<Mutex<Option<HashMap<RequestId, oneshot::Sender<Response>>>>>;

/// A connection to the supervisor. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct Client {
    writer: Arc<tokio::sync::Mutex<OwnedWriteHalf>>,
    pending: Pending,
    next_id: Arc<AtomicU64>,
    /// The largest budget the runtime honours, ms: [`MAX_TIMEOUT_MS`] until a `runtime.health`
    /// answer says the runtime's own clamp (`max_timeout_ms`).
    server_max_ms: Arc<AtomicU64>,
    /// The caller's session token, sent with every request ([`Client::with_token`], or the first
    /// `session.start` result's, adopted): the sessions this client starts share it, and with
    /// `[limits] session_tokens` only it reaches them.
    token: Arc<Mutex<Option<String>>>,
}

/// How long the client waits for an answer, ms: the budget the runtime will use, plus [`CLIENT_SLACK`].
///
/// A requested budget is not clamped from above here: the runtime's clamp is configurable
/// (`timeouts.max_ms`), and a runtime that clamps lower answers sooner anyway. Without one the runtime
/// uses its configured default, which the client cannot know: it waits for `server_max_ms`.
pub fn wait_ms(timeout_ms: Option<u64>, server_max_ms: u64) -> u64 {
    let budget = match timeout_ms {
        Some(ms) => ms.max(MIN_TIMEOUT_MS),
        None => server_max_ms.max(MIN_TIMEOUT_MS),
    };
    budget.saturating_add(CLIENT_SLACK.as_millis() as u64)
}

impl Client {
    /// Connects to the supervisor's socket.
    ///
    /// # Errors
    /// [`ClientError::Connect`].
    pub async fn connect(path: impl AsRef<Path>) -> Result<Client, ClientError> {
        let path = path.as_ref();
        let stream = UnixStream::connect(path)
            .await
            .map_err(|source| ClientError::Connect { path: path.display().to_string(), source })?;
        let (reader, writer) = stream.into_split();
        let pending: Pending = Arc::new(Mutex::new(Some(HashMap::new())));
        let reader_pending = pending.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(reader).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(response) = serde_json::from_str::<Response>(&line) else { continue };
                let Some(id) = response.id.clone() else { continue };
                let waiter = reader_pending.lock().unwrap().as_mut().and_then(|p| p.remove(&id));
                if let Some(tx) = waiter {
                    let _ = tx.send(response);
                }
            }
            // Dropping the senders fails every waiting call.
            reader_pending.lock().unwrap().take();
        });
        Ok(Client {
            writer: Arc::new(tokio::sync::Mutex::new(writer)),
            pending,
            next_id: Arc::new(AtomicU64::new(1)),
            server_max_ms: Arc::new(AtomicU64::new(MAX_TIMEOUT_MS)),
            token: Arc::new(Mutex::new(None)),
        })
    }

    /// This client with the session token `token` (an agent's identity on a shared runtime): sent with
    /// every request, so `session.start` gives it to new sessions and `session.list` shows theirs.
    pub fn with_token(self, token: impl Into<String>) -> Client {
        *self.token.lock().unwrap() = Some(token.into());
        self
    }

    /// The session token this client sends, once it has one.
    pub fn token(&self) -> Option<String> {
        self.token.lock().unwrap().clone()
    }

    /// Sends one request and returns the whole response (`ok` true or false).
    ///
    /// `timeout_ms` is the request's budget (clamped by the runtime, by default to 1000..=120000;
    /// absent means the runtime's default for the method). The client waits [`wait_ms`]: that long
    /// plus [`CLIENT_SLACK`] (without a budget, the runtime's largest one plus the slack).
    ///
    /// # Errors
    /// [`ClientError::Closed`] or [`ClientError::NoAnswer`]; an `ok: false` answer is not an error here.
    pub async fn call(
        &self,
        method: &str,
        session_id: Option<&str>,
        params: Value,
        timeout_ms: Option<u64>,
    ) -> Result<Response, ClientError> {
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        let request = Request {
            id: id.clone(),
            method: method.to_string(),
            session_id: session_id.map(str::to_string),
            session_token: self.token(),
            timeout_ms,
            params,
        };
        let (tx, rx) = oneshot::channel();
        match self.pending.lock().unwrap().as_mut() {
            Some(p) => p.insert(id.clone(), tx),
            None => return Err(ClientError::Closed("connection closed".into())),
        };
        let mut line = serde_json::to_vec(&request).map_err(|e| ClientError::Decode(e.to_string()))?;
        line.push(b'\n');
        let write = self.writer.lock().await.write_all(&line).await;
        if let Err(e) = write {
            self.forget(&id);
            return Err(ClientError::Closed(e.to_string()));
        }
        let wait_ms = wait_ms(timeout_ms, self.server_max_ms.load(Ordering::Relaxed));
        match tokio::time::timeout(Duration::from_millis(wait_ms), rx).await {
            Ok(Ok(response)) => {
                if method == Method::SessionStart.name() {
                    let issued = response.result.as_ref().and_then(|r| r["session_token"].as_str());
                    let mut token = self.token.lock().unwrap();
                    if let (None, Some(issued)) = (token.as_ref(), issued.filter(|t| !t.is_empty())) {
                        *token = Some(issued.to_string());
                    }
                }
                Ok(response)
            }
            Ok(Err(_)) => Err(ClientError::Closed("connection closed by the runtime".into())),
            Err(_) => {
                self.forget(&id);
                Err(ClientError::NoAnswer(wait_ms))
            }
        }
    }

    fn forget(&self, id: &RequestId) {
        if let Some(p) = self.pending.lock().unwrap().as_mut() {
            p.remove(id);
        }
    }

    /// [`Client::call`], then decodes `result` into `T`.
    ///
    /// # Errors
    /// [`ClientError::Api`] for an `ok: false` answer, [`ClientError::Decode`] when `result` does not
    /// fit, and the errors of [`Client::call`].
    pub async fn request<T: DeserializeOwned>(
        &self,
        method: Method,
        session_id: Option<&str>,
        params: impl serde::Serialize,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<T>, ClientError> {
        let params = serde_json::to_value(params).map_err(|e| ClientError::Decode(e.to_string()))?;
        let response = self.call(method.name(), session_id, params, timeout_ms).await?;
        match (response.ok, response.result, response.error) {
            (true, Some(result), _) => {
                serde_json::from_value(result).map_err(|e| ClientError::Decode(e.to_string()))
            }
            (false, _, Some(error)) => Err(ClientError::Api(error)),
            _ => Err(ClientError::Decode("response has neither result nor error".into())),
        }
    }

    /// Any method, typed by its declaration ([`sb_protocol::api::call`]): `M::Params` in, `M::Result`
    /// (with the common part) out, e.g. `client.invoke::<call::SessionTrace>(Some("s"), TraceParams
    /// {..}, None)`. Every method of the API has its type there, so every method can be called this
    /// way; the named methods below are shorthands.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn invoke<M: ApiMethod>(
        &self,
        session_id: Option<&str>,
        params: M::Params,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<M::Result>, ClientError> {
        self.request(M::METHOD, session_id, params, timeout_ms).await
    }

    /// `session.trace {action, name?}`: starts or stops recording the session's actions; `stop` writes
    /// the HTML report.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn trace(
        &self,
        session_id: &str,
        params: TraceParams,
    ) -> Result<Reply<TraceResult>, ClientError> {
        self.invoke::<call::SessionTrace>(Some(session_id), params, None).await
    }

    /// `runtime.health`.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn health(&self) -> Result<Reply<HealthResult>, ClientError> {
        let health: Reply<HealthResult> =
            self.request(Method::RuntimeHealth, None, Value::Null, None).await?;
        self.server_max_ms.store(health.max_timeout_ms, Ordering::Relaxed);
        Ok(health)
    }

    /// `runtime.stats`: the runtime's counters.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn stats(&self) -> Result<Reply<StatsResult>, ClientError> {
        self.request(Method::RuntimeStats, None, Value::Null, None).await
    }

    /// `runtime.metrics`: the counters in Prometheus text format.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn metrics(&self) -> Result<Reply<MetricsResult>, ClientError> {
        self.request(Method::RuntimeMetrics, None, Value::Null, None).await
    }

    /// `session.start`; `session_id` is generated when `None`.
    ///
    /// # Errors
    /// As [`Client::request`]; `session_exists` when the id is taken.
    pub async fn session_start(
        &self,
        session_id: Option<&str>,
    ) -> Result<Reply<SessionStartResult>, ClientError> {
        let params = SessionStartParams { session_id: session_id.map(str::to_string), ..Default::default() };
        self.request(Method::SessionStart, None, params, None).await
    }

    /// `session.close`.
    ///
    /// # Errors
    /// As [`Client::request`]; `unknown_session`.
    pub async fn session_close(&self, session_id: &str) -> Result<Reply<SessionCloseResult>, ClientError> {
        self.request(Method::SessionClose, Some(session_id), Value::Null, None).await
    }

    /// `session.list`.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn session_list(&self) -> Result<Reply<SessionListResult>, ClientError> {
        self.request(Method::SessionList, None, Value::Null, None).await
    }

    /// `page.goto`: navigate and wait for `domcontentloaded` (default budget 15000 ms).
    ///
    /// # Errors
    /// As [`Client::request`]; `navigation_failed`, `timeout`.
    pub async fn goto(
        &self,
        session_id: &str,
        url: &str,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<GotoResult>, ClientError> {
        self.request(Method::PageGoto, Some(session_id), GotoParams { url: url.into() }, timeout_ms).await
    }

    /// `page.back`: the previous entry of the tab's history, waited for as [`Client::goto`].
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` when there is no entry to go back to.
    pub async fn back(
        &self,
        session_id: &str,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<GotoResult>, ClientError> {
        self.request(Method::PageBack, Some(session_id), Value::Null, timeout_ms).await
    }

    /// `page.forward`: the next entry of the tab's history, waited for as [`Client::goto`].
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` when there is no entry to go forward to.
    pub async fn forward(
        &self,
        session_id: &str,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<GotoResult>, ClientError> {
        self.request(Method::PageForward, Some(session_id), Value::Null, timeout_ms).await
    }

    /// `page.downloads`: every download of the session so far, oldest first, in its latest state.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn downloads(&self, session_id: &str) -> Result<Reply<DownloadsResult>, ClientError> {
        self.request(Method::PageDownloads, Some(session_id), Value::Null, None).await
    }

    /// `page.reload`: the tab's document loaded again, waited for as [`Client::goto`].
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn reload(
        &self,
        session_id: &str,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<GotoResult>, ClientError> {
        self.request(Method::PageReload, Some(session_id), Value::Null, timeout_ms).await
    }

    /// `page.extract`.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn extract(
        &self,
        session_id: &str,
        params: ExtractParams,
    ) -> Result<Reply<ExtractResult>, ClientError> {
        self.request(Method::PageExtract, Some(session_id), params, None).await
    }

    /// `page.screenshot`.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn screenshot(
        &self,
        session_id: &str,
        params: ScreenshotParams,
    ) -> Result<Reply<ScreenshotResult>, ClientError> {
        self.request(Method::PageScreenshot, Some(session_id), params, None).await
    }

    /// `session.cookies`: the cookies of the session's browser context, after reading (`get`),
    /// adding (`set`) or deleting them all (`clear`).
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for a malformed cookie or URL.
    pub async fn cookies(
        &self,
        session_id: &str,
        params: CookiesParams,
    ) -> Result<Reply<CookiesResult>, ClientError> {
        self.request(Method::SessionCookies, Some(session_id), params, None).await
    }

    /// `page.fill_form`: several fields filled in order, each by its element's kind.
    ///
    /// # Errors
    /// As [`Client::request`]; the first failing field's error, its message starting `field N of M`.
    pub async fn fill_form(
        &self,
        session_id: &str,
        params: FillFormParams,
    ) -> Result<Reply<FillFormResult>, ClientError> {
        self.request(Method::PageFillForm, Some(session_id), params, None).await
    }

    /// `page.upload`: sets the files of a file input, each a plain name of a file in the runtime's
    /// `[files] uploads_dir`.
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` when uploads are off, for a name that is not a plain name
    /// of a regular file there, or an element that is not a file input.
    pub async fn upload(
        &self,
        session_id: &str,
        params: UploadParams,
    ) -> Result<Reply<UploadResult>, ClientError> {
        self.request(Method::PageUpload, Some(session_id), params, None).await
    }

    /// `page.pdf`: the page printed to a PDF file under the runtime's artifacts directory.
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for a margin, scale or page range out of range.
    pub async fn pdf(&self, session_id: &str, params: PdfParams) -> Result<Reply<PdfResult>, ClientError> {
        self.request(Method::PagePdf, Some(session_id), params, None).await
    }

    /// `page.emulate`: what every page of the session emulates from now on (merged into what is in force;
    /// `reset` clears it first).
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for a position off the globe, an empty or unknown locale
    /// or time zone.
    pub async fn emulate(
        &self,
        session_id: &str,
        params: EmulateParams,
    ) -> Result<Reply<EmulateResult>, ClientError> {
        self.request(Method::PageEmulate, Some(session_id), params, None).await
    }

    /// `page.storage`: the active tab's `localStorage` or `sessionStorage` after a get, set, delete or
    /// clear.
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for a page without storage of its own (`about:blank`).
    pub async fn storage(
        &self,
        session_id: &str,
        params: StorageParams,
    ) -> Result<Reply<StorageResult>, ClientError> {
        self.request(Method::PageStorage, Some(session_id), params, None).await
    }

    /// `session.storage_state`: the session's cookies and local storage saved to, or loaded from, a
    /// Playwright `storageState` file.
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for a name that is not a plain file name, a missing file,
    /// or one not in the format.
    pub async fn storage_state(
        &self,
        session_id: &str,
        params: StorageStateParams,
    ) -> Result<Reply<StorageStateResult>, ClientError> {
        self.request(Method::SessionStorageState, Some(session_id), params, None).await
    }

    /// `page.mouse`: raw mouse input at viewport coordinates (CSS px), no element checked.
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for a missing or out-of-range coordinate.
    pub async fn mouse(
        &self,
        session_id: &str,
        params: MouseParams,
    ) -> Result<Reply<InputResult>, ClientError> {
        self.request(Method::PageMouse, Some(session_id), params, None).await
    }

    /// `page.keyboard`: raw key events on the focused element (`down`, `up`, `press`, `insert_text`).
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for an unknown key, or a combo given to down or up.
    pub async fn keyboard(
        &self,
        session_id: &str,
        params: KeyboardParams,
    ) -> Result<Reply<InputResult>, ClientError> {
        self.request(Method::PageKeyboard, Some(session_id), params, None).await
    }

    /// `page.console`: the active tab's console messages and uncaught exceptions, oldest first.
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for a `limit` outside 1..=1000.
    pub async fn console(
        &self,
        session_id: &str,
        params: ConsoleParams,
    ) -> Result<Reply<ConsoleResult>, ClientError> {
        self.request(Method::PageConsole, Some(session_id), params, None).await
    }

    /// `page.network`: the active tab's requests, oldest first.
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for a `limit` outside 1..=1000.
    pub async fn network(
        &self,
        session_id: &str,
        params: NetworkParams,
    ) -> Result<Reply<NetworkResult>, ClientError> {
        self.request(Method::PageNetwork, Some(session_id), params, None).await
    }

    /// `page.verify`: one check of the page as it is now (an element's visibility, text, value,
    /// checked state, attribute, a selector's count, or text visible on the page).
    ///
    /// # Errors
    /// As [`Client::request`]; `verify_failed` (not retryable) when the check does not hold, its
    /// message naming what the page has; `bad_request` for no check or several.
    pub async fn verify(
        &self,
        session_id: &str,
        params: VerifyParams,
    ) -> Result<Reply<VerifyResult>, ClientError> {
        self.request(Method::PageVerify, Some(session_id), params, None).await
    }

    /// `page.query`: how many elements a ref or selector matches now, and the first one's tag, text,
    /// value, checked state, visibility, attributes and bounding box (CSS px).
    ///
    /// # Errors
    /// As [`Client::request`]; `stale_ref`, `bad_request` for an invalid selector.
    pub async fn query(
        &self,
        session_id: &str,
        params: QueryParams,
    ) -> Result<Reply<QueryResult>, ClientError> {
        self.request(Method::PageQuery, Some(session_id), params, None).await
    }

    /// `page.clipboard`: the browser's clipboard as the active tab's page sees it, read or written.
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for a read without the session's `clipboard-read`
    /// permission, or a page that is not a secure context.
    pub async fn clipboard(
        &self,
        session_id: &str,
        params: ClipboardParams,
    ) -> Result<Reply<ClipboardResult>, ClientError> {
        self.request(Method::PageClipboard, Some(session_id), params, None).await
    }

    /// `page.route`: a route of the session's requests (fulfill, abort or continue those whose URL
    /// matches), tried before the session's others, in every tab; the routes now, newest first.
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for a pattern that does not compile, fields of two
    /// actions, a body over 1 MiB, a `body_file` not in the uploads dir, more than 32 routes.
    pub async fn route(&self, session_id: &str, route: Route) -> Result<Reply<RoutesResult>, ClientError> {
        self.request(Method::PageRoute, Some(session_id), route, None).await
    }

    /// `page.unroute`: removes the routes added with `url` (every route with `None`); the routes
    /// left.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn unroute(
        &self,
        session_id: &str,
        url: Option<&str>,
    ) -> Result<Reply<RoutesResult>, ClientError> {
        let params = UnrouteParams { url: url.map(str::to_string) };
        self.request(Method::PageUnroute, Some(session_id), params, None).await
    }

    /// `page.routes`: the session's routes, newest first (their bodies' sizes, not the bodies).
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn routes(&self, session_id: &str) -> Result<Reply<RoutesResult>, ClientError> {
        self.request(Method::PageRoutes, Some(session_id), Value::Null, None).await
    }

    /// `session.har`: start recording the session's requests, or stop and write them as a HAR 1.2
    /// file (its path, entries and bytes).
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for a stop without a recording, a start during one, a
    /// name that is not plain.
    pub async fn har(&self, session_id: &str, params: HarParams) -> Result<Reply<HarResult>, ClientError> {
        self.request(Method::SessionHar, Some(session_id), params, None).await
    }

    /// `page.wait_for` with exactly one condition (default budget 20000 ms).
    ///
    /// # Errors
    /// As [`Client::request`]; `timeout` (phase `wait`), `bad_request`.
    pub async fn wait_for(
        &self,
        session_id: &str,
        params: WaitForParams,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<WaitForResult>, ClientError> {
        self.request(Method::PageWaitFor, Some(session_id), params, timeout_ms).await
    }

    /// `page.snapshot`: the aria snapshot with refs.
    ///
    /// # Errors
    /// As [`Client::request`]; `unknown_ref` for a `scope` ref never issued.
    pub async fn snapshot(
        &self,
        session_id: &str,
        params: SnapshotParams,
    ) -> Result<Reply<SnapshotResult>, ClientError> {
        self.request(Method::PageSnapshot, Some(session_id), params, None).await
    }

    /// `page.select`: choose options of a `<select>` by value, label or index.
    ///
    /// # Errors
    /// As [`Client::click`]; `timeout` when an option never appears.
    pub async fn select(
        &self,
        session_id: &str,
        params: SelectParams,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<SelectResult>, ClientError> {
        self.request(Method::PageSelect, Some(session_id), params, timeout_ms).await
    }

    /// `page.check`: check (or, with `checked: false`, uncheck) a checkbox or radio button.
    ///
    /// # Errors
    /// As [`Client::click`].
    pub async fn check(
        &self,
        session_id: &str,
        params: CheckParams,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<InputResult>, ClientError> {
        self.request(Method::PageCheck, Some(session_id), params, timeout_ms).await
    }

    /// `page.scroll`: an element into view ([`ScrollAnswer::Element`]), or the page by `dx`/`dy` CSS px
    /// ([`ScrollAnswer::Page`]).
    ///
    /// # Errors
    /// As [`Client::click`]; `bad_request` for a delta beyond ±100000 px or not finite.
    pub async fn scroll(
        &self,
        session_id: &str,
        params: ScrollParams,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<ScrollAnswer>, ClientError> {
        self.request(Method::PageScroll, Some(session_id), params, timeout_ms).await
    }

    /// `page.drag`: one element onto another.
    ///
    /// # Errors
    /// As [`Client::click`].
    pub async fn drag(
        &self,
        session_id: &str,
        params: DragParams,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<InputResult>, ClientError> {
        self.request(Method::PageDrag, Some(session_id), params, timeout_ms).await
    }

    /// `page.set_viewport`: the session's viewport (CSS px) and scale from now on.
    ///
    /// # Errors
    /// As [`Client::request`]; `bad_request` for a side outside 1..=10000.
    pub async fn set_viewport(
        &self,
        session_id: &str,
        params: SetViewportParams,
    ) -> Result<Reply<SetViewportResult>, ClientError> {
        self.request(Method::PageSetViewport, Some(session_id), params, None).await
    }

    /// `page.frames`: the active tab's frame tree.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn frames(&self, session_id: &str) -> Result<Reply<FramesResult>, ClientError> {
        self.request(Method::PageFrames, Some(session_id), Value::Null, None).await
    }

    /// `tabs.list`: the session's tabs, popups included.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn tabs_list(&self, session_id: &str) -> Result<Reply<TabsListResult>, ClientError> {
        self.request(Method::TabsList, Some(session_id), Value::Null, None).await
    }

    /// `tabs.open`: a new tab (at `url`, else `about:blank`), which becomes the active one.
    ///
    /// # Errors
    /// As [`Client::request`]; `url_blocked`.
    pub async fn tabs_open(
        &self,
        session_id: &str,
        url: Option<&str>,
    ) -> Result<Reply<TabInfo>, ClientError> {
        let params = TabsOpenParams { url: url.map(str::to_string) };
        self.request(Method::TabsOpen, Some(session_id), params, None).await
    }

    /// `tabs.focus`: page actions go to the tab `target_id` (or a unique prefix) from now on.
    ///
    /// # Errors
    /// As [`Client::request`]; `tab_not_found`, `ambiguous_target`.
    pub async fn tabs_focus(&self, session_id: &str, target_id: &str) -> Result<Reply<TabInfo>, ClientError> {
        let params = TabTargetParams { target_id: target_id.to_string() };
        self.request(Method::TabsFocus, Some(session_id), params, None).await
    }

    /// `tabs.close`: closes the tab `target_id` (not the last one).
    ///
    /// # Errors
    /// As [`Client::tabs_focus`].
    pub async fn tabs_close(
        &self,
        session_id: &str,
        target_id: &str,
    ) -> Result<Reply<TabsCloseResult>, ClientError> {
        let params = TabTargetParams { target_id: target_id.to_string() };
        self.request(Method::TabsClose, Some(session_id), params, None).await
    }

    /// `page.click`.
    ///
    /// # Errors
    /// As [`Client::request`]; `stale_ref`, `unknown_ref`, `element_covered`, `not_visible`,
    /// `not_enabled`, `not_stable`.
    pub async fn click(
        &self,
        session_id: &str,
        params: ClickParams,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<InputResult>, ClientError> {
        self.request(Method::PageClick, Some(session_id), params, timeout_ms).await
    }

    /// `page.type`.
    ///
    /// # Errors
    /// As [`Client::click`].
    pub async fn type_text(
        &self,
        session_id: &str,
        params: TypeParams,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<InputResult>, ClientError> {
        self.request(Method::PageType, Some(session_id), params, timeout_ms).await
    }

    /// `page.fill`.
    ///
    /// # Errors
    /// As [`Client::click`].
    pub async fn fill(
        &self,
        session_id: &str,
        params: FillParams,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<InputResult>, ClientError> {
        self.request(Method::PageFill, Some(session_id), params, timeout_ms).await
    }

    /// `page.press`.
    ///
    /// # Errors
    /// As [`Client::click`]; `bad_request` for an unknown key.
    pub async fn press(
        &self,
        session_id: &str,
        params: PressParams,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<InputResult>, ClientError> {
        self.request(Method::PagePress, Some(session_id), params, timeout_ms).await
    }

    /// `page.hover`.
    ///
    /// # Errors
    /// As [`Client::click`].
    pub async fn hover(
        &self,
        session_id: &str,
        params: ElementParams,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<InputResult>, ClientError> {
        self.request(Method::PageHover, Some(session_id), params, timeout_ms).await
    }

    /// `page.handle_dialog`: how the next JavaScript dialog is answered.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn handle_dialog(
        &self,
        session_id: &str,
        params: HandleDialogParams,
    ) -> Result<Reply<HandleDialogResult>, ClientError> {
        self.request(Method::PageHandleDialog, Some(session_id), params, None).await
    }

    /// `page.evaluate`.
    ///
    /// # Errors
    /// As [`Client::request`]; `evaluate_error` with the JS message, `timeout`.
    pub async fn evaluate(
        &self,
        session_id: &str,
        expression: &str,
        timeout_ms: Option<u64>,
    ) -> Result<Reply<EvaluateResult>, ClientError> {
        let params = EvaluateParams { expression: Some(expression.into()), ..Default::default() };
        self.request(Method::PageEvaluate, Some(session_id), params, timeout_ms).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_waits_for_what_the_server_will_use() {
        let slack = CLIENT_SLACK.as_millis() as u64;
        // A runtime configured with timeouts.max_ms above the protocol's default clamp works that long.
        assert_eq!(wait_ms(Some(125_000), MAX_TIMEOUT_MS), 125_000 + slack);
        assert_eq!(wait_ms(Some(10), MAX_TIMEOUT_MS), MIN_TIMEOUT_MS + slack);
        assert_eq!(wait_ms(None, 300_000), 300_000 + slack);
        assert_eq!(wait_ms(Some(u64::MAX), MAX_TIMEOUT_MS), u64::MAX);
    }
}

/// A method's typed result with the part every result has ([`CommonResult`]: `session_reset`,
/// `reset_reason`, `waited_for_recovery_ms`, `dialogs`, `downloads`, `elapsed_ms`), decoded from the
/// same JSON object. It dereferences to the result, so `reply.value` reads the method's own field;
/// `reply.common.session_reset` says the session's page was replaced before it ran.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Reply<T> {
    /// The method's own result.
    #[serde(flatten)]
    pub result: T,
    /// The common part.
    #[serde(flatten)]
    pub common: CommonResult,
}

impl<T> Reply<T> {
    /// The method's own result, without the common part.
    pub fn into_inner(self) -> T {
        self.result
    }
}

impl<T> std::ops::Deref for Reply<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.result
    }
}
