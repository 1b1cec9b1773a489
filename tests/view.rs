//! Issue 27: the live view, the takeover and the trace, tested as a person uses them: the view page is
//! opened in a real browser (a second session of the runtime under test drives its own view page), its
//! WebSocket and HTTP answers are checked from outside, and a trace report is opened and read.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use sb_protocol::api::{call, TraceAction, TraceParams};
use sb_tests::{http_get, result_of, Fixture};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// The view on a port of its own, with the takeover on.
const VIEW: &str = "[view]\nlisten = \"127.0.0.1:0\"\ntakeover = true\n";

/// The view's URL with its token: the URL as the supervisor logged it once (`view_listening`), the
/// token from the file that line names (issue 53 §11: the token itself is never in the log).
fn view_url(f: &Fixture) -> url::Url {
    f.sup.wait_for_log("view_listening", |events| events.iter().any(|e| e["message"] == "view_listening"));
    let events = f.sup.log_events();
    let line = events.iter().find(|e| e["message"] == "view_listening").unwrap();
    assert_eq!(events.iter().filter(|e| e["message"] == "view_listening").count(), 1, "logged once");
    let token = std::fs::read_to_string(line["token_file"].as_str().unwrap()).unwrap();
    assert!(!f.sup.log_text().contains(token.trim()), "the token is not in the log");
    let mut url = url::Url::parse(line["url"].as_str().unwrap()).unwrap();
    url.query_pairs_mut().append_pair("token", token.trim());
    url
}

fn token_of(url: &url::Url) -> String {
    url.query_pairs().find(|(k, _)| k == "token").unwrap().1.into_owned()
}

/// Opens the view's WebSocket on `session` with `origin`.
async fn websocket(
    url: &url::Url,
    session: &str,
    origin: &str,
) -> Result<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    tokio_tungstenite::tungstenite::Error,
> {
    let ws = format!(
        "ws://{}:{}/ws?session={session}&token={}",
        url.host_str().unwrap(),
        url.port().unwrap(),
        token_of(url)
    );
    let mut request = ws.into_client_request().unwrap();
    request.headers_mut().insert("Origin", origin.parse().unwrap());
    tokio_tungstenite::connect_async(request).await.map(|(socket, _)| socket)
}

async fn stats(f: &Fixture) -> Value {
    f.c.call("runtime.stats", None, json!({}), None).await.unwrap().result.unwrap()
}

async fn start(f: &Fixture, id: &str) {
    result_of(&f.c, id, "session.start", json!({"session_id": id})).await;
}

