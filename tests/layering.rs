//! The layering test (issue 55 §3): no two source files of a crate import each other, directly or
//! round a longer circle, and no two of its folders, as Playwright's `check_deps` holds its `DEPS.list`. The crates' own arrows
//! are Cargo's (a crate cannot name one that does not depend on it); this test holds the files inside
//! each crate to the same rule, which docs/architecture.md states.
//!
//! A file's arrows are the paths it names through `crate::`, `super::` and `self::` (in `use`
//! statements and in code), each to the file of the longest module the path names, followed through
//! that module's `pub use` re-exports (so `crate::CdpClient` is an arrow to `client.rs`, not to
//! `lib.rs`). `mod` declarations are not arrows; nor is what a file's tests (`#[cfg(test)]`, at its
//! end) or its comments name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A crate's source files by module path (`[]` for `lib.rs`/`main.rs`, `["snapshot"]` for
/// `snapshot/mod.rs`, `["snapshot", "walk"]` for `snapshot/walk.rs`).
type Modules = BTreeMap<Vec<String>, Source>;

/// One source file: its path, and its text without comments and tests.
struct Source {
    path: PathBuf,
    code: String,
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of `file` in the crate whose sources are in `src`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    // A binary's root beside a library's is a crate of its own: named apart.
    let binary = stem == "main" && parts.is_empty() && file.with_file_name("lib.rs").exists();
    if binary {
        parts.push("#main".into());
    } else if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    // A binary's own folder (src/bin/x.rs) is a crate of its own: named apart from the library's.
    if parts.first().is_some_and(|p| p == "bin") {
        parts.insert(0, "#".into());
    }
    parts
}

