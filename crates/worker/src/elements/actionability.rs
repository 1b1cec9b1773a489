//! Actionability, as Playwright defines it (`server/dom.ts`, `_retryPointerAction` and
//! `injected/injectedScript.ts` `elementState`/`expectHitTarget`): before input an element must be
//! attached, visible (Playwright's rule: `visible.js`), stable (the same box over the next
//! animation frame; two under a running animation; none when the element's last check found it still
//! at most a frame ago and its box is the same: [`crate::tab::page::SeenStable`]), enabled, editable for
//! typing, and, for pointer input, receive events: the hit test at the click point
//! (`DOM.getNodeForLocation`) must be the element or inside it. A click or hover on a main-frame ref
//! in view takes all of that in one call in the runtime's isolated world ([`at_once`]).
//!
//! [`ready`] is the one retry loop (click, hover, type and the source and target of a drag all use
//! it): resolve, check, wait [`RETRY`], again, until the checks pass or the action's time is up. Then
//! it fails with the last unmet check (`element_covered` names the element in the way) and says what
//! the rounds found ("4 rounds: is still moving x3, is covered x1").

use std::time::Duration;

use sb_cdp::calls::{decode, ContentQuads};
use sb_cdp::commands::{DomGetContentQuads, DomScrollIntoViewIfNeeded, PageGetLayoutMetrics};
use sb_cdp::types::LayoutMetrics;
use sb_cdp::{CdpError, Session};
use sb_protocol::ipc::{InputAction, Locator, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde::de::IgnoredAny;
use serde_json::json;

use crate::elements::resolve::{
    describe_locator, kept_in_world, label_of, registry_lookup, registry_ref, resolve, resolve_as,
    resolve_backend, Element, DESCRIBE,
};
use crate::error::{cdp_failure, fail};
use crate::progress::Progress;
use crate::tab::page::{call_function_on, Page, SeenStable};

/// Time between two rounds of actionability checks.
pub(crate) const RETRY: Duration = Duration::from_millis(50);
/// Whether the element at the click point (`o`, at `x`, `y` in the frame's viewport) counts as `this`,
/// as in Playwright's `expectHitTarget` (injected/injectedScript.ts): the deepest element there
/// (through open shadow roots) is `this`, or below it in the flat tree (slotted content, a shadow
/// root's content), or a label of it.
const HIT_TARGET: &str = include_str!("hit_target.js");

/// Longest one CDP call of a round may take.
const STEP: Duration = Duration::from_millis(2_000);

/// An actionability finding.
fn err(code: ErrorCode, message: String) -> WorkerError {
    fail(code, Phase::Actionability, message)
}

/// Scrolls the element to the middle of the viewport.
const CENTER: &str =
    "function() { this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' }); }";

/// The viewport a click point is in, CSS px: its size and its scroll offset in the document.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
struct View {
    /// `[innerWidth, innerHeight]`.
    viewport: [f64; 2],
    /// `[scrollX, scrollY]`.
    scroll: [f64; 2],
}

impl View {
    /// Whether the point lies inside the viewport.
    fn contains(&self, x: f64, y: f64) -> bool {
        x >= 0.0 && y >= 0.0 && x < self.viewport[0] && y < self.viewport[1]
    }
}

/// What one round of [`CHECKS`] found.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default)]
struct Checks {
    attached: bool,
    visible: bool,
    stable: bool,
    enabled: bool,
    /// Neither disabled nor read-only (`readonly`, `aria-readonly`).
    editable: bool,
    /// Not an `<input>`, `<textarea>`, `<select>` or `[contenteditable]`, and no role that takes
    /// `aria-readonly`: nothing to type into, whatever the page does next.
    never_editable: bool,
    /// The element's box when the check ended, and the animation clock's time then (`{x, y, width,
    /// height, time}`), when it was found still: for the next check of the same element
    /// ([`crate::tab::page::SeenStable`]).
    #[serde(rename = "box")]
    seen: Option<serde_json::Value>,
}

/// One round of checks: attached, visible ([`crate::elements::resolve::VISIBLE`]'s test, Playwright's), stable
/// across an animation frame (two under a running animation), enabled, editable: `checks.js`, in a
/// scope that defines its `isVisible`. A function expression, the same source every call.
static CHECKS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("(() => {{ {} return ({}); }})()", crate::elements::resolve::VISIBLE, include_str!("checks.js"))
});

