//! The URL policy (`[policy]`): which URLs the runtime loads for an agent, checked before
//! `page.goto` and `tabs.open` navigate and on every request a page makes (the `guard`; OpenClaw's
//! navigation guard and Playwright MCP's `--allowed-origins`/`--blocked-origins` are the
//! references).
//!
//! In order, a URL is refused ([`Blocked`], answered `url_blocked` naming the rule) when:
//! 1. its scheme is not allowed (default `http`, `https`, and `about:blank`); `javascript:` is never
//!    allowed while `evaluate_enabled` is false, nor `data:` unless listed;
//! 2. `blocked_origins` matches it, or `allowed_origins` is set and does not;
//! 3. its host, an IP literal in any notation (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`, and an IPv6
//!    address carrying an IPv4 one: NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, `::a.b.c.d`, each checked
//!    as both) or a name resolved now (every address it resolves to; `localhost` and `*.localhost` as
//!    the loopback, as Chromium resolves them itself), falls in a blocked network; a name that cannot
//!    be resolved in time is refused when the configuration blocks networks of its own
//!    (`block_loopback`, `block_private`, `blocked_networks`), since it cannot be checked.
//!
//! Networks blocked by default: link-local (169.254.0.0/16, fe80::/10, which hold the cloud metadata
//! endpoints 169.254.169.254 and fd00:ec2::254 too) and the unspecified addresses (0.0.0.0/8, ::),
//! which reach the loopback. Loopback and private ranges are allowed by default (an agent's sandbox
//! often browses a dev server beside it) and blocked with `block_loopback` / `block_private`.
//!
//! A name is resolved when it is checked and the answer kept for [`NAME_TTL`] ([`Names`]); a name
//! that resolves to nothing is not kept. The connection gate connects to the addresses the check
//! passed and to nothing else: a name that resolved to nothing is never resolved again unchecked (it
//! fails as `net::ERR_NAME_NOT_RESOLVED`), so a name whose answers change (NXDOMAIN, then
//! `169.254.169.254`: DNS rebinding) reaches only what a check saw.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ipnet::IpNet;
use sb_protocol::Budget;
use serde::Deserialize;

/// `[policy]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Policy {
    /// URL schemes that load (`about` allows `about:blank` only).
    pub allowed_schemes: Vec<String>,
    /// When not empty, only these origins load: `https://example.com` (scheme, host and port), or a
    /// host (`example.com`, `*.example.com` for its subdomains too).
    pub allowed_origins: Vec<String>,
    /// Origins that never load (same forms).
    pub blocked_origins: Vec<String>,
    /// Networks (CIDR) no URL may reach, besides the defaults.
    pub blocked_networks: Vec<String>,
    /// Refuse loopback addresses (127.0.0.0/8, ::1).
    pub block_loopback: bool,
    /// Refuse private addresses (10/8, 172.16/12, 192.168/16, fc00::/7, carrier-grade NAT 100.64/10,
    /// 198.18/15).
    pub block_private: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            allowed_schemes: vec!["http".into(), "https".into(), "about".into()],
            allowed_origins: Vec::new(),
            blocked_origins: Vec::new(),
            blocked_networks: Vec::new(),
            block_loopback: false,
            block_private: false,
        }
    }
}

/// Networks blocked whatever the configuration says.
pub const ALWAYS_BLOCKED: &[&str] =
    &["169.254.0.0/16", "fe80::/10", "fd00:ec2::254/128", "0.0.0.0/8", "::/128"];
const LOOPBACK: &[&str] = &["127.0.0.0/8", "::1/128"];
const PRIVATE: &[&str] = &[
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "fc00::/7",
    // Carrier-grade NAT (RFC 6598) and the benchmarking range (RFC 2544): not the internet either.
    "100.64.0.0/10",
    "198.18.0.0/15",
];

/// Longest a name may take to resolve.
pub const RESOLVE: Duration = Duration::from_millis(2_000);

/// How long a resolved name's addresses are reused.
pub const NAME_TTL: Duration = Duration::from_secs(10);
/// Names kept at most (the cache starts over past it).
const NAMES_KEPT: usize = 4096;