/// `text` without its tests (from a line `#[cfg(test)]` on), its comments, and what its string and
/// character literals hold (each literal is left empty: `""`, `' '`).
fn code_of(text: &str) -> String {
    let text = match text.find("\n#[cfg(test)]") {
        Some(at) => &text[..at],
        None => text,
    };
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let at = |i: usize, s: &str| s.chars().enumerate().all(|(k, c)| chars.get(i + k) == Some(&c));
    while i < chars.len() {
        let c = chars[i];
        if at(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if at(i, "/*") {
            i += 2;
            while i < chars.len() && !at(i, "*/") {
                i += 1;
            }
            i += 2;
        } else if c == 'r'
            && (at(i + 1, "\"") || at(i + 1, "#"))
            && !chars.get(i.wrapping_sub(1)).is_some_and(|p| ident(*p))
        {
            // A raw string: r"...", r#"..."#.
            let mut hashes = 0;
            let mut k = i + 1;
            while chars.get(k) == Some(&'#') {
                hashes += 1;
                k += 1;
            }
            if chars.get(k) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            k += 1;
            while k < chars.len() && !at(k, &close) {
                k += 1;
            }
            out.push_str("\"\"");
            i = k + close.len();
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || chars.get(i + 1) == Some(&'\\')) {
            // A character literal ('x', '\n', '\''), not a lifetime.
            let mut k = i + 1;
            if chars.get(k) == Some(&'\\') {
                k += 2;
            } else {
                k += 1;
            }
            while k < chars.len() && chars[k] != '\'' {
                k += 1;
            }
            out.push_str("' '");
            i = k + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The paths a `use` tree names (`a::{b, c::{self, d as e, *}}` gives `a::b`, `a::c`, `a::c::d`, `a::c`), as
/// segment lists.
fn expand_use(tree: &str) -> Vec<Vec<String>> {
    // One space at most, and none beside the tree's punctuation: `a::{b, c as d}` is `a::{b,c as d}`.
    let mut tree = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    for p in ["::", "{", "}", ","] {
        tree = tree.replace(&format!(" {p}"), p).replace(&format!("{p} "), p);
    }
    let mut out = Vec::new();
    expand_into(&tree, &[], &mut out);
    out
}

fn expand_into(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let segments = |path: &str| -> Vec<String> {
        path.split("::").filter(|s| !s.is_empty() && *s != "*").map(str::to_string).collect()
    };
    let mut base = prefix.to_vec();
    match tree.find('{') {
        None => {
            let leaf = tree.split(" as ").next().unwrap_or(tree);
            if leaf != "self" {
                base.extend(segments(leaf));
            }
            out.push(base);
        }
        Some(open) => {
            // The group's head alone is no name (`a::{b, c}` names `a::b` and `a::c`; `a::{self}`
            // names `a`).
            base.extend(segments(&tree[..open]));
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let (mut depth, mut start) = (0, 0);
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand_into(&inner[start..i], &base, out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            if start < inner.len() {
                expand_into(&inner[start..], &base, out);
            }
        }
    }
}

/// Whether `c` may be part of an identifier.
fn ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths `code` names from the crate's root or relative to its module: each `use` statement's
/// (expanded) and each `crate::`/`super::`/`self::` path in code, with its first segment.
fn named_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = String::new();
    let mut text = code;
    // `use` statements (also `pub use`, `pub(crate) use`).
    while let Some(at) = find_word(text, "use") {
        rest.push_str(&text[..at]);
        let after = &text[at + 3..];
        let end = after.find(';').unwrap_or(after.len());
        paths.extend(expand_use(&after[..end]));
        text = &after[(end + 1).min(after.len())..];
    }
    rest.push_str(text);
    // Paths in code.
    for root in ["crate", "super", "self"] {
        let mut text = rest.as_str();
        while let Some(at) = find_word(text, root) {
            let after = &text[at..];
            let mut segments = Vec::new();
            let mut cursor = after;
            loop {
                let len = cursor.find(|c: char| !ident(c)).unwrap_or(cursor.len());
                if len == 0 {
                    break;
                }
                segments.push(cursor[..len].to_string());
                cursor = &cursor[len..];
                match cursor.strip_prefix("::") {
                    Some(next) => cursor = next,
                    None => break,
                }
            }
            let used = after.len() - cursor.len();
            if segments.len() > 1 {
                paths.push(segments);
            }
            // On past the whole path (`super::super::x` is one path, not two).
            text = &after[used.max(root.len())..];
        }
    }
    paths
}

/// `code` of module `module` split into its own text and that of each module declared inline in it
/// (`mod ws { ... }`, whose `super` is `module`), each with its module path.
fn inline_modules(module: &[String], code: &str) -> Vec<(Vec<String>, String)> {
    let mut own = String::new();
    let mut out = Vec::new();
    let mut text = code;
    while let Some(at) = find_word(text, "mod") {
        let after = &text[at + 3..];
        let name_len = after.trim_start().find(|c: char| !ident(c)).unwrap_or(0);
        let name = after.trim_start()[..name_len].to_string();
        let rest = after.trim_start()[name_len..].trim_start();
        if name.is_empty() || !rest.starts_with('{') {
            own.push_str(&text[..at + 3]);
            text = after;
            continue;
        }
        own.push_str(&text[..at]);
        let body_start = text.len() - rest.len() + 1;
        let mut depth = 1;
        let mut end = text.len();
        for (i, c) in text[body_start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = body_start + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let mut inner = module.to_vec();
        inner.push(name);
        out.extend(inline_modules(&inner, &text[body_start..end]));
        text = &text[(end + 1).min(text.len())..];
    }
    own.push_str(text);
    out.insert(0, (module.to_vec(), own));
    out
}

/// Where `word` stands alone in `text` (not part of a longer identifier).
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !before.is_some_and(ident) && !after.is_some_and(ident) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// `path` (as a file in `module` named it) from the crate's root; `None` for a path of another crate.
fn absolute(module: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = module.to_vec();
    let mut segments = path;
    match segments.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            segments = &segments[1..];
        }
        Some("self") => segments = &segments[1..],
        Some("super") => {
            // The parent module (of `snapshot/walk.rs`, `snapshot/mod.rs`; of that, the root).
            while segments.first().is_some_and(|s| s == "super") {
                base.pop();
                segments = &segments[1..];
            }
        }
        _ => return None,
    }
    base.extend(segments.iter().cloned());
    Some(base)
}

/// The file (module path) `path` leads to: the longest module it names, through that module's
/// re-exports (`pub use`) of the next segment.
fn target(
    modules: &Modules,
    reexports: &BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    path: &[String],
) -> Vec<String> {
    let mut path = path.to_vec();
    for _ in 0..8 {
        let module = (0..=path.len()).rev().map(|n| path[..n].to_vec()).find(|m| modules.contains_key(m));
        let module = module.unwrap_or_default();
        let next = path.get(module.len());
        match next.and_then(|name| reexports.get(&module).and_then(|r| r.get(name))) {
            Some(to) if *to != path => {
                let mut new = to.clone();
                new.extend(path[module.len() + 1..].iter().cloned());
                path = new;
            }
            _ => return module,
        }
    }
    Vec::new()
}

/// The names a module re-exports (`pub use a::b::C;` and `pub(crate) use`), to the absolute path each
/// stands for.
fn reexports_of(module: &[String], code: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut text = code;
    while let Some(at) = find_word(text, "use") {
        let before = text[..at].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')') && before.contains("pub(");
        let after = &text[at + 3..];
        let end = after.find(';').unwrap_or(after.len());
        if public {
            for path in expand_use(&after[..end]) {
                // `pub use walk::X` names a child module relative to this one.
                let mut full = path.clone();
                if !matches!(full.first().map(String::as_str), Some("crate" | "super" | "self")) {
                    full.insert(0, "self".into());
                }
                if let (Some(abs), Some(name)) = (absolute(module, &full), path.last()) {
                    out.insert(name.clone(), abs);
                }
            }
        }
        text = &after[(end + 1).min(after.len())..];
    }
    out
}

/// A crate's arrows between its files: from each module to the modules it names.
fn arrows(src: &Path) -> (Modules, BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut modules = Modules::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        modules.insert(module_of(src, &file), Source { path: file, code: code_of(&text) });
    }
    let reexports: BTreeMap<_, _> =
        modules.iter().map(|(m, s)| (m.clone(), reexports_of(m, &s.code))).collect();
    let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, source) in &modules {
        for (inner, code) in inline_modules(module, &source.code) {
            for path in named_paths(&code) {
                // A path relative to the module without `self::` (`walk::run` in snapshot/mod.rs) names
                // a child module.
                let path = if matches!(path.first().map(String::as_str), Some("crate" | "super" | "self")) {
                    path
                } else {
                    let mut p = vec!["self".to_string()];
                    p.extend(path);
                    p
                };
                let Some(abs) = absolute(&inner, &path) else { continue };
                let to = target(&modules, &reexports, &abs);
                if &to != module && modules.contains_key(&to) {
                    graph.entry(module.clone()).or_default().insert(to);
                }
            }
        }
    }
    (modules, graph)
}

