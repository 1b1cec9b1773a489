//! Raw input for vision agents (`page.mouse`, `page.keyboard`): mouse events at viewport coordinates
//! and key events on the focused element, with no element checked, following Playwright's
//! `server/input.ts` `Mouse` and `Keyboard`: the buttons pressed and the modifiers held are kept
//! between calls (a `down` stays down until its `up`), every mouse event carries the held modifiers
//! and buttons, a key typed while Alt, Control or Meta is held types no text, and `mouse.click` is a
//! move, then a press and a release for each of its clicks (`clickCount` 1, 2, ...).

use sb_cdp::commands::{InputDispatchMouseEvent, InputInsertText};
use sb_protocol::api::{InputResult, KeyboardAction, MouseAction, MouseButton};
use sb_protocol::ipc::{MouseInput, Output, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};

use crate::error::{cdp_failure, fail};
use crate::inputs::input::{dispatch_time, key_event, press};
use crate::inputs::keys;
use crate::progress::Progress;
use crate::tab::page::Page;

/// The raw mouse input `input`; its `at` is where (`None`: where the mouse is, (0, 0) on a new page).
pub(crate) async fn mouse(page: &Page, input: &MouseInput, p: &Progress) -> Result<Output, WorkerError> {
    let &MouseInput { action, at, button, click_count: clicks, delta, to } = input;
    p.enter(Phase::Cdp);
    let budget = p.budget();
    let here = page.mouse_at.lock().unwrap().unwrap_or((0.0, 0.0));
    let (x, y) = at.unwrap_or(here);
    p.log(format!("mouse {action:?} at ({x:.0}, {y:.0})"));
    match action {
        MouseAction::Move => send(page, "mouseMoved", (x, y), None, 0, budget).await?,
        // Given a place, the mouse moves there first (Playwright's `down`/`up` take none: they act
        // where the mouse is).
        MouseAction::Down | MouseAction::Up => {
            if at.is_some_and(|at| at != here) {
                send(page, "mouseMoved", (x, y), None, 0, budget).await?;
            }
            let kind = if action == MouseAction::Down { "mousePressed" } else { "mouseReleased" };
            down_up(page, kind, (x, y), button, 1, budget).await?;
        }
        MouseAction::Click => {
            send(page, "mouseMoved", (x, y), None, 0, budget).await?;
            for n in 1..=clicks {
                down_up(page, "mousePressed", (x, y), button, n, budget).await?;
                down_up(page, "mouseReleased", (x, y), button, n, budget).await?;
            }
        }
        MouseAction::Wheel => {
            let event = InputDispatchMouseEvent {
                kind: "mouseWheel".into(),
                x,
                y,
                modifiers: Some(*page.keys_held.lock().unwrap()),
                delta_x: Some(delta.0),
                delta_y: Some(delta.1),
                ..Default::default()
            };
            page.session.run(&event, dispatch_time(budget)).await.map_err(|e| cdp_failure(Phase::Cdp, e))?;
        }
        MouseAction::Drag => {
            let to =
                to.ok_or_else(|| fail(ErrorCode::BadRequest, Phase::Request, "drag needs to_x and to_y"))?;
            send(page, "mouseMoved", (x, y), None, 0, budget).await?;
            down_up(page, "mousePressed", (x, y), button, 1, budget).await?;
            send(page, "mouseMoved", to, None, 0, budget).await?;
            down_up(page, "mouseReleased", to, button, 1, budget).await?;
        }
    }
    let (x, y) = page.mouse_at.lock().unwrap().unwrap_or((x, y));
    Ok(Output::Input(InputResult::of(format!("the mouse at ({x:.0}, {y:.0})"))))
}

/// A press or a release of `button`: the buttons held are updated (a press adds it before its
/// event, a release removes it before its event, as Chromium expects `buttons` to say).
async fn down_up(
    page: &Page,
    kind: &str,
    at: (f64, f64),
    button: MouseButton,
    clicks: u32,
    budget: Budget,
) -> Result<(), WorkerError> {
    {
        let mut held = page.buttons_held.lock().unwrap();
        if kind == "mousePressed" {
            *held |= button.bit();
        } else {
            *held &= !button.bit();
        }
    }
    send(page, kind, at, Some(button), clicks, budget).await
}

/// One mouse event with the buttons and modifiers held; a move names the first button held (a drag).
async fn send(
    page: &Page,
    kind: &str,
    (x, y): (f64, f64),
    button: Option<MouseButton>,
    clicks: u32,
    budget: Budget,
) -> Result<(), WorkerError> {
    let buttons = *page.buttons_held.lock().unwrap();
    let held = [MouseButton::Left, MouseButton::Right, MouseButton::Middle]
        .into_iter()
        .find(|b| buttons & b.bit() != 0);
    let name = button.or(held).map_or("none", MouseButton::as_str);
    let event = InputDispatchMouseEvent {
        kind: kind.to_string(),
        x,
        y,
        button: Some(name.to_string()),
        buttons: Some(buttons),
        click_count: Some(clicks),
        modifiers: Some(*page.keys_held.lock().unwrap()),
        ..Default::default()
    };
    page.session.run(&event, dispatch_time(budget)).await.map_err(|e| cdp_failure(Phase::Cdp, e))?;
    *page.mouse_at.lock().unwrap() = Some((x, y));
    Ok(())
}

/// The raw keyboard input `action` with `key` (a key name, a combo for press, the text for
/// insert_text) on the focused element.
pub(crate) async fn keyboard(
    page: &Page,
    action: KeyboardAction,
    key: &str,
    p: &Progress,
) -> Result<Output, WorkerError> {
    p.enter(Phase::Cdp);
    let budget = p.budget();
    let one_key = || {
        let (mods, def) =
            keys::parse_combo(key).map_err(|e| fail(ErrorCode::BadRequest, Phase::Request, e.to_string()))?;
        if !mods.is_empty() {
            return Err(fail(
                ErrorCode::BadRequest,
                Phase::Request,
                format!("keyboard down and up take one key, not the combo {key:?} (press takes a combo)"),
            ));
        }
        Ok(def)
    };
    match action {
        KeyboardAction::Down => {
            let def = one_key()?;
            let held = {
                let mut held = page.keys_held.lock().unwrap();
                *held |= def.modifier_bit();
                *held
            };
            let def = if held & keys::SHIFT != 0 { keys::with_shift(&def) } else { def };
            // Text only when no command modifier is held (Playwright's `Keyboard.down`).
            let text = def.text.clone().filter(|_| held & (keys::ALT | keys::CONTROL | keys::META) == 0);
            let kind = if text.is_some() { "keyDown" } else { "rawKeyDown" };
            key_event(page, kind, &def, held, text, budget).await?;
        }
        KeyboardAction::Up => {
            let def = one_key()?;
            let held = {
                let mut held = page.keys_held.lock().unwrap();
                *held &= !def.modifier_bit();
                *held
            };
            let def = if held & keys::SHIFT != 0 { keys::with_shift(&def) } else { def };
            key_event(page, "keyUp", &def, held, None, budget).await?;
        }
        KeyboardAction::Press => press(page, key, budget).await?,
        KeyboardAction::InsertText => {
            page.session
                .run(&InputInsertText { text: key.to_string() }, dispatch_time(budget))
                .await
                .map_err(|e| cdp_failure(Phase::Cdp, e))?;
        }
    }
    Ok(Output::Input(InputResult::of("the focused element")))
}