/// §1, §4: without the token every route answers 401 (with the wrong one too); with it the page and
/// the sessions' list answer; the token file is the token, 0600; a WebSocket from another origin is
/// refused (403), one from the view's own is served; an unwatched runtime starts no screencast, a
/// watcher starts one and gets frames.
#[tokio::test(flavor = "multi_thread")]
async fn the_view_needs_its_token_and_its_own_origin_and_costs_nothing_unwatched() {
    let f = Fixture::with_config(VIEW).await;
    let url = view_url(&f);
    let token = token_of(&url);
    assert_eq!(token.len(), 32, "128 bits as hex");
    for path in ["/", "/view.js", "/view.css", "/api/sessions", "/ws?session=a", "/reports/x.html"] {
        assert_eq!(http_get(&url, path).await.0, 401, "{path} without the token");
        let wrong = format!(
            "{path}{}token=00000000000000000000000000000000",
            if path.contains('?') { "&" } else { "?" }
        );
        assert_eq!(http_get(&url, &wrong).await.0, 401, "{path} with a wrong token");
    }
    let (status, page) = http_get(&url, &format!("/?token={token}")).await;
    assert_eq!(status, 200);
    assert!(page.contains(&format!("view.js?token={token}")), "{page}");
    let file = f.sup.dir.path().join(sb_supervisor::front::view::TOKEN_FILE);
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), token);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);

    start(&f, "agent").await;
    result_of(&f.c, "agent", "page.goto", json!({"url": f.pages.url("/test/index.html")})).await;
    result_of(&f.c, "agent", "page.snapshot", json!({})).await;
    let (status, list) = http_get(&url, &format!("/api/sessions?token={token}")).await;
    assert_eq!(status, 200);
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list["sessions"][0]["session_id"], "agent");
    assert_eq!(list["sessions"][0]["last"]["method"], "page.snapshot");
    assert_eq!(stats(&f).await["screencasts_started"], 0, "nobody watches: no screencast");

    let origin = format!("http://{}:{}", url.host_str().unwrap(), url.port().unwrap());
    match websocket(&url, "agent", "http://evil.example").await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 403),
        other => panic!("another origin's WebSocket must be refused: {:?}", other.map(|_| ())),
    }
    let mut ws = websocket(&url, "agent", &origin).await.expect("the view's own origin");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut kinds = Vec::new();
    while !kinds.iter().any(|k| k == "frame") {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = tokio::time::timeout(left, ws.next()).await.expect("a frame within 30 s").unwrap().unwrap();
        let v: Value = serde_json::from_str(msg.to_text().unwrap()).unwrap();
        kinds.push(v["t"].as_str().unwrap().to_string());
    }
    assert_eq!(kinds[0], "hello");
    assert!(kinds.iter().any(|k| k == "action"), "the actions so far: {kinds:?}");
    assert_eq!(stats(&f).await["screencasts_started"], 1);
}

/// The view page's screencast image: its frame count (`data-frames`), its box (x, y, width, height in
/// the view page's CSS px).
async fn screen(f: &Fixture) -> (u64, [f64; 4]) {
    let r = result_of(
        &f.c,
        "viewer",
        "page.evaluate",
        json!({"expression": "(() => { const i = document.getElementById('screen'); const b = i.getBoundingClientRect(); return [Number(i.dataset.frames), b.left, b.top, b.width, b.height]; })()"}),
    )
    .await;
    let v: Vec<f64> = serde_json::from_value(r["value"].clone()).unwrap();
    (v[0] as u64, [v[1], v[2], v[3], v[4]])
}

