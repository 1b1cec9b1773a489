//! `page.snapshot`: the page's accessibility tree as Playwright's aria-snapshot text, with refs.
//!
//! Built from `Accessibility.getFullAXTree` (roles, names, states, `backendDOMNodeId`); link URLs come
//! from one `DOMSnapshot.captureSnapshot`. One node a line, nested by two-space indent:
//!
//! ```text
//! - heading "Title" [level=2] [ref=e1]
//! - paragraph: Some bold text
//! - link "Docs" [ref=e2]:
//!   - /url: /docs
//! - checkbox "Agree" [checked] [ref=e3]
//! ```
//!
//! Iframes (same-site through the page's session, cross-site through their auto-attached sessions:
//! [`crate::frames`]) are nested under their `- iframe` line; shadow roots come with the tree. Pages of
//! more than [`LARGE_PAGE`] elements are walked in the page instead ([`WALKER`]), stopping at
//! `max_chars`.
//!
//! Generic containers (`generic`, `none`, ignored nodes) are flattened; adjacent text is merged. Refs go
//! to interactive roles and to named content roles; the supervisor keeps them (`RefRecord`), so they
//! stay unique for the session whatever happens to the worker.

use std::collections::HashMap;

use sb_cdp::Session;
use sb_protocol::ipc::{Output, RefRecord, SnapshotOptions, SnapshotOutput, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde_json::{json, Value};

use crate::error::{cdp_failure, fail};
use crate::frames;
use crate::page::{eval_by_value, url_and_title, Page, WORLD};
use crate::progress::Progress;
use crate::resolve::backend_of;

/// Roles that get a ref whatever their name.
const INTERACTIVE: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "switch",
    "slider",
    "spinbutton",
    "treeitem",
];
/// Roles that get a ref when they have a name.
const NAMED_CONTENT: &[&str] = &[
    "heading",
    "img",
    "figure",
    "table",
    "cell",
    "columnheader",
    "rowheader",
    "dialog",
    "alertdialog",
    "region",
];
/// Roles never shown, with their subtree.
const HIDDEN: &[&str] = &["InlineTextBox", "ListMarker", "LineBreak"];
/// Roles whose children are shown in their place.
const FLATTENED: &[&str] =
    &["generic", "none", "presentation", "RootWebArea", "MenuListPopup", "Ignored", "LabelText"];
/// Structure that `compact` drops when it has no name.
const STRUCTURE: &[&str] =
    &["group", "list", "listitem", "paragraph", "section", "article", "table", "row", "rowgroup"];

/// One AX node, as used here.
struct AxNode {
    role: String,
    name: String,
    ignored: bool,
    props: HashMap<String, Value>,
    children: Vec<String>,
    backend: Option<i64>,
    /// Index of the frame's tree it comes from (0: the main frame).
    frame: usize,
}

/// The tree between AX nodes and text.
enum Item {
    Text(String),
    Node {
        role: String,
        name: String,
        attrs: Vec<String>,
        reference: Option<usize>,
        url: Option<String>,
        children: Vec<Item>,
    },
}

/// Chromium's role names where they differ from ARIA's.
fn aria_role(role: &str) -> &str {
    match role {
        "image" => "img",
        "Iframe" => "iframe",
        "DisclosureTriangle" => "button",
        "StaticText" => "text",
        other => other,
    }
}

struct Builder<'a> {
    nodes: &'a HashMap<String, AxNode>,
    options: &'a SnapshotOptions,
    hrefs: &'a HashMap<i64, String>,
    /// `(role, name, backendDOMNodeId, frame index)` of each ref, in order.
    refs: Vec<(String, String, i64, usize)>,
    /// The root node of each child frame's tree, by its `<iframe>`: the session (id) of the renderer
    /// the element lives in and its `backendDOMNodeId` there (backend ids are per renderer).
    child_roots: &'a HashMap<(String, i64), String>,
    /// Per frame index: the session (id) its tree was read through.
    sessions: &'a [String],
}

