//! Input: the mouse and the keyboard, as Chromium takes them (`Input.dispatchMouseEvent`,
//! `Input.dispatchKeyEvent`, `Input.insertText`), following Playwright's `chromium/crInput.ts` (a key
//! with text is `keyDown` with `text` and `unmodifiedText`, one without is `rawKeyDown`; modifiers are
//! held with their own key events). Nothing here checks an element: that is `actionability`'s.

use std::future::Future;
use std::time::Duration;

use sb_cdp::commands::{InputDispatchKeyEvent, InputDispatchMouseEvent, InputInsertText};
use sb_cdp::CdpError;
use sb_protocol::api::MouseButton;
use sb_protocol::ipc::WorkerError;
use sb_protocol::{Budget, ErrorCode, Phase};

use crate::error::{cdp_failure, fail};
use crate::inputs::keys::{self, KeyDef};
use crate::tab::page::Page;

/// Least time an input event is given once the checks passed, even at the end of the budget (the
/// ladder's reserve covers it).
const DISPATCH_MIN: Duration = Duration::from_millis(100);

/// The timeout of one input event: what is left of the action's budget (the renderer acknowledges an
/// event once its handlers ran; a page that takes longer than some fixed step to do that is slow, not
/// stuck, and an event sent cannot be sent again), at least [`DISPATCH_MIN`].
pub(crate) fn dispatch_time(budget: Budget) -> Duration {
    budget.remaining().max(DISPATCH_MIN)
}

/// One `Input.dispatchMouseEvent` of type `kind` (`mouseMoved`, `mousePressed`, `mouseReleased`) with
/// `button` (`None`: no button) at (`x`, `y`), CSS px in the viewport, sent now (in
/// order with the events sent before it: the browser queues them for the renderer in that order);
/// the answer's future. A plain move to where the pointer already is is not sent (moves are
/// frame-aligned: it would only cost a frame).
#[allow(clippy::too_many_arguments)]
pub(crate) fn mouse<'a>(
    page: &'a Page,
    kind: &str,
    x: f64,
    y: f64,
    button: Option<MouseButton>,
    clicks: u32,
    modifiers: u32,
    budget: Budget,
) -> impl Future<Output = Result<(), CdpError>> + 'a {
    let here = *page.mouse_at.lock().unwrap() == Some((x, y));
    // A move with the left button named is a drag: the button is held.
    let buttons = match (kind, button) {
        ("mousePressed", Some(b)) | ("mouseMoved", Some(b @ MouseButton::Left)) => b.bit(),
        _ => 0,
    };
    let name = button.map_or("none", MouseButton::as_str);
    let sent = (!(kind == "mouseMoved" && button.is_none() && here)).then(|| {
        let event = InputDispatchMouseEvent {
            kind: kind.to_string(),
            x,
            y,
            button: Some(name.to_string()),
            buttons: Some(buttons),
            click_count: Some(clicks),
            modifiers: Some(modifiers),
            ..InputDispatchMouseEvent::default()
        };
        page.session.send(&event, dispatch_time(budget))
    });
    async move {
        if let Some(sent) = sent {
            sent.await?;
            *page.mouse_at.lock().unwrap() = Some((x, y));
        }
        Ok(())
    }
}

/// A key or combo (`Enter`, `Control+A`, `Shift+Tab`) on the focused element.
pub(crate) async fn press(page: &Page, combo: &str, budget: Budget) -> Result<(), WorkerError> {
    let (mods, key) =
        keys::parse_combo(combo).map_err(|e| fail(ErrorCode::BadRequest, Phase::Request, e.to_string()))?;
    let mut held = 0;
    for m in &mods {
        held |= m.modifier_bit();
        key_event(page, "rawKeyDown", m, held, None, budget).await?;
    }
    if key.modifier_bit() != 0 {
        // A modifier pressed alone is held during its own keydown and released at its keyup (as
        // Playwright's `Keyboard.down`/`up` update the modifier state before they send).
        key_event(page, "rawKeyDown", &key, held | key.modifier_bit(), None, budget).await?;
        key_event(page, "keyUp", &key, held, None, budget).await?;
    } else {
        // Text only when no command modifier is held (Control+A selects, it types nothing).
        let types = held & (keys::ALT | keys::CONTROL | keys::META) == 0;
        key_stroke(page, &key, held, types, budget).await?;
    }
    for m in mods.iter().rev() {
        held &= !m.modifier_bit();
        key_event(page, "keyUp", m, held, None, budget).await?;
    }
    Ok(())
}

/// keyDown (with text when `types`) and keyUp of one key, with the modifiers `held` down. A key that
/// needs Shift on a US keyboard (`~`, `A`) gets Shift pressed around it unless it is already held, so
/// each modifier goes down once; every event carries the whole modifier mask (as Playwright's
/// `Keyboard` sends `_modifiers()` with each key event, `server/input.ts`).
pub(crate) async fn key_stroke(
    page: &Page,
    def: &KeyDef,
    held: u32,
    types: bool,
    budget: Budget,
) -> Result<(), WorkerError> {
    let text = if types { def.text.clone() } else { None };
    let down = if text.is_some() { "keyDown" } else { "rawKeyDown" };
    let add_shift = def.shifted && held & keys::SHIFT == 0;
    let modifiers = if add_shift { held | keys::SHIFT } else { held };
    if add_shift {
        key_event(page, "rawKeyDown", &keys::shift(), modifiers, None, budget).await?;
    }
    key_event(page, down, def, modifiers, text, budget).await?;
    key_event(page, "keyUp", def, modifiers, None, budget).await?;
    if add_shift {
        key_event(page, "keyUp", &keys::shift(), held, None, budget).await?;
    }
    Ok(())
}

/// One `Input.dispatchKeyEvent` of type `kind` (`rawKeyDown`, `keyDown`, `keyUp`) for `def`.
pub(crate) async fn key_event(
    page: &Page,
    kind: &str,
    def: &KeyDef,
    modifiers: u32,
    text: Option<String>,
    budget: Budget,
) -> Result<(), WorkerError> {
    let event = InputDispatchKeyEvent {
        kind: kind.to_string(),
        key: def.key.clone(),
        code: def.code.clone(),
        windows_virtual_key_code: def.key_code,
        native_virtual_key_code: def.key_code,
        modifiers,
        location: def.location,
        // As Playwright's `crInput.ts`: a numpad key (DOM location 3) is `isKeypad`.
        is_keypad: def.location == 3,
        unmodified_text: text.clone(),
        text,
    };
    page.session.run(&event, dispatch_time(budget)).await.map(|_| ()).map_err(|e| cdp_failure(Phase::Cdp, e))
}

/// Types `text` as `Input.insertText` (as Playwright's `keyboard.insertText`): a character no key of
/// the US layout gives, or a fill's value over an editor's selected content.
pub(crate) async fn insert_text(page: &Page, text: &str, budget: Budget) -> Result<(), WorkerError> {
    page.session
        .run(&InputInsertText { text: text.to_string() }, dispatch_time(budget))
        .await
        .map(|_| ())
        .map_err(|e| cdp_failure(Phase::Cdp, e))
}
