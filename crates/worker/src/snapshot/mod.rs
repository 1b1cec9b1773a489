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

use sb_protocol::ipc::{Output, RefRecord, SnapshotOptions, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde_json::{json, Value};

use crate::error::{cdp_failure, fail};
use crate::frames;
use crate::page::{document_identity, eval_by_value, Page, WORLD};
use crate::progress::Progress;
use crate::resolve::backend_of;
use crate::settle;

mod axtree;
mod diff;
mod render;
mod walk;

pub(crate) use diff::Previous;

use axtree::*;
use render::*;
use walk::*;

/// The marker line of a snapshot taken while the document was still loading.
const LOADING: &str = "- note \"the page is still loading; take another snapshot\"";
/// The marker line of a snapshot of a page with nothing in it.
const EMPTY: &str = "- note \"the page is empty\"";

/// Takes the snapshot; new refs are `e{next_ref}`, `e{next_ref+1}`, ... A document still loading is
/// waited for until `DOMContentLoaded`, for at most half the budget; a snapshot taken before it says so
/// (`loading`, a marker line), and an empty one says the page is empty: the text is never empty.
pub(crate) async fn snapshot(
    page: &Page,
    options: &SnapshotOptions,
    next_ref: u64,
    p: &Progress,
) -> Result<Output, WorkerError> {
    settle::before_read(page, p).await;
    let mut output = take(page, options, next_ref, p).await?;
    if let Output::Snapshot(s) = &mut output {
        s.loading = !settle::is_ready(page);
        let marker = if s.loading {
            Some(LOADING)
        } else if s.text.trim().is_empty() {
            Some(EMPTY)
        } else {
            None
        };
        if let Some(marker) = marker {
            s.text =
                if s.text.trim().is_empty() { marker.to_string() } else { format!("{marker}\n{}", s.text) };
            s.lines += 1;
            s.chars = s.text.chars().count() as u64;
        }
        // Kept for the next diff; a diff is answered against the previous snapshot of the same
        // document with the same options (a page still loading is answered whole).
        let document = page.lifecycle.borrow().loader_id.clone();
        let key = format!("{:?}", (options.interactive, options.compact, options.max_depth, &options.scope));
        let same = |p: &Previous| p.document == document && p.options == key;
        let current = Previous { document: document.clone(), options: key.clone(), text: s.text.clone() };
        let previous = page.last_snapshot.lock().unwrap().replace(current).filter(same);
        if let Some(previous) = previous.filter(|_| options.diff && !s.loading) {
            s.text = diff::diff(&previous.text, &s.text);
            s.diff = true;
            s.lines = s.text.lines().count() as u64;
            s.chars = s.text.chars().count() as u64;
        }
    }
    Ok(output)
}

/// The snapshot itself ([`snapshot`] without the wait and the markers).
async fn take(
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
    // Time kept back to build and render the text once the tree is here (a few ms for the at most
    // 2500 elements read this way), so that a fetch that runs out answers inside the answer window.
    let fetch = budget.child(std::time::Duration::from_millis(30));
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
    // An element keeps the ref an earlier snapshot of its document gave it; others get new numbers.
    let mut known = page.ref_ids.lock().unwrap();
    let mut fresh = next_ref;
    let mut refs = Vec::with_capacity(builder.refs.len());
    for (role, name, backend, frame) in &builder.refs {
        let (frame_id, loader) = match frame.checked_sub(1).and_then(|c| children.get(c)) {
            Some(child) => (child.frame_id.clone(), child.loader_id.clone()),
            None => (page.target_id.clone(), loader_id.clone()),
        };
        let id = known.entry((loader.clone(), *backend)).or_insert_with(|| {
            fresh += 1;
            format!("e{}", fresh - 1)
        });
        refs.push(RefRecord {
            id: id.clone(),
            role: role.clone(),
            name: name.clone(),
            backend_node_id: *backend,
            frame_id,
            loader_id: loader,
        });
    }
    // Documents the page no longer shows are forgotten (their refs are stale anyway).
    if scope_backend.is_none() {
        let mut documents: std::collections::HashSet<&String> =
            children.iter().map(|c| &c.loader_id).collect();
        documents.insert(&loader_id);
        known.retain(|(loader, _), _| documents.contains(loader));
    }
    drop(known);
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
    fn keys_and_values_are_quoted_as_playwright_quotes_them() {
        // Plain where YAML reads them back as the same string.
        for plain in ["Docs", "link \"Docs\" [ref=e1]", "a-b", "x:y", "a#b", "1.2.3", "e1"] {
            assert_eq!(yaml_value(plain), plain);
        }
        // Quoted: leading dash or indicator, ": ", " #", braces, numbers, booleans, empty, control.
        for (value, quoted) in [
            (">", "\">\""),
            ("#x", "\"#x\""),
            ("- item", "\"- item\""),
            ("a: b", "\"a: b\""),
            ("ends:", "\"ends:\""),
            ("see #3", "\"see #3\""),
            ("{x}", "\"{x}\""),
            ("42", "\"42\""),
            ("0x1F", "\"0x1F\""),
            (".5e3", "\".5e3\""),
            ("Yes", "\"Yes\""),
            ("", "\"\""),
            ("bell\u{7}", "\"bell\\x07\""),
            ("two\nlines", "\"two\\nlines\""),
            ("say \"hi\" `x`", "\"say \\\"hi\\\" `x`\""),
        ] {
            assert_eq!(yaml_value(value), quoted, "{value}");
        }
        assert_eq!(yaml_key("link \"feat: x\" [ref=e3]"), "'link \"feat: x\" [ref=e3]'");
        assert_eq!(yaml_key("button \"it's {on}\""), "'button \"it''s {on}\"'");
        assert_eq!(yaml_key("button \"Go\" [ref=e1]"), "button \"Go\" [ref=e1]");
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
        let props: HashMap<String, Value> =
            [("selected".to_string(), json!(true)), ("level".to_string(), json!(3))].into_iter().collect();
        assert_eq!(attrs(&props), vec!["level=3", "selected"], "Playwright's order");
    }
}
