//! A session's routes (`page.route`, `page.unroute`, `page.routes`, `session.start {routes}`): each
//! checked and completed here, before it is kept with the session's emulation and reaches its
//! worker, which answers the requests (`sb_worker`'s `intercept`).
//!
//! Pure: a route's file body is read by the caller ([`Body`]); the URL policy is not asked
//! here, since a route never widens it (a request let go meets the connection gate; a fulfilled one
//! reaches no network).

use base64::Engine as _;
use sb_protocol::api::{
    Route, RouteAction, RouteInfo, RoutesResult, MAX_ROUTES, MAX_ROUTES_BODY_BYTES, MAX_ROUTE_BODY_BYTES,
};
use sb_protocol::error::bad_request;
use sb_protocol::ErrorBody;

/// The longest URL pattern a route takes, chars.
const MAX_PATTERN_CHARS: usize = 2_048;
/// The longest `post_data` a route sends, bytes.
const MAX_POST_DATA_BYTES: usize = 1024 * 1024;

/// Whether `name` is an HTTP field name (RFC 9110's token).
pub fn http_token(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 256
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Whether `value` may be an HTTP field's value: at most 8192 characters, visible ones, spaces and
/// tabs (no line break, which would end the field).
pub fn header_value(value: &str) -> bool {
    value.len() <= 8_192 && !value.chars().any(|c| c.is_control() && c != '\t')
}

/// Checks the headers `field` of `method`: at most `max`, each name a token and each value a field's.
///
/// # Errors
/// `bad_request` naming the first header that is not one.
pub fn check_headers<'a>(
    method: &str,
    field: &str,
    headers: impl ExactSizeIterator<Item = (&'a String, &'a String)>,
    max: usize,
) -> Result<(), ErrorBody> {
    if headers.len() > max {
        return Err(bad_request(format!("{method} takes at most {max} {field}")));
    }
    for (n, v) in headers {
        if !http_token(n) || !header_value(v) {
            return Err(bad_request(format!(
                "{method} {field} {n:?}: a name is an HTTP token (letters, digits, !#$%&'*+-.^_`|~), a value at most 8192 characters without line breaks"
            )));
        }
    }
    Ok(())
}

/// A route's body file, read by the caller: `(its name, its bytes)`.
pub type Body = (String, Vec<u8>);

/// `route` checked and completed, as the session keeps it: its action decided (`abort` with an
/// `error`, `fulfill` with anything a response has, else `continue`), a `body_file`'s bytes (read by
/// the caller: `file`) kept as `body_base64` with a `content_type` from the file's extension.
///
/// # Errors
/// `bad_request` naming what is wrong: a pattern that is empty, too long or does not compile; a
/// field of another action; more than one body; a status outside 100..=599; a header HTTP cannot
/// carry; a body over [`MAX_ROUTE_BODY_BYTES`]; a `body_file` without its bytes.
pub fn checked(method: &str, mut route: Route, file: Option<Body>) -> Result<Route, ErrorBody> {
    let bad = |m: String| bad_request(format!("{method}: {m}"));
    if route.url.is_empty()
        || route.url.chars().count() > MAX_PATTERN_CHARS
        || route.url.chars().any(char::is_control)
    {
        return Err(bad(format!("url is a glob or /regex/ of 1 to {MAX_PATTERN_CHARS} characters")));
    }
    sb_protocol::pattern::url_pattern(&route.url).map_err(bad)?;
    let responds = route.status.is_some()
        || route.content_type.is_some()
        || route.headers.is_some()
        || route.body.is_some()
        || route.body_base64.is_some()
        || route.body_file.is_some();
    let rewrites = route.request_headers.is_some()
        || route.remove_headers.is_some()
        || route.method.is_some()
        || route.post_data.is_some();
    let action = match route.action {
        Some(a) => a,
        None if route.error.is_some() => RouteAction::Abort,
        None if responds => RouteAction::Fulfill,
        None => RouteAction::Continue,
    };
    let foreign = match action {
        RouteAction::Fulfill => (rewrites || route.error.is_some())
            .then_some("fulfill takes status, content_type, headers and one of body, body_base64, body_file"),
        RouteAction::Abort => (responds || rewrites).then_some("abort takes error only"),
        RouteAction::Continue => (responds || route.error.is_some())
            .then_some("continue takes request_headers, remove_headers, method and post_data"),
    };
    if let Some(m) = foreign {
        return Err(bad(m.into()));
    }
    route.action = Some(action);
    if route.status.is_some_and(|s| !(100..=599).contains(&s)) {
        return Err(bad("status is 100..=599".into()));
    }
    if let Some(kind) = &route.content_type {
        if kind.is_empty() || !header_value(kind) {
            return Err(bad("content_type is a header's value".into()));
        }
    }
    if let Some(h) = &route.headers {
        check_headers(method, "headers", h.iter(), 64)?;
    }
    if let Some(h) = &route.request_headers {
        check_headers(method, "request_headers", h.iter(), 64)?;
    }
    if route.remove_headers.iter().flatten().any(|n| !http_token(n))
        || route.remove_headers.as_ref().is_some_and(|r| r.len() > 64)
    {
        return Err(bad("remove_headers are at most 64 header names".into()));
    }
    if route.method.as_deref().is_some_and(|m| !http_token(m) || m.len() > 32) {
        return Err(bad("method is an HTTP method (GET, POST, ...)".into()));
    }
    if route.post_data.as_ref().is_some_and(|d| d.len() > MAX_POST_DATA_BYTES) {
        return Err(bad(format!("post_data is at most {MAX_POST_DATA_BYTES} bytes")));
    }
    let bodies = [route.body.is_some(), route.body_base64.is_some(), route.body_file.is_some()];
    if bodies.iter().filter(|b| **b).count() > 1 {
        return Err(bad("give one of body, body_base64 and body_file".into()));
    }
    if let Some(b64) = &route.body_base64 {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| bad(format!("body_base64 is not base64: {e}")))?;
        if bytes.len() > MAX_ROUTE_BODY_BYTES {
            return Err(bad(format!("a body is at most {MAX_ROUTE_BODY_BYTES} bytes")));
        }
    }
    if route.body.as_ref().is_some_and(|b| b.len() > MAX_ROUTE_BODY_BYTES) {
        return Err(bad(format!("a body is at most {MAX_ROUTE_BODY_BYTES} bytes")));
    }
    if let Some(name) = &route.body_file {
        let Some((read, bytes)) = file.filter(|(n, _)| n == name) else {
            return Err(bad(
                "body_file is read by page.route only; session.start takes body or body_base64".into()
            ));
        };
        if bytes.len() > MAX_ROUTE_BODY_BYTES {
            return Err(bad(format!("body_file {read:?} is over {MAX_ROUTE_BODY_BYTES} bytes")));
        }
        if route.content_type.is_none() {
            let guessed = mime_guess::from_path(&read).first_or_octet_stream();
            route.content_type = Some(guessed.essence_str().to_string());
        }
        route.body_base64 = Some(base64::engine::general_purpose::STANDARD.encode(bytes));
    }
    Ok(route)
}

