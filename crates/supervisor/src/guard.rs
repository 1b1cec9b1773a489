//! The navigation guard: the URL policy on every request any page makes, not just on the URLs an agent
//! asks for.
//!
//! On each browser the supervisor enables request interception at the browser level
//! (`Fetch.enable {patterns: [{urlPattern: "*"}]}` on its own route, no `sessionId`): Chromium then
//! pauses every request of every target of every browser context (`Fetch.requestPaused`): a page's
//! own navigations and its popups' (whatever window they open in), each hop of a redirect, subframes
//! in or out of process, subresources, workers' fetches. Each is checked against the policy
//! ([`Policy::allows`], a name resolved through [`Names`]) and let go (`Fetch.continueRequest`) or
//! failed (`Fetch.failRequest {errorReason: "BlockedByClient"}`: the page sees
//! `net::ERR_BLOCKED_BY_CLIENT`). A refusal is logged (`url_blocked`, the URL without its credentials,
//! the rule) and remembered by frame, so that a `page.goto` whose navigation was refused on the way
//! (a redirect to a blocked address) answers `url_blocked` naming the rule.
//!
//! Schemes that are not fetched over the network (`chrome:`, `file:`, `data:`, `javascript:`) never
//! reach the guard; a page cannot navigate to the first two nor open a `data:` top-level document
//! (Chromium refuses it), and `page.goto` / `tabs.open` check every URL before they load it.
//!
//! Each check runs in a task of its own with a bounded time, so a page that floods requests or a slow
//! resolver never holds up the supervisor; a request whose check cannot finish in time is refused.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sb_protocol::Budget;

use sb_cdp::commands::{FetchContinueRequest, FetchEnable, FetchFailRequest, RequestPattern};
use sb_cdp::types::RequestPaused;

use crate::link::Link;
use crate::policy::{Names, Policy, RESOLVE};

/// Longest `Fetch.continueRequest` / `Fetch.failRequest` may take.
const ANSWER: Duration = Duration::from_millis(2_000);
/// How long a refusal is remembered for the `page.goto` it may explain.
const REMEMBER: Duration = Duration::from_secs(60);

/// A lowercased host and a port.
type HostPort = (String, u16);

/// The guard of one runtime: its policy, the names it resolved, the refusals and failed connections
/// it remembers.
pub struct Guard {
    policy: Policy,
    evaluate_enabled: bool,
    names: Names,
    /// `frameId` -> the refused URL (redacted), its rule, when.
    refused: Mutex<HashMap<String, (String, String, Instant)>>,
    /// `(host, port)` -> why the connection gate could not connect there (Chromium's name for it,
    /// `net::ERR_CONNECTION_REFUSED`), when: through a proxy the browser only sees that the proxy
    /// failed, and a navigation's error names the real cause from here.
    failed: Mutex<HashMap<HostPort, (&'static str, Instant)>>,
}

impl Guard {
    /// A guard for `policy` (`evaluate_enabled` as configured), resolving names as the browser's
    /// `browser_flags` say (`--host-resolver-rules`).
    pub fn new(policy: Policy, evaluate_enabled: bool, browser_flags: &[String]) -> Guard {
        Guard {
            policy,
            evaluate_enabled,
            names: Names::with_flags(browser_flags),
            refused: Mutex::new(HashMap::new()),
            failed: Mutex::new(HashMap::new()),
        }
    }

    /// The policy's check of `url` within `budget`, sharing the guard's resolved names (`page.goto`,
    /// `tabs.open`).
    ///
    /// # Errors
    /// The rule that refuses it.
    pub async fn allows(&self, url: &str, budget: Budget) -> Result<(), crate::policy::Blocked> {
        self.policy.allows(url, self.evaluate_enabled, &self.names, budget).await
    }

    /// Where a connection the browser asks the connection gate for (`CONNECT host:port`, which may
    /// carry `https` or a WebSocket, `ws` or `wss`; or a plain `http` request) may go: the checked
    /// addresses of `host` ([`Policy::checked`]). For a tunnel the scheme is not known, so the host and
    /// port are checked as both `http` and `https`: refused when either is refused by
    /// `blocked_origins` or a network rule, let through when either is in `allowed_origins`.
    ///
    /// # Errors
    /// The rule that refuses it.
    pub async fn connect_to(
        &self,
        scheme: Option<&str>,
        host: &str,
        port: u16,
        budget: Budget,
    ) -> Result<Vec<std::net::IpAddr>, crate::policy::Blocked> {
        let host =
            if host.contains(':') && !host.starts_with('[') { format!("[{host}]") } else { host.into() };
        let check = |scheme: &str| {
            let url = format!("{scheme}://{host}:{port}/");
            async move { self.policy.checked(&url, self.evaluate_enabled, &self.names, budget).await }
        };
        if let Some(scheme) = scheme {
            return check(scheme).await;
        }
        // Only an allowlist miss is answered by the other scheme; every other refusal stands.
        match (check("https").await, check("http").await) {
            (Ok(a), Ok(_)) => Ok(a),
            (Ok(a), Err(e)) | (Err(e), Ok(a)) if e.not_listed => Ok(a),
            // Both refused: the rule that refuses outright is the one to name.
            (Err(https), Err(http)) => Err(if https.not_listed { http } else { https }),
            (Err(e), _) | (_, Err(e)) => Err(e),
        }
    }

