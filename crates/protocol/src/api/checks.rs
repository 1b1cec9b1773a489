//! Checks without JavaScript (`page.verify`, `page.query`) and the clipboard (`page.clipboard`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::input::ElementParams;

/// `page.verify` params: the element (a `ref`, a `selector`, or a `role` with its accessible `name`;
/// none for `text` on the whole page) and exactly one check. The page is checked as it is now, once
/// (as Playwright MCP's `browser_verify_*` tools do; `page.wait_for` waits for a state first).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VerifyParams {
    /// The element checked.
    #[serde(flatten)]
    pub element: ElementParams,
    /// An ARIA role, as the snapshot shows it (`button`). With `name`, Playwright's
    /// `getByRole(role, {name})`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The role's accessible name (a case-insensitive substring).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// true: a match is visible; false: none is (no match, or all hidden).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible: Option<bool>,
    /// Text visible on the page, or in the element (case-insensitive). Whitespace collapsed, as
    /// `getByText` matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// An input's value, exactly. Of an input, textarea or select (Playwright's `inputValue`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A checkbox's, radio's or switch's state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
    /// How many elements the selector matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// An attribute: present (no `value`), or with exactly `value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute: Option<AttributeCheck>,
    /// Texts each in the element's text. A list's items, matched as `text` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<String>>,
}

/// `page.verify {attribute}`: the attribute's name, and the value wanted (absent: only present).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttributeCheck {
    /// The attribute, e.g. `href`.
    pub name: String,
    /// Its value, exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// The longest text, value or attribute `page.verify` takes, chars.
pub const MAX_VERIFY_CHARS: usize = 10_000;

/// The most `items` `page.verify` takes.
pub const MAX_VERIFY_ITEMS: usize = 100;

impl VerifyParams {
    /// The one check the params name, and the element they name by role (the selector Playwright's
    /// `getByRole(role, {name})` writes: `internal:role=button[name="Save"i]`, the name a
    /// case-insensitive substring), held to `page.verify`'s rules: exactly one check, texts of at most
    /// [`MAX_VERIFY_CHARS`], 1 to [`MAX_VERIFY_ITEMS`] items, `name` only with `role`, the element by
    /// at most one of ref, selector or role, and an element for every check but `text`.
    ///
    /// # Errors
    /// The rule broken, in one line.
    pub fn parts(&self) -> Result<(VerifyCheck, Option<String>), String> {
        let by_role = match (&self.role, &self.name) {
            (None, None) => None,
            (None, Some(_)) => return Err("page.verify takes name only with role".into()),
            (Some(role), name) => Some(role_selector(role, name.as_deref())?),
        };
        let by_element = self.element.reference.is_some() || self.element.selector.is_some();
        if by_role.is_some() && by_element {
            return Err("name the element with exactly one of ref, selector or role".into());
        }
        let long = |s: &String| s.chars().count() > MAX_VERIFY_CHARS;
        let mut checks = Vec::new();
        checks.extend(self.visible.map(VerifyCheck::Visible));
        checks.extend(self.text.clone().map(VerifyCheck::Text));
        checks.extend(self.value.clone().map(VerifyCheck::Value));
        checks.extend(self.checked.map(VerifyCheck::Checked));
        checks.extend(self.count.map(VerifyCheck::Count));
        checks
            .extend(self.attribute.clone().map(|a| VerifyCheck::Attribute { name: a.name, value: a.value }));
        checks.extend(self.items.clone().map(VerifyCheck::Items));
        let [check] = <[VerifyCheck; 1]>::try_from(checks).map_err(|_| {
            "page.verify takes exactly one check: visible, text, value, checked, count, attribute or items"
                .to_string()
        })?;
        let too_long = match &check {
            VerifyCheck::Text(t) | VerifyCheck::Value(t) => long(t),
            VerifyCheck::Attribute { name, value } => long(name) || value.as_ref().is_some_and(long),
            VerifyCheck::Items(items) => {
                items.is_empty() || items.len() > MAX_VERIFY_ITEMS || items.iter().any(long)
            }
            VerifyCheck::Visible(_) | VerifyCheck::Checked(_) | VerifyCheck::Count(_) => false,
        };
        if too_long {
            return Err(format!(
                "page.verify texts are at most {MAX_VERIFY_CHARS} chars, items 1 to {MAX_VERIFY_ITEMS}"
            ));
        }
        if by_role.is_none() && !by_element && !matches!(check, VerifyCheck::Text(_)) {
            return Err(format!("page.verify {} needs an element: ref, selector or role", check.name()));
        }
        Ok((check, by_role))
    }

