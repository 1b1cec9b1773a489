//! The tool table: each MCP tool, the capability group it belongs to, and the API method it calls.
//!
//! Names follow Playwright MCP's where the action means the same (`browser_navigate`, `browser_click`,
//! ...); tools of ours with no Playwright MCP counterpart use the same `browser_` style. A method's own
//! tool (its params as the tool's arguments) is declared with the method, name and group
//! (`sb_protocol::api::Method::tool`); the tools MCP adds beside it (some params fixed, a narrower
//! schema) are declared here. Input schemas come from the protocol's parameter types (one source of
//! truth); every tool also takes `timeout_ms`, which the server's instructions describe once.

use sb_protocol::api::{
    CheckParams, ClickParams, ConsoleParams, CookieParam, DragParams, ElementParams, EmulateParams,
    EvaluateParams, ExtractParams, FillFormParams, GotoParams, HandleDialogParams, Method, MouseButton,
    NetworkParams, PdfParams, PressParams, Route, ScreenshotParams, ScrollParams, SelectParams,
    SetViewportParams, SnapshotParams, TypeParams, UnrouteParams, UploadParams, VerifyParams, WaitForParams,
};
use sb_protocol::fields::NoParams;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;

use crate::schema::{input_schema, params_schema};

/// A group of tools a deployment can leave out (`--caps`): the protocol's [`sb_protocol::api::ToolGroup`], where each
/// method's own tool is declared with its group.
pub use sb_protocol::api::ToolGroup as Cap;

/// What a tool does when called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// One API method, the tool's arguments (less `timeout_ms`) as its params.
    Call(Method),
    /// `browser_tabs`: `tabs.list` / `tabs.open` / `tabs.focus` / `tabs.close` by `action`.
    Tabs,
    /// `browser_close`: `session.close`; the next tool starts a new session.
    Close,
    /// One API method with some params the tool fixes (the tool's arguments, less `timeout_ms`, and
    /// those): `browser_cookie_list` is `session.cookies {action: "get"}`, `browser_mouse_click_xy`
    /// `page.mouse {action: "click"}`, `browser_localstorage_set` `page.storage {kind: "local",
    /// action: "set"}`, `browser_verify_element_visible` `page.verify {visible: true}` (a fixed value
    /// is [`fixed_value`]).
    CallWith(Method, &'static [(&'static str, &'static str)]),
}

/// A value a [`Action::CallWith`] tool fixes, as its param gets it: `true`, `false` and numbers as
/// themselves, anything else as a string (`"get"`).
pub fn fixed_value(value: &str) -> Value {
    match serde_json::from_str::<Value>(value) {
        Ok(v @ (Value::Bool(_) | Value::Number(_))) => v,
        _ => Value::String(value.to_string()),
    }
}

/// One tool.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// The MCP tool name, as Playwright MCP names the same action (`browser_click`).
    pub name: &'static str,
    /// The capability group that turns it on (`--caps`).
    pub cap: Cap,
    /// MCP `description`: what the model reads.
    pub description: Cow<'static, str>,
    /// What it calls on the socket API.
    pub action: Action,
    /// MCP `inputSchema`.
    pub schema: Map<String, Value>,
    /// Whether the tool only reads (MCP's `readOnlyHint`).
    pub read_only: bool,
}

/// `browser_tabs` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TabsArgs {
    /// list, new, select or close
    pub action: TabsAction,
    /// For select/close: a tab's target_id from list (a unique prefix is enough).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
    /// For new: where the tab goes (about:blank by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `browser_tabs` actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TabsAction {
    /// List the session's tabs.
    List,
    /// Open a new tab (the active one from now on).
    New,
    /// Make a tab the active one.
    Select,
    /// Close a tab.
    Close,
}

/// `browser_mouse_move_xy` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct XyArgs {
    /// X, CSS px from the viewport's left.
    pub x: f64,
    /// Y, CSS px from the viewport's top.
    pub y: f64,
}

/// `browser_mouse_click_xy` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClickXyArgs {
    /// X, CSS px from the viewport's left.
    pub x: f64,
    /// Y, CSS px from the viewport's top.
    pub y: f64,
    /// left (default), right or middle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// 2 for a double click.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub click_count: Option<u32>,
}

