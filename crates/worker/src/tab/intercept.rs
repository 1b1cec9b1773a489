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
//! Whoever holds a page's CDP session answers its requests: the worker for the tabs it drives, the
//! supervisor for a popup it holds before a worker takes it over (`start_held_page`), so a popup's
//! first request is routed too, as a Playwright context's routes hold in its popups. What each CDP
//! session intercepts is kept by its id in this process ([`Rules`]): the supervisor holds popups of
//! many sessions at once. When a worker takes a held popup over, nothing is lost between the two:
//! the worker follows the session before it is its ([`follow_before_taking`]), and the supervisor
//! still answers the requests it was told of before (the relay lets it:
//! `sb_cdp::relay::FETCH_ANSWERS`).

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use base64::Engine as _;
use sb_cdp::commands::{
    FetchContinueRequest, FetchContinueWithAuth, FetchDisable, FetchEnable, FetchFailRequest,
    FetchFulfillRequest,
};
use sb_cdp::{CdpError, Session};
use sb_protocol::api::{AbortReason, HttpCredentials, Route, RouteAction};
use serde_json::{json, Value};

/// What each CDP session followed here intercepts now, by its id; an entry stays while the session's
/// events are followed (the follower removes it).
static FOLLOWED: LazyLock<Mutex<HashMap<String, Followed>>> = LazyLock::new(Mutex::default);

/// The rules [`set`] was given last in this process.
static LATEST: LazyLock<Mutex<Arc<Rules>>> = LazyLock::new(Mutex::default);

/// The longest a `Fetch` answer may take.
const STEP: Duration = Duration::from_millis(2_000);

/// What a session's pages intercept for: its credentials and routes (`Emulation`'s
/// `http_credentials` and `routes`), shared by every page they are set on.
#[derive(Default)]
pub(crate) struct Rules {
    credentials: Option<HttpCredentials>,
    /// Newest first, each with its compiled URL pattern.
    routes: Vec<(regex_lite::Regex, Route)>,
}

impl Rules {
    /// The rules of `credentials` and `routes` (newest first). The supervisor refused a pattern that
    /// does not compile; one that would is left out here.
    pub(crate) fn new(credentials: Option<HttpCredentials>, routes: &[Route]) -> Arc<Rules> {
        let routes = (routes.iter())
            .filter_map(|r| Some((sb_protocol::pattern::url_pattern(&r.url).ok()?, r.clone())))
            .collect();
        Arc::new(Rules { credentials, routes })
    }

    /// What a page under these rules intercepts: `Some(handle_auth)` with a route or credentials.
    fn mode(&self) -> Mode {
        (self.credentials.is_some() || !self.routes.is_empty()).then_some(self.credentials.is_some())
    }
}

/// One CDP session followed here: its rules, and what `Fetch` is set to on it.
struct Followed {
    rules: Arc<Rules>,
    mode: Mode,
}

/// What one CDP session intercepts: `Some(handle_auth)` while `Fetch` is on.
type Mode = Option<bool>;

/// Brings the page (or out-of-process iframe) of `session` to `rules`: `Fetch` on with a route or
/// credentials (answering auth challenges with credentials), off with neither; its follower started
/// once. The call goes out now, in order with the session's others (a held page's
/// `Runtime.runIfWaitingForDebugger` sent after it runs the page with its first request paused);
/// the future is its answer. A call that changes nothing sends nothing.
///
/// # Errors
/// `Fetch.enable` / `Fetch.disable` refused or not answered.
pub(crate) fn set(
    session: &Session,
    rules: Arc<Rules>,
    timeout: Duration,
) -> Pin<Box<dyn Future<Output = Result<(), CdpError>> + Send>> {
    let want = rules.mode();
    *LATEST.lock().unwrap() = rules.clone();
    let had = {
        let mut followed = FOLLOWED.lock().unwrap();
        if want.is_none() && !followed.contains_key(session.id()) {
            return Box::pin(std::future::ready(Ok(())));
        }
        let f = followed.entry(session.id().to_string()).or_insert_with(|| {
            follow(session);
            Followed { rules: Arc::default(), mode: None }
        });
        f.rules = rules;
        std::mem::replace(&mut f.mode, want)
    };
    if want == had {
        return Box::pin(std::future::ready(Ok(())));
    }
    let sent: Pin<Box<dyn Future<Output = Result<(), CdpError>> + Send>> = match want {
        Some(handle_auth_requests) => {
            let every = FetchEnable { patterns: vec![json!({"urlPattern": "*"})], handle_auth_requests };
            let sent = session.send(&every, timeout);
            Box::pin(async move { sent.await.map(|_| ()) })
        }
        None => {
            let sent = session.send(&FetchDisable {}, timeout);
            Box::pin(async move { sent.await.map(|_| ()) })
        }
    };
    let id = session.id().to_string();
    Box::pin(async move {
        let sent = sent.await;
        if sent.is_err() {
            // Not changed after all: the next call tries again.
            if let Some(f) = FOLLOWED.lock().unwrap().get_mut(&id) {
                f.mode = had;
            }
        }
        sent
    })
}

/// Brings `child` (an out-of-process iframe, held as it attaches) to the rules set last in this
/// process ([`set`]): in the worker, which drives one session, that session's, also before the
/// page the frame is in has its own (a page's iframes attach as the page is set up).
///
/// # Errors
/// As [`set`].
pub(crate) async fn set_latest(child: &Session, timeout: Duration) -> Result<(), CdpError> {
    let rules = LATEST.lock().unwrap().clone();
    set(child, rules, timeout).await
}

/// Follows `held`, a page's session the supervisor intercepted for while it held the page, before
/// this process takes it over (`Relay.adoptSession`): a request it pauses from then on is answered
/// here, by the rules set last ([`set_latest`]), though the page's own [`set`] comes later (an event
/// for a session nobody here follows yet is dropped, and its request would hang). Nothing while
/// this process intercepts nothing.
pub(crate) fn follow_before_taking(held: &Session) {
    let rules = LATEST.lock().unwrap().clone();
    if rules.mode().is_none() {
        return;
    }
    let mut followed = FOLLOWED.lock().unwrap();
    followed.entry(held.id().to_string()).or_insert_with(|| {
        follow(held);
        // `Fetch` as this process has not set it: the page's own `set` sends it again.
        Followed { rules, mode: None }
    });
}

/// The rules session `id` is followed with now (none: nothing).
fn rules_of(id: &str) -> Arc<Rules> {
    FOLLOWED.lock().unwrap().get(id).map(|f| f.rules.clone()).unwrap_or_default()
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
                    let rules = rules_of(&id);
                    let route = rules.routes.iter().find(|(re, _)| re.is_match(url)).map(|r| &r.1);
                    let headers = ev.params.pointer("/request/headers");
                    answer(&session, request_id, route, headers);
                }
                "Fetch.authRequired" => {
                    let origin = ev.params.pointer("/authChallenge/origin").and_then(|v| v.as_str());
                    let rules = rules_of(&id);
                    let fits = (rules.credentials.as_ref())
                        .filter(|c| c.origin.as_deref().is_none_or(|o| same_origin(o, origin)));
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
        FOLLOWED.lock().unwrap().remove(&id);
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
