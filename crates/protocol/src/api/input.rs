//! The input methods' params and results: the mouse, the keyboard, typing, filling, selecting,
//! uploading, checking, scrolling and dragging (`page.click`, `page.type`, ...).

use serde::{Deserialize, Serialize};

/// A mouse button (`Input.dispatchMouseEvent`'s `button`): `left`, `right` or `middle`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    /// The primary button.
    #[default]
    Left,
    /// The secondary button (context menu).
    Right,
    /// The wheel button.
    Middle,
}

impl MouseButton {
    /// The CDP name (`Input.MouseButton`): `left`, `right`, `middle`.
    pub fn as_str(self) -> &'static str {
        match self {
            MouseButton::Left => "left",
            MouseButton::Right => "right",
            MouseButton::Middle => "middle",
        }
    }

    /// The bit of this button in `Input.dispatchMouseEvent`'s `buttons` (left 1, right 2, middle 4).
    pub fn bit(self) -> u32 {
        match self {
            MouseButton::Left => 1,
            MouseButton::Right => 2,
            MouseButton::Middle => 4,
        }
    }
}

/// A modifier key held during an input: `Alt`, `Control`, `Meta`, `Shift`, or `ControlOrMeta`
/// (Playwright's name for the platform's command key: `Control` on Linux, where the runtime runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Modifier {
    /// Alt (CDP modifier bit 1).
    Alt,
    /// Control (bit 2).
    Control,
    /// Meta (bit 4).
    Meta,
    /// Shift (bit 8).
    Shift,
    /// Control on Linux.
    ControlOrMeta,
}

impl Modifier {
    /// The key's name as `Input.dispatchKeyEvent` knows it (`ControlOrMeta` is `Control`).
    pub fn key(self) -> &'static str {
        match self {
            Modifier::Alt => "Alt",
            Modifier::Control | Modifier::ControlOrMeta => "Control",
            Modifier::Meta => "Meta",
            Modifier::Shift => "Shift",
        }
    }
}

/// The state `page.wait_for {selector}` waits for (Playwright's `waitForSelector` states).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ElementState {
    /// In the DOM.
    Attached,
    /// Not in the DOM.
    Detached,
    /// In the DOM and visible as Playwright has it: a non-empty box, `visibility: visible`, not under
    /// `display: none` or `content-visibility: hidden`; a `display: contents` element when a child is
    /// (the default).
    #[default]
    Visible,
    /// Not in the DOM, or in it but not visible.
    Hidden,
}

impl ElementState {
    /// The wire name: `attached`, `detached`, `visible`, `hidden`.
    pub fn as_str(self) -> &'static str {
        match self {
            ElementState::Attached => "attached",
            ElementState::Detached => "detached",
            ElementState::Visible => "visible",
            ElementState::Hidden => "hidden",
        }
    }
}

/// The largest `page.scroll` delta (`dx`, `dy`), CSS px: a larger or non-finite one is `bad_request`
/// (Chromium takes a wheel of `1e308` and then acknowledges no input on the tab).
pub const MAX_SCROLL_DELTA: f64 = 100_000.0;

/// The largest `click_count` of `page.click` (a triple click).
pub const MAX_CLICK_COUNT: u32 = 3;

/// The largest `settle_ms` an input takes (the budget, at most 120 s, caps it further).
pub const MAX_SETTLE_MS: u64 = 120_000;

/// The element an input action targets: a ref from a snapshot, or a selector (one of them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ElementParams {
    /// A ref from a snapshot (`e12`).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// A selector, its first match in document order, through open shadow roots: CSS (`#save`), or
    /// Playwright's selectors (`text=Save`, `role=button[name="Save"]`, `//xpath`, `css >> nth=1`,
    /// `button:has-text("Save")`, ...) and locators (`getByRole('button', { name: 'Save' })`,
    /// `getByLabel('Email')`, `getByText(...)`, `.first()`, `.nth(i)`, `.filter({ hasText })`), with
    /// Playwright's matching rules (docs/protocol.md, Selectors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

impl ElementParams {
    /// Whether it names the element with exactly one of `ref` and `selector`.
    ///
    /// # Errors
    /// Neither or both, in the words every element-taking method answers with.
    pub fn exactly_one(&self) -> Result<(), String> {
        match (&self.reference, &self.selector) {
            (Some(_), None) | (None, Some(_)) => Ok(()),
            _ => Err(ELEMENT_EXACTLY_ONE.into()),
        }
    }
}

