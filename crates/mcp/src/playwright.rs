//! Playwright MCP's argument names, taken as ours.
//!
//! A model used to Playwright MCP (`@playwright/mcp` 0.0.83, the tools of
//! `packages/playwright-core/src/tools/backend/`) sends its names: `target` for the element, camelCase
//! (`promptText`, `textGone`, `fullPage`), `time` in seconds, `doubleClick`. Each such call was
//! refused as an unknown argument and cost the model a turn. They are translated here, before a
//! tool's arguments are checked; they are not listed in the tools' schemas (a tool definition is read
//! on every turn), and the server's instructions say so once ([`crate::INSTRUCTIONS`]).

use serde_json::{Map, Value};

/// Same meaning, another name: `(tool, Playwright MCP's name, ours)`.
const RENAMED: &[(&str, &str, &str)] = &[
    ("browser_handle_dialog", "promptText", "prompt_text"),
    ("browser_wait_for", "textGone", "text_gone"),
    ("browser_take_screenshot", "fullPage", "full_page"),
    ("browser_take_screenshot", "type", "format"),
    ("browser_emulate_media", "colorScheme", "color_scheme"),
    ("browser_emulate_media", "reducedMotion", "reduced_motion"),
    ("browser_emulate_media", "forcedColors", "forced_colors"),
    ("browser_mouse_click_xy", "clickCount", "click_count"),
    ("browser_mouse_drag_xy", "startX", "x"),
    ("browser_mouse_drag_xy", "startY", "y"),
    ("browser_mouse_drag_xy", "endX", "to_x"),
    ("browser_mouse_drag_xy", "endY", "to_y"),
    ("browser_mouse_wheel", "deltaX", "dx"),
    ("browser_mouse_wheel", "deltaY", "dy"),
    ("browser_network_requests", "static", "include_static"),
    ("browser_network_request", "index", "id"),
    ("browser_storage_state", "filename", "name"),
    ("browser_snapshot", "depth", "max_depth"),
    ("browser_file_upload", "paths", "files"),
    ("browser_set_storage_state", "filename", "name"),
    ("browser_verify_element_visible", "accessibleName", "name"),
    ("browser_route", "pattern", "url"),
    ("browser_route", "contentType", "content_type"),
    ("browser_unroute", "pattern", "url"),
];

