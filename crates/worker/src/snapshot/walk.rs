//! The in-page walk: `walker.js` runs in the page's isolated world, builds Playwright's aria tree and
//! stops at `max_chars`; its refs are kept in the page (a registry in the isolated world) or described
//! to `backendNodeId`s.

use std::collections::HashMap;

use sb_cdp::calls::{CallFunctionOn, Evaluate, Node};
use sb_cdp::commands::RuntimeReleaseObjectGroup;
use sb_cdp::Session;
use sb_protocol::ipc::{Output, RefRecord, SnapshotOptions, SnapshotOutput, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde_json::{json, Value};

use crate::elements::scripts::WALKER;
use crate::error::{cdp_failure, fail};
use crate::progress::Progress;
use crate::tab::page::{url_and_title, Page, WORLD};

use super::render::*;

/// Object group of the walker's results, released after each snapshot.
pub(super) const WALK_GROUP: &str = "sandbox-browser-snapshot";

/// One walk of [`WALKER`] in one frame's isolated world.
pub(super) struct Run {
    /// The session of the frame's document (the page's, or an out-of-process iframe's).
    pub(super) session: Session,
    /// The frame's isolated world, which keeps the walk's elements until [`forget_walk`].
    pub(super) context: i64,
    /// What the walk found.
    pub(super) walked: Walked,
    /// The frame the walk ran in, then the same-origin iframes it walked into, by index (`frameId`).
    pub(super) frame_id: String,
    pub(super) frame_ids: Vec<String>,
    /// The cross-origin iframes it left as holes: `(hole index, frameId)`, until they are walked.
    pub(super) holes_pending: Vec<(usize, String)>,
    /// The run that filled each hole, by hole index.
    pub(super) filled: HashMap<usize, usize>,
}

/// The walker's answer (`walker.js`, as [`install`] answers it): the snapshot's items, and for each ref
/// it numbered the id an earlier walk gave its element (`refIds`) and the frame it is in (`refFrames`,
/// an index into the run's frames; `null` for the walk's own); the walk's number in its world, how
/// many same-origin iframes it walked into and cross-origin ones it left as holes, and the document's
/// title.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Walked {
    pub(super) items: Vec<Value>,
    /// False when the walk stopped at `max_chars` (only a walk that says so was cut).
    pub(super) complete: bool,
    pub(super) ref_ids: Vec<Option<String>>,
    pub(super) ref_frames: Vec<Option<i64>>,
    pub(super) walk: u64,
    pub(super) frame_count: usize,
    pub(super) hole_count: usize,
    /// The walked document's title.
    pub(super) title: String,
}

impl Default for Walked {
    fn default() -> Walked {
        Walked {
            items: Vec::new(),
            complete: true,
            ref_ids: Vec::new(),
            ref_frames: Vec::new(),
            walk: 0,
            frame_count: 0,
            hole_count: 0,
            title: String::new(),
        }
    }
}

/// The element a scoped snapshot starts from: its document's session and frame, its node.
pub(super) struct Scope {
    pub(super) session: Session,
    pub(super) frame_id: String,
    pub(super) backend: i64,
}

/// At most this many cross-origin frames are walked for one snapshot (ads can nest many).
pub(super) const MAX_FRAME_WALKS: usize = 20;

/// Longest the walk of one cross-origin frame may take (within the snapshot's budget): a frame whose
/// renderer has not answered by then (stuck in a script or a synchronous request) stays a hole, as do
/// the frames after it in the same session, and the snapshot answers with the rest instead of at its
/// deadline. The walker stops at `max_chars`: a cross-site frame of 20 000 elements
/// (tests/interaction.rs) walks in about 180 ms at rest, its world made and the walker compiled
/// included, so a frame that is only slow (a loaded machine) has room.
pub(super) const FRAME_WALK: std::time::Duration = std::time::Duration::from_secs(3);

