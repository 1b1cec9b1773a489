//! Element resolution: a [`Locator`] (a ref from a snapshot, or a CSS selector) to a node now: its
//! remote object, `backendNodeId`, the CDP session of its document and that document's offset in the
//! page's viewport.
//!
//! A ref from another document is `stale_ref`; so is one whose element was removed from its document
//! (or replaced by another node): a ref names one element, never another one, as Playwright MCP's refs
//! do (a new snapshot gives the new element a ref of its own).

use sb_cdp::calls::{CallFunctionOn, Evaluate};
use sb_cdp::Session;
use sb_protocol::ipc::{Locator, RefRecord, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde_json::{json, Value};

use crate::error::{cdp_failure, fail};
use crate::progress::Progress;
use crate::tab::frames;
use crate::tab::page::{call_function_on, Page};

/// The selector engine (`query.js`): `(selector, root, walker, visible) => Element | null` (`visible`:
/// [`VISIBLE`]), the first match in document order of a Playwright selector (`css`, `text=`, `role=`,
/// `xpath=`, `>>`, `nth=`, ...) or locator (`getByRole('button', { name: 'Save' })`), through open
/// shadow roots.
pub(crate) const QUERY: &str = include_str!("query.js");

/// `function isVisible(element)`: whether an element is visible, as Playwright's `isElementVisible`
/// has it (`visible.js`): for selectors, waits and the actionability checks alike.
pub(crate) const VISIBLE: &str = include_str!("visible.js");

/// `function(selector, mode)` called in a document's main world (or a frame's isolated world): its
/// first match ([`QUERY`], with the snapshot's walker for roles and names), or with `mode` `'count'`
/// how many match (`"<matches> <visible>"`), or `{frame, rest}` where the selector goes into a frame.
/// One source for every selector, so that the page compiles it once (V8 keeps each distinct script
/// it compiled for the context's life).
static FIND: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "function(selector, mode) {{ {VISIBLE} return ({QUERY})(selector, document, {}, isVisible, mode || 'hop'); }}",
        crate::elements::scripts::WALKER
    )
});

/// An expression whose value is `selector`'s first match in the document: [`QUERY`], given the
/// snapshot's walker only when the selector may need roles or names (a role or label part), so that
/// a plain CSS selector's expression stays small.
fn query_expression(selector: &str, mode: &str) -> String {
    let lower = selector.to_ascii_lowercase();
    let walker = if lower.contains("role") || lower.contains("label") {
        crate::elements::scripts::WALKER
    } else {
        "null"
    };
    format!(
        "(() => {{ {VISIBLE} return ({QUERY})({}, document, {walker}, isVisible, '{mode}'); }})()",
        Value::String(selector.to_string())
    )
}

/// `<tag id="..." class="...">`: how an element found by selector, or one in the way, is named.
pub(crate) const DESCRIBE: &str = include_str!("describe.js");

/// A resolved element: its remote object, `backendNodeId`, and how errors name it.
pub(crate) struct Element {
    pub(crate) object_id: String,
    pub(crate) backend: i64,
    pub(crate) label: String,
    /// The CDP session of the element's document: the page's, or an out-of-process iframe's.
    pub(crate) session: Session,
    /// The frame whose document holds the element (`Page.Frame.id`; the main frame's is the target's
    /// id).
    pub(crate) frame_id: String,
    /// Where that session's viewport lies in the page's viewport, CSS px: (0, 0) but for an
    /// out-of-process iframe, whose content box starts there.
    pub(crate) offset: (f64, f64),
    /// The execution context `object_id` lives in when it is the runtime's isolated world
    /// ([`crate::tab::page::WORLD`]; [`kept_in_world`]), not the page's main world: an object to pass to a
    /// function called on it must be resolved there too.
    pub(crate) world: Option<i64>,
}