impl Builder<'_> {
    fn collect(&mut self, id: &str, depth: u32, out: &mut Vec<Item>) {
        let Some(node) = self.nodes.get(id) else { return };
        if HIDDEN.contains(&node.role.as_str()) {
            return;
        }
        let role = aria_role(&node.role).to_string();
        if role == "text" {
            push_text(out, &node.name);
            return;
        }
        let unnamed_structure =
            self.options.compact && node.name.is_empty() && STRUCTURE.contains(&role.as_str());
        if node.ignored || FLATTENED.contains(&node.role.as_str()) || unnamed_structure {
            for c in &node.children {
                self.collect(c, depth, out);
            }
            return;
        }
        if self.options.max_depth.is_some_and(|max| depth >= max) {
            return;
        }
        let wants_ref = INTERACTIVE.contains(&role.as_str())
            || (!node.name.is_empty() && NAMED_CONTENT.contains(&role.as_str()));
        let reference = match (wants_ref, node.backend) {
            (true, Some(backend)) => {
                self.refs.push((role.clone(), node.name.clone(), backend, node.frame));
                Some(self.refs.len() - 1)
            }
            _ => None,
        };
        let mut children = Vec::new();
        for c in &node.children {
            self.collect(c, depth + 1, &mut children);
        }
        if role == "iframe" {
            let session = self.sessions.get(node.frame).cloned().unwrap_or_default();
            if let Some(root) = node.backend.and_then(|b| self.child_roots.get(&(session, b))) {
                self.collect(root, depth + 1, &mut children);
            }
        }
        let url = if role == "link" { node.backend.and_then(|b| self.hrefs.get(&b).cloned()) } else { None };
        if url.is_some() {
            // The link's text is its name; under the /url line it would only repeat it.
            children.retain(|c| !matches!(c, Item::Text(t) if same_text(t, &node.name)));
        }
        let mut shown = attrs(&node.props);
        if role != "heading" {
            shown.retain(|a| !a.starts_with("level="));
        }
        out.push(Item::Node { attrs: shown, role, name: node.name.clone(), reference, url, children });
    }
}

fn push_text(out: &mut Vec<Item>, text: &str) {
    if text.trim().is_empty() {
        return;
    }
    if let Some(Item::Text(prev)) = out.last_mut() {
        prev.push_str(text);
    } else {
        out.push(Item::Text(text.to_string()));
    }
}

/// The states shown in brackets.
fn attrs(props: &HashMap<String, Value>) -> Vec<String> {
    let mut a = Vec::new();
    let truthy = |k: &str| props.get(k).is_some_and(|v| v == &json!(true) || v == &json!("true"));
    match props
        .get("checked")
        .and_then(|v| v.as_str().map(str::to_string).or_else(|| v.as_bool().map(|b| b.to_string())))
    {
        Some(c) if c == "true" => a.push("checked".into()),
        Some(c) if c == "mixed" => a.push("checked=mixed".into()),
        _ => {}
    }
    if truthy("disabled") {
        a.push("disabled".into());
    }
    if truthy("expanded") {
        a.push("expanded".into());
    }
    if truthy("selected") {
        a.push("selected".into());
    }
    match props.get("pressed").and_then(Value::as_str) {
        Some("true") => a.push("pressed".into()),
        Some("mixed") => a.push("pressed=mixed".into()),
        _ => {}
    }
    if let Some(level) = props.get("level").and_then(Value::as_u64) {
        a.push(format!("level={level}"));
    }
    a
}

/// Whether a text only repeats a name: equal once whitespace is ignored (the accessible name puts
/// spaces between inline elements that the text runs do not have).
fn same_text(text: &str, name: &str) -> bool {
    let squash = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    squash(text) == squash(name)
}

fn quote(s: &str) -> String {
    Value::String(s.trim().to_string()).to_string()
}

/// Renders items as lines, nested by two spaces.
fn render(items: &[Item], indent: usize, ids: &[String], interactive: bool, lines: &mut Vec<String>) {
    for item in items {
        match item {
            Item::Text(t) if !interactive => {
                lines.push(format!("{}- text: {}", "  ".repeat(indent), t.trim()))
            }
            Item::Text(_) => {}
            Item::Node { role, name, attrs, reference, url, children } => {
                let show = !interactive || reference.is_some();
                if !show {
                    render(children, indent, ids, interactive, lines);
                    continue;
                }
                let mut line = format!("{}- {role}", "  ".repeat(indent));
                if !name.trim().is_empty() {
                    line.push(' ');
                    line.push_str(&quote(name));
                }
                for a in attrs {
                    line.push_str(&format!(" [{a}]"));
                }
                if let Some(r) = reference {
                    line.push_str(&format!(" [ref={}]", ids[*r]));
                }
                if interactive {
                    lines.push(line);
                    render(children, indent, ids, interactive, lines);
                    continue;
                }
                // Text that only repeats the name is not shown again; text alone goes inline.
                let only_text: Option<String> = match children.as_slice() {
                    [Item::Text(t)] if url.is_none() => Some(t.trim().to_string()),
                    _ => None,
                };
                match only_text {
                    Some(t) if same_text(&t, name) => lines.push(line),
                    Some(t) if name.trim().is_empty() => lines.push(format!("{line}: {t}")),
                    _ if children.is_empty() && url.is_none() => lines.push(line),
                    _ => {
                        lines.push(format!("{line}:"));
                        if let Some(u) = url {
                            lines.push(format!("{}- /url: {u}", "  ".repeat(indent + 1)));
                        }
                        render(children, indent + 1, ids, interactive, lines);
                    }
                }
            }
        }
    }
}

