//! `session.cookies`: the cookies of a session's browser context, read, added and cleared at the
//! browser (`Storage.getCookies`, `Storage.setCookies`, `Storage.clearCookies` with the context's
//! `browserContextId`), so they are the session's whatever tab is active, and no other session's.
//!
//! Cookies are given and taken in Playwright's shape (`BrowserContext.cookies()`, `addCookies()`:
//! `url`, or `domain` and `path`), and the `urls` filter matches as Playwright's `filterCookies`
//! (`client/network.ts`): the URL's host is the cookie's domain or under it (a leading dot, or a
//! host-only cookie's exact host), its path starts with the cookie's, and a secure cookie needs https.

use sb_protocol::api::{
    Cookie, CookieParam, CookiesAction, CookiesParams, CookiesResult, SameSite, MAX_SET_COOKIES,
};
use sb_protocol::error::bad_request;
use sb_protocol::{Budget, ErrorBody, Phase};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::lifecycle::link::Link;
use crate::sessions::cdp_error;

/// Longest name, value, domain or path of a cookie to set, bytes (browsers keep 4096 for a cookie).
const MAX_COOKIE_PART: usize = 4096;

/// `Network.Cookie` (the fields the API gives).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CdpCookie {
    name: String,
    value: String,
    domain: String,
    path: String,
    expires: f64,
    http_only: bool,
    secure: bool,
    #[serde(default)]
    session: bool,
    #[serde(default)]
    same_site: Option<String>,
}

/// Runs `p` on the cookies of browser context `context`, and answers the cookies after it.
///
/// # Errors
/// `bad_request` for a cookie to set that is malformed or a `urls` entry that is not a URL;
/// `cdp_error` / `timeout` (phase `session`) from the `Storage` calls.
pub async fn run(
    link: &Link,
    context: &str,
    p: CookiesParams,
    budget: Budget,
) -> Result<CookiesResult, ErrorBody> {
    let urls = p.urls.as_deref().map(parse_urls).transpose()?;
    if p.action != CookiesAction::Set && !p.cookies.is_empty() {
        return Err(bad_request("session.cookies takes cookies with action \"set\" only"));
    }
    match p.action {
        CookiesAction::Get => {}
        CookiesAction::Set => {
            if p.cookies.is_empty() || p.cookies.len() > MAX_SET_COOKIES {
                return Err(bad_request(format!("session.cookies set takes 1 to {MAX_SET_COOKIES} cookies")));
            }
            let cookies = p.cookies.iter().map(to_cdp).collect::<Result<Vec<Value>, ErrorBody>>()?;
            let params = json!({"cookies": cookies, "browserContextId": context});
            storage(link, "Storage.setCookies", params, budget).await?;
        }
        CookiesAction::Clear => {
            storage(link, "Storage.clearCookies", json!({"browserContextId": context}), budget).await?;
        }
        CookiesAction::Delete => {
            let Some(name) = p.name.as_deref() else {
                return Err(bad_request("session.cookies delete needs name"));
            };
            // `Storage` has no delete: each cookie of the name is set again, expired (Chromium then
            // removes it), as its own name, domain and path say.
            let gone: Vec<Value> = read(link, context, budget)
                .await?
                .into_iter()
                .filter(|c| c.name == name && urls.as_ref().is_none_or(|urls| urls.iter().any(|u| sent_to(&from_cdp(c.clone()), u))))
                .map(|c| json!({"name": c.name, "value": "", "domain": c.domain, "path": c.path, "expires": 1}))
                .collect();
            if !gone.is_empty() {
                let params = json!({"cookies": gone, "browserContextId": context});
                storage(link, "Storage.setCookies", params, budget).await?;
            }
        }
    }
    let cookies = read(link, context, budget)
        .await?
        .into_iter()
        .map(from_cdp)
        .filter(|c| urls.as_ref().is_none_or(|urls| urls.iter().any(|u| sent_to(c, u))))
        .filter(|c| p.action != CookiesAction::Get || p.name.as_ref().is_none_or(|n| *n == c.name))
        .collect();
    Ok(CookiesResult { cookies })
}

/// Every cookie of context `context` (`Storage.getCookies`).
async fn read(link: &Link, context: &str, budget: Budget) -> Result<Vec<CdpCookie>, ErrorBody> {
    let got = storage(link, "Storage.getCookies", json!({"browserContextId": context}), budget).await?;
    serde_json::from_value(got["cookies"].clone()).map_err(|e| {
        ErrorBody::new(sb_protocol::ErrorCode::CdpError, Phase::Session, format!("Storage.getCookies: {e}"))
    })
}

/// One `Storage.*` call at the browser within `budget`.
async fn storage(link: &Link, method: &str, params: Value, budget: Budget) -> Result<Value, ErrorBody> {
    link.client
        .call::<Value>(method, None, params, budget.remaining())
        .await
        .map_err(|e| cdp_error(Phase::Session, method, e))
}

fn parse_urls(urls: &[String]) -> Result<Vec<url::Url>, ErrorBody> {
    urls.iter()
        .map(|u| {
            url::Url::parse(u)
                .map_err(|e| bad_request(format!("session.cookies urls: {u:?} is not a URL ({e})")))
        })
        .collect()
}