/// The element's window: its viewport size and scroll position, CSS px (the fallback of [`viewport`]).
const VIEW: &str =
    "function() { return { viewport: [innerWidth, innerHeight], scroll: [scrollX, scrollY] }; }";

/// The viewport the element's click point is in, from `metrics` (`Page.getLayoutMetrics` of the
/// element's session: its root frame, which is the page's for an element of a same-process iframe,
/// whose quads are in the page's coordinates, and the iframe's own for an out-of-process one); the
/// element's own window when that call failed.
async fn viewport(
    metrics: Result<LayoutMetrics, CdpError>,
    el: &Element,
    budget: Budget,
) -> Result<View, CdpError> {
    match metrics {
        Ok(m) => {
            let v = m.css_layout_viewport;
            Ok(View { viewport: [v.client_width, v.client_height], scroll: [v.page_x, v.page_y] })
        }
        Err(e) if e.is_timeout() => Err(e),
        Err(_) => {
            let view =
                call_function_on(&el.session, &el.object_id, VIEW, json!([]), budget.capped(STEP)).await?;
            decode("viewport", view)
        }
    }
}

/// A node by `objectId` or by `backendNodeId`.
type NodeRef = (Option<String>, Option<i64>);

/// A CDP answer on its way, typed.
type Answer<T> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, CdpError>> + Send>>;

/// A round's first calls, sent together and in this order (one session runs them in order):
/// `DOM.scrollIntoViewIfNeeded`, `DOM.getContentQuads`, and for pointer input `Page.getLayoutMetrics`.
/// The checks, sent after them, take their first box after the scroll.
struct Sent {
    scrolled: Answer<IgnoredAny>,
    quads: Answer<ContentQuads>,
    metrics: Option<Answer<LayoutMetrics>>,
}