/// Adds one frame's `Accessibility.getFullAXTree` nodes to `nodes` under ids `"{frame}:{nodeId}"`
/// (node ids repeat across documents); returns the root's id.
fn parse_tree(
    raw: &[Value],
    frame: usize,
    nodes: &mut HashMap<String, AxNode>,
    by_backend: &mut HashMap<i64, String>,
) -> Option<String> {
    let key = |id: &str| format!("{frame}:{id}");
    let mut root = None;
    for n in raw {
        let id = key(n["nodeId"].as_str().unwrap_or_default());
        if root.is_none() {
            root = Some(id.clone());
        }
        let props = n["properties"]
            .as_array()
            .map(|ps| {
                ps.iter()
                    .filter_map(|p| Some((p["name"].as_str()?.to_string(), p["value"]["value"].clone())))
                    .collect()
            })
            .unwrap_or_default();
        let backend = n["backendDOMNodeId"].as_i64();
        if let Some(b) = backend {
            by_backend.entry(b).or_insert_with(|| id.clone());
        }
        nodes.insert(
            id,
            AxNode {
                role: n["role"]["value"].as_str().unwrap_or("none").to_string(),
                name: n["name"]["value"].as_str().unwrap_or_default().to_string(),
                ignored: n["ignored"].as_bool().unwrap_or(false),
                props,
                children: n["childIds"]
                    .as_array()
                    .map(|c| c.iter().filter_map(|x| x.as_str().map(key)).collect())
                    .unwrap_or_default(),
                backend,
                frame,
            },
        );
    }
    root
}

/// Takes the snapshot; new refs are `e{next_ref}`, `e{next_ref+1}`, ...
pub(crate) async fn snapshot(
    page: &Page,
    options: &SnapshotOptions,
    next_ref: u64,
    p: &Progress,
) -> Result<Output, WorkerError> {
    let budget = p.budget();
    let phase = Phase::Cdp;
    // A whole-page snapshot includes the iframes (same-site and out-of-process).
    let mut frames = Vec::new();
    if options.scope.is_none() {
        let elements;
        (elements, frames) = element_count(page, budget).await?;
        if elements > LARGE_PAGE {
            tracing::info!(elements, "snapshot_walked");
            return walk_snapshot(page, options, next_ref, budget).await;
        }
    }
    // The scope's subtree alone (`Accessibility.queryAXTree`) is cheap on any page; the whole tree
    // (`Accessibility.getFullAXTree`) costs about 1 KB of JSON a node, seconds on very large pages.
    let scope_backend = match &options.scope {
        Some(scope) => Some(backend_of(page, scope, budget).await?),
        None => None,
    };
    // Time kept back to build and render the text once the tree is here.
    let fetch = budget.child(std::time::Duration::from_millis(300));
    let fetched = match scope_backend {
        Some(backend) => {
            page.session
                .call_raw("Accessibility.queryAXTree", json!({"backendNodeId": backend}), fetch.remaining())
                .await
        }
        None => page.session.call_raw("Accessibility.getFullAXTree", json!({}), fetch.remaining()).await,
    };
    let tree = fetched.map_err(|e| match e {
        sb_cdp::CdpError::Timeout { .. } => fail(
            ErrorCode::Timeout,
            phase,
            "the page's accessibility tree is too large to read within the budget; narrow the snapshot \
                  with scope (a ref or CSS selector) or raise timeout_ms",
        ),
        other => cdp_failure(phase, other),
    })?;
    let mut nodes = HashMap::new();
    let mut by_backend = HashMap::new();
    let main_nodes = tree["nodes"].as_array().map(Vec::as_slice).unwrap_or_default();
    let root = parse_tree(main_nodes, 0, &mut nodes, &mut by_backend);
    let children = frames::child_trees(&frames, fetch).await;
    let mut child_roots = HashMap::new();
    let mut sessions = vec![page.session.id().to_string()];
    for (i, child) in children.iter().enumerate() {
        let mut ignored = HashMap::new();
        if let (Some(root), Some(owner)) =
            (parse_tree(&child.nodes, i + 1, &mut nodes, &mut ignored), child.owner)
        {
            child_roots.insert((child.owner_session.clone(), owner), root);
        }
        sessions.push(child.session.clone());
    }
    let start = match scope_backend {
        None => root,
        Some(backend) => match by_backend.get(&backend) {
            Some(id) => Some(id.clone()),
            None => {
                return Err(fail(
                    ErrorCode::BadRequest,
                    phase,
                    "the scope element is not in the accessibility tree (hidden or aria-hidden)",
                ))
            }
        },
    };
    let has_links = nodes.values().any(|n| n.role == "link");
    let hrefs = if has_links { link_hrefs(page, fetch).await } else { HashMap::new() };
    let mut builder = Builder {
        nodes: &nodes,
        options,
        hrefs: &hrefs,
        refs: Vec::new(),
        child_roots: &child_roots,
        sessions: &sessions,
    };
    let mut items = Vec::new();
    if let Some(start) = start {
        builder.collect(&start, 0, &mut items);
    }

    let (loader_id, url, title) = document_identity(page, budget).await?;
    // nth counts within each frame: a ref is found again in its own document.
    let mut counts: HashMap<(usize, String, String), u32> = HashMap::new();
    let mut refs = Vec::with_capacity(builder.refs.len());
    for (i, (role, name, backend, frame)) in builder.refs.iter().enumerate() {
        let nth = counts.entry((*frame, role.clone(), name.clone())).or_insert(0);
        let (frame_id, loader) = match frame.checked_sub(1).and_then(|c| children.get(c)) {
            Some(child) => (child.frame_id.clone(), child.loader_id.clone()),
            None => (page.target_id.clone(), loader_id.clone()),
        };
        refs.push(RefRecord {
            id: format!("e{}", next_ref + i as u64),
            role: role.clone(),
            name: name.clone(),
            nth: *nth,
            backend_node_id: *backend,
            frame_id,
            loader_id: loader,
        });
        *nth += 1;
    }
    let ids: Vec<String> = refs.iter().map(|r| r.id.clone()).collect();
    let mut lines = Vec::new();
    render(&items, 0, &ids, options.interactive, &mut lines);

    let (text, shown, truncated) = cut(&lines, options.max_chars as usize);
    Ok(output(text, shown, truncated, refs, url, title))
}

