//! Request interception for a session's pages: its routes (`page.route`) and HTTP authentication
//! (`http_credentials`), on `Fetch` as Playwright's `crNetworkManager.ts` does both.
//!
//! While the session has a route or credentials, each page's requests pause
//! (`Fetch.enable {patterns: [*]}`, with `handleAuthRequests` while it has credentials), and each
//! paused request is answered at once: by the first route whose URL pattern matches it, newest first
//! (`Fetch.fulfillRequest`, `Fetch.failRequest`, or `Fetch.continueRequest` with the route's
//! headers, method and body), else let go unchanged. A server's challenge (`Fetch.authRequired`) is
//! answered with the credentials, once a request (`ProvideCredentials`; a second challenge of the
//! same request: the credentials were wrong, `CancelAuth`, and the page gets the server's 401). A
//! challenge for another origin than the credentials name is cancelled the same way, so that a 401
//! page is what the page shows on every browser (full Chromium answers
//! `net::ERR_INVALID_AUTH_CREDENTIALS` by itself). With neither routes nor credentials, nothing is
//! intercepted: a request costs what it costs without this module.
//!
//! Only the worker answers (one worker drives one session, so the session's routes and credentials
//! are this process's): a page the supervisor holds before a worker takes it over (a popup) is not
//! intercepted, since nobody would let its requests go.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use base64::Engine as _;
use sb_cdp::commands::{
    FetchContinueRequest, FetchContinueWithAuth, FetchDisable, FetchEnable, FetchFailRequest,
    FetchFulfillRequest,
};
use sb_cdp::{CdpError, Session};
use sb_protocol::api::{AbortReason, HttpCredentials, Route, RouteAction};
use serde_json::{json, Value};

/// Whether this process answers `Fetch` events (the worker sets it as it starts; the supervisor,
/// which shares the emulation code for the pages it holds, does not).
static ANSWERS: AtomicBool = AtomicBool::new(false);
/// The session's credentials and routes now.
static STATE: LazyLock<Mutex<State>> = LazyLock::new(Mutex::default);
/// What each CDP session followed here intercepts now (`None`: nothing), by its id.
static MODES: LazyLock<Mutex<HashMap<String, Mode>>> = LazyLock::new(Mutex::default);

/// The longest a `Fetch` answer may take.
const STEP: Duration = Duration::from_millis(2_000);

/// What a session's pages intercept for.
#[derive(Default)]
struct State {
    credentials: Option<HttpCredentials>,
    /// Newest first, each with its compiled URL pattern.
    routes: Vec<(regex_lite::Regex, Route)>,
}

/// What one CDP session intercepts: `Some(handle_auth)` while `Fetch` is on.
type Mode = Option<bool>;

/// This process answers the `Fetch` events of the pages it intercepts (the worker, at its start).
pub(crate) fn answer_here() {
    ANSWERS.store(true, Ordering::Relaxed);
}

/// Takes the session's `credentials` and `routes` (its emulation's), then brings the page of
/// `session` to them ([`sync`]); nothing in a process that does not answer ([`answer_here`]).
///
/// # Errors
/// `Fetch.enable` / `Fetch.disable` refused or not answered.
pub(crate) async fn set(
    session: &Session,
    credentials: Option<HttpCredentials>,
    routes: &[Route],
    timeout: Duration,
) -> Result<(), CdpError> {
    if !ANSWERS.load(Ordering::Relaxed) {
        return Ok(());
    }
    {
        let mut state = STATE.lock().unwrap();
        state.credentials = credentials;
        // The supervisor refused a pattern that does not compile; one that would is left out here.
        state.routes = (routes.iter())
            .filter_map(|r| Some((sb_protocol::pattern::url_pattern(&r.url).ok()?, r.clone())))
            .collect();
    }
    sync(session, timeout).await
}

/// Brings the page (or out-of-process iframe) of `session` to what the session intercepts now:
/// `Fetch` on with a route or credentials (answering auth challenges with credentials), off with
/// neither; its follower started once. A call that changes nothing sends nothing.
///
/// # Errors
/// `Fetch.enable` / `Fetch.disable` refused or not answered.
pub(crate) async fn sync(session: &Session, timeout: Duration) -> Result<(), CdpError> {
    if !ANSWERS.load(Ordering::Relaxed) {
        return Ok(());
    }
    let want: Mode = {
        let state = STATE.lock().unwrap();
        (state.credentials.is_some() || !state.routes.is_empty()).then_some(state.credentials.is_some())
    };
    let had = {
        let mut modes = MODES.lock().unwrap();
        let had = modes.get(session.id()).copied();
        if had.is_none() && want.is_some() {
            follow(session);
        }
        // A session followed keeps its entry until its events end (the follower removes it).
        if had.is_some() || want.is_some() {
            modes.insert(session.id().to_string(), want);
        }
        had.flatten()
    };
    let sent = match want {
        _ if want == had => return Ok(()),
        Some(handle_auth_requests) => {
            let every = FetchEnable { patterns: vec![json!({"urlPattern": "*"})], handle_auth_requests };
            session.send(&every, timeout).await.map(|_| ())
        }
        None => session.send(&FetchDisable {}, timeout).await.map(|_| ()),
    };
    if sent.is_err() {
        // Not changed after all: the next call tries again.
        if let Some(mode) = MODES.lock().unwrap().get_mut(session.id()) {
            *mode = had;
        }
    }
    sent
}