impl Sent {
    /// Sends the calls for the node named by `node` (`{"objectId"}` or `{"backendNodeId"}`).
    fn send(session: &Session, node: NodeRef, pointer: bool, budget: Budget) -> Sent {
        let step = budget.capped(STEP);
        let scroll = DomScrollIntoViewIfNeeded { object_id: node.0.clone(), backend_node_id: node.1 };
        let quads = DomGetContentQuads { object_id: node.0, backend_node_id: node.1 };
        Sent {
            scrolled: Box::pin(session.send(&scroll, step)),
            quads: Box::pin(session.send(&quads, step)),
            metrics: pointer
                .then(|| -> Answer<LayoutMetrics> { Box::pin(session.send(&PageGetLayoutMetrics {}, step)) }),
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
    (current && r.backend_node_id != 0)
        .then(|| Sent::send(&page.session, (None, Some(r.backend_node_id)), is_pointer(input), budget))
}

/// What one round found.
enum Round {
    Ready {
        x: f64,
        y: f64,
    },
    /// The node is no longer in its document (a ref's is then `stale_ref`; a selector matches anew).
    Detached,
    /// A check not met: what (`is not visible`, for the round summary) and the error it would be.
    Unmet(&'static str, WorkerError),
}

/// One round of checks on `el` for `input`; scrolls it into view first.
///
/// The scroll, the checks, the quads and the viewport are sent together, in that order: the element's
/// session runs them in order, so the checks' first box and the click point are taken after the
/// scroll, and the round costs one round trip and the checks' frame, not one round trip a step.
async fn check_round(
    page: &Page,
    el: &mut Element,
    locator: &Locator,
    input: &InputAction,
    sent: Option<Sent>,
    budget: Budget,
) -> Result<Round, WorkerError> {
    let pointer = is_pointer(input);
    // An element found in the isolated world ([`kept_in_world`]): its `backendNodeId`, asked first.
    let described = (el.backend == 0 && el.world.is_some()).then(|| {
        let describe = json!({ "objectId": el.object_id });
        el.session.send_raw("DOM.describeNode", describe, budget.capped(STEP))
    });
    let Sent { scrolled, quads, metrics } =
        sent.unwrap_or_else(|| Sent::send(&el.session, (Some(el.object_id.clone()), None), pointer, budget));
    // This element's box when its last check ended, when that found it still.
    let key = stable_key(locator, el);
    let seen = seen(page, &el.session, key.as_ref());
    let checks = call_function_on(
        &el.session,
        &el.object_id,
        &CHECKS,
        json!([{ "value": seen }]),
        budget.capped(STEP),
    );
    let scrolled = async {
        if scrolled.await.is_err() {
            // Not scrollable by CDP (no layout yet, say): by script. Should that move the element,
            // the checks (already waiting for their frame) see it as not stable.
            let _ =
                call_function_on(&el.session, &el.object_id, CENTER, json!([]), budget.capped(STEP)).await;
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
        let Some((x, y)) = quads.quads.iter().find_map(|q| center(q)) else {
            return Ok::<_, CdpError>(None);
        };
        let Some(view) = view else {
            return Ok(Some((x, y, None)));
        };
        if !view.contains(x, y) {
            return Ok(Some((x, y, None)));
        }
        // getNodeForLocation takes document coordinates; quads and mouse events are viewport ones.
        let (doc_x, doc_y) = ((x + view.scroll[0]).round() as i64, (y + view.scroll[1]).round() as i64);
        let hit = el.session.node_for_location(doc_x, doc_y, budget.capped(STEP)).await;
        Ok(Some((x, y, Some(hit))))
    };
    let described = async {
        match described {
            Some(d) => d.await.ok().and_then(|v| v["node"]["backendNodeId"].as_i64()),
            None => Some(el.backend),
        }
    };
    let (c, geometry, (), backend) = tokio::join!(checks, geometry, scrolled, described);
    let mut c: Checks =
        c.and_then(|c| decode("checks", c)).map_err(|e| cdp_failure(Phase::Actionability, e))?;
    keep_seen(page, &el.session, key, c.seen.take());
    // Not described: not a node of the document any more (the round resolves it anew).
    let Some(backend) = backend else { return Ok(Round::Detached) };
    el.backend = backend;
    let unmet = |code, what: &'static str| Ok(Round::Unmet(what, err(code, format!("{} {what}", el.label))));
    if !c.attached {
        return Ok(Round::Detached);
    }
    if !c.visible {
        return unmet(ErrorCode::NotVisible, "is not visible");
    }
    if !c.stable {
        return unmet(ErrorCode::NotStable, "is still moving");
    }
    // Looking at an element (hover, scroll) does not need it enabled; acting on it does.
    let needs_enabled = !matches!(input, InputAction::Hover | InputAction::ScrollIntoView);
    if needs_enabled && !c.enabled {
        return unmet(ErrorCode::NotEnabled, "is disabled");
    }
    if matches!(input, InputAction::Type { .. } | InputAction::Fill { .. }) {
        // Answered at once, as Playwright's `elementState('editable')` throws for such an element.
        if c.never_editable {
            return Err(err(
                ErrorCode::BadRequest,
                format!(
                    "{} is not an <input>, <textarea>, <select> or [contenteditable] and has no role that \
                     takes aria-readonly: nothing to type into",
                    el.label
                ),
            ));
        }
        if !c.editable {
            return unmet(ErrorCode::NotEnabled, "is read-only");
        }
    }
    let Some((x, y, hit)) = geometry.map_err(|e| cdp_failure(Phase::Actionability, e))? else {
        return unmet(ErrorCode::NotVisible, "has no visible area");
    };
    if pointer {
        let Some(hit) = hit else {
            // Off screen after all: center it for the next round.
            let _ =
                call_function_on(&el.session, &el.object_id, CENTER, json!([]), budget.capped(STEP)).await;
            return unmet(ErrorCode::NotVisible, "is outside the viewport");
        };
        let hit = match hit {
            Ok(hit) => hit,
            // A slow answer is a failed round, not a finding about the element.
            Err(e) if e.is_timeout() => return Err(cdp_failure(Phase::Actionability, e)),
            Err(_) => return unmet(ErrorCode::NotVisible, "has nothing at its click point"),
        };
        let hit_backend = hit;
        if hit_backend != el.backend {
            // Not resolvable, or not known to be inside: not a click on this element.
            // In the element's world: a function's argument must be an object of its own world.
            let hit_obj = match el.world {
                None => resolve_backend(&el.session, hit_backend, page.group(&el.session), budget).await,
                Some(world) => {
                    let group = page.group(&el.session);
                    let hit = el.session.resolve_node_in(hit_backend, world, group, budget.capped(STEP));
                    hit.await.ok().and_then(|o| o.object_id)
                }
            };
            let Some(hit_obj) = hit_obj else {
                if budget.remaining() < RETRY {
                    // Out of time to look, not a finding: the last full round's answer stands.
                    return Err(err(ErrorCode::Timeout, format!("{} was not checked in time", el.label)));
                }
                return unmet(
                    ErrorCode::ElementCovered,
                    "is covered by an element that could not be inspected",
                );
            };
            let inside = call_function_on(
                &el.session,
                &el.object_id,
                HIT_TARGET,
                json!([{"objectId": hit_obj}, {"value": x}, {"value": y}]),
                budget.capped(STEP),
            )
            .await;
            if !inside.is_ok_and(|v| v == json!(true)) {
                // Naming the blocker is the point of this answer: it gets time even at the very end.
                let naming = Budget::new(budget.remaining().max(Duration::from_millis(200)));
                let blocker =
                    call_function_on(&el.session, &hit_obj, DESCRIBE, json!([]), naming.remaining())
                        .await
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_else(|| "another element".into());
                return Ok(Round::Unmet(
                    "is covered",
                    err(
                        ErrorCode::ElementCovered,
                        format!("{blocker} intercepts pointer events over {}", el.label),
                    ),
                ));
            }
        }
    }
    Ok(Round::Ready { x: x + el.offset.0, y: y + el.offset.1 })
}

/// A pointer action's checks and click point in one call ([`at_once`]).
const AT_ONCE: &str = include_str!("at_once.js");

/// Where a pointer action goes when [`at_once`] found its element ready: the click point (CSS px in
/// the page's viewport) and how errors name the element.
pub(crate) struct Point {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) label: String,
}

/// A click or hover on a main-frame ref of the page's current document kept in the walker's registry,
/// when its element is ready now: the lookup, the checks ([`CHECKS`], one frame), the click point (the
/// center of its first box with an area, from `getClientRects`) and the hit test (`elementsFromPoint`
/// and [`HIT_TARGET`], as Playwright's `expectHitTarget`) in one `Runtime.evaluate` in the runtime's
/// isolated world, where [`ready`]'s first round costs the lookup, then the checks, quads, viewport
/// and `DOM.getNodeForLocation`. Only an element entirely in view at page scale 1 is taken this way
/// (a scroll is `DOM.scrollIntoViewIfNeeded`'s, as Playwright's). `None` when the element is not
/// ready this way, or the call failed: [`ready`] then looks as usual (and says what is wrong), with
/// the evidence of this check for its stability check.
pub(crate) async fn at_once(
    page: &Page,
    locator: &Locator,
    input: &InputAction,
    budget: Budget,
) -> Option<Point> {
    if !matches!(input, InputAction::Click { .. } | InputAction::Hover) {
        return None;
    }
    let r = registry_ref(page, locator)?;
    let key = ref_key(r);
    let seen = seen(page, &page.session, Some(&key)).unwrap_or(serde_json::Value::Null);
    let needs_enabled = !matches!(input, InputAction::Hover);
    // The ref, its evidence and the action's need are arguments: the source is the same every call.
    let call = sb_cdp::calls::CallFunctionOn {
        function_declaration: format!(
            "function(id, seen, needsEnabled) {{ return ({AT_ONCE})({}, seen, needsEnabled, ({}), ({HIT_TARGET})); }}",
            registry_lookup("id"),
            *CHECKS
        ),
        arguments: vec![json!({ "value": r.id }), json!({ "value": seen }), json!({ "value": needs_enabled })],
        return_by_value: true,
        await_promise: true,
        ..Default::default()
    };
    let step = Budget::new(budget.capped(STEP));
    let answer = page.worlds.call(&page.session, &page.target_id, call, step).await;
    #[derive(serde::Deserialize)]
    struct Found {
        x: Option<f64>,
        y: Option<f64>,
        #[serde(rename = "box")]
        seen: Option<serde_json::Value>,
    }
    let found: Found = serde_json::from_value(answer.ok()?.result.value?).ok()?;
    keep_seen(page, &page.session, Some(key), found.seen);
    Some(Point { x: found.x?, y: found.y?, label: label_of(r) })
}

/// The box of the element `key` names ([`stable_key`]) in `session` when its last check ended, if
/// that check found it still: the evidence for its next stability check ([`SeenStable`]).
fn seen(page: &Page, session: &Session, key: Option<&String>) -> Option<serde_json::Value> {
    let last = page.last_stable.lock().unwrap();
    let last = last.as_ref().filter(|s| s.session == session.id() && Some(&s.element) == key)?;
    Some(last.seen.clone())
}

/// Keeps a check's evidence (`seen`, `None` when it did not find the element still) for the next
/// check of the element `key` names.
fn keep_seen(page: &Page, session: &Session, key: Option<String>, seen: Option<serde_json::Value>) {
    *page.last_stable.lock().unwrap() =
        seen.zip(key).map(|(seen, element)| SeenStable { session: session.id().to_string(), element, seen });
}

/// `ref e5`: [`stable_key`] of a ref.
fn ref_key(r: &sb_protocol::ipc::RefRecord) -> String {
    format!("ref {}", r.id)
}

/// What identifies the element of `locator` across actions for [`SeenStable`]: a ref (one element of
/// one document, never reused within a session), or a selector's node by `backendNodeId` (`None` when
/// not known).
fn stable_key(locator: &Locator, el: &Element) -> Option<String> {
    match locator {
        Locator::Ref(r) => Some(ref_key(r)),
        Locator::Selector(_) => (el.backend != 0).then(|| format!("node {}", el.backend)),
    }
}

/// The center of a quad (`[x1, y1, ..., x4, y4]`) with a non-zero area.
fn center(p: &[f64]) -> Option<(f64, f64)> {
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

/// An element that passed its checks, and its click point (CSS px in the page's viewport).
pub(crate) struct Ready {
    pub(crate) el: Element,
    pub(crate) x: f64,
    pub(crate) y: f64,
}

/// What the rounds found, for the answer when time runs out: the number of rounds and how often each
/// check was unmet, in the order first seen.
#[derive(Default)]
struct Rounds {
    count: u32,
    unmet: Vec<(&'static str, u32)>,
}

impl Rounds {
    fn note(&mut self, what: &'static str) {
        self.count += 1;
        match self.unmet.iter_mut().find(|(w, _)| *w == what) {
            Some((_, n)) => *n += 1,
            None => self.unmet.push((what, 1)),
        }
    }

    /// `4 rounds: is still moving x3, is covered x1`.
    fn summary(&self) -> String {
        let found: Vec<String> = self.unmet.iter().map(|(w, n)| format!("{w} x{n}")).collect();
        let rounds = if self.count == 1 { "1 round".to_string() } else { format!("{} rounds", self.count) };
        format!("{rounds}: {}", found.join(", "))
    }
}

/// Waits until the element `locator` names passes the checks `input` needs, one round every [`RETRY`]
/// within `p`'s budget (Playwright's retry loop in `server/dom.ts`: a round resolves the element again,
/// so a selector that matches later, or a node re-rendered under a ref, is found).
///
/// # Errors
/// The last round's finding when time runs out (`not_visible`, `not_stable`, `not_enabled`,
/// `element_covered`; `timeout` when nothing matched), with the rounds' summary; `stale_ref` at once for
/// a ref whose node is gone from its document; `bad_request` for an invalid selector; a round cut short
/// by a failed CDP call answers that failure, except a call that ran out of its own cap (the round is
/// tried again until the deadline).
pub(crate) async fn ready(
    page: &Page,
    locator: &Locator,
    input: &InputAction,
    p: &Progress,
) -> Result<Ready, WorkerError> {
    let budget = p.budget();
    let is_ref = matches!(locator, Locator::Ref(_));
    let mut rounds = Rounds::default();
    // Whether a round found the element yet.
    let mut found = false;
    // The last round's finding: what the answer says when time runs out.
    let mut last: Option<WorkerError> = None;
    let give_up = |last: Option<WorkerError>, rounds: &Rounds| {
        let Some(e) = last else {
            return err(ErrorCode::Timeout, "the element was not checked before the budget ran out".into());
        };
        // No round ended (the page did not answer the first): nothing to sum up.
        if rounds.count > 0 {
            p.log(rounds.summary());
        }
        p.with_steps(e)
    };
    loop {
        if budget.expired() {
            return Err(give_up(last, &rounds));
        }
        let round = async {
            // The node's `isConnected` is one of the checks: a ref's node is looked at once.
            let early = send_early(page, locator, input, budget);
            let el = match kept_in_world(page, locator, budget).await? {
                Some(el) => Some(el),
                None => resolve_as(page, locator, p, false).await?,
            };
            let Some(mut el) = el else {
                return Ok::<_, WorkerError>(None);
            };
            match check_round(page, &mut el, locator, input, early, budget).await? {
                Round::Detached => {}
                found => return Ok(Some((el, found))),
            }
            // Gone from its document: resolved anew (a ref's is `stale_ref`, a selector matches again).
            let Some(mut el) = resolve(page, locator, p).await? else { return Ok(None) };
            check_round(page, &mut el, locator, input, None, budget).await.map(|r| Some((el, r)))
        };
        let outcome = round.await;
        // Named once, as Playwright's log says "locator resolved to <button>" before its checks.
        if let (Ok(Some((el, _))), false) = (&outcome, found) {
            found = true;
            p.log(format!("resolved to {}; checking that it is actionable", el.label));
        }
        match outcome {
            // A round cut short by the deadline: the answer is what the last full round found (or
            // the call that ran out, when no round was whole).
            Err(e) if e.code == ErrorCode::Timeout && budget.remaining() < RETRY * 2 => {
                return Err(give_up(last.or(Some(e)), &rounds))
            }
            // Cut short by a call's own cap ([`STEP`]) with the budget not spent: a renderer slow
            // under load (sixteen sessions on two cores saw a hit test take longer than that), or
            // stuck. The round is tried again: a timeout is answered at the deadline, not early.
            Err(e) if e.code == ErrorCode::Timeout => {
                rounds.note("was not answered in time");
                last = last.or(Some(e));
            }
            // The element's document went away during the round (a navigation): the next round looks
            // in the new one (a ref of the old document is `stale_ref` there), as Playwright's
            // action retries across a navigation. It answered `cdp_error` "Cannot find context".
            Err(e) if crate::error::went_away(&e) => {
                rounds.note("its document went away");
                let message =
                    format!("the page navigated while {} was looked for", describe_locator(locator));
                last = Some(err(ErrorCode::Timeout, message));
            }
            Err(e) => return Err(e),
            Ok(None) => {
                rounds.note("matched nothing");
                let message = format!("no element matches {} (waited for it)", describe_locator(locator));
                last = Some(err(ErrorCode::Timeout, message));
            }
            Ok(Some((el, Round::Ready { x, y }))) => return Ok(Ready { el, x, y }),
            Ok(Some((el, Round::Detached))) => {
                let gone = err(
                    ErrorCode::StaleRef,
                    format!("{} is no longer attached to the page; take a new snapshot.", el.label),
                );
                if is_ref {
                    return Err(gone);
                }
                // A selector is asked again next round.
                rounds.note("was detached");
                last = Some(gone);
            }
            Ok(Some((_, Round::Unmet(_, e)))) if e.code == ErrorCode::StaleRef && is_ref => return Err(e),
            Ok(Some((_, Round::Unmet(what, e)))) => {
                rounds.note(what);
                last = Some(e);
            }
        }
        // The last round runs at the deadline: the answer comes then, not a retry interval early.
        if budget.expired() {
            return Err(give_up(last, &rounds));
        }
        tokio::time::sleep(budget.capped(RETRY)).await;
    }
}
