//! What a session's pages emulate (`page.emulate`): the media features, locale, time zone, position,
//! user agent and the network's absence, set on each page the worker attaches to, as Playwright sets
//! a context's options on each of its pages (`crPage.ts`: `_updateEmulateMedia`, `_updateLocale`,
//! `_updateTimezone`, `_updateGeolocation`, `_updateUserAgent`, `_updateOffline`). Every call sets its
//! setting whole, so a field cleared by `reset` is cleared in the page too.

use std::time::Duration;

use sb_cdp::{CdpClient, CdpError, Session};
use sb_protocol::api::{ColorScheme, Emulation, ReducedMotion};
use sb_protocol::Budget;
use serde_json::{json, Value};

/// Longest one emulation call may take.
const STEP: Duration = Duration::from_millis(2_000);

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
    let step = || budget.capped(STEP);
    let changed = |f: fn(&Emulation) -> Value| f(before) != f(e);
    let skip = || std::future::ready(Ok::<Value, CdpError>(Value::Null));
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
    let features = json!({"features": [
        {"name": "prefers-color-scheme", "value": color},
        {"name": "prefers-reduced-motion", "value": motion},
    ]});
    // The user agent Chromium sends by itself, when the locale needs one to carry its language.
    let agent_changed = changed(|e| json!([e.user_agent, e.locale]));
    let user_agent = match (&e.user_agent, &e.locale) {
        (Some(ua), _) => Some(ua.clone()),
        (None, Some(_)) if agent_changed => {
            let version: Value = browser.call_raw("Browser.getVersion", None, json!({}), step()).await?;
            version.get("userAgent").and_then(Value::as_str).map(str::to_string)
        }
        _ => None,
    };
    let agent = match user_agent {
        Some(ua) => json!({"userAgent": ua, "acceptLanguage": e.locale.clone().unwrap_or_default()}),
        None => json!({"userAgent": ""}),
    };
    let network = json!({
        "offline": e.offline.unwrap_or(false), "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1,
    });
    let geolocation = match e.geolocation {
        Some(g) => json!({"latitude": g.latitude, "longitude": g.longitude, "accuracy": g.accuracy}),
        None => json!({}),
    };
    let call = |on: bool, method: &'static str, params: Value| {
        let sent = on.then(|| session.call_raw(method, params, step()));
        async move {
            match sent {
                Some(sent) => sent.await,
                None => skip().await,
            }
        }
    };
    let (media, agent, network, position) = tokio::join!(
        call(changed(|e| json!([e.color_scheme, e.reduced_motion])), "Emulation.setEmulatedMedia", features),
        call(agent_changed, "Emulation.setUserAgentOverride", agent),
        call(changed(|e| json!(e.offline)), "Network.emulateNetworkConditions", network),
        call(changed(|e| json!(e.geolocation)), "Emulation.setGeolocationOverride", geolocation),
    );
    media?;
    agent?;
    network?;
    position?;
    if changed(|e| json!(e.locale)) {
        // One locale override at a time: the one in force goes first.
        if before.locale.is_some() {
            session.call_raw("Emulation.setLocaleOverride", json!({}), step()).await?;
        }
        if let Some(locale) = &e.locale {
            session.call_raw("Emulation.setLocaleOverride", json!({"locale": locale}), step()).await?;
        }
    }
    if changed(|e| json!(e.timezone)) {
        let zone = e.timezone.clone().unwrap_or_default();
        session.call_raw("Emulation.setTimezoneOverride", json!({"timezoneId": zone}), step()).await?;
    }
    if e.geolocation.is_some() && changed(|e| json!(e.geolocation)) {
        // The page may read the position only with the permission (the session's own context).
        let info: Value =
            browser.call_raw("Target.getTargetInfo", None, json!({"targetId": target_id}), step()).await?;
        let context = info.pointer("/targetInfo/browserContextId").cloned().unwrap_or(Value::Null);
        let grant = json!({"permissions": ["geolocation"], "browserContextId": context});
        browser.call_raw("Browser.grantPermissions", None, grant, step()).await?;
    }
    Ok(())
}
