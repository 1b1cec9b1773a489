//! The network methods' entries: routes (`page.route`, `page.unroute`, `page.routes`), HAR
//! recording, the console and network journals.

use sb_protocol::api::{EmulateResult, Emulation};
use sb_protocol::api::{HarParams, HarResult, TraceAction};
use sb_protocol::api::{Route as UrlRoute, UnrouteParams, MAX_ROUTE_BODY_BYTES};
use sb_protocol::ipc::{Action, Output};
use sb_protocol::ErrorBody;
use serde_json::Value;

use super::method::{declared, finish_as, params, Done, PageMethod};
use crate::gate::guard::{GateSaid, Guard, GATE_ERRORS};

/// `page.route`: the route checked and completed ([`crate::features::routes::checked`]: a `body_file` read
/// from the uploads dir now), put before the session's others; the worker gets the whole emulation.
pub(super) static ROUTE: PageMethod = PageMethod {
    prepare: |_, v, cx| {
        let route: UrlRoute = params(v)?;
        let file = match &route.body_file {
            Some(name) => Some((name.clone(), cx.read_upload(name, MAX_ROUTE_BODY_BYTES)?)),
            None => None,
        };
        let route = crate::features::routes::checked("page.route", route, file)?;
        let now = cx.emulation();
        let routes: Vec<UrlRoute> =
            std::iter::once(route).chain(now.routes.clone().unwrap_or_default()).collect();
        crate::features::routes::check_all("page.route", &routes)?;
        Ok(Action::Emulate { emulation: Emulation { routes: Some(routes), ..now } })
    },
    finish: routes_listed,
    numbers_refs: false,
    after: None,
};

/// `page.unroute`: the session's routes less those added with `url` (all without it).
pub(super) static UNROUTE: PageMethod = PageMethod {
    prepare: |_, v, cx| {
        let p: UnrouteParams = params(v)?;
        let now = cx.emulation();
        let kept = crate::features::routes::without(now.routes.clone().unwrap_or_default(), p.url.as_deref());
        Ok(Action::Emulate { emulation: Emulation { routes: Some(kept), ..now } })
    },
    finish: routes_listed,
    numbers_refs: false,
    after: None,
};

/// `page.routes`: the session's emulation as it is (the worker changes nothing), its routes listed.
pub(super) static ROUTES: PageMethod = PageMethod {
    prepare: |_, _, cx| Ok(Action::Emulate { emulation: cx.emulation() }),
    finish: routes_listed,
    numbers_refs: false,
    after: None,
};

/// The session's emulation from now on, and its routes listed ([`crate::features::routes::listed`]).
fn routes_listed(o: Output) -> Result<Done, ErrorBody> {
    finish_as(o, |r: EmulateResult| {
        let listed = crate::features::routes::listed(r.emulation.routes.as_deref());
        Done { emulation: Some(r.emulation), ..Done::of(listed) }
    })
}

/// `session.har`: its params checked by its declaration ([`HarParams::check`]); a stop's file under
/// the owner's `hars` directory.
pub(super) static HAR: PageMethod = PageMethod {
    prepare: |method, v, cx| {
        let p: HarParams = params(declared(method, v)?)?;
        let path = match (p.action, &p.name) {
            (TraceAction::Start, _) => None,
            (TraceAction::Stop, Some(name)) => Some(cx.named_artifact("har", name)?),
            (TraceAction::Stop, None) => Some(cx.artifact_path("har")?),
        };
        Ok(Action::Har { params: p, path })
    },
    finish: |o| finish_as(o, Done::of::<HarResult>),
    numbers_refs: false,
    after: None,
};

/// `page.network`: the declared checks and the worker's handler, as every worker method without an
/// entry of its own ([`super::CALL`]); after it, the requests the connection gate refused are marked.
pub(super) static NETWORK: PageMethod = PageMethod {
    prepare: super::CALL.prepare,
    finish: super::CALL.finish,
    numbers_refs: false,
    after: Some(|s, outcome| {
        if let Ok(result) = outcome {
            mark_refused(s.guard, result);
        }
        Box::pin(std::future::ready(()))
    }),
};

/// `page.network`'s failed requests as the connection gate saw them: one whose host the URL policy
/// refused gets `blocked` (the rule); one the gate could not reach gets Chromium's real error for it
/// (the page saw the tunnel fail).
fn mark_refused(guard: &Guard, result: &mut Value) {
    let Some(requests) = result.get_mut("requests").and_then(Value::as_array_mut) else { return };
    for r in requests {
        let failure = r.get("failure").and_then(Value::as_str).unwrap_or_default();
        // Chromium may add a detail (`net::ERR_BLOCKED_BY_CLIENT.Inspector`).
        if !GATE_ERRORS.iter().any(|e| failure.starts_with(e)) {
            continue;
        }
        let url = r.get("url").and_then(Value::as_str).unwrap_or_default();
        match guard.gate_said(url) {
            Some(GateSaid::Refused(rule)) => r["blocked"] = Value::String(rule),
            Some(GateSaid::Unreachable(real)) => r["failure"] = Value::String(real.to_string()),
            None => {}
        }
    }
}