/// Pages with more elements than this (their iframes' included) are snapshotted by the in-page walker
/// ([`WALKER`]): reading
/// Chromium's whole accessibility tree costs about 1 KB of JSON a node (seconds past a few thousand
/// elements), while the walker stops at `max_chars`.
const LARGE_PAGE: u64 = 2_500;

/// The elements of all the page's documents: the main frame's and every iframe's, at any depth and in
/// any renderer (a small page can hold a large iframe, whose accessibility tree would not be read in
/// time). Each iframe is counted in its own isolated world ([`WORLD`]): a cross-origin one's document is
/// not reachable from the page's script. A frame that cannot be counted in time counts as large. With
/// the count, the frames ([`frames::child_frames`]; none listed when the page has none).
async fn element_count(page: &Page, budget: Budget) -> Result<(u64, Vec<frames::ChildFrame>), WorkerError> {
    let phase = Phase::Cdp;
    let own = "[document.getElementsByTagName('*').length, window.frames.length]";
    let v = eval_by_value(page, own, phase, budget).await?;
    let main = v[0].as_u64().unwrap_or(0);
    if v[1].as_u64() == Some(0) && page.oopifs.lock().unwrap().is_empty() {
        return Ok((main, Vec::new()));
    }
    let step = budget.capped(std::time::Duration::from_millis(1_000));
    let frames = frames::child_frames(page, budget).await;
    let counts = futures_util::future::join_all(frames.iter().map(|f| async move {
        let (session, frame_id) = (&f.session, &f.frame_id);
        let world = session
            .call_raw("Page.createIsolatedWorld", json!({"frameId": frame_id, "worldName": WORLD}), step)
            .await
            .ok()?;
        let counted = session
            .call_raw(
                "Runtime.evaluate",
                json!({"expression": "document.getElementsByTagName('*').length",
                       "contextId": world["executionContextId"], "returnByValue": true}),
                step,
            )
            .await
            .ok()?;
        counted["result"]["value"].as_u64()
    }))
    .await;
    // A frame too busy to count in time is likely a large one: the walker, whose walk is bounded,
    // suits it better than an accessibility tree that would not come in time.
    let elements = main + counts.into_iter().map(|n| n.unwrap_or(LARGE_PAGE + 1)).sum::<u64>();
    Ok((elements, frames))
}

/// The in-page walker (an expression: a function of the options).
const WALKER: &str = include_str!("walker.js");

