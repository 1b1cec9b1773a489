//! `page.snapshot`: the page as Playwright's aria snapshot (`locator('body').ariaSnapshot()`), with
//! refs, in YAML:
//!
//! ```text
//! - heading "Title" [level=2] [ref=e1]
//! - paragraph: Some bold text
//! - link "Docs" [ref=e2]:
//!   - /url: /docs
//! - checkbox "Agree" [checked] [ref=e3]
//! ```
//!
//! One path for every page: an in-page walker ([`crate::elements::scripts::WALKER`], `walker.js`) that follows Playwright's
//! `generateAriaTree` and `roleUtils` (roles, accessible names, states, what is hidden, how text is
//! joined) in an isolated world, and stops once the text would pass `max_chars`. Iframes are nested
//! under their `- iframe` line: a same-origin one walked with its parent, a cross-origin one by a walk
//! of its own in its frame (in its own session when it is out of process: [`crate::tab::frames`]). Refs go
//! to interactive roles and to named content roles; an element keeps its ref across snapshots of its
//! document; the supervisor keeps them (`RefRecord`), so they stay unique for the session whatever
//! happens to the worker.

use sb_protocol::ipc::{Output, SnapshotOptions, WorkerError};
use sb_protocol::{ErrorCode, Phase};

use crate::elements::resolve::resolve;
use crate::error::fail;
use crate::progress::Progress;
use crate::tab::page::{Page, Previous};
use crate::tab::settle;

mod diff;
mod render;
mod walk;

use walk::*;

/// The marker line of a snapshot taken while the document was still loading.
const LOADING: &str = "- note \"the page is still loading; take another snapshot\"";
/// The marker line of a snapshot of a page with nothing in it.
const EMPTY: &str = "- note \"the page is empty\"";

/// Takes the snapshot; new refs are `e{next_ref}`, `e{next_ref+1}`, ... A document still loading is
/// waited for until `DOMContentLoaded`, for at most half the budget; a snapshot taken before it says so
/// (`loading`, a marker line), and an empty one says the page is empty: the text is never empty.
pub(crate) async fn snapshot(
    page: &Page,
    options: &SnapshotOptions,
    next_ref: u64,
    p: &Progress,
) -> Result<Output, WorkerError> {
    settle::before_read(page, p).await;
    let mut output = take(page, options, next_ref, p).await?;
    if let Output::Snapshot(s) = &mut output {
        s.loading = !settle::is_ready(page);
        let marker = if s.loading {
            Some(LOADING)
        } else if s.text.trim().is_empty() {
            Some(EMPTY)
        } else {
            None
        };
        if let Some(marker) = marker {
            s.text =
                if s.text.trim().is_empty() { marker.to_string() } else { format!("{marker}\n{}", s.text) };
            s.lines += 1;
            s.chars = s.text.chars().count() as u64;
        }
        // Kept for the next diff; a diff is answered against the previous snapshot of the same
        // document with the same options (a page still loading is answered whole).
        let document = page.lifecycle.borrow().loader_id.clone();
        let key = format!("{:?}", (options.interactive, options.compact, options.max_depth, &options.scope));
        let same = |p: &Previous| p.document == document && p.options == key;
        let current = Previous { document: document.clone(), options: key.clone(), text: s.text.clone() };
        let previous = page.last_snapshot.lock().unwrap().replace(current).filter(same);
        if let Some(previous) = previous.filter(|_| options.diff && !s.loading) {
            s.text = diff::diff(&previous.text, &s.text);
            s.diff = true;
            s.lines = s.text.lines().count() as u64;
            s.chars = s.text.chars().count() as u64;
        }
    }
    Ok(output)
}

/// The snapshot itself ([`snapshot`] without the wait and the markers): the walker over the page, or
/// over the scope element (in the frame it belongs to).
async fn take(
    page: &Page,
    options: &SnapshotOptions,
    next_ref: u64,
    p: &Progress,
) -> Result<Output, WorkerError> {
    let scope = match &options.scope {
        None => None,
        Some(locator) => {
            let element = resolve(page, locator, p)
                .await?
                .ok_or_else(|| fail(ErrorCode::BadRequest, Phase::Cdp, "scope matches no element"))?;
            Some(Scope { session: element.session, frame_id: element.frame_id, backend: element.backend })
        }
    };
    walk_snapshot(page, options, next_ref, scope, p).await
}

#[cfg(test)]
mod tests {
    use super::render::*;

    #[test]
    fn cut_adds_a_marker_line() {
        let lines: Vec<String> = (0..10).map(|i| format!("- text: line {i}")).collect();
        let (text, shown, truncated) = cut(&lines, 40, false);
        assert!(truncated);
        assert_eq!(shown, 3);
        assert!(
            text.ends_with(
                "- ... 8 more lines cut at max_chars=40; narrow with scope, max_depth or interactive"
            ),
            "{text}"
        );
        // Issue 26 §3: a snapshot already interactive is not told to be interactive.
        let (text, _, _) = cut(&lines, 40, true);
        assert!(text.ends_with("narrow with scope (a ref or selector) or max_depth"), "{text}");
        let (_, _, truncated) = cut(&lines, 10_000, false);
        assert!(!truncated);
    }

    #[test]
    fn keys_and_values_are_quoted_as_playwright_quotes_them() {
        // Plain where YAML reads them back as the same string.
        for plain in ["Docs", "link \"Docs\" [ref=e1]", "a-b", "x:y", "a#b", "1.2.3", "e1"] {
            assert_eq!(yaml_value(plain), plain);
        }
        // Quoted: leading dash or indicator, ": ", " #", braces, numbers, booleans, empty, control.
        for (value, quoted) in [
            (">", "\">\""),
            ("#x", "\"#x\""),
            ("- item", "\"- item\""),
            ("a: b", "\"a: b\""),
            ("ends:", "\"ends:\""),
            ("see #3", "\"see #3\""),
            ("{x}", "\"{x}\""),
            ("42", "\"42\""),
            ("0x1F", "\"0x1F\""),
            (".5e3", "\".5e3\""),
            ("Yes", "\"Yes\""),
            ("", "\"\""),
            ("bell\u{7}", "\"bell\\x07\""),
            ("two\nlines", "\"two\\nlines\""),
            ("say \"hi\" `x`", "\"say \\\"hi\\\" `x`\""),
        ] {
            assert_eq!(yaml_value(value), quoted, "{value}");
        }
        assert_eq!(yaml_key("link \"feat: x\" [ref=e3]"), "'link \"feat: x\" [ref=e3]'");
        assert_eq!(yaml_key("button \"it's {on}\""), "'button \"it''s {on}\"'");
        assert_eq!(yaml_key("button \"Go\" [ref=e1]"), "button \"Go\" [ref=e1]");
    }
}