/// The snapshot: [`WALKER`] in an isolated world (`Page.createIsolatedWorld`) of the main frame (or
/// of the scope element's frame, from that element), then one walk in each cross-origin iframe it
/// found (in the iframe's own session when it is out of process), spliced in where the iframe is;
/// then the rendering and the cut at `max_chars`. The refs shown are kept by the page: the main
/// frame's in its world's registry (`backend_node_id` 0, looked up when an action names one), a
/// cross-origin frame's by `backendNodeId` (`DOM.describeNode`).
///
/// A same-process frame's document may commit between the page's frame tree and the walk (a
/// `<frameset>`'s or an iframe's page while it loads): its refs would carry the document before and
/// answer `stale_ref` when used. The tree is asked again after the walk when the walk gave refs in
/// such frames; when a frame's document changed between the two, the page is walked again (at most
/// [`WALK_AGAIN`] times), and after the last, its refs keep the earlier document (`stale_ref` when
/// used, which asks for a new snapshot: honest, never the wrong element).
pub(super) async fn walk_snapshot(
    page: &Page,
    options: &SnapshotOptions,
    next_ref: u64,
    scope: Option<Scope>,
    p: &Progress,
) -> Result<Output, WorkerError> {
    let mut again = 0;
    loop {
        let last = again == WALK_AGAIN;
        match walk_snapshot_once(page, options, next_ref, scope.as_ref(), p, last).await? {
            Walk::Done(output) => return Ok(*output),
            Walk::Moved => {
                p.log("a frame's document changed during the walk: walking the page again");
                again += 1;
            }
        }
    }
}

/// How many times a snapshot walks the page again when a frame's document changed during the walk.
const WALK_AGAIN: usize = 2;

/// One walk's outcome: the snapshot, or word that a same-process frame's document changed during it.
enum Walk {
    Done(Box<Output>),
    Moved,
}

