//! Dispatch as data: what each API method does, one entry a method.
//!
//! A page method is a [`PageMethod`]: a pure `params -> Action` ([`PageMethod::prepare`], given what it
//! needs of its session through [`Context`]) and a pure `Output -> result` ([`PageMethod::finish`]).
//! Neither touches a browser, so both are unit-tested here without Chromium; the runtime runs the
//! action in the session's queue between them. Methods that are not page actions the runtime answers
//! itself: without a session ([`RuntimeOp`]: `runtime.*`, `session.start`, `session.list`) or on one
//! ([`SessionOp`]: `session.close`, `tabs.*`). The route is total, so the runtime's handlers have no
//! arm for a method routed elsewhere.
//!
//! A worker method with nothing of its own to do here needs no entry: the route sends it to [`CALL`],
//! which checks its params by its declaration and hands them to the worker's handler of the method as
//! they are (`Action::Call`). A page method with supervisor-side work (refs to number, files to stage,
//! an artifact's path, a session setting to merge, an `after` step) has its entry in [`route`]. Every
//! parameter is checked in `prepare`, so a bad request answers `bad_request` before it waits in the
//! session's queue or triggers a health check.

mod emulation;
mod input;
mod method;
mod network;
mod page;

use sb_protocol::api::Method;
use serde_json::Value;

pub use self::emulation::check_emulation;
use self::emulation::*;
use self::input::*;
pub use self::method::{params, wait_condition, After, Context, Done, PageMethod, Supervised, CALL};
use self::network::*;
use self::page::*;

/// Where a method is answered.
pub enum Route {
    /// By the runtime itself, without a session.
    Runtime(RuntimeOp),
    /// On a session.
    Session(OnSession),
}

/// How a method on a session is answered.
pub enum OnSession {
    /// By the runtime itself.
    Op(SessionOp),
    /// By a page action in the session's worker.
    Page(&'static PageMethod),
}

impl Route {
    /// Whether the live view and the session's trace record the request: every request on a session
    /// but `session.trace`'s own.
    pub fn recorded(&self) -> bool {
        match self {
            Route::Runtime(_) => false,
            Route::Session(on) => !matches!(on, OnSession::Op(SessionOp::Trace)),
        }
    }
}

impl OnSession {
    /// Whether the request waits while a person holds the session in the live view: every one but
    /// closing and tracing the session.
    pub fn waits_for_a_person(&self) -> bool {
        !matches!(self, OnSession::Op(SessionOp::Close | SessionOp::Trace))
    }
}

/// The methods the runtime answers without a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeOp {
    /// `runtime.health`.
    Health,
    /// `runtime.stats`.
    Stats,
    /// `runtime.metrics`.
    Metrics,
    /// `session.start`.
    SessionStart,
    /// `session.list`.
    SessionList,
}

/// The methods the runtime answers on a session, without its worker's page action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionOp {
    /// `session.close`.
    Close,
    /// `tabs.list`.
    TabsList,
    /// `page.downloads`.
    Downloads,
    /// `tabs.open`.
    TabsOpen,
    /// `tabs.focus`.
    TabsFocus,
    /// `tabs.close`.
    TabsClose,
    /// `session.cookies`.
    Cookies,
    /// `session.storage_state`.
    StorageState,
    /// `session.trace`.
    Trace,
    /// `page.wait_for {download}`, `{popup}` and `{dialog}`: events the supervisor sees (a dialog of a
    /// tab it holds), or sees first.
    WaitForEvent,
}

/// The route of a request of `method` with `params`: [`route`]'s, but `page.wait_for` of a download
/// or a popup (which the supervisor sees, not the session's page) or of a dialog (which may open in a
/// tab the supervisor holds as well as in the worker's) is the runtime's.
pub fn route_call(method: Method, params: &Value) -> Route {
    let event = |name: &str| params.get(name) == Some(&Value::Bool(true));
    if method == Method::PageWaitFor && (event("download") || event("popup") || event("dialog")) {
        return Route::Session(OnSession::Op(SessionOp::WaitForEvent));
    }
    route(method)
}

