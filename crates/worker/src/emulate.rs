//! What a session's pages emulate (`page.emulate`): the media features, locale, time zone, position,
//! user agent and the network's absence, set on each page the worker attaches to, as Playwright sets
//! a context's options on each of its pages (`crPage.ts`: `_updateEmulateMedia`, `_updateLocale`,
//! `_updateTimezone`, `_updateGeolocation`, `_updateUserAgent`, `_updateOffline`). Every call sets its
//! setting whole, so a field cleared by `reset` is cleared in the page too.

use std::time::Duration;

use sb_cdp::commands::{
    BrowserGetVersion, BrowserGrantPermissions, Command, EmulationSetEmulatedMedia,
    EmulationSetGeolocationOverride, EmulationSetLocaleOverride, EmulationSetTimezoneOverride,
    EmulationSetUserAgentOverride, MediaFeature, NetworkEmulateNetworkConditions, TargetGetTargetInfo,
};
use sb_cdp::{CdpClient, CdpError, Session};
use sb_protocol::api::{ColorScheme, Emulation, ReducedMotion};
use sb_protocol::Budget;
use serde_json::{json, Value};

/// Sets `e` on the page of `session` (target `target_id`), which emulates `before` (a new page:
/// nothing), within `budget`: only the settings that change are sent, so a page of a session that
/// emulates nothing costs no call.
///
/// # Errors
/// The first call that failed (an unknown time zone or locale answers Chromium's `Invalid ...`).
pub(crate) async fn apply(
    browser: &CdpClient,
    session: &Session,
    target_id: &str,
    before: &Emulation,
    e: &Emulation,
    budget: Budget,
) -> Result<(), CdpError> {
    // Each call has what is left of the budget: a slow renderer is not a failed setting.
    let left = || budget.remaining();
    let changed = |f: fn(&Emulation) -> Value| f(before) != f(e);
    let media = changed(|e| json!([e.color_scheme, e.reduced_motion])).then(|| {
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
        let feature = |name: &str, value: &str| MediaFeature { name: name.into(), value: value.into() };
        EmulationSetEmulatedMedia {
            features: vec![feature("prefers-color-scheme", color), feature("prefers-reduced-motion", motion)],
        }
    });
    let agent = if changed(|e| json!([e.user_agent, e.locale])) {
        // The user agent Chromium sends by itself, when only the locale needs one to carry its
        // language; an empty one ends the override.
        let user_agent = match (&e.user_agent, &e.locale) {
            (Some(ua), _) => ua.clone(),
            (None, Some(_)) => browser.run(&BrowserGetVersion {}, left()).await?.user_agent,
            (None, None) => String::new(),
        };
        Some(EmulationSetUserAgentOverride { user_agent, accept_language: e.locale.clone() })
    } else {
        None
    };
    let network = changed(|e| json!(e.offline)).then(|| NetworkEmulateNetworkConditions {
        offline: e.offline.unwrap_or(false),
        latency: 0.0,
        download_throughput: -1.0,
        upload_throughput: -1.0,
    });
    let position = changed(|e| json!(e.geolocation)).then(|| EmulationSetGeolocationOverride {
        latitude: e.geolocation.map(|g| g.latitude),
        longitude: e.geolocation.map(|g| g.longitude),
        accuracy: e.geolocation.map(|g| g.accuracy),
    });
    // Sent together (each is its own setting), only those that change.
    let (media, agent, network, position) = tokio::join!(
        maybe(session, media, left()),
        maybe(session, agent, left()),
        maybe(session, network, left()),
        maybe(session, position, left()),
    );
    media?;
    agent?;
    network?;
    position?;
    if changed(|e| json!(e.locale)) {
        // One locale override at a time: the one in force goes first.
        if before.locale.is_some() {
            session.run(&EmulationSetLocaleOverride { locale: None }, left()).await?;
        }
        if let Some(locale) = &e.locale {
            session.run(&EmulationSetLocaleOverride { locale: Some(locale.clone()) }, left()).await?;
        }
    }
    if changed(|e| json!(e.timezone)) {
        let timezone_id = e.timezone.clone().unwrap_or_default();
        session.run(&EmulationSetTimezoneOverride { timezone_id }, left()).await?;
    }
    if e.geolocation.is_some() && changed(|e| json!(e.geolocation)) {
        // The page may read the position only with the permission (the session's own context).
        let info = browser.run(&TargetGetTargetInfo { target_id: target_id.to_string() }, left()).await?;
        let grant = BrowserGrantPermissions {
            permissions: vec!["geolocation".into()],
            browser_context_id: info.target_info.browser_context_id,
        };
        browser.run(&grant, left()).await?;
    }
    Ok(())
}

/// Runs `command` on `session` when there is one.
async fn maybe<C: Command>(session: &Session, command: Option<C>, timeout: Duration) -> Result<(), CdpError> {
    match command {
        Some(c) => session.run(&c, timeout).await.map(|_| ()),
        None => Ok(()),
    }
}
