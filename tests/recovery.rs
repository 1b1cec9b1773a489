//! Health, the recovery cycle and sessions that survive (issue 5), with a real Chromium: a killed, a
//! frozen and an unrestartable browser, a crashed renderer, a killed supervisor, and the log lines.

use std::os::unix::process::CommandExt;
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use sb_protocol::api::Response;
use sb_protocol::error::{DO_NOT_RETRY, RUNTIME_HINT};
use sb_protocol::ErrorCode;
use sb_tests::{api_error, processes_naming, temp_dir, Fixture, PageServer, Supervisor};
use serde_json::{json, Value};

/// A child process group that is killed when the test ends, however it ends.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = killpg(Pid::from_raw(self.0.id() as i32), Signal::SIGKILL);
        let _ = self.0.wait();
    }
}

/// One request, the whole response.
async fn call(c: &sb_client::Client, method: &str, session: Option<&str>, params: Value) -> Response {
    c.call(method, session, params, Some(10_000)).await.expect("an answer")
}

fn result(r: &Response) -> &Value {
    assert!(r.ok, "expected success, got {:?}", r.error);
    r.result.as_ref().unwrap()
}

/// Starts a session at the test index page; returns its id.
async fn session_at_index(c: &sb_client::Client, pages: &PageServer, id: &str) -> String {
    c.session_start(Some(id)).await.unwrap();
    c.goto(id, &pages.url("/test/index.html"), None).await.unwrap();
    id.to_string()
}

/// Returns once the kernel has ended `pid` (gone or a zombie): "between actions" means after the
/// browser is dead, not while the signal is still on its way.
fn wait_until_dead(pid: u32) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while sb_tests::alive(pid) {
        assert!(std::time::Instant::now() < deadline, "pid {pid} survived SIGKILL");
        std::thread::yield_now();
    }
}

/// A session on a page that its server answers after 300 ms: a reopened page that is not waited for
/// is still `about:blank` when the next action runs.
async fn session_at_slow_page(c: &sb_client::Client, pages: &PageServer, id: &str) -> String {
    c.session_start(Some(id)).await.unwrap();
    c.goto(id, &pages.url("/test/slow/300"), None).await.unwrap();
    id.to_string()
}

/// The next action after a reopen reads the page's heading at once (no wait): the page must have
/// been loaded before the action ran.
async fn read_heading(c: &sb_client::Client, sid: &str) -> Response {
    let expr = json!({"expression": "[location.pathname, document.querySelector('h1')?.textContent]"});
    let r = call(c, "page.evaluate", Some(sid), expr).await;
    assert_eq!(result(&r)["value"], json!(["/test/slow/300", "Hello from the test server"]), "{r:?}");
    r
}

/// Crashes the renderer of `target` from outside (`Page.crash` on a CDP connection of the test's own,
/// through the port [`sb_tests::DEVTOOLS_PORT`] opened for it) and returns once Chromium reported the
/// crash (`Inspector.targetCrashed`).
async fn crash_renderer(sup: &Supervisor, target: &str) {
    let ws_url = sb_tests::devtools_ws_url(sup.dir.path());
    let cdp = sb_cdp::CdpClient::connect(&ws_url, Duration::from_secs(2)).await.unwrap();
    let session = cdp.attach(target, Duration::from_secs(2)).await.unwrap();
    let mut events = session.events();
    session.call_raw("Inspector.enable", json!({}), Duration::from_secs(2)).await.unwrap();
    let _ = session.call_raw("Page.crash", json!({}), Duration::from_millis(300)).await;
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(5), events.recv()).await.expect("crash event");
        if ev.expect("event").method == "Inspector.targetCrashed" {
            break;
        }
    }
    cdp.close();
}