/// The route of `method`: the dispatch table.
pub fn route(method: Method) -> Route {
    use Method::*;
    let entry: &'static PageMethod = match method {
        RuntimeHealth => return Route::Runtime(RuntimeOp::Health),
        RuntimeStats => return Route::Runtime(RuntimeOp::Stats),
        RuntimeMetrics => return Route::Runtime(RuntimeOp::Metrics),
        SessionStart => return Route::Runtime(RuntimeOp::SessionStart),
        SessionList => return Route::Runtime(RuntimeOp::SessionList),
        SessionClose => return Route::Session(OnSession::Op(SessionOp::Close)),
        SessionCookies => return Route::Session(OnSession::Op(SessionOp::Cookies)),
        SessionStorageState => return Route::Session(OnSession::Op(SessionOp::StorageState)),
        SessionTrace => return Route::Session(OnSession::Op(SessionOp::Trace)),
        TabsList => return Route::Session(OnSession::Op(SessionOp::TabsList)),
        PageDownloads => return Route::Session(OnSession::Op(SessionOp::Downloads)),
        TabsOpen => return Route::Session(OnSession::Op(SessionOp::TabsOpen)),
        TabsFocus => return Route::Session(OnSession::Op(SessionOp::TabsFocus)),
        TabsClose => return Route::Session(OnSession::Op(SessionOp::TabsClose)),
        PageGoto => &GOTO,
        PageBack => &BACK,
        PageForward => &FORWARD,
        PageReload => &RELOAD,
        PageScreenshot => &SCREENSHOT,
        PagePdf => &PDF,
        PageUpload => &UPLOAD,
        PageFillForm => &FILL_FORM,
        PageEvaluate => &EVALUATE,
        PageWaitFor => &WAIT_FOR,
        PageSnapshot => &SNAPSHOT,
        PageHandleDialog => &HANDLE_DIALOG,
        PageScroll => &SCROLL,
        PageDrag => &DRAG,
        PageSetViewport => &SET_VIEWPORT,
        PageEmulate => &EMULATE,
        PageNetwork => &NETWORK,
        PageRoute => &ROUTE,
        PageUnroute => &UNROUTE,
        PageRoutes => &ROUTES,
        SessionHar => &HAR,
        // Every other method is the worker's (the declaration says so; a test holds it), with
        // nothing of its own to do here: its declaration checks it, its worker handler runs it.
        _ => &CALL,
    };
    Route::Session(OnSession::Page(entry))
}

#[cfg(test)]
mod tests {
    use super::method::*;
    use super::*;
    use sb_protocol::api::{
        GotoResult, InputResult, Method, ScrollResult, DEFAULT_EXTRACT_MAX_CHARS,
        DEFAULT_SCREENSHOT_MAX_HEIGHT, DEFAULT_SNAPSHOT_MAX_CHARS, MAX_SETTLE_MS,
    };

    use sb_protocol::api::Emulation;

    use sb_protocol::ipc::{
        Action, DialogPolicyOutput, EvaluateOutput, InputAction, Locator, Output, RefRecord, SnapshotOptions,
        SnapshotOutput, WaitCondition,
    };
    use sb_protocol::{ErrorBody, ErrorCode, Phase};

    use sb_protocol::api::{ElementState, ExtractFormat, Modifier, MouseButton};
    use serde_json::{json, Value};

    /// A session with one ref (`e1`) and evaluate on or off.
    struct Fake {
        evaluate: bool,
    }

