//! Credentials out of what the runtime writes down: URLs in logs, error messages and the session
//! store carry no userinfo and no secret-looking query parameters.
//!
//! A URL's userinfo (`user:pass@`) becomes `redacted@`; the value of a query parameter whose name
//! looks like a credential ([`SECRET_NAMES`], matched case-insensitively as a part of the name, so
//! `access_token` and `X-Amz-Signature` count; and [`SECRET_WORDS`] as a whole name or a part of one)
//! becomes `redacted`, in the query, in a fragment of `key=value` pairs and in a path segment's
//! `;name=value` parameters (`;jsessionid=`) alike; so does a value shaped as a JSON Web Token
//! (`eyJ...` in three dotted parts) under any name, and a value that is itself a URL (a percent-encoded
//! redirect target) loses its own credentials. Any scheme (`http`, `https`, `ws`, `wss`, ...). Text
//! that is not an absolute URL is returned as it is.

use std::borrow::Cow;

/// Parts of a query parameter's name that make it a credential (anywhere in the name).
pub const SECRET_NAMES: &[&str] = &[
    "token",
    "key",
    "secret",
    "password",
    "passwd",
    "pwd",
    "sig",
    "auth",
    "credential",
    "session",
    "jwt",
    "bearer",
];

/// Short names that are a credential when they are the whole name or one of its `_`, `-` or `.`
/// separated parts (an OAuth `code`, a `pw`), not inside a longer word (`zipcode`).
pub const SECRET_WORDS: &[&str] = &["code", "pw", "otp", "pin", "state"];

/// The value that replaces a credential.
pub const REDACTED: &str = "redacted";

/// Whether a query parameter named `name` holds a credential.
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_NAMES.iter().any(|s| lower.contains(s))
        || lower.split(['_', '-', '.']).any(|part| SECRET_WORDS.contains(&part))
}

/// Whether `value` is shaped as a JSON Web Token: `eyJ` (the base64url of `{"`), then three
/// base64url parts joined by dots (the last may be empty: an unsigned token).
fn is_jwt(value: &str) -> bool {
    let b64 = |p: &str| p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let parts: Vec<&str> = value.split('.').collect();
    value.starts_with("eyJ")
        && parts.len() == 3
        && parts[..2].iter().all(|p| p.len() >= 4)
        && parts.iter().all(|p| b64(p))
}

/// `value` of a parameter named `name` as it may be written down: `redacted` for a credential's name
/// or a token's shape; a URL's own credentials redacted ([`in_url`]); else `None` (kept as it is).
fn redacted_value(name: &str, value: &str) -> Option<String> {
    if is_secret_name(name) || is_jwt(value) {
        return Some(REDACTED.to_string());
    }
    match in_url(value) {
        Cow::Owned(clean) if value.contains("://") => Some(clean),
        _ => None,
    }
}

/// `pairs` (a query's or a fragment's `key=value` pairs) with the credentials' values redacted, when
/// any is one.
fn redacted_pairs(pairs: url::form_urlencoded::Parse<'_>) -> Option<Vec<(String, String)>> {
    if !pairs.clone().any(|(k, v)| redacted_value(&k, &v).is_some()) {
        return None;
    }
    Some(
        pairs
            .map(|(k, v)| (k.to_string(), redacted_value(&k, &v).unwrap_or_else(|| v.into_owned())))
            .collect(),
    )
}

/// A path with its segments' `;name=value` parameters and JWT-shaped segments redacted, when any
/// is one.
fn redacted_path(path: &str) -> Option<String> {
    let mut changed = false;
    let segments: Vec<String> = path
        .split('/')
        .map(|segment| {
            let mut parts = segment.split(';');
            let head = parts.next().unwrap_or_default();
            let mut out = if is_jwt(head) {
                changed = true;
                REDACTED.to_string()
            } else {
                head.to_string()
            };
            for param in parts {
                out.push(';');
                match param.split_once('=') {
                    Some((name, value)) if redacted_value(name, value).is_some() => {
                        changed = true;
                        out.push_str(name);
                        out.push('=');
                        out.push_str(REDACTED);
                    }
                    _ => out.push_str(param),
                }
            }
            out
        })
        .collect();
    changed.then(|| segments.join("/"))
}

/// `url` without its userinfo (`user:pass@`), the rest as it is: what an agent is told of a page's
/// URL (a query's parameters are the page's, which an agent may need; a password is not).
pub fn userinfo(url: &str) -> Cow<'_, str> {
    match url::Url::parse(url) {
        Ok(mut parsed) if !parsed.username().is_empty() || parsed.password().is_some() => {
            let _ = parsed.set_password(None);
            let _ = parsed.set_username("");
            Cow::Owned(parsed.into())
        }
        _ => Cow::Borrowed(url),
    }
}