    /// `page.verify`'s rules beyond its fields' types (its declaration's `check`): [`Self::parts`].
    ///
    /// # Errors
    /// As [`Self::parts`].
    pub fn check(&self) -> Result<(), String> {
        self.parts().map(drop)
    }
}

/// `role` and `name` as the selector Playwright's `getByRole(role, {name})` writes
/// (`internal:role=button[name="Save"i]`: the name a case-insensitive substring).
///
/// # Errors
/// A role that is not a word of letters.
fn role_selector(role: &str, name: Option<&str>) -> Result<String, String> {
    if role.is_empty() || role.len() > 64 || !role.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(format!("page.verify role {role:?} is not an ARIA role (button, heading, ...)"));
    }
    Ok(match name {
        None => format!("internal:role={}", role.to_ascii_lowercase()),
        Some(name) => format!("internal:role={}[name={}i]", role.to_ascii_lowercase(), Value::from(name)),
    })
}

/// What `page.verify` checks: one per request (from [`VerifyParams`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum VerifyCheck {
    /// A match is visible (true) or none is (false).
    Visible(bool),
    /// The text, on the page or in the element.
    Text(String),
    /// The value, exactly.
    Value(String),
    /// The checked state.
    Checked(bool),
    /// The number of matches.
    Count(u64),
    /// The attribute `name` present, with `value` when given.
    Attribute {
        /// The attribute.
        name: String,
        /// Its value; `None`: only present.
        value: Option<String>,
    },
    /// Each text found in the element's text.
    Items(Vec<String>),
}

impl VerifyCheck {
    /// The param's name (`visible`, `text`, ...), as messages name the check.
    pub fn name(&self) -> &'static str {
        match self {
            VerifyCheck::Visible(_) => "visible",
            VerifyCheck::Text(_) => "text",
            VerifyCheck::Value(_) => "value",
            VerifyCheck::Checked(_) => "checked",
            VerifyCheck::Count(_) => "count",
            VerifyCheck::Attribute { .. } => "attribute",
            VerifyCheck::Items(_) => "items",
        }
    }
}

/// `page.verify` result: the check held. (One that does not hold answers `verify_failed`, naming
/// what was wanted and what the page has.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VerifyResult {
    /// The check that held: `visible`, `text`, `value`, `checked`, `count`, `attribute` or `items`.
    pub check: String,
    /// What the page has: the value, the state, the count (the wanted one, which held).
    pub actual: Value,
}

/// `page.query` params: the element, by `ref` or `selector`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QueryParams {
    /// The element read (a selector: its first match, and how many match).
    #[serde(flatten)]
    pub element: ElementParams,
}

impl QueryParams {
    /// `page.query`'s rule beyond its fields' types (its declaration's `check`).
    ///
    /// # Errors
    /// Neither or both of `ref` and `selector`.
    pub fn check(&self) -> Result<(), String> {
        self.element.exactly_one()
    }
}

/// `page.generate_locator` params: the element, by `ref` or `selector`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GenerateLocatorParams {
    /// The element to name (a selector: its first match).
    #[serde(flatten)]
    pub element: ElementParams,
}

impl GenerateLocatorParams {
    /// `page.generate_locator`'s rule beyond its fields' types (its declaration's `check`).
    ///
    /// # Errors
    /// Neither or both of `ref` and `selector`.
    pub fn check(&self) -> Result<(), String> {
        self.element.exactly_one()
    }
}