/// Names resolved lately, with their addresses: a page's hundred subresources from one host resolve
/// it once in [`NAME_TTL`].
#[derive(Default)]
pub struct Names {
    cache: Mutex<HashMap<NameAndPort, (Vec<IpAddr>, Instant)>>,
    /// The browser's own name mappings (`--host-resolver-rules` in `browser.extra_flags`), which the
    /// browser no longer applies itself once every connection goes through the connection gate.
    rules: Vec<ResolverRule>,
}

/// One rule of Chromium's `--host-resolver-rules`: `MAP <pattern> <replacement>` (the replacement's
/// port, when given, is not applied) or `EXCLUDE <pattern>`; `*` in a pattern matches any run of
/// characters; a replacement of `~NOTFOUND` makes the name unresolvable.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ResolverRule {
    pattern: String,
    /// `None`: `EXCLUDE`.
    replacement: Option<String>,
}

/// A lowercased host name and a port.
type NameAndPort = (String, u16);

impl Names {
    /// A cache that applies the `--host-resolver-rules` among `flags` (the browser's launch flags).
    pub fn with_flags(flags: &[String]) -> Names {
        let rules = flags
            .iter()
            .filter_map(|f| f.strip_prefix("--host-resolver-rules="))
            .flat_map(|rules| rules.split(','))
            .filter_map(|rule| {
                let words: Vec<&str> = rule.split_whitespace().collect();
                match words.as_slice() {
                    ["MAP", pattern, replacement] => Some(ResolverRule {
                        pattern: pattern.to_ascii_lowercase(),
                        replacement: Some(replacement.to_string()),
                    }),
                    ["EXCLUDE", pattern] => {
                        Some(ResolverRule { pattern: pattern.to_ascii_lowercase(), replacement: None })
                    }
                    _ => None,
                }
            })
            .collect();
        Names { rules, ..Names::default() }
    }

    /// What `name` maps to under the rules, as Chromium applies them: a name an `EXCLUDE` matches is
    /// itself, else the first `MAP` that matches decides.
    fn mapped<'a>(&'a self, name: &'a str) -> &'a str {
        let lower = name.to_ascii_lowercase();
        if self.rules.iter().any(|r| r.replacement.is_none() && glob_matches(&r.pattern, &lower)) {
            return name;
        }
        match self.rules.iter().find(|r| r.replacement.is_some() && glob_matches(&r.pattern, &lower)) {
            // `host:port` and `[v6]:port` replacements: the host only.
            Some(ResolverRule { replacement: Some(to), .. }) => match to.strip_prefix('[') {
                Some(v6) => v6.split(']').next().unwrap_or(v6),
                None if to.matches(':').count() == 1 => to.split(':').next().unwrap_or(to),
                None => to,
            },
            _ => name,
        }
    }

    /// The addresses `name` resolves to (port `port`), within `timeout`; none when it does not
    /// resolve in time (it cannot reach a blocked network then: the browser's own error says the
    /// rest).
    async fn resolve(&self, name: &str, port: u16, timeout: Duration) -> Vec<IpAddr> {
        let name = self.mapped(name);
        if name == "~NOTFOUND" {
            return Vec::new();
        }
        if let Ok(ip) = name.parse::<IpAddr>() {
            return vec![ip];
        }
        let key = (name.to_ascii_lowercase(), port);
        if let Some((ips, at)) = self.cache.lock().unwrap().get(&key) {
            if at.elapsed() < NAME_TTL {
                return ips.clone();
            }
        }
        match tokio::time::timeout(timeout, tokio::net::lookup_host((name, port))).await {
            Ok(Ok(found)) => {
                let ips: Vec<IpAddr> = found.map(|a| a.ip()).collect();
                let mut cache = self.cache.lock().unwrap();
                if cache.len() >= NAMES_KEPT {
                    cache.clear();
                }
                cache.insert(key, (ips.clone(), Instant::now()));
                ips
            }
            _ => Vec::new(),
        }
    }
}