/// `url` without its credentials (see the module doc); borrowed when there were none.
pub fn in_url(url: &str) -> Cow<'_, str> {
    let Ok(mut parsed) = url::Url::parse(url) else { return Cow::Borrowed(url) };
    let mut changed = false;
    if !parsed.username().is_empty() || parsed.password().is_some() {
        changed = true;
        let _ = parsed.set_password(None);
        let _ = parsed.set_username(REDACTED);
    }
    if let Some(path) = redacted_path(parsed.path()) {
        changed = true;
        parsed.set_path(&path);
    }
    if let Some(pairs) = redacted_pairs(parsed.query_pairs()) {
        changed = true;
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
    }
    // A fragment of key=value pairs carries credentials too (OAuth's implicit flow:
    // `#access_token=...&token_type=bearer`).
    let fragment = parsed.fragment().filter(|f| f.contains('=')).map(str::to_string);
    if let Some(pairs) = fragment.and_then(|f| redacted_pairs(url::form_urlencoded::parse(f.as_bytes()))) {
        changed = true;
        let text = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
        parsed.set_fragment(Some(&text));
    }
    if changed {
        Cow::Owned(parsed.into())
    } else {
        Cow::Borrowed(url)
    }
}

/// Where the absolute URL in `word` starts: its scheme (a letter, then letters, digits, `+`, `-`, `.`)
/// before the first `://`.
fn url_start(word: &str) -> Option<usize> {
    let colon = word.find("://")?;
    let scheme_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.');
    let start = word[..colon].rfind(|c: char| !scheme_char(c)).map_or(0, |i| i + 1);
    let start = start + word[start..colon].find(|c: char| c.is_ascii_alphabetic())?;
    (start < colon).then_some(start)
}

