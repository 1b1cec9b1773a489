//! HTTP authentication for a session's pages (`http_credentials`), as Playwright's
//! `crNetworkManager.ts` does it: with credentials set, each page's requests go through request
//! interception (`Fetch.enable {handleAuthRequests: true}`), every paused request is let go at once
//! (`Fetch.continueRequest`), and a server's challenge (`Fetch.authRequired`) is answered with the
//! credentials, once a request (`ProvideCredentials`; a second challenge of the same request: the
//! credentials were wrong, `CancelAuth`, and the page gets the server's 401). A challenge for another
//! origin than the credentials name, or with none set, is cancelled the same way, so that a 401 page
//! is what the page shows on every browser (full Chromium answers `net::ERR_INVALID_AUTH_CREDENTIALS`
//! by itself).
//!
//! Only the worker answers (one worker drives one session, so the session's credentials are this
//! process's): a page the supervisor holds before a worker takes it over (a popup) is not
//! intercepted, since nobody would let its requests go.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use sb_cdp::commands::{FetchContinueRequest, FetchContinueWithAuth, FetchDisable, FetchEnable};
use sb_cdp::{CdpError, Session};
use sb_protocol::api::HttpCredentials;
use serde_json::json;

/// Whether this process answers `Fetch` events (the worker sets it as it starts; the supervisor,
/// which shares the emulation code for the pages it holds, does not).
static ANSWERS: AtomicBool = AtomicBool::new(false);
/// The session's credentials now.
static CREDENTIALS: Mutex<Option<HttpCredentials>> = Mutex::new(None);
/// The CDP sessions already followed (one follower a session).
static FOLLOWED: LazyLock<Mutex<HashSet<String>>> = LazyLock::new(Mutex::default);

/// The longest a `Fetch` answer may take.
const STEP: Duration = Duration::from_millis(2_000);

/// This process answers the `Fetch` events of the pages it intercepts (the worker, at its start).
pub(crate) fn answer_here() {
    ANSWERS.store(true, Ordering::Relaxed);
}

/// Takes the page of `session` from credentials `before` to `now` (the session's): interception on
/// when they are set, off when they are cleared, its follower started once; nothing in a process that
/// does not answer ([`answer_here`]).
///
/// # Errors
/// `Fetch.enable` / `Fetch.disable` refused or not answered.
pub(crate) async fn set(
    session: &Session,
    before: Option<&HttpCredentials>,
    now: Option<&HttpCredentials>,
    timeout: Duration,
) -> Result<(), CdpError> {
    if !ANSWERS.load(Ordering::Relaxed) {
        return Ok(());
    }
    *CREDENTIALS.lock().unwrap() = now.cloned();
    match (before.is_some(), now.is_some()) {
        (false, true) => {
            follow(session);
            let every =
                FetchEnable { patterns: vec![json!({"urlPattern": "*"})], handle_auth_requests: true };
            session.send(&every, timeout).await.map(|_| ())
        }
        (true, false) => session.send(&FetchDisable {}, timeout).await.map(|_| ()),
        _ => Ok(()),
    }
}

/// Answers `session`'s paused requests and challenges, from now until its events end.
fn follow(session: &Session) {
    if !FOLLOWED.lock().unwrap().insert(session.id().to_string()) {
        return;
    }
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
                    tokio::spawn(session.send(&FetchContinueRequest { request_id }, STEP));
                }
                "Fetch.authRequired" => {
                    let origin = ev.params.pointer("/authChallenge/origin").and_then(|v| v.as_str());
                    let credentials = CREDENTIALS.lock().unwrap().clone();
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
        FOLLOWED.lock().unwrap().remove(&id);
    });
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