/// §1, §2, §4 in a real browser: the view page lists the agent's session, its frames arrive and change
/// when the agent navigates, its log shows the agent's actions, the console errors and the last snapshot; a person takes the session, the agent's
/// action waits (one with a short budget answers `human_in_control` at its deadline), the person's
/// click on the frame reaches the page, and when they hand it back with a note the waiting action runs
/// and reports `human_took_over`.
#[tokio::test(flavor = "multi_thread")]
async fn a_person_watches_and_takes_over_while_the_agent_waits() {
    let f = Fixture::with_config(VIEW).await;
    let url = view_url(&f);
    // At device scale factor 2 (its frames are in device px): the person's click still lands where
    // they point.
    result_of(&f.c, "agent", "session.start", json!({"session_id": "agent", "device_scale_factor": 2.0}))
        .await;
    start(&f, "viewer").await;
    let takeover = f.pages.url("/test/takeover.html");
    result_of(&f.c, "agent", "page.goto", json!({"url": takeover})).await;
    result_of(&f.c, "viewer", "page.goto", json!({"url": url.as_str()})).await;
    let row = "tr[data-session=\"agent\"]";
    result_of(&f.c, "viewer", "page.wait_for", json!({"selector": row, "state": "visible"})).await;
    result_of(&f.c, "viewer", "page.click", json!({"selector": row})).await;
    let framed = "() => Number(document.getElementById('screen').dataset.frames) > 0";
    result_of(&f.c, "viewer", "page.wait_for", json!({"function": framed})).await;
    result_of(
        &f.c,
        "viewer",
        "page.evaluate",
        json!({"expression": "window.firstFrame = document.getElementById('screen').src; 1"}),
    )
    .await;

    // The agent navigates: the log shows it and a new frame (another picture) arrives.
    result_of(&f.c, "agent", "page.goto", json!({"url": f.pages.url("/test/index.html")})).await;
    let changed = "() => document.getElementById('screen').src !== window.firstFrame \
                   && document.querySelector('#log tbody').textContent.includes('/test/index.html')";
    result_of(&f.c, "viewer", "page.wait_for", json!({"function": changed})).await;
    result_of(&f.c, "agent", "page.goto", json!({"url": takeover})).await;
    result_of(&f.c, "agent", "page.snapshot", json!({})).await;
    let snapshot_shown = "() => document.getElementById('snapshot').textContent.includes('button \"Press\"')";
    result_of(&f.c, "viewer", "page.wait_for", json!({"function": snapshot_shown})).await;

    // A console error of the agent's page shows in the view.
    result_of(
        &f.c,
        "agent",
        "page.evaluate",
        json!({"expression": "console.error('widget failed to load'), 1"}),
    )
    .await;
    let console_shown =
        "() => document.getElementById('console').textContent.includes('widget failed to load')";
    result_of(&f.c, "viewer", "page.wait_for", json!({"function": console_shown})).await;

    // The person takes the session while an agent's action is in flight: the takeover waits for it.
    let busy = f.sup.client().await;
    let in_flight = tokio::spawn(async move {
        let expression = "document.title = 'agent busy', fetch('/test/hold/agent-busy').then(r => r.text())";
        busy.call("page.evaluate", Some("agent"), json!({"expression": expression}), Some(30_000))
            .await
            .unwrap()
    });
    // The evaluate runs in the page (it renamed it, and the view's list shows the new title).
    result_of(&f.c, "viewer", "page.wait_for", json!({"text": "agent busy"})).await;
    result_of(&f.c, "viewer", "page.click", json!({"selector": "#take"})).await;
    let pending = "() => document.getElementById('control-state').textContent.includes('current action')";
    result_of(&f.c, "viewer", "page.wait_for", json!({"function": pending})).await;
    let hidden = result_of(
        &f.c,
        "viewer",
        "page.evaluate",
        json!({"expression": "document.getElementById('release').hidden"}),
    )
    .await;
    assert_eq!(hidden["value"], true, "not held while the agent's action runs");
    let release = url::Url::parse(&f.pages.url("/test/release/agent-busy")).unwrap();
    http_get(&release, release.path()).await;
    let done = tokio::time::timeout(Duration::from_secs(30), in_flight).await.unwrap().unwrap();
    assert_eq!(done.result.unwrap()["value"], "released");
    result_of(&f.c, "viewer", "page.wait_for", json!({"selector": "#release", "state": "visible"})).await;
    let started = Instant::now();
    let e =
        sb_tests::api_error(&f.c.call("page.extract", Some("agent"), json!({}), Some(1_000)).await.unwrap());
    assert_eq!(e.code, sb_protocol::ErrorCode::HumanInControl, "{e:?}");
    assert!(e.retryable && e.hint.is_some(), "{e:?}");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "answered at its deadline: {:?}",
        started.elapsed()
    );
    let agent = f.sup.client().await;
    let waiting = tokio::spawn(async move {
        agent.call("page.extract", Some("agent"), json!({}), Some(60_000)).await.unwrap()
    });
    let clicked = {
        let hold = f.pages.url("/test/hold/takeover");
        tokio::spawn(async move {
            let url = url::Url::parse(&hold).unwrap();
            http_get(&url, url.path()).await
        })
    };
    // The person clicks the button's centre, (250, 200) in the agent's page, on the frame.
    let (_, [x, y, w, h]) = screen(&f).await;
    let (px, py) = (x + 250.0 * w / 1280.0, y + 200.0 * h / 800.0);
    result_of(&f.c, "viewer", "page.mouse", json!({"action": "click", "x": px, "y": py})).await;
    tokio::time::timeout(Duration::from_secs(30), clicked)
        .await
        .expect("the person's click reached the page")
        .unwrap();
    assert!(!waiting.is_finished(), "the agent's action waits while the person holds the session");

    result_of(&f.c, "viewer", "page.fill", json!({"selector": "#note", "value": "logged in, continue"}))
        .await;
    result_of(&f.c, "viewer", "page.click", json!({"selector": "#release"})).await;
    let answer = tokio::time::timeout(Duration::from_secs(60), waiting).await.unwrap().unwrap();
    let r = answer.result.unwrap_or_else(|| panic!("{:?}", answer.error));
    assert!(r["content"].as_str().unwrap().contains("Clicked by a person"), "{r}");
    let h = &r["human_took_over"];
    assert_eq!(h["note"], "logged in, continue", "{r}");
    assert!(
        h["ms"].as_u64().unwrap() > 0
            && h["url_before"] == json!(takeover)
            && h["url_after"] == json!(takeover),
        "{h}"
    );
    let next = result_of(&f.c, "agent", "page.extract", json!({})).await;
    assert!(next.get("human_took_over").is_none(), "reported once: {next}");
}