/// Why a URL is refused: the rule, for the `url_blocked` message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// The rule, in words.
    pub rule: String,
    /// The only objection is that `allowed_origins` does not list the origin (the connection gate
    /// lets a tunnel through when its other scheme is listed).
    pub not_listed: bool,
}

impl Blocked {
    fn by(rule: String) -> Blocked {
        Blocked { rule, not_listed: false }
    }
}

impl Policy {
    /// Checks the configured networks parse.
    ///
    /// # Errors
    /// The first entry that is not a CIDR network.
    pub fn check(&self) -> Result<(), String> {
        for n in &self.blocked_networks {
            n.parse::<IpNet>()
                .map_err(|e| format!("policy.blocked_networks: {n:?} is not a network: {e}"))?;
        }
        Ok(())
    }

    /// Whether the configuration blocks networks beyond the defaults (loopback, private ranges, or
    /// its own list).
    fn restricts_networks(&self) -> bool {
        self.block_loopback || self.block_private || !self.blocked_networks.is_empty()
    }

    fn networks(&self) -> Vec<IpNet> {
        let mut names: Vec<&str> = ALWAYS_BLOCKED.to_vec();
        if self.block_loopback {
            names.extend(LOOPBACK);
        }
        if self.block_private {
            names.extend(PRIVATE);
        }
        names.extend(self.blocked_networks.iter().map(String::as_str));
        names.iter().filter_map(|n| n.parse().ok()).collect()
    }

    /// Whether `url` may load (see the module doc); `evaluate_enabled` as configured. A name is
    /// resolved through `names` within the request's `budget` (at most [`RESOLVE`] of it).
    ///
    /// # Errors
    /// [`Blocked`] naming the rule that refuses it.
    pub async fn allows(
        &self,
        url: &str,
        evaluate_enabled: bool,
        names: &Names,
        budget: Budget,
    ) -> Result<(), Blocked> {
        self.checked(url, evaluate_enabled, names, budget).await.map(|_| ())
    }

    /// [`Policy::allows`], and the addresses the check passed: what a connection to `url`'s host may
    /// go to (an IP literal itself, the loopback for `localhost` names, a name's resolved addresses;
    /// none for a URL that is not fetched over the network, or a name that did not resolve where no
    /// network rule applies). The connection gate ([`crate::gate::proxy`]) connects to exactly these, so
    /// the address checked is the address reached, and to none when there are none (the name is
    /// not resolved again: `net::ERR_NAME_NOT_RESOLVED`).
    ///
    /// # Errors
    /// [`Blocked`] naming the rule that refuses it.
    pub async fn checked(
        &self,
        url: &str,
        evaluate_enabled: bool,
        names: &Names,
        budget: Budget,
    ) -> Result<Vec<IpAddr>, Blocked> {
        let parsed =
            url::Url::parse(url).map_err(|e| Blocked::by(format!("{url:?} is not an absolute URL ({e})")))?;
        let scheme = parsed.scheme();
        let blocked = |rule: String| Err(Blocked::by(rule));
        if scheme == "javascript" && !evaluate_enabled {
            return blocked("javascript: URLs run the caller's script, and evaluate_enabled is false".into());
        }
        if !self.allowed_schemes.iter().any(|s| s.eq_ignore_ascii_case(scheme)) {
            return blocked(format!(
                "scheme {scheme}: is not in policy.allowed_schemes ({})",
                self.allowed_schemes.join(", ")
            ));
        }
        if scheme == "about" {
            return if parsed.path() == "blank" {
                Ok(Vec::new())
            } else {
                blocked(format!("{url} (only about:blank loads)"))
            };
        }
        if !matches!(scheme, "http" | "https") {
            return Ok(Vec::new());
        }
        if let Some(rule) = self.blocked_origins.iter().find(|o| origin_matches(o, &parsed)) {
            return blocked(format!("origin matches policy.blocked_origins entry {rule:?}"));
        }
        if !self.allowed_origins.is_empty()
            && !self.allowed_origins.iter().any(|o| origin_matches(o, &parsed))
        {
            return Err(Blocked {
                rule: format!(
                    "origin {} is not in policy.allowed_origins",
                    parsed.origin().ascii_serialization()
                ),
                not_listed: true,
            });
        }
        let networks = self.networks();
        let addresses: Vec<IpAddr> = match parsed.host() {
            Some(url::Host::Ipv4(ip)) => vec![IpAddr::V4(ip)],
            Some(url::Host::Ipv6(ip)) => vec![IpAddr::V6(ip)],
            // Chromium answers `localhost` and every `*.localhost` itself, with the loopback, without
            // asking DNS (whatever DNS would say).
            Some(url::Host::Domain(name)) if is_localhost(name) => {
                vec![IpAddr::from([127, 0, 0, 1]), IpAddr::from(std::net::Ipv6Addr::LOCALHOST)]
            }
            Some(url::Host::Domain(name)) => {
                let port = parsed.port_or_known_default().unwrap_or(80);
                let found = names.resolve(name, port, budget.capped(RESOLVE)).await;
                if found.is_empty() && self.restricts_networks() {
                    // What cannot be resolved cannot be checked against the networks the configuration
                    // blocks (the browser may resolve it a moment later): it is refused. With only the
                    // default rules it passes: the browser may resolve names the runtime cannot
                    // (`--host-resolver-rules`), and its own error says the rest.
                    return blocked(format!(
                        "{name} could not be resolved within {} ms, so whether it reaches a blocked network cannot be checked",
                        budget.capped(RESOLVE).as_millis()
                    ));
                }
                found
            }
            None => Vec::new(),
        };
        for &ip in &addresses {
            for ip in with_embedded_ipv4(ip) {
                if let Some(net) = networks.iter().find(|n| n.contains(&ip)) {
                    return blocked(format!("{ip} is in the blocked network {net}"));
                }
            }
        }
        Ok(addresses)
    }
}

