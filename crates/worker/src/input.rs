//! Input on elements, with Playwright's actionability checks.
//!
//! An element is named by a ref (from a snapshot) or a CSS selector ([`Locator`]). Before pointer
//! input it must be attached, visible (non-empty box, not `visibility: hidden`), stable (same box over
//! the next animation frame; two under a running animation), enabled, and receive events: the hit test at the click point
//! (`DOM.getNodeForLocation`) must be the element or inside it. The checks retry until the action's
//! time is up, then fail with the unmet check (`element_covered` names the element in the way).
//! Input goes through `Input.dispatchMouseEvent`, `Input.dispatchKeyEvent` and `Input.insertText`.

use std::time::Duration;

use sb_cdp::{CdpError, Session};
use sb_protocol::ipc::{InputAction, InputOutput, Locator, Output, RefRecord, SelectedOutput, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde_json::{json, Value};

use crate::keys::{self, KeyDef};
use crate::{cdp_failure, Page};

/// Time between two rounds of actionability checks.
const RETRY: Duration = Duration::from_millis(50);
/// Longest one CDP call of a round may take.
const STEP: Duration = Duration::from_millis(2_000);
/// Least time an input event is given once the checks passed, even at the end of the budget (the
/// ladder's reserve covers it).
const DISPATCH_MIN: Duration = Duration::from_millis(100);

/// The timeout of one input event.
fn dispatch_time(budget: Budget) -> Duration {
    budget.capped(STEP).max(DISPATCH_MIN)
}

/// A resolved element: its remote object, `backendNodeId`, and how errors name it.
pub(crate) struct Element {
    pub object_id: String,
    pub backend: i64,
    pub label: String,
    /// The CDP session of the element's document: the page's, or an out-of-process iframe's.
    pub session: Session,
    /// Where that session's viewport lies in the page's viewport, CSS px: (0, 0) but for an
    /// out-of-process iframe, whose content box starts there.
    pub offset: (f64, f64),
}

fn err(code: ErrorCode, message: String) -> WorkerError {
    WorkerError { code, phase: Phase::Actionability, message }
}

fn stale(r: &RefRecord) -> WorkerError {
    err(ErrorCode::StaleRef, format!("Ref {} belongs to an earlier page; take a new snapshot.", r.id))
}

/// Calls `function` on the element (`Runtime.callFunctionOn`, by value, promises awaited), sent now
/// (in order with the session's other calls); the answer's future.
fn send_on(
    session: &Session,
    object_id: &str,
    function: &str,
    args: Value,
    budget: Budget,
) -> impl std::future::Future<Output = Result<Value, CdpError>> {
    let sent = session.send_raw(
        "Runtime.callFunctionOn",
        json!({"objectId": object_id, "functionDeclaration": function, "arguments": args,
               "returnByValue": true, "awaitPromise": true}),
        budget.capped(STEP),
    );
    async move { Ok(sent.await?["result"]["value"].clone()) }
}

async fn resolve_backend(session: &Session, backend: i64, budget: Budget) -> Option<String> {
    let r = session.call_raw("DOM.resolveNode", json!({"backendNodeId": backend}), budget.capped(STEP)).await;
    r.ok().and_then(|v| v["object"]["objectId"].as_str().map(str::to_string))
}

/// The `backendNodeId` of large-page ref `id` from the walker's registry in the page's isolated world
/// ([`crate::snapshot::WORLD`]); `None` when the page no longer has it (another document, or collected).
async fn registered(page: &Page, id: &str, budget: Budget) -> Option<i64> {
    let world = page
        .session
        .call_raw(
            "Page.createIsolatedWorld",
            json!({"frameId": page.target_id, "worldName": crate::snapshot::WORLD}),
            budget.capped(STEP),
        )
        .await
        .ok()?;
    let expr = format!("globalThis.__sandboxBrowserRefs?.get({})?.deref()", Value::String(id.to_string()));
    let found = page
        .session
        .call_raw(
            "Runtime.evaluate",
            json!({"expression": expr, "contextId": world["executionContextId"]}),
            budget.capped(STEP),
        )
        .await
        .ok()?;
    let object = found["result"]["objectId"].as_str()?;
    let node =
        page.session.call_raw("DOM.describeNode", json!({"objectId": object}), budget.capped(STEP)).await;
    let _ = page
        .session
        .call_raw("Runtime.releaseObject", json!({"objectId": object}), budget.capped(STEP))
        .await;
    node.ok()?["node"]["backendNodeId"].as_i64()
}

/// Resolves a locator now; `Ok(None)` when a selector matches nothing (yet).
///
/// A ref from another document is `stale_ref`. A ref whose node is gone but whose document is the
/// same is found again by (role, name, nth) (`Accessibility.queryAXTree`); when that finds nothing,
/// it is `stale_ref` too: never another element than the snapshot showed.
pub(crate) async fn resolve(
    page: &Page,
    locator: &Locator,
    budget: Budget,
) -> Result<Option<Element>, WorkerError> {
    resolve_as(page, locator, budget, true).await
}

/// [`resolve`]; with `confirm` false a ref's node is taken as it is, without asking whether it is
/// still connected (for a caller whose next call checks that).
async fn resolve_as(
    page: &Page,
    locator: &Locator,
    budget: Budget,
    confirm: bool,
) -> Result<Option<Element>, WorkerError> {
    match locator {
        Locator::Ref(r) => {
            let frame = crate::frames::context(page, &r.frame_id, budget).await?;
            let Some((session, offset, loader)) = frame else { return Err(stale(r)) };
            if loader != r.loader_id {
                return Err(stale(r));
            }
            let label = if r.name.is_empty() { r.role.clone() } else { format!("{} {:?}", r.role, r.name) };
            // A large-page ref (backend 0) is kept by the page: the walker's registry.
            let backend = if r.backend_node_id == 0 {
                registered(page, &r.id, budget).await.unwrap_or(0)
            } else {
                r.backend_node_id
            };
            if let Some(object_id) = resolve_backend(&session, backend, budget).await.filter(|_| backend != 0)
            {
                if !confirm {
                    return Ok(Some(Element { object_id, backend, label, session, offset }));
                }
                let connected = send_on(
                    &session,
                    &object_id,
                    "function() { return this.isConnected; }",
                    json!([]),
                    budget,
                )
                .await;
                if connected.is_ok_and(|v| v == json!(true)) {
                    return Ok(Some(Element { object_id, backend, label, session, offset }));
                }
            }
            // Found again by role and name in its document: the main frame's or an out-of-process
            // iframe's (a same-process iframe's document is not the session's `document`).
            let own_document = r.frame_id == page.target_id || session.id() != page.session.id();
            if !own_document {
                return Err(stale(r));
            }
            let doc = session
                .call_raw("Runtime.evaluate", json!({"expression": "document"}), budget.capped(STEP))
                .await
                .map_err(|e| cdp_failure(Phase::Actionability, e))?;
            let doc_id = doc["result"]["objectId"].as_str().unwrap_or_default();
            let found = session
                .call_raw(
                    "Accessibility.queryAXTree",
                    json!({"objectId": doc_id, "accessibleName": r.name, "role": r.role}),
                    budget.capped(STEP),
                )
                .await
                .map_err(|e| cdp_failure(Phase::Actionability, e))?;
            let backends: Vec<i64> = found["nodes"]
                .as_array()
                .map(|n| {
                    n.iter()
                        .filter(|x| x["ignored"] != json!(true))
                        .filter_map(|x| x["backendDOMNodeId"].as_i64())
                        .collect()
                })
                .unwrap_or_default();
            let Some(&backend) = backends.get(r.nth as usize) else { return Err(stale(r)) };
            let object_id = resolve_backend(&session, backend, budget).await.ok_or_else(|| stale(r))?;
            Ok(Some(Element { object_id, backend, label, session, offset }))
        }
        Locator::Selector(css) => {
            let expr = format!("document.querySelector({})", Value::String(css.clone()));
            let r = page
                .session
                .call_raw("Runtime.evaluate", json!({"expression": expr}), budget.capped(STEP))
                .await
                .map_err(|e| cdp_failure(Phase::Actionability, e))?;
            if let Some(d) = r.get("exceptionDetails") {
                let msg = d["exception"]["description"].as_str().unwrap_or("invalid selector");
                return Err(WorkerError {
                    code: ErrorCode::BadRequest,
                    phase: Phase::Actionability,
                    message: msg.lines().next().unwrap_or_default().to_string(),
                });
            }
            let Some(object_id) = r["result"]["objectId"].as_str().map(str::to_string) else {
                return Ok(None);
            };
            let described = page
                .session
                .call_raw("DOM.describeNode", json!({"objectId": object_id}), budget.capped(STEP))
                .await;
            let backend = described.ok().and_then(|d| d["node"]["backendNodeId"].as_i64()).unwrap_or(0);
            let label = send_on(&page.session, &object_id, DESCRIBE, json!([]), budget)
                .await
                .ok()
                .and_then(|v| v.as_str().map(str::to_string));
            Ok(Some(Element {
                object_id,
                backend,
                label: label.unwrap_or_else(|| css.clone()),
                session: page.session.clone(),
                offset: (0.0, 0.0),
            }))
        }
    }
}

fn describe_locator(locator: &Locator) -> String {
    match locator {
        Locator::Ref(r) => format!("ref {}", r.id),
        Locator::Selector(css) => format!("selector {css:?}"),
    }
}

/// The `backendNodeId` a locator names now (for `scope`).
pub(crate) async fn backend_of(page: &Page, locator: &Locator, budget: Budget) -> Result<i64, WorkerError> {
    match resolve(page, locator, budget).await? {
        Some(el) => Ok(el.backend),
        None => Err(WorkerError {
            code: ErrorCode::BadRequest,
            phase: Phase::Cdp,
            message: "scope matches no element".into(),
        }),
    }
}

/// `<tag id="..." class="...">`.
const DESCRIBE: &str = r#"function() {
  let s = '<' + this.localName;
  for (const a of ['id', 'class', 'name', 'role']) if (this.hasAttribute && this.hasAttribute(a)) s += ' ' + a + '="' + this.getAttribute(a).slice(0, 40) + '"';
  return s + '>';
}"#;