    impl Context for Fake {
        fn reference(&self, id: &str) -> Result<RefRecord, ErrorBody> {
            if id == "e1" {
                Ok(RefRecord {
                    id: "e1".into(),
                    role: "button".into(),
                    name: "Go".into(),
                    backend_node_id: 7,
                    frame_id: "F".into(),
                    loader_id: "L".into(),
                })
            } else {
                Err(ErrorBody::new(ErrorCode::UnknownRef, Phase::Request, format!("Ref {id}")))
            }
        }
        fn evaluate_enabled(&self) -> bool {
            self.evaluate
        }
        fn sessions_apart(&self) -> bool {
            false
        }
        fn uploads_dir(&self) -> Option<&std::path::Path> {
            None
        }
        fn stage_uploads(
            &self,
            _: &std::path::Path,
            names: &[String],
        ) -> Result<(Vec<String>, u64), ErrorBody> {
            Ok((names.iter().map(|n| format!("/staged/{n}")).collect(), 0))
        }
        fn artifact_path(&self, extension: &str) -> Result<String, ErrorBody> {
            Ok(format!("/shots/s-1.{extension}"))
        }
        fn next_ref(&self) -> u64 {
            5
        }
        fn named_artifact(&self, extension: &str, name: &str) -> Result<String, ErrorBody> {
            Ok(format!("/hars/{name}.{extension}"))
        }
        fn read_upload(&self, name: &str, _: usize) -> Result<Vec<u8>, ErrorBody> {
            Ok(name.as_bytes().to_vec())
        }

        fn emulation(&self) -> Emulation {
            Emulation { timezone: Some("Asia/Tokyo".into()), ..Default::default() }
        }
    }

    #[test]
    fn emulation_is_checked_and_merged_into_the_sessions() {
        let emulated = |v: Value| match prepare(Method::PageEmulate, v, &ON) {
            Ok(Action::Emulate { emulation }) => emulation,
            other => panic!("{other:?}"),
        };
        let merged = emulated(json!({"locale": "de-DE"}));
        assert_eq!(
            (merged.locale.as_deref(), merged.timezone.as_deref()),
            (Some("de-DE"), Some("Asia/Tokyo"))
        );
        assert_eq!(
            emulated(json!({"reset": true, "offline": true})),
            Emulation { offline: Some(true), ..Default::default() }
        );
        for bad in [
            json!({"geolocation": {"latitude": 0, "longitude": 181}}),
            json!({"geolocation": {"latitude": 0, "longitude": 0, "accuracy": -1}}),
            json!({"locale": "x".repeat(40)}),
            json!({"user_agent": "a\nb"}),
            json!({"timezone": ""}),
        ] {
            assert_eq!(code(prepare(Method::PageEmulate, bad.clone(), &ON)), ErrorCode::BadRequest, "{bad}");
        }
    }

    const ON: Fake = Fake { evaluate: true };

    fn prepare(method: Method, params: Value, cx: &Fake) -> Result<Action, ErrorBody> {
        match route(method) {
            Route::Session(OnSession::Page(m)) => (m.prepare)(method, params, cx),
            _ => panic!("{} is not a page method", method.name()),
        }
    }

    fn finish(method: Method, output: impl Into<Output>) -> Result<Done, ErrorBody> {
        match route(method) {
            Route::Session(OnSession::Page(m)) => (m.finish)(output.into()),
            _ => panic!("{} is not a page method", method.name()),
        }
    }

    fn code(r: Result<Action, ErrorBody>) -> ErrorCode {
        r.expect_err("an error").code
    }

    /// `page.pdf`: margins, scale and page ranges out of range are refused before the worker; the
    /// paper goes as portrait inches with `landscape` beside it, the file under the artifacts.
    #[test]
    fn pdf_params_are_checked() {
        for bad in [
            json!({"margin_in": 6}),
            json!({"margin_in": -1}),
            json!({"scale": 0}),
            json!({"scale": 1e308}),
            json!({"page_ranges": "1-2; rm -rf"}),
            // Issue 53 §11: no page past MAX_PDF_PAGES.
            json!({"page_ranges": "1-1001"}),
            json!({"page_ranges": "99999999999999999999999"}),
            json!({"paper": "b5"}),
            json!({"landscpae": true}),
        ] {
            assert_eq!(code(prepare(Method::PagePdf, bad.clone(), &ON)), ErrorCode::BadRequest, "{bad}");
        }
        let a =
            prepare(Method::PagePdf, json!({"paper": "a4", "landscape": true, "page_ranges": "1-2, 4"}), &ON);
        match a.unwrap() {
            Action::Pdf { params: p, path } => {
                assert_eq!(
                    (p.paper.inches(), p.landscape, p.margin(), p.scale()),
                    ((8.27, 11.69), true, 0.4, 1.0)
                );
                assert_eq!((p.ranges().as_str(), path.as_str()), ("1-2, 4", "/shots/s-1.pdf"));
            }
            other => panic!("{other:?}"),
        }
        match prepare(Method::PagePdf, json!({}), &ON).unwrap() {
            Action::Pdf { params, .. } => assert_eq!(params.ranges(), "1-1000", "the first 1000 pages"),
            other => panic!("{other:?}"),
        }
    }

