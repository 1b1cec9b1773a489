//! `page.snapshot {diff: true}`: what changed since the previous snapshot of the same document, so an
//! agent that acts and looks again reads a few lines instead of the page.
//!
//! The two texts are compared line by line (`similar`, patience diff). Each changed line comes under
//! the path of its parents (the nearest earlier lines of smaller indent, in the snapshot it belongs
//! to), written once for consecutive changes that share them. A line is marked in its first two
//! columns, as a unified diff does: `+ ` added, `- ` removed (a changed line is both), two spaces for
//! a parent shown for context:
//!
//! ```text
//!   - list:
//! -   - listitem: Two
//! +   - listitem: Three
//! ```

use similar::{Algorithm, DiffOp};

/// The text answered when nothing changed.
pub(super) const UNCHANGED: &str = "- note \"nothing changed since the previous snapshot\"";

/// For each line, the index of its parent line (the nearest earlier line of smaller indent).
fn parents(lines: &[&str]) -> Vec<Option<usize>> {
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        while stack.last().is_some_and(|&(d, _)| d >= indent) {
            stack.pop();
        }
        out.push(stack.last().map(|&(_, j)| j));
        stack.push((indent, i));
    }
    out
}

/// The path of line `i`: its ancestors' lines, outermost first.
fn path<'a>(lines: &[&'a str], parents: &[Option<usize>], i: usize) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut at = parents[i];
    while let Some(p) = at {
        out.push(lines[p]);
        at = parents[p];
    }
    out.reverse();
    out
}

/// The changes from `old` to `new` as marked lines ([`UNCHANGED`] when there are none).
pub(super) fn diff(old: &str, new: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let (old_parents, new_parents) = (parents(&old), parents(&new));
    let mut out: Vec<String> = Vec::new();
    // The parents last written, so that consecutive changes under them do not repeat them.
    let mut shown: Vec<String> = Vec::new();
    let mut emit =
        |mark: char, lines: &[&str], parents: &[Option<usize>], i: usize, out: &mut Vec<String>| {
            let wanted = path(lines, parents, i);
            let common = shown.iter().zip(&wanted).take_while(|(a, b)| a == *b).count();
            for p in &wanted[common..] {
                out.push(format!("  {p}"));
            }
            // A changed line is the context of its own children (an added parent is not repeated).
            shown = wanted.iter().chain([&lines[i]]).map(|l| l.to_string()).collect();
            out.push(format!("{mark} {}", lines[i]));
        };
    for op in similar::capture_diff_slices(Algorithm::Patience, &old, &new) {
        match op {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete { old_index, old_len, .. } => {
                for i in old_index..old_index + old_len {
                    emit('-', &old, &old_parents, i, &mut out);
                }
            }
            DiffOp::Insert { new_index, new_len, .. } => {
                for i in new_index..new_index + new_len {
                    emit('+', &new, &new_parents, i, &mut out);
                }
            }
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                for i in old_index..old_index + old_len {
                    emit('-', &old, &old_parents, i, &mut out);
                }
                for i in new_index..new_index + new_len {
                    emit('+', &new, &new_parents, i, &mut out);
                }
            }
        }
    }
    if out.is_empty() {
        UNCHANGED.to_string()
    } else {
        out.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_lines_come_under_their_parents_once() {
        let old = "- heading \"Todo\" [level=1]\n- list:\n  - listitem: One\n  - listitem: Two\n- button \"Add\" [ref=e1]";
        let new = "- heading \"Todo\" [level=1]\n- list:\n  - listitem: One\n  - listitem: Three\n  - listitem: Four\n- button \"Add\" [ref=e1]";
        assert_eq!(
            diff(old, new),
            "  - list:\n-   - listitem: Two\n+   - listitem: Three\n+   - listitem: Four"
        );
        assert_eq!(diff(new, new), UNCHANGED);
        // An added line's children come under it, not under a copy of it.
        let nested = "- list:\n  - listitem: One\n  - listitem:\n    - link \"x\"";
        assert_eq!(
            diff("- list:\n  - listitem: One", nested),
            "  - list:\n+   - listitem:\n+     - link \"x\""
        );
        // A change at the top level has no parents to show.
        assert_eq!(diff(old, &format!("{old}\n- text: done")), "+ - text: done");
    }
}
