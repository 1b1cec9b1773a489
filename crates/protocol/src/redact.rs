//! Credentials out of what the runtime writes down: URLs in logs, error messages and the session
//! store carry no userinfo and no secret-looking query parameters.
//!
//! A URL's userinfo (`user:pass@`) becomes `redacted@`; the value of a query parameter whose name
//! looks like a credential ([`SECRET_NAMES`], matched case-insensitively as a part of the name, so
//! `access_token` and `X-Amz-Signature` count) becomes `redacted`. Text that is not an absolute URL is
//! returned as it is.

use std::borrow::Cow;

/// Parts of a query parameter's name that make it a credential.
pub const SECRET_NAMES: &[&str] =
    &["token", "key", "secret", "password", "passwd", "pwd", "sig", "auth", "credential", "session"];

/// The value that replaces a credential.
pub const REDACTED: &str = "redacted";

/// Whether a query parameter named `name` holds a credential.
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_NAMES.iter().any(|s| lower.contains(s))
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
    if parsed.query_pairs().any(|(k, _)| is_secret_name(&k)) {
        changed = true;
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(k, v)| {
                let v = if is_secret_name(&k) { REDACTED.to_string() } else { v.into_owned() };
                (k.into_owned(), v)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
