//! Input on elements: resolve the target, wait until it is actionable ([`actionability::ready`]), then
//! click, hover, type, fill, press, select, check or drag, following Playwright's element actions
//! (`server/dom.ts`: `fill` sets the value with the element's own setter and fires `input` and
//! `change`; `selectOption` picks by value, label or index; `check` clicks until the state is right).

use std::time::Duration;

use sb_cdp::commands::{InputDispatchDragEvent, InputDispatchMouseEvent, InputSetInterceptDrags};
use sb_protocol::api::MouseButton;
use sb_protocol::api::{FillFormResult, InputResult, SelectResult};
use sb_protocol::ipc::{InputAction, Locator, Output, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde_json::json;

use crate::elements::actionability::{self, Ready};
use crate::error::{cdp_failure, fail};
use crate::inputs::input::{dispatch_time, insert_text, key_stroke, mouse, press};
use crate::inputs::keys;
use crate::progress::Progress;
use crate::tab::page::{call_function_on, Page};
use crate::tab::settle::{Navigation, NavigationWatch};

/// Time between two looks for a `<select>`'s missing options.
const SELECT_RETRY: Duration = Duration::from_millis(50);

/// Longest [`settle_for`] waits for the renderer past the `settle_ms` asked (a busy or hung page).
const SETTLE_SLACK: Duration = Duration::from_millis(350);

/// Waits `ms` of the renderer's own time (`page.click {settle_ms}`), capped by the budget, so that a
/// dialog a handler's timer raises sooner is answered before the action is: a timer of that length in
/// the page's isolated world, which the renderer fires after every timer the input's handlers set for
/// earlier (timers run in deadline order, and an open dialog holds the page until the dialog watcher
/// answers it). Measured in the worker's time, a loaded machine let a 100 ms timer's alert come after a
/// 150 ms wait. Where the page has no world (it is navigating) the wait is the worker's own.
async fn settle_for(page: &Page, ms: u64, p: &Progress) {
    let wanted = Duration::from_millis(ms);
    let cap = p.budget().capped(wanted + SETTLE_SLACK);
    let started = std::time::Instant::now();
    let wait = sb_cdp::calls::CallFunctionOn {
        function_declaration: "(ms) => new Promise((r) => setTimeout(r, ms))".into(),
        arguments: vec![json!({ "value": ms })],
        await_promise: true,
        ..Default::default()
    };
    let waited = page.worlds.call(&page.session, &page.target_id, wait, Budget::new(cap)).await;
    if waited.is_err() {
        let rest = p.budget().capped(wanted).saturating_sub(started.elapsed());
        tokio::time::sleep(rest).await;
    }
}

/// Runs `input` on `target` (or, for a press without target, on the focused element): waits until the
/// element is ready ([`actionability::ready`]), then sends the input; failures after the checks are in
/// phase `cdp`. The answer comes as soon as the input's effects are known: a navigation it started is
/// waited for until it commits, within the budget ([`NavigationWatch`], after Playwright's
/// `waitForSignalsCreatedBy`), and reported (`navigated_to`, or `navigation_pending` when the budget
/// ran out first); otherwise the requests it started are waited for (at most
/// [`crate::tab::settle::REQUESTS_CAP`]). `settle_ms` more of the renderer's
/// time are waited when the caller asks (a window in which a dialog counts as the action's).
pub(crate) async fn act(
    page: &Page,
    target: Option<&Locator>,
    input: &InputAction,
    settle_ms: u64,
    p: &Progress,
) -> Result<Output, WorkerError> {
    let mut watch = NavigationWatch::start(page);
    let choosers = page.journal.choosers().0;
    let mut output = act_on(page, target, input, &mut watch, p).await?;
    p.log("input sent; waiting for a navigation it started to commit");
    let navigation = watch.settle(page, p.budget()).await;
    // A hover or a scroll starts no requests worth waiting for; a navigation's document is waited
    // for already.
    if !matches!(input, InputAction::Hover | InputAction::ScrollIntoView)
        && matches!(navigation, Navigation::None)
    {
        p.log("waiting for the requests it started");
        let open = watch.requests_answered(p.budget()).await;
        if open > 0 {
            p.log(format!("{open} requests it started were still open"));
        }
    }
    if settle_ms > 0 {
        p.log(format!("settling {settle_ms} ms"));
        settle_for(page, settle_ms, p).await;
    }
    if navigation != Navigation::None {
        p.log(format!("navigation: {navigation:?}"));
    }
    let (to, pending) = match navigation {
        Navigation::Committed(url) => (Some(url), false),
        Navigation::Pending => (None, true),
        Navigation::None | Navigation::Abandoned => (None, false),
        Navigation::Download => {
            page.download_began.store(true, std::sync::atomic::Ordering::Relaxed);
            (None, false)
        }
    };
    let (opened, multiple) = page.journal.choosers();
    if let (Output::Input(o), true) = (&mut output, opened > choosers) {
        p.log("a file chooser opened");
        o.file_chooser = Some(sb_protocol::api::FileChooser { multiple });
    }
    match &mut output {
        Output::Input(o) => (o.navigated_to, o.navigation_pending) = (to, pending),
        Output::Selected(o) => (o.navigated_to, o.navigation_pending) = (to, pending),
        _ => {}
    }
    Ok(output)
}

/// The input itself ([`act`] without the navigation wait); `watch` is restarted once the element is
/// ready, so that only what happens from the input on counts as its own.
async fn act_on(
    page: &Page,
    target: Option<&Locator>,
    input: &InputAction,
    watch: &mut NavigationWatch,
    p: &Progress,
) -> Result<Output, WorkerError> {
    let Some(locator) = target else {
        return match input {
            InputAction::Press { key } => {
                p.enter(Phase::Cdp);
                p.log(format!("pressing {key} on the focused element"));
                press(page, key, p.budget()).await?;
                Ok(Output::Input(InputResult::of("the focused element")))
            }
            InputAction::Mouse(input) => crate::inputs::raw::mouse(page, input, p).await,
            InputAction::Keyboard { action, key } => {
                crate::inputs::raw::keyboard(page, *action, key, p).await
            }
            _ => Err(p.fail(ErrorCode::BadRequest, "give a ref or a selector")),
        };
    };
    let cdp = |e| cdp_failure(Phase::Cdp, e);
    if let Some(at) = actionability::at_once(page, locator, input, p.budget()).await {
        p.log(format!("{} is actionable at ({:.0}, {:.0})", at.label, at.x, at.y));
        p.enter(Phase::Cdp);
        pointer(page, input, at.x, at.y, true, p.budget()).await.map_err(cdp)?;
        return Ok(Output::Input(InputResult::of(at.label)));
    }
    let ready = actionability::ready(page, locator, input, p).await?;
    // What the page did while the element was waited for (its own timers' navigations, URL changes
    // and requests) is not the input's: as Playwright's `waitForSignalsCreatedBy`, which wraps the
    // input alone, after the checks (`server/dom.ts` `_retryPointerAction`).
    watch.restart();
    p.log(format!("{} is actionable at ({:.0}, {:.0})", ready.el.label, ready.x, ready.y));
    // An element's own answer (no such option, not fillable) is still a finding about it.
    let finding = |code, message: String| fail(code, Phase::Actionability, message);
    // Checks passed: what follows is input, not actionability.
    p.enter(Phase::Cdp);
    let budget = p.budget();
    let Ready { el, x, y } = ready;
    // `function` called on the element, by value.
    let on_element = |function: &str, args| {
        call_function_on(&el.session, &el.object_id, function, args, budget.remaining())
    };
    match input {
        InputAction::Click { .. } | InputAction::Hover => {
            let together = el.session.id() == page.session.id();
            pointer(page, input, x, y, together, budget).await.map_err(cdp)?;
        }
        InputAction::Type { text, clear, submit } => {
            on_element(FOCUS, json!([])).await.map_err(cdp)?;
            if *clear {
                on_element("function() { if (this.select) this.select(); else { const r = document.createRange(); r.selectNodeContents(this); const s = getSelection(); s.removeAllRanges(); s.addRange(r); } }", json!([]))
                .await
                .map_err(cdp)?;
                press(page, "Backspace", budget).await?;
            }
            p.log(format!("typing {} characters", text.chars().count()));
            for ch in text.chars() {
                match keys::for_char(ch) {
                    Some(def) => key_stroke(page, &def, 0, true, budget).await?,
                    None => insert_text(page, ch.encode_utf8(&mut [0; 4]), budget).await?,
                }
            }
            if *submit {
                press(page, "Enter", budget).await?;
            }
        }
        InputAction::Fill { value } => {
            let r = on_element(FILL, json!([{"value": value}])).await.map_err(cdp)?;
            // An editor's content is selected: the value goes in as typed text replacing it
            // (`Input.insertText`; Delete for an empty value), as Playwright's fill does, so that the
            // editor's own model (ProseMirror, Lexical, ...) sees the edit.
            if r == json!("insert") {
                if value.is_empty() {
                    press(page, "Delete", budget).await?;
                } else {
                    insert_text(page, value, budget).await?;
                }
            } else if r != json!("ok") {
                // Not a state that may pass (as Playwright's fill throws): the request must change.
                let why = r.as_str().unwrap_or("cannot be filled");
                return Err(finding(
                    ErrorCode::BadRequest,
                    format!("{}: {why}; nothing was filled", el.label),
                ));
            }
        }
        InputAction::Press { key } => {
            on_element(FOCUS, json!([])).await.map_err(cdp)?;
            press(page, key, budget).await?;
        }
        InputAction::Select { values, labels, indexes } => {
            let wanted = json!({"values": values, "labels": labels, "indexes": indexes});
            // An option that is not there yet is waited for within the budget (Playwright retries
            // `selectOptions` until its options appear).
            let not_there = |missing: &str| {
                p.fail(
                    ErrorCode::Timeout,
                    format!("{} has no option with {missing} (waited for it)", el.label),
                )
            };
            let mut missing = None;
            let r = loop {
                let r = match on_element(SELECT, json!([{"value": wanted.clone()}])).await {
                    Ok(r) => r,
                    // Cut short by the deadline while waiting: what was missing is the answer.
                    Err(e) if e.is_timeout() && missing.is_some() => {
                        return Err(not_there(missing.as_deref().unwrap_or_default()))
                    }
                    Err(e) => return Err(cdp(e)),
                };
                let r: Selected = serde_json::from_value(r).unwrap_or_default();
                if let Some(problem) = r.error {
                    return Err(finding(ErrorCode::BadRequest, format!("{}: {problem}", el.label)));
                }
                let Some(now_missing) = r.missing else { break r };
                if budget.expired() {
                    return Err(not_there(&now_missing));
                }
                missing = Some(now_missing);
                tokio::time::sleep(budget.capped(SELECT_RETRY)).await;
            };
            return Ok(Output::Selected(SelectResult {
                element: el.label,
                values: r.values,
                navigated_to: None,
                navigation_pending: false,
            }));
        }
        InputAction::Check { checked } => {
            let before = on_element(CHECKED, json!([])).await.map_err(cdp)?;
            if before["checked"] != json!(*checked) && !*checked && before["radio"] == json!(true) {
                // As Playwright's `_setChecked`, without a click: only another radio of its group can.
                let message = format!(
                    "cannot uncheck {}: a radio button is unchecked by checking another of its group",
                    el.label
                );
                return Err(finding(ErrorCode::BadRequest, message));
            }
            if before["checked"] != json!(*checked) {
                mouse(page, "mouseMoved", x, y, None, 0, 0, budget).await.map_err(cdp)?;
                mouse(page, "mousePressed", x, y, Some(MouseButton::Left), 1, 0, budget)
                    .await
                    .map_err(cdp)?;
                mouse(page, "mouseReleased", x, y, Some(MouseButton::Left), 1, 0, budget)
                    .await
                    .map_err(cdp)?;
                if on_element(CHECKED, json!([])).await.map_err(cdp)?["checked"] != json!(*checked) {
                    let want = if *checked { "checked" } else { "unchecked" };
                    let message = format!("clicking {} did not make it {want}", el.label);
                    return Err(finding(ErrorCode::NotEnabled, message));
                }
            }
        }
        InputAction::ScrollIntoView => {}
        // Raw input names no element (answered before the checks, above).
        InputAction::Mouse(_) | InputAction::Keyboard { .. } => {
            return Err(fail(ErrorCode::BadRequest, Phase::Request, "raw input takes no element"))
        }
        InputAction::DragTo { to } => {
            let target = drag(page, x, y, to, p).await?;
            return Ok(Output::Input(InputResult::of(format!("{} onto {target}", el.label))));
        }
    }
    Ok(Output::Input(InputResult::of(el.label)))
}

/// A click or hover at (`x`, `y`), CSS px in the page's viewport; `together`: the element is of the
/// page's own renderer.
async fn pointer(
    page: &Page,
    input: &InputAction,
    x: f64,
    y: f64,
    together: bool,
    budget: Budget,
) -> Result<(), sb_cdp::CdpError> {
    let InputAction::Click { button, click_count, modifiers } = input else {
        return mouse(page, "mouseMoved", x, y, None, 0, 0, budget).await;
    };
    let mods = keys::modifier_mask(modifiers);
    let button = Some(*button);
    // For an element of the page's own renderer, the move, the presses and the releases are sent
    // together, in order (the renderer runs a queued move before a press): a move alone is answered at
    // the next frame. For one in an out-of-process iframe the move is answered first: sent together,
    // the press to a button in an iframe inside another did not reach it (Chromium routes input to a
    // frame's renderer by hit test; tried and measured).
    let mut events = vec![mouse(page, "mouseMoved", x, y, None, 0, mods, budget)];
    for n in 1..=(*click_count).max(1) {
        if !together {
            for answered in futures_util::future::join_all(events.drain(..)).await {
                answered?;
            }
        }
        events.push(mouse(page, "mousePressed", x, y, button, n, mods, budget));
        events.push(mouse(page, "mouseReleased", x, y, button, n, mods, budget));
    }
    for answered in futures_util::future::join_all(events).await {
        answered?;
    }
    Ok(())
}

/// Steps of the pointer's way from the source to the target.
const DRAG_STEPS: u32 = 5;

/// Presses at (`x`, `y`), moves to the center of `to` in [`DRAG_STEPS`] and releases there. HTML5 drag
/// and drop is intercepted (`Input.setInterceptDrags`): when a drag starts, its data goes to the target
/// as `dragEnter`, `dragOver` and `drop` (`Input.dispatchDragEvent`). Returns the target's label.
async fn drag(page: &Page, x: f64, y: f64, to: &Locator, p: &Progress) -> Result<String, WorkerError> {
    let budget = p.budget();
    // The source passed its checks: what fails from here is input (`cdp`), as for every action.
    let cdp = |e| cdp_failure(Phase::Cdp, e);
    let mut events = page.session.events();
    page.session.run(&InputSetInterceptDrags { enabled: true }, dispatch_time(budget)).await.map_err(cdp)?;
    p.on_abort(&page.session, &InputSetInterceptDrags { enabled: false });
    let outcome = async {
        mouse(page, "mouseMoved", x, y, None, 0, 0, budget).await.map_err(cdp)?;
        mouse(page, "mousePressed", x, y, Some(MouseButton::Left), 1, 0, budget).await.map_err(cdp)?;
        // Until the button is released, a drag cut short releases it (and stops intercepting drags).
        p.on_abort(&page.session, &release(x, y));
        // The target, checked like a hover (this also scrolls it into view), by the same retry loop.
        let target = actionability::ready(page, to, &InputAction::Hover, p).await?;
        let (label, tx, ty) = (target.el.label, target.x, target.y);
        let mut intercepted = None;
        for step in 1..=DRAG_STEPS {
            let f = f64::from(step) / f64::from(DRAG_STEPS);
            mouse(
                page,
                "mouseMoved",
                x + (tx - x) * f,
                y + (ty - y) * f,
                Some(MouseButton::Left),
                0,
                0,
                budget,
            )
            .await
            .map_err(cdp)?;
            while let Some(ev) = events.try_recv() {
                if ev.method == "Input.dragIntercepted" {
                    intercepted = Some(ev.params["data"].clone());
                }
            }
        }
        if let Some(data) = intercepted {
            for kind in ["dragEnter", "dragOver", "drop"] {
                page.session
                    .run(
                        &InputDispatchDragEvent { kind: kind.into(), x: tx, y: ty, data: data.clone() },
                        dispatch_time(budget),
                    )
                    .await
                    .map_err(cdp)?;
            }
        }
        mouse(page, "mouseReleased", tx, ty, Some(MouseButton::Left), 1, 0, budget).await.map_err(cdp)?;
        Ok(label)
    }
    .await;
    // A drag that failed is undone by its cleanups (the action's `Progress::abort`); one that ended
    // released the button itself and only stops intercepting drags.
    let label = outcome?;
    p.forget_cleanups();
    let _ = page.session.run(&InputSetInterceptDrags { enabled: false }, dispatch_time(budget)).await;
    Ok(label)
}

/// `Input.dispatchMouseEvent` params that release the left button at (`x`, `y`).
fn release(x: f64, y: f64) -> InputDispatchMouseEvent {
    InputDispatchMouseEvent {
        kind: "mouseReleased".into(),
        x,
        y,
        button: Some("left".into()),
        buttons: Some(0),
        click_count: Some(1),
        ..InputDispatchMouseEvent::default()
    }
}

/// Focuses the element (before typing or pressing a key on it).
const FOCUS: &str = "function() { this.focus(); }";

/// Whether a checkbox, radio or ARIA checkable is checked, and whether it is a radio: `{checked, radio}`.
const CHECKED: &str = "function() { const radio = this.type === 'radio' || this.getAttribute('role') === 'radio'; if (this.type === 'checkbox' || this.type === 'radio') return { checked: this.checked, radio }; return { checked: this.getAttribute('aria-checked') === 'true', radio }; }";

/// Selects options of a `<select>` by value, label or index; fires `input` and `change`.
const SELECT: &str = include_str!("select.js");

/// Sets the value with the element's own setter (so frameworks see it), firing `input` and `change`.
const FILL: &str = include_str!("fill.js");

/// What `select.js` answers: the values now selected, or an option not there yet (`missing`), or why
/// it cannot select (`error`).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct Selected {
    values: Vec<String>,
    missing: Option<String>,
    error: Option<String>,
}

