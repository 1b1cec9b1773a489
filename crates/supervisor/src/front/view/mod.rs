//! The live view (`[view] listen`, `serve --view ADDR`; off by default): one web page and its
//! WebSocket, served by the supervisor with axum, where a person watches every session and, with
//! `[view] takeover = true`, takes one over.
//!
//! - **Access**: a random 128-bit token (hex), written 0600 to `<runtime_dir>/view-token`, whose path
//!   the log line with the view's URL gives (`view_listening`; the token itself is never logged: a log
//!   is read by more people and programs than the runtime's uid). Every request must carry it (`?token=` or
//!   `Authorization: Bearer`); one without it answers 401. The WebSocket also checks its `Origin`: the
//!   view's own (`http(s)://<Host>`), so another site's page open in the same browser cannot use it.
//!   Responses say `Cache-Control: no-store`, `Referrer-Policy: no-referrer` (the token is in the URL),
//!   a Content-Security-Policy of the view's own files only, and may not be framed.
//! - **The page** (`index.html`, `view.js`, `view.css`, built in; no build step, no CDN): the sessions
//!   (`/api/sessions`, polled each second: id, tabs, URL, title, last action and outcome, resets; the
//!   reports written), and one session live over `/ws?session=ID` ([`live`]): the active tab's screencast, the
//!   action log as it happens, console errors, the last snapshot's text.
//! - **Cost**: nothing while no page watches: a screencast runs only while a WebSocket watches its
//!   session ([`live::Watch`]).
//! - **Reports**: `/reports/NAME` serves the HTML reports of `session.trace` ([`crate::features::trace`]) and no
//!   other file.
//!
//! Arrows: view -> runtime, sessions, activity, trace, stats, files (lib starts it).

pub mod live;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::front::config::ViewConfig;
use crate::pipeline::runtime::Runtime;

/// The file in the runtime dir that holds the view's token.
pub const TOKEN_FILE: &str = "view-token";
/// The view's page.
const INDEX_HTML: &str = include_str!("index.html");
/// The view's script.
const VIEW_JS: &str = include_str!("view.js");
/// The view's style sheet.
const VIEW_CSS: &str = include_str!("view.css");
/// The policy of the view's own pages: its files only (the screencast's frames are `data:` images),
/// its WebSocket, never framed.
const CSP: &str = "default-src 'self'; img-src 'self' data:; connect-src 'self'; script-src 'self'; \
                   style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/// A trace report's policy: inline style and images, nothing else.
const REPORT_CSP: &str =
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; frame-ancestors 'none'";

/// The running view.
pub struct ViewServer {
    /// Where it listens.
    pub addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl ViewServer {
    /// Stops serving.
    pub fn stop(&self) {
        self.task.abort();
    }
}

/// What the view's handlers share.
pub(crate) struct ViewState {
    pub(crate) runtime: Arc<Runtime>,
    token: String,
    pub(crate) takeover: bool,
    /// The screencasts running, by session (one per watched session, shared by its viewers).
    pub(crate) watches: Mutex<HashMap<String, Arc<live::Watch>>>,
    pub(crate) next_viewer: AtomicU64,
}

/// Starts the view on `config.listen` when it is set: binds, writes the token to
/// `<runtime_dir>/view-token` (0600) and logs the URL and that file's path once (`view_listening`).
///
/// # Errors
/// When the address cannot be bound or the token cannot be written.
pub async fn start(
    config: &ViewConfig,
    runtime: Arc<Runtime>,
    runtime_dir: &Path,
) -> anyhow::Result<Option<ViewServer>> {
    let Some(listen) = &config.listen else { return Ok(None) };
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| anyhow::anyhow!("cannot serve the live view on {listen}: {e}"))?;
    let addr = listener.local_addr()?;
    let token = new_token()?;
    let token_path = runtime_dir.join(TOKEN_FILE);
    let _ = std::fs::remove_file(&token_path);
    {
        use std::io::Write as _;
        let mut f = crate::files::create_private(&token_path)?;
        f.write_all(format!("{token}\n").as_bytes())?;
    }
    let state = Arc::new(ViewState {
        runtime,
        token: token.clone(),
        takeover: config.takeover,
        watches: Mutex::default(),
        next_viewer: AtomicU64::new(1),
    });
    let app = Router::new()
        .route("/", get(index))
        .route("/view.js", get(|| async { asset("text/javascript; charset=utf-8", VIEW_JS) }))
        .route("/view.css", get(|| async { asset("text/css; charset=utf-8", VIEW_CSS) }))
        .route("/api/sessions", get(sessions))
        .route("/ws", get(watch))
        .route("/reports/{name}", get(report))
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state);
    let task = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error.message = %e, "view_stopped");
        }
    });
    let url = format!("http://{addr}/");
    tracing::info!(url = %url, token_file = %token_path.display(), takeover = config.takeover, "view_listening");
    Ok(Some(ViewServer { addr, task }))
}