/// §3, §4: a trace records each action (typed text redacted) with a screenshot; its report opens in a
/// browser from the view page's link and shows every action with its picture.
#[tokio::test(flavor = "multi_thread")]
async fn a_trace_report_shows_each_action_with_its_screenshot() {
    let f = Fixture::with_config(VIEW).await;
    let url = view_url(&f);
    start(&f, "agent").await;
    start(&f, "viewer").await;
    // Through the Rust client's typed call (session.trace has no other shorthand than `trace`).
    let t = f.c.invoke::<call::SessionTrace>(
        Some("agent"),
        TraceParams { action: TraceAction::Start, name: None },
        None,
    );
    assert!(t.await.unwrap().tracing);
    result_of(&f.c, "agent", "page.goto", json!({"url": f.pages.url("/test/takeover.html")})).await;
    result_of(&f.c, "agent", "page.snapshot", json!({})).await;
    result_of(&f.c, "agent", "page.click", json!({"selector": "#b"})).await;
    result_of(&f.c, "agent", "page.type", json!({"selector": "#i", "text": "hunter2"})).await;
    let done = f.c.trace("agent", TraceParams { action: TraceAction::Stop, name: Some("run".into()) });
    let done = done.await.unwrap().into_inner();
    assert_eq!((done.tracing, done.actions), (false, 4), "{done:?}");
    let report = std::path::PathBuf::from(done.report.as_deref().unwrap());
    assert_eq!(report.file_name().unwrap(), "run.html");
    let lines = std::fs::read_to_string(&done.jsonl).unwrap();
    let methods: Vec<Value> =
        lines.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["method"].clone()).collect();
    assert_eq!(
        methods,
        [json!("page.goto"), json!("page.snapshot"), json!("page.click"), json!("page.type")]
    );
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(!lines.contains("hunter2") && !html.contains("hunter2"), "typed text stays out of the trace");

    result_of(&f.c, "viewer", "page.goto", json!({"url": url.as_str()})).await;
    result_of(&f.c, "viewer", "page.click", json!({"selector": "tr[data-session=\"agent\"]"})).await;
    result_of(&f.c, "viewer", "page.wait_for", json!({"selector": "#reports a", "state": "visible"})).await;
    let href = result_of(
        &f.c,
        "viewer",
        "page.evaluate",
        json!({"expression": "document.querySelector('#reports a').href"}),
    )
    .await;
    result_of(&f.c, "viewer", "page.goto", json!({"url": href["value"]})).await;
    let shown = result_of(
        &f.c,
        "viewer",
        "page.evaluate",
        json!({"expression": "[document.querySelectorAll('section.step').length, [...document.images].filter(i => i.complete && i.naturalWidth > 0).length, document.body.innerText.includes('page.click')]"}),
    )
    .await;
    assert_eq!(shown["value"], json!([4, 4, true]), "every action with its screenshot");
    let (status, _) = http_get(&url, &format!("/reports/run.jsonl?token={}", token_of(&url))).await;
    assert_eq!(status, 404, "the view serves reports only");
}

