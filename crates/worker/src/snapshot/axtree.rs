//! The accessibility-tree read: `Accessibility.getFullAXTree` (or `queryAXTree` under a scope) nodes to
//! snapshot items; which roles get refs, which containers are flattened.

use std::collections::HashMap;

use sb_protocol::ipc::SnapshotOptions;
use serde_json::Value;

use super::render::*;

/// Roles that get a ref whatever their name (an `iframe`'s names its frame: `page.evaluate {frame}`,
/// `page.snapshot {scope}`; Playwright MCP's snapshots give iframes refs too).
pub(super) const INTERACTIVE: &[&str] = &[
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
    "iframe",
];
/// Roles that get a ref when they have a name.
pub(super) const NAMED_CONTENT: &[&str] = &[
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
pub(super) const HIDDEN: &[&str] = &["InlineTextBox", "ListMarker", "LineBreak"];
/// Roles whose children are shown in their place.
pub(super) const FLATTENED: &[&str] =
    &["generic", "none", "presentation", "RootWebArea", "MenuListPopup", "Ignored", "LabelText"];
/// Structure that `compact` drops when it has no name.
pub(super) const STRUCTURE: &[&str] =
    &["group", "list", "listitem", "paragraph", "section", "article", "table", "row", "rowgroup"];

/// One AX node, as used here.
pub(super) struct AxNode {
    pub(super) role: String,
    pub(super) name: String,
    pub(super) ignored: bool,
    pub(super) props: HashMap<String, Value>,
    pub(super) children: Vec<String>,
    pub(super) backend: Option<i64>,
    /// Index of the frame's tree it comes from (0: the main frame).
    pub(super) frame: usize,
}

/// Chromium's role names where they differ from ARIA's.
pub(super) fn aria_role(role: &str) -> &str {
    match role {
        "image" => "img",
        "Iframe" => "iframe",
        "DisclosureTriangle" => "button",
        "StaticText" => "text",
        other => other,
    }
}

pub(super) struct Builder<'a> {
    pub(super) nodes: &'a HashMap<String, AxNode>,
    pub(super) options: &'a SnapshotOptions,
    pub(super) hrefs: &'a HashMap<i64, String>,
    /// `(role, name, backendDOMNodeId, frame index)` of each ref, in order.
    pub(super) refs: Vec<(String, String, i64, usize)>,
    /// The root node of each child frame's tree, by its `<iframe>`: the session (id) of the renderer
    /// the element lives in and its `backendDOMNodeId` there (backend ids are per renderer).
    pub(super) child_roots: &'a HashMap<(String, i64), String>,
    /// Per frame index: the session (id) its tree was read through.
    pub(super) sessions: &'a [String],
}

impl Builder<'_> {
    pub(super) fn collect(&mut self, id: &str, depth: u32, out: &mut Vec<Item>) {
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

/// Adds one frame's `Accessibility.getFullAXTree` nodes to `nodes` under ids `"{frame}:{nodeId}"`
/// (node ids repeat across documents); returns the root's id.
pub(super) fn parse_tree(
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