impl Settle {
    /// Ms to wait after the input: `settle_ms`, 0 when absent.
    pub fn ms(&self) -> u64 {
        self.settle_ms.unwrap_or(0)
    }

    /// Whether `settle_ms` is within [`MAX_SETTLE_MS`] (the budget caps it further).
    ///
    /// # Errors
    /// One past it, named.
    pub fn check(&self) -> Result<(), String> {
        match self.ms() {
            0..=MAX_SETTLE_MS => Ok(()),
            ms => Err(format!("settle_ms must be 0 to {MAX_SETTLE_MS}; got {ms}")),
        }
    }
}

/// The rules every input on one element has: the element named by exactly one of ref and selector,
/// `settle_ms` within [`MAX_SETTLE_MS`].
fn element_input(element: &ElementParams, settle: &Settle) -> Result<(), String> {
    element.exactly_one()?;
    settle.check()
}

/// `check` for the inputs on one element with no rule of their own.
macro_rules! element_input_check {
    ($($params:ident),*) => {$(
        impl $params {
            /// The method's rules beyond its fields' types (its declaration's `check`): the element
            /// by exactly one of ref and selector, `settle_ms` in range.
            ///
            /// # Errors
            /// The rule broken, in one line.
            pub fn check(&self) -> Result<(), String> {
                element_input(&self.element, &self.settle)
            }
        }
    )*};
}
element_input_check!(TypeParams, FillParams, HoverParams, CheckParams);

/// A click count, 1 to [`MAX_CLICK_COUNT`] (`page.click`'s and `page.mouse`'s).
fn click_count(n: u32) -> Result<(), String> {
    match n {
        1..=MAX_CLICK_COUNT => Ok(()),
        n => Err(format!("page.click click_count must be 1 to {MAX_CLICK_COUNT}; got {n}")),
    }
}

impl ClickParams {
    /// Presses in a row: `click_count`, 1 (the default) to [`MAX_CLICK_COUNT`].
    pub fn presses(&self) -> u32 {
        self.click_count.unwrap_or(1)
    }

    /// `page.click`'s rules beyond its fields' types (its declaration's `check`): the element by
    /// exactly one of ref and selector, `settle_ms` and `click_count` in range.
    ///
    /// # Errors
    /// The rule broken, in one line.
    pub fn check(&self) -> Result<(), String> {
        element_input(&self.element, &self.settle)?;
        click_count(self.presses())
    }
}

impl SelectParams {
    /// `page.select`'s rules beyond its fields' types (its declaration's `check`): the element by
    /// exactly one of ref and selector, `settle_ms` in range, and some options named.
    ///
    /// # Errors
    /// The rule broken, in one line.
    pub fn check(&self) -> Result<(), String> {
        element_input(&self.element, &self.settle)?;
        if self.values.is_empty() && self.labels.is_empty() && self.indexes.is_empty() {
            return Err("page.select needs values, labels or indexes".into());
        }
        Ok(())
    }
}

/// A length or coordinate `what` (CSS px): finite and within ±[`MAX_SCROLL_DELTA`] (Chromium takes
/// larger ones and then wedges the tab's input).
///
/// # Errors
/// One outside, named with `what`.
pub fn css_px(what: &str, v: f64) -> Result<f64, String> {
    if !v.is_finite() || v.abs() > MAX_SCROLL_DELTA {
        let got = if v.is_finite() && v.abs() < 1e9 { format!("{v}") } else { format!("{v:e}") };
        return Err(format!("{what} must be a number of CSS px within ±{MAX_SCROLL_DELTA}; got {got}"));
    }
    Ok(v)
}

impl MouseParams {
    /// A coordinate or delta `name` of `page.mouse`, when given ([`css_px`]).
    fn coordinate(name: &str, v: Option<f64>) -> Result<Option<f64>, String> {
        v.map(|v| css_px(&format!("page.mouse {name}"), v)).transpose()
    }

    /// Where the mouse acts, CSS px (`None`: where it is).
    ///
    /// # Errors
    /// A coordinate out of range, or `x` without `y`.
    pub fn at(&self) -> Result<Option<(f64, f64)>, String> {
        match (Self::coordinate("x", self.x)?, Self::coordinate("y", self.y)?) {
            (Some(x), Some(y)) => Ok(Some((x, y))),
            (None, None) => Ok(None),
            _ => Err("page.mouse takes x and y together".into()),
        }
    }