/// [`walk_snapshot`]'s one walk; `Walk::Moved` (unless `last`) when a same-process frame with refs
/// committed a new document between the page's frame tree and the walk.
async fn walk_snapshot_once(
    page: &Page,
    options: &SnapshotOptions,
    next_ref: u64,
    scope: Option<&Scope>,
    p: &Progress,
    last: bool,
) -> Result<Walk, WorkerError> {
    let budget = p.budget();
    p.log_once(match scope {
        Some(_) => "walking the scope element's accessibility tree",
        None => "walking the page's accessibility tree",
    });
    let phase = Phase::Cdp;
    let cdp = |e| cdp_failure(phase, e);
    // Time kept back for the refs, the identity and the rendering.
    let walk_time = budget.child(std::time::Duration::from_millis(400));
    // The page's frame tree (the main frame's document and URL) is asked beside the walk (the page's
    // session runs both in order): one round trip less than after it.
    let (first, tree) = match &scope {
        Some(s) => tokio::join!(
            walk_in(page, &s.session, &s.frame_id, options, Some(s.backend), walk_time),
            page.session.frame_tree(budget.remaining())
        ),
        None => tokio::join!(
            walk_in(page, &page.session, &page.target_id, options, None, walk_time),
            page.session.frame_tree(budget.remaining())
        ),
    };
    let first = first?;
    let mut runs = vec![first];
    // Cross-origin frames, in document order of their holes (a frame that cannot be walked stays a hole).
    // Of the frames one walk found, those of one session are walked one after another (it answers one
    // call at a time) and the sessions at once, each walk for at most FRAME_WALK. A renderer that
    // does not answer (an iframe stuck in a script or a synchronous request) keeps only its own frames
    // holes, not those of the frames after it, and costs the snapshot at most that: a session that did
    // not answer one walk in time is not asked for its next. (Playwright walks child frames one after
    // another, so one stuck frame takes its snapshot's whole timeout.)
    let mut next = 0;
    while next < runs.len() && runs.len() <= MAX_FRAME_WALKS {
        let room = (MAX_FRAME_WALKS + 1).saturating_sub(runs.len());
        let holes: Vec<(usize, String)> =
            std::mem::take(&mut runs[next].holes_pending).into_iter().take(room).collect();
        if walk_time.expired() {
            break;
        }
        if !holes.is_empty() {
            p.log(match holes.len() {
                1 => "walking a frame of another origin".to_string(),
                n => format!("walking {n} frames of other origins"),
            });
        }
        // Out of process: its own session; else the renderer of the walk that found it.
        let mut groups: Vec<(Session, Vec<usize>)> = Vec::new();
        for (i, (_, frame_id)) in holes.iter().enumerate() {
            let session = page.oopifs.lock().unwrap().get(frame_id).map(|o| o.session.clone());
            let session = session.unwrap_or_else(|| runs[next].session.clone());
            match groups.iter_mut().find(|(s, _)| s.id() == session.id()) {
                Some((_, frames)) => frames.push(i),
                None => groups.push((session, vec![i])),
            }
        }
        let walks = groups.iter().map(|(session, frames)| {
            let holes = &holes;
            async move {
                let mut walked = Vec::new();
                for &i in frames {
                    let frame_time =
                        Budget::until(walk_time.deadline().min(std::time::Instant::now() + FRAME_WALK));
                    let walk = walk_in(page, session, &holes[i].1, options, None, frame_time).await;
                    let unanswered = matches!(&walk, Err(e) if e.code == ErrorCode::Timeout);
                    walked.push((i, walk));
                    if unanswered {
                        break;
                    }
                }
                walked
            }
        });
        let mut walked: HashMap<usize, Result<Run, WorkerError>> =
            futures_util::future::join_all(walks).await.into_iter().flatten().collect();
        for (i, (h, frame_id)) in holes.into_iter().enumerate() {
            match walked.remove(&i) {
                Some(Ok(run)) => {
                    runs.push(run);
                    let filled = runs.len() - 1;
                    runs[next].filled.insert(h, filled);
                }
                Some(Err(e)) => {
                    let oopif = page.oopifs.lock().unwrap().contains_key(&frame_id);
                    tracing::warn!(frame.id = %frame_id, frame.oopif = oopif, error.message = %e.message, "snapshot_frame_skipped");
                }
                None => {
                    tracing::warn!(frame.id = %frame_id, error.message = "its renderer did not answer the walk of another of its frames", "snapshot_frame_skipped");
                }
            }
        }
        next += 1;
    }
    let mut refs_meta = Vec::new();
    let items = walked_items(&runs, 0, &runs[0].walked.items, &mut refs_meta);
    let tree = tree.map_err(cdp)?;
    let url = tree.frame.url.clone();
    // The title the walk read, when it walked the main frame's document.
    let title = if runs[0].frame_id == page.target_id {
        runs[0].walked.title.clone()
    } else {
        url_and_title(page, budget).await.1.unwrap_or_default()
    };
    // Each frame's document, from its session's frame tree (the page's asked beside the walk).
    let mut trees: HashMap<String, sb_cdp::types::FrameTree> = HashMap::new();
    trees.insert(page.session.id().to_string(), tree);
    let mut refs = Vec::new();
    let mut ids = Vec::new();
    let mut origin = HashMap::new();
    let mut fresh = next_ref;
    // The page's own frames with refs, other than the main frame, and the documents the tree before
    // the walk named (the main frame's document is followed by its lifecycle; an out-of-process
    // frame's tree is asked after its walk).
    let page_key = page.session.id().to_string();
    let mut children: Vec<(String, String)> = Vec::new();
    for (role, name, run, index) in &refs_meta {
        let r = &runs[*run];
        // An element keeps the ref an earlier walk of its document gave it (the page's registry);
        // others get new numbers.
        let id = match r.walked.ref_ids.get(*index).cloned().flatten() {
            Some(known) => known,
            None => {
                fresh += 1;
                format!("e{}", fresh - 1)
            }
        };
        ids.push(id.clone());
        let frame = r.walked.ref_frames.get(*index).copied().flatten().and_then(|f| usize::try_from(f).ok());
        let frame_id = match frame {
            Some(f) => r.frame_ids.get(f).cloned().unwrap_or_default(),
            None => r.frame_id.clone(),
        };
        let key = r.session.id().to_string();
        if !trees.contains_key(&key) {
            let tree = r.session.frame_tree(budget.remaining()).await;
            trees.insert(key.clone(), tree.map_err(cdp)?);
        }
        let loader = trees[&key].find(&frame_id).map(|f| f.loader_id.clone()).unwrap_or_default();
        if key == page_key && frame_id != page.target_id && !frame_id.is_empty() {
            children.push((frame_id.clone(), loader.clone()));
        }
        if !frame_id.is_empty() {
            origin.insert(id.clone(), (*run, *index));
            refs.push(RefRecord {
                id,
                role: role.clone(),
                name: name.clone(),
                backend_node_id: 0,
                frame_id,
                loader_id: loader,
            });
        }
    }
    // The page's own frames with refs, other than the main frame: still the documents the tree
    // before the walk named? (The main frame's document is followed by its lifecycle; an
    // out-of-process frame's tree is asked after its walk.)
    if !last && !children.is_empty() {
        let after = page.session.frame_tree(budget.remaining()).await.map_err(cdp)?;
        let moved =
            children.iter().any(|(frame, loader)| after.find(frame).map(|f| &f.loader_id) != Some(loader));
        if moved {
            tracing::debug!("snapshot_walked_again: a frame's document changed during the walk");
            end_walks(page, &runs, budget);
            return Ok(Walk::Moved);
        }
    }
    let mut lines = Vec::new();
    render(&items, 0, &ids, options.interactive, &mut lines);
    let (mut text, mut shown, mut truncated) = cut(&lines, options.max_chars as usize, options.interactive);
    if !truncated && runs.iter().any(|r| !r.walked.complete) {
        // The walker stopped early but the lines fit after all: say so all the same.
        text.push_str("\n- ... more of the page cut at max_chars; ");
        text.push_str(narrow_with(options.interactive));
        shown += 1;
        truncated = true;
    }
    let mut result = output(text, shown, truncated, refs, url, title);
    if let Output::Snapshot(SnapshotOutput { refs, .. }) = &mut result {
        keep_refs(page, &runs, &origin, refs, budget).await;
    }
    end_walks(page, &runs, budget);
    Ok(Walk::Done(Box::new(result)))
}