/// `page.generate_locator` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GenerateLocatorResult {
    /// A locator that finds the element in its frame's document, written as Playwright writes
    /// locators (`getByRole('button', { name: 'Save' })`, `getByTestId('save')`,
    /// `locator('#save')`): for a test, or as a `selector` of this API. It names the element alone
    /// when `unique`; otherwise it picks it among the matches (`.nth(2)`).
    pub locator: String,
    /// Whether the locator matches this element and no other (without an index).
    pub unique: bool,
}

/// `page.query` result: how many elements match and what the first one is now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QueryResult {
    /// Elements the selector matches now (a ref: 1).
    pub count: u64,
    /// Of them, how many are visible.
    pub visible_count: u64,
    /// The first match; absent when nothing matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ElementFacts>,
}

/// An element as it is now (`page.query`, and what `page.verify` compares).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ElementFacts {
    /// Its tag, lower case (`input`).
    pub tag: String,
    /// Its text as the page shows it (`innerText`; `textContent` where it is not rendered),
    /// whitespace collapsed, at most [`QUERY_TEXT_CHARS`] characters.
    pub text: String,
    /// Whether its text was cut at [`QUERY_TEXT_CHARS`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub text_truncated: bool,
    /// The value of an input, textarea or select (Playwright's `inputValue`); absent for others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A checkbox's, radio's or switch's state (`checked`, or `aria-checked` for its role); absent
    /// for others; `aria-checked="mixed"` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
    /// Visible as Playwright has it (a non-empty box, `visibility: visible`).
    pub visible: bool,
    /// Not disabled (`disabled`, a disabled fieldset, `aria-disabled="true"`).
    pub enabled: bool,
    /// Its attributes, in the element's order (values at most [`QUERY_TEXT_CHARS`] characters).
    pub attributes: Vec<Attribute>,
    /// Its border box in the page's viewport, CSS px (`getBoundingClientRect`, offset by an
    /// out-of-process iframe's place); absent when it has no box (`display: none`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounding_box: Option<BoundingBox>,
}

/// An element's box in the page's viewport, CSS px (Playwright's `boundingBox()`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BoundingBox {
    /// Left edge, CSS px from the viewport's left.
    pub x: f64,
    /// Top edge, CSS px from the viewport's top.
    pub y: f64,
    /// Width, CSS px.
    pub width: f64,
    /// Height, CSS px.
    pub height: f64,
}

/// One attribute of an element (`page.query`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Attribute {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
}

/// At most this many characters of an element's text (and of each attribute value) in
/// [`ElementFacts`].
pub const QUERY_TEXT_CHARS: usize = 2_000;

/// What `page.clipboard` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClipboardAction {
    /// The clipboard's text.
    Read,
    /// Puts `text` on the clipboard.
    Write,
}

/// `page.clipboard` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClipboardParams {
    /// read or write.
    pub action: ClipboardAction,
    /// For write: the text, at most [`MAX_CLIPBOARD_CHARS`] characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The most characters `page.clipboard` writes.
pub const MAX_CLIPBOARD_CHARS: usize = 1_000_000;

impl ClipboardParams {
    /// `page.clipboard`'s rule beyond its fields' types (its declaration's `check`).
    ///
    /// # Errors
    /// `write` without `text` or with more than [`MAX_CLIPBOARD_CHARS`]; `read` with `text`.
    pub fn check(&self) -> Result<(), String> {
        match (self.action, &self.text) {
            (ClipboardAction::Write, Some(t)) if t.chars().count() <= MAX_CLIPBOARD_CHARS => Ok(()),
            (ClipboardAction::Read, None) => Ok(()),
            _ => Err(format!(
                "page.clipboard: write takes text (at most {MAX_CLIPBOARD_CHARS} characters), read none"
            )),
        }
    }
}

/// `page.clipboard` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClipboardResult {
    /// The clipboard's text: what was read, or what was written.
    pub text: String,
}