/// Whether `text` matches `pattern`, where `*` matches any run of characters.
fn glob_matches(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            let Some(tail) = text.strip_prefix(head) else { return false };
            (0..=tail.len()).filter(|&i| tail.is_char_boundary(i)).any(|i| glob_matches(rest, &tail[i..]))
        }
    }
}

/// Whether Chromium resolves `name` to the loopback by itself: `localhost` and its subdomains, with or
/// without a final dot (`net::IsLocalHostname`).
fn is_localhost(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

/// `ip`, and the IPv4 address an IPv6 address carries, when it carries one: IPv4-mapped
/// (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, not `::` or `::1`), NAT64 (`64:ff9b::/96`, the
/// last 32 bits) and 6to4 (`2002::/16`, bits 16 to 48). A network's gateway turns those into the IPv4
/// address, so each is checked as that too.
fn with_embedded_ipv4(ip: IpAddr) -> Vec<IpAddr> {
    let IpAddr::V6(v6) = ip else { return vec![ip] };
    let s = v6.segments();
    let low = std::net::Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    let embedded = if let Some(v4) = v6.to_ipv4_mapped() {
        Some(v4)
    } else if (s[..6] == [0; 6] && u32::from(low) > 1) || s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        Some(low)
    } else if s[0] == 0x2002 {
        Some(std::net::Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8))
    } else {
        None
    };
    std::iter::once(ip).chain(embedded.map(IpAddr::V4)).collect()
}

/// A host as every comparison takes it: IDNA's ASCII form (`url::Host::parse`: lower case,
/// punycode), without the final dot of a fully qualified name (`localhost.` is `localhost`, which
/// Chromium loads as the same host), an IPv6 address without its brackets.
fn normal_host(host: &str) -> String {
    let host = host.trim_end_matches('.');
    match url::Host::parse(host) {
        Ok(url::Host::Domain(d)) => d,
        Ok(url::Host::Ipv4(ip)) => ip.to_string(),
        Ok(url::Host::Ipv6(ip)) => ip.to_string(),
        Err(_) => host.to_ascii_lowercase(),
    }
}