/// Lets the page forget the walks' elements ([`forget_walk`]) and releases their objects ([`release`],
/// once per session).
fn end_walks(page: &Page, runs: &[Run], budget: Budget) {
    for run in runs {
        forget_walk(page, run, budget);
    }
    let sessions: HashMap<String, Session> =
        runs.iter().map(|r| (r.session.id().to_string(), r.session.clone())).collect();
    for session in sessions.values() {
        release(session, budget);
    }
}

/// Walks `frame_id`'s document (the page's main frame, or a cross-origin iframe's) through `session`,
/// from node `scope` when given (`DOM.resolveNode` in the walker's world), else from its body.
///
/// The walk runs in the frame's isolated world, kept ready between walks
/// ([`crate::tab::page::KeptWorlds`]): one round trip where the world is kept, the walker installed there
/// and its marker answering; else the world is asked for (`Page.createIsolatedWorld`), made ready
/// ([`install`]) and walked in the same call.
pub(super) async fn walk_in(
    page: &Page,
    session: &Session,
    frame_id: &str,
    options: &SnapshotOptions,
    scope: Option<i64>,
    walk_time: Budget,
) -> Result<Run, WorkerError> {
    let phase = Phase::Cdp;
    let cdp = |e| cdp_failure(phase, e);
    let opts = json!({
        "maxChars": options.max_chars,
        "interactive": options.interactive,
        "compact": options.compact,
        "maxDepth": options.max_depth,
    });
    let mut answer = None;
    if let Some(context) = page.worlds.kept(session, frame_id) {
        match walk_once(page, session, context, false, &opts, scope, walk_time).await {
            Ok(Some(found)) => answer = Some((context, found)),
            Err(e) if !matches!(e, Attempt::Gone) => return Err(e.into_error(session, walk_time)),
            _ => page.worlds.forget(session, frame_id),
        }
    }
    let (context, answer) = match answer {
        Some(found) => found,
        None => {
            let context =
                session.create_isolated_world(frame_id, WORLD, walk_time.remaining()).await.map_err(cdp)?;
            let answer = walk_once(page, session, context, true, &opts, scope, walk_time)
                .await
                .map_err(|e| e.into_error(session, walk_time))?
                .ok_or_else(|| fail(ErrorCode::CdpError, phase, "the snapshot's world was not made ready"))?;
            page.worlds.keep(session, frame_id, context);
            (context, answer)
        }
    };
    let walked: Walked = serde_json::from_str(&answer.text).unwrap_or_default();
    let frame_of = |d: &Option<Node>| d.as_ref().and_then(|n| n.frame_id.clone()).unwrap_or_default();
    let (frames, holes) = answer.elements.split_at(walked.frame_count.min(answer.elements.len()));
    let frame_ids = frames.iter().map(frame_of).collect();
    let holes_pending =
        holes.iter().enumerate().map(|(h, d)| (h, frame_of(d))).filter(|(_, f)| !f.is_empty()).collect();
    Ok(Run {
        session: session.clone(),
        context,
        walked,
        frame_id: frame_id.to_string(),
        frame_ids,
        filled: HashMap::new(),
        holes_pending,
    })
}

/// Why one walk call gave no walk.
enum Attempt {
    /// The kept world is gone or is not the walker's (its marker does not answer): ask for it anew.
    Gone,
    /// The call failed.
    Failed(sb_cdp::CdpError),
    /// The walk threw (V8's time limit, most likely), with its description.
    Threw(String),
}

