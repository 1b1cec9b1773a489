//! The entries of the input methods the supervisor makes something of: drag (two elements looked
//! up), scroll (an element or the page), and raw mouse and keyboard input at coordinates. Click, type,
//! fill, press, hover, check and select go to the worker as calls of their own params
//! ([`super::CALL`]).

use sb_protocol::api::{
    DragParams, ElementParams, InputResult, ScrollParams, ScrollResult, Settle, MAX_CLICK_COUNT,
    MAX_SCROLL_DELTA,
};
use sb_protocol::api::{KeyboardAction, KeyboardParams, MouseAction, MouseParams};
use sb_protocol::error::bad_request;
use sb_protocol::ipc::{Action, InputAction, MouseInput, Output};
use sb_protocol::ErrorBody;

use super::method::{finish_as, locator, params, required, Context, Done, PageMethod};

/// An input action on one element (`optional`: on the focused element when none is named).
fn input(
    cx: &dyn Context,
    element: ElementParams,
    optional: bool,
    input: InputAction,
    settle: Settle,
) -> Result<Action, ErrorBody> {
    Ok(Action::Input { target: locator(cx, element, optional)?, input, settle_ms: settle_ms(settle)? })
}

/// An input's `settle_ms`, checked ([`Settle::check`]).
fn settle_ms(settle: Settle) -> Result<u64, ErrorBody> {
    settle.check().map_err(bad_request)?;
    Ok(settle.ms())
}

/// A scroll delta (CSS px): finite and within [`MAX_SCROLL_DELTA`] either way (0 when absent).
fn delta(name: &str, v: Option<f64>) -> Result<f64, ErrorBody> {
    css_px(&format!("page.scroll {name}"), v.unwrap_or(0.0))
}

/// A length or coordinate `what` (CSS px): finite and within ±[`MAX_SCROLL_DELTA`].
fn css_px(what: &str, v: f64) -> Result<f64, ErrorBody> {
    if !v.is_finite() || v.abs() > MAX_SCROLL_DELTA {
        let got = if v.is_finite() && v.abs() < 1e9 { format!("{v}") } else { format!("{v:e}") };
        return Err(bad_request(format!(
            "{what} must be a number of CSS px within ±{MAX_SCROLL_DELTA}; got {got}"
        )));
    }
    Ok(v)
}

/// A click count: 1 (the default) to [`MAX_CLICK_COUNT`].
fn click_count(n: Option<u32>) -> Result<u32, ErrorBody> {
    match n.unwrap_or(1) {
        n @ 1..=MAX_CLICK_COUNT => Ok(n),
        n => Err(bad_request(format!("page.click click_count must be 1 to {MAX_CLICK_COUNT}; got {n}"))),
    }
}

/// The result of the input actions: the element acted on.
fn input_done(o: Output) -> Result<Done, ErrorBody> {
    finish_as(o, Done::of::<InputResult>)
}

pub(super) static DRAG: PageMethod = PageMethod {
    prepare: |_, v, cx| {
        let p: DragParams = params(v)?;
        let to = required(cx, p.to)?;
        input(cx, p.from, false, InputAction::DragTo { to }, p.settle)
    },
    finish: input_done,
    numbers_refs: false,
    after: None,
};

pub(super) static SCROLL: PageMethod = PageMethod {
    prepare: |_, v, cx| {
        let p: ScrollParams = params(v)?;
        match (locator(cx, p.element, true)?, p.dx, p.dy) {
            (Some(target), None, None) => {
                Ok(Action::Input { target: Some(target), input: InputAction::ScrollIntoView, settle_ms: 0 })
            }
            (None, dx, dy) if dx.is_some() || dy.is_some() => {
                Ok(Action::Scroll { dx: delta("dx", dx)?, dy: delta("dy", dy)? })
            }
            _ => Err(bad_request("page.scroll takes ref or selector, or dx and dy")),
        }
    },
    finish: |o| match InputResult::try_from(o) {
        Ok(i) => Ok(Done::of(i)),
        Err(o) => finish_as(o, Done::of::<ScrollResult>),
    },
    numbers_refs: false,
    after: None,
};

/// A coordinate or delta of `page.mouse`, when given ([`css_px`]).
fn coordinate(name: &str, v: Option<f64>) -> Result<Option<f64>, ErrorBody> {
    v.map(|v| css_px(&format!("page.mouse {name}"), v)).transpose()
}

/// `page.mouse`: each coordinate checked ([`coordinate`]); move, click and drag need x and y, drag
/// to_x and to_y too; the others take x and y together or not at all.
pub(super) static MOUSE: PageMethod = PageMethod {
    prepare: |_, v, _| {
        let p: MouseParams = params(v)?;
        let at = match (coordinate("x", p.x)?, coordinate("y", p.y)?) {
            (Some(x), Some(y)) => Some((x, y)),
            (None, None) => None,
            _ => return Err(bad_request("page.mouse takes x and y together")),
        };
        let to = match (coordinate("to_x", p.to_x)?, coordinate("to_y", p.to_y)?) {
            (Some(x), Some(y)) => Some((x, y)),
            (None, None) => None,
            _ => return Err(bad_request("page.mouse takes to_x and to_y together")),
        };
        let needs_at = matches!(p.action, MouseAction::Move | MouseAction::Click | MouseAction::Drag);
        if needs_at && at.is_none() {
            return Err(bad_request("page.mouse move, click and drag need x and y"));
        }
        if (p.action == MouseAction::Drag) != to.is_some() {
            return Err(bad_request("page.mouse to_x and to_y go with drag, and drag needs them"));
        }
        let delta = (coordinate("dx", p.dx)?.unwrap_or(0.0), coordinate("dy", p.dy)?.unwrap_or(0.0));
        if p.action != MouseAction::Wheel && (p.dx.is_some() || p.dy.is_some()) {
            return Err(bad_request("page.mouse dx and dy go with wheel"));
        }
        let click_count = if p.action == MouseAction::Click { click_count(p.click_count)? } else { 1 };
        let button = p.button.unwrap_or_default();
        let mouse = InputAction::Mouse(MouseInput { action: p.action, at, button, click_count, delta, to });
        Ok(Action::Input { target: None, input: mouse, settle_ms: settle_ms(p.settle)? })
    },
    finish: input_done,
    numbers_refs: false,
    after: None,
};

/// `page.keyboard`: down, up and press need `key`, insert_text `text`.
pub(super) static KEYBOARD: PageMethod = PageMethod {
    prepare: |_, v, _| {
        let p: KeyboardParams = params(v)?;
        let key = match (p.action, p.key, p.text) {
            (KeyboardAction::InsertText, None, Some(text)) => text,
            (KeyboardAction::InsertText, ..) => {
                return Err(bad_request("page.keyboard insert_text takes text (not key)"))
            }
            (_, Some(key), None) if !key.is_empty() => key,
            _ => return Err(bad_request("page.keyboard down, up and press take key (not text)")),
        };
        let keyboard = InputAction::Keyboard { action: p.action, key };
        Ok(Action::Input { target: None, input: keyboard, settle_ms: settle_ms(p.settle)? })
    },
    finish: input_done,
    numbers_refs: false,
    after: None,
};