/// 128 random bits from the kernel, as 32 hex digits.
fn new_token() -> std::io::Result<String> {
    use std::io::Read as _;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `given` is the token, compared in constant time.
fn same_token(given: &str, token: &str) -> bool {
    given.len() == token.len() && given.bytes().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

/// Every request: the token (`?token=` or `Authorization: Bearer`), else 401; the response's
/// security headers.
async fn guard(State(state): State<Arc<ViewState>>, request: Request, next: Next) -> Response {
    let from_query = request.uri().query().and_then(|q| {
        url::form_urlencoded::parse(q.as_bytes()).find(|(k, _)| k == "token").map(|(_, v)| v.into_owned())
    });
    let from_header = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    let allowed = from_query.or(from_header).is_some_and(|t| same_token(&t, &state.token));
    let mut response = if allowed {
        next.run(request).await
    } else {
        (
            StatusCode::UNAUTHORIZED,
            "the live view needs its token: open the URL the runtime logged (view_listening), or read \
             <runtime_dir>/view-token\n",
        )
            .into_response()
    };
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.entry(header::CONTENT_SECURITY_POLICY).or_insert(HeaderValue::from_static(CSP));
    response
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// The page, its files' URLs carrying the token (it is hex: nothing to escape).
async fn index(State(state): State<Arc<ViewState>>) -> Response {
    let html = INDEX_HTML.replace("{{token}}", &state.token);
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

/// `/api/sessions`: every session with what the view shows of it.
async fn sessions(State(state): State<Arc<ViewState>>) -> Response {
    let runtime = &state.runtime;
    let mut targets = HashMap::new();
    if let Some(link) = runtime.current_link().await {
        if let Ok(infos) = link.client.targets(Duration::from_millis(1_000)).await {
            targets = infos.into_iter().map(|t| (t.target_id.clone(), t)).collect();
        }
    }
    let watched: Vec<String> = state.watches.lock().unwrap().keys().cloned().collect();
    let mut list = Vec::new();
    let mut all = runtime.sessions().all();
    all.sort_by(|a, b| a.id.cmp(&b.id));
    for s in all {
        let seen = runtime.activity().seen(&s.id);
        let tab = targets.get(&s.target());
        let url = tab.map(|t| t.url.clone()).or_else(|| s.last_url()).unwrap_or_default();
        list.push(json!({
            "session_id": s.id,
            "tabs": s.tabs().len(),
            "url": sb_protocol::redact::in_url(&url),
            "title": tab.map(|t| t.title.clone()).unwrap_or_default(),
            "last": seen.recent.back(),
            "actions": seen.actions,
            "resets": seen.resets,
            "held": s.held_by().is_some(),
            "watched": watched.contains(&s.id),
            "tracing": runtime.tracer().active(&s.id),
        }));
    }
    let reports: Vec<Value> = runtime
        .tracer()
        .all_reports()
        .into_iter()
        .map(|(session_id, name)| json!({"session_id": session_id, "name": name}))
        .collect();
    axum::Json(json!({
        "sessions": list,
        "reports": reports,
        "takeover": state.takeover,
        "screencasts_started": runtime.stats().screencasts_started.get(),
    }))
    .into_response()
}

#[derive(Deserialize)]
struct WatchQuery {
    session: String,
}

/// `/ws?session=ID`: the WebSocket of one watched session, from the view's own origin only.
async fn watch(
    State(state): State<Arc<ViewState>>,
    Query(q): Query<WatchQuery>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let own = !host.is_empty() && (origin == format!("http://{host}") || origin == format!("https://{host}"));
    if !own {
        tracing::warn!(origin, "view_websocket_refused");
        return (StatusCode::FORBIDDEN, "the live view's WebSocket takes its own page's origin only\n")
            .into_response();
    }
    upgrade.max_message_size(64 * 1024).on_upgrade(move |socket| live::viewer(socket, state, q.session))
}

/// `/reports/NAME`: a trace report this runtime wrote, and nothing else.
async fn report(State(state): State<Arc<ViewState>>, UrlPath(name): UrlPath<String>) -> Response {
    let tracer = state.runtime.tracer();
    let found = tracer.report_path(&name).and_then(|path| {
        let dir = path.parent()?;
        crate::files::open_regular_under(dir, &name).ok().flatten()
    });
    let Some((mut file, _)) = found else {
        return (StatusCode::NOT_FOUND, "no such report\n").into_response();
    };
    let mut body = Vec::new();
    match std::io::Read::read_to_end(&mut file, &mut body).map(|_| body) {
        Ok(body) => (
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CONTENT_SECURITY_POLICY, REPORT_CSP),
            ],
            body,
        )
            .into_response(),
        Err(_) => (StatusCode::NOT_FOUND, "the report was removed (artifacts retention)\n").into_response(),
    }
}

/// A JSON message to a view page.
pub(crate) fn message(value: Value) -> Arc<str> {
    Arc::from(value.to_string())
}

/// A viewer's number (each WebSocket is one).
pub(crate) fn next_viewer(state: &ViewState) -> u64 {
    state.next_viewer.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_random_bits_compared_whole() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert!(same_token(&a, &a.clone()));
        assert!(!same_token(&a, &b) && !same_token(&a, &a[..31]) && !same_token(&a, ""));
    }

    #[test]
    fn listen_must_be_an_address() {
        let ok = ViewConfig { listen: Some("127.0.0.1:0".into()), takeover: false };
        assert!(ok.check().is_ok());
        assert!(ViewConfig { listen: Some("localhost".into()), takeover: false }.check().is_err());
    }
}
