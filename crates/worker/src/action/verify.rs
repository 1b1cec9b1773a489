//! Checks without the caller's JavaScript: `page.verify` (one check of the page as it is now, as
//! Playwright MCP's `browser_verify_*` tools make one, in `tools/backend/verify.ts`) and `page.query`
//! (how many elements a locator matches, and what the first one is).
//!
//! Neither waits: the page is read once (Playwright MCP's verify tools count the matches once too);
//! `page.wait_for` waits for a state first. A check that does not hold answers `verify_failed` with
//! what the page has, which no retry of the same request changes.

use sb_protocol::api::{
    ElementFacts, GenerateLocatorParams, GenerateLocatorResult, QueryParams, QueryResult, VerifyCheck,
    VerifyParams, VerifyResult, QUERY_TEXT_CHARS,
};
use sb_protocol::ipc::{Locator, WorkerError};
use sb_protocol::{ErrorCode, Phase};
use serde_json::{json, Value};

use crate::elements::resolve::{self, Element, VISIBLE};
use crate::error::{cdp_failure, fail};
use crate::progress::Progress;
use crate::tab::page::{call_function_on, Page};

/// `function(limit)` called on an element: its [`ElementFacts`] (`facts.js`), texts cut at `limit`
/// characters. One source, so that a page compiles it once.
static FACTS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let facts = include_str!("facts.js");
    // The function's body gets the visibility test first.
    let body = facts.find("function(limit) {").map_or(facts.len(), |at| at + "function(limit) {".len());
    format!("{}\n{VISIBLE}\n{}", &facts[..body], &facts[body..])
});

/// `function()` called on an element: its [`GenerateLocatorResult`] (`locator.js`, given the selector
/// engine, the snapshot's walker and the visibility test). One source, so that a page compiles it once.
static GENERATE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "function() {{ {VISIBLE}\nreturn ({}).call(this, ({}), ({}), isVisible); }}",
        include_str!("../elements/locator.js"),
        resolve::QUERY,
        crate::elements::scripts::WALKER
    )
});

/// How long `page.generate_locator` waits before it looks for a selector's element again.
const LOOK_AGAIN: std::time::Duration = std::time::Duration::from_millis(100);

/// `page.generate_locator`: a locator that finds `target`'s element in its frame's document, as
/// Playwright writes one (`locator.js`). A selector's element is waited for within the budget, as
/// Playwright MCP's `browser_generate_locator` waits for its locator to resolve.
///
/// # Errors
/// `stale_ref`, `bad_request` (an invalid selector), `timeout` when no element matches within the
/// budget, a CDP failure; `internal` without an element (the supervisor looks it up from the params).
pub(crate) async fn generate_locator(
    page: &Page,
    _: GenerateLocatorParams,
    target: Option<&Locator>,
    p: &Progress,
) -> Result<GenerateLocatorResult, WorkerError> {
    let target = target.ok_or_else(|| {
        fail(ErrorCode::Internal, Phase::Verify, "page.generate_locator came without its element".to_string())
    })?;
    let element = loop {
        if let Some(element) = resolve::resolve(page, target, p).await? {
            break element;
        }
        if p.budget().expired() {
            // The action's table adds the steps it logged (the selector it was resolving).
            return Err(fail(
                ErrorCode::Timeout,
                Phase::Verify,
                "page.generate_locator: no element matched within the budget",
            ));
        }
        tokio::time::sleep(p.budget().capped(LOOK_AGAIN)).await;
    };
    p.log_once("writing a locator for the element".to_string());
    element.call_as(&GENERATE, Phase::Verify, "a generated locator", p.budget()).await
}

/// The most characters of an element's text a `text` or `items` check reads (a page's whole text is
/// rarely longer).
const VERIFY_TEXT_CHARS: usize = 1_000_000;

