//! The input methods that come as a call of their own params (`page.click`, `page.type`,
//! `page.fill`, `page.press`, `page.hover`, `page.check`, `page.select`, and the raw `page.mouse` and
//! `page.keyboard`): each makes its
//! [`InputAction`] from its params, and [`interact::act`] runs it (actionability, the input, the
//! navigation it starts, `settle_ms`). Their params were checked by the supervisor against their
//! declarations (`ClickParams::check`, ...); their element is the params' `ref` looked up, or their
//! `selector`.

use sb_protocol::api::{
    CheckParams, ClickParams, FillParams, HoverParams, InputResult, KeyboardParams, MouseParams, PressParams,
    SelectParams, SelectResult, TypeParams,
};
use sb_protocol::ipc::{InputAction, Locator, MouseInput, Output, WorkerError};
use sb_protocol::{ErrorCode, Phase};

use crate::error::fail;
use crate::inputs::interact;
use crate::progress::Progress;
use crate::tab::page::Page;

/// `page.click`: `button` pressed `click_count` times with `modifiers` held.
pub(crate) async fn click(
    page: &Page,
    params: ClickParams,
    target: Option<&Locator>,
    p: &Progress,
) -> Result<InputResult, WorkerError> {
    let click_count = params.presses();
    let click = InputAction::Click {
        button: params.button.unwrap_or_default(),
        click_count,
        modifiers: params.modifiers,
    };
    answer(interact::act(page, target, &click, params.settle.ms(), p).await?)
}

/// `page.type`: key events per character (`clear` empties the field first, `submit` presses Enter).
pub(crate) async fn type_text(
    page: &Page,
    params: TypeParams,
    target: Option<&Locator>,
    p: &Progress,
) -> Result<InputResult, WorkerError> {
    let typing = InputAction::Type { text: params.text, clear: params.clear, submit: params.submit };
    answer(interact::act(page, target, &typing, params.settle.ms(), p).await?)
}

/// `page.fill`: the value set at once, as Playwright's `fill`.
pub(crate) async fn fill(
    page: &Page,
    params: FillParams,
    target: Option<&Locator>,
    p: &Progress,
) -> Result<InputResult, WorkerError> {
    let fill = InputAction::Fill { value: params.value };
    answer(interact::act(page, target, &fill, params.settle.ms(), p).await?)
}

/// `page.press`: a key or combo on the element, or on the focused one without one.
pub(crate) async fn press(
    page: &Page,
    params: PressParams,
    target: Option<&Locator>,
    p: &Progress,
) -> Result<InputResult, WorkerError> {
    let press = InputAction::Press { key: params.key };
    answer(interact::act(page, target, &press, params.settle.ms(), p).await?)
}

/// `page.hover`: the mouse moved over the element.
pub(crate) async fn hover(
    page: &Page,
    params: HoverParams,
    target: Option<&Locator>,
    p: &Progress,
) -> Result<InputResult, WorkerError> {
    answer(interact::act(page, target, &InputAction::Hover, params.settle.ms(), p).await?)
}

/// `page.check`: a checkbox or radio brought to `checked` (default true).
pub(crate) async fn check(
    page: &Page,
    params: CheckParams,
    target: Option<&Locator>,
    p: &Progress,
) -> Result<InputResult, WorkerError> {
    let check = InputAction::Check { checked: params.checked.unwrap_or(true) };
    answer(interact::act(page, target, &check, params.settle.ms(), p).await?)
}

/// `page.select`: a `<select>`'s options chosen by value, label or index.
pub(crate) async fn select(
    page: &Page,
    params: SelectParams,
    target: Option<&Locator>,
    p: &Progress,
) -> Result<SelectResult, WorkerError> {
    let select =
        InputAction::Select { values: params.values, labels: params.labels, indexes: params.indexes };
    answer(interact::act(page, target, &select, params.settle.ms(), p).await?)
}

/// `page.mouse`: raw mouse input at viewport coordinates, no element checked.
pub(crate) async fn mouse(
    page: &Page,
    params: MouseParams,
    _: Option<&Locator>,
    p: &Progress,
) -> Result<InputResult, WorkerError> {
    let bad = |e: String| fail(ErrorCode::BadRequest, Phase::Request, e);
    let mouse = MouseInput {
        action: params.action,
        at: params.at().map_err(bad)?,
        button: params.button.unwrap_or_default(),
        click_count: params.presses(),
        delta: params.delta().map_err(bad)?,
        to: params.to().map_err(bad)?,
    };
    answer(interact::act(page, None, &InputAction::Mouse(mouse), params.settle.ms(), p).await?)
}

/// `page.keyboard`: raw keys on the focused element.
pub(crate) async fn keyboard(
    page: &Page,
    params: KeyboardParams,
    _: Option<&Locator>,
    p: &Progress,
) -> Result<InputResult, WorkerError> {
    let key = params.keys().map_err(|e| fail(ErrorCode::BadRequest, Phase::Request, e))?.to_string();
    let keyboard = InputAction::Keyboard { action: params.action, key };
    answer(interact::act(page, None, &keyboard, params.settle.ms(), p).await?)
}

/// The input's answer as its method's result type.
///
/// # Errors
/// `internal`: the input answered another kind (the worker's bug).
fn answer<T: TryFrom<Output, Error = Output>>(output: Output) -> Result<T, WorkerError> {
    T::try_from(output).map_err(|other| {
        fail(ErrorCode::Internal, Phase::Worker, format!("the input answered with {}", other.kind()))
    })
}
