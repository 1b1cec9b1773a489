//! Sessions and their tabs: `session.start`, `session.close`, `session.list`, storage, storage
//! state, cookies, traces and `tabs.*`.

use serde::{Deserialize, Serialize};

use super::emulation::Emulation;
use super::network::TraceAction;
use super::page::{TabInfo, Viewport};

/// `session.start` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionStartParams {
    /// The id to use; generated when absent. 1..=128 chars of `[A-Za-z0-9._-]`, starting with a letter or
    /// digit (never `.` or `..`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The session's viewport, CSS px (each side 1..=10000); the configured one (1280x800 by default)
    /// when absent. Every page of the session measures it (`innerWidth` x `innerHeight`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Viewport>,
    /// Device pixels per CSS px (`devicePixelRatio`), 0.5..=4; 1 when absent. Screenshots are taken at
    /// this scale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_scale_factor: Option<f64>,
    /// A storage state file to start from (`session.storage_state`'s `name`: a Playwright
    /// `storageState` JSON in the uploads dir, else the artifacts dir): its cookies and local storage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_state: Option<String>,
    /// What the session's pages emulate from their first request, as `page.emulate` sets it later
    /// (Playwright's context options: `colorScheme`, `locale`, `timezoneId`, `geolocation`,
    /// `userAgent`, `offline`, `extraHTTPHeaders`, `permissions`).
    #[serde(flatten)]
    pub emulation: Emulation,
}

/// Which Web Storage area `page.storage` works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StorageKind {
    /// `localStorage`: the origin's, kept across tabs and reloads.
    Local,
    /// `sessionStorage`: the tab's, for its origin.
    Session,
}

/// What `page.storage` does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StorageAction {
    /// List the items (only `key`'s when given).
    #[default]
    Get,
    /// Set `key` to `value`.
    Set,
    /// Remove `key`.
    Delete,
    /// Remove every item.
    Clear,
}

/// `page.storage` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StorageParams {
    /// local or session.
    pub kind: StorageKind,
    /// get (default), set, delete or clear.
    #[serde(default)]
    pub action: StorageAction,
    /// The item (set and delete need it; get lists only it when given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// For set: its value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// The longest key or value `page.storage` sets, chars (a browser keeps about 5 MB an origin).
pub const MAX_STORAGE_CHARS: usize = 5_000_000;

impl StorageParams {
    /// `page.storage`'s rules beyond its fields' types (its declaration's `check`): set needs key
    /// and value, delete a key, clear neither; get takes a key or none.
    ///
    /// # Errors
    /// A key or value over [`MAX_STORAGE_CHARS`], or fields the action does not take.
    pub fn check(&self) -> Result<(), String> {
        let fits = |s: &Option<String>| s.as_ref().is_none_or(|s| s.chars().count() <= MAX_STORAGE_CHARS);
        if !fits(&self.key) || !fits(&self.value) {
            return Err(format!("page.storage keys and values are at most {MAX_STORAGE_CHARS} chars"));
        }
        let ok = match self.action {
            StorageAction::Get => self.value.is_none(),
            StorageAction::Set => self.key.is_some() && self.value.is_some(),
            StorageAction::Delete => self.key.is_some() && self.value.is_none(),
            StorageAction::Clear => self.key.is_none() && self.value.is_none(),
        };
        if !ok {
            return Err(
                "page.storage: get takes key or nothing, set key and value, delete key, clear nothing".into(),
            );
        }
        Ok(())
    }
}

/// One Web Storage item (Playwright's `storageState` shape).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StorageItem {
    /// Its key.
    pub name: String,
    /// Its value.
    pub value: String,
}

/// `page.storage` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StorageResult {
    /// The origin whose storage it is, e.g. `https://example.com`.
    pub origin: String,
    /// The items after the action, in the storage's order.
    pub items: Vec<StorageItem>,
}

/// What `session.storage_state` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StorageStateAction {
    /// Write the session's state to a file.
    Save,
    /// Read a file into the session.
    Load,
}

/// `session.storage_state` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StorageStateParams {
    /// save or load.
    pub action: StorageStateAction,
    /// A plain file name (`state.json`): save writes it under the artifacts dir (default
    /// `state-<session>.json`); load reads it from the uploads dir, else the artifacts dir.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `session.storage_state` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StorageStateResult {
    /// The file written or read.
    pub path: String,
    /// Cookies saved or set.
    pub cookies: u64,
    /// Origins whose local storage was saved or written.
    pub origins: u64,
}

/// `session.trace` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TraceParams {
    /// start or stop.
    pub action: TraceAction,
    /// stop: a plain file name for the report under the artifacts dir (`run.html`); default
    /// `<session>-trace-<ms>.html`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `session.trace` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TraceResult {
    /// Whether the session is being traced after this call.
    pub tracing: bool,
    /// Actions recorded so far in this trace.
    pub actions: u64,
    /// The JSON lines file (one line per action).
    pub jsonl: String,
    /// stop: the HTML report written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    /// Bytes the trace's files hold (JSON lines and screenshots).
    pub bytes: u64,
}