impl Element {
    /// `function` called on the element (`Runtime.callFunctionOn` in its own document's session,
    /// within `budget`), its answer decoded as `T` ([`crate::tab::page::decode`], `what` naming it).
    ///
    /// # Errors
    /// The call's failure in `phase`; `cdp_error` when the answer has another shape.
    pub(crate) async fn call_as<T: serde::de::DeserializeOwned>(
        &self,
        function: &str,
        phase: Phase,
        what: &str,
        budget: Budget,
    ) -> Result<T, WorkerError> {
        let r = call_function_on(&self.session, &self.object_id, function, json!([]), budget.remaining())
            .await
            .map_err(|e| cdp_failure(phase, e))?;
        crate::tab::page::decode(r, phase, what)
    }
}

/// A ref whose element is no longer in its document.
fn removed(r: &RefRecord) -> WorkerError {
    fail(
        ErrorCode::StaleRef,
        Phase::Actionability,
        format!("Ref {} names an element that is no longer in the page; take a new snapshot.", r.id),
    )
}

/// A ref of an earlier document.
pub(crate) fn stale(r: &RefRecord) -> WorkerError {
    fail(
        ErrorCode::StaleRef,
        Phase::Actionability,
        format!("Ref {} belongs to an earlier page; take a new snapshot.", r.id),
    )
}

/// The remote object id of node `backend` (`DOM.resolveNode`, in object group `group`); `None` when it
/// is gone.
pub(crate) async fn resolve_backend(
    session: &Session,
    backend: i64,
    group: &str,
    budget: Budget,
) -> Option<String> {
    session.resolve_node(backend, group, budget.remaining()).await.ok()?.object_id
}

/// A lookup call's answer: `Ok(None)` when it failed (what it looked for is not there), the caller's
/// timeout when it ran out of time (a loaded machine says nothing about the element: never taken for
/// a ref that is gone).
fn found<T>(answer: Result<T, sb_cdp::CdpError>) -> Result<Option<T>, WorkerError> {
    match answer {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_timeout() => Err(cdp_failure(Phase::Actionability, e)),
        Err(_) => Ok(None),
    }
}

/// The `backendNodeId` of ref `id` from the walker's registry in the page's isolated world
/// ([`crate::tab::page::WORLD`], kept ready by the snapshot: [`crate::tab::page::KeptWorlds::call`]);
/// `Ok(None)` when the page no longer has it (another document, or collected).
///
/// # Errors
/// A lookup call that ran out of time ([`found`]).
async fn registered(page: &Page, id: &str, budget: Budget) -> Result<Option<i64>, WorkerError> {
    let Some(object) = registry_object(page, id, budget).await? else { return Ok(None) };
    let node = page.session.describe_node(&object, budget.remaining()).await;
    Ok(found(node)?.map(|node| node.backend_node_id))
}

/// The remote object id of node `backend` while it is in its document (`confirm`: asked with
/// `isConnected`; else taken as it is), in object group `group`; `Ok(None)` when it is gone.
///
/// # Errors
/// A call that ran out of time ([`found`]).
async fn live_object(
    session: &Session,
    backend: i64,
    confirm: bool,
    group: &str,
    budget: Budget,
) -> Result<Option<String>, WorkerError> {
    let Some(node) = found(session.resolve_node(backend, group, budget.remaining()).await)? else {
        return Ok(None);
    };
    let Some(object_id) = node.object_id else { return Ok(None) };
    if !confirm {
        return Ok(Some(object_id));
    }
    let connected = call_function_on(
        session,
        &object_id,
        "function() { return this.isConnected; }",
        json!([]),
        budget.remaining(),
    );
    Ok((found(connected.await)? == Some(Value::Bool(true))).then_some(object_id))
}