    /// Where a drag ends, CSS px.
    ///
    /// # Errors
    /// A coordinate out of range, or `to_x` without `to_y`.
    pub fn to(&self) -> Result<Option<(f64, f64)>, String> {
        match (Self::coordinate("to_x", self.to_x)?, Self::coordinate("to_y", self.to_y)?) {
            (Some(x), Some(y)) => Ok(Some((x, y))),
            (None, None) => Ok(None),
            _ => Err("page.mouse takes to_x and to_y together".into()),
        }
    }

    /// The wheel's deltas, CSS px (0 when absent).
    ///
    /// # Errors
    /// A delta out of range.
    pub fn delta(&self) -> Result<(f64, f64), String> {
        Ok((Self::coordinate("dx", self.dx)?.unwrap_or(0.0), Self::coordinate("dy", self.dy)?.unwrap_or(0.0)))
    }

    /// Presses in a row: `click_count` for click (1 to [`MAX_CLICK_COUNT`]), 1 otherwise.
    pub fn presses(&self) -> u32 {
        if self.action == MouseAction::Click {
            self.click_count.unwrap_or(1)
        } else {
            1
        }
    }

    /// `page.mouse`'s rules beyond its fields' types (its declaration's `check`): each coordinate in
    /// range; move, click and drag need x and y, drag to_x and to_y too; the others take x and y
    /// together or not at all; dx and dy with wheel only; `click_count` and `settle_ms` in range.
    ///
    /// # Errors
    /// The rule broken, in one line.
    pub fn check(&self) -> Result<(), String> {
        let (at, to) = (self.at()?, self.to()?);
        let needs_at = matches!(self.action, MouseAction::Move | MouseAction::Click | MouseAction::Drag);
        if needs_at && at.is_none() {
            return Err("page.mouse move, click and drag need x and y".into());
        }
        if (self.action == MouseAction::Drag) != to.is_some() {
            return Err("page.mouse to_x and to_y go with drag, and drag needs them".into());
        }
        self.delta()?;
        if self.action != MouseAction::Wheel && (self.dx.is_some() || self.dy.is_some()) {
            return Err("page.mouse dx and dy go with wheel".into());
        }
        click_count(self.presses())?;
        self.settle.check()
    }
}

impl KeyboardParams {
    /// The key or combo (down, up, press), or the text (insert_text).
    ///
    /// # Errors
    /// insert_text without text or with key; the others without key or with text.
    pub fn keys(&self) -> Result<&str, String> {
        match (self.action, &self.key, &self.text) {
            (KeyboardAction::InsertText, None, Some(text)) => Ok(text),
            (KeyboardAction::InsertText, ..) => Err("page.keyboard insert_text takes text (not key)".into()),
            (_, Some(key), None) if !key.is_empty() => Ok(key),
            _ => Err("page.keyboard down, up and press take key (not text)".into()),
        }
    }

    /// `page.keyboard`'s rules beyond its fields' types (its declaration's `check`): [`Self::keys`],
    /// `settle_ms` in range.
    ///
    /// # Errors
    /// The rule broken, in one line.
    pub fn check(&self) -> Result<(), String> {
        self.keys()?;
        self.settle.check()
    }
}

impl PressParams {
    /// `page.press`'s rules beyond its fields' types (its declaration's `check`): at most one of ref
    /// and selector (none: the focused element), `settle_ms` in range.
    ///
    /// # Errors
    /// The rule broken, in one line.
    pub fn check(&self) -> Result<(), String> {
        if self.element.reference.is_some() && self.element.selector.is_some() {
            return Err(ELEMENT_EXACTLY_ONE.into());
        }
        self.settle.check()
    }
}

/// What a method that takes one element answers when its params name none, or two.
pub const ELEMENT_EXACTLY_ONE: &str = "name the element with exactly one of ref or selector";

/// The part every input's params have: how long to wait after the input for what its handlers do
/// later (`page.click {ref, settle_ms: 300}`). Without it the answer comes as soon as the input's
/// effects are known (the navigation it started committed, the requests it started answered); a
/// dialog raised later is answered by the session's policy and reported in its next result. The MCP
/// tools use [`MCP_SETTLE_MS`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Settle {
    /// Ms more to wait after the input (capped by the budget): a dialog its handlers raise within it is
    /// in this result; default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle_ms: Option<u64>,
}

/// The `settle_ms` the MCP server gives its input tools (a click, a key, a fill) when the model gives
/// none: 200 ms, a window in which a dialog or a navigation counts as the action's, as Playwright MCP's
/// tools have (theirs waits for the requests the action started, then about 500 ms).
pub const MCP_SETTLE_MS: u64 = 200;