/// Scrolls the element to the middle of the viewport.
const CENTER: &str =
    "function() { this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' }); }";

/// Whether the point lies inside `view` (a [`viewport`] answer).
fn inside_viewport(view: &Value, x: f64, y: f64) -> bool {
    let w = view["viewport"][0].as_f64().unwrap_or(f64::MAX);
    let h = view["viewport"][1].as_f64().unwrap_or(f64::MAX);
    x >= 0.0 && y >= 0.0 && x < w && y < h
}

/// One round of checks: attached, visible, stable across an animation frame (two under a running
/// animation), enabled, editable.
const CHECKS: &str = r#"async function() {
  if (!this.isConnected) return { attached: false };
  const a = this.getBoundingClientRect();
  // Stable: the same box across animation frames: one frame for a still element (a page script that
  // moves it from its own animation-frame callback runs first), two when a CSS or Web animation runs on
  // it or an ancestor (Playwright's definition). A page that gets no frame within 200 ms (hidden, or a
  // loaded machine) is compared after that time, and then a running animation counts as movement.
  const running = document.getAnimations().filter((an) => an.playState === 'running'
    && an.effect && an.effect.target && (an.effect.target === this || an.effect.target.contains(this)));
  const animated = running.length > 0;
  const frame = () => new Promise((r) => { const t = setTimeout(() => r(false), 200); requestAnimationFrame(() => { clearTimeout(t); r(true); }); });
  const framed = (await frame()) && (!animated || (await frame()));
  // An animation still waiting to start (pending: its clock not yet running, on a busy page) has not
  // moved the element yet, but will: not stable this round.
  const starting = running.some((an) => an.pending);
  if (!this.isConnected) return { attached: false };
  const b = this.getBoundingClientRect();
  const style = getComputedStyle(this);
  const disabled = this.disabled === true || this.getAttribute('aria-disabled') === 'true'
    || (!!this.closest && !!this.closest('fieldset[disabled]') && 'disabled' in this);
  const textual = ['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date', 'datetime-local', 'month', 'time', 'week'];
  const editable = this.isContentEditable || ((this.localName === 'textarea'
    || (this.localName === 'input' && textual.includes((this.getAttribute('type') || '').toLowerCase()))) && !this.readOnly);
  return {
    attached: true,
    visible: b.width > 0 && b.height > 0 && style.visibility !== 'hidden',
    stable: !starting && !(animated && !framed) && a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height,
    enabled: !disabled,
    editable,
  };
}"#;