/// The circles of `graph` (strongly connected parts of more than one module), each as its modules.
fn circles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    // Two modules are on one circle when each reaches the other.
    let nodes: BTreeSet<&Vec<String>> = graph.keys().chain(graph.values().flatten()).collect();
    let reach = |from: &Vec<String>| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for next in graph.get(&n).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&Vec<String>, BTreeSet<Vec<String>>> =
        nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut placed = BTreeSet::new();
    let mut out = Vec::new();
    for n in &nodes {
        if placed.contains(*n) || !reaches[n].contains(*n) {
            continue;
        }
        let circle: Vec<Vec<String>> = nodes
            .iter()
            .filter(|m| reaches[n].contains(**m) && reaches[**m].contains(*n))
            .map(|m| (*m).clone())
            .collect();
        placed.extend(circle.iter().cloned());
        if circle.len() > 1 {
            out.push(circle);
        }
    }
    out
}

/// The workspace's crates' source folders.
fn crate_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("crates");
    let mut out: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// How a circle is shown: its files, and the arrows between them.
fn describe(
    src: &Path,
    modules: &Modules,
    graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
    circle: &[Vec<String>],
) -> String {
    let name =
        |m: &Vec<String>| modules[m].path.strip_prefix(src.parent().unwrap()).unwrap().display().to_string();
    let mut lines = Vec::new();
    for from in circle {
        for to in graph.get(from).into_iter().flatten().filter(|t| circle.contains(t)) {
            lines.push(format!("  {} -> {}", name(from), name(to)));
        }
    }
    lines.join("\n")
}

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let mut found = Vec::new();
    for src in crate_sources() {
        let (modules, graph) = arrows(&src);
        assert!(!modules.is_empty(), "{} has its files", src.display());
        for circle in circles(&graph) {
            found.push(format!("{}:\n{}", src.display(), describe(&src, &modules, &graph, &circle)));
        }
    }
    assert!(found.is_empty(), "import circles between files:\n{}", found.join("\n"));
}