/// `browser_mouse_drag_xy` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DragXyArgs {
    /// Start X, CSS px.
    pub x: f64,
    /// Start Y, CSS px.
    pub y: f64,
    /// End X, CSS px.
    pub to_x: f64,
    /// End Y, CSS px.
    pub to_y: f64,
}

/// `browser_mouse_down` / `_up` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ButtonArgs {
    /// left (default), right or middle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
}

/// `browser_mouse_wheel` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WheelArgs {
    /// Horizontal delta, px.
    #[serde(default)]
    pub dx: f64,
    /// Vertical delta, px.
    #[serde(default)]
    pub dy: f64,
}

/// `browser_keydown` / `browser_keyup` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KeyArgs {
    /// A key name or character (ArrowLeft, Shift, a).
    pub key: String,
}

/// The storage `_get` / `_delete` tools' arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ItemKeyArgs {
    /// The item's key.
    pub key: String,
}

/// `browser_localstorage_set` / `browser_sessionstorage_set` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KeyValueArgs {
    /// The item's key.
    pub key: String,
    /// Its value.
    pub value: String,
}

/// `browser_storage_state` / `browser_set_storage_state` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StateFileArgs {
    /// A plain file name: saved under the artifacts dir (default `state-<session>.json`); loaded from
    /// the uploads dir, else the artifacts dir.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `browser_cookie_get` / `browser_cookie_delete` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CookieNameArgs {
    /// The cookie's name.
    pub name: String,
}

/// `browser_network_state_set` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OfflineArgs {
    /// true: offline; false: online.
    pub offline: bool,
}

/// `browser_cookie_list` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CookieListArgs {
    /// Only the cookies a request to one of these URLs would send; absent: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urls: Option<Vec<String>>,
}

/// `browser_cookie_set` arguments.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CookieSetArgs {
    /// The cookies to add: each with url, or domain and path.
    pub cookies: Vec<CookieParam>,
}

/// `browser_close` takes nothing (but `timeout_ms`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NoArgs {}

/// Every tool, in the order `tools/list` gives them: the table's (`written`), then those of the
/// methods declared with a tool that the table does not write out (`declared`).
pub fn all() -> Vec<ToolDef> {
    let mut tools = written();
    tools.extend(declared(&tools));
    tools
}

/// The tool of each method declared with one (`tool: "browser_x" in Group`, [`Method::tool`]) that
/// `written` does not hold: its params as its arguments ([`params_schema`]), its description the
/// declaration's words ([`about`]), read-only when the method only reads. A method added with its
/// tool needs no line here.
fn declared(written: &[ToolDef]) -> Vec<ToolDef> {
    let declared = Method::ALL.into_iter().filter_map(|m| m.tool().map(|(name, cap)| (m, name, cap)));
    declared
        .filter(|(_, name, _)| !written.iter().any(|t| t.name == *name))
        .map(|(m, name, cap)| ToolDef {
            name,
            cap,
            description: about(m).into(),
            action: Action::Call(m),
            schema: params_schema(m),
            read_only: m.reads_only(),
        })
        .collect()
}

/// What a method does, from its declaration's doc comment (`` `page.x {..}` -> [`XResult`]: what it
/// does: how ``): its first clause after the signature, as a sentence, with rustdoc's links as plain
/// code. A tool's description is read on every turn: the rest stays in the API's docs.
fn about(method: Method) -> String {
    let doc = method.description().split_whitespace().collect::<Vec<_>>().join(" ");
    let words = doc.split_once("]: ").map_or(doc.as_str(), |(_, rest)| rest);
    let clause = words.split([':', ';']).next().unwrap_or(words).trim_end_matches('.');
    let clause = clause.replace("[`", "`").replace("`]", "`");
    let mut chars = clause.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>() + ".").unwrap_or_default()
}