impl Attempt {
    fn into_error(self, session: &Session, walk_time: Budget) -> WorkerError {
        let phase = Phase::Cdp;
        match self {
            Attempt::Failed(sb_cdp::CdpError::Timeout { .. }) => fail(ErrorCode::Timeout, phase, "the page is too large to walk within the budget; narrow the snapshot with scope or raise timeout_ms"),
            Attempt::Failed(other) => cdp_failure(phase, other),
            Attempt::Gone => fail(ErrorCode::CdpError, phase, "the snapshot's world is gone"),
            Attempt::Threw(description) => {
                release(session, walk_time);
                fail(ErrorCode::Timeout, phase, format!(
                    "the page is too large to walk within the budget ({}); narrow the snapshot with scope or raise timeout_ms",
                    description.lines().next().unwrap_or_default()
                ))
            }
        }
    }
}

/// A walk's answer: its JSON text ([`Walked`]), and the `<iframe>` elements it walked into, then those it
/// left as holes (`DOM.describeNode`; `None` for one that could not be described).
struct Answer {
    text: String,
    elements: Vec<Option<Node>>,
}

/// One walk in world `context`: [`install`] first when the world is `fresh`, else only where its marker
/// answers. `Ok(None)`: the world is not the walker's. A walk without iframes answers its text; one
/// with iframes an array of its text and the iframes' elements, read in one more round trip.
async fn walk_once(
    page: &Page,
    session: &Session,
    context: i64,
    fresh: bool,
    opts: &Value,
    scope: Option<i64>,
    walk_time: Budget,
) -> Result<Option<Answer>, Attempt> {
    let marker = page.worlds.marker();
    let gone = |e: sb_cdp::CdpError| if fresh || e.is_timeout() { Attempt::Failed(e) } else { Attempt::Gone };
    let ready = if fresh {
        format!("{};", install(marker))
    } else {
        format!("if (!globalThis.{marker}) return null;")
    };
    let walked = match scope {
        None => {
            let walk = Evaluate {
                expression: format!("(() => {{ {ready} return globalThis.{marker}.walk({opts}); }})()"),
                context_id: Some(context),
                object_group: Some(WALK_GROUP.into()),
                timeout: Some(walk_time.remaining_ms()),
                ..Evaluate::default()
            };
            session.evaluate(&walk, walk_time.remaining()).await.map_err(gone)?
        }
        Some(backend) => {
            let root = session
                .resolve_node_in(backend, context, WALK_GROUP, walk_time.remaining())
                .await
                .map_err(gone)?;
            let walk = CallFunctionOn {
                function_declaration: format!(
                    "function(opts) {{ {ready} return globalThis.{marker}.walk(opts, this); }}"
                ),
                object_id: root.object_id.unwrap_or_default(),
                arguments: vec![json!({"value": opts})],
                object_group: Some(WALK_GROUP.into()),
                ..CallFunctionOn::default()
            };
            session.call_function_on(&walk, walk_time.remaining()).await.map_err(gone)?
        }
    };
    if let Some(details) = walked.exception_details {
        let description = details.exception.and_then(|e| e.description).unwrap_or_else(|| "stopped".into());
        return Err(Attempt::Threw(description));
    }
    match (walked.result.value, walked.result.object_id) {
        (Some(Value::String(text)), _) => Ok(Some(Answer { text, elements: Vec::new() })),
        (_, Some(array)) => {
            let props =
                session.own_properties(&array, walk_time.remaining()).await.map_err(Attempt::Failed)?;
            let text = props.iter().find(|p| p.name == "0").and_then(|p| p.value.as_ref()?.value.clone());
            let Some(Value::String(text)) = text else {
                return Err(Attempt::Threw("the walker gave no answer".into()));
            };
            let elements = describe_elements(session, props, 1, walk_time).await;
            Ok(Some(Answer { text, elements }))
        }
        _ if fresh => Err(Attempt::Threw("the walker gave no answer".into())),
        _ => Ok(None),
    }
}

/// Makes a world ready for walks (a statement): the global named by the page's marker holds [`WALKER`]
/// and the last walk's elements (`last`: `{id, els}`, numbered in the world), which [`REGISTER`] and
/// [`keep_refs`] read and [`forget_walk`] drops. A walk answers its result as JSON text with its number,
/// its frames' and holes' counts and the document's title; with frames or holes,
/// `[text, ...frames, ...holes]`.
fn install(marker: &str) -> String {
    format!("globalThis.{marker} = ({INSTALL})({WALKER})")
}