/// The element's window: its viewport size and scroll position, CSS px (the fallback of [`viewport`]).
const VIEW: &str =
    "function() { return { viewport: [innerWidth, innerHeight], scroll: [scrollX, scrollY] }; }";

/// The viewport the element's click point is in, as `{viewport: [w, h], scroll: [x, y]}`, CSS px, from
/// `metrics` (`Page.getLayoutMetrics` of the element's session: its root frame, which is the page's for
/// an element of a same-process iframe, whose quads are in the page's coordinates, and the iframe's own
/// for an out-of-process one); the element's own window when that call failed.
async fn viewport(metrics: Result<Value, CdpError>, el: &Element, budget: Budget) -> Result<Value, CdpError> {
    match metrics {
        Ok(m) => {
            let v = &m["cssLayoutViewport"];
            Ok(json!({"viewport": [v["clientWidth"], v["clientHeight"]], "scroll": [v["pageX"], v["pageY"]]}))
        }
        Err(e) if e.is_timeout() => Err(e),
        Err(_) => send_on(&el.session, &el.object_id, VIEW, json!([]), budget).await,
    }
}

/// A CDP answer on its way.
type Answer = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value, CdpError>> + Send>>;

/// A round's first calls, sent together and in this order (one session runs them in order):
/// `DOM.scrollIntoViewIfNeeded`, `DOM.getContentQuads`, and for pointer input `Page.getLayoutMetrics`.
/// The checks, sent after them, take their first box after the scroll.
struct Sent {
    scrolled: Answer,
    quads: Answer,
    metrics: Option<Answer>,
}

