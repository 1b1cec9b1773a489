//! What a session's pages emulate (`page.emulate`): the media features, locale, time zone, position,
//! user agent, the network's absence, extra request headers and permissions, set on each page the
//! worker attaches to, as Playwright sets a context's options on each of its pages (`crPage.ts`:
//! `_updateEmulateMedia`, `_updateLocale`, `_updateTimezone`, `_updateGeolocation`,
//! `_updateUserAgent`, `_updateOffline`, `_updateExtraHTTPHeaders`; `crBrowser.ts`
//! `grantPermissions`). Every call sets its
//! setting whole, so a field cleared by `reset` is cleared in the page too.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use sb_cdp::commands::{
    BrowserGetVersion, BrowserGrantPermissions, BrowserResetPermissions, EmulationSetDeviceMetricsOverride,
    EmulationSetEmulatedMedia, EmulationSetGeolocationOverride, EmulationSetLocaleOverride,
    EmulationSetTimezoneOverride, EmulationSetUserAgentOverride, MediaFeature,
    NetworkEmulateNetworkConditions, NetworkEnable, NetworkSetExtraHttpHeaders,
    PageAddScriptToEvaluateOnNewDocument, PageEnable, PageRemoveScriptToEvaluateOnNewDocument,
    RuntimeRunIfWaitingForDebugger, TargetGetTargetInfo,
};
use sb_cdp::{CdpClient, CdpError, Session};
use sb_protocol::api::{ColorScheme, Contrast, Emulation, ForcedColors, MediaType, ReducedMotion};
use sb_protocol::ipc::Display;
use sb_protocol::Budget;
use serde_json::{json, Value};

/// A call sent on a page's session, awaiting its answer.
type Sent = Pin<Box<dyn Future<Output = Result<(), CdpError>> + Send>>;

/// Sets `display` (when given: not mobile, the screen as large as the viewport) and `e` on the page
/// of `session` (target `target_id`), which emulates `before` (a new page: nothing), within `budget`:
/// only the settings that change are sent, so a page of a session that emulates nothing costs no
/// call. The calls go in order without waiting for each other (`Emulation.setDeviceMetricsOverride`,
/// `setEmulatedMedia`, `setUserAgentOverride`, `Network.emulateNetworkConditions`,
/// `Network.setExtraHTTPHeaders`, `Page.addScriptToEvaluateOnNewDocument`,
/// `Emulation.setGeolocationOverride`, `setLocaleOverride`, `setTimezoneOverride`), after the
/// browser-level calls they need (`Browser.grantPermissions` or `resetPermissions`).
///
/// # Errors
/// The first call that failed (an unknown time zone or locale answers Chromium's `Invalid ...`).
pub async fn apply(
    browser: &CdpClient,
    session: &Session,
    target_id: &str,
    display: Option<Display>,
    before: &Emulation,
    e: &Emulation,
    budget: Budget,
) -> Result<(), CdpError> {
    let sent = send(browser, session, target_id, display, before, e, budget).await?;
    answered(sent).await
}

/// Lets a new page that waits to run (auto-attached on the browser connection with
/// `waitForDebuggerOnStart`: a popup its opener made) run with the session's `display`
/// (`Emulation.setDeviceMetricsOverride`, as the worker sets it) and emulation `e` already set, so its
/// first request and first script see them, as Playwright sets a context's options on a popup before
/// it runs (`crPage.ts`: the page's `_initialize` sends them with `Runtime.runIfWaitingForDebugger`).
/// Every call goes before `Runtime.runIfWaitingForDebugger` on the same session (Chromium runs them
/// in order; their answers come once the page runs). The page is let run even when a call failed.
/// The settings hold while `session` stays attached.
///
/// # Errors
/// The first call that failed, or [`CdpError::Timeout`] past `budget`.
pub async fn start_held_page(
    browser: &CdpClient,
    session: &Session,
    target_id: &str,
    display: Option<Display>,
    e: &Emulation,
    budget: Budget,
) -> Result<(), CdpError> {
    let prepared = send(browser, session, target_id, display, &Emulation::default(), e, budget).await;
    // Sent even when the settings could not all be: the page runs either way. Sent after them (each
    // setting's calls go out at its first poll, in order) without waiting for their answers: some
    // come only once the page runs.
    let run = boxed(session.send(&RuntimeRunIfWaitingForDebugger {}, budget.remaining()));
    let mut sent = prepared?;
    sent.push(run);
    answered(sent).await
}