/// Object group of the walker's results, released after each snapshot.
const WALK_GROUP: &str = "sandbox-browser-snapshot";

/// One walk of [`WALKER`] in one frame's isolated world.
struct Run {
    /// The session of the frame's document (the page's, or an out-of-process iframe's).
    session: Session,
    /// The walker's result (in [`WALK_GROUP`]): `els`, the elements its refs name.
    object: String,
    /// `{items, complete, refFrames}`.
    walked: Value,
    /// The frame the walk ran in, then the same-origin iframes it walked into, by index (`frameId`).
    frame_id: String,
    frame_ids: Vec<String>,
    /// The cross-origin iframes it left as holes: `(hole index, frameId)`, until they are walked.
    holes_pending: Vec<(usize, String)>,
    /// The run that filled each hole, by hole index.
    filled: HashMap<usize, usize>,
}

/// At most this many cross-origin frames are walked for one snapshot (ads can nest many).
const MAX_FRAME_WALKS: usize = 20;

/// The large-page snapshot: [`WALKER`] in an isolated world (`Page.createIsolatedWorld`) of the main
/// frame, then one walk in each cross-origin iframe it found (in the iframe's own session when it is
/// out of process), spliced in where the iframe is; then the same rendering and cut as the
/// accessibility-tree path. The refs shown are kept by the page: the main frame's in its world's
/// registry (`backend_node_id` 0, looked up when an action names one), a cross-origin frame's by
/// `backendNodeId` (`DOM.describeNode`).
async fn walk_snapshot(
    page: &Page,
    options: &SnapshotOptions,
    next_ref: u64,
    budget: Budget,
) -> Result<Output, WorkerError> {
    let phase = Phase::Cdp;
    let cdp = |e| cdp_failure(phase, e);
    // Time kept back for the refs, the identity and the rendering.
    let walk_time = budget.child(std::time::Duration::from_millis(400));
    let mut runs = vec![walk_in(&page.session, &page.target_id, options, walk_time).await?];
    // Cross-origin frames, in document order of their holes (a frame that cannot be walked stays a hole).
    let mut next = 0;
    while next < runs.len() && runs.len() <= MAX_FRAME_WALKS {
        let holes = std::mem::take(&mut runs[next].holes_pending);
        for (h, frame_id) in holes {
            if runs.len() > MAX_FRAME_WALKS || walk_time.expired() {
                break;
            }
            // Out of process: its own session; else the renderer of the walk that found it.
            let session = page.oopifs.lock().unwrap().get(&frame_id).map(|o| o.session.clone());
            let session = session.unwrap_or_else(|| runs[next].session.clone());
            match walk_in(&session, &frame_id, options, walk_time).await {
                Ok(run) => {
                    runs.push(run);
                    let filled = runs.len() - 1;
                    runs[next].filled.insert(h, filled);
                }
                Err(e) => {
                    let oopif = session.id() != runs[next].session.id();
                    tracing::warn!(frame.id = %frame_id, frame.oopif = oopif, error.message = %e.message, "snapshot_frame_skipped");
                }
            }
        }
        next += 1;
    }
    let mut refs_meta = Vec::new();
    let raw = runs[0].walked["items"].as_array().cloned().unwrap_or_default();
    let items = walked_items(&runs, 0, &raw, &mut refs_meta);
    let (loader_id, url, title) = document_identity(page, budget).await?;
    // Each frame's document, from its session's frame tree.
    let mut trees: HashMap<String, Value> = HashMap::new();
    let mut counts: HashMap<(String, String, String), u32> = HashMap::new();
    let mut refs = Vec::new();
    let mut ids = Vec::new();
    let mut origin = HashMap::new();
    for (i, (role, name, run, index)) in refs_meta.iter().enumerate() {
        let id = format!("e{}", next_ref + i as u64);
        ids.push(id.clone());
        let r = &runs[*run];
        let frame = r.walked["refFrames"][*index].as_i64().and_then(|f| usize::try_from(f).ok());
        let frame_id = match frame {
            Some(f) => r.frame_ids.get(f).cloned().unwrap_or_default(),
            None => r.frame_id.clone(),
        };
        let loader = if frame_id == page.target_id {
            loader_id.clone()
        } else {
            let key = r.session.id().to_string();
            if !trees.contains_key(&key) {
                let tree = r.session.call_raw("Page.getFrameTree", json!({}), budget.remaining()).await;
                trees.insert(key.clone(), tree.map_err(cdp)?);
            }
            frames::find_loader(&trees[&key]["frameTree"], &frame_id).unwrap_or_default()
        };
        let nth = counts.entry((frame_id.clone(), role.clone(), name.clone())).or_insert(0);
        if !frame_id.is_empty() {
            origin.insert(id.clone(), (*run, *index));
            refs.push(RefRecord {
                id,
                role: role.clone(),
                name: name.clone(),
                nth: *nth,
                backend_node_id: 0,
                frame_id,
                loader_id: loader,
            });
        }
        *nth += 1;
    }
    let mut lines = Vec::new();
    render(&items, 0, &ids, options.interactive, &mut lines);
    let (mut text, mut shown, mut truncated) = cut(&lines, options.max_chars as usize);
    if !truncated && runs.iter().any(|r| r.walked["complete"] == json!(false)) {
        // The walker stopped early but the lines fit after all: say so all the same.
        text.push_str(
            "\n- ... more of the page cut at max_chars; narrow with scope, max_depth or interactive",
        );
        shown += 1;
        truncated = true;
    }
    let mut result = output(text, shown, truncated, refs, url, title);
    if let Output::Snapshot(SnapshotOutput { refs, .. }) = &mut result {
        keep_refs(&runs, &origin, refs, budget).await;
    }
    let sessions: HashMap<String, Session> =
        runs.iter().map(|r| (r.session.id().to_string(), r.session.clone())).collect();
    for session in sessions.values() {
        let _ = release(session, budget).await;
    }
    Ok(result)
}