/// A crate's arrows between its groups: its top-level modules (a folder with its files, or a file),
/// from the arrows between files. The crate's root (`lib.rs`, which names every group) is none.
fn group_arrows(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Groups {
    let group = |m: &Vec<String>| m.first().filter(|g| !g.starts_with('#')).cloned();
    let mut groups = Groups::new();
    for (from, tos) in graph {
        let Some(a) = group(from) else { continue };
        for to in tos {
            match group(to) {
                Some(b) if b != a => {
                    let files = groups.entry(vec![a.clone()]).or_default().entry(vec![b]).or_default();
                    files.insert(from.join("/"));
                }
                _ => {}
            }
        }
    }
    groups
}

/// Arrows between groups, each with the files (module paths) that make it.
type Groups = BTreeMap<Vec<String>, BTreeMap<Vec<String>, BTreeSet<String>>>;

/// No two groups of a crate (its folders and its top-level files) import each other, directly or round
/// a longer circle: the arrows between the supervisor's folders (front doors, the request pipeline,
/// sessions, the gate, workers, the browser's lifecycle, ...) run one way, as Playwright's
/// `check_deps` holds which folder may use which (`DEPS.list`).
#[test]
fn no_two_folders_of_a_crate_import_each_other() {
    let mut found = Vec::new();
    for src in crate_sources() {
        let (_, graph) = arrows(&src);
        let groups = group_arrows(&graph);
        let plain: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> =
            groups.iter().map(|(a, tos)| (a.clone(), tos.keys().cloned().collect())).collect();
        for circle in circles(&plain) {
            let mut lines = Vec::new();
            for from in &circle {
                for (to, files) in groups.get(from).into_iter().flatten().filter(|(t, _)| circle.contains(t))
                {
                    let files: Vec<&str> = files.iter().map(String::as_str).collect();
                    lines.push(format!("  {} -> {} ({})", from.join("/"), to.join("/"), files.join(", ")));
                }
            }
            found.push(format!("{}:\n{}", src.display(), lines.join("\n")));
        }
    }
    assert!(found.is_empty(), "import circles between folders:\n{}", found.join("\n"));
}

/// A circle between two folders whose files make none is found: on a crate of the test's own making.
#[test]
fn a_circle_between_folders_made_by_hand_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    for folder in ["x", "y"] {
        std::fs::create_dir_all(src.join(folder)).unwrap();
    }
    std::fs::write(src.join("lib.rs"), "mod x;\nmod y;\n").unwrap();
    std::fs::write(src.join("x/mod.rs"), "mod a;\nmod d;\n").unwrap();
    std::fs::write(src.join("y/mod.rs"), "mod b;\nmod c;\n").unwrap();
    std::fs::write(src.join("x/a.rs"), "fn f() { crate::y::b::g() }\n").unwrap();
    std::fs::write(src.join("y/b.rs"), "pub fn g() {}\n").unwrap();
    std::fs::write(src.join("y/c.rs"), "fn h() { crate::x::d::k() }\n").unwrap();
    std::fs::write(src.join("x/d.rs"), "pub fn k() {}\n").unwrap();
    let (_, graph) = arrows(&src);
    assert!(circles(&graph).is_empty(), "no circle between files: {graph:?}");
    let groups = group_arrows(&graph);
    let plain: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> =
        groups.iter().map(|(a, tos)| (a.clone(), tos.keys().cloned().collect())).collect();
    let m = |s: &str| vec![s.to_string()];
    assert_eq!(circles(&plain), vec![vec![m("x"), m("y")]], "{groups:?}");
    assert_eq!(groups[&m("x")][&m("y")], BTreeSet::from(["x/a".to_string()]));
}