/// The session's init scripts, as the last emulation applied in this process gave them (an
/// out-of-process iframe gets them as it attaches: [`extend_to`]).
static INIT_SCRIPTS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// The init scripts this process added on each CDP session, `(source, identifier)`, by session id:
/// what [`sync_scripts`] removes a script by.
static ADDED: std::sync::LazyLock<std::sync::Mutex<HashMap<String, AddedScripts>>> =
    std::sync::LazyLock::new(Default::default);

/// The init scripts added on one CDP session, in order: `(source, identifier)`.
type AddedScripts = Vec<(String, String)>;

/// The init scripts this process added on the CDP session `session_id`, `(source, identifier)`: the
/// supervisor's for a page it held, which the worker that takes the page over removes by them
/// (`Action::Attach`'s `held_scripts`).
pub fn scripts_on(session_id: &str) -> Vec<(String, String)> {
    ADDED.lock().unwrap().get(session_id).cloned().unwrap_or_default()
}

/// Forgets what was added on the CDP session `session_id`, which ended.
pub(crate) fn forget_scripts(session_id: &str) {
    ADDED.lock().unwrap().remove(session_id);
}

/// Takes `scripts`, added on `session_id` by another process (the supervisor, on a page it held), as
/// this one's.
pub(crate) fn adopt_scripts(session_id: &str, scripts: Vec<(String, String)>) {
    ADDED.lock().unwrap().insert(session_id.to_string(), scripts);
}

/// Brings the init scripts on `session` to `scripts`, in order: those added before and no longer
/// wanted removed (`Page.removeScriptToEvaluateOnNewDocument`, by their identifier), the missing
/// ones added (`Page.addScriptToEvaluateOnNewDocument`), as Playwright adds and removes a context's
/// init scripts on every frame session. A new document of the page runs the new list.
///
/// # Errors
/// A call refused or not answered.
pub(crate) fn sync_scripts(session: &Session, scripts: &[String], timeout: Duration) -> Sent {
    let had = scripts_on(session.id());
    if had.iter().map(|(s, _)| s).eq(scripts.iter()) {
        return Box::pin(std::future::ready(Ok(())));
    }
    // Every call sent now, in order, before any answer is awaited (the caller may send more after
    // them: a page the supervisor holds answers some calls only once it runs), with the Page domain
    // first, which a held page has not on yet and its scripts need.
    let enabled = session.send(&PageEnable {}, timeout);
    // Kept in order: a script after one removed is added again behind the new ones' place.
    let keep = had.iter().zip(scripts).take_while(|((s, _), want)| s == *want).count();
    let removed: Vec<_> = had[keep..]
        .iter()
        .map(|(_, identifier)| {
            session.send(&PageRemoveScriptToEvaluateOnNewDocument { identifier: identifier.clone() }, timeout)
        })
        .collect();
    let added: Vec<_> = scripts[keep..]
        .iter()
        .map(|source| session.send(&PageAddScriptToEvaluateOnNewDocument { source: source.clone() }, timeout))
        .collect();
    let (id, sources, kept) = (session.id().to_string(), scripts[keep..].to_vec(), had[..keep].to_vec());
    Box::pin(async move {
        enabled.await?;
        for r in futures_util::future::join_all(removed).await {
            r?;
        }
        let mut now = kept;
        for (source, answer) in sources.into_iter().zip(futures_util::future::join_all(added).await) {
            now.push((source, answer?.identifier));
        }
        ADDED.lock().unwrap().insert(id, now);
        Ok(())
    })
}

/// Brings another CDP session of the session's pages (an out-of-process iframe as it attaches, held
/// before its first document by `Target.setAutoAttach {waitForDebuggerOnStart}`; a tab left in the
/// background, or its iframes, after `page.emulate`) to the session's init scripts
/// ([`sync_scripts`]) and request interception (`intercept::set_latest`) as [`apply`] last set them
/// in this process, as Playwright's `crPage.ts` does on every frame session; nothing when the session
/// has neither.
///
/// # Errors
/// The first call refused or not answered, the scripts' first.
pub(crate) async fn extend_to(session: &Session, timeout: Duration) -> Result<(), CdpError> {
    let scripts = INIT_SCRIPTS.lock().unwrap().clone();
    let (scripts, intercepted) = futures_util::join!(
        sync_scripts(session, &scripts, timeout),
        crate::tab::intercept::set_latest(session, timeout)
    );
    scripts.and(intercepted)
}