/// Walks `frame_id`'s document (the page's main frame, or a cross-origin iframe's) through `session`.
async fn walk_in(
    session: &Session,
    frame_id: &str,
    options: &SnapshotOptions,
    walk_time: Budget,
) -> Result<Run, WorkerError> {
    let phase = Phase::Cdp;
    let cdp = |e| cdp_failure(phase, e);
    let world = session
        .call_raw(
            "Page.createIsolatedWorld",
            json!({"frameId": frame_id, "worldName": WORLD}),
            walk_time.remaining(),
        )
        .await
        .map_err(cdp)?;
    let context = world["executionContextId"].as_i64().unwrap_or_default();
    let opts = json!({
        "maxChars": options.max_chars,
        "interactive": options.interactive,
        "compact": options.compact,
        "maxDepth": options.max_depth,
    });
    let walked = session
        .call_raw(
            "Runtime.evaluate",
            json!({"expression": format!("({WALKER})({opts})"), "contextId": context, "objectGroup": WALK_GROUP,
                   "timeout": walk_time.remaining_ms(), "returnByValue": false}),
            walk_time.remaining(),
        )
        .await
        .map_err(|e| match e {
            sb_cdp::CdpError::Timeout { .. } => fail(ErrorCode::Timeout, phase, "the page is too large to walk within the budget; narrow the snapshot with scope or raise timeout_ms"),
            other => cdp_failure(phase, other),
        })?;
    if let Some(details) = walked.get("exceptionDetails") {
        let _ = release(session, walk_time).await;
        return Err(fail(ErrorCode::Timeout, phase, format!(
                "the page is too large to walk within the budget ({}); narrow the snapshot with scope or raise timeout_ms",
                details["exception"]["description"].as_str().unwrap_or("stopped").lines().next().unwrap_or_default()
            )));
    }
    let object = walked["result"]["objectId"].as_str().unwrap_or_default().to_string();
    let field = |name: &'static str, by_value: bool| {
        session.call_raw(
            "Runtime.callFunctionOn",
            json!({"objectId": object, "functionDeclaration": format!("function() {{ return this.{name}; }}"),
                   "returnByValue": by_value, "objectGroup": WALK_GROUP}),
            walk_time.remaining(),
        )
    };
    let (text, frames, holes) =
        tokio::join!(field("json", true), field("frames", false), field("holes", false));
    let walked: Value = serde_json::from_str(text.map_err(cdp)?["result"]["value"].as_str().unwrap_or("{}"))
        .unwrap_or_default();
    let frames_id = frames.map_err(cdp)?["result"]["objectId"].as_str().unwrap_or_default().to_string();
    let holes_id = holes.map_err(cdp)?["result"]["objectId"].as_str().unwrap_or_default().to_string();
    let (frames, holes) = tokio::join!(
        describe_all(session, &frames_id, walk_time),
        describe_all(session, &holes_id, walk_time)
    );
    let frame_of = |d: &Value| d["frameId"].as_str().unwrap_or_default().to_string();
    let frame_ids = frames.map_err(cdp)?.iter().map(frame_of).collect();
    let holes_pending = holes
        .map_err(cdp)?
        .iter()
        .enumerate()
        .map(|(h, d)| (h, frame_of(d)))
        .filter(|(_, f)| !f.is_empty())
        .collect();
    Ok(Run {
        session: session.clone(),
        object,
        walked,
        frame_id: frame_id.to_string(),
        frame_ids,
        filled: HashMap::new(),
        holes_pending,
    })
}