    /// `page.fill_form` names the field whose element it cannot name, and keeps the error's code: a
    /// ref the session never gave is `unknown_ref`, not `bad_request`.
    #[test]
    fn fill_form_names_the_field_and_keeps_the_refs_code() {
        let fields = json!({"fields": [{"ref": "e1", "value": "a"}, {"ref": "e9", "value": "b"}]});
        let e = prepare(Method::PageFillForm, fields, &ON).expect_err("e9 is unknown");
        assert_eq!(e.code, ErrorCode::UnknownRef, "{}", e.message);
        assert!(e.message.starts_with("page.fill_form field 2: "), "{}", e.message);
        let e = prepare(Method::PageFillForm, json!({"fields": [{"value": "b"}]}), &ON).unwrap_err();
        assert_eq!(e.code, ErrorCode::BadRequest);
    }

    /// Who runs each method is the declaration's ([`Method::runs`]) and the route's alike: the
    /// worker's methods are the page actions (a method routed elsewhere than declared fails here).
    #[test]
    fn the_declared_runner_is_the_route() {
        for m in Method::ALL {
            let page_action = matches!(route(m), Route::Session(OnSession::Page(_)));
            assert_eq!(m.runs() == sb_protocol::api::Runner::Worker, page_action, "{}", m.name());
            // The pipeline looks a session up exactly for the methods declared to need one.
            assert_eq!(matches!(route(m), Route::Session(_)), m.needs_session(), "{}", m.name());
        }
    }

    /// The declaration's facts agree with what each page method asks of its worker: it navigates
    /// exactly when its action moves the tab to another document, and writes an artifact exactly when
    /// its action makes a file (a method added without its fact, or a fact on the wrong method,
    /// fails here).
    #[test]
    fn declared_facts_match_the_actions() {
        for m in Method::ALL {
            let Route::Session(OnSession::Page(_)) = route(m) else { continue };
            let action =
                [json!({}), json!({"url": "http://x/"})].into_iter().find_map(|p| prepare(m, p, &ON).ok());
            let Some(action) = action else { continue };
            let navigates = matches!(action, Action::Goto { .. } | Action::History { .. } | Action::Reload);
            assert_eq!(m.navigates(), navigates, "{}: {action:?}", m.name());
            let artifact = matches!(action, Action::Screenshot { .. } | Action::Pdf { .. });
            assert_eq!(m.writes_artifact(), artifact, "{}: {action:?}", m.name());
            // What only reads the page: run again after a crash or a dead browser (the worker and the
            // queue take it from the declaration). A call's is the declaration's alone.
            if matches!(action, Action::Call { .. }) {
                continue;
            }
            let reads =
                matches!(action, Action::Screenshot { .. } | Action::Pdf { .. } | Action::Snapshot { .. });
            assert_eq!(m.reads_only(), reads, "{}: {action:?}", m.name());
            assert_eq!(m.repeatable(), reads || m == Method::PageGoto, "{}", m.name());
        }
        // tabs.open is the supervisor's, and loads its URL as page.goto does.
        assert!(Method::TabsOpen.navigates());
    }

