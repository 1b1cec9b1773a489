//! What a session's pages emulate (`page.emulate`, `session.start`'s settings): media features,
//! locale, time zone, position, user agent, permissions, extra headers and init scripts.

use serde::{Deserialize, Serialize};

use super::network::{HttpCredentials, Route};

/// `prefers-color-scheme` as a page sees it, spelled as Playwright's `emulateMedia` and CSS spell it
/// (`no-preference`; `no_preference` is taken too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ColorScheme {
    /// `light`.
    Light,
    /// `dark`.
    Dark,
    /// `no-preference`.
    #[serde(alias = "no_preference")]
    NoPreference,
}

/// `prefers-reduced-motion` as a page sees it (`reduce`, `no-preference`; `no_preference` is taken
/// too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ReducedMotion {
    /// `reduce`.
    Reduce,
    /// `no-preference`.
    #[serde(alias = "no_preference")]
    NoPreference,
}

/// `forced-colors` as a page sees it (Playwright's `forcedColors`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ForcedColors {
    /// `active`: the page is shown with a forced palette (Windows high contrast).
    Active,
    /// `none`.
    None,
}

/// `prefers-contrast` as a page sees it (Playwright's `contrast`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Contrast {
    /// `more`.
    More,
    /// `no-preference`.
    #[serde(alias = "no_preference")]
    NoPreference,
}

/// The CSS media type a page is laid out for (Playwright's `emulateMedia({media})`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MediaType {
    /// `screen`.
    Screen,
    /// `print`: `@media print` rules apply, as when printing.
    Print,
}

/// A position `navigator.geolocation` reports (`Emulation.setGeolocationOverride`; the session's
/// context is granted the `geolocation` permission).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Geolocation {
    /// Degrees, -90..=90.
    pub latitude: f64,
    /// Degrees, -180..=180.
    pub longitude: f64,
    /// Metres, 0 or more (default 0).
    #[serde(default)]
    pub accuracy: f64,
}

/// What a session's pages emulate; an absent field is the browser's own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Emulation {
    /// `prefers-color-scheme` (`Emulation.setEmulatedMedia`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_scheme: Option<ColorScheme>,
    /// `prefers-reduced-motion` (`Emulation.setEmulatedMedia`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduced_motion: Option<ReducedMotion>,
    /// `forced-colors` (`Emulation.setEmulatedMedia`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forced_colors: Option<ForcedColors>,
    /// `prefers-contrast` (`Emulation.setEmulatedMedia`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contrast: Option<Contrast>,
    /// The CSS media type, `screen` or `print` (`Emulation.setEmulatedMedia`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<MediaType>,
    /// A BCP 47 locale such as `de-DE`: `Intl` and dates (`Emulation.setLocaleOverride`),
    /// `navigator.language` and the `Accept-Language` header (`Emulation.setUserAgentOverride`), as
    /// Playwright's `locale` sets them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// An IANA time zone such as `Europe/Berlin` (`Emulation.setTimezoneOverride`); one the
    /// browser's ICU data does not know answers `bad_request`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// The position the page gets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Geolocation>,
    /// The `User-Agent` header and `navigator.userAgent` (`Emulation.setUserAgentOverride`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// No network: every request fails as offline (`Network.emulateNetworkConditions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offline: Option<bool>,
    /// Headers sent with every request of the session's pages, as Playwright's `extraHTTPHeaders`
    /// (`Network.setExtraHTTPHeaders`). At most [`MAX_EXTRA_HEADERS`], names as HTTP tokens, values
    /// without line breaks; `{}` sends none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_http_headers: Option<std::collections::BTreeMap<String, String>>,
    /// Permissions granted to every origin in the session's browser context, as Playwright's
    /// `permissions` (`Browser.grantPermissions`); the rest are denied. `[]` grants none
    /// (`geolocation` stays granted while a position is emulated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Vec<Permission>>,
    /// Scripts run in every document of the session's pages before the page's own, as Playwright's
    /// `addInitScript` (`Page.addScriptToEvaluateOnNewDocument`), in every frame: a cross-site
    /// (out-of-process) iframe is held as it attaches until they are in; at most
    /// [`MAX_INIT_SCRIPTS`] of at most [`MAX_INIT_SCRIPT_BYTES`] each. `page.emulate` replaces the
    /// list (the next document of every tab runs the new one: a script left out is removed,
    /// `Page.removeScriptToEvaluateOnNewDocument`); its `reset` keeps them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_scripts: Option<Vec<String>>,
    /// HTTP authentication for the session's pages, as Playwright's `httpCredentials`: a server's
    /// Basic or Digest challenge (a 401 with `WWW-Authenticate`) is answered with them, once a
    /// request. Results show the password as `***`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_credentials: Option<HttpCredentials>,
    /// Routes the session's requests take, newest first (`page.route` adds one, `page.unroute`
    /// removes them; `session.start` may give the first ones). `page.emulate` does not take them,
    /// its `reset` keeps them, and its result leaves them out (`page.routes` lists them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routes: Option<Vec<Route>>,
}