/// §3: with `[trace] always`, every session is traced from its start and its report is written when
/// it closes; the view lists the closed session's report.
#[tokio::test(flavor = "multi_thread")]
async fn with_trace_always_every_session_leaves_a_report_when_it_closes() {
    let f = Fixture::with_config(&format!("{VIEW}[trace]\nalways = true\n")).await;
    let url = view_url(&f);
    start(&f, "agent").await;
    result_of(&f.c, "agent", "page.goto", json!({"url": f.pages.url("/test/index.html")})).await;
    result_of(&f.c, "agent", "page.click", json!({"selector": "#go"})).await;
    result_of(&f.c, "agent", "session.close", json!({})).await;
    let (status, list) = http_get(&url, &format!("/api/sessions?token={}", token_of(&url))).await;
    assert_eq!(status, 200);
    let list: Value = serde_json::from_str(&list).unwrap();
    let name = list["reports"][0]["name"].as_str().unwrap_or_else(|| panic!("a report: {list}")).to_string();
    assert_eq!(list["reports"][0]["session_id"], "agent");
    let (status, html) = http_get(&url, &format!("/reports/{name}?token={}", token_of(&url))).await;
    assert_eq!(status, 200);
    for method in ["page.goto", "page.click", "session.close"] {
        assert!(html.contains(method), "{method} in the report");
    }
}

/// A session a person holds in the view is not closed for being idle (`limits.session_idle_timeout_ms`):
/// the agent sends nothing while the person works. Taken over, it outlives a session started after
/// the takeover and left idle (which expires); handed back, its idle time starts again and it expires
/// in turn.
#[tokio::test(flavor = "multi_thread")]
async fn a_session_a_person_holds_is_not_closed_as_idle() {
    use futures_util::SinkExt;
    let f = Fixture::with_config(&format!("{VIEW}[limits]\nsession_idle_timeout_ms = 2000\n")).await;
    let url = view_url(&f);
    let origin = format!("http://{}:{}", url.host_str().unwrap(), url.port().unwrap());
    start(&f, "held").await;
    let mut ws = websocket(&url, "held", &origin).await.expect("the view's own origin");
    ws.send(tokio_tungstenite::tungstenite::Message::text(r#"{"t":"take"}"#)).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = tokio::time::timeout(left, ws.next()).await.expect("control within 30 s").unwrap().unwrap();
        let v: Value = serde_json::from_str(msg.to_text().unwrap_or("{}")).unwrap_or_default();
        assert_ne!(v["t"], "error", "{v}");
        if v["t"] == "control" && v["held"] == true {
            break;
        }
    }
    start(&f, "left").await;
    let expired = |id: &'static str| {
        move |events: &[Value]| {
            events.iter().any(|e| e["message"] == "session_expired" && e["browser.session_id"] == id)
        }
    };
    // "left" had its last request after "held" did: when it expires, "held" has been as long without
    // one.
    tokio::task::block_in_place(|| f.sup.wait_for_log("the idle session expired", expired("left")));
    assert!(!expired("held")(&f.sup.log_events()), "the held session is open");
    let listed = f.c.session_list().await.unwrap().into_inner().sessions;
    assert_eq!(listed.iter().map(|s| s.session_id.as_str()).collect::<Vec<_>>(), ["held"]);

    ws.send(tokio_tungstenite::tungstenite::Message::text(r#"{"t":"release"}"#)).await.unwrap();
    tokio::task::block_in_place(|| f.sup.wait_for_log("the handed-back session expired", expired("held")));
}