/// The test sees an arrow where one is, and a circle where two files name each other: on a crate of
/// its own making.
#[test]
fn a_circle_made_by_hand_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("snapshot")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\nmod snapshot;\npub use a::Thing;\n").unwrap();
    std::fs::write(
        src.join("a.rs"),
        "use crate::b::other;\n// crate::snapshot::X in a comment\npub struct Thing;\n",
    )
    .unwrap();
    std::fs::write(
        src.join("b.rs"),
        "pub fn other() {}\npub mod inner { use super::*; fn g() { other() } }\n",
    )
    .unwrap();
    std::fs::write(src.join("snapshot/mod.rs"), "mod walk;\npub(crate) use walk::X;\n").unwrap();
    std::fs::write(
        src.join("snapshot/walk.rs"),
        "pub(crate) const X: u8 = 1;\nfn f() { let _ = super::super::b::other(); }\n#[cfg(test)]\nmod tests { use crate::a::Thing; }\n",
    )
    .unwrap();
    let (_, graph) = arrows(&src);
    let m = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(graph[&m(&["a"])].contains(&m(&["b"])), "{graph:?}");
    assert!(graph[&m(&["snapshot", "walk"])].contains(&m(&["b"])), "{graph:?}");
    assert!(!graph.get(&m(&["a"])).unwrap().contains(&m(&["snapshot"])), "a comment is no arrow: {graph:?}");
    assert!(graph.get(&m(&["snapshot", "walk"])).unwrap().len() == 1, "a test is no arrow: {graph:?}");
    assert!(circles(&graph).is_empty(), "{graph:?}");
    // b names a's Thing through the crate root's re-export: a circle a <-> b.
    std::fs::write(src.join("b.rs"), "pub fn other() { let _ = crate::Thing; }\n").unwrap();
    let (_, graph) = arrows(&src);
    assert_eq!(circles(&graph), vec![vec![m(&["a"]), m(&["b"])]], "{graph:?}");
}

/// Issue 55 §2: the supervisor's request pipeline (the envelope, the session and its token, the
/// policy, the route, the common part of the result: `pipeline/runtime/mod.rs`, its `policy.rs` and
/// `context.rs`, and the session's queue) names no method of the API: what one method does beside
/// the others is in its handler (a dispatch entry, with its `after` step, or the runtime's own
/// handlers), its declaration or the route table, so a new method never adds a case here.
#[test]
fn the_request_pipeline_names_no_method() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/supervisor/src/pipeline");
    let mut found = Vec::new();
    for file in ["runtime/mod.rs", "runtime/policy.rs", "runtime/context.rs", "queue.rs", "call.rs"] {
        let code = code_of(&std::fs::read_to_string(src.join(file)).unwrap());
        for (at, _) in code.match_indices("Method::") {
            let rest = &code[at + "Method::".len()..];
            // A variant (`Method::PageGoto`), not `Method::ALL` or `Method::parse`.
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
            if name.chars().nth(1).is_some_and(|c| c.is_ascii_lowercase())
                && name.starts_with(char::is_uppercase)
            {
                found.push(format!("{file}: Method::{name}"));
            }
        }
    }
    assert!(found.is_empty(), "the request pipeline names methods:\n  {}", found.join("\n  "));
}

/// The most lines of code a source file of a crate has outside its tests (comments, blank lines and
/// the insides of string literals not counted): past it, a file holds more than one idea (issue 55 §3).
const MAX_CODE_LINES: usize = 600;

/// The lines of code of a file's `text`, as [`MAX_CODE_LINES`] counts them.
fn code_lines(text: &str) -> usize {
    code_of(text).lines().filter(|l| !l.trim().is_empty()).count()
}

#[test]
fn no_file_has_more_than_600_lines_of_code_outside_its_tests() {
    let mut long = Vec::new();
    for src in crate_sources() {
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for file in files {
            let n = code_lines(&std::fs::read_to_string(&file).unwrap());
            if n > MAX_CODE_LINES {
                long.push(format!("{}: {n} lines", file.display()));
            }
        }
    }
    assert!(long.is_empty(), "files over {MAX_CODE_LINES} lines of code:\n{}", long.join("\n"));
}

#[test]
fn a_long_file_made_by_hand_is_counted_without_its_comments_and_tests() {
    let code = "fn f() {}\n".repeat(MAX_CODE_LINES + 1);
    let text = format!("//! A module.\n\n{code}/// Doc.\n// Note.\n#[cfg(test)]\nmod tests {{\n{code}}}\n");
    assert_eq!(code_lines(&text), MAX_CODE_LINES + 1);
}