/// `Emulation.setDeviceMetricsOverride` for `d` (CSS px): not mobile, the screen as large as the
/// viewport.
pub(crate) fn display_metrics(d: Display) -> EmulationSetDeviceMetricsOverride {
    EmulationSetDeviceMetricsOverride {
        width: d.width,
        height: d.height,
        device_scale_factor: d.scale,
        mobile: false,
        screen_width: d.width,
        screen_height: d.height,
    }
}

/// Sends, in order on `session`, `display` when given, then the calls that take the page from `before`
/// to `e`, after the browser-level calls they need (the browser's own user agent, the position's
/// permission); the calls' answers.
async fn send(
    browser: &CdpClient,
    session: &Session,
    target_id: &str,
    display: Option<Display>,
    before: &Emulation,
    e: &Emulation,
    budget: Budget,
) -> Result<Vec<Sent>, CdpError> {
    // Each call has what is left of the budget: a slow renderer is not a failed setting.
    let left = || budget.remaining();
    let changed = |f: fn(&Emulation) -> Value| f(before) != f(e);
    let mut sent: Vec<Sent> =
        display.map(|d| boxed(session.send(&display_metrics(d), left()))).into_iter().collect();
    if changed(|e| json!([e.color_scheme, e.reduced_motion, e.forced_colors, e.contrast, e.media])) {
        let color = match e.color_scheme {
            Some(ColorScheme::Light) => "light",
            Some(ColorScheme::Dark) => "dark",
            Some(ColorScheme::NoPreference) => "no-preference",
            None => "",
        };
        let motion = match e.reduced_motion {
            Some(ReducedMotion::Reduce) => "reduce",
            Some(ReducedMotion::NoPreference) => "no-preference",
            None => "",
        };
        let forced = match e.forced_colors {
            Some(ForcedColors::Active) => "active",
            Some(ForcedColors::None) => "none",
            None => "",
        };
        let contrast = match e.contrast {
            Some(Contrast::More) => "more",
            Some(Contrast::NoPreference) => "no-preference",
            None => "",
        };
        let media_type = match e.media {
            Some(MediaType::Screen) => "screen",
            Some(MediaType::Print) => "print",
            None => "",
        };
        let feature = |name: &str, value: &str| MediaFeature { name: name.into(), value: value.into() };
        // As Playwright's `_updateEmulateMedia` (crPage.ts) sends them: every feature, an empty value
        // for one not emulated.
        let media = EmulationSetEmulatedMedia {
            media: media_type.into(),
            features: vec![
                feature("prefers-color-scheme", color),
                feature("prefers-reduced-motion", motion),
                feature("forced-colors", forced),
                feature("prefers-contrast", contrast),
            ],
        };
        sent.push(boxed(session.send(&media, left())));
    }
    if changed(|e| json!([e.user_agent, e.locale])) {
        // The user agent Chromium sends by itself, when only the locale needs one to carry its
        // language; an empty one ends the override.
        let user_agent = match (&e.user_agent, &e.locale) {
            (Some(ua), _) => ua.clone(),
            (None, Some(_)) => browser.run(&BrowserGetVersion {}, left()).await?.user_agent,
            (None, None) => String::new(),
        };
        let agent = EmulationSetUserAgentOverride { user_agent, accept_language: e.locale.clone() };
        sent.push(boxed(session.send(&agent, left())));
    }
    if changed(|e| json!(e.offline)) {
        let network = NetworkEmulateNetworkConditions {
            offline: e.offline.unwrap_or(false),
            latency: 0.0,
            download_throughput: -1.0,
            upload_throughput: -1.0,
        };
        sent.push(boxed(session.send(&network, left())));
    }
    if changed(|e| json!(e.extra_http_headers)) {
        let headers = e.extra_http_headers.clone().unwrap_or_default();
        if !headers.is_empty() {
            // A page the supervisor holds (a popup before it runs) has no Network domain on yet; the
            // headers apply only with it (Playwright enables it on every page first too).
            sent.push(boxed(session.send(&NetworkEnable {}, left())));
        }
        sent.push(boxed(session.send(&NetworkSetExtraHttpHeaders { headers }, left())));
    }
    // Compared as they are, not as JSON: scripts and route bodies may be megabytes.
    if e.init_scripts != before.init_scripts {
        *INIT_SCRIPTS.lock().unwrap() = e.init_scripts.clone().unwrap_or_default();
        sent.push(sync_scripts(session, e.init_scripts.as_deref().unwrap_or_default(), left()));
    }
    if e.http_credentials != before.http_credentials || e.routes != before.routes {
        let rules = crate::tab::intercept::Rules::new(
            e.http_credentials.clone(),
            e.routes.as_deref().unwrap_or_default(),
        );
        sent.push(crate::tab::intercept::set(session, rules, left()));
    }
    if changed(|e| json!([e.permissions, e.geolocation.is_some()])) {
        // The session's own context: what is granted there (Playwright's `grantPermissions` with no
        // origin: every origin), the rest denied. The page may read an emulated position only with
        // `geolocation`, granted while one is set.
        let mut names: Vec<String> =
            e.permissions.iter().flatten().map(|p| p.cdp_name().to_string()).collect();
        if e.geolocation.is_some() && !names.iter().any(|n| n == "geolocation") {
            names.push("geolocation".into());
        }
        let info = browser.run(&TargetGetTargetInfo { target_id: target_id.to_string() }, left()).await?;
        let context = info.target_info.browser_context_id;
        if names.is_empty() {
            browser.run(&BrowserResetPermissions { browser_context_id: context }, left()).await?;
        } else {
            browser
                .run(&BrowserGrantPermissions { permissions: names, browser_context_id: context }, left())
                .await?;
        }
    }
    if changed(|e| json!(e.geolocation)) {
        let position = EmulationSetGeolocationOverride {
            latitude: e.geolocation.map(|g| g.latitude),
            longitude: e.geolocation.map(|g| g.longitude),
            accuracy: e.geolocation.map(|g| g.accuracy),
        };
        sent.push(boxed(session.send(&position, left())));
    }
    if changed(|e| json!(e.locale)) {
        // One locale override at a time: the one in force goes first (Chromium runs a session's
        // calls in order).
        if before.locale.is_some() {
            sent.push(boxed(session.send(&EmulationSetLocaleOverride { locale: None }, left())));
        }
        if let Some(locale) = &e.locale {
            let set = EmulationSetLocaleOverride { locale: Some(locale.clone()) };
            sent.push(shared_by_the_renderer(session.send(&set, left())));
        }
    }
    if changed(|e| json!(e.timezone)) {
        let timezone_id = e.timezone.clone().unwrap_or_default();
        sent.push(shared_by_the_renderer(
            session.send(&EmulationSetTimezoneOverride { timezone_id }, left()),
        ));
    }
    Ok(sent)
}

/// Waits for every call's answer; the first failure.
async fn answered(sent: Vec<Sent>) -> Result<(), CdpError> {
    futures_util::future::join_all(sent).await.into_iter().collect()
}

/// A time zone or locale override's answer, where one already in force is as good as set: Chromium
/// holds one of each per renderer process (`Timezone override is already in effect`, `Another locale
/// override is already in effect`), a page opened with an opener (`window.open`) shares its opener's
/// renderer, and a renderer only ever holds pages of one browser context, so of one session, whose
/// override it already is.
fn shared_by_the_renderer(
    call: impl Future<Output = Result<serde::de::IgnoredAny, CdpError>> + Send + 'static,
) -> Sent {
    Box::pin(async move {
        match call.await {
            Err(CdpError::Protocol { message, .. }) if message.contains("override is already in effect") => {
                Ok(())
            }
            other => other.map(|_| ()),
        }
    })
}

/// A sent call's answer, its output dropped.
fn boxed<O: Send + 'static>(call: impl Future<Output = Result<O, CdpError>> + Send + 'static) -> Sent {
    Box::pin(async move { call.await.map(|_| ()) })
}
