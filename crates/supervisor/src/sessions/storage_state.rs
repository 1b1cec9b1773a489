//! `session.storage_state`: a session's cookies and local storage as a JSON file in Playwright's
//! `storageState` format (`{cookies: [{name, value, domain, path, expires, httpOnly, secure,
//! sameSite}], origins: [{origin, localStorage: [{name, value}]}]}`), so a logged-in state moves
//! between sessions and tools, Playwright included.
//!
//! Save: the session's cookies (its browser context's, `Storage.getCookies`) and the local storage of
//! the active tab's origin (read by the session's worker, `page.storage`). Load: the cookies set in
//! the session's context, and each origin's local storage written as Playwright's
//! `BrowserContext.setStorageState` writes it (`server/browserContext.ts`): a page of the session's
//! context of its own, whose every request is answered by the runtime with an empty document
//! (`Fetch.fulfillRequest`: nothing reaches the network), navigated to each origin in turn, sets the
//! items, then closes. Files are plain names: saved in the directory of the session owner's states
//! (`<artifacts>/owners/<owner>/states`: its token's, with tokens); loaded from the uploads dir, else
//! from there, never from another owner's ([`crate::files::owned_dir`], [`crate::files::under`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use sb_cdp::calls::Evaluate;
use sb_cdp::commands::{FetchEnable, FetchFulfillRequest, PageEnable, PageNavigate};
use sb_protocol::api::{
    CookieParam, CookiesAction, CookiesParams, SameSite, StorageItem, StorageStateResult, MAX_SET_COOKIES,
};
use sb_protocol::error::bad_request;
use sb_protocol::{Budget, ErrorBody, Phase};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::lifecycle::link::Link;
use crate::sessions::{cdp_error, SessionEntry};

/// The largest state file read, bytes.
const MAX_STATE_BYTES: u64 = 16 * 1024 * 1024;

/// The most origins one load writes.
const MAX_ORIGINS: usize = 100;

/// Playwright's `storageState`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct StorageState {
    /// The cookies.
    #[serde(default)]
    pub cookies: Vec<StateCookie>,
    /// Each origin's local storage.
    #[serde(default)]
    pub origins: Vec<OriginState>,
}

/// A cookie as Playwright's `storageState` writes it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateCookie {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// Its domain.
    pub domain: String,
    /// Its path.
    pub path: String,
    /// Seconds since the Unix epoch; -1 for a session cookie.
    pub expires: f64,
    /// `HttpOnly`.
    #[serde(default)]
    pub http_only: bool,
    /// `Secure`.
    #[serde(default)]
    pub secure: bool,
    /// `Strict`, `Lax` or `None` (Playwright writes `Lax` for a cookie without one).
    #[serde(default)]
    pub same_site: Option<SameSite>,
}

/// One origin's local storage (and, in a session's kept state only, its tab's session storage).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OriginState {
    /// E.g. `https://example.com`.
    pub origin: String,
    /// Its items.
    #[serde(default)]
    pub local_storage: Vec<StorageItem>,
    /// The `sessionStorage` items the session's active tab held for it (`crate::sessions::kept`; a saved
    /// `storageState`, as Playwright's, has none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub session_storage: Vec<StorageItem>,
}

/// Where a save writes `name` (default `state-<session>.json`): under `states`, the directory of the
/// session's owner's states.
///
/// # Errors
/// `bad_request` for a name that is not a plain file name.
pub fn save_path(states: &Path, session: &str, name: Option<&str>) -> Result<PathBuf, ErrorBody> {
    let name = name.map_or_else(|| format!("state-{session}.json"), str::to_string);
    crate::files::under(states, &name).map_err(|e| bad_request(format!("session.storage_state: {e}")))
}

/// Writes `state` to `path` (0600, created new) and says what it held.
///
/// # Errors
/// `internal` when the file cannot be written.
pub fn write(path: &Path, state: &StorageState) -> Result<StorageStateResult, ErrorBody> {
    let text = serde_json::to_vec_pretty(state).unwrap_or_default();
    sb_protocol::files::write_private(path, &text)
        .map_err(|e| sb_protocol::files::failed_write(Phase::Session, path, &e))?;
    Ok(StorageStateResult {
        path: path.display().to_string(),
        cookies: state.cookies.len() as u64,
        origins: state.origins.len() as u64,
    })
}

/// Reads the state file `name`: from `uploads` when it is there, else from `own` (the directory of
/// the caller's own saves; `None` when the caller has none, a tokenless call with tokens on); a regular
/// file (not a symlink) of at most 16 MiB in Playwright's format.
///
/// # Errors
/// `bad_request` naming what is wrong: not a plain name, no such file, too large, not the format.
pub fn read(
    uploads: Option<&Path>,
    own: Option<&Path>,
    name: &str,
) -> Result<(PathBuf, StorageState), ErrorBody> {
    let bad = |m: String| bad_request(format!("session.storage_state: {m}"));
    if let Some(dir) = uploads {
        crate::files::checked_dir(dir).map_err(|e| bad(e.to_string()))?;
    }
    let mut found = None;
    for root in uploads.into_iter().chain(own) {
        if let Some(file) = crate::files::open_regular_under(root, name).map_err(bad)? {
            found = Some((root.join(name), file));
            break;
        }
    }
    let (path, (mut file, size)) = found.ok_or_else(|| {
        bad(format!("no file {name:?} in the uploads dir or among this caller's saved states"))
    })?;
    if size > MAX_STATE_BYTES {
        return Err(bad(format!("{name:?} is larger than {MAX_STATE_BYTES} bytes")));
    }
    // Read from the descriptor that was checked, and no more than the bound.
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(&mut file, MAX_STATE_BYTES + 1), &mut text)
        .map_err(|e| bad(format!("cannot read {name:?}: {e}")))?;
    let state: StorageState = serde_json::from_slice(&text)
        .map_err(|e| bad(format!("{name:?} is not a storage state ({{cookies, origins}}): {e}")))?;
    if state.origins.len() > MAX_ORIGINS {
        return Err(bad(format!("{name:?} has more than {MAX_ORIGINS} origins")));
    }
    for o in &state.origins {
        match url::Url::parse(&o.origin) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {}
            _ => return Err(bad(format!("origin {:?} is not an http(s) origin", o.origin))),
        }
    }
    Ok((path, state))
}