/// The tools written out: those whose arguments or words are not the method's as declared (a fixed
/// param, a narrower schema, words of their own), in the order `tools/list` gives them.
fn written() -> Vec<ToolDef> {
    use Action::{Call, CallWith};
    fn def(
        name: &'static str,
        cap: Cap,
        action: Action,
        read_only: bool,
        description: &'static str,
        schema: Map<String, Value>,
    ) -> ToolDef {
        ToolDef { name, cap, description: description.into(), action, schema, read_only }
    }
    // A method's own tool: its name and group are the method's declaration's (`Method::tool`).
    fn own(
        method: Method,
        read_only: bool,
        description: &'static str,
        schema: Map<String, Value>,
    ) -> ToolDef {
        let Some((name, cap)) = method.tool() else {
            unreachable!("{} is declared without its MCP tool", method.name())
        };
        def(name, cap, Call(method), read_only, description, schema)
    }
    vec![
        own(Method::PageGoto, false,
            "Go to a URL; waits for the page to load.", input_schema::<GotoParams>()),
        own(Method::PageBack, false,
            "Go back to the previous page of the tab's history; waits for it to load.", input_schema::<NoParams>()),
        own(Method::PageForward, false,
            "Go forward to the next page of the tab's history; waits for it to load.", input_schema::<NoParams>()),
        own(Method::PageReload, false,
            "Reload the page; waits for it to load.", input_schema::<NoParams>()),
        own(Method::PageSnapshot, true,
            "The page as an aria snapshot: roles, names and [ref=eN] refs for the other tools. Take one before acting.",
            input_schema::<SnapshotParams>()),
        own(Method::PageClick, false,
            "Click an element (ref from the snapshot, or a selector: CSS or Playwright's, e.g. getByRole('button', { name: 'Save' })).", input_schema::<ClickParams>()),
        own(Method::PageType, false,
            "Type text into an element key by key.", input_schema::<TypeParams>()),
        own(Method::PageFillForm, false,
            "Fill several fields: text filled, checkbox/radio by \"true\"/\"false\", select by value or label.",
            input_schema::<FillFormParams>()),
        own(Method::PagePress, false,
            "Press a key or chord on an element, or on the focused one.", input_schema::<PressParams>()),
        own(Method::PageUpload, false,
            "Set the files of a file input, by name, from the runtime's uploads directory.",
            input_schema::<UploadParams>()),
        own(Method::PageSelect, false,
            "Select options of a <select>.", input_schema::<SelectParams>()),
        own(Method::PageCheck, false,
            "Check or uncheck a checkbox or radio button.", input_schema::<CheckParams>()),
        own(Method::PageHover, false,
            "Move the mouse over an element.", input_schema::<ElementParams>()),
        own(Method::PageDrag, false,
            "Drag one element onto another.", input_schema::<DragParams>()),
        own(Method::PageScroll, false,
            "Scroll an element into view, or the page by dx/dy px.", input_schema::<ScrollParams>()),
        own(Method::PageWaitFor, true,
            "Wait for one condition: text to appear or go, a selector's state, a URL, a load state, a JS condition, a response, a download, a popup, a dialog, or a time.",
            input_schema::<WaitForParams>()),
        own(Method::PageExtract, true,
            "The page's text (or HTML).", input_schema::<ExtractParams>()),
        def("browser_tabs", Cap::Core, Action::Tabs, false,
            "List, open, select or close tabs.", input_schema::<TabsArgs>()),
        own(Method::PageHandleDialog, false,
            "How to answer the next alert/confirm/prompt (dialogs are answered at once; results list them).",
            input_schema::<HandleDialogParams>()),
        own(Method::PageSetViewport, false,
            "Set the viewport size, CSS px.", input_schema::<SetViewportParams>()),
        own(Method::PageEmulate, false,
            "Emulate the media type (screen, print) and prefers-color-scheme, prefers-reduced-motion, forced-colors, prefers-contrast for the session's pages.",
            only(input_schema::<EmulateParams>(), &["color_scheme", "reduced_motion", "forced_colors", "contrast", "media"])),
        def("browser_network_state_set", Cap::Network, Call(Method::PageEmulate), false,
            "Take the session's pages offline (every request fails) or back online.",
            input_schema::<OfflineArgs>()),
        own(Method::PageConsole, true,
            "The active tab's console messages and uncaught errors (level: error, warning, info, debug).",
            input_schema::<ConsoleParams>()),
        own(Method::PageNetwork, true,
            "The active tab's requests: method, URL, status or failure (static resources only with include_static).",
            without(input_schema::<NetworkParams>(), "id")),
        def("browser_network_request", Cap::Network, Call(Method::PageNetwork), true,
            "One request's details: its headers and body, the response's status, headers and body (cut at 64 KiB). id: from browser_network_requests.",
            required(only(input_schema::<NetworkParams>(), &["id"]), &["id"])),
        // Playwright MCP's route tools (tools/backend/route.ts), on the session's context as there.
        own(Method::PageRoute, false,
            "Mock requests whose URL matches, in every tab: fulfill, abort or continue them changed.",
            only(input_schema::<Route>(), &["url", "status", "content_type", "body", "error", "request_headers", "remove_headers"])),
        own(Method::PageRoutes, true,
            "List the session's routes.", input_schema::<NoArgs>()),
        own(Method::PageUnroute, false,
            "Remove the routes of a url pattern, or all.", input_schema::<UnrouteParams>()),
        def("browser_close", Cap::Core, Action::Close, false,
            "Close the browser session; the next tool starts a fresh one.", input_schema::<NoArgs>()),
        own(Method::PageEvaluate, false,
            "Run JavaScript in the page: an expression, or a function given the element named by ref/selector and arg (JSON).",
            input_schema::<EvaluateParams>()),
        own(Method::PageScreenshot, true,
            "Capture the viewport, the full page, a region or an element as an image.",
            without(input_schema::<ScreenshotParams>(), "inline")),
        def("browser_cookie_list", Cap::Storage, CallWith(Method::SessionCookies, &[("action", "get")]), true,
            "List the session's cookies (optionally those sent to some URLs).", input_schema::<CookieListArgs>()),
        def("browser_cookie_set", Cap::Storage, CallWith(Method::SessionCookies, &[("action", "set")]), false,
            "Add cookies to the session.", input_schema::<CookieSetArgs>()),
        def("browser_cookie_clear", Cap::Storage, CallWith(Method::SessionCookies, &[("action", "clear")]), false,
            "Delete every cookie of the session.", input_schema::<NoArgs>()),
        def("browser_mouse_move_xy", Cap::Vision, CallWith(Method::PageMouse, &[("action", "move")]), false,
            "Move the mouse to x, y (CSS px in the viewport).", input_schema::<XyArgs>()),
        def("browser_mouse_click_xy", Cap::Vision, CallWith(Method::PageMouse, &[("action", "click")]), false,
            "Click at x, y (CSS px in the viewport).", input_schema::<ClickXyArgs>()),
        def("browser_mouse_drag_xy", Cap::Vision, CallWith(Method::PageMouse, &[("action", "drag")]), false,
            "Drag from x, y to to_x, to_y (CSS px in the viewport).", input_schema::<DragXyArgs>()),
        def("browser_mouse_down", Cap::Vision, CallWith(Method::PageMouse, &[("action", "down")]), false,
            "Press a mouse button where the mouse is.", input_schema::<ButtonArgs>()),
        def("browser_mouse_up", Cap::Vision, CallWith(Method::PageMouse, &[("action", "up")]), false,
            "Release a mouse button where the mouse is.", input_schema::<ButtonArgs>()),
        def("browser_mouse_wheel", Cap::Vision, CallWith(Method::PageMouse, &[("action", "wheel")]), false,
            "Turn the mouse wheel by dx, dy px.", input_schema::<WheelArgs>()),
        def("browser_keydown", Cap::Vision, CallWith(Method::PageKeyboard, &[("action", "down")]), false,
            "Press a key down (held until browser_keyup), e.g. Shift or a.", input_schema::<KeyArgs>()),
        def("browser_keyup", Cap::Vision, CallWith(Method::PageKeyboard, &[("action", "up")]), false,
            "Release a key.", input_schema::<KeyArgs>()),
        def("browser_cookie_get", Cap::Storage, CallWith(Method::SessionCookies, &[("action", "get")]), true,
            "Get the session's cookies of a name.", input_schema::<CookieNameArgs>()),
        def("browser_cookie_delete", Cap::Storage, CallWith(Method::SessionCookies, &[("action", "delete")]), false,
            "Delete the session's cookies of a name.", input_schema::<CookieNameArgs>()),
        def("browser_localstorage_list", Cap::Storage, CallWith(Method::PageStorage, &[("kind", "local")]), true,
            "List the localStorage items of the page's origin.", input_schema::<NoArgs>()),
        def("browser_localstorage_get", Cap::Storage, CallWith(Method::PageStorage, &[("kind", "local")]), true,
            "Get a localStorage item by key.", input_schema::<ItemKeyArgs>()),
        def("browser_localstorage_set", Cap::Storage, CallWith(Method::PageStorage, &[("kind", "local"), ("action", "set")]), false,
            "Set a localStorage item.", input_schema::<KeyValueArgs>()),
        def("browser_localstorage_delete", Cap::Storage, CallWith(Method::PageStorage, &[("kind", "local"), ("action", "delete")]), false,
            "Delete a localStorage item.", input_schema::<ItemKeyArgs>()),
        def("browser_localstorage_clear", Cap::Storage, CallWith(Method::PageStorage, &[("kind", "local"), ("action", "clear")]), false,
            "Clear the page origin's localStorage.", input_schema::<NoArgs>()),
        def("browser_sessionstorage_list", Cap::Storage, CallWith(Method::PageStorage, &[("kind", "session")]), true,
            "List the sessionStorage items of the page.", input_schema::<NoArgs>()),
        def("browser_sessionstorage_get", Cap::Storage, CallWith(Method::PageStorage, &[("kind", "session")]), true,
            "Get a sessionStorage item by key.", input_schema::<ItemKeyArgs>()),
        def("browser_sessionstorage_set", Cap::Storage, CallWith(Method::PageStorage, &[("kind", "session"), ("action", "set")]), false,
            "Set a sessionStorage item.", input_schema::<KeyValueArgs>()),
        def("browser_sessionstorage_delete", Cap::Storage, CallWith(Method::PageStorage, &[("kind", "session"), ("action", "delete")]), false,
            "Delete a sessionStorage item.", input_schema::<ItemKeyArgs>()),
        def("browser_sessionstorage_clear", Cap::Storage, CallWith(Method::PageStorage, &[("kind", "session"), ("action", "clear")]), false,
            "Clear the page's sessionStorage.", input_schema::<NoArgs>()),
        def("browser_storage_state", Cap::Storage, CallWith(Method::SessionStorageState, &[("action", "save")]), true,
            "Save cookies and localStorage to a file (Playwright's storageState format).", input_schema::<StateFileArgs>()),
        def("browser_set_storage_state", Cap::Storage, CallWith(Method::SessionStorageState, &[("action", "load")]), false,
            "Load cookies and localStorage from a storage state file.", input_schema::<StateFileArgs>()),
        def("browser_start_tracing", Cap::Devtools, CallWith(Method::SessionTrace, &[("action", "start")]), true,
            "Start trace recording.", input_schema::<NoArgs>()),
        def("browser_stop_tracing", Cap::Devtools, CallWith(Method::SessionTrace, &[("action", "stop")]), true,
            "Stop trace recording; write its HTML report.", input_schema::<NoArgs>()),
        own(Method::PagePdf, false,
            "Save the page as a PDF (print media) under the artifacts directory.", input_schema::<PdfParams>()),
        // Playwright MCP's `testing` group (tools/backend/verify.ts): the same four checks, each the
        // page as it is now.
        def("browser_verify_element_visible", Cap::Testing, CallWith(Method::PageVerify, &[("visible", "true")]), true,
            "Verify an element (by role and accessible name) is visible.",
            required(only(input_schema::<VerifyParams>(), &["role", "name"]), &["role", "name"])),
        def("browser_verify_text_visible", Cap::Testing, Call(Method::PageVerify), true,
            "Verify text is visible on the page.",
            required(only(input_schema::<VerifyParams>(), &["text"]), &["text"])),
        def("browser_verify_list_visible", Cap::Testing, Call(Method::PageVerify), true,
            "Verify a list shows each of items.",
            required(only(input_schema::<VerifyParams>(), &["element", "ref", "selector", "items"]), &["items"])),
        def("browser_verify_value", Cap::Testing, Call(Method::PageVerify), true,
            "Verify an input's value, or a checkbox's or radio's checked state.",
            only(input_schema::<VerifyParams>(), &["element", "ref", "selector", "value", "checked"])),
    ]
}