/// `page.hover` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HoverParams {
    /// The element to hover.
    #[serde(flatten)]
    pub element: ElementParams,
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
}

/// `page.click` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClickParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The element to click.
    #[serde(flatten)]
    pub element: ElementParams,
    /// `left` (default), `right` or `middle`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// 2 for a double click.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub click_count: Option<u32>,
    /// `Alt`, `Control`, `Meta`, `Shift` (or `ControlOrMeta`) held during the click.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modifiers: Vec<Modifier>,
}

/// What `page.mouse` does (Playwright's `Mouse` methods, and `drag`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MouseAction {
    /// Move to (x, y); buttons down stay down (a drag).
    Move,
    /// Press `button` at (x, y), or where the mouse is.
    Down,
    /// Release `button` at (x, y), or where the mouse is.
    Up,
    /// Move to (x, y), press and release `button` `click_count` times.
    Click,
    /// Turn the wheel by (dx, dy) CSS px at (x, y), or where the mouse is.
    Wheel,
    /// Press at (x, y), move to (to_x, to_y), release.
    Drag,
}

/// `page.mouse` params; coordinates are CSS px in the viewport, each within ±100000.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MouseParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// move, down, up, click, wheel or drag.
    pub action: MouseAction,
    /// X, CSS px from the viewport's left (needed by move, click, drag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Y, CSS px from the viewport's top (needed by move, click, drag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// `left` (default), `right` or `middle`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// For click: 2 for a double click (1..=3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub click_count: Option<u32>,
    /// For wheel: horizontal delta, CSS px.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dx: Option<f64>,
    /// For wheel: vertical delta, CSS px.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dy: Option<f64>,
    /// For drag: where to release, X.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_x: Option<f64>,
    /// For drag: where to release, Y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_y: Option<f64>,
}

/// What `page.keyboard` does (Playwright's `Keyboard` methods).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeyboardAction {
    /// Press `key` and keep it down (a modifier stays held for the next keys and clicks).
    Down,
    /// Release `key`.
    Up,
    /// Press and release `key`, a key or a combo such as `Control+A` (as `page.press` without an
    /// element).
    Press,
    /// Type `text` as one `Input.insertText` (no key events; any characters).
    InsertText,
}

/// `page.keyboard` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KeyboardParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// down, up, press or insert_text.
    pub action: KeyboardAction,
    /// For down, up, press: a key name (`Enter`, `Shift`, `a`, `ArrowLeft`; press also takes a combo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// For insert_text: the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// `page.type` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TypeParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The element to type into.
    #[serde(flatten)]
    pub element: ElementParams,
    /// The text, typed key by key (characters without a key are inserted as an IME would).
    pub text: String,
    /// Empty the field first.
    #[serde(default)]
    pub clear: bool,
    /// Press Enter after.
    #[serde(default)]
    pub submit: bool,
}

/// `page.fill` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FillParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The element to fill: a text-like `<input>` (text, email, number, password, search, tel, url),
    /// one whose value is set whole (color, date, time, datetime-local, month, range, week), a
    /// `<textarea>` or a `contenteditable` element (its content selected and the value typed over it
    /// with `Input.insertText`, so that an editor sees the edit), as Playwright's `fill`. Anything else (a checkbox,
    /// a `<select>`, a heading), text that is not a number into a number input, or a value the input
    /// refuses (a malformed date) answers `bad_request` at once, the field left as it was; a read-only
    /// field is waited for (`not_enabled`).
    #[serde(flatten)]
    pub element: ElementParams,
    /// The value it gets (`""` empties it).
    pub value: String,
}

/// One field of `page.fill_form`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FormField {
    /// The field.
    #[serde(flatten)]
    pub element: ElementParams,
    /// Its value: text for a text field; `"true"` or `"false"` for a checkbox or radio; an option's
    /// value or label for a select.
    pub value: String,
}

/// Most fields one `page.fill_form` takes.
pub const MAX_FORM_FIELDS: usize = 100;

/// `page.fill_form` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FillFormParams {
    /// The fields, filled in this order; at most 100 ([`MAX_FORM_FIELDS`]).
    pub fields: Vec<FormField>,
}

/// `page.fill_form` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FillFormResult {
    /// Each field as the action describes it, with what was done (`textbox "Email": filled`).
    pub filled: Vec<String>,
    /// Where a navigation a field's input started went (a select whose `change` navigates): the
    /// fields after it were not filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigated_to: Option<String>,
}