/// The most `init_scripts` a session runs.
pub const MAX_INIT_SCRIPTS: usize = 16;

/// The longest init script, bytes.
pub const MAX_INIT_SCRIPT_BYTES: usize = 256 * 1024;

/// The most `extra_http_headers` a session sends.
pub const MAX_EXTRA_HEADERS: usize = 64;

/// A permission a session's pages may be granted ([`Emulation::permissions`]), as Playwright names
/// it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Permission {
    /// `navigator.clipboard.read`/`readText` (CDP `clipboardReadWrite`).
    ClipboardRead,
    /// `navigator.clipboard.write`/`writeText` (CDP `clipboardSanitizedWrite`).
    ClipboardWrite,
    /// `Notification` (CDP `notifications`).
    Notifications,
    /// `navigator.geolocation` (CDP `geolocation`).
    Geolocation,
    /// The camera (CDP `videoCapture`).
    Camera,
    /// The microphone (CDP `audioCapture`).
    Microphone,
}

impl Permission {
    /// CDP's `Browser.PermissionType` for it, as Playwright's `crBrowser.ts` maps it.
    pub fn cdp_name(self) -> &'static str {
        match self {
            Permission::ClipboardRead => "clipboardReadWrite",
            Permission::ClipboardWrite => "clipboardSanitizedWrite",
            Permission::Notifications => "notifications",
            Permission::Geolocation => "geolocation",
            Permission::Camera => "videoCapture",
            Permission::Microphone => "audioCapture",
        }
    }
}

impl Emulation {
    /// `self` with each field `other` gives replacing its own.
    pub fn merged(&self, other: &Emulation) -> Emulation {
        Emulation {
            color_scheme: other.color_scheme.or(self.color_scheme),
            reduced_motion: other.reduced_motion.or(self.reduced_motion),
            forced_colors: other.forced_colors.or(self.forced_colors),
            contrast: other.contrast.or(self.contrast),
            media: other.media.or(self.media),
            locale: other.locale.clone().or_else(|| self.locale.clone()),
            timezone: other.timezone.clone().or_else(|| self.timezone.clone()),
            geolocation: other.geolocation.or(self.geolocation),
            user_agent: other.user_agent.clone().or_else(|| self.user_agent.clone()),
            offline: other.offline.or(self.offline),
            extra_http_headers: other.extra_http_headers.clone().or_else(|| self.extra_http_headers.clone()),
            permissions: other.permissions.clone().or_else(|| self.permissions.clone()),
            init_scripts: other.init_scripts.clone().or_else(|| self.init_scripts.clone()),
            http_credentials: other.http_credentials.clone().or_else(|| self.http_credentials.clone()),
            routes: other.routes.clone().or_else(|| self.routes.clone()),
        }
    }

    /// Whether nothing is emulated.
    pub fn is_empty(&self) -> bool {
        *self == Emulation::default()
    }
}

/// `page.emulate` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EmulateParams {
    /// What to emulate from now on (each field given replaces the one in force).
    #[serde(flatten)]
    pub emulation: Emulation,
    /// Clear everything emulated first (then set what is given).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reset: bool,
}

/// `page.emulate` result: everything the session's pages emulate now.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EmulateResult {
    /// In force from now on.
    pub emulation: Emulation,
}