/// The next action after a reset: wait until the reopened page shows its text.
async fn wait_for_index(c: &sb_client::Client, sid: &str) -> Response {
    call(c, "page.wait_for", Some(sid), json!({"text": "Hello from the test server"})).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probes_pass_and_are_skipped_while_fresh() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config("[browser.sandbox]\nruntime_healthcheck_interval_seconds = 3600\n");
    let c = sup.client().await;
    let sid = session_at_index(&c, &pages, "fresh").await;
    c.extract(&sid, Default::default()).await.unwrap();
    let stats = c.stats().await.unwrap();
    assert_eq!(stats.probes, 0, "the launch's probes are recent: {stats:?}");
    assert!(stats.probes_skipped >= 3, "session.start, goto, extract skip them: {stats:?}");
    assert_eq!(stats.restarts, 0);

    let sup = Supervisor::with_config("[browser.sandbox]\nruntime_healthcheck_interval_seconds = 0\n");
    let c = sup.client().await;
    let sid = session_at_index(&c, &pages, "always").await;
    c.extract(&sid, Default::default()).await.unwrap();
    let health = c.health().await.unwrap();
    let stats = c.stats().await.unwrap();
    assert!(stats.probes >= 4, "every action probes, and each passes: {stats:?}");
    assert_eq!(stats.unhealthy_checks, 0);
    assert_eq!(stats.probes_skipped, 0);
    assert!(health.last_probe_ms < 5_000, "{health:?}");
    assert_eq!(stats.actions["page.goto"].count, 1);
    let metrics = c.metrics().await.unwrap();
    assert!(
        metrics.text.contains("sandbox_browser_actions_total{method=\"page.goto\"} 1\n"),
        "{}",
        metrics.text
    );
    let probes = format!("sandbox_browser_probes_total {}\n", stats.probes);
    assert!(metrics.text.contains(&probes), "stats and metrics agree: {}", metrics.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_browser_costs_no_error_and_one_restart() {
    let Fixture { pages, sup, c } = Fixture::start().await;
    let sid = session_at_slow_page(&c, &pages, "k").await;
    let snap = call(&c, "page.snapshot", Some(&sid), json!({"interactive": true})).await;
    sb_tests::checked_snapshot(&snap);
    assert!(result(&snap)["snapshot"].as_str().unwrap().contains("button \"Go\" [ref=e"), "{snap:?}");
    let before = c.health().await.unwrap();
    killpg(Pid::from_raw(before.browser_pid as i32), Signal::SIGKILL).unwrap();
    wait_until_dead(before.browser_pid);

    let next = read_heading(&c, &sid).await;
    let value = result(&next);
    assert_eq!(value["session_reset"], true, "{value}");
    assert_eq!(value["reset_reason"], "browser_restarted");
    assert!(value["waited_for_recovery_ms"].as_u64().is_some(), "it waited for the page: {value}");
    // The result after that reports nothing more.
    let again = call(&c, "page.extract", Some(&sid), json!({})).await;
    assert!(result(&again).get("session_reset").is_none(), "{again:?}");
    assert!(result(&again)["content"].as_str().unwrap().contains("Hello from the test server"));
    // A ref from the old page is stale: it never clicks on the new one.
    let old_ref = call(&c, "page.click", Some(&sid), json!({"ref": "e1"})).await;
    assert_eq!(api_error(&old_ref).code, ErrorCode::StaleRef, "{old_ref:?}");

    let after = c.health().await.unwrap();
    assert_ne!(after.browser_pid, before.browser_pid);
    let stats = c.stats().await.unwrap();
    assert_eq!(stats.restarts, 1, "{stats:?}");
    assert_eq!(stats.recoveries, 1);
    assert_eq!(stats.sessions_rehydrated, 1);
    sup.settle_log(&c).await;
    assert_eq!(sup.count_events("browser_runtime_restarting"), 1);
    assert_eq!(sup.count_events("browser_runtime_unhealthy"), 1);
    assert_eq!(sup.count_events("browser_runtime_ready"), 2);
    assert_eq!(sup.count_events("browser_runtime_restart_failed"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_that_cannot_come_back_answers_browser_unavailable_without_a_loop() {
    let pages = PageServer::start(None).await;
    let dir = temp_dir();
    let base = dir.path().to_path_buf();
    let wrapper = base.join("chromium-wrapper");
    let install = |script: &str| {
        let tmp = base.join("wrapper.tmp");
        std::fs::write(&tmp, script).unwrap();
        std::fs::set_permissions(&tmp, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        std::fs::rename(&tmp, &wrapper).unwrap();
    };
    let real = sb_supervisor::lifecycle::browser::find_binary(None).expect("chromium");
    install(&format!("#!/bin/sh\nexec {} \"$@\"\n", real.display()));
    let args = Supervisor::config_args(&dir, &format!("[browser]\npath = \"{}\"\n", wrapper.display()));
    let sup = Supervisor::start_in(dir, &args.iter().map(String::as_str).collect::<Vec<_>>());
    let c = sup.client().await;
    let sid = session_at_index(&c, &pages, "gone").await;
    let pid = c.health().await.unwrap().browser_pid;
    install("#!/bin/sh\necho 'this browser exits at once' >&2\nexit 1\n");
    killpg(Pid::from_raw(pid as i32), Signal::SIGKILL).unwrap();
    wait_until_dead(pid);

    let r = call(&c, "page.extract", Some(&sid), json!({})).await;
    let e = api_error(&r);
    assert_eq!(e.code, ErrorCode::BrowserUnavailable, "{e:?}");
    assert!(!e.retryable);
    assert!(e.message.ends_with(DO_NOT_RETRY), "{}", e.message);
    assert!(!e.message.contains('\n'));
    assert!(!e.message.contains("this browser exits at once"), "stderr goes to the log: {}", e.message);
    assert_eq!(e.hint.as_deref(), Some(RUNTIME_HINT));
    assert_eq!(e.phase.as_str(), "launch");

    // Later requests answer the same at once and start no new cycle.
    let goto = json!({"url": pages.url("/test/index.html")});
    for (method, session, params) in [
        ("page.goto", Some(sid.as_str()), goto),
        ("runtime.health", None, json!({})),
        ("session.start", None, json!({})),
    ] {
        let r = call(&c, method, session, params).await;
        assert_eq!(api_error(&r).code, ErrorCode::BrowserUnavailable, "{method}: {r:?}");
    }
    let stats = c.stats().await.unwrap();
    assert_eq!(stats.restarts, 1, "{stats:?}");
    assert_eq!(stats.restart_failures, 1);
    sup.settle_log(&c).await;
    assert_eq!(sup.count_events("browser_runtime_restarting"), 1);
    let failed: Vec<Value> =
        sup.log_events().into_iter().filter(|e| e["message"] == "browser_runtime_restart_failed").collect();
    assert_eq!(failed.len(), 1, "{}", sup.log_text());
    assert_eq!(failed[0]["error.phase"], "launch");
    assert!(failed[0]["browser.stderr"].as_str().unwrap_or_default().contains("this browser exits at once"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_browser_is_replaced() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config("[browser.sandbox]\nruntime_healthcheck_interval_seconds = 0\n");
    let c = sup.client().await;
    let sid = session_at_index(&c, &pages, "frozen").await;
    let pid = c.health().await.unwrap().browser_pid;
    killpg(Pid::from_raw(pid as i32), Signal::SIGSTOP).unwrap();

    let next = wait_for_index(&c, &sid).await;
    assert_eq!(result(&next)["session_reset"], true, "{next:?}");
    let stats = c.stats().await.unwrap();
    assert_eq!(stats.restarts, 1, "{stats:?}");
    sup.settle_log(&c).await;
    let unhealthy: Vec<Value> =
        sup.log_events().into_iter().filter(|e| e["message"] == "browser_runtime_unhealthy").collect();
    assert_eq!(unhealthy.len(), 1, "{}", sup.log_text());
    assert!(unhealthy[0]["error.phase"] == "handshake", "{unhealthy:?}");
    assert!(!sb_tests::alive(pid), "the frozen browser was killed");
}

/// Polls `runtime.stats` until `done` holds of it (at most 30 s); the stats it held of.
async fn stats_until(
    c: &sb_client::Client,
    what: &str,
    done: impl Fn(&sb_protocol::api::StatsResult) -> bool,
) -> sb_protocol::api::StatsResult {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let stats = c.stats().await.unwrap();
        if done(&stats) {
            return stats.into_inner();
        }
        assert!(std::time::Instant::now() < deadline, "{what}: {stats:?}");
        // A polling pace, not a synchronisation: the condition above is what the test waits for.
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probes_run_between_actions_and_one_that_fails_makes_the_next_action_check() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config("[browser.sandbox]\nruntime_healthcheck_interval_seconds = 1\n");
    let c = sup.client().await;
    let sid = session_at_index(&c, &pages, "between").await;
    // With a session open and no action coming, the probes keep running (runtime.stats does not
    // probe): an action after a pause finds them fresh.
    let before = c.stats().await.unwrap();
    stats_until(&c, "probes run in the background", |s| s.probes >= before.probes + 2).await;

    // Frozen between actions: a background probe fails and restarts nothing (a slow moment is not a
    // frozen browser); the browser is suspect, so the next action probes, restarts it, and works.
    let pid = c.health().await.unwrap().browser_pid;
    killpg(Pid::from_raw(pid as i32), Signal::SIGSTOP).unwrap();
    let frozen = c.stats().await.unwrap().probes;
    // The loop is sequential: the second probe counted from now starts after the first one failed.
    let stats = stats_until(&c, "a background probe failed", |s| s.probes >= frozen + 2).await;
    assert_eq!((stats.restarts, stats.unhealthy_checks), (0, 0), "{stats:?}");
    let next = wait_for_index(&c, &sid).await;
    assert_eq!(result(&next)["session_reset"], true, "{next:?}");
    let stats = c.stats().await.unwrap();
    assert_eq!((stats.restarts, stats.unhealthy_checks), (1, 1), "{stats:?}");
    assert!(!sb_tests::alive(pid), "the frozen browser was killed");
    sup.settle_log(&c).await;
    assert!(sup.count_events("browser_probe_failed") >= 1, "{}", sup.log_text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renderer_crash_resets_only_its_session() {
    let Fixture { pages, sup, c } = Fixture::with_config(sb_tests::DEVTOOLS_PORT).await;
    let a = session_at_index(&c, &pages, "a").await;
    let b = session_at_index(&c, &pages, "b").await;
    let target = c
        .session_list()
        .await
        .unwrap()
        .into_inner()
        .sessions
        .into_iter()
        .find(|s| s.session_id == a)
        .unwrap()
        .target_id;

    // Crash a's renderer from outside, and see the crash happen before acting.
    crash_renderer(&sup, &target).await;

    // The next action runs on the page reopened at its last loaded URL, and says the page was reset.
    let r = call(&c, "page.extract", Some(&a), json!({})).await;
    let v = result(&r);
    assert_eq!(v["session_reset"], json!(true), "{r:?}");
    assert_eq!(v["reset_reason"], json!("renderer_crashed"), "{r:?}");
    assert!(v["waited_for_recovery_ms"].as_u64().is_some(), "it waited for the reopen: {r:?}");
    assert!(v["content"].as_str().unwrap().contains("Hello"), "the page's content, not a blank tab: {r:?}");
    let again = wait_for_index(&c, &a).await;
    assert!(result(&again).get("session_reset").is_none(), "said once: {again:?}");

    let other = call(&c, "page.extract", Some(&b), json!({})).await;
    assert!(result(&other).get("session_reset").is_none(), "{other:?}");
    let stats = c.stats().await.unwrap();
    assert_eq!(stats.renderer_crashes, 1, "{stats:?}");
    assert_eq!(stats.page_resets, 1);
    assert_eq!(stats.restarts, 0, "the browser itself was not restarted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_survive_a_killed_supervisor() {
    let pages = PageServer::start(None).await;
    let first = Supervisor::start(&[]);
    let c = first.client().await;
    let sid = session_at_slow_page(&c, &pages, "keep").await;
    c.session_start(Some("closed")).await.unwrap();
    c.session_close("closed").await.unwrap();
    // A session of its own display, changed after its start: its page keeps the last one.
    let phone =
        json!({"session_id": "phone", "viewport": {"width": 390, "height": 700}, "device_scale_factor": 2});
    assert!(call(&c, "session.start", None, phone).await.ok);
    let resized = json!({"width": 500, "height": 640, "device_scale_factor": 1.5});
    assert!(call(&c, "page.set_viewport", Some("phone"), resized).await.ok);
    let dark = json!({"color_scheme": "dark", "timezone": "Asia/Tokyo"});
    assert!(call(&c, "page.emulate", Some("phone"), dark).await.ok);
    let pid = c.health().await.unwrap().browser_pid;
    let cmdline = String::from_utf8(std::fs::read(format!("/proc/{pid}/cmdline")).unwrap()).unwrap();
    let profile = cmdline
        .split('\0')
        .find_map(|a| a.strip_prefix("--user-data-dir="))
        .expect("a profile dir")
        .to_string();
    drop(c);
    let dir = first.kill_keep_dir();

    // A browser that outlived its supervisor (its parent-death signal lost): a real Chromium on a
    // profile under the runtime dir, in a session of its own.
    let leftover_profile = dir.path().join("chromium-profile-leftover");
    let mut leftover = KillOnDrop(
        std::process::Command::new(sb_supervisor::lifecycle::browser::find_binary(None).unwrap())
            .args(["--headless", "--remote-debugging-port=0", "--no-sandbox"])
            .arg(format!("--user-data-dir={}", leftover_profile.display()))
            .arg("about:blank")
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap(),
    );

    let second = Supervisor::start_in(dir, &[]);
    assert_eq!(processes_naming(&profile), Vec::<u32>::new(), "the first supervisor's browser is gone");
    assert!(!std::path::Path::new(&profile).exists(), "its profile dir was removed");
    assert!(!sb_tests::alive(leftover.0.id()), "the leftover browser was ended by the sweep");
    assert_eq!(processes_naming(&leftover_profile.display().to_string()), Vec::<u32>::new());
    leftover.0.wait().unwrap();
    assert!(!leftover_profile.exists());
    let c = second.client().await;
    let list = c.session_list().await.unwrap().into_inner().sessions;
    assert_eq!(list.len(), 2, "{list:?}");
    assert_eq!(list[0].session_id, sid);
    assert_eq!(list[0].url.as_deref(), Some(pages.url("/test/slow/300").as_str()));
    let next = read_heading(&c, &sid).await;
    assert_eq!(result(&next)["session_reset"], true, "{next:?}");
    assert_eq!(result(&next)["reset_reason"], "supervisor_restarted");
    let stats = c.stats().await.unwrap();
    assert_eq!(stats.restarts, 0);
    assert_eq!(stats.sessions_rehydrated, 2);
    let size = call(
        &c,
        "page.evaluate",
        Some("phone"),
        json!({"expression": "[innerWidth, innerHeight, devicePixelRatio]"}),
    )
    .await;
    assert_eq!(
        result(&size)["value"],
        json!([500, 640, 1.5]),
        "the session's display outlived its supervisor"
    );
    let emulated = json!({"expression": "[matchMedia('(prefers-color-scheme: dark)').matches, Intl.DateTimeFormat().resolvedOptions().timeZone]"});
    let emulated = call(&c, "page.evaluate", Some("phone"), emulated).await;
    assert_eq!(result(&emulated)["value"], json!([true, "Asia/Tokyo"]), "and what it emulates too");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_lines_carry_the_named_events_and_fields() {
    let Fixture { pages, sup, c } = Fixture::start().await;
    let sid = session_at_index(&c, &pages, "logged").await;
    let bad = call(&c, "page.click", Some(&sid), json!({"selector": "#go", "click_count": "x"})).await;
    assert_eq!(api_error(&bad).code, ErrorCode::BadRequest);
    c.health().await.unwrap();

    sup.settle_log(&c).await;

    let events = sup.log_events();
    let named = |name: &str| events.iter().filter(|e| e["message"] == name).cloned().collect::<Vec<Value>>();
    for e in named("browser_runtime_starting").iter().chain(&named("browser_runtime_ready")) {
        assert_eq!(e["browser.provider"], "chromium", "{e}");
    }
    assert_eq!(named("browser_runtime_starting").len(), 1);
    assert!(named("browser_runtime_ready")[0]["duration_ms"].is_u64());
    let started = named("browser_action_started");
    let goto = started.iter().find(|e| e["browser.action"] == "page.goto").expect("goto started");
    assert_eq!(goto["browser.session_id"], "logged");
    assert_eq!(goto["browser.provider"], "chromium");
    let ok = named("browser_action_succeeded");
    let goto_ok = ok.iter().find(|e| e["browser.action"] == "page.goto").expect("goto succeeded");
    assert!(goto_ok["duration_ms"].is_u64());
    let health = ok.iter().find(|e| e["browser.action"] == "runtime.health").expect("health");
    assert!(health.get("browser.session_id").is_none(), "no session: the field is left out: {health}");
    let failed = named("browser_action_failed");
    let click = failed.iter().find(|e| e["browser.action"] == "page.click").expect("click failed");
    assert!(click["error.message"].as_str().unwrap().contains("bad params"), "{click}");
    assert_eq!(click["browser.session_id"], "logged");
    for e in &events {
        for (k, v) in e.as_object().unwrap() {
            assert_ne!(v, "", "field {k} is written empty in {e}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_warm_up_the_first_request_starts_the_browser() {
    let sup = Supervisor::with_config("[browser.sandbox]\nruntime_warmup_on_start = false\n");
    let c = sup.client().await;
    sup.settle_log(&c).await;
    assert_eq!(sup.count_events("browser_runtime_ready"), 0, "listening before any browser");
    let health = c.health().await.unwrap();
    assert!(health.browser_pid > 0);
    sup.settle_log(&c).await;
    assert_eq!(sup.count_events("browser_runtime_starting"), 1);
    assert_eq!(sup.count_events("browser_runtime_ready"), 1);
    assert_eq!(c.stats().await.unwrap().restarts, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runtime_not_required_serves_and_answers_browser_unavailable() {
    let dir = temp_dir();
    let toml = "[browser]\npath = \"/nonexistent/chromium\"\n[browser.sandbox]\nruntime_required = false\n";
    let args = Supervisor::config_args(&dir, toml);
    let sup = Supervisor::start_in(dir, &args.iter().map(String::as_str).collect::<Vec<_>>());
    let c = sup.client().await;
    let r = call(&c, "session.start", None, json!({})).await;
    let e = api_error(&r);
    assert_eq!(e.code, ErrorCode::BrowserUnavailable, "{e:?}");
    assert!(e.message.contains("/nonexistent/chromium"), "names what failed: {}", e.message);
    sup.settle_log(&c).await;
    assert_eq!(sup.count_events("browser_runtime_restarting"), 1, "one restart in the start-up cycle");
    assert_eq!(sup.count_events("browser_runtime_restart_failed"), 1);
    // Requests that need no browser still work.
    assert!(c.session_list().await.unwrap().sessions.is_empty());
}

#[test]
fn a_required_runtime_that_cannot_start_exits_with_the_reason() {
    let dir = temp_dir();
    let args = Supervisor::config_args(&dir, "[browser]\npath = \"/nonexistent/chromium\"\n");
    let out = std::process::Command::new(sb_tests::bin_path("sandbox-browser"))
        .arg("serve")
        .arg("--socket")
        .arg(dir.path().join("browser.sock"))
        .args(&args)
        .env_remove("SANDBOX_BROWSER_CHROMIUM")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("browser_runtime_restart_failed"), "{stderr}");
    assert!(stderr.contains("/nonexistent/chromium does not exist"), "{stderr}");
    assert!(!dir.path().join("browser.sock").exists());
}

/// The browser dying under an action answers one documented code with the right cause, every time
/// (`page_reset`, browser_restarted), and an action sent the moment it died never lands on a worker
/// started on the dead browser (`worker_crashed`): it runs on the restarted one, on its page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_that_dies_under_an_action_answers_page_reset_browser_restarted() {
    let Fixture { pages, sup, c } = Fixture::start().await;
    let sid = session_at_slow_page(&c, &pages, "d").await;
    for round in 0..3 {
        let pid = c.health().await.unwrap().browser_pid;
        let started = sup.count_events("browser_action_started");
        let slow = {
            let c = c.clone();
            let sid = sid.clone();
            tokio::spawn(async move {
                let expr = json!({"expression": "new Promise((r) => setTimeout(r, 3000))"});
                call(&c, "page.evaluate", Some(&sid), expr).await
            })
        };
        sup.wait_for_log("the evaluate started", |events| {
            events.iter().filter(|e| e["message"] == "browser_action_started").count() > started
        });
        killpg(Pid::from_raw(pid as i32), Signal::SIGKILL).unwrap();
        let r = slow.await.unwrap();
        match r.error {
            // Killed under the worker's evaluate: the answer names the cause, and the next action
            // runs on the reopened page and says so.
            Some(e) => {
                assert_eq!(e.code, ErrorCode::PageReset, "round {round}: {e:?}");
                assert!(e.message.contains("browser_restarted"), "round {round}: {e:?}");
                wait_until_dead(pid);
                let next = read_heading(&c, &sid).await;
                assert_eq!(result(&next)["reset_reason"], "browser_restarted", "round {round}: {next:?}");
            }
            // Killed before the action reached the worker: it waited for the restart and ran on the
            // reopened page.
            None => {
                assert_eq!(result(&r)["reset_reason"], "browser_restarted", "round {round}: {r:?}");
                read_heading(&c, &sid).await;
            }
        }
    }
    // Killed, and at once the next action: it lands on the dying browser (and says so) or waits for
    // the restart and runs on the reopened page; never `worker_crashed`, `cdp_error` or the wrong cause.
    let pid = c.health().await.unwrap().browser_pid;
    killpg(Pid::from_raw(pid as i32), Signal::SIGKILL).unwrap();
    let expr = json!({"expression": "[location.pathname, document.querySelector('h1')?.textContent]"});
    let next = call(&c, "page.evaluate", Some(&sid), expr).await;
    match next.error {
        Some(e) => {
            assert_eq!(e.code, ErrorCode::PageReset, "{e:?}");
            assert!(e.message.contains("browser_restarted"), "{e:?}");
            read_heading(&c, &sid).await;
        }
        None => {
            assert_eq!(result(&next)["reset_reason"], "browser_restarted", "{next:?}");
            assert_eq!(result(&next)["value"], json!(["/test/slow/300", "Hello from the test server"]));
        }
    }
}

/// A URL that crashes the renderer is never reopened: the tab comes back at the last URL that loaded;
/// and a URL that crashed the renderer twice is not reopened again (`about:blank`, `crash_loop`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashing_url_is_not_reopened_and_a_crash_loop_stops() {
    let config = format!("{}{}", sb_tests::MORE_SCHEMES, sb_tests::DEVTOOLS_PORT);
    let Fixture { pages, sup, c } = Fixture::with_config(&config).await;
    let sid = session_at_slow_page(&c, &pages, "c").await;
    let r = call(&c, "page.goto", Some(&sid), json!({"url": "chrome://crash"})).await;
    let e = api_error(&r);
    assert_eq!(e.code, ErrorCode::PageReset, "{e:?}");
    // The next action runs at once on the last page that loaded, not on chrome://crash.
    read_heading(&c, &sid).await;

    // The page itself crashes twice: the second time it is not reopened.
    for round in 0..2 {
        let target = c.session_list().await.unwrap().sessions[0].target_id.clone();
        crash_renderer(&sup, &target).await;
        let expr = json!({"expression": "location.href"});
        let r = call(&c, "page.evaluate", Some(&sid), expr).await;
        let v = result(&r);
        if round == 0 {
            assert_eq!(v["reset_reason"], "renderer_crashed", "{r:?}");
            assert_eq!(v["value"], json!(pages.url("/test/slow/300")), "{r:?}");
        } else {
            assert_eq!(v["reset_reason"], "crash_loop", "{r:?}");
            assert_eq!(v["value"], json!("about:blank"), "{r:?}");
        }
    }
}

/// Issue 58: a browser death loses no login. A session logs in (an HttpOnly cookie its server set, a
/// `localStorage` token, a `sessionStorage` step of its tab); the browser is killed (SIGKILL): the
/// next read, on the page that shows the Cookie header its request came with, shows the cookie, the
/// token and the step, and the result says what was put back beside `session_reset`. The same after
/// the supervisor is killed and started again. A closed session's kept state is gone from disk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_survives_a_killed_browser_and_a_killed_supervisor() {
    let pages = PageServer::start(None).await;
    let first = Supervisor::start(&[]);
    let c = first.client().await;
    c.session_start(Some("login")).await.unwrap();
    c.goto("login", &pages.url("/test/set-cookie/s3cret"), None).await.unwrap();
    let set = json!({"kind": "local", "action": "set", "key": "token", "value": "t0k3n"});
    assert!(call(&c, "page.storage", Some("login"), set).await.ok);
    c.goto("login", &pages.url("/test/cookie"), None).await.unwrap();
    let step = json!({"expression": "sessionStorage.setItem('step', 'st3p'), 1"});
    assert!(call(&c, "page.evaluate", Some("login"), step).await.ok);
    const CHECK: &str =
        "[document.getElementById('cookie').textContent, localStorage.token, sessionStorage.step]";
    let read = || {
        let c = c.clone();
        async move { call(&c, "page.evaluate", Some("login"), json!({"expression": CHECK})).await }
    };
    assert_eq!(result(&read().await)["value"], json!(["sid=s3cret", "t0k3n", "st3p"]));
    let kept = first.dir.path().join("kept/login.json");
    // The kept state is written after the answer: wait for the file to hold the token and the step.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !std::fs::read_to_string(&kept).is_ok_and(|k| k.contains("t0k3n") && k.contains("st3p")) {
        assert!(std::time::Instant::now() < deadline, "the login was never kept");
        tokio::task::yield_now().await;
    }
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777, 0o600);

    let pid = c.health().await.unwrap().browser_pid;
    killpg(Pid::from_raw(pid as i32), Signal::SIGKILL).unwrap();
    wait_until_dead(pid);
    let next = read().await;
    let value = result(&next);
    assert_eq!(
        (value["session_reset"].clone(), value["reset_reason"].clone()),
        (json!(true), json!("browser_restarted"))
    );
    assert_eq!(value["value"], json!(["sid=s3cret", "t0k3n", "st3p"]), "the login is back: {value}");
    assert_eq!(value["restored"], json!({"cookies": 1, "origins": 1, "session_storage": 1}), "{value}");

    drop(c);
    let dir = first.kill_keep_dir();
    let second = Supervisor::start_in(dir, &[]);
    let c = second.client().await;
    let next = call(&c, "page.evaluate", Some("login"), json!({"expression": CHECK})).await;
    let value = result(&next);
    assert_eq!(value["reset_reason"], json!("supervisor_restarted"), "{value}");
    assert_eq!(value["value"], json!(["sid=s3cret", "t0k3n", "st3p"]), "the login is back: {value}");
    assert_eq!(value["restored"], json!({"cookies": 1, "origins": 1, "session_storage": 1}), "{value}");
    // The script that put it back ran once: the page's own change stays after a reload.
    let changed = json!({"expression": "sessionStorage.setItem('step', 'next'), 1"});
    assert!(call(&c, "page.evaluate", Some("login"), changed).await.ok);
    c.goto("login", &pages.url("/test/cookie"), None).await.unwrap();
    let after = call(&c, "page.evaluate", Some("login"), json!({"expression": CHECK})).await;
    let after = result(&after);
    assert_eq!(after["value"][2], json!("next"), "{after}");

    c.session_close("login").await.unwrap();
    assert!(!second.dir.path().join("kept/login.json").exists(), "a closed session's kept state is gone");
}

/// Issue 58: with `[limits] keep_logins = false` nothing of a session's login is written to disk
/// (no `kept/` file), and a browser death loses it, as the setting says.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_logins_off_keeps_nothing_on_disk() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config("[limits]\nkeep_logins = false\n");
    let c = sup.client().await;
    c.session_start(Some("login")).await.unwrap();
    c.goto("login", &pages.url("/test/set-cookie/s3cret"), None).await.unwrap();
    c.goto("login", &pages.url("/test/cookie"), None).await.unwrap();
    let pid = c.health().await.unwrap().browser_pid;
    killpg(Pid::from_raw(pid as i32), Signal::SIGKILL).unwrap();
    wait_until_dead(pid);
    let check = json!({"expression": "document.getElementById('cookie').textContent"});
    let next = call(&c, "page.evaluate", Some("login"), check).await;
    let value = result(&next);
    assert_eq!(value["reset_reason"], json!("browser_restarted"), "{value}");
    assert!(value["restored"].is_null(), "{value}");
    assert_ne!(value["value"], json!("sid=s3cret"), "{value}");
    let kept = sup.dir.path().join("kept");
    let files: Vec<_> =
        std::fs::read_dir(&kept).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    assert!(files.is_empty(), "{files:?}");
}

/// Issue 55 §4: a timeout in the first action after the browser was killed names what the supervisor
/// did for it before the worker's wait: a worker started in the new browser and the session's page
/// reopened at its URL, where it named only the wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_after_a_restart_names_the_supervisors_steps() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    let sid = session_at_index(&c, &pages, "steps").await;
    let pid = c.health().await.unwrap().browser_pid;
    killpg(Pid::from_raw(pid as i32), Signal::SIGKILL).unwrap();
    wait_until_dead(pid);
    let r = c.call("page.wait_for", Some(&sid), json!({"selector": "#never"}), Some(10_000)).await.unwrap();
    let e = r.error.unwrap_or_else(|| panic!("#never appeared: {:?}", r.result));
    assert_eq!(e.code, ErrorCode::Timeout, "{e:?}");
    let (_, steps) = e.message.split_once("(the runtime first: ").unwrap_or_else(|| panic!("{}", e.message));
    assert!(
        steps.contains("started a worker in the new browser (the last one was replaced)"),
        "{}",
        e.message
    );
    let reopened = format!("reopened the session's page at {}", pages.url("/test/index.html"));
    assert!(steps.contains(&reopened), "{}", e.message);
}