/// A cookie to set, checked and in CDP's `Network.CookieParam` shape.
fn to_cdp(c: &CookieParam) -> Result<Value, ErrorBody> {
    let bad = |why: &str| bad_request(format!("session.cookies: cookie {:?}: {why}", c.name));
    if c.name.is_empty() {
        return Err(bad_request("session.cookies: a cookie needs a name"));
    }
    let parts = [Some(&c.name), Some(&c.value), c.domain.as_ref(), c.path.as_ref(), c.url.as_ref()];
    if parts.iter().flatten().any(|p| p.len() > MAX_COOKIE_PART) {
        return Err(bad(&format!("a part is longer than {MAX_COOKIE_PART} bytes")));
    }
    if parts.iter().flatten().any(|p| p.chars().any(|ch| ch.is_control())) {
        return Err(bad("a part holds a control character"));
    }
    let mut v = json!({"name": c.name, "value": c.value, "httpOnly": c.http_only, "secure": c.secure});
    match (&c.url, &c.domain, &c.path) {
        (Some(url), None, None) => {
            let parsed = url::Url::parse(url).map_err(|e| bad(&format!("url is not a URL ({e})")))?;
            if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
                return Err(bad("url must be an http(s) URL with a host"));
            }
            v["url"] = json!(url);
        }
        (None, Some(domain), Some(path)) if !domain.is_empty() && path.starts_with('/') => {
            v["domain"] = json!(domain);
            v["path"] = json!(path);
        }
        _ => return Err(bad("give url, or domain and path (starting with /)")),
    }
    if let Some(expires) = c.expires {
        if !expires.is_finite() || expires < 0.0 {
            return Err(bad(
                "expires is seconds since the Unix epoch (or leave it out for a session cookie)",
            ));
        }
        v["expires"] = json!(expires);
    }
    if let Some(same_site) = c.same_site {
        if same_site == SameSite::None && !c.secure {
            return Err(bad("sameSite None needs secure"));
        }
        v["sameSite"] = json!(same_site_name(same_site));
    }
    Ok(v)
}

fn same_site_name(s: SameSite) -> &'static str {
    match s {
        SameSite::Strict => "Strict",
        SameSite::Lax => "Lax",
        SameSite::None => "None",
    }
}

fn from_cdp(c: CdpCookie) -> Cookie {
    // A cookie without one is Lax, as Playwright reports it (`sameSite ?? 'Lax'`, crBrowser.ts).
    let same_site = match c.same_site.as_deref() {
        Some("Strict") => SameSite::Strict,
        Some("None") => SameSite::None,
        _ => SameSite::Lax,
    };
    Cookie {
        name: c.name,
        value: c.value,
        domain: c.domain,
        path: c.path,
        expires: if c.session { -1.0 } else { c.expires },
        http_only: c.http_only,
        secure: c.secure,
        same_site,
    }
}

/// Whether the browser would send `c` with a request to `url` (as Playwright's `filterCookies`).
fn sent_to(c: &Cookie, url: &url::Url) -> bool {
    let Some(host) = url.host_str() else { return false };
    let host = host.to_ascii_lowercase();
    let domain = c.domain.to_ascii_lowercase();
    let domain_ok = match domain.strip_prefix('.') {
        Some(bare) => host == bare || host.ends_with(&format!(".{bare}")),
        None => host == domain,
    };
    let path = url.path();
    let path_ok = path == c.path
        || (path.starts_with(&c.path) && (c.path.ends_with('/') || path[c.path.len()..].starts_with('/')));
    domain_ok && path_ok && (!c.secure || url.scheme() == "https")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cookie(domain: &str, path: &str, secure: bool) -> Cookie {
        Cookie {
            name: "n".into(),
            value: "v".into(),
            domain: domain.into(),
            path: path.into(),
            expires: -1.0,
            http_only: false,
            secure,
            same_site: SameSite::Lax,
        }
    }

    /// The `urls` filter: a domain cookie covers its subdomains, a host-only one its host only; the
    /// path matches whole segments; a secure cookie needs https.
    #[test]
    fn urls_filter_as_the_browser_sends() {
        let u = |s: &str| url::Url::parse(s).unwrap();
        assert!(sent_to(&cookie(".example.com", "/", false), &u("http://a.example.com/x")));
        assert!(sent_to(&cookie(".example.com", "/", false), &u("http://example.com/")));
        assert!(!sent_to(&cookie("example.com", "/", false), &u("http://a.example.com/")));
        assert!(!sent_to(&cookie(".example.com", "/", false), &u("http://badexample.com/")));
        assert!(sent_to(&cookie("h.test", "/app", false), &u("http://h.test/app/page")));
        assert!(!sent_to(&cookie("h.test", "/app", false), &u("http://h.test/application")));
        assert!(!sent_to(&cookie("h.test", "/", true), &u("http://h.test/")));
        assert!(sent_to(&cookie("h.test", "/", true), &u("https://h.test/")));
    }

    /// A cookie to set needs a name, url or domain and path, finite expiry, and `secure` with
    /// `SameSite=None`; control characters are refused.
    #[test]
    fn cookies_to_set_are_checked() {
        let ok = CookieParam {
            name: "a".into(),
            value: "1".into(),
            url: Some("https://h.test/".into()),
            ..Default::default()
        };
        assert!(to_cdp(&ok).is_ok());
        for bad in [
            CookieParam { name: String::new(), ..ok.clone() },
            CookieParam { url: None, ..ok.clone() },
            CookieParam { url: Some("file:///etc/passwd".into()), ..ok.clone() },
            CookieParam { domain: Some("h.test".into()), ..ok.clone() },
            CookieParam { expires: Some(f64::INFINITY), ..ok.clone() },
            CookieParam { same_site: Some(SameSite::None), ..ok.clone() },
            CookieParam { value: "a\nSet-Cookie: x=1".into(), ..ok.clone() },
        ] {
            assert!(to_cdp(&bad).is_err(), "{bad:?}");
        }
    }
}