    /// A worker method without an entry of its own goes to the worker as a call of its own params
    /// ([`CALL`]): the worker has a handler for exactly the methods the supervisor sends so (a method
    /// declared without its handler, or a handler left for a method sent otherwise, fails here).
    #[test]
    fn the_worker_handles_exactly_the_methods_sent_as_calls() {
        let samples = [
            json!({}),
            json!({"ref": "e1"}),
            json!({"kind": "local"}),
            json!({"action": "read"}),
            json!({"text": "x"}),
            json!({"key": "Enter"}),
            json!({"ref": "e1", "text": "x"}),
            json!({"ref": "e1", "value": "x"}),
            json!({"ref": "e1", "values": ["a"]}),
            json!({"action": "down"}),
            json!({"action": "press", "key": "a"}),
        ];
        let mut calls = Vec::new();
        for m in Method::ALL {
            let sent = samples.iter().find_map(|p| match route(m) {
                Route::Session(OnSession::Page(_)) => prepare(m, p.clone(), &ON).ok(),
                _ => None,
            });
            let call = matches!(&sent, Some(Action::Call { method, .. }) if method == m.name());
            assert_eq!(sb_worker::handles(m), call, "{}: {sent:?}", m.name());
            calls.extend(call.then_some(m));
        }
        for m in [
            Method::PageQuery,
            Method::PageNetwork,
            Method::PageVerify,
            Method::PageGenerateLocator,
            Method::PageClick,
            Method::PageType,
            Method::PageFill,
            Method::PagePress,
            Method::PageHover,
            Method::PageCheck,
            Method::PageSelect,
            Method::PageMouse,
            Method::PageKeyboard,
        ] {
            assert!(calls.contains(&m), "{}: {calls:?}", m.name());
        }
    }

    /// A call's params are held to its declaration before it is queued (their type, and the
    /// declared check), its element is looked up with the ref's own error, and the params go to the
    /// worker as they were given.
    #[test]
    fn a_call_is_checked_by_its_declaration_and_carries_its_element() {
        for (m, bad) in [
            (Method::PageConsole, json!({"limit": 0})),
            (Method::PageNetwork, json!({"limit": 1001})),
            (Method::PageNetwork, json!({"id": 3, "since": 1})),
            (Method::PageStorage, json!({"kind": "local", "action": "set", "key": "k"})),
            (Method::PageClipboard, json!({"action": "write"})),
            (Method::PageQuery, json!({})),
            (Method::PageQuery, json!({"ref": "e1", "selector": "b"})),
            (Method::PageExtract, json!({"format": "pdf"})),
            (Method::PageVerify, json!({"name": "Go", "visible": true})),
            (Method::PageVerify, json!({"selector": "b"})),
            (Method::PageGenerateLocator, json!({})),
        ] {
            assert_eq!(code(prepare(m, bad.clone(), &ON)), ErrorCode::BadRequest, "{}: {bad}", m.name());
        }
        assert_eq!(code(prepare(Method::PageQuery, json!({"ref": "e9"}), &ON)), ErrorCode::UnknownRef);
        let a = prepare(Method::PageQuery, json!({"ref": "e1"}), &ON).unwrap();
        let Action::Call { method, params, target: Some(Locator::Ref(r)) } = a else { panic!("{a:?}") };
        assert_eq!((method.as_str(), params, r.backend_node_id), ("page.query", json!({"ref": "e1"}), 7));
        let a = prepare(Method::PageFrames, Value::Null, &ON).unwrap();
        assert_eq!(a, Action::Call { method: "page.frames".into(), params: json!({}), target: None });
        // session.har carries its params as given (a stop beside its file's path).
        for bad in [json!({"action": "stop", "content": "omit"}), json!({"action": "start", "name": "x"})] {
            assert_eq!(code(prepare(Method::SessionHar, bad.clone(), &ON)), ErrorCode::BadRequest, "{bad}");
        }
        let a = prepare(Method::SessionHar, json!({"action": "start", "content": "omit"}), &ON).unwrap();
        let Action::Har { params, path: None } = a else { panic!("{a:?}") };
        assert!(!params.embeds());
        let a = prepare(Method::SessionHar, json!({"action": "stop", "name": "run"}), &ON).unwrap();
        assert!(matches!(&a, Action::Har { path: Some(p), .. } if p == "/hars/run.har"), "{a:?}");
        let done =
            finish(Method::PageConsole, Output::Json(json!({"messages": [], "last_id": 4, "dropped": 0})));
        assert_eq!(done.unwrap().result["last_id"], 4);
    }