/// Keeps the refs `shown` for the actions that name them: the main frame's walk registers its
/// elements under their ids in its world's registry (`__sandboxBrowserRefs`, at most 100 000 entries,
/// the oldest dropped first); a cross-origin frame's refs get their `backendNodeId`
/// (`DOM.describeNode`). A ref that cannot be kept is found again by role and name when used.
async fn keep_refs(
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
    for (run, wanted) in by_run {
        let r = &runs[run];
        if run == 0 {
            let pairs: Vec<Value> = wanted.iter().map(|&(k, index)| json!([index, shown[k].id])).collect();
            let _ = r
                .session
                .call_raw(
                    "Runtime.callFunctionOn",
                    json!({"objectId": r.object, "functionDeclaration": REGISTER, "arguments": [{"value": pairs}]}),
                    budget.remaining(),
                )
                .await;
            continue;
        }
        let picked = r
            .session
            .call_raw(
                "Runtime.callFunctionOn",
                json!({"objectId": r.object, "functionDeclaration": "function(idx) { return idx.map((i) => this.els[i]); }",
                       "arguments": [{"value": wanted.iter().map(|w| w.1).collect::<Vec<_>>()}], "objectGroup": WALK_GROUP}),
                budget.remaining(),
            )
            .await;
        let Some(array) = picked.ok().and_then(|p| p["result"]["objectId"].as_str().map(str::to_string))
        else {
            continue;
        };
        if let Ok(nodes) = describe_all(&r.session, &array, budget).await {
            for ((k, _), node) in wanted.iter().zip(nodes) {
                shown[*k].backend_node_id = node["backendNodeId"].as_i64().unwrap_or(0);
            }
        }
    }
}

/// Registers the main frame walk's shown elements: `pairs` of `[els index, ref id]`.
const REGISTER: &str = r#"function(pairs) {
  const registry = globalThis.__sandboxBrowserRefs || (globalThis.__sandboxBrowserRefs = new Map());
  for (const [i, id] of pairs) registry.set(id, new WeakRef(this.els[i]));
  // Bounded: the oldest refs go first (an action on one then finds its element by role and name).
  for (const key of registry.keys()) {
    if (registry.size <= 100000) break;
    registry.delete(key);
  }
}"#;

/// `DOM.describeNode` of every element of the array `array_id` (`Runtime.getProperties`), in order,
/// sent together; a node that cannot be described is `null`.
async fn describe_all(
    session: &Session,
    array_id: &str,
    budget: Budget,
) -> Result<Vec<Value>, sb_cdp::CdpError> {
    let props = session
        .call_raw(
            "Runtime.getProperties",
            json!({"objectId": array_id, "ownProperties": true}),
            budget.remaining(),
        )
        .await?;
    let mut ids: Vec<(usize, String)> = props["result"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|p| {
            Some((p["name"].as_str()?.parse().ok()?, p["value"]["objectId"].as_str()?.to_string()))
        })
        .collect();
    ids.sort_by_key(|(i, _)| *i);
    let described =
        futures_util::future::join_all(ids.iter().map(|(_, id)| {
            session.call_raw("DOM.describeNode", json!({"objectId": id}), budget.remaining())
        }))
        .await;
    Ok(described.into_iter().map(|d| d.map(|d| d["node"].clone()).unwrap_or(Value::Null)).collect())
}

async fn release(session: &Session, budget: Budget) -> Result<Value, sb_cdp::CdpError> {
    session
        .call_raw(
            "Runtime.releaseObjectGroup",
            json!({"objectGroup": WALK_GROUP}),
            budget.capped(std::time::Duration::from_millis(200)),
        )
        .await
}

/// The walker's items of run `run` as [`Item`]s, with the frames that filled its holes spliced in;
/// each ref'd node gets the next index into `refs` (role, name, run, the walk's element index).
fn walked_items(
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
                let url = a.get(4).and_then(Value::as_str).map(str::to_string);
                let filled = a
                    .get(6)
                    .and_then(Value::as_i64)
                    .and_then(|h| usize::try_from(h).ok())
                    .and_then(|h| runs[run].filled.get(&h).copied());
                let mut children = match filled {
                    Some(inner) => {
                        let raw = runs[inner].walked["items"].as_array().cloned().unwrap_or_default();
                        walked_items(runs, inner, &raw, refs)
                    }
                    None => walked_items(
                        runs,
                        run,
                        a.get(5).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default(),
                        refs,
                    ),
                };
                if url.is_some() {
                    children.retain(|c| !matches!(c, Item::Text(t) if same_text(t, &name)));
                }
                out.push(Item::Node { role, name, attrs, reference, url, children });
            }
            _ => {}
        }
    }
    out
}

