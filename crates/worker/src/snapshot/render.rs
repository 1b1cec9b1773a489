//! Rendering: snapshot items to aria-snapshot text lines (Playwright's `renderAriaTree` format: one
//! node a line, `- role "name" [attrs] [ref=eN]`, two-space indent, a lone text child inline), YAML
//! quoted as Playwright's serializer quotes it.

use sb_protocol::ipc::{Output, RefRecord, SnapshotOutput};
use serde_json::Value;

/// The tree between AX nodes and text.
pub(super) enum Item {
    Text(String),
    Node {
        role: String,
        name: String,
        attrs: Vec<String>,
        reference: Option<usize>,
        /// `/url` of a link, `/placeholder` of a textbox: `(name, value)`.
        props: Vec<(String, String)>,
        children: Vec<Item>,
    },
}

/// Appends text to `out`: joined (with a space) to a text just before it, as the walker joins the
/// text runs of a node (`compact` can bring two together).
pub(super) fn push_text(out: &mut Vec<Item>, text: &str) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    if let Some(Item::Text(prev)) = out.last_mut() {
        prev.push(' ');
        prev.push_str(text);
    } else {
        out.push(Item::Text(text.to_string()));
    }
}

pub(super) fn quote(s: &str) -> String {
    Value::String(s.trim().to_string()).to_string()
}

/// Whether `s` must be quoted to read back as the same YAML string (Playwright's
/// `yamlStringNeedsQuotes` in `utils/isomorphic/yaml.ts`, rule for rule).
fn yaml_needs_quotes(s: &str) -> bool {
    let (Some(first), Some(last)) = (s.chars().next(), s.chars().next_back()) else { return true };
    let control = |c: char| matches!(c as u32, 0x00..=0x08 | 0x0b | 0x0c | 0x0e..=0x1f | 0x7f..=0x9f);
    if first.is_whitespace()
        || last.is_whitespace()
        || first == '-'
        || last == ':'
        || "&*],?!>|@\"'#%[".contains(first)
    {
        return true;
    }
    // One pass: control characters, line breaks, braces and backticks; ": " and " #".
    let mut prev = first;
    for (i, c) in s.chars().enumerate() {
        if control(c) || matches!(c, '\n' | '\r' | '{' | '}' | '`') {
            return true;
        }
        if i > 0 && ((prev == ':' && c.is_whitespace()) || (prev.is_whitespace() && c == '#')) {
            return true;
        }
        prev = c;
    }
    // YAML 1.1's booleans and null (ASCII words: no other string lowercases to one).
    js_number(s)
        || (s.len() <= 5
            && ["y", "n", "yes", "no", "true", "false", "on", "off", "null"]
                .iter()
                .any(|w| w.eq_ignore_ascii_case(s)))
}

/// Whether JavaScript's `Number(s)` is a number (not `NaN`): a decimal, hex/octal/binary literal or
/// `Infinity`, signed or not (decimal only), surrounded by whitespace or not.
fn js_number(s: &str) -> bool {
    let t = s.trim();
    let radix = |p: &str, r: u32| {
        t.get(..2).is_some_and(|h| h.eq_ignore_ascii_case(p))
            && t.len() > 2
            && t[2..].chars().all(|c| c.is_digit(r))
    };
    if t.is_empty() || radix("0x", 16) || radix("0o", 8) || radix("0b", 2) {
        return true;
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned == "Infinity" {
        return true;
    }
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e.strip_prefix(['+', '-']).unwrap_or(e))),
        None => (unsigned, None),
    };
    let digits = |d: &str| d.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => (!int.is_empty() || !frac.is_empty()) && digits(int) && digits(frac),
        None => !mantissa.is_empty() && digits(mantissa),
    };
    mantissa_ok && exponent.is_none_or(|e| !e.is_empty() && digits(e))
}