    #[test]
    fn every_method_has_a_route() {
        assert!(matches!(route(Method::TabsOpen), Route::Session(OnSession::Op(SessionOp::TabsOpen))));
        assert!(matches!(route(Method::PageDownloads), Route::Session(OnSession::Op(SessionOp::Downloads))));
        assert!(matches!(route(Method::SessionStart), Route::Runtime(RuntimeOp::SessionStart)));
        let numbering: Vec<_> = Method::ALL
            .iter()
            .filter(|m| matches!(route(**m), Route::Session(OnSession::Page(p)) if p.numbers_refs))
            .collect();
        assert_eq!(numbering, [&Method::PageSnapshot]);
    }

    #[test]
    fn goto_takes_its_url_and_reports_it_for_the_store() {
        let a = prepare(Method::PageGoto, json!({"url": "http://x/"}), &ON).unwrap();
        assert_eq!(a, Action::Goto { url: "http://x/".into() });
        assert_eq!(code(prepare(Method::PageGoto, Value::Null, &ON)), ErrorCode::BadRequest);
        let out = GotoResult {
            url: "http://x/a".into(),
            title: "A".into(),
            status: Some(200),
            load_state: "load".into(),
            timed_out: false,
        };
        let done = finish(Method::PageGoto, out).unwrap();
        assert_eq!(done.url.as_deref(), Some("http://x/a"));
        assert_eq!(done.result["status"], 200);
        assert_eq!(done.result["load_state"], "load");
    }

    #[test]
    fn an_output_of_another_kind_is_internal() {
        let e = finish(Method::PageGoto, InputResult::of("x")).unwrap_err();
        assert_eq!(e.code, ErrorCode::Internal);
        assert!(e.message.contains("Input"), "{}", e.message);
    }

    #[test]
    fn inputs_need_exactly_one_element() {
        let a = prepare(Method::PageClick, json!({"ref": "e1"}), &ON).unwrap();
        let Action::Call { method, params, target: Some(Locator::Ref(r)) } = a else { panic!("{a:?}") };
        assert_eq!((method.as_str(), params, r.backend_node_id), ("page.click", json!({"ref": "e1"}), 7));
        // `settle_ms` on any input, bounded.
        let fill = json!({"ref": "e1", "value": "x", "settle_ms": 250});
        let a = prepare(Method::PageFill, fill.clone(), &ON).unwrap();
        assert!(matches!(&a, Action::Call { params, .. } if *params == fill), "{a:?}");
        let huge = json!({"ref": "e1", "settle_ms": MAX_SETTLE_MS + 1});
        assert_eq!(code(prepare(Method::PageHover, huge, &ON)), ErrorCode::BadRequest);
        let huge = json!({"action": "wheel", "dy": 10.0, "settle_ms": MAX_SETTLE_MS + 1});
        assert_eq!(code(prepare(Method::PageMouse, huge, &ON)), ErrorCode::BadRequest);
        assert_eq!(code(prepare(Method::PageClick, json!({}), &ON)), ErrorCode::BadRequest);
        assert_eq!(
            code(prepare(Method::PageClick, json!({"ref": "e1", "selector": "b"}), &ON)),
            ErrorCode::BadRequest
        );
        assert_eq!(code(prepare(Method::PageClick, json!({"ref": "e9"}), &ON)), ErrorCode::UnknownRef);
        // press may go to the focused element, but not to two.
        let a = prepare(Method::PagePress, json!({"key": "Enter"}), &ON).unwrap();
        assert!(matches!(a, Action::Call { target: None, .. }), "{a:?}");
        let two = json!({"key": "Enter", "ref": "e1", "selector": "b"});
        assert_eq!(code(prepare(Method::PagePress, two, &ON)), ErrorCode::BadRequest);
        assert_eq!(code(prepare(Method::PageSelect, json!({"ref": "e1"}), &ON)), ErrorCode::BadRequest);
        assert_eq!(
            code(prepare(Method::PageDrag, json!({"from": {"ref": "e1"}, "to": {}}), &ON)),
            ErrorCode::BadRequest
        );
    }