/// `page.press` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PressParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The focused element when no element is named.
    #[serde(flatten)]
    pub element: ElementParams,
    /// `Enter`, `Tab`, `ArrowLeft`, `Control+A`, `Shift+Tab`, ... (US layout).
    pub key: String,
}

/// Result of the input actions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InputResult {
    /// The element acted on, e.g. `button "Submit"`.
    pub element: String,
    /// Where a navigation the action started went, once it committed (a link, a form submitted with
    /// Enter, a select whose `change` navigates): the action waits for that within its budget, as
    /// Playwright's actions do. Absent when the action started none (a URL the page's own timers
    /// changed while the action waited for its element is not the action's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigated_to: Option<String>,
    /// True when a navigation the action started had not committed when the budget ran out (the
    /// action itself was done: do not repeat it; wait for the page instead).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub navigation_pending: bool,
    /// The input opened a file chooser (a click on a file input, or on a button that clicks one):
    /// `page.upload` without an element sets its files. Absent when none opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_chooser: Option<FileChooser>,
}

/// A file chooser a page opened (`Page.fileChooserOpened`: the runtime intercepts it, as Playwright
/// does while a `filechooser` listener waits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FileChooser {
    /// It takes several files.
    pub multiple: bool,
}

impl InputResult {
    /// The result of an input on `element` that started no navigation.
    pub fn of(element: impl Into<String>) -> InputResult {
        InputResult {
            element: element.into(),
            navigated_to: None,
            navigation_pending: false,
            file_chooser: None,
        }
    }
}

/// `page.select` params: one or more of `values`, `labels`, `indexes`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SelectParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The `<select>`.
    #[serde(flatten)]
    pub element: ElementParams,
    /// Options to select by their value (or, failing that, their label).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// Options to select by their label (whitespace normalized).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    /// Options to select by their position, 0-based.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub indexes: Vec<u32>,
}

/// `page.select` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SelectResult {
    /// The `<select>` acted on, e.g. `combobox "Size"`.
    pub element: String,
    /// The values now selected.
    pub values: Vec<String>,
    /// As [`InputResult::navigated_to`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigated_to: Option<String>,
    /// As [`InputResult::navigation_pending`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub navigation_pending: bool,
}

/// Most files one `page.upload` sets.
pub const MAX_UPLOAD_FILES: usize = 100;

/// `page.upload` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UploadParams {
    /// The file input (`<input type=file>`); none: the file chooser the session's last input opened
    /// (its result said `file_chooser`).
    #[serde(flatten)]
    pub element: ElementParams,
    /// Plain names of files in the runtime's `[files] uploads_dir` (no directories, no symlinks);
    /// an empty list clears the input. At most 100 ([`MAX_UPLOAD_FILES`]).
    pub files: Vec<String>,
}

/// `page.upload` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UploadResult {
    /// The input, as the action describes it (`button "Go"` for a ref, `<input id="resume">` for a
    /// selector).
    pub element: String,
    /// The names set, in order.
    pub files: Vec<String>,
    /// Their sizes together, bytes.
    pub bytes: u64,
}

/// `page.check` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The checkbox or radio.
    #[serde(flatten)]
    pub element: ElementParams,
    /// The state wanted (default true). A checked radio button cannot be unchecked (only checking
    /// another of its group does that): `false` for one answers `bad_request`, without a click, as
    /// Playwright's `uncheck`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
}

/// `page.scroll` params: an element to bring into view, or a wheel delta in CSS px.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScrollParams {
    /// The element to scroll into view, when any (else the page is scrolled by `dx`, `dy`).
    #[serde(flatten)]
    pub element: ElementParams,
    /// Horizontal wheel delta, CSS px (positive: right).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dx: Option<f64>,
    /// Vertical wheel delta, CSS px (positive: down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dy: Option<f64>,
}

/// `page.drag` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DragParams {
    /// How long to wait after the input.
    #[serde(flatten)]
    pub settle: Settle,
    /// The element to press on.
    pub from: ElementParams,
    /// The element to release over.
    pub to: ElementParams,
}

/// `page.scroll {dx, dy}` result: the page's scroll position after it, CSS px.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScrollResult {
    /// `scrollX` after the scroll, CSS px.
    pub scroll_x: f64,
    /// `scrollY` after the scroll, CSS px.
    pub scroll_y: f64,
}
