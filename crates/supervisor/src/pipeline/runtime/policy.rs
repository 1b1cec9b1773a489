//! The request pipeline's policy step: the URL a method names checked against the URL policy
//! before anything runs, and a refusal met on the way (by the connection gate, or a remote browser's
//! interception) told as the policy's, not as a network failure (`page.network`'s entries are marked
//! by its own entry, `dispatch::network`).

use sb_protocol::api::Method;
use sb_protocol::error::bad_request;
use sb_protocol::{Budget, ErrorBody, ErrorCode, Phase};
use serde_json::Value;

use super::Runtime;
use crate::gate::guard::{GateSaid, GATE_ERRORS};

impl Runtime {
    /// The URL policy on the URL a navigation (`page.goto`, `tabs.open`) would load, within the
    /// request's budget.
    ///
    /// # Errors
    /// `bad_request` for a string that is not a URL; `url_blocked` (phase `navigate`) naming the rule,
    /// the URL without its credentials.
    pub(super) async fn url_allowed(
        &self,
        method: Method,
        params: &Value,
        budget: Budget,
    ) -> Result<(), ErrorBody> {
        if !method.navigates() {
            return Ok(());
        }
        let Some(url) = params.get("url").and_then(Value::as_str) else { return Ok(()) };
        // Nothing was blocked when the input is not a URL at all: the input is wrong.
        if let Err(e) = url::Url::parse(url) {
            let shown = sb_protocol::redact::in_url(url);
            return Err(bad_request(format!(
                "{}: {shown:?} is not a valid URL ({e}); give an absolute URL such as https://example.com/",
                method.name()
            )));
        }
        self.guard.allows(url, budget).await.map_err(|b| {
            let shown = sb_protocol::redact::in_url(url);
            ErrorBody::new(ErrorCode::UrlBlocked, Phase::Navigate, format!("{shown} is blocked: {}", b.rule))
        })
    }

    /// A navigation that failed at the connection gate (Chromium, behind a proxy, only says
    /// `net::ERR_TUNNEL_CONNECTION_FAILED` or `net::ERR_EMPTY_RESPONSE`) answers as it would have
    /// without one, from what the gate said of the URL it last asked for (a redirect's last hop):
    /// `url_blocked` naming that URL (without its credentials) and the rule, or Chromium's own error
    /// for why the gate could not connect (`net::ERR_CONNECTION_REFUSED`, ...). Any other error is kept.
    pub(super) fn refused_on_the_way(&self, method: Method, mut e: ErrorBody) -> ErrorBody {
        if !method.navigates() || e.code != ErrorCode::NavigationFailed {
            return e;
        }
        let seen = GATE_ERRORS.into_iter().find(|seen| e.message.contains(seen));
        let (Some(seen), Some(url)) = (seen, e.url.as_deref()) else { return e };
        match self.guard.gate_said(url) {
            Some(GateSaid::Refused(rule)) => {
                let shown = sb_protocol::redact::in_url(url);
                ErrorBody::new(
                    ErrorCode::UrlBlocked,
                    Phase::Navigate,
                    format!("the navigation reached {shown}, which is blocked: {rule}"),
                )
            }
            Some(GateSaid::Unreachable(real)) => {
                e.message = e.message.replace(seen, real);
                e
            }
            None => e,
        }
    }
}