/// A main-frame ref of the page's current document, kept in the walker's registry (`backend_node_id`
/// 0), as the element's object in the runtime's isolated world, by one call there (the registry
/// lookup): its `backendNodeId` is not known yet (0) and is asked beside the checks
/// (`crate::elements::actionability`), where [`resolve`] asks the registry, then `DOM.describeNode`, then
/// `DOM.resolveNode` in the main world, one after another. Functions called on the element then run
/// in the isolated world, as Playwright's element actions do (`evaluateInUtility` in `server/dom.ts`).
/// `Ok(None)` when the ref is of another kind, or the lookup found nothing (the caller resolves as
/// usual, which says why).
///
/// # Errors
/// A lookup that ran out of time ([`found`]).
pub(crate) async fn kept_in_world(
    page: &Page,
    locator: &Locator,
    budget: Budget,
) -> Result<Option<Element>, WorkerError> {
    let Some(r) = registry_ref(page, locator) else { return Ok(None) };
    let Some(object_id) = registry_object(page, &r.id, budget).await? else { return Ok(None) };
    // The world the answer came from: the kept one, unless it had to be made again (then the lookup
    // found nothing, a new world's registry being empty).
    let Some(world) = page.worlds.kept(&page.session, &page.target_id) else { return Ok(None) };
    Ok(Some(Element {
        object_id,
        backend: 0,
        label: label_of(r),
        session: page.session.clone(),
        frame_id: r.frame_id.clone(),
        offset: (0.0, 0.0),
        world: Some(world),
    }))
}

/// The ref `locator` names when it is one of the main frame's current document kept in the walker's
/// registry (`backend_node_id` 0) and the world that holds the registry is kept
/// ([`crate::tab::page::KeptWorlds`]): the refs [`kept_in_world`] (and `crate::elements::actionability::at_once`)
/// look up there in one call.
pub(crate) fn registry_ref<'a>(page: &Page, locator: &'a Locator) -> Option<&'a RefRecord> {
    let Locator::Ref(r) = locator else { return None };
    let current = r.frame_id == page.target_id && page.lifecycle.borrow().loader_id == r.loader_id;
    let kept = page.worlds.kept(&page.session, &page.target_id).is_some();
    (current && kept && r.backend_node_id == 0).then_some(r)
}

/// A JavaScript expression of the element the ref in variable `id` names in the walker's registry (in
/// the runtime's isolated world), `undefined` when the registry does not have it. The ref id is a
/// function's argument, not part of the source (see [`crate::tab::page::KeptWorlds::call`]).
pub(crate) fn registry_lookup(id: &str) -> String {
    format!("globalThis.__sandboxBrowserRefs?.get({id})?.deref()")
}

/// The remote object, in the runtime's isolated world, of the element ref `id` names in the walker's
/// registry ([`registry_lookup`]); `Ok(None)` when the registry does not have it.
///
/// # Errors
/// A lookup that ran out of time ([`found`]).
async fn registry_object(page: &Page, id: &str, budget: Budget) -> Result<Option<String>, WorkerError> {
    let call = CallFunctionOn {
        function_declaration: format!("function(id) {{ return {}; }}", registry_lookup("id")),
        arguments: vec![json!({ "value": id })],
        object_group: Some(page.group(&page.session).to_string()),
        ..CallFunctionOn::default()
    };
    let answer = page.worlds.call(&page.session, &page.target_id, call, budget).await;
    Ok(found(answer)?.and_then(|a| a.result.object_id))
}

/// `button "Save"`: how errors name a ref's element.
pub(crate) fn label_of(r: &RefRecord) -> String {
    if r.name.is_empty() {
        r.role.clone()
    } else {
        format!("{} {:?}", r.role, r.name)
    }
}

/// Resolves a locator now; `Ok(None)` when a selector matches nothing (yet).
///
/// # Errors
/// `stale_ref` (see the module doc); `bad_request` for an invalid selector; a CDP failure or timeout.
pub(crate) async fn resolve(
    page: &Page,
    locator: &Locator,
    p: &Progress,
) -> Result<Option<Element>, WorkerError> {
    resolve_as(page, locator, p, true).await
}