/// A mapping key (`role "name" [attrs] [ref=eN]`) as YAML: single-quoted when it needs quotes
/// (Playwright's `yamlEscapeKeyIfNeeded`).
pub(super) fn yaml_key(key: &str) -> String {
    if yaml_needs_quotes(key) {
        format!("'{}'", key.replace('\'', "''"))
    } else {
        key.to_string()
    }
}

/// A scalar value (text, a `/url`) as YAML: double-quoted with escapes when it needs quotes
/// (Playwright's `yamlEscapeValueIfNeeded`).
pub(super) fn yaml_value(value: &str) -> String {
    if !yaml_needs_quotes(value) {
        return value.to_string();
    }
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if matches!(c as u32, 0x00..=0x1f | 0x7f..=0x9f) => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Renders items as lines, nested by two spaces, as Playwright's `renderAriaTree`: a node without
/// children or props is its key alone; one whose only child is a text is `key: text`; else `key:`,
/// its props (`- /url: ...`), then its children. `interactive` lists the nodes with refs, flat.
pub(super) fn render(
    items: &[Item],
    indent: usize,
    ids: &[String],
    interactive: bool,
    lines: &mut Vec<String>,
) {
    let pad = |n: usize| "  ".repeat(n);
    for item in items {
        match item {
            Item::Text(t) if !interactive => lines.push(format!("{}- text: {}", pad(indent), yaml_value(t))),
            Item::Text(_) => {}
            Item::Node { role, name, attrs, reference, props, children } => {
                if interactive && reference.is_none() {
                    render(children, indent, ids, interactive, lines);
                    continue;
                }
                let mut key = role.clone();
                // Playwright leaves out names longer than 900 characters (a key stays readable).
                if !name.is_empty() && name.chars().count() <= 900 {
                    key.push(' ');
                    key.push_str(&quote(name));
                }
                for a in attrs {
                    key.push_str(&format!(" [{a}]"));
                }
                if let Some(r) = reference {
                    key.push_str(&format!(" [ref={}]", ids[*r]));
                }
                let line = format!("{}- {}", pad(indent), yaml_key(&key));
                if interactive {
                    lines.push(line);
                    render(children, indent, ids, interactive, lines);
                    continue;
                }
                match (children.as_slice(), props.is_empty()) {
                    ([], true) => lines.push(line),
                    ([Item::Text(t)], true) => lines.push(format!("{line}: {}", yaml_value(t))),
                    _ => {
                        lines.push(format!("{line}:"));
                        for (k, v) in props {
                            lines.push(format!("{}- /{k}: {}", pad(indent + 1), yaml_value(v)));
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
    // The ids the text shows, read in one pass (a search of the text per ref costs seconds on a page
    // of thousands).
    let shown_ids: std::collections::HashSet<&str> =
        text.split("[ref=").skip(1).filter_map(|rest| rest.split(']').next()).collect();
    let refs: Vec<RefRecord> = refs.into_iter().filter(|r| shown_ids.contains(r.id.as_str())).collect();
    Output::Snapshot(SnapshotOutput {
        chars: text.chars().count() as u64,
        text,
        lines: shown as u64,
        truncated,
        loading: false,
        diff: false,
        refs,
        url,
        title,
    })
}

/// What a cut snapshot suggests to narrow it: `interactive` only to a caller that did not ask for it.
pub(super) fn narrow_with(interactive: bool) -> &'static str {
    if interactive {
        "narrow with scope (a ref or selector) or max_depth"
    } else {
        "narrow with scope, max_depth or interactive"
    }
}

/// Joins lines up to `max_chars`; when cut, a marker line says so and what narrows it.
pub(super) fn cut(lines: &[String], max_chars: usize, interactive: bool) -> (String, usize, bool) {
    let mut text = String::new();
    let mut chars = 0;
    for (i, line) in lines.iter().enumerate() {
        let n = line.chars().count() + 1;
        if chars + n > max_chars {
            let marker = format!(
                "- ... {} more lines cut at max_chars={max_chars}; {}",
                lines.len() - i,
                narrow_with(interactive)
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