impl Sent {
    /// Sends the calls for the node named by `node` (`{"objectId"}` or `{"backendNodeId"}`).
    fn send(session: &Session, node: Value, pointer: bool, budget: Budget) -> Sent {
        let step = budget.capped(STEP);
        Sent {
            scrolled: Box::pin(session.send_raw("DOM.scrollIntoViewIfNeeded", node.clone(), step)),
            quads: Box::pin(session.send_raw("DOM.getContentQuads", node, step)),
            metrics: pointer
                .then(|| -> Answer { Box::pin(session.send_raw("Page.getLayoutMetrics", json!({}), step)) }),
        }
    }
}

/// Whether `input` goes through the pointer (and so needs the click point's hit test).
fn is_pointer(input: &InputAction) -> bool {
    matches!(
        input,
        InputAction::Click { .. }
            | InputAction::Hover
            | InputAction::Check { .. }
            | InputAction::DragTo { .. }
    )
}

/// For a ref of the page's own current document whose node is known: the round's first calls
/// ([`Sent`]), sent by `backendNodeId` before the node is resolved, so that `DOM.resolveNode` costs no
/// round trip of its own. A ref of another document, a frame or the walker's registry gets `None`.
fn send_early(page: &Page, locator: &Locator, input: &InputAction, budget: Budget) -> Option<Sent> {
    let Locator::Ref(r) = locator else { return None };
    let current = r.frame_id == page.target_id && page.lifecycle.borrow().loader_id == r.loader_id;
    (current && r.backend_node_id != 0).then(|| {
        Sent::send(&page.session, json!({"backendNodeId": r.backend_node_id}), is_pointer(input), budget)
    })
}

/// What one round found.
enum Round {
    Ready {
        x: f64,
        y: f64,
    },
    /// The node is no longer in its document (a ref's is found again by role and name).
    Detached,
    Unmet(WorkerError),
}

/// One round of checks on `el` for `input`; scrolls it into view first.
///
/// The scroll, the checks, the quads and the viewport are sent together, in that order: the element's
/// session runs them in order, so the checks' first box and the click point are taken after the
/// scroll, and the round costs one round trip and the checks' frame, not one round trip a step.
async fn check_round(
    el: &Element,
    input: &InputAction,
    sent: Option<Sent>,
    budget: Budget,
) -> Result<Round, WorkerError> {
    let pointer = is_pointer(input);
    let Sent { scrolled, quads, metrics } =
        sent.unwrap_or_else(|| Sent::send(&el.session, json!({"objectId": el.object_id}), pointer, budget));
    let checks = send_on(&el.session, &el.object_id, CHECKS, json!([]), budget);
    let scrolled = async {
        if scrolled.await.is_err() {
            // Not scrollable by CDP (no layout yet, say): by script. Should that move the element,
            // the checks (already waiting for their frame) see it as not stable.
            let _ = send_on(&el.session, &el.object_id, CENTER, json!([]), budget).await;
        }
    };
    // The hit test needs the click point: it runs while the checks wait for their frame.
    let geometry = async {
        let (quads, view) = match metrics {
            Some(metrics) => {
                let (quads, metrics) = tokio::join!(quads, metrics);
                (quads?, Some(viewport(metrics, el, budget).await?))
            }
            None => (quads.await?, None),
        };
        let Some((x, y)) = quads["quads"].as_array().and_then(|qs| qs.iter().find_map(center)) else {
            return Ok::<_, CdpError>(None);
        };
        let Some(view) = view else {
            return Ok(Some((x, y, None)));
        };
        if !inside_viewport(&view, x, y) {
            return Ok(Some((x, y, None)));
        }
        let hit = el
            .session
            .call_raw(
                "DOM.getNodeForLocation",
                // getNodeForLocation takes document coordinates; quads and mouse events are viewport ones.
                json!({
                    "x": (x + view["scroll"][0].as_f64().unwrap_or(0.0)).round() as i64,
                    "y": (y + view["scroll"][1].as_f64().unwrap_or(0.0)).round() as i64,
                    "includeUserAgentShadowDOM": false,
                }),
                budget.capped(STEP),
            )
            .await;
        Ok(Some((x, y, Some(hit))))
    };
    let (c, geometry, ()) = tokio::join!(checks, geometry, scrolled);
    let c = c.map_err(|e| cdp_failure(Phase::Actionability, e))?;
    let unmet = |code, what: &str| Ok(Round::Unmet(err(code, format!("{} {what}", el.label))));
    if c["attached"] != json!(true) {
        return Ok(Round::Detached);
    }
    if c["visible"] != json!(true) {
        return unmet(ErrorCode::NotVisible, "is not visible");
    }
    if c["stable"] != json!(true) {
        return unmet(ErrorCode::NotStable, "is still moving");
    }
    // Looking at an element (hover, scroll) does not need it enabled; acting on it does.
    let needs_enabled = !matches!(input, InputAction::Hover | InputAction::ScrollIntoView);
    if needs_enabled && c["enabled"] != json!(true) {
        return unmet(ErrorCode::NotEnabled, "is disabled");
    }
    if matches!(input, InputAction::Type { .. } | InputAction::Fill { .. }) && c["editable"] != json!(true) {
        return unmet(ErrorCode::NotEnabled, "is not editable");
    }
    let Some((x, y, hit)) = geometry.map_err(|e| cdp_failure(Phase::Actionability, e))? else {
        return unmet(ErrorCode::NotVisible, "has no visible area");
    };
    if pointer {
        let Some(hit) = hit else {
            // Off screen after all: center it for the next round.
            let _ = send_on(&el.session, &el.object_id, CENTER, json!([]), budget).await;
            return unmet(ErrorCode::NotVisible, "is outside the viewport");
        };
        let hit = match hit {
            Ok(hit) => hit,
            // A slow answer is a failed round, not a finding about the element.
            Err(e) if e.is_timeout() => return Err(cdp_failure(Phase::Actionability, e)),
            Err(_) => return unmet(ErrorCode::NotVisible, "has nothing at its click point"),
        };
        let hit_backend = hit["backendNodeId"].as_i64().unwrap_or(0);
        if hit_backend != el.backend {
            // Not resolvable, or not known to be inside: not a click on this element.
            let Some(hit_obj) = resolve_backend(&el.session, hit_backend, budget).await else {
                if budget.remaining() < RETRY {
                    // Out of time to look, not a finding: the last full round's answer stands.
                    return Err(err(ErrorCode::Timeout, format!("{} was not checked in time", el.label)));
                }
                return unmet(
                    ErrorCode::ElementCovered,
                    "is covered by an element that could not be inspected",
                );
            };
            let inside = send_on(
                &el.session,
                &el.object_id,
                "function(o) { return this === o || this.contains(o) || (!!o.getRootNode && o.getRootNode().host === this); }",
                json!([{"objectId": hit_obj}]),
                budget,
            )
            .await;
            if !inside.is_ok_and(|v| v == json!(true)) {
                // Naming the blocker is the point of this answer: it gets time even at the very end.
                let naming = Budget::new(budget.remaining().max(Duration::from_millis(200)));
                let blocker = send_on(&el.session, &hit_obj, DESCRIBE, json!([]), naming)
                    .await
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_else(|| "another element".into());
                return Ok(Round::Unmet(err(
                    ErrorCode::ElementCovered,
                    format!("{blocker} intercepts pointer events over {}", el.label),
                )));
            }
        }
    }
    Ok(Round::Ready { x: x + el.offset.0, y: y + el.offset.1 })
}