    /// Intercepts every request of the browser on `link` from now on (until it closes).
    ///
    /// # Errors
    /// When the browser refuses `Fetch.enable` (then nothing is intercepted; the caller logs it).
    pub async fn watch(self: &Arc<Self>, link: &Link) -> Result<(), sb_cdp::CdpError> {
        let mut events = link.client.browser_events();
        let every = RequestPattern { url_pattern: "*".into(), request_stage: "Request".into() };
        link.client.run(&FetchEnable { patterns: vec![every] }, crate::browser::HANDSHAKE_TIMEOUT).await?;
        let (this, client) = (Arc::downgrade(self), link.client.clone());
        tokio::spawn(async move {
            while let Some(ev) = events.recv().await {
                if ev.method != "Fetch.requestPaused" {
                    continue;
                }
                let Some(guard) = this.upgrade() else { return };
                let Some(paused) = ev.parse::<RequestPaused>() else { continue };
                let client = client.clone();
                tokio::spawn(async move { guard.decide(&client, paused).await });
            }
        });
        Ok(())
    }

    /// Checks one paused request and lets it go or fails it.
    async fn decide(&self, client: &sb_cdp::CdpClient, paused: RequestPaused) {
        let (request_id, url) = (paused.request_id.as_str(), paused.request.url.as_str());
        let verdict = self.allows(url, Budget::new(RESOLVE)).await;
        let answer = match verdict {
            Ok(()) => client.run(&FetchContinueRequest { request_id: request_id.to_string() }, ANSWER).await,
            Err(blocked) => {
                let shown = sb_protocol::redact::in_url(url);
                let kind = paused.resource_type.as_str();
                tracing::warn!(url = %shown, rule = %blocked.rule, resource_type = kind, "url_blocked");
                if let Some(frame) = paused.frame_id.as_deref() {
                    let mut refused = self.refused.lock().unwrap();
                    refused.retain(|_, (_, _, at)| at.elapsed() < REMEMBER);
                    refused.insert(frame.to_string(), (shown.into_owned(), blocked.rule, Instant::now()));
                }
                let fail = FetchFailRequest {
                    request_id: request_id.to_string(),
                    error_reason: "BlockedByClient".into(),
                };
                client.run(&fail, ANSWER).await
            }
        };
        if let Err(e) = answer {
            tracing::debug!(error.message = %e, "paused_request_not_answered");
        }
    }

    /// The URL (redacted) and rule of the last request refused in frame `frame_id` (a page's main
    /// frame has its target's id) within the last minute; taken once.
    pub fn refusal(&self, frame_id: &str) -> Option<(String, String)> {
        let (url, rule, at) = self.refused.lock().unwrap().remove(frame_id)?;
        (at.elapsed() < REMEMBER).then_some((url, rule))
    }

    /// The connection gate could not connect to `host:port`: `net_error` is Chromium's name for why.
    pub fn connect_failed(&self, host: &str, port: u16, net_error: &'static str) {
        let mut failed = self.failed.lock().unwrap();
        failed.retain(|_, (_, at)| at.elapsed() < REMEMBER);
        failed.insert((host.to_ascii_lowercase(), port), (net_error, Instant::now()));
    }

    /// Why the gate could not connect to `url`'s host and port lately, as Chromium names it.
    pub fn connect_failure(&self, url: &str) -> Option<&'static str> {
        let parsed = url::Url::parse(url).ok()?;
        let key = (
            parsed.host_str()?.trim_matches(['[', ']']).to_ascii_lowercase(),
            parsed.port_or_known_default()?,
        );
        let failed = self.failed.lock().unwrap();
        failed.get(&key).filter(|(_, at)| at.elapsed() < REMEMBER).map(|(e, _)| *e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tunnel's scheme is unknown: listed under either scheme in `allowed_origins` lets it through,
    /// while `blocked_origins` under either scheme, or a blocked network, refuses it.
    #[tokio::test]
    async fn a_tunnel_is_checked_as_both_schemes() {
        let policy = Policy {
            allowed_origins: vec!["https://127.0.0.1:8443".into(), "http://127.0.0.1:9".into()],
            blocked_origins: vec!["http://127.0.0.1:9".into()],
            ..Policy::default()
        };
        let guard = Guard::new(policy, false, &[]);
        let budget = || Budget::new(Duration::from_secs(1));
        let ok = guard.connect_to(None, "127.0.0.1", 8443, budget()).await.unwrap();
        assert_eq!(ok, [std::net::IpAddr::from([127, 0, 0, 1])]);
        let refused = guard.connect_to(None, "127.0.0.1", 9, budget()).await.unwrap_err();
        assert!(refused.rule.contains("blocked_origins") && !refused.not_listed, "{refused:?}");
        let unlisted = guard.connect_to(None, "127.0.0.1", 80, budget()).await.unwrap_err();
        assert!(unlisted.not_listed, "{unlisted:?}");
        assert!(guard.connect_to(None, "169.254.169.254", 443, budget()).await.is_err());
    }
}
