//! The URL guard: the URL policy and what the connection gate ([`crate::gate::proxy`]) learned lately.
//!
//! The policy holds on every connection the browser opens, not just on the URLs an agent asks for:
//! every one goes through the connection gate, which asks [`Guard::connect_to`] first (a tunnel for
//! `https`, `wss` and `ws`; each plain `http` request): a page's own navigations and its popups', each
//! hop of a redirect, subframes in or out of process, subresources, workers' fetches, WebSockets.
//! `page.goto` and `tabs.open` check their URL before they load it ([`Guard::allows`]).
//!
//! Through a proxy the browser only learns that the gate refused or could not connect
//! (`net::ERR_TUNNEL_CONNECTION_FAILED`, `net::ERR_EMPTY_RESPONSE`); the guard remembers why, by host
//! and port, for a minute, so that a navigation that failed there answers as it would have without a
//! proxy: `url_blocked` naming the rule, or Chromium's own error for the real cause
//! ([`Guard::gate_said`]).
//!
//! Schemes that are not fetched over the network (`chrome:`, `file:`, `data:`, `javascript:`) never
//! reach the gate; a page cannot navigate to the first two nor open a `data:` top-level document
//! (Chromium refuses it), and `page.goto` / `tabs.open` check every URL before they load it.
//!
//! Pausing every request at the browser (`Fetch.enable`) and deciding it here costs 0.75 ms a request
//! and 1.7x a page load of 100 images (measured on the local browser); the gate decides once per
//! connection. A browser elsewhere (`[browser] cdp_url`) opens its connections
//! from its own machine, where no gate of ours sits: for it, and only for it, every request is paused
//! at the browser again and decided here ([`Guard::intercept`]), a refusal remembered as the gate's.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sb_protocol::Budget;

use crate::gate::policy::{Names, Policy};

/// How long what the gate said of a host and port is remembered for the navigation it may explain.
const REMEMBER: Duration = Duration::from_secs(60);

/// A host (lowercased, an IPv6 address without its brackets) and a port: where the gate connects.
pub type HostPort = (String, u16);

/// What Chromium says of a request the URL policy refused or the gate could not connect: through the
/// connection gate (a proxy) `net::ERR_TUNNEL_CONNECTION_FAILED` or `net::ERR_EMPTY_RESPONSE`; a
/// remote browser's interception `net::ERR_BLOCKED_BY_CLIENT`. What the gate said of the URL
/// ([`Guard::gate_said`]) tells which it was.
pub const GATE_ERRORS: [&str; 3] =
    ["net::ERR_TUNNEL_CONNECTION_FAILED", "net::ERR_EMPTY_RESPONSE", "net::ERR_BLOCKED_BY_CLIENT"];

/// What the connection gate said of a host and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateSaid {
    /// Refused by the policy: the rule.
    Refused(String),
    /// Could not connect: Chromium's name for why (`net::ERR_CONNECTION_REFUSED`, ...).
    Unreachable(&'static str),
}

/// The guard of one runtime: its policy, the names it resolved, what the gate said lately.
pub struct Guard {
    policy: Policy,
    evaluate_enabled: bool,
    names: Names,
    /// `(host, port)` -> what the gate said of it last, when: through a proxy the browser only sees
    /// that the proxy failed, and a navigation's error names the real cause from here.
    said: Mutex<HashMap<HostPort, (GateSaid, Instant)>>,
}

impl Guard {
    /// A guard for `policy` (`evaluate_enabled` as configured), resolving names as the browser's
    /// `browser_flags` say (`--host-resolver-rules`).
    pub fn new(policy: Policy, evaluate_enabled: bool, browser_flags: &[String]) -> Guard {
        Guard {
            policy,
            evaluate_enabled,
            names: Names::with_flags(browser_flags),
            said: Mutex::new(HashMap::new()),
        }
    }

