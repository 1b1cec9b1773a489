//! URL patterns as Playwright reads them: a glob (`**/api/*`, `**/*.{png,jpg}`) or a regular
//! expression written as its MCP clients write one in JSON (`/api\/v\d+/i`). One reading for every
//! method that takes one (`page.route`, `page.unroute`, `page.wait_for {url | response}`,
//! `page.network {filter}`), so the supervisor refuses a pattern that does not compile before a
//! worker would have to.

/// A URL pattern compiled for matching: a regular expression written `/pattern/flags` (flags of
/// `dgimsuyv`; `i` is kept, the others do not change what a URL matches), searched anywhere in the
/// URL as `RegExp.test` does; else a glob ([`glob_to_regex`]), matched against the whole URL.
///
/// # Errors
/// A one-line message when a regular expression does not compile, or a glob's `{` group is not
/// closed.
pub fn url_pattern(pattern: &str) -> Result<regex_lite::Regex, String> {
    if let Some((source, flags)) = as_regex(pattern) {
        let case = if flags.contains('i') { "(?i)" } else { "" };
        return regex_lite::Regex::new(&format!("{case}{source}"))
            .map_err(|e| format!("the regular expression {pattern:?} is not usable: {e}"));
    }
    regex_lite::Regex::new(&glob_to_regex(pattern))
        .map_err(|e| format!("the glob {pattern:?} is not usable: {e}"))
}

/// `(pattern, flags)` of a `/pattern/flags` regular expression; `None` for anything else (a glob).
fn as_regex(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix('/')?;
    let end = rest.rfind('/')?;
    let (source, flags) = (&rest[..end], &rest[end + 1..]);
    let flags_ok = flags.chars().all(|c| "dgimsuyv".contains(c));
    (!source.is_empty() && flags_ok).then_some((source, flags))
}

/// A URL glob as an anchored regex (the same source for Rust's `regex_lite` and a page's `RegExp`),
/// as Playwright's `globToRegexPattern` (`utils/isomorphic/urlMatch.ts`) reads one: `**/` zero or
/// more directories, `**` any characters, `*` any but `/`, `?` one character, `{a,b}` either, `\`
/// the next character as itself. Ours escapes `[` and `]` (Playwright passes them on as a class).
pub fn glob_to_regex(glob: &str) -> String {
    let mut re = String::from("^");
    let mut chars = glob.chars().peekable();
    let mut in_group = false;
    let literal = |re: &mut String, c: char| {
        if "\\^$.|+()[]{}*?".contains(c) {
            re.push('\\');
        }
        re.push(c);
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next) => literal(&mut re, next),
                None => literal(&mut re, '\\'),
            },
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                // `**/` is zero or more directories; a lone `**` any characters.
                if chars.peek() == Some(&'/') {
                    chars.next();
                    re.push_str("(?:.*/)?");
                } else {
                    re.push_str(".*");
                }
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push('.'),
            '{' => {
                in_group = true;
                re.push_str("(?:");
            }
            '}' if in_group => {
                in_group = false;
                re.push(')');
            }
            ',' if in_group => re.push('|'),
            c => literal(&mut re, c),
        }
    }
    re.push('$');
    re
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slashed_patterns_are_regular_expressions_and_the_rest_globs() {
        let re = url_pattern(r"/api\/v\d+/i").unwrap();
        assert!(re.is_match("https://h.test/API/v2/items"), "searched anywhere, case ignored");
        assert!(!re.is_match("https://h.test/api/x"));
        let glob = url_pattern("**/api/*").unwrap();
        assert!(glob.is_match("https://h.test/api/items") && !glob.is_match("https://h.test/api/a/b"));
        // Not a regular expression: a flag that is not one, or nothing between the slashes.
        assert!(as_regex("/api/*").is_none() && as_regex("//").is_none() && as_regex("api/x/").is_none());
        assert!(url_pattern("/(unclosed/").unwrap_err().contains("regular expression"));
        assert!(url_pattern("**/{a,b").unwrap_err().contains("glob"));
    }

    #[test]
    fn globs_become_anchored_regexes() {
        assert_eq!(glob_to_regex("**/done.html"), "^(?:.*/)?done\\.html$");
        assert_eq!(glob_to_regex("**/c/**/s.html"), "^(?:.*/)?c/(?:.*/)?s\\.html$");
        assert_eq!(glob_to_regex("http://h/**"), "^http://h/.*$");
        assert_eq!(glob_to_regex("http://h/*/x?y"), "^http://h/[^/]*/x.y$");
        assert_eq!(glob_to_regex("a+(b)"), "^a\\+\\(b\\)$");
        assert_eq!(glob_to_regex("x,y[1]"), "^x,y\\[1\\]$");
        assert_eq!(glob_to_regex(r"a\*b\{"), "^a\\*b\\{$");
    }

    #[test]
    fn a_group_matches_either_of_its_words() {
        let images = url_pattern("**/*.{png,jpg}").unwrap();
        assert!(images.is_match("http://h/i/a.png") && images.is_match("http://h/b.jpg"));
        assert!(!images.is_match("http://h/a.gif") && !images.is_match("http://h/a.png?x"));
    }
}