/// Checks a session's whole list of routes: at most [`MAX_ROUTES`], their bodies together at most
/// [`MAX_ROUTES_BODY_BYTES`].
///
/// # Errors
/// `bad_request` saying which limit.
pub fn check_all(method: &str, routes: &[Route]) -> Result<(), ErrorBody> {
    if routes.len() > MAX_ROUTES {
        return Err(bad_request(format!(
            "{method}: a session has at most {MAX_ROUTES} routes (remove some with page.unroute)"
        )));
    }
    let bytes: u64 = routes.iter().filter_map(Route::body_bytes).sum();
    if bytes > MAX_ROUTES_BODY_BYTES as u64 {
        return Err(bad_request(format!(
            "{method}: a session's route bodies take at most {MAX_ROUTES_BODY_BYTES} bytes together"
        )));
    }
    Ok(())
}

/// `routes` less those added with exactly `url` (all of them without one).
pub fn without(routes: Vec<Route>, url: Option<&str>) -> Vec<Route> {
    routes.into_iter().filter(|r| url.is_some_and(|u| u != r.url)).collect()
}

/// The result that lists `routes` (bodies left out: [`Route::shown`]).
pub fn listed(routes: Option<&[Route]>) -> RoutesResult {
    RoutesResult { routes: routes.unwrap_or_default().iter().map(Route::shown).collect::<Vec<RouteInfo>>() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn route(v: serde_json::Value) -> Route {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_routes_action_follows_from_its_fields() {
        let action = |v| checked("page.route", route(v), None).unwrap().action.unwrap();
        assert_eq!(action(json!({"url": "**/a", "body": "x"})), RouteAction::Fulfill);
        assert_eq!(action(json!({"url": "**/a", "status": 404})), RouteAction::Fulfill);
        assert_eq!(action(json!({"url": "**/a", "error": "connectionrefused"})), RouteAction::Abort);
        assert_eq!(action(json!({"url": "**/a"})), RouteAction::Continue);
        assert_eq!(action(json!({"url": "**/a", "action": "abort"})), RouteAction::Abort);
        assert_eq!(action(json!({"url": "**/a", "request_headers": {"x-a": "1"}})), RouteAction::Continue);
    }

    #[test]
    fn a_route_that_mixes_actions_or_cannot_be_sent_is_refused() {
        for bad in [
            json!({"url": ""}),
            json!({"url": "/(unclosed/"}),
            json!({"url": "**/a", "action": "abort", "body": "x"}),
            json!({"url": "**/a", "action": "continue", "status": 200}),
            json!({"url": "**/a", "body": "x", "method": "POST"}),
            json!({"url": "**/a", "body": "x", "body_base64": "eA=="}),
            json!({"url": "**/a", "status": 99}),
            json!({"url": "**/a", "headers": {"bad name": "x"}}),
            json!({"url": "**/a", "request_headers": {"x": "a\nb"}}),
            json!({"url": "**/a", "body_base64": "not base64!"}),
            json!({"url": "**/a", "body_file": "page.html"}),
            json!({"url": "**/a", "method": "GET /x"}),
        ] {
            let e = checked("page.route", route(bad.clone()), None).unwrap_err();
            assert!(e.message.starts_with("page.route"), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn a_body_file_is_kept_as_its_bytes_with_its_type() {
        let r = route(json!({"url": "**/logo", "body_file": "logo.png"}));
        let kept = checked("page.route", r, Some(("logo.png".into(), vec![1, 2, 3]))).unwrap();
        assert_eq!(kept.body_base64.as_deref(), Some("AQID"));
        assert_eq!(kept.content_type.as_deref(), Some("image/png"));
        assert_eq!(kept.shown().body_bytes, Some(3));
        assert_eq!(kept.shown().route.body_base64, None);
    }

    #[test]
    fn unroute_removes_by_the_exact_pattern_or_all() {
        let all =
            vec![route(json!({"url": "**/a"})), route(json!({"url": "**/b"})), route(json!({"url": "**/a"}))];
        assert_eq!(without(all.clone(), Some("**/a")), vec![route(json!({"url": "**/b"}))]);
        assert_eq!(without(all, None), Vec::new());
        let many: Vec<Route> = (0..=MAX_ROUTES).map(|i| route(json!({"url": format!("**/{i}")}))).collect();
        assert!(check_all("page.route", &many).is_err() && check_all("page.route", &many[1..]).is_ok());
    }
}