/// `page.verify`: `check` on `target` (none: `text` anywhere on the page, visible).
///
/// # Errors
/// `verify_failed` when the check does not hold (the message names what was wanted and what the page
/// has); `stale_ref`, `bad_request` (an invalid selector), a CDP failure or a timeout.
pub(crate) async fn verify(
    page: &Page,
    params: VerifyParams,
    target: Option<&Locator>,
    p: &Progress,
) -> Result<VerifyResult, WorkerError> {
    // The supervisor held the params to these rules already: an error here is a version skew.
    let (check, by_role) = params.parts().map_err(|e| fail(ErrorCode::BadRequest, Phase::Verify, e))?;
    let target = target.cloned().or(by_role.map(Locator::Selector));
    let failed = |message: String| fail(ErrorCode::VerifyFailed, Phase::Verify, message);
    let held = |actual: Value| Ok(VerifyResult { check: check.name().into(), actual });
    let Some(target) = target else {
        // Playwright MCP's `browser_verify_text_visible`: `getByText(text).filter({visible: true})`
        // has a match, in the page's frames (ours: the main frame).
        let VerifyCheck::Text(text) = &check else {
            return Err(fail(ErrorCode::BadRequest, Phase::Verify, "page.verify needs an element"));
        };
        let selector = format!("internal:text={}i", Value::from(text.as_str()));
        let (all, visible) = resolve::count(page, &selector, p).await?;
        p.log(format!("text {text:?}: {all} matches, {visible} visible"));
        return match (all, visible) {
            (_, 1..) => held(json!(true)),
            (0, _) => Err(failed(format!("Text {text:?} not found on the page"))),
            (n, 0) => Err(failed(format!("Text {text:?} is on the page ({n} matches) but none is visible"))),
        };
    };
    let about = resolve::describe_locator(&target);
    // What a selector matches: how many, and how many visible (a ref is its one element).
    let counted = match &target {
        Locator::Selector(css) => Some(resolve::count(page, css, p).await?),
        Locator::Ref(_) => None,
    };
    match (&check, counted) {
        (VerifyCheck::Count(want), Some((all, _))) => {
            return if all == *want {
                held(json!(all))
            } else {
                Err(failed(format!("Expected {want} elements for {about}, but it matches {all}")))
            };
        }
        (VerifyCheck::Visible(want), Some((all, visible))) => {
            return match (*want, visible > 0) {
                (true, true) | (false, false) => held(json!(*want)),
                (true, false) if all == 0 => Err(failed(format!("No element matches {about}"))),
                (true, false) => Err(failed(format!("{about} matches {all} elements, none of them visible"))),
                (false, true) => Err(failed(format!("{about} matches {visible} visible elements"))),
            };
        }
        (_, Some((0, _))) => return Err(failed(format!("No element matches {about}"))),
        _ => {}
    }
    let Some(element) = resolve::resolve(page, &target, p).await? else {
        return Err(failed(format!("No element matches {about}")));
    };
    let limit = match check {
        VerifyCheck::Text(_) | VerifyCheck::Items(_) | VerifyCheck::Attribute { .. } => VERIFY_TEXT_CHARS,
        _ => QUERY_TEXT_CHARS,
    };
    let facts = facts(&element, limit, p).await?;
    let label = &element.label;
    match &check {
        VerifyCheck::Count(want) => match want {
            1 => held(json!(1)),
            _ => Err(failed(format!("Expected {want} elements for {about}, but a ref names 1"))),
        },
        VerifyCheck::Visible(want) => match facts.visible == *want {
            true => held(json!(*want)),
            false if *want => Err(failed(format!("{label} is not visible"))),
            false => Err(failed(format!("{label} is visible"))),
        },
        VerifyCheck::Text(text) => match contains(&facts.text, text) {
            true => held(json!(true)),
            false => Err(failed(format!(
                "Expected text {text:?} in {label}, but its text is {:?}",
                short(&facts.text)
            ))),
        },
        VerifyCheck::Items(items) => match items.iter().find(|item| !contains(&facts.text, item)) {
            None => held(json!(items)),
            Some(item) => Err(failed(format!("Item {item:?} not found in {label}"))),
        },
        VerifyCheck::Value(want) => match facts.value {
            Some(value) if value == *want => held(json!(value)),
            Some(value) => Err(failed(format!("Expected value {want:?}, but got {value:?} ({label})"))),
            None => Err(failed(format!("{label} has no value: it is not an input, textarea or select"))),
        },
        VerifyCheck::Checked(want) => match facts.checked {
            Some(checked) if checked == *want => held(json!(checked)),
            Some(checked) => Err(failed(format!(
                "Expected {label} {}, but it is {}",
                if *want { "checked" } else { "unchecked" },
                if checked { "checked" } else { "unchecked" }
            ))),
            None => Err(failed(format!("{label} is not a checkbox, radio or switch"))),
        },
        VerifyCheck::Attribute { name, value } => {
            let found = facts.attributes.iter().find(|a| a.name.eq_ignore_ascii_case(name));
            match (found, value) {
                (None, _) => Err(failed(format!("{label} has no attribute {name:?}"))),
                (Some(a), None) => held(json!(a.value)),
                (Some(a), Some(want)) if a.value == *want => held(json!(a.value)),
                (Some(a), Some(want)) => Err(failed(format!(
                    "Expected attribute {name}={want:?} on {label}, but it is {:?}",
                    short(&a.value)
                ))),
            }
        }
    }
}