/// `text` with every absolute URL in it, of any scheme (`http`, `https`, `ws`, `wss`), passed through
/// [`in_url`] (for error messages and log lines that quote one).
pub fn in_text(text: &str) -> Cow<'_, str> {
    if !text.contains("://") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match url_start(word) {
            Some(at) => {
                let end = word[at..].find(['"', '\'', ')', ']', '>', ',']).map_or(word.len(), |e| at + e);
                let redacted = in_url(&word[at..end]);
                changed |= matches!(redacted, Cow::Owned(_));
                out.push_str(&word[..at]);
                out.push_str(&redacted);
                out.push_str(&word[end..]);
            }
            None => out.push_str(word),
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

/// Params fields whose value is what the agent typed or stored (`page.type`'s and `page.keyboard`'s
/// `text`, `page.fill`'s and `page.storage`'s `value`, `session.cookies`' `cookies`, a form's fields):
/// a password among them must not reach a log, a trace or the live view.
pub const TYPED_FIELDS: &[&str] = &["text", "value", "cookies", "prompt_text", "cdp_headers"];

/// The longest string of params kept as it is in a trace or the live view (chars); longer ones are
/// cut with `…`.
pub const MAX_PARAM_CHARS: usize = 200;

/// A request's params as the live view and a trace show them: the value of a [`TYPED_FIELDS`] field
/// (at any depth) becomes `"redacted (N chars)"`, every string loses a URL's credentials ([`in_text`])
/// and is cut at [`MAX_PARAM_CHARS`].
pub fn params(params: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    fn walk(v: &Value, typed: bool) -> Value {
        match v {
            Value::String(s) if typed => Value::String(format!("{REDACTED} ({} chars)", s.chars().count())),
            Value::String(s) => {
                let clean = in_text(s);
                let mut out: String = clean.chars().take(MAX_PARAM_CHARS).collect();
                if clean.chars().count() > MAX_PARAM_CHARS {
                    out.push('…');
                }
                Value::String(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(|i| walk(i, typed)).collect()),
            Value::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.clone(), walk(v, typed || TYPED_FIELDS.contains(&k.as_str()))))
                    .collect(),
            ),
            Value::Null | Value::Bool(_) | Value::Number(_) => {
                if typed && !v.is_null() {
                    Value::String(REDACTED.into())
                } else {
                    v.clone()
                }
            }
        }
    }
    walk(params, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_text_and_url_credentials_leave_params() {
        let p = serde_json::json!({
            "selector": "#pw", "text": "hunter2",
            "fields": [{"ref": "e3", "value": "s3cret"}],
            "url": "https://ann:pw@example.com/?token=abc", "key": "Enter", "expression": "x".repeat(300)
        });
        let shown = params(&p);
        assert_eq!(shown["text"], "redacted (7 chars)");
        assert_eq!(shown["fields"][0]["value"], "redacted (6 chars)");
        assert_eq!(shown["fields"][0]["ref"], "e3");
        assert_eq!(shown["url"], "https://redacted@example.com/?token=redacted");
        assert_eq!(shown["key"], "Enter");
        assert_eq!(shown["expression"].as_str().unwrap().chars().count(), MAX_PARAM_CHARS + 1);
        assert!(!shown.to_string().contains("hunter2") && !shown.to_string().contains("s3cret"));
    }

    #[test]
    fn userinfo_and_secret_parameters_are_redacted() {
        assert_eq!(
            in_url("https://ann:hunter2@example.com/a?q=rust&access_token=abc&X-Amz-Signature=f00&page=2"),
            "https://redacted@example.com/a?q=rust&access_token=redacted&X-Amz-Signature=redacted&page=2"
        );
        assert!(matches!(in_url("https://example.com/a?q=1#x"), Cow::Borrowed(_)));
        assert_eq!(in_url("not a url"), "not a url");
        assert_eq!(
            in_text("navigation to \"http://h/p?apikey=s3cr3t\" failed: net::ERR_FAILED"),
            "navigation to \"http://h/p?apikey=redacted\" failed: net::ERR_FAILED"
        );
        assert!(matches!(in_text("no url here"), Cow::Borrowed(_)));
    }

    /// Issue 28 §4: a fragment's key=value pairs, and the names `code`, `jwt`, `pw`, `bearer`.
    #[test]
    fn fragments_and_short_secret_names_are_redacted() {
        assert_eq!(
            in_url("https://app.example/cb#access_token=abc&token_type=bearer&state=x"),
            "https://app.example/cb#access_token=redacted&token_type=redacted&state=redacted"
        );
        assert_eq!(
            in_url("https://app.example/cb?code=abc&jwt=e.y.j&pw=1&bearer=t&user_pw=2&zipcode=12345"),
            "https://app.example/cb?code=redacted&jwt=redacted&pw=redacted&bearer=redacted&user_pw=redacted&zipcode=12345"
        );
        assert!(matches!(in_url("https://example.com/doc#section-2"), Cow::Borrowed(_)));
        assert!(matches!(in_url("https://example.com/a#x=1"), Cow::Borrowed(_)));
    }

    /// Issue 53 §8 and §10: every scheme, `otp`, `pin`, `state`, `;jsessionid=`, a JWT under any name,
    /// a redirect target's own credentials; a page's URL told to an agent loses only its userinfo.
    #[test]
    fn every_scheme_path_parameters_tokens_and_redirect_targets_are_redacted() {
        assert_eq!(
            in_url("wss://pool.example/devtools?token=abc&x=1"),
            "wss://pool.example/devtools?token=redacted&x=1"
        );
        assert_eq!(
            in_text("cannot reach ws://pool:9222/devtools/browser/1?apikey=s3 (refused)"),
            "cannot reach ws://pool:9222/devtools/browser/1?apikey=redacted (refused)"
        );
        assert_eq!(in_text("cdp_url=\"wss://u:p@h/\""), "cdp_url=\"wss://redacted@h/\"");
        assert_eq!(
            in_url("https://a.example/login?otp=123456&pin=1234&state=xyz&statement=ok"),
            "https://a.example/login?otp=redacted&pin=redacted&state=redacted&statement=ok"
        );
        assert_eq!(
            in_url("https://a.example/app;jsessionid=ABC123?q=1"),
            "https://a.example/app;jsessionid=redacted?q=1"
        );
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl";
        assert_eq!(
            in_url(&format!("https://a.example/cb?id_value={jwt}")),
            "https://a.example/cb?id_value=redacted"
        );
        assert_eq!(in_url(&format!("https://a.example/t/{jwt}/x")), "https://a.example/t/redacted/x");
        let nested = "https://a.example/go?next=https%3A%2F%2Fb.example%2Fcb%3Ftoken%3Dabc%26x%3D1";
        let clean = in_url(nested);
        assert!(!clean.contains("abc") && clean.contains("b.example"), "{clean}");
        assert_eq!(userinfo("http://ann:hunter2@h.example/p?token=keep"), "http://h.example/p?token=keep");
        assert!(matches!(userinfo("https://h.example/"), Cow::Borrowed(_)));
    }
}
