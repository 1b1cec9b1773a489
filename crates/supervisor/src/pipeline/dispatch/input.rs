//! The entries of the input methods the supervisor makes something of: drag (two elements looked
//! up) and scroll (an element or the page). Click, type, fill, press, hover, check, select and the raw
//! mouse and keyboard go to the worker as calls of their own params ([`super::CALL`]).

use sb_protocol::api::{css_px, DragParams, ElementParams, InputResult, ScrollParams, ScrollResult, Settle};
use sb_protocol::error::bad_request;
use sb_protocol::ipc::{Action, InputAction, Output};
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
    css_px(&format!("page.scroll {name}"), v.unwrap_or(0.0)).map_err(bad_request)
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