/// [`resolve`]; with `confirm` false a ref's node is taken as it is, without asking whether it is
/// still connected (for a caller whose next call checks that). Logs the step once per action
/// (`resolving ref e5 (button "Go")`, `resolving selector "#go"`: Playwright's "waiting for
/// locator(...)"), so that a timeout on a page that does not answer names it.
pub(crate) async fn resolve_as(
    page: &Page,
    locator: &Locator,
    p: &Progress,
    confirm: bool,
) -> Result<Option<Element>, WorkerError> {
    let budget = p.budget();
    match locator {
        Locator::Ref(r) => {
            p.log_once(format!("resolving ref {} ({})", r.id, label_of(r)));
            let frame = frames::context(page, &r.frame_id, p).await?;
            let Some((session, offset, loader)) = frame else { return Err(stale(r)) };
            if loader != r.loader_id {
                return Err(stale(r));
            }
            let label = label_of(r);
            // A large-page ref (backend 0) is kept by the page: the walker's registry.
            let backend = if r.backend_node_id == 0 {
                registered(page, &r.id, budget).await?.unwrap_or(0)
            } else {
                r.backend_node_id
            };
            if backend != 0 {
                let group = page.group(&session);
                if let Some(object_id) = live_object(&session, backend, confirm, group, budget).await? {
                    let frame_id = r.frame_id.clone();
                    return Ok(Some(Element {
                        object_id,
                        backend,
                        label,
                        session,
                        frame_id,
                        offset,
                        world: None,
                    }));
                }
            }
            Err(removed(r))
        }
        Locator::Selector(css) => match select(page, css, false, p).await? {
            Selected::First(element) => Ok(element),
            Selected::Count(..) => {
                Err(fail(ErrorCode::Internal, Phase::Actionability, "a count, not an element"))
            }
        },
    }
}

/// What [`select`] found.
enum Selected {
    /// The first match, if any.
    First(Option<Element>),
    /// How many elements match, and how many of them are visible.
    Count(u64, u64),
}

/// How many elements selector `css` matches now, and how many of them are visible, in the document it
/// ends in (through the frames it names, as [`resolve`] goes), as Playwright's `locator.count()`
/// counts (0 when a frame it goes into is not there yet).
///
/// # Errors
/// `bad_request` for an invalid selector; a CDP failure or timeout.
pub(crate) async fn count(page: &Page, css: &str, p: &Progress) -> Result<(u64, u64), WorkerError> {
    match select(page, css, true, p).await? {
        Selected::Count(all, visible) => Ok((all, visible)),
        Selected::First(_) => Ok((0, 0)),
    }
}

/// At most this many frames a selector may go into, one inside another.
const MAX_FRAME_HOPS: usize = 8;

