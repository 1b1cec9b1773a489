//! Credentials out of what the runtime writes down: URLs in logs, error messages and the session
//! store carry no userinfo and no secret-looking query parameters.
//!
//! A URL's userinfo (`user:pass@`) becomes `redacted@`; the value of a query parameter whose name
//! looks like a credential ([`SECRET_NAMES`], matched case-insensitively as a part of the name, so
//! `access_token` and `X-Amz-Signature` count; and [`SECRET_WORDS`] as a whole name or a part of one)
//! becomes `redacted`, in the query and in a fragment of `key=value` pairs alike. Text that is not an
//! absolute URL is returned as it is.

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
pub const SECRET_WORDS: &[&str] = &["code", "pw"];

/// The value that replaces a credential.
pub const REDACTED: &str = "redacted";

/// Whether a query parameter named `name` holds a credential.
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_NAMES.iter().any(|s| lower.contains(s))
        || lower.split(['_', '-', '.']).any(|part| SECRET_WORDS.contains(&part))
}

/// `pairs` (a query's or a fragment's `key=value` pairs) with the credentials' values redacted, when
/// any is one.
fn redacted_pairs(pairs: url::form_urlencoded::Parse<'_>) -> Option<Vec<(String, String)>> {
    if !pairs.clone().any(|(k, _)| is_secret_name(&k)) {
        return None;
    }
    Some(
        pairs
            .map(|(k, v)| {
                let v = if is_secret_name(&k) { REDACTED.to_string() } else { v.into_owned() };
                (k.into_owned(), v)
            })
            .collect(),
    )
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

/// `text` with every absolute http(s) URL in it passed through [`in_url`] (for error messages that quote
/// one).
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
        let start = word.find("http://").or_else(|| word.find("https://"));
        match start {
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
            "https://app.example/cb#access_token=redacted&token_type=redacted&state=x"
        );
        assert_eq!(
            in_url("https://app.example/cb?code=abc&jwt=e.y.j&pw=1&bearer=t&user_pw=2&zipcode=12345"),
            "https://app.example/cb?code=redacted&jwt=redacted&pw=redacted&bearer=redacted&user_pw=redacted&zipcode=12345"
        );
        assert!(matches!(in_url("https://example.com/doc#section-2"), Cow::Borrowed(_)));
        assert!(matches!(in_url("https://example.com/a#x=1"), Cow::Borrowed(_)));
    }
}