    #[test]
    fn evaluate_is_refused_when_turned_off_before_anything_runs() {
        let off = Fake { evaluate: false };
        let e = prepare(Method::PageEvaluate, json!({"expression": "1"}), &off).unwrap_err();
        assert_eq!((e.code, e.phase), (ErrorCode::EvaluateDisabled, Phase::Evaluate));
        let e = prepare(Method::PageWaitFor, json!({"function": "true"}), &off).unwrap_err();
        assert_eq!((e.code, e.phase), (ErrorCode::EvaluateDisabled, Phase::Wait));
        assert!(prepare(Method::PageWaitFor, json!({"text": "x"}), &off).is_ok());
        assert_eq!(
            code(prepare(Method::PageEvaluate, json!({"expression": "1", "ref": "e1"}), &ON)),
            ErrorCode::BadRequest
        );
        let out = EvaluateOutput {
            kind: "number".into(),
            value_json: Some("3".into()),
            unserializable: None,
            description: None,
        };
        assert_eq!(finish(Method::PageEvaluate, out).unwrap().result["value"], 3);
    }

    #[test]
    fn wait_for_takes_exactly_one_condition() {
        assert_eq!(
            prepare(Method::PageWaitFor, json!({"selector": "#a"}), &ON).unwrap(),
            Action::WaitFor {
                condition: WaitCondition::Selector { selector: "#a".into(), state: ElementState::Visible }
            }
        );
        assert_eq!(
            code(prepare(Method::PageWaitFor, json!({"text": "a", "url": "b"}), &ON)),
            ErrorCode::BadRequest
        );
        assert_eq!(
            code(prepare(Method::PageWaitFor, json!({"state": "visible"}), &ON)),
            ErrorCode::BadRequest
        );
    }

    #[test]
    fn a_method_is_routed_to_a_session_exactly_when_the_protocol_says_it_needs_one() {
        for method in Method::ALL {
            let on_session = !matches!(route(method), Route::Runtime(_));
            assert_eq!(on_session, method.needs_session(), "{}", method.name());
        }
    }

    #[test]
    fn string_typed_fields_are_checked_when_the_request_is_parsed() {
        // A bad button, modifier, state or load state is bad_request before the action is queued.
        for (method, params) in [
            (Method::PageClick, json!({"ref": "e1", "button": "fourth"})),
            (Method::PageClick, json!({"ref": "e1", "modifiers": ["Hyper"]})),
            (Method::PageWaitFor, json!({"selector": "#a", "state": "shown"})),
            (Method::PageWaitFor, json!({"load_state": "idle"})),
        ] {
            let e = prepare(method, params.clone(), &ON).unwrap_err();
            assert_eq!(e.code, ErrorCode::BadRequest, "{params}");
            assert!(e.message.contains("unknown variant"), "{params}: {}", e.message);
        }
        let a =
            prepare(Method::PageClick, json!({"ref": "e1", "button": "right", "modifiers": ["Shift"]}), &ON);
        let Ok(Action::Call { params, .. }) = a else { panic!("{a:?}") };
        let click: sb_protocol::api::ClickParams = serde_json::from_value(params).unwrap();
        assert_eq!((click.button, click.modifiers), (Some(MouseButton::Right), vec![Modifier::Shift]));
    }