/// The result: only refs that made it into the text are kept.
fn output(
    text: String,
    shown: usize,
    truncated: bool,
    refs: Vec<RefRecord>,
    url: String,
    title: String,
) -> Output {
    let refs: Vec<RefRecord> =
        refs.into_iter().filter(|r| text.contains(&format!("[ref={}]", r.id))).collect();
    Output::Snapshot(SnapshotOutput {
        chars: text.chars().count() as u64,
        text,
        lines: shown as u64,
        truncated,
        refs,
        url,
        title,
    })
}

/// Joins lines up to `max_chars`; when cut, a marker line says so.
fn cut(lines: &[String], max_chars: usize) -> (String, usize, bool) {
    let mut text = String::new();
    let mut chars = 0;
    for (i, line) in lines.iter().enumerate() {
        let n = line.chars().count() + 1;
        if chars + n > max_chars {
            let marker = format!(
                "- ... {} more lines cut at max_chars={max_chars}; narrow with scope, max_depth or interactive",
                lines.len() - i
            );
            text.push_str(&marker);
            return (text, i + 1, true);
        }
        text.push_str(line);
        text.push('\n');
        chars += n;
    }
    if text.ends_with('\n') {
        text.pop();
    }
    (text, lines.len(), false)
}

/// The main frame's `loaderId` (its document), URL and title.
async fn document_identity(page: &Page, budget: Budget) -> Result<(String, String, String), WorkerError> {
    let tree = page
        .session
        .call_raw("Page.getFrameTree", json!({}), budget.remaining())
        .await
        .map_err(|e| cdp_failure(Phase::Cdp, e))?;
    let frame = &tree["frameTree"]["frame"];
    let (_, title, _) = url_and_title(page, budget).await;
    Ok((
        frame["loaderId"].as_str().unwrap_or_default().to_string(),
        frame["url"].as_str().unwrap_or_default().to_string(),
        title.unwrap_or_default(),
    ))
}

/// `href` of every element that has one, by `backendNodeId` (`DOMSnapshot.captureSnapshot`).
async fn link_hrefs(page: &Page, budget: Budget) -> HashMap<i64, String> {
    let mut out = HashMap::new();
    let Ok(snap) = page
        .session
        .call_raw("DOMSnapshot.captureSnapshot", json!({"computedStyles": []}), budget.remaining())
        .await
    else {
        return out;
    };
    let strings: Vec<&str> = snap["strings"]
        .as_array()
        .map(|s| s.iter().map(|x| x.as_str().unwrap_or("")).collect())
        .unwrap_or_default();
    let href = strings.iter().position(|s| *s == "href");
    let Some(href) = href else { return out };
    for doc in snap["documents"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let backends = doc["nodes"]["backendNodeId"].as_array().map(Vec::as_slice).unwrap_or_default();
        let attributes = doc["nodes"]["attributes"].as_array().map(Vec::as_slice).unwrap_or_default();
        for (backend, attrs) in backends.iter().zip(attributes) {
            let pairs = attrs.as_array().map(Vec::as_slice).unwrap_or_default();
            for kv in pairs.chunks(2) {
                if kv[0].as_u64() == Some(href as u64) {
                    if let (Some(b), Some(v)) = (backend.as_i64(), kv.get(1).and_then(Value::as_u64)) {
                        out.insert(b, strings.get(v as usize).unwrap_or(&"").to_string());
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_adds_a_marker_line() {
        let lines: Vec<String> = (0..10).map(|i| format!("- text: line {i}")).collect();
        let (text, shown, truncated) = cut(&lines, 40);
        assert!(truncated);
        assert_eq!(shown, 3);
        assert!(
            text.ends_with(
                "- ... 8 more lines cut at max_chars=40; narrow with scope, max_depth or interactive"
            ),
            "{text}"
        );
        let (_, _, truncated) = cut(&lines, 10_000);
        assert!(!truncated);
    }

    #[test]
    fn states_render_in_brackets() {
        let props: HashMap<String, Value> = [
            ("checked".to_string(), json!("mixed")),
            ("disabled".to_string(), json!(true)),
            ("level".to_string(), json!(2)),
        ]
        .into_iter()
        .collect();
        assert_eq!(attrs(&props), vec!["checked=mixed", "disabled", "level=2"]);
    }
}