/// Resolves selector `css` now (its first match; with `count`, how many match), going into the frames it names
/// (`internal:control=enter-frame`, `frameLocator()`, `contentFrame()`): the part before the frame runs
/// in the frame's parent document, the rest in the frame's (`DOM.describeNode` of the `<iframe>` or
/// `<frame>` gives its `frameId`; [`frames::context`] the session that holds it, an out-of-process
/// iframe's too), as Playwright's `FrameSelectors.resolveFrameForSelector` does. `Ok(None)` when
/// nothing matches (yet), the frame included.
///
/// # Errors
/// `bad_request` for an invalid selector; a CDP failure or timeout.
async fn select(page: &Page, css: &str, count: bool, p: &Progress) -> Result<Selected, WorkerError> {
    let budget = p.budget();
    let failed = |e| cdp_failure(Phase::Actionability, e);
    let mode = if count { "count" } else { "hop" };
    p.log_once(if count {
        format!("counting the matches of selector {css:?}")
    } else {
        format!("resolving selector {css:?}")
    });
    let mut session = page.session.clone();
    let mut frame_id = page.target_id.clone();
    let mut offset = (0.0, 0.0);
    let mut selector = css.to_string();
    for hop in 0..=MAX_FRAME_HOPS {
        let group = Some(page.group(&session).to_string());
        let r = if hop == 0 {
            // In the main frame's main world (the journal knows its context: the frame's id is the
            // target's), the one engine source called with the selector; while the journal has not
            // seen that context yet, an expression in the session's default context.
            match page.journal.context(&page.target_id) {
                Some(context) => {
                    let query = CallFunctionOn {
                        function_declaration: FIND.clone(),
                        execution_context_id: Some(context),
                        arguments: vec![json!({ "value": selector }), json!({ "value": mode })],
                        object_group: group,
                        ..CallFunctionOn::default()
                    };
                    page.session.call_function_on(&query, budget.remaining()).await
                }
                None => {
                    let query = Evaluate {
                        expression: query_expression(&selector, mode),
                        object_group: group,
                        ..Evaluate::default()
                    };
                    page.session.evaluate(&query, budget.remaining()).await
                }
            }
        } else {
            // In a frame: the runtime's isolated world of that frame (made when it has none), which
            // sees its document as its own scripts do.
            let query = CallFunctionOn {
                function_declaration: FIND.clone(),
                arguments: vec![json!({ "value": selector }), json!({ "value": mode })],
                object_group: group,
                ..CallFunctionOn::default()
            };
            page.worlds.call(&session, &frame_id, query, budget).await
        }
        .map_err(failed)?;
        if let Some(d) = r.exception_details {
            let description = d.exception.and_then(|e| e.description);
            let msg = description.as_deref().unwrap_or("invalid selector");
            return Err(fail(
                ErrorCode::BadRequest,
                Phase::Actionability,
                msg.lines().next().unwrap_or_default(),
            ));
        }
        if let Some(Value::String(counted)) = &r.result.value {
            let mut n = counted.split(' ').map(|n| n.parse::<u64>().unwrap_or(0));
            return Ok(Selected::Count(n.next().unwrap_or(0), n.next().unwrap_or(0)));
        }
        let Some(object_id) = r.result.object_id else {
            return Ok(Selected::First(None));
        };
        if r.result.subtype.as_deref() != Some("node") {
            // `{frame, rest}`: go on in that frame's document. Both read in one call, as the
            // snapshot's walk reads its answers.
            let marker = session.own_properties(&object_id, budget.remaining()).await.map_err(failed)?;
            let member = |name: &str| marker.iter().find(|m| m.name == name).and_then(|m| m.value.clone());
            let rest = member("rest").and_then(|v| v.value).and_then(|v| v.as_str().map(str::to_string));
            let Some(owner) = member("frame").and_then(|v| v.object_id) else {
                return Ok(Selected::First(None));
            };
            // An <iframe> whose frame is not there yet (no `frameId`) matches nothing yet.
            let Some(child) =
                found(session.describe_node(&owner, budget.remaining()).await)?.and_then(|n| n.frame_id)
            else {
                return Ok(Selected::First(None));
            };
            let rest = rest.unwrap_or_default();
            p.log_once(format!("going into frame {child} for {rest:?}"));
            let Some((s, o, _loader)) = frames::context(page, &child, p).await? else {
                return Ok(Selected::First(None));
            };
            (session, offset, frame_id) = (s, o, child);
            selector = rest;
            continue;
        }
        let described = session.describe_node(&object_id, budget.remaining()).await;
        let backend = described.map_or(0, |node| node.backend_node_id);
        let label = call_function_on(&session, &object_id, DESCRIBE, json!([]), budget.remaining())
            .await
            .ok()
            .and_then(|v| v.as_str().map(str::to_string));
        // Found in a frame's isolated world: the element as its frame's own scripts see it (its main
        // world, as a ref's element), for the functions the action calls on it.
        let object_id = if hop == 0 || backend == 0 {
            object_id
        } else {
            let group = page.group(&session);
            match live_object(&session, backend, false, group, budget).await? {
                Some(object_id) => object_id,
                None => return Ok(Selected::First(None)),
            }
        };
        return Ok(Selected::First(Some(Element {
            object_id,
            backend,
            label: label.unwrap_or_else(|| css.to_string()),
            session,
            frame_id,
            offset,
            world: None,
        })));
    }
    Err(fail(
        ErrorCode::BadRequest,
        Phase::Actionability,
        format!("selector {css:?} goes into more than {MAX_FRAME_HOPS} frames, one inside another"),
    ))
}

/// `ref e5` or `selector "#go"`, for messages.
pub(crate) fn describe_locator(locator: &Locator) -> String {
    match locator {
        Locator::Ref(r) => format!("ref {}", r.id),
        Locator::Selector(css) => format!("selector {css:?}"),
    }
}
