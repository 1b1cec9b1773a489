//! `page.emulate`'s entry, and the check of an emulation that `session.start` shares.

use sb_protocol::api::{
    EmulateParams, EmulateResult, Emulation, MAX_EXTRA_HEADERS, MAX_INIT_SCRIPTS, MAX_INIT_SCRIPT_BYTES,
};
use sb_protocol::error::bad_request;
use sb_protocol::ipc::Action;
use sb_protocol::ErrorBody;

use super::method::{finish_as, params, Done, PageMethod};

/// `page.emulate`: each field checked (a position on the globe, names of sane length and characters),
/// then merged into what the session emulates (or into nothing, with `reset`): the worker gets the
/// whole emulation.
/// Checks what `method` (`page.emulate`, `session.start`) is asked to emulate: a position on Earth,
/// names of a sane length without control characters, headers HTTP can carry, routes
/// ([`crate::features::routes::checked`], each completed in place: its action decided).
///
/// # Errors
/// `bad_request` naming the field.
pub fn check_emulation(method: &str, e: &mut Emulation, sessions_apart: bool) -> Result<(), ErrorBody> {
    // The clipboard is the browser's, one for all its sessions: with sessions kept apart, none may
    // read what another's page wrote.
    let reads_clipboard =
        e.permissions.iter().flatten().any(|p| *p == sb_protocol::api::Permission::ClipboardRead);
    if sessions_apart && reads_clipboard {
        return Err(bad_request(format!(
            "{method}: clipboard-read is not granted with [limits] session_tokens on: the browser's clipboard is shared by every session"
        )));
    }
    if let Some(g) = e.geolocation {
        let ok = (-90.0..=90.0).contains(&g.latitude)
            && (-180.0..=180.0).contains(&g.longitude)
            && g.accuracy.is_finite()
            && g.accuracy >= 0.0;
        if !ok {
            return Err(bad_request(format!(
                "{method} geolocation needs latitude -90..90, longitude -180..180 and accuracy 0 or more (metres)"
            )));
        }
    }
    let name = |field: &str, v: &Option<String>, max: usize| match v {
        Some(s) if s.is_empty() || s.len() > max || s.chars().any(char::is_control) => Err(bad_request(
            format!("{method} {field} must be 1 to {max} characters without control characters"),
        )),
        _ => Ok(()),
    };
    name("locale", &e.locale, 35)?;
    name("timezone", &e.timezone, 64)?;
    name("user_agent", &e.user_agent, 1_000)?;
    if let Some(headers) = &e.extra_http_headers {
        crate::features::routes::check_headers(
            method,
            "extra_http_headers",
            headers.iter(),
            MAX_EXTRA_HEADERS,
        )?;
    }
    if let Some(c) = &e.http_credentials {
        let plain = |s: &str| s.len() <= 1_024 && !s.chars().any(char::is_control);
        let origin_ok = c.origin.as_deref().is_none_or(|o| {
            url::Url::parse(o).is_ok_and(|u| {
                matches!(u.scheme(), "http" | "https")
                    && u.path() == "/"
                    && u.query().is_none()
                    && u.fragment().is_none()
                    && u.username().is_empty()
                    && u.password().is_none()
            })
        });
        if !plain(&c.username) || !plain(&c.password) || !origin_ok {
            return Err(bad_request(format!(
                "{method} http_credentials: username and password of at most 1024 characters without control characters; origin as scheme://host[:port]"
            )));
        }
    }
    if let Some(routes) = e.routes.as_mut() {
        for r in routes.iter_mut() {
            *r = crate::features::routes::checked(method, std::mem::take(r), None)?;
        }
        crate::features::routes::check_all(method, routes)?;
    }
    if let Some(scripts) = &e.init_scripts {
        if scripts.len() > MAX_INIT_SCRIPTS || scripts.iter().any(|s| s.len() > MAX_INIT_SCRIPT_BYTES) {
            return Err(bad_request(format!(
                "{method} takes at most {MAX_INIT_SCRIPTS} init_scripts of at most {MAX_INIT_SCRIPT_BYTES} bytes each"
            )));
        }
    }
    Ok(())
}

pub(super) static EMULATE: PageMethod = PageMethod {
    prepare: |_, v, cx| {
        let mut p: EmulateParams = params(v)?;
        check_emulation("page.emulate", &mut p.emulation, cx.sessions_apart())?;
        if p.emulation.routes.is_some() {
            return Err(bad_request(
                "page.emulate does not take routes: add one with page.route, remove them with page.unroute",
            ));
        }
        let e = &p.emulation;
        // `reset` clears what the session emulates, not the scripts it was started with nor its
        // routes.
        let now = cx.emulation();
        let base = match p.reset {
            true => Emulation { init_scripts: now.init_scripts, routes: now.routes, ..Emulation::default() },
            false => now,
        };
        Ok(Action::Emulate { emulation: base.merged(e) })
    },
    // The session keeps the password; the caller's answer shows `***`.
    finish: |o| {
        finish_as(o, |r: EmulateResult| {
            let mut shown = r.clone();
            if let Some(c) = shown.emulation.http_credentials.as_mut() {
                c.password = "***".into();
            }
            // Routes are listed by page.routes, without their bodies.
            shown.emulation.routes = None;
            Done { emulation: Some(r.emulation), ..Done::of(shown) }
        })
    },
    numbers_refs: false,
    after: None,
};