    /// The policy's check of `url` within `budget`, sharing the guard's resolved names (`page.goto`,
    /// `tabs.open`).
    ///
    /// # Errors
    /// The rule that refuses it.
    pub async fn allows(&self, url: &str, budget: Budget) -> Result<(), crate::gate::policy::Blocked> {
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
    ) -> Result<Vec<std::net::IpAddr>, crate::gate::policy::Blocked> {
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

    /// The connection gate refused `place` or could not connect there.
    pub fn gate_says(&self, place: HostPort, said: GateSaid) {
        let mut map = self.said.lock().unwrap();
        map.retain(|_, (_, at)| at.elapsed() < REMEMBER);
        map.insert(place, (said, Instant::now()));
    }

    /// Holds the policy on every request of the browser on `link` (a browser elsewhere, which the
    /// connection gate does not front): request interception at the browser level (`Fetch.enable`
    /// on the supervisor's route, no session: every target of every context pauses), each paused
    /// request checked in a task of its own ([`Guard::allows`], [`crate::gate::policy::RESOLVE`] at most)
    /// and let go, or failed as `BlockedByClient` (the page sees `net::ERR_BLOCKED_BY_CLIENT`),
    /// logged `url_blocked` and remembered as the gate's refusal of that host and port.
    ///
    /// # Errors
    /// When the browser refuses `Fetch.enable` (the caller must not use it then).
    pub async fn intercept(
        self: &std::sync::Arc<Self>,
        link: &crate::lifecycle::link::Link,
    ) -> Result<(), sb_cdp::CdpError> {
        use sb_cdp::commands::{FetchContinueRequest, FetchEnable, FetchFailRequest};
        let mut events = link.client.browser_events();
        let every = FetchEnable {
            patterns: vec![serde_json::json!({"urlPattern": "*", "requestStage": "Request"})],
            handle_auth_requests: false,
        };
        link.client.run(&every, crate::lifecycle::browser::HANDSHAKE_TIMEOUT).await?;
        let (this, client) = (std::sync::Arc::downgrade(self), link.client.clone());
        tokio::spawn(async move {
            while let Some(ev) = events.recv().await {
                if ev.method != "Fetch.requestPaused" {
                    continue;
                }
                let Some(guard) = this.upgrade() else { return };
                let id = ev.params.get("requestId").and_then(|v| v.as_str()).unwrap_or_default().to_string();
                let url = ev
                    .params
                    .pointer("/request/url")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_string();
                let client = client.clone();
                tokio::spawn(async move {
                    let answer = Duration::from_secs(2);
                    match guard.allows(&url, Budget::new(crate::gate::policy::RESOLVE)).await {
                        Ok(()) => {
                            let _ = client
                                .run(&FetchContinueRequest { request_id: id, ..Default::default() }, answer)
                                .await;
                        }
                        Err(blocked) => {
                            let shown = sb_protocol::redact::in_url(&url);
                            tracing::warn!(url = %shown, rule = %blocked.rule, "url_blocked");
                            if let Some(place) = host_port(&url) {
                                guard.gate_says(place, GateSaid::Refused(blocked.rule));
                            }
                            let fail =
                                FetchFailRequest { request_id: id, error_reason: "BlockedByClient".into() };
                            let _ = client.run(&fail, answer).await;
                        }
                    }
                });
            }
        });
        Ok(())
    }

    /// What the gate said lately of `url`'s host and port (within the last minute).
    pub fn gate_said(&self, url: &str) -> Option<GateSaid> {
        let key = host_port(url)?;
        let said = self.said.lock().unwrap();
        said.get(&key).filter(|(_, at)| at.elapsed() < REMEMBER).map(|(s, _)| s.clone())
    }
}

/// `url`'s host (lowercase, no brackets) and port.
fn host_port(url: &str) -> Option<HostPort> {
    let parsed = url::Url::parse(url).ok()?;
    Some((parsed.host_str()?.trim_matches(['[', ']']).to_ascii_lowercase(), parsed.port_or_known_default()?))
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