/// The center of a quad (`[x1, y1, ..., x4, y4]`) with a non-zero area.
fn center(q: &Value) -> Option<(f64, f64)> {
    let p: Vec<f64> = q.as_array()?.iter().filter_map(Value::as_f64).collect();
    if p.len() != 8 {
        return None;
    }
    let area = ((p[0] * p[3] - p[2] * p[1])
        + (p[2] * p[5] - p[4] * p[3])
        + (p[4] * p[7] - p[6] * p[5])
        + (p[6] * p[1] - p[0] * p[7]))
        .abs()
        / 2.0;
    (area > 0.99).then(|| ((p[0] + p[2] + p[4] + p[6]) / 4.0, (p[1] + p[3] + p[5] + p[7]) / 4.0))
}

/// Runs `input` on `target` (or, for a press without target, on the focused element).
pub(crate) async fn act(
    page: &Page,
    target: Option<&Locator>,
    input: &InputAction,
    budget: Budget,
) -> Result<Output, WorkerError> {
    let Some(locator) = target else {
        return match input {
            InputAction::Press { key } => {
                press(page, key, budget).await?;
                Ok(Output::Input(InputOutput { element: "the focused element".into() }))
            }
            _ => Err(WorkerError {
                code: ErrorCode::BadRequest,
                phase: Phase::Actionability,
                message: "give a ref or a selector".into(),
            }),
        };
    };
    let mut last = err(ErrorCode::Timeout, "the element was not checked before the budget ran out".into());
    let mut last_is_real = false;
    let (el, x, y) = loop {
        if budget.expired() {
            return Err(last);
        }
        let round = async {
            // The node's `isConnected` is one of the checks: a ref's node is looked at once.
            let early = send_early(page, locator, input, budget);
            let Some(el) = resolve_as(page, locator, budget, false).await? else {
                return Ok::<_, WorkerError>(None);
            };
            match check_round(&el, input, early, budget).await? {
                Round::Detached => {}
                found => return Ok(Some((el, found))),
            }
            // Gone from its document: a ref's node is found again by role and name (or is stale).
            let Some(el) = resolve(page, locator, budget).await? else { return Ok(None) };
            check_round(&el, input, None, budget).await.map(|r| Some((el, r)))
        };
        match round.await {
            // A round cut short by the deadline: the answer is what the last full round found.
            Err(e) if e.code == ErrorCode::Timeout && budget.remaining() < RETRY * 2 && last_is_real => {
                return Err(last)
            }
            Err(e) => return Err(e),
            Ok(None) => {
                last = err(
                    ErrorCode::Timeout,
                    format!("no element matches {} (waited for it)", describe_locator(locator)),
                );
                last_is_real = true;
            }
            Ok(Some((el, Round::Ready { x, y }))) => break (el, x, y),
            Ok(Some((el, Round::Detached))) => {
                let gone = err(
                    ErrorCode::StaleRef,
                    format!("{} is no longer attached to the page; take a new snapshot.", el.label),
                );
                if matches!(locator, Locator::Ref(_)) {
                    return Err(gone);
                }
                // A selector is asked again next round.
                last = gone;
                last_is_real = true;
            }
            Ok(Some((_, Round::Unmet(e))))
                if e.code == ErrorCode::StaleRef && matches!(locator, Locator::Ref(_)) =>
            {
                return Err(e)
            }
            Ok(Some((_, Round::Unmet(e)))) => {
                last = e;
                last_is_real = true;
            }
        }
        if budget.remaining() <= RETRY {
            return Err(last);
        }
        tokio::time::sleep(RETRY).await;
    };
    // Checks passed: what follows is input, not actionability.
    page.enter(Phase::Cdp);
    let cdp = |e| cdp_failure(Phase::Cdp, e);
    match input {
        InputAction::Click { button, click_count, modifiers } => {
            let mods = keys::modifier_mask(modifiers);
            let button = button.as_str();
            // For an element of the page's own renderer, the move, the presses and the releases are
            // sent together, in order (the renderer runs a queued move before a press): a move alone
            // is answered at the next frame. For one in an out-of-process iframe the move is answered
            // first: sent together, the press to a button in an iframe inside another did not reach
            // it (Chromium routes input to a frame's renderer by hit test; tried and measured).
            let together = el.session.id() == page.session.id();
            let mut events = vec![mouse(page, "mouseMoved", x, y, "none", 0, mods, budget)];
            for n in 1..=(*click_count).max(1) {
                if !together {
                    for answered in futures_util::future::join_all(events.drain(..)).await {
                        answered.map_err(cdp)?;
                    }
                }
                events.push(mouse(page, "mousePressed", x, y, button, n, mods, budget));
                events.push(mouse(page, "mouseReleased", x, y, button, n, mods, budget));
            }
            for answered in futures_util::future::join_all(events).await {
                answered.map_err(cdp)?;
            }
        }
        InputAction::Hover => mouse(page, "mouseMoved", x, y, "none", 0, 0, budget).await.map_err(cdp)?,
        InputAction::Type { text, clear, submit } => {
            send_on(&el.session, &el.object_id, "function() { this.focus(); }", json!([]), budget)
                .await
                .map_err(cdp)?;
            if *clear {
                send_on(
                    &el.session,
                    &el.object_id,
                    "function() { if (this.select) this.select(); else { const r = document.createRange(); r.selectNodeContents(this); const s = getSelection(); s.removeAllRanges(); s.addRange(r); } }",
                    json!([]),
                    budget,
                )
                .await
                .map_err(cdp)?;
                press(page, "Backspace", budget).await?;
            }
            for ch in text.chars() {
                match keys::for_char(ch) {
                    Some(def) => {
                        key_stroke(page, &def, if def.shifted { keys::SHIFT } else { 0 }, true, budget)
                            .await?
                    }
                    None => {
                        page.session
                            .call_raw(
                                "Input.insertText",
                                json!({"text": ch.to_string()}),
                                dispatch_time(budget),
                            )
                            .await
                            .map_err(cdp)?;
                    }
                }
            }
            if *submit {
                press(page, "Enter", budget).await?;
            }
        }
        InputAction::Fill { value } => {
            let r = send_on(&el.session, &el.object_id, FILL, json!([{"value": value}]), budget)
                .await
                .map_err(cdp)?;
            if r != json!("ok") {
                return Err(err(ErrorCode::NotEnabled, format!("{} cannot be filled", el.label)));
            }
        }
        InputAction::Press { key } => {
            send_on(&el.session, &el.object_id, "function() { this.focus(); }", json!([]), budget)
                .await
                .map_err(cdp)?;
            press(page, key, budget).await?;
        }
        InputAction::Select { values, labels, indexes } => {
            let wanted = json!({"values": values, "labels": labels, "indexes": indexes});
            let r = send_on(&el.session, &el.object_id, SELECT, json!([{"value": wanted}]), budget)
                .await
                .map_err(cdp)?;
            if let Some(problem) = r["error"].as_str() {
                return Err(err(ErrorCode::BadRequest, format!("{}: {problem}", el.label)));
            }
            let values = r["values"]
                .as_array()
                .map(|v| v.iter().filter_map(|x| x.as_str().map(str::to_string)).collect());
            return Ok(Output::Selected(SelectedOutput {
                element: el.label,
                values: values.unwrap_or_default(),
            }));
        }
        InputAction::Check { checked } => {
            let state = || send_on(&el.session, &el.object_id, CHECKED, json!([]), budget);
            if state().await.map_err(cdp)? != json!(*checked) {
                mouse(page, "mouseMoved", x, y, "none", 0, 0, budget).await.map_err(cdp)?;
                mouse(page, "mousePressed", x, y, "left", 1, 0, budget).await.map_err(cdp)?;
                mouse(page, "mouseReleased", x, y, "left", 1, 0, budget).await.map_err(cdp)?;
                if state().await.map_err(cdp)? != json!(*checked) {
                    let want = if *checked { "checked" } else { "unchecked" };
                    return Err(err(
                        ErrorCode::NotEnabled,
                        format!("clicking {} did not make it {want}", el.label),
                    ));
                }
            }
        }
        InputAction::ScrollIntoView => {}
        InputAction::DragTo { to } => {
            let target = drag(page, x, y, to, budget).await?;
            return Ok(Output::Input(InputOutput { element: format!("{} onto {target}", el.label) }));
        }
    }
    Ok(Output::Input(InputOutput { element: el.label }))
}

