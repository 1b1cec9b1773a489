//! Rendering: snapshot items to aria-snapshot text lines (Playwright's `renderAriaTree` format: one
//! node a line, `- role "name" [attrs] [ref=eN]`, two-space indent, text children inline).

use std::collections::HashMap;

use sb_protocol::ipc::{Output, RefRecord, SnapshotOutput};
use serde_json::{json, Value};

/// The tree between AX nodes and text.
pub(super) enum Item {
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

pub(super) fn push_text(out: &mut Vec<Item>, text: &str) {
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
pub(super) fn attrs(props: &HashMap<String, Value>) -> Vec<String> {
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
pub(super) fn same_text(text: &str, name: &str) -> bool {
    let squash = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    squash(text) == squash(name)
}

pub(super) fn quote(s: &str) -> String {
    Value::String(s.trim().to_string()).to_string()
}

/// Renders items as lines, nested by two spaces.
pub(super) fn render(
    items: &[Item],
    indent: usize,
    ids: &[String],
    interactive: bool,
    lines: &mut Vec<String>,
) {
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

/// The result: only refs that made it into the text are kept.
pub(super) fn output(
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
        loading: false,
        refs,
        url,
        title,
    })
}

/// Joins lines up to `max_chars`; when cut, a marker line says so.
pub(super) fn cut(lines: &[String], max_chars: usize) -> (String, usize, bool) {
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