/// `page.query`: how many elements `target` matches and the first one's facts.
///
/// # Errors
/// `stale_ref`, `bad_request` (an invalid selector), a CDP failure or a timeout; `internal` without
/// an element (the supervisor looks it up from the params, which must name one).
pub(crate) async fn query(
    page: &Page,
    _: QueryParams,
    target: Option<&Locator>,
    p: &Progress,
) -> Result<QueryResult, WorkerError> {
    let target = target.cloned().ok_or_else(|| {
        fail(ErrorCode::Internal, Phase::Verify, "page.query came without its element".to_string())
    })?;
    let (count, visible) = match &target {
        Locator::Selector(css) => resolve::count(page, css, p).await?,
        Locator::Ref(_) => (1, 0),
    };
    let element = match count {
        0 => None,
        _ => resolve::resolve(page, &target, p).await?,
    };
    let element = match element {
        Some(element) => Some(facts(&element, QUERY_TEXT_CHARS, p).await?),
        None => None,
    };
    // A ref's one element: visible as its facts say.
    let visible_count = match &target {
        Locator::Ref(_) => u64::from(element.as_ref().is_some_and(|e| e.visible)),
        Locator::Selector(_) => visible,
    };
    let count = if element.is_none() { 0 } else { count };
    Ok(QueryResult { count, visible_count, element })
}

/// `element`'s facts now, texts cut at `limit` characters; its box in the page's viewport (an
/// out-of-process iframe's element offset by where the frame lies).
async fn facts(element: &Element, limit: usize, p: &Progress) -> Result<ElementFacts, WorkerError> {
    let budget = p.budget();
    let value = call_function_on(
        &element.session,
        &element.object_id,
        &FACTS,
        json!([{ "value": limit }]),
        budget.remaining(),
    )
    .await
    .map_err(|e| cdp_failure(Phase::Verify, e))?;
    let mut facts: ElementFacts = crate::tab::page::decode(value, Phase::Verify, "an element's state")?;
    if let Some(b) = facts.bounding_box.as_mut() {
        b.x += element.offset.0;
        b.y += element.offset.1;
    }
    Ok(facts)
}

/// Whether `text` is in `haystack` as `getByText` matches (case-insensitive, whitespace collapsed).
fn contains(haystack: &str, text: &str) -> bool {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    norm(haystack).contains(&norm(text))
}

/// At most 200 characters of `s`, for a message.
fn short(s: &str) -> String {
    match s.char_indices().nth(200) {
        Some((at, _)) => format!("{}...", &s[..at]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_matches_as_get_by_text_does() {
        assert!(contains("Welcome,  Ada\nLovelace", "welcome, ada lovelace"));
        assert!(contains("Total: 3 items", "3 ITEMS"));
        assert!(!contains("Total: 3 items", "4 items"));
        assert_eq!(short(&"x".repeat(250)).len(), 203);
        assert!(FACTS.starts_with("// An element") && FACTS.contains("function isVisible(e)"));
    }
}