/// The snapshot's object of a world, a function of [`WALKER`] (see [`install`]).
const INSTALL: &str = include_str!("install.js");

/// A JavaScript expression of walk `walk`'s `last` record in the world (`null` once another walk or
/// [`forget_walk`] replaced it).
/// `walk` is the walk's id, or a JavaScript expression of it (an argument's name).
fn last_walk(marker: &str, walk: impl std::fmt::Display) -> String {
    format!("((l) => l && l.id === {walk} ? l : null)(globalThis.{marker} && globalThis.{marker}.last)")
}

/// A call in `run`'s world of `body`, which sees `l`, the run's walk's `last` record ([`last_walk`]:
/// `null` once it is gone), and `arg`. The walk's id and `arg` are the call's arguments: the source is
/// the same for every walk (a source of its own each snapshot stayed compiled in the page for the
/// document's life).
fn on_last_walk(marker: &str, run: &Run, body: &str, arg: Value) -> CallFunctionOn {
    CallFunctionOn {
        function_declaration: format!(
            "function(walk, arg) {{ const l = {}; {body} }}",
            last_walk(marker, "walk")
        ),
        execution_context_id: Some(run.context),
        arguments: vec![json!({ "value": run.walked.walk }), json!({ "value": arg })],
        ..CallFunctionOn::default()
    }
}

/// Keeps the refs `shown` for the actions that name them: the main frame's walk registers its
/// elements under their ids in its world's registry (`__sandboxBrowserRefs`, at most 100 000 entries,
/// the oldest dropped first); a cross-origin frame's refs get their `backendNodeId`
/// (`DOM.describeNode`). A ref that cannot be kept is `stale_ref` when used.
pub(super) async fn keep_refs(
    page: &Page,
    runs: &[Run],
    origin: &HashMap<String, (usize, usize)>,
    shown: &mut [RefRecord],
    budget: Budget,
) {
    let mut by_run: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    for (k, r) in shown.iter().enumerate() {
        if let Some(&(run, index)) = origin.get(&r.id) {
            by_run.entry(run).or_default().push((k, index));
        }
    }
    let marker = page.worlds.marker();
    for (run, wanted) in by_run {
        let r = &runs[run];
        // Every walk's world keeps its elements' ids (the next walk gives them the same refs); the
        // main frame's registry also finds them for actions.
        let pairs: Vec<Value> = wanted
            .iter()
            .map(|&(k, index)| json!([index, shown[k].id, shown[k].role, shown[k].name]))
            .collect();
        let register = on_last_walk(marker, r, &format!("return ({REGISTER})(l, arg);"), json!(pairs));
        // Not waited for: the session runs it before any later call (an action's ref lookup).
        tokio::spawn(r.session.call_function_on(&register, budget.remaining()));
        if run == 0 {
            continue;
        }
        let indexes: Vec<usize> = wanted.iter().map(|w| w.1).collect();
        let pick = CallFunctionOn {
            object_group: Some(WALK_GROUP.into()),
            ..on_last_walk(marker, r, "return l ? arg.map((i) => l.els[i]) : [];", json!(indexes))
        };
        let picked = r.session.call_function_on(&pick, budget.remaining()).await;
        let Some(array) = picked.ok().and_then(|p| non_empty(p.result)) else {
            continue;
        };
        if let Ok(nodes) = describe_all(&r.session, Some(&array), budget).await {
            for ((k, _), node) in wanted.iter().zip(nodes) {
                shown[*k].backend_node_id = node.map_or(0, |n| n.backend_node_id);
            }
        }
    }
}

/// Registers a walk's shown elements (a function of the walk's `last` record, `null` when it is gone,
/// and `pairs` of `[els index, ref id, role, name]`): by id (`__sandboxBrowserRefs`, for actions) and
/// by element (`__sandboxBrowserIds`, a `WeakMap` the walker reads: an element keeps its ref while its
/// role and name stay). An element given a new ref (it was renamed) loses its old one: an action on
/// that is `stale_ref`, never a click on what the agent did not read.
pub(super) const REGISTER: &str = include_str!("register.js");