/// Steps of the pointer's way from the source to the target.
const DRAG_STEPS: u32 = 5;

/// Presses at (`x`, `y`), moves to the center of `to` in [`DRAG_STEPS`] and releases there. HTML5 drag
/// and drop is intercepted (`Input.setInterceptDrags`): when a drag starts, its data goes to the target
/// as `dragEnter`, `dragOver` and `drop` (`Input.dispatchDragEvent`). Returns the target's label.
async fn drag(page: &Page, x: f64, y: f64, to: &Locator, budget: Budget) -> Result<String, WorkerError> {
    // The source passed its checks: what fails from here is input (`cdp`), as for every action.
    let cdp = |e| cdp_failure(Phase::Cdp, e);
    let mut events = page.session.events();
    page.session
        .call_raw("Input.setInterceptDrags", json!({"enabled": true}), dispatch_time(budget))
        .await
        .map_err(cdp)?;
    let outcome = async {
        mouse(page, "mouseMoved", x, y, "none", 0, 0, budget).await.map_err(cdp)?;
        mouse(page, "mousePressed", x, y, "left", 1, 0, budget).await.map_err(cdp)?;
        // The target, checked like a hover (this also scrolls it into view).
        let (label, tx, ty) = loop {
            let Some(target) = resolve(page, to, budget).await? else {
                return Err(err(
                    ErrorCode::Timeout,
                    format!("no drop target matches {}", describe_locator(to)),
                ));
            };
            match check_round(&target, &InputAction::Hover, None, budget).await? {
                Round::Ready { x, y } => break (target.label, x, y),
                Round::Detached => {
                    return Err(err(
                        ErrorCode::StaleRef,
                        format!("{} is no longer attached to the page; take a new snapshot.", target.label),
                    ))
                }
                Round::Unmet(e) if budget.remaining() <= RETRY => return Err(e),
                Round::Unmet(_) => tokio::time::sleep(RETRY).await,
            }
        };
        let mut intercepted = None;
        for step in 1..=DRAG_STEPS {
            let f = f64::from(step) / f64::from(DRAG_STEPS);
            mouse(page, "mouseMoved", x + (tx - x) * f, y + (ty - y) * f, "left", 0, 0, budget)
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
                    .call_raw(
                        "Input.dispatchDragEvent",
                        json!({"type": kind, "x": tx, "y": ty, "data": data}),
                        dispatch_time(budget),
                    )
                    .await
                    .map_err(cdp)?;
            }
        }
        mouse(page, "mouseReleased", tx, ty, "left", 1, 0, budget).await.map_err(cdp)?;
        Ok(label)
    }
    .await;
    let _ = page
        .session
        .call_raw("Input.setInterceptDrags", json!({"enabled": false}), dispatch_time(budget))
        .await;
    outcome
}