/// `session.start` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionStartResult {
    /// The session's id (the one asked for, or a generated one).
    pub session_id: String,
    /// CDP `targetId` of the session's page.
    pub target_id: String,
    /// The session's token: the request's `session_token`, or a new random one (128 bits, hex). With
    /// `[limits] session_tokens` every call on the session must carry it.
    #[serde(default)]
    pub session_token: String,
}

/// What `session.cookies` does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CookiesAction {
    /// List them (the default).
    #[default]
    Get,
    /// Add `cookies` (a cookie of the same name, domain and path is replaced).
    Set,
    /// Delete every cookie of the session.
    Clear,
    /// Delete the cookies named `name` (those sent to `urls` when given).
    Delete,
}

/// A cookie's `SameSite`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum SameSite {
    /// `Strict`.
    Strict,
    /// `Lax` (what Chromium applies to a cookie set without one, and what Playwright reports for it).
    #[default]
    Lax,
    /// `None` (needs `secure`).
    None,
}

/// A cookie, as Playwright's `BrowserContext.cookies()` and its `storageState` give one: its keys as
/// Playwright writes them (`httpOnly`, `sameSite`), in every answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Cookie {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// Its domain (`.example.com` for a domain cookie, `example.com` for a host-only one).
    pub domain: String,
    /// Its path.
    pub path: String,
    /// When it expires, seconds since the Unix epoch; -1 for a session cookie.
    pub expires: f64,
    /// `HttpOnly`: scripts cannot read it.
    pub http_only: bool,
    /// `Secure`: sent over https only.
    pub secure: bool,
    /// `SameSite`: `Lax` for a cookie set without one (`document.cookie = "a=1"`), as Playwright's
    /// `context.cookies()` reports it (`sameSite ?? 'Lax'` in `crBrowser.ts`) and Chromium applies it.
    #[serde(default)]
    pub same_site: SameSite,
}

/// A cookie to set: `url`, or `domain` and `path` (Playwright's `addCookies` rule and keys: `httpOnly`,
/// `sameSite`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CookieParam {
    /// Its name (not empty).
    pub name: String,
    /// Its value.
    pub value: String,
    /// The URL it is for (its host, path and scheme give domain, path and secure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Its domain (with `path`, instead of `url`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Its path (with `domain`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// When it expires, seconds since the Unix epoch; absent: a session cookie.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<f64>,
    /// `HttpOnly`.
    #[serde(default)]
    pub http_only: bool,
    /// `Secure`.
    #[serde(default)]
    pub secure: bool,
    /// `SameSite`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_site: Option<SameSite>,
}

/// Most cookies one `session.cookies {action: set}` takes.
pub const MAX_SET_COOKIES: usize = 200;

/// `session.cookies` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CookiesParams {
    /// `get` (the default), `set` or `clear`.
    #[serde(default)]
    pub action: CookiesAction,
    /// The cookies to set (`set` only), at most 200 ([`MAX_SET_COOKIES`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cookies: Vec<CookieParam>,
    /// Only the cookies a request to one of these URLs would send (domain, path and secure as the
    /// browser matches them); absent: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urls: Option<Vec<String>>,
    /// `get`: only the cookies of this name; `delete`: the cookies to delete (the answer lists those
    /// left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `session.cookies` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CookiesResult {
    /// The session's cookies after the action (those sent to `urls` when given).
    pub cookies: Vec<Cookie>,
}

/// `session.close` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionCloseResult {
    /// The session closed.
    pub session_id: String,
    /// Whether it was open (and is closed now).
    pub closed: bool,
}

/// One entry of `session.list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionInfo {
    /// The session's id.
    pub session_id: String,
    /// CDP `targetId` of its active tab.
    pub target_id: String,
    /// The last URL a `page.goto` reached, when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `session.list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionListResult {
    /// The open sessions, by id.
    pub sessions: Vec<SessionInfo>,
}

/// `tabs.list` result, in the order the tabs were opened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TabsListResult {
    /// The session's tabs, oldest first.
    pub tabs: Vec<TabInfo>,
}

/// `tabs.open` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TabsOpenParams {
    /// Where the new tab goes (`about:blank` when absent), loaded as `page.goto` loads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `tabs.focus` and `tabs.close` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TabTargetParams {
    /// A tab's `target_id`, whole or a unique prefix (`ambiguous_target` when several tabs match,
    /// `tab_not_found` when none does; `bad_request` when empty).
    pub target_id: String,
}

/// `tabs.close` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TabsCloseResult {
    /// The closed tab.
    pub closed: String,
    /// The session's active tab afterwards.
    pub active: String,
}