/// Rewrites `args` of `tool` from Playwright MCP's names to ours, in place; `takes_ref`: the tool
/// names its element by `ref`/`selector` (its schema lists `ref`). Arguments that are already ours
/// are left as they are.
///
/// - `target` (a snapshot ref such as `e5`, else a selector, as Playwright MCP's `targetLocator`
///   tells them apart): `ref` or `selector`; `browser_snapshot`'s is its `scope`; `browser_drag`'s
///   `startTarget`/`endTarget` are `from`/`to` (`startElement`/`endElement` are descriptions, dropped
///   as `element` is).
/// - `browser_click {doubleClick: true}`: `click_count: 2`; `browser_wait_for {time}` (seconds):
///   `time_ms`; `browser_network_state_set {state: "offline" | "online"}`: `offline`;
///   `browser_type {slowly}`: dropped (ours types key by key, as Playwright's `slowly` does).
/// - The rest (`promptText`, `textGone`, `fullPage`, `startX`, ...): the same value under our name.
///
/// # Errors
/// A line naming both names when a call gives Playwright MCP's and ours for the same argument, or a
/// value of the wrong type where it is converted (`time` not a number, `state` not offline/online).
pub fn translate(tool: &str, takes_ref: bool, args: &mut Map<String, Value>) -> Result<(), String> {
    for (of, theirs, ours) in RENAMED {
        if *of == tool {
            rename(args, theirs, ours)?;
        }
    }
    if tool == "browser_snapshot" {
        rename(args, "target", "scope")?;
    } else if takes_ref {
        if let Some(target) = args.remove("target") {
            if args.contains_key("ref") || args.contains_key("selector") {
                return Err("takes target, or ref or selector, not both".into());
            }
            let (key, value) = element(target)?;
            args.insert(key.into(), value);
        }
    }
    match tool {
        "browser_drag" => {
            for (theirs, ours, description) in
                [("startTarget", "from", "startElement"), ("endTarget", "to", "endElement")]
            {
                if let Some(target) = args.remove(theirs) {
                    if args.contains_key(ours) {
                        return Err(format!("takes {theirs} or {ours}, not both"));
                    }
                    let (key, value) = element(target)?;
                    args.insert(ours.into(), Value::Object(Map::from_iter([(key.to_string(), value)])));
                }
                if args.get(description).is_some_and(Value::is_string) {
                    args.remove(description);
                }
            }
        }
        "browser_click" => {
            if let Some(double) = args.remove("doubleClick") {
                if args.contains_key("click_count") {
                    return Err("takes doubleClick or click_count, not both".into());
                }
                match double {
                    Value::Bool(true) => {
                        args.insert("click_count".into(), 2.into());
                    }
                    Value::Bool(false) | Value::Null => {}
                    _ => return Err("doubleClick must be true or false".into()),
                }
            }
        }
        "browser_wait_for" => {
            if let Some(time) = args.remove("time") {
                if args.contains_key("time_ms") {
                    return Err("takes time (s) or time_ms, not both".into());
                }
                let seconds = time.as_f64().filter(|s| s.is_finite() && *s >= 0.0);
                let seconds = seconds.ok_or("time must be a number of seconds (or give time_ms)")?;
                // Whole ms; a value past any budget is the method's to refuse.
                args.insert("time_ms".into(), ((seconds * 1000.0).round() as u64).into());
            }
        }
        "browser_network_state_set" => {
            if let Some(state) = args.remove("state") {
                if args.contains_key("offline") {
                    return Err("takes state or offline, not both".into());
                }
                let offline = match state.as_str() {
                    Some("offline") => true,
                    Some("online") => false,
                    _ => {
                        return Err(
                            "state must be \"offline\" or \"online\" (or give offline: true/false)".into()
                        )
                    }
                };
                args.insert("offline".into(), offline.into());
            }
        }
        "browser_type" if args.get("slowly").is_some_and(Value::is_boolean) => {
            args.remove("slowly");
        }
        "browser_fill_form" => {
            // Each field as Playwright MCP gives it: `{name, type, target, value}` (`name` a
            // description, `type` what the field is; ours reads both from the element).
            if let Some(Value::Array(fields)) = args.get_mut("fields") {
                for field in fields.iter_mut().filter_map(Value::as_object_mut) {
                    if let Some(target) = field.remove("target") {
                        if field.contains_key("ref") || field.contains_key("selector") {
                            return Err("a field takes target, or ref or selector, not both".into());
                        }
                        let (key, value) = element(target)?;
                        field.insert(key.into(), value);
                        for described in ["name", "type"] {
                            if field.get(described).is_some_and(Value::is_string) {
                                field.remove(described);
                            }
                        }
                    }
                }
            }
        }
        // Playwright MCP's `{type, target, value}`: a checkbox's or radio's value is "true" or
        // "false", its checked state; the other types' (textbox, combobox, slider) their value.
        "browser_verify_value" => {
            if let Some(kind) = args.remove("type") {
                match kind.as_str() {
                    Some("checkbox" | "radio") => {
                        let checked = match args.remove("value") {
                            Some(Value::String(v)) if v == "true" || v == "false" => v == "true",
                            _ => return Err("a checkbox's or radio's value is \"true\" or \"false\"".into()),
                        };
                        if args.contains_key("checked") {
                            return Err("takes value or checked, not both".into());
                        }
                        args.insert("checked".into(), checked.into());
                    }
                    Some("textbox" | "combobox" | "slider") => {}
                    _ => return Err("type is one of textbox, checkbox, radio, combobox, slider".into()),
                }
            }
        }
        // Playwright MCP's `{headers: ["Name: Value"], removeHeaders: "a, b"}` are the request's (its
        // handler continues the request with them, and drops them when it fulfills: a body or a
        // status given); ours are `request_headers` and `remove_headers` (`headers` an object: the
        // response's).
        "browser_route" => {
            let fulfils = args.contains_key("body") || args.contains_key("status");
            if let Some(Value::Array(lines)) = args.get("headers").cloned() {
                args.remove("headers");
                let mut set = Map::new();
                for line in &lines {
                    let (name, value) = line
                        .as_str()
                        .and_then(|l| l.split_once(':'))
                        .filter(|(n, _)| !n.trim().is_empty())
                        .ok_or_else(|| format!("header {line}: expected \"Name: Value\""))?;
                    set.insert(name.trim().to_string(), Value::String(value.trim().to_string()));
                }
                if !fulfils {
                    args.insert("request_headers".into(), Value::Object(set));
                }
            }
            if let Some(remove) = args.remove("removeHeaders") {
                let names = remove.as_str().ok_or("removeHeaders is a comma-separated list of names")?;
                let names: Vec<Value> =
                    names.split(',').map(str::trim).filter(|n| !n.is_empty()).map(Value::from).collect();
                if !fulfils {
                    args.insert("remove_headers".into(), Value::Array(names));
                }
            }
        }
        "browser_navigate" => {
            if let Some(Value::String(url)) = args.get_mut("url") {
                if let Some(full) = with_scheme(url) {
                    *url = full;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// A `browser_navigate` URL without a scheme (`example.com/docs`, `localhost:3000`), with one: as
/// Playwright MCP's `checkUrlAndNavigate`, `https://`, and `http://` for `localhost` (ours: and for
/// the loopback addresses, `127.x.x.x` and `[::1]`, where a development server answers plain HTTP).
/// `None` for a URL that has a scheme (`https:`, `about:`, `data:`; a `host:port` is not one) or
/// that does not start as a host does (`/path`, an empty string): the page's policy and the URL
/// check answer those.
fn with_scheme(url: &str) -> Option<String> {
    let url = url.trim();
    if !url.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '[') {
        return None;
    }
    if let Some((scheme, rest)) = url.split_once(':') {
        let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
        if is_scheme && !rest.starts_with(|c: char| c.is_ascii_digit()) && !scheme.contains('.') {
            return None;
        }
    }
    let host = url.split(['/', '?', '#']).next().unwrap_or_default();
    let host = if host.starts_with('[') {
        host.split(']').next().unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or_default()
    };
    let loopback = host.eq_ignore_ascii_case("localhost") || host.starts_with("127.") || host == "[::1";
    Some(format!("{}://{url}", if loopback { "http" } else { "https" }))
}

/// `args[theirs]` moved to `args[ours]`.
fn rename(args: &mut Map<String, Value>, theirs: &str, ours: &str) -> Result<(), String> {
    if let Some(value) = args.remove(theirs) {
        if args.contains_key(ours) {
            return Err(format!("takes {theirs} or {ours}, not both"));
        }
        args.insert(ours.into(), value);
    }
    Ok(())
}

/// A Playwright MCP `target` as our element argument: `("ref", "e5")` for a snapshot ref (`e5`, or
/// Playwright MCP's frame form `f1e5`, as its `targetLocator` matches them), else `("selector", ..)`.
fn element(target: Value) -> Result<(&'static str, Value), String> {
    let Some(text) = target.as_str() else {
        return Err("target must be a string: a ref from the snapshot (e5) or a selector".into());
    };
    let is_ref = {
        let rest = text.strip_prefix('f').map_or(Some(text), |r| {
            let digits = r.len() - r.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            (digits > 0).then(|| &r[digits..])
        });
        rest.and_then(|r| r.strip_prefix('e'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    Ok((if is_ref { "ref" } else { "selector" }, target))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn translated(tool: &str, takes_ref: bool, args: Value) -> Result<Value, String> {
        let Value::Object(mut args) = args else { unreachable!() };
        translate(tool, takes_ref, &mut args).map(|()| Value::Object(args))
    }

    #[test]
    fn a_form_field_as_playwright_mcp_gives_it() {
        let fields = json!({"fields": [
            {"name": "Email", "type": "textbox", "target": "e5", "value": "a@b.c"},
            {"name": "Agree", "type": "checkbox", "target": "#agree", "value": "true"},
            {"ref": "e7", "value": "x"},
        ]});
        assert_eq!(
            translated("browser_fill_form", false, fields).unwrap(),
            json!({"fields": [
                {"ref": "e5", "value": "a@b.c"},
                {"selector": "#agree", "value": "true"},
                {"ref": "e7", "value": "x"},
            ]})
        );
        assert_eq!(
            translated("browser_snapshot", false, json!({"depth": 2})).unwrap(),
            json!({"max_depth": 2})
        );
        assert_eq!(
            translated("browser_file_upload", false, json!({"paths": ["a.csv"]})).unwrap(),
            json!({"files": ["a.csv"]})
        );
        let both = json!({"fields": [{"target": "e5", "ref": "e5", "value": "x"}]});
        assert!(translated("browser_fill_form", false, both).unwrap_err().contains("not both"));
    }

    #[test]
    fn a_url_without_a_scheme_gets_one() {
        let t =
            |url: &str| translated("browser_navigate", false, json!({"url": url})).unwrap()["url"].clone();
        for (given, taken) in [
            ("example.com", "https://example.com"),
            ("docs.python.org/3/library", "https://docs.python.org/3/library"),
            ("example.com:8443/x", "https://example.com:8443/x"),
            ("localhost:3000", "http://localhost:3000"),
            ("localhost", "http://localhost"),
            ("127.0.0.1:8000/a.html", "http://127.0.0.1:8000/a.html"),
            ("[::1]:8080/", "http://[::1]:8080/"),
            ("asdfasdf", "https://asdfasdf"),
            ("https://example.com", "https://example.com"),
            ("about:blank", "about:blank"),
            ("data:text/html,hi", "data:text/html,hi"),
            ("javascript:alert(1)", "javascript:alert(1)"),
            ("/a.html", "/a.html"),
            ("", ""),
        ] {
            assert_eq!(t(given), json!(taken), "{given}");
        }
    }

    #[test]
    fn a_target_is_a_ref_or_a_selector() {
        let t = |target: &str| {
            translated("browser_click", true, json!({"target": target, "element": "x"})).unwrap()
        };
        assert_eq!(t("e5"), json!({"ref": "e5", "element": "x"}));
        assert_eq!(t("f12e5"), json!({"ref": "f12e5", "element": "x"}));
        for selector in ["#go", "button", "e", "e5x", "fe5", "f1", "getByRole('button')"] {
            assert_eq!(t(selector), json!({"selector": selector, "element": "x"}), "{selector}");
        }
        assert_eq!(
            translated("browser_snapshot", false, json!({"target": "e3"})).unwrap(),
            json!({"scope": "e3"})
        );
        assert_eq!(
            translated(
                "browser_drag",
                true,
                json!({"startElement": "a", "startTarget": "e1", "endElement": "b", "endTarget": "#to"})
            )
            .unwrap(),
            json!({"from": {"ref": "e1"}, "to": {"selector": "#to"}})
        );
        // A tool that names no element keeps `target` (and refuses it as unknown).
        assert_eq!(
            translated("browser_navigate", false, json!({"target": "e1"})).unwrap(),
            json!({"target": "e1"})
        );
    }

    #[test]
    fn names_and_units_become_ours() {
        let cases = [
            (
                "browser_click",
                json!({"target": "e2", "doubleClick": true}),
                json!({"ref": "e2", "click_count": 2}),
            ),
            ("browser_click", json!({"target": "e2", "doubleClick": false}), json!({"ref": "e2"})),
            ("browser_wait_for", json!({"time": 1.5}), json!({"time_ms": 1500})),
            ("browser_wait_for", json!({"textGone": "Loading"}), json!({"text_gone": "Loading"})),
            (
                "browser_handle_dialog",
                json!({"accept": true, "promptText": "Ann"}),
                json!({"accept": true, "prompt_text": "Ann"}),
            ),
            (
                "browser_take_screenshot",
                json!({"fullPage": true, "type": "jpeg"}),
                json!({"full_page": true, "format": "jpeg"}),
            ),
            (
                "browser_emulate_media",
                json!({"colorScheme": "dark", "reducedMotion": "no-preference", "forcedColors": "active"}),
                json!({"color_scheme": "dark", "reduced_motion": "no-preference", "forced_colors": "active"}),
            ),
            ("browser_network_state_set", json!({"state": "offline"}), json!({"offline": true})),
            ("browser_network_state_set", json!({"state": "online"}), json!({"offline": false})),
            (
                "browser_mouse_drag_xy",
                json!({"startX": 1, "startY": 2, "endX": 3, "endY": 4}),
                json!({"x": 1, "y": 2, "to_x": 3, "to_y": 4}),
            ),
            ("browser_mouse_wheel", json!({"deltaX": 0, "deltaY": 100}), json!({"dx": 0, "dy": 100})),
            (
                "browser_mouse_click_xy",
                json!({"x": 1, "y": 2, "clickCount": 2}),
                json!({"x": 1, "y": 2, "click_count": 2}),
            ),
            ("browser_network_requests", json!({"static": true}), json!({"include_static": true})),
            ("browser_storage_state", json!({"filename": "s.json"}), json!({"name": "s.json"})),
            (
                "browser_type",
                json!({"target": "e4", "text": "hi", "slowly": true}),
                json!({"ref": "e4", "text": "hi"}),
            ),
            (
                "browser_verify_element_visible",
                json!({"role": "button", "accessibleName": "Save"}),
                json!({"role": "button", "name": "Save"}),
            ),
            (
                "browser_verify_value",
                json!({"type": "checkbox", "target": "e5", "value": "false"}),
                json!({"ref": "e5", "checked": false}),
            ),
            (
                "browser_verify_value",
                json!({"type": "textbox", "target": "e6", "value": "Ada"}),
                json!({"ref": "e6", "value": "Ada"}),
            ),
            (
                "browser_verify_list_visible",
                json!({"target": "e7", "items": ["a", "b"]}),
                json!({"ref": "e7", "items": ["a", "b"]}),
            ),
            // Ours, as they are.
            ("browser_click", json!({"ref": "e2", "click_count": 3}), json!({"ref": "e2", "click_count": 3})),
        ];
        for (tool, theirs, ours) in cases {
            let takes_ref = ours.get("ref").is_some();
            assert_eq!(translated(tool, takes_ref, theirs.clone()), Ok(ours), "{tool} {theirs}");
        }
    }

    #[test]
    fn both_names_or_a_wrong_value_are_refused() {
        let refused = [
            (
                "browser_click",
                json!({"target": "e2", "ref": "e3"}),
                "takes target, or ref or selector, not both",
            ),
            (
                "browser_click",
                json!({"doubleClick": true, "click_count": 1}),
                "takes doubleClick or click_count, not both",
            ),
            (
                "browser_handle_dialog",
                json!({"promptText": "a", "prompt_text": "b"}),
                "takes promptText or prompt_text, not both",
            ),
            (
                "browser_wait_for",
                json!({"time": "soon"}),
                "time must be a number of seconds (or give time_ms)",
            ),
            ("browser_wait_for", json!({"time": -1}), "time must be a number of seconds (or give time_ms)"),
            (
                "browser_network_state_set",
                json!({"state": "flaky"}),
                "state must be \"offline\" or \"online\" (or give offline: true/false)",
            ),
            (
                "browser_click",
                json!({"target": 5}),
                "target must be a string: a ref from the snapshot (e5) or a selector",
            ),
        ];
        for (tool, args, why) in refused {
            assert_eq!(translated(tool, true, args.clone()), Err(why.to_string()), "{tool} {args}");
        }
    }
}