    #[test]
    fn snapshot_numbers_from_the_session_and_hands_its_refs_back() {
        let a = prepare(Method::PageSnapshot, json!({"scope": "e1", "interactive": true}), &ON).unwrap();
        let Action::Snapshot { options, next_ref } = a else { panic!() };
        assert_eq!(next_ref, 5);
        assert!(options.interactive && matches!(options.scope, Some(Locator::Ref(_))));
        assert_eq!(options.max_chars, DEFAULT_SNAPSHOT_MAX_CHARS);
        let a = prepare(Method::PageSnapshot, json!({"scope": "main"}), &ON).unwrap();
        assert!(matches!(
            a,
            Action::Snapshot { options: SnapshotOptions { scope: Some(Locator::Selector(_)), .. }, .. }
        ));
        let r = ON.reference("e1").unwrap();
        let out = SnapshotOutput {
            text: "- button \"Go\" [ref=e1]".into(),
            lines: 1,
            chars: 22,
            truncated: false,
            loading: false,
            diff: false,
            refs: vec![r.clone()],
            url: "u".into(),
            title: "t".into(),
        };
        let done = finish(Method::PageSnapshot, out).unwrap();
        assert_eq!((done.result["refs"].as_u64(), done.refs), (Some(1), vec![r]));
        assert_eq!(done.result["tokens_estimate"], 6, "22 chars, one token per 4, rounded up");
    }

    #[test]
    fn scroll_takes_an_element_or_deltas_and_answers_either() {
        assert!(matches!(
            prepare(Method::PageScroll, json!({"ref": "e1"}), &ON).unwrap(),
            Action::Input { input: InputAction::ScrollIntoView, .. }
        ));
        assert_eq!(
            prepare(Method::PageScroll, json!({"dy": 10.0}), &ON).unwrap(),
            Action::Scroll { dx: 0.0, dy: 10.0 }
        );
        assert_eq!(code(prepare(Method::PageScroll, json!({}), &ON)), ErrorCode::BadRequest);
        // Out of range: Chromium would take the wheel and then wedge the tab's input.
        for bad in [json!({"dy": 1e308}), json!({"dx": -1e6}), json!({"dy": 100_001.0})] {
            assert_eq!(code(prepare(Method::PageScroll, bad.clone(), &ON)), ErrorCode::BadRequest, "{bad}");
        }
        assert_eq!(
            prepare(Method::PageScroll, json!({"dy": -100_000.0}), &ON).unwrap(),
            Action::Scroll { dx: 0.0, dy: -100_000.0 }
        );
        for n in [0, 4, 1_000_000] {
            let click = json!({"selector": "#b", "click_count": n});
            assert_eq!(code(prepare(Method::PageClick, click, &ON)), ErrorCode::BadRequest, "{n}");
        }
        assert_eq!(
            finish(Method::PageScroll, ScrollResult { scroll_x: 0.0, scroll_y: 9.0 }).unwrap().result
                ["scroll_y"],
            9.0
        );
        assert_eq!(finish(Method::PageScroll, InputResult::of("b")).unwrap().result["element"], "b");
    }

    #[test]
    fn extract_screenshot_select_and_dialogs_map_their_params() {
        let a = prepare(Method::PageExtract, json!({"format": "html"}), &ON).unwrap();
        let Action::Call { params, .. } = a else { panic!("{a:?}") };
        let params: sb_protocol::api::ExtractParams = serde_json::from_value(params).unwrap();
        assert_eq!((params.format, params.cap()), (ExtractFormat::Html, DEFAULT_EXTRACT_MAX_CHARS));
        let a = prepare(Method::PageScreenshot, json!({"format": "jpeg"}), &ON).unwrap();
        let Action::Screenshot { params, path, target: None } = a else { panic!("{a:?}") };
        assert_eq!((params.tallest(), path.as_str()), (DEFAULT_SCREENSHOT_MAX_HEIGHT, "/shots/s-1.jpeg"));
        assert_eq!(code(prepare(Method::PageSelect, json!({"ref": "e1"}), &ON)), ErrorCode::BadRequest);
        let done = finish(Method::PageHandleDialog, DialogPolicyOutput { accept: true }).unwrap();
        assert_eq!(done.result["next_dialog"], "accept");
    }
}