/// The cookies of context `context` in Playwright's shape.
///
/// # Errors
/// As [`crate::sessions::cookies::run`].
pub async fn cookies(link: &Link, context: &str, budget: Budget) -> Result<Vec<StateCookie>, ErrorBody> {
    let all = crate::sessions::cookies::run(link, context, CookiesParams::default(), budget).await?;
    Ok(all
        .cookies
        .into_iter()
        .map(|c| StateCookie {
            name: c.name,
            value: c.value,
            domain: c.domain,
            path: c.path,
            expires: c.expires,
            http_only: c.http_only,
            secure: c.secure,
            same_site: Some(c.same_site),
        })
        .collect())
}

/// Sets `cookies` in context `context`, at most [`MAX_SET_COOKIES`] a call.
///
/// # Errors
/// As [`crate::sessions::cookies::run`] (a malformed cookie is `bad_request`).
pub async fn set_cookies(
    link: &Link,
    context: &str,
    cookies: Vec<StateCookie>,
    budget: Budget,
) -> Result<(), ErrorBody> {
    let params: Vec<CookieParam> = cookies
        .into_iter()
        .map(|c| CookieParam {
            name: c.name,
            value: c.value,
            url: None,
            domain: Some(c.domain),
            path: Some(c.path),
            expires: (c.expires >= 0.0).then_some(c.expires),
            http_only: c.http_only,
            secure: c.secure,
            same_site: c.same_site,
        })
        .collect();
    for chunk in params.chunks(MAX_SET_COOKIES) {
        let set = CookiesParams { action: CookiesAction::Set, cookies: chunk.to_vec(), ..Default::default() };
        crate::sessions::cookies::run(link, context, set, budget).await?;
    }
    Ok(())
}

/// Writes each origin's local storage in context `context` through a page of its own (see the module
/// doc), which leaves the session's tabs as they are.
///
/// # Errors
/// `cdp_error` / `timeout` (phase `session`) from the page's calls.
pub async fn write_origins(
    session: &SessionEntry,
    link: &Link,
    context: &str,
    origins: &[OriginState],
    budget: Budget,
) -> Result<(), ErrorBody> {
    if origins.is_empty() {
        return Ok(());
    }
    let call = |method: &'static str| move |e| cdp_error(Phase::Session, method, e);
    let target = link
        .client
        .create_target("about:blank", false, Some(context), budget.remaining())
        .await
        .map_err(call("Target.createTarget"))?;
    // Never one of the session's tabs.
    session.gone_tabs.lock().unwrap().insert(target.clone());
    let written = async {
        let page =
            link.client.attach(&target, budget.remaining()).await.map_err(call("Target.attachToTarget"))?;
        let mut events = page.events();
        let answering = page.clone();
        // `<!doctype html><html></html>`, base64.
        let empty = "PCFkb2N0eXBlIGh0bWw+PGh0bWw+PC9odG1sPg==";
        let answer = tokio::spawn(async move {
            while let Some(ev) = events.recv().await {
                let id = ev.params.get("requestId").and_then(|v| v.as_str());
                let Some(id) = id.filter(|_| ev.method == "Fetch.requestPaused") else { continue };
                let fulfil = FetchFulfillRequest {
                    request_id: id.to_string(),
                    response_code: 200,
                    response_headers: vec![json!({"name": "Content-Type", "value": "text/html"})],
                    body: empty.to_string(),
                };
                let _ = answering.run(&fulfil, Duration::from_secs(5)).await;
            }
        });
        let mut loads = page.events();
        let step = budget.remaining();
        page.run(&PageEnable {}, step).await.map_err(call("Page.enable"))?;
        let every = FetchEnable { patterns: vec![json!({"urlPattern": "*"})], handle_auth_requests: false };
        page.run(&every, step).await.map_err(call("Fetch.enable"))?;
        for o in origins {
            let url = format!("{}/", o.origin.trim_end_matches('/'));
            page.run(&PageNavigate { url }, budget.remaining()).await.map_err(call("Page.navigate"))?;
            // The empty document of the origin has loaded: its storage is the origin's.
            let loaded = async {
                while let Some(ev) = loads.recv().await {
                    if ev.method == "Page.loadEventFired" {
                        return true;
                    }
                }
                false
            };
            if !matches!(tokio::time::timeout(budget.remaining(), loaded).await, Ok(true)) {
                return Err(ErrorBody::new(
                    sb_protocol::ErrorCode::Timeout,
                    Phase::Session,
                    format!(
                        "session.storage_state: the page for {} did not load within the budget",
                        o.origin
                    ),
                ));
            }
            let items = serde_json::to_string(&o.local_storage).unwrap_or_default();
            let set = format!("(items => {{ for (const {{name, value}} of items) localStorage.setItem(name, value); }})({items})");
            page.evaluate(&Evaluate::by_value(set), budget.remaining())
                .await
                .map_err(call("Runtime.evaluate"))?;
        }
        answer.abort();
        Ok(())
    };
    let outcome: Result<(), ErrorBody> = written.await;
    crate::sessions::close_target(&link.client, &target, Duration::from_secs(2)).await;
    outcome
}