/// Answers `session`'s paused requests and challenges, from now until its events end.
fn follow(session: &Session) {
    let mut events = session.events();
    let (session, id) = (session.clone(), session.id().to_string());
    tokio::spawn(async move {
        // Requests already answered once: a second challenge means the credentials were refused.
        let mut tried: HashSet<String> = HashSet::new();
        while let Some(ev) = events.recv().await {
            let request_id =
                ev.params.get("requestId").and_then(|v| v.as_str()).unwrap_or_default().to_string();
            match ev.method.as_str() {
                "Fetch.requestPaused" => {
                    let url = ev.params.pointer("/request/url").and_then(Value::as_str).unwrap_or_default();
                    let route = STATE
                        .lock()
                        .unwrap()
                        .routes
                        .iter()
                        .find(|(re, _)| re.is_match(url))
                        .map(|r| r.1.clone());
                    let headers = ev.params.pointer("/request/headers");
                    answer(&session, request_id, route.as_ref(), headers);
                }
                "Fetch.authRequired" => {
                    let origin = ev.params.pointer("/authChallenge/origin").and_then(|v| v.as_str());
                    let credentials = STATE.lock().unwrap().credentials.clone();
                    let fits =
                        credentials.filter(|c| c.origin.as_deref().is_none_or(|o| same_origin(o, origin)));
                    let response = match fits {
                        Some(c) if tried.insert(request_id.clone()) => json!({
                            "response": "ProvideCredentials", "username": c.username, "password": c.password,
                        }),
                        _ => json!({"response": "CancelAuth"}),
                    };
                    let answer = FetchContinueWithAuth { request_id, auth_challenge_response: response };
                    tokio::spawn(session.send(&answer, STEP));
                }
                _ => {}
            }
        }
        MODES.lock().unwrap().remove(&id);
    });
}

/// Answers the paused request `request_id` as `route` says (let go unchanged without one);
/// `headers`: the request's, as `Fetch.requestPaused` gives them.
fn answer(session: &Session, request_id: String, route: Option<&Route>, headers: Option<&Value>) {
    let Some(route) = route else {
        tokio::spawn(session.send(&FetchContinueRequest { request_id, ..Default::default() }, STEP));
        return;
    };
    match route.action.unwrap_or(RouteAction::Continue) {
        RouteAction::Fulfill => {
            let body = match (&route.body, &route.body_base64) {
                (Some(text), _) => base64::engine::general_purpose::STANDARD.encode(text),
                (None, Some(b64)) => b64.clone(),
                (None, None) => String::new(),
            };
            let mut response_headers: Vec<Value> = (route.headers.iter().flatten())
                .filter(|(name, _)| {
                    route.content_type.is_none() || !name.eq_ignore_ascii_case("content-type")
                })
                .map(|(name, value)| json!({"name": name, "value": value}))
                .collect();
            if let Some(kind) = &route.content_type {
                response_headers.push(json!({"name": "Content-Type", "value": kind}));
            }
            let fulfil = FetchFulfillRequest {
                request_id,
                response_code: route.status.unwrap_or(200),
                response_headers,
                body,
            };
            tokio::spawn(session.send(&fulfil, STEP));
        }
        RouteAction::Abort => {
            let error_reason = route.error.unwrap_or(AbortReason::Failed).cdp_name().to_string();
            tokio::spawn(session.send(&FetchFailRequest { request_id, error_reason }, STEP));
        }
        RouteAction::Continue => {
            // As Playwright's `route.continue({headers})`: the request's headers, less the removed
            // ones, with the route's set over them (a name in any case replaces it).
            let headers = (route.request_headers.is_some() || route.remove_headers.is_some()).then(|| {
                let dropped = |name: &str| {
                    route.remove_headers.iter().flatten().any(|r| r.eq_ignore_ascii_case(name))
                        || route
                            .request_headers
                            .iter()
                            .flatten()
                            .any(|(set, _)| set.eq_ignore_ascii_case(name))
                };
                let mut all: Vec<Value> = (headers.and_then(Value::as_object).into_iter().flatten())
                    .filter(|(name, _)| !dropped(name))
                    .map(|(name, value)| json!({"name": name, "value": value}))
                    .collect();
                all.extend(
                    route.request_headers.iter().flatten().map(|(n, v)| json!({"name": n, "value": v})),
                );
                all
            });
            let post_data =
                route.post_data.as_ref().map(|d| base64::engine::general_purpose::STANDARD.encode(d));
            let go = FetchContinueRequest { request_id, method: route.method.clone(), post_data, headers };
            tokio::spawn(session.send(&go, STEP));
        }
    }
}

/// Whether the credentials' `origin` is the challenge's, as URLs' origins compare (scheme, host and
/// port; a default port given or left out alike, the host's case folded: the `url` crate's
/// `Url::origin`).
fn same_origin(origin: &str, challenged: Option<&str>) -> bool {
    let of = |o: &str| url::Url::parse(o).ok().map(|u| u.origin()).filter(url::Origin::is_tuple);
    match (of(origin), challenged.and_then(of)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_matches_with_or_without_its_default_port() {
        assert!(same_origin("https://example.com", Some("https://example.com:443")));
        assert!(same_origin("http://Example.com:80/", Some("http://example.com")));
        assert!(same_origin("http://127.0.0.1:8080", Some("http://127.0.0.1:8080")));
        assert!(!same_origin("http://127.0.0.1:8080", Some("http://127.0.0.1:8081")));
        assert!(!same_origin("https://example.com", Some("http://example.com")));
        assert!(!same_origin("https://example.com", None));
    }
}