/// Drops run `run`'s walk from its world (the elements it held), sent now and not waited for.
pub(super) fn forget_walk(page: &Page, run: &Run, budget: Budget) {
    let marker = page.worlds.marker();
    let forget = on_last_walk(marker, run, &format!("if (l) globalThis.{marker}.last = null;"), Value::Null);
    let budget = budget.capped(std::time::Duration::from_millis(200));
    tokio::spawn(run.session.call_function_on(&forget, budget));
}

/// The object id of an array that has elements (V8 describes an array as `Array(n)`); `None` for an
/// empty one, whose elements need no round trip.
fn non_empty(array: sb_cdp::types::RemoteObject) -> Option<String> {
    (array.description.as_deref() != Some("Array(0)")).then_some(array.object_id).flatten()
}

/// `DOM.describeNode` of every element of the array `array_id` (`Runtime.getProperties`), in order,
/// sent together; a node that cannot be described is `None`. No array (`None`): no elements.
pub(super) async fn describe_all(
    session: &Session,
    array_id: Option<&str>,
    budget: Budget,
) -> Result<Vec<Option<Node>>, sb_cdp::CdpError> {
    let Some(array_id) = array_id else { return Ok(Vec::new()) };
    let props = session.own_properties(array_id, budget.remaining()).await?;
    Ok(describe_elements(session, props, 0, budget).await)
}

/// `DOM.describeNode` of the elements among an array's own properties `props` from index `from` on,
/// in index order, sent together; a node that cannot be described is `None`.
async fn describe_elements(
    session: &Session,
    props: Vec<sb_cdp::calls::Property>,
    from: usize,
    budget: Budget,
) -> Vec<Option<Node>> {
    let mut ids: Vec<(usize, String)> = props
        .into_iter()
        .filter_map(|p| Some((p.name.parse().ok().filter(|i| *i >= from)?, p.value?.object_id?)))
        .collect();
    ids.sort_by_key(|(i, _)| *i);
    let described = futures_util::future::join_all(
        ids.iter().map(|(_, id)| session.describe_node(id, budget.remaining())),
    )
    .await;
    described.into_iter().map(Result::ok).collect()
}

/// Releases the walk's objects ([`WALK_GROUP`]) in `session`, sent now and not waited for: the session
/// runs it before its next call, so the answer need not wait for it.
pub(super) fn release(session: &Session, budget: Budget) {
    let group = RuntimeReleaseObjectGroup { object_group: WALK_GROUP.into() };
    tokio::spawn(session.send(&group, budget.capped(std::time::Duration::from_millis(200))));
}

/// The walker's items of run `run` as [`Item`]s, with the frames that filled its holes spliced in;
/// each ref'd node gets the next index into `refs` (role, name, run, the walk's element index).
pub(super) fn walked_items(
    runs: &[Run],
    run: usize,
    raw: &[Value],
    refs: &mut Vec<(String, String, usize, usize)>,
) -> Vec<Item> {
    let mut out = Vec::new();
    for v in raw {
        match v {
            Value::String(t) => push_text(&mut out, t),
            Value::Array(a) => {
                let role = a.first().and_then(Value::as_str).unwrap_or("generic").to_string();
                let name = a.get(1).and_then(Value::as_str).unwrap_or_default().to_string();
                let attrs = a
                    .get(2)
                    .and_then(Value::as_array)
                    .map(|x| x.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
                    .unwrap_or_default();
                let reference = a.get(3).and_then(Value::as_i64).filter(|i| *i >= 0).map(|i| {
                    refs.push((role.clone(), name.clone(), run, i as usize));
                    refs.len() - 1
                });
                let props = a
                    .get(4)
                    .and_then(Value::as_array)
                    .map(|ps| {
                        ps.iter()
                            .filter_map(|p| {
                                Some((p.get(0)?.as_str()?.to_string(), p.get(1)?.as_str()?.to_string()))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let filled = a
                    .get(6)
                    .and_then(Value::as_i64)
                    .and_then(|h| usize::try_from(h).ok())
                    .and_then(|h| runs[run].filled.get(&h).copied());
                let children = match filled {
                    Some(inner) => walked_items(runs, inner, &runs[inner].walked.items, refs),
                    None => walked_items(
                        runs,
                        run,
                        a.get(5).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default(),
                        refs,
                    ),
                };
                out.push(Item::Node { role, name, attrs, reference, props, children });
            }
            _ => {}
        }
    }
    out
}