/// `page.fill_form`: each field in order, by what its element is (as Playwright MCP's
/// `browser_fill_form` takes a field's type): a checkbox or radio is checked by `"true"` / `"false"`,
/// a `<select>` chooses the option of that value or label, any other field is filled. The first field
/// that fails stops the form, its error naming it (`field 2 of 3: <input id="agree"> is a checkbox
/// ...`); a field whose input starts a navigation ends it too (the rest would act on another page).
pub(crate) async fn fill_form(
    page: &Page,
    fields: &[(Locator, String)],
    p: &Progress,
) -> Result<Output, WorkerError> {
    const KIND: &str = "function() { if (this instanceof HTMLSelectElement) return 'select'; \
        if (this instanceof HTMLInputElement && (this.type === 'checkbox' || this.type === 'radio')) return 'check'; \
        const role = this.getAttribute && this.getAttribute('role'); \
        return role === 'checkbox' || role === 'radio' || role === 'switch' ? 'check' : 'text'; }";
    let mut filled = Vec::new();
    for (i, (locator, value)) in fields.iter().enumerate() {
        let named = |e: WorkerError| WorkerError {
            message: format!("field {} of {}: {}", i + 1, fields.len(), e.message),
            ..e
        };
        let budget = p.budget();
        // The field's kind, when it is there already (else it is waited for as a text field is).
        let (kind, label) = match crate::elements::resolve::resolve(page, locator, p).await.map_err(named)? {
            Some(el) => {
                let kind = el.call_as(KIND, Phase::Actionability, "the field's kind", budget).await;
                (kind.map_err(named)?, el.label)
            }
            None => ("text".to_string(), String::new()),
        };
        let (input, done) = match kind.as_str() {
            "check" => {
                let checked = match value.as_str() {
                    "true" => true,
                    "false" => false,
                    other => {
                        return Err(named(fail(
                            ErrorCode::BadRequest,
                            Phase::Request,
                            format!("{label} is a checkbox or radio: its value is \"true\" or \"false\", not {other:?}"),
                        )))
                    }
                };
                (InputAction::Check { checked }, if checked { "checked" } else { "unchecked" })
            }
            "select" => (
                InputAction::Select { values: vec![value.clone()], labels: Vec::new(), indexes: Vec::new() },
                "selected",
            ),
            _ => (InputAction::Fill { value: value.clone() }, "filled"),
        };
        p.log(format!("field {} of {}: {label} {done}", i + 1, fields.len()));
        let out = act(page, Some(locator), &input, 0, p).await.map_err(named)?;
        let (element, navigated) = match out {
            Output::Input(r) => (r.element, r.navigated_to),
            Output::Selected(r) => (r.element, r.navigated_to),
            _ => (label.clone(), None),
        };
        filled.push(format!("{element}: {done}"));
        if navigated.is_some() {
            return Ok(Output::FillForm(FillFormResult { filled, navigated_to: navigated }));
        }
    }
    Ok(Output::FillForm(FillFormResult { filled, navigated_to: None }))
}