/// `schema` with only `properties`: a tool that takes some of a method's parameters, described as
/// the method describes them.
fn only(mut schema: Map<String, Value>, properties: &[&str]) -> Map<String, Value> {
    if let Some(Value::Object(all)) = schema.get_mut("properties") {
        all.retain(|name, _| properties.contains(&name.as_str()));
    }
    schema
}

/// `schema` with `names` required.
fn required(mut schema: Map<String, Value>, names: &[&str]) -> Map<String, Value> {
    let list = schema.entry("required").or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(list) = list {
        list.extend(names.iter().map(|n| Value::String(n.to_string())));
    }
    schema
}

/// `schema` less one property (one the server sets itself, or one another tool offers).
fn without(mut schema: Map<String, Value>, property: &str) -> Map<String, Value> {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.remove(property);
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_schemas_are_objects() {
        let tools = all();
        let mut names: Vec<_> = tools.iter().map(|t| t.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), tools.len());
        for t in &tools {
            assert_eq!(t.schema["type"], "object", "{}", t.name);
            assert!(
                t.schema["properties"].get("timeout_ms").is_none(),
                "said once, in the instructions: {}",
                t.name
            );
        }
    }

    /// Every tool calls a method of the API with parameters it takes: each argument a tool offers
    /// (less `timeout_ms`, which is the request's) and each it fixes is a parameter of its method, so
    /// a parameter renamed or removed in the protocol fails here, not in a model's call.
    #[test]
    fn every_tool_maps_to_a_method_and_its_params() {
        for t in all() {
            let (method, fixed): (Method, &[(&str, &str)]) = match t.action {
                Action::Call(m) => (m, &[]),
                Action::CallWith(m, fixed) => (m, fixed),
                Action::Tabs | Action::Close => continue,
            };
            let mut params = Map::new();
            // `element` is the one argument of MCP's own (a description for a person, dropped).
            let own = |k: &&String| *k != "timeout_ms" && *k != crate::schema::ELEMENT;
            for name in t.schema["properties"].as_object().unwrap().keys().filter(own) {
                params.insert(name.clone(), Value::Null);
            }
            for (name, value) in fixed {
                params.insert(name.to_string(), fixed_value(value));
            }
            let checked = method.check_params(&Value::Object(params));
            assert!(checked.is_ok(), "{} -> {}: {}", t.name, method.name(), checked.unwrap_err());
        }
    }

    /// Issue 55 §1: a method's own tool is the one its declaration names, in the declared group,
    /// calling that method; every other tool (fixed params, a narrower schema for the same method) is
    /// MCP's own beside it. Tool names are unique.
    #[test]
    fn each_declared_tool_calls_its_method_in_its_group() {
        let tools = all();
        let mut names: Vec<&str> = tools.iter().map(|t| t.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a tool name twice");
        for m in Method::ALL {
            let Some((name, group)) = m.tool() else { continue };
            let found: Vec<&ToolDef> = tools.iter().filter(|t| t.name == name).collect();
            assert_eq!(found.len(), 1, "{}: its tool {name} is not in the table", m.name());
            assert_eq!((found[0].action, found[0].cap), (Action::Call(m), group), "{name}");
        }
    }

    /// A tool derived from its method's declaration takes the method's params as they are (the
    /// schema of its params type), says what the declaration says, and is read-only as the method is.
    #[test]
    fn a_declared_tool_is_derived_from_its_method() {
        let tools = all();
        let generate = tools.iter().find(|t| t.name == "browser_generate_locator").expect("declared");
        assert_eq!(generate.action, Action::Call(Method::PageGenerateLocator));
        assert_eq!(generate.schema, input_schema::<sb_protocol::api::GenerateLocatorParams>());
        assert_eq!(generate.description, "A locator for the element, as Playwright writes one for a test.");
        assert!(generate.read_only && !generate.description.contains("[`"), "{}", generate.description);
        // The params schema from the declaration is the params type's own, for every method.
        assert_eq!(params_schema(Method::PageConsole), input_schema::<ConsoleParams>());
        assert_eq!(params_schema(Method::PageClick), input_schema::<ClickParams>());
        assert_eq!(params_schema(Method::PageBack), input_schema::<NoParams>());
    }

    #[test]
    fn caps_parse_by_name() {
        assert_eq!("evaluate".parse::<Cap>(), Ok(Cap::Evaluate));
        assert_eq!("network".parse::<Cap>(), Ok(Cap::Network));
        assert!("nope".parse::<Cap>().unwrap_err().contains("core, evaluate, files, pdf, storage, network"));
    }
}
