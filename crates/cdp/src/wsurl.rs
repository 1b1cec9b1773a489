//! `webSocketDebuggerUrl` normalization.

use base64::Engine;
use std::net::IpAddr;
use url::{Host, Url};

use crate::CdpError;

fn parse(s: &str) -> Result<Url, CdpError> {
    Url::parse(s).map_err(|e| CdpError::Url { url: s.to_string(), reason: e.to_string() })
}

/// Loopback in the sense that a ws URL with this host only works from the browser's own machine.
fn is_local_host(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => ip.is_loopback() || ip.is_unspecified(),
        Some(Host::Ipv6(ip)) => ip.is_loopback() || ip.is_unspecified(),
        None => false,
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// Makes a `webSocketDebuggerUrl` usable from where the caller reached the CDP endpoint `cdp_url`.
///
/// Rules, in order:
/// 1. A loopback (`127.0.0.0/8`, `::1`, `localhost`), `0.0.0.0` or `[::]` host in `ws_url` is replaced
///    by `cdp_url`'s host and port when `cdp_url` itself is not loopback, or speaks TLS (the browser
///    reports its own view of the address; behind a proxy or port-forward that view is wrong, and a
///    TLS endpoint is never Chromium itself, which has no TLS).
/// 2. `ws:` becomes `wss:` when `cdp_url` is `https:` (or `wss:`).
/// 3. `cdp_url`'s userinfo is copied when `ws_url` has none.
/// 4. Query parameters of `cdp_url` that `ws_url` lacks (by name) are appended (tokens of hosted
///    browsers travel this way).
///
/// # Errors
/// [`CdpError::Url`] when either URL does not parse or the host cannot be set.
pub fn normalize_ws_url(ws_url: &str, cdp_url: &str) -> Result<Url, CdpError> {
    let mut ws = parse(ws_url)?;
    let cdp = parse(cdp_url)?;
    let bad = |reason: &str| CdpError::Url { url: ws_url.to_string(), reason: reason.to_string() };

    let tls = matches!(cdp.scheme(), "https" | "wss");
    if is_local_host(&ws) && (!is_loopback(&cdp) || tls) {
        let host = cdp.host_str().ok_or_else(|| bad("cdp URL has no host"))?;
        ws.set_host(Some(host)).map_err(|e| bad(&e.to_string()))?;
        ws.set_port(cdp.port()).map_err(|_| bad("cannot set port"))?;
    }
    if matches!(cdp.scheme(), "https" | "wss") && ws.scheme() == "ws" {
        ws.set_scheme("wss").map_err(|_| bad("cannot set scheme"))?;
    }
    if ws.username().is_empty() && ws.password().is_none() && !cdp.username().is_empty() {
        ws.set_username(cdp.username()).map_err(|_| bad("cannot set username"))?;
        ws.set_password(cdp.password()).map_err(|_| bad("cannot set password"))?;
    }
    let have: Vec<String> = ws.query_pairs().map(|(k, _)| k.into_owned()).collect();
    let missing: Vec<(String, String)> = cdp
        .query_pairs()
        .filter(|(k, _)| !have.iter().any(|h| h == k))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if !missing.is_empty() {
        let mut pairs = ws.query_pairs_mut();
        for (k, v) in &missing {
            pairs.append_pair(k, v);
        }
    }
    Ok(ws)
}

/// `Authorization: Basic ...` for a URL's userinfo (percent-decoded), when it has any.
pub fn basic_auth_header(url: &Url) -> Option<String> {
    if url.username().is_empty() && url.password().is_none() {
        return None;
    }
    let decode = |s: &str| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned();
    let user = decode(url.username());
    let pass = url.password().map(decode).unwrap_or_default();
    Some(format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(ws: &str, cdp: &str) -> String {
        normalize_ws_url(ws, cdp).unwrap().to_string()
    }

    #[test]
    fn loopback_host_is_replaced_by_a_remote_cdp_host_and_port() {
        assert_eq!(
            norm("ws://127.0.0.1:9222/devtools/browser/x", "http://10.1.2.3:9333"),
            "ws://10.1.2.3:9333/devtools/browser/x"
        );
        assert_eq!(
            norm("ws://localhost:9222/devtools/browser/x", "http://browser.internal:80"),
            "ws://browser.internal/devtools/browser/x"
        );
        assert_eq!(
            norm("ws://0.0.0.0:9222/devtools/browser/x", "http://example.net:9000"),
            "ws://example.net:9000/devtools/browser/x"
        );
        assert_eq!(
            norm("ws://[::]:9222/devtools/browser/x", "http://example.net:9000"),
            "ws://example.net:9000/devtools/browser/x"
        );
    }

    #[test]
    fn loopback_host_stays_when_cdp_url_is_loopback_too() {
        assert_eq!(
            norm("ws://127.0.0.1:40001/devtools/browser/x", "http://127.0.0.1:9222"),
            "ws://127.0.0.1:40001/devtools/browser/x"
        );
        assert_eq!(
            norm("ws://0.0.0.0:40001/devtools/browser/x", "http://localhost:9222"),
            "ws://0.0.0.0:40001/devtools/browser/x"
        );
    }

    #[test]
    fn a_tls_endpoint_on_loopback_is_a_proxy_whose_address_the_ws_url_takes() {
        assert_eq!(
            norm("ws://127.0.0.1:40001/devtools/browser/x", "https://u:p@127.0.0.1:9443"),
            "wss://u:p@127.0.0.1:9443/devtools/browser/x"
        );
    }

    #[test]
    fn non_loopback_ws_host_is_kept() {
        assert_eq!(
            norm("ws://10.0.0.5:9222/devtools/browser/x", "http://example.net:9000"),
            "ws://10.0.0.5:9222/devtools/browser/x"
        );
    }

    #[test]
    fn https_cdp_url_makes_wss() {
        assert_eq!(
            norm("ws://127.0.0.1:9222/devtools/browser/x", "https://cdp.example.com"),
            "wss://cdp.example.com/devtools/browser/x"
        );
        assert_eq!(
            norm("ws://cdp.example.com/devtools/browser/x", "https://cdp.example.com"),
            "wss://cdp.example.com/devtools/browser/x"
        );
    }

    #[test]
    fn userinfo_is_copied_when_absent() {
        assert_eq!(
            norm("ws://127.0.0.1:9222/d", "http://user:p%40ss@example.net:9000"),
            "ws://user:p%40ss@example.net:9000/d"
        );
        assert_eq!(
            norm("ws://me:mine@example.org/d", "http://user:pass@example.net"),
            "ws://me:mine@example.org/d"
        );
    }

    #[test]
    fn missing_query_parameters_are_appended() {
        assert_eq!(
            norm("ws://example.org/d?token=a", "http://example.org?token=b&region=eu"),
            "ws://example.org/d?token=a&region=eu"
        );
        assert_eq!(
            norm("ws://example.org/d", "http://example.org/?apiKey=k%20v"),
            "ws://example.org/d?apiKey=k+v"
        );
    }

    #[test]
    fn userinfo_becomes_basic_auth() {
        let url = Url::parse("ws://user:p%40ss@example.net/d").unwrap();
        // base64("user:p@ss")
        assert_eq!(basic_auth_header(&url).as_deref(), Some("Basic dXNlcjpwQHNz"));
        assert_eq!(basic_auth_header(&Url::parse("ws://example.net/d").unwrap()), None);
    }

    #[test]
    fn bad_urls_are_errors() {
        assert!(matches!(normalize_ws_url("not a url", "http://x"), Err(CdpError::Url { .. })));
    }
}