/// Whether a checkbox, radio or ARIA checkable is checked.
const CHECKED: &str = "function() { if (this.type === 'checkbox' || this.type === 'radio') return this.checked; return this.getAttribute('aria-checked') === 'true'; }";

/// Selects options of a `<select>` by value, label or index; fires `input` and `change`.
const SELECT: &str = r#"function(want) {
  if (this.localName !== 'select') return { error: 'is not a <select>' };
  const opts = Array.from(this.options);
  const picked = [];
  for (const v of want.values) { const o = opts.find((o) => o.value === v); if (!o) return { error: 'has no option with value ' + JSON.stringify(v) }; picked.push(o); }
  for (const l of want.labels) { const o = opts.find((o) => o.label === l || o.text.trim() === l); if (!o) return { error: 'has no option labelled ' + JSON.stringify(l) }; picked.push(o); }
  for (const i of want.indexes) { if (!opts[i]) return { error: 'has no option at index ' + i }; picked.push(opts[i]); }
  if (picked.length > 1 && !this.multiple) return { error: 'takes one option (it is not multiple)' };
  for (const o of opts) o.selected = picked.includes(o);
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return { values: Array.from(this.selectedOptions).map((o) => o.value) };
}"#;

/// Sets the value with the element's own setter (so frameworks see it), firing `input` and `change`.
const FILL: &str = r#"function(value) {
  this.focus();
  if (this.isContentEditable) { this.textContent = value; this.dispatchEvent(new InputEvent('input', { bubbles: true })); return 'ok'; }
  const proto = this.localName === 'textarea' ? HTMLTextAreaElement.prototype : this.localName === 'input' ? HTMLInputElement.prototype : null;
  if (!proto) return 'no';
  Object.getOwnPropertyDescriptor(proto, 'value').set.call(this, value);
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return 'ok';
}"#;