/// Whether `entry` (an origin, or a host pattern) matches `url`'s origin, their hosts compared as
/// [`normal_host`] gives them.
fn origin_matches(entry: &str, url: &url::Url) -> bool {
    let host = normal_host(url.host_str().unwrap_or_default());
    if entry.contains("://") {
        return url::Url::parse(entry).is_ok_and(|e| {
            e.scheme() == url.scheme()
                && e.port_or_known_default() == url.port_or_known_default()
                && normal_host(e.host_str().unwrap_or_default()) == host
        });
    }
    match entry.strip_prefix("*.") {
        Some(base) => {
            let base = normal_host(base);
            host == base || host.ends_with(&format!(".{base}"))
        }
        None => host == normal_host(entry),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_browsers_resolver_rules_are_the_gates_too() {
        let flags =
            ["--host-resolver-rules=MAP *.test 127.0.0.1, EXCLUDE keep.test, MAP gone.example ~NOTFOUND"
                .to_string()];
        let names = Names::with_flags(&flags);
        let t = Duration::from_secs(1);
        assert_eq!(names.resolve("a.test", 80, t).await, [IpAddr::from([127, 0, 0, 1])]);
        assert_eq!(names.resolve("deep.b.TEST", 80, t).await, [IpAddr::from([127, 0, 0, 1])]);
        assert!(names.resolve("gone.example", 80, t).await.is_empty());
        assert_eq!(names.mapped("keep.test"), "keep.test");
        assert!(glob_matches("*", "") && glob_matches("a*c*", "abxc") && !glob_matches("*.test", "test"));
    }

    /// Names a public resolver would answer, answered here without one (the machine has no DNS for
    /// the internet): an address of the web.
    fn web_names() -> Names {
        let names = Names::default();
        let web = IpAddr::from([93, 184, 215, 14]);
        for host in ["example.com", "docs.example.com", "bad.example.com", "other.org"] {
            for port in [80, 443] {
                names.cache.lock().unwrap().insert((host.into(), port), (vec![web], Instant::now()));
            }
        }
        names
    }

    async fn why(p: &Policy, url: &str) -> Option<String> {
        p.allows(url, false, &web_names(), Budget::new(Duration::from_secs(5))).await.err().map(|b| b.rule)
    }

    /// Issue 28 §3 and §4: an IPv6 address that carries an IPv4 one is checked as that too;
    /// `*.localhost` is the loopback, as Chromium resolves it itself; a name that does not resolve is
    /// refused; carrier-grade NAT and 198.18/15 are private.
    #[tokio::test]
    async fn embedded_ipv4_localhost_names_and_unresolved_names_are_checked() {
        let p = Policy::default();
        for url in [
            "http://[64:ff9b::a9fe:a9fe]/",
            "http://[2002:a9fe:a9fe::1]/",
            "http://[::169.254.169.254]/",
            "http://[::ffff:169.254.169.254]/",
        ] {
            let got = why(&p, url).await.unwrap_or_else(|| panic!("{url} loaded"));
            assert!(got.contains("169.254.169.254 is in the blocked network 169.254.0.0/16"), "{url}: {got}");
        }
        assert_eq!(why(&p, "http://[2001:db8::1]/").await, None, "an IPv6 address without an IPv4 one");
        assert_eq!(why(&p, "http://[::1]/").await, None, "::1 is the loopback, allowed by default");
        let loopback = Policy { block_loopback: true, ..Policy::default() };
        for url in ["http://evil.localhost:8080/", "http://localhost./", "http://A.B.LOCALHOST/"] {
            let got = why(&loopback, url).await.unwrap_or_else(|| panic!("{url} loaded"));
            assert!(got.contains("127.0.0.1 is in the blocked network 127.0.0.0/8"), "{url}: {got}");
        }
        let got =
            why(&loopback, "http://no-such-host.invalid/").await.expect("an unresolved name is refused");
        assert!(got.contains("could not be resolved"), "{got}");
        assert_eq!(
            why(&p, "http://no-such-host.invalid/").await,
            None,
            "with only the default rules it passes"
        );
        let private = Policy { block_private: true, ..Policy::default() };
        for url in ["http://100.64.0.1/", "http://198.18.0.1/", "http://[64:ff9b::a00:1]/"] {
            assert!(why(&private, url).await.is_some(), "{url} loaded");
        }
    }

    #[tokio::test]
    async fn a_resolved_name_is_reused_for_a_while() {
        let names = Names::default();
        let first = names.resolve("LocalHost", 80, Duration::from_secs(2)).await;
        assert!(!first.is_empty());
        let kept = names.cache.lock().unwrap().get(&("localhost".to_string(), 80)).cloned();
        assert_eq!(kept.map(|(ips, _)| ips), Some(first.clone()));
        assert_eq!(names.resolve("localhost", 80, Duration::from_secs(2)).await, first);
    }

    #[tokio::test]
    async fn schemes_origins_and_networks_are_checked() {
        let p = Policy::default();
        for ok in ["https://example.com/", "http://127.0.0.1:8080/x", "about:blank"] {
            assert_eq!(why(&p, ok).await, None, "{ok}");
        }
        for (url, says) in [
            ("file:///etc/passwd", "scheme file:"),
            ("chrome://version", "scheme chrome:"),
            ("view-source:http://example.com", "scheme view-source:"),
            ("javascript:alert(1)", "evaluate_enabled is false"),
            ("data:text/html,<script>x</script>", "scheme data:"),
            ("about:config", "only about:blank"),
            ("http://169.254.169.254/latest/meta-data", "blocked network 169.254.0.0/16"),
            ("http://[fd00:ec2::254]/", "blocked network fd00:ec2::254/128"),
            ("http://0.0.0.0:8080/", "blocked network 0.0.0.0/8"),
        ] {
            let got = why(&p, url).await.unwrap_or_else(|| panic!("{url} loaded"));
            assert!(got.contains(says), "{url}: {got}");
        }
        let strict = Policy { block_loopback: true, block_private: true, ..Policy::default() };
        for url in [
            "http://2130706433:9/",
            "http://0x7f.1/",
            "http://[::ffff:127.0.0.1]/",
            "http://localhost/",
            "http://10.1.2.3/",
        ] {
            assert!(why(&strict, url).await.is_some(), "{url} loaded");
        }
        let listed = Policy {
            allowed_origins: vec!["*.example.com".into()],
            blocked_origins: vec!["https://bad.example.com".into()],
            ..Policy::default()
        };
        assert_eq!(why(&listed, "https://docs.example.com/a").await, None);
        assert!(why(&listed, "https://bad.example.com/").await.unwrap().contains("blocked_origins"));
        assert!(why(&listed, "https://other.org/").await.unwrap().contains("allowed_origins"));
        // Issue 53 §4: a host is compared in one form: case, a final dot, IDNA.
        let blocked = Policy {
            blocked_origins: vec![
                "http://localhost:8080".into(),
                "BÜCHER.example".into(),
                "*.Other.ORG.".into(),
            ],
            ..Policy::default()
        };
        for url in [
            "http://localhost.:8080/",
            "http://LOCALHOST.:8080/x",
            "http://localhost:8080/",
            "http://xn--bcher-kva.example/",
            "http://bücher.example./",
            "https://a.other.org./",
        ] {
            assert!(why(&blocked, url).await.is_some_and(|r| r.contains("blocked_origins")), "{url} loaded");
        }
        assert_eq!(why(&blocked, "http://localhost:8081/").await, None, "another port");
        let listed =
            Policy { allowed_origins: vec!["https://docs.example.com.".into()], ..Policy::default() };
        assert_eq!(why(&listed, "https://DOCS.example.com/").await, None);
        let data = Policy { allowed_schemes: vec!["data".into()], ..Policy::default() };
        assert_eq!(why(&data, "data:text/plain,hi").await, None);
        assert!(Policy { blocked_networks: vec!["nope".into()], ..Policy::default() }.check().is_err());
    }
}