/// One `Input.dispatchMouseEvent` of type `kind` at (`x`, `y`), CSS px in the viewport, sent now (in
/// order with the events sent before it: the browser queues them for the renderer in that order);
/// the answer's future. A plain move to where the pointer already is is not sent (moves are
/// frame-aligned: it would only cost a frame).
#[allow(clippy::too_many_arguments)]
fn mouse<'a>(
    page: &'a Page,
    kind: &str,
    x: f64,
    y: f64,
    button: &str,
    clicks: u32,
    modifiers: u32,
    budget: Budget,
) -> impl std::future::Future<Output = Result<(), CdpError>> + 'a {
    let here = *page.mouse_at.lock().unwrap() == Some((x, y));
    let buttons = match (kind, button) {
        // A move with the left button named is a drag: the button is held.
        ("mousePressed" | "mouseMoved", "left") => 1,
        ("mousePressed", "right") => 2,
        ("mousePressed", "middle") => 4,
        _ => 0,
    };
    let sent = (!(kind == "mouseMoved" && button == "none" && here)).then(|| {
        page.session.send_raw(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": button, "buttons": buttons, "clickCount": clicks, "modifiers": modifiers}),
            dispatch_time(budget),
        )
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
    let (mods, key) = keys::parse_combo(combo).map_err(|m| err(ErrorCode::BadRequest, m))?;
    let mut held = 0;
    for m in &mods {
        held |= m.modifier_bit();
        key_event(page, "rawKeyDown", m, held, None, budget).await?;
    }
    // Text only when no command modifier is held (Control+A selects, it types nothing).
    let types = held & (keys::ALT | keys::CONTROL | keys::META) == 0;
    key_stroke(page, &key, held, types, budget).await?;
    for m in mods.iter().rev() {
        held &= !m.modifier_bit();
        key_event(page, "keyUp", m, held, None, budget).await?;
    }
    Ok(())
}

/// keyDown (with text when `types`) and keyUp of one key.
async fn key_stroke(
    page: &Page,
    def: &KeyDef,
    modifiers: u32,
    types: bool,
    budget: Budget,
) -> Result<(), WorkerError> {
    let text = if types { def.text.clone() } else { None };
    let down = if text.is_some() { "keyDown" } else { "rawKeyDown" };
    if def.shifted && modifiers & keys::SHIFT != 0 {
        key_event(page, "rawKeyDown", &keys::shift(), keys::SHIFT, None, budget).await?;
    }
    key_event(page, down, def, modifiers, text, budget).await?;
    key_event(page, "keyUp", def, modifiers, None, budget).await?;
    if def.shifted && modifiers & keys::SHIFT != 0 {
        key_event(page, "keyUp", &keys::shift(), 0, None, budget).await?;
    }
    Ok(())
}

async fn key_event(
    page: &Page,
    kind: &str,
    def: &KeyDef,
    modifiers: u32,
    text: Option<String>,
    budget: Budget,
) -> Result<(), WorkerError> {
    let mut p = json!({
        "type": kind, "key": def.key, "code": def.code, "windowsVirtualKeyCode": def.key_code,
        "nativeVirtualKeyCode": def.key_code, "modifiers": modifiers, "location": def.location,
    });
    if let Some(t) = text {
        p["text"] = json!(t);
        p["unmodifiedText"] = json!(t);
    }
    page.session
        .call_raw("Input.dispatchKeyEvent", p, dispatch_time(budget))
        .await
        .map(|_| ())
        .map_err(|e| cdp_failure(Phase::Cdp, e))
}
