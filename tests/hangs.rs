//! Hangs that cannot block the next action: each hang answers within its budget (the client gives up
//! at budget + 2 s, so a runtime that hangs fails these tests), and the session works afterwards.

use sb_client::Client;
use sb_protocol::api::{
    ClickParams, ElementParams, ElementState, LoadState, PressParams, TypeParams, WaitForParams,
};
use sb_protocol::{ErrorBody, ErrorCode, Phase};
use sb_tests::{api_error, descendants, timed, Fixture, PageServer, Supervisor};
use serde_json::json;

const BUDGET: u64 = 2_000;
/// Budget of the actions that check a session after a hang: they may wait for a replacement worker
/// to start, which on a loaded machine takes a while.
const NEXT: u64 = 10_000;
/// Budget of an input that never finishes: longer than the 2 s each input event was once capped at,
/// so an answer at that cap and not at the deadline shows.
const STUCK_INPUT: u64 = 3_000;

async fn page_with_input(c: &Client, pages: &PageServer, sid: &str) {
    c.session_start(Some(sid)).await.unwrap();
    c.goto(sid, &pages.url("/test/index.html"), None).await.unwrap();
    c.evaluate(sid, "document.querySelector('#name').value = 'kept'", None).await.unwrap();
}

/// After a hang answered `error`: the next action works (it may first wait for the tab to be freed,
/// and says so); unless the page was reset (`session_reset`), URL and the input's value survived.
/// Returns whether the page was reset.
async fn assert_session_works(c: &Client, pages: &PageServer, sid: &str, error: &ErrorBody) -> bool {
    assert_eq!(error.code, ErrorCode::Timeout, "a hang answers timeout: {error:?}");
    assert!(error.retryable);
    let expr = json!({"expression": "[location.href, document.querySelector('#name').value]"});
    let r = c.call("page.evaluate", Some(sid), expr, Some(NEXT)).await.unwrap();
    let v = r.result.unwrap_or_else(|| panic!("the next action must work after {error:?}: {:?}", r.error));
    let reset = v.get("session_reset") == Some(&json!(true));
    let value = &v["value"];
    assert_eq!(value[0], json!(pages.url("/test/index.html")), "{v}");
    if reset {
        assert_eq!(v["reset_reason"], json!("tab_stuck"), "{v}");
    } else {
        assert_eq!(value[1], json!("kept"), "the page was not reset, so its state survives: {v}");
    }
    // A type and a click through real input work on the same session.
    let name = ElementParams { reference: None, selector: Some("#name".into()) };
    c.type_text(sid, TypeParams { element: name, text: "+typed".into(), ..Default::default() }, Some(NEXT))
        .await
        .unwrap_or_else(|e| panic!("type after {error:?}: {e}"));
    let go = ElementParams { reference: None, selector: Some("#go".into()) };
    c.click(sid, ClickParams { element: go, ..Default::default() }, Some(NEXT))
        .await
        .unwrap_or_else(|e| panic!("click after {error:?}: {e}"));
    let after =
        c.evaluate(sid, "[document.title, document.querySelector('#name').value]", Some(NEXT)).await.unwrap();
    let expected_value = if reset { "+typed" } else { "kept+typed" };
    assert_eq!(after.value, Some(json!(["clicked", expected_value])));
    reset
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_evaluate_hangs_answer_at_their_deadline_and_leave_the_tab_usable() {
    let Fixture { pages, sup, c } = Fixture::start().await;

    // 1. A synchronous loop: V8's own evaluate timeout stops it.
    page_with_input(&c, &pages, "sync").await;
    let e = api_error(timed(BUDGET, c.evaluate("sync", "while (true) {}", Some(BUDGET))).await);
    assert_eq!(e.phase, Phase::Evaluate);
    assert_session_works(&c, &pages, "sync", &e).await;

    // 2. A loop after an await: whichever ladder step frees the tab (V8's timeout, terminateExecution),
    // after the answer.
    page_with_input(&c, &pages, "await").await;
    let hang = c.evaluate("await", "(async () => { await 0; while (true) {} })()", Some(BUDGET));
    let e = api_error(timed(BUDGET, hang).await);
    assert_eq!(e.phase, Phase::Evaluate);
    assert_session_works(&c, &pages, "await", &e).await;

    // 3. A loop the page starts from a timer, before the next action: that action hits it, answers at
    // its deadline, and the ladder stops the loop after the answer.
    page_with_input(&c, &pages, "timer").await;
    let armed = c.evaluate("timer", "setTimeout(() => { while (true) {} }, 0), 'armed'", Some(BUDGET)).await;
    assert_eq!(armed.unwrap().value, Some(json!("armed")));
    let e = api_error(timed(BUDGET, c.evaluate("timer", "1 + 1", Some(BUDGET))).await);
    assert_session_works(&c, &pages, "timer", &e).await;

    // 4. A promise that never resolves: the tab is not stuck at all.
    page_with_input(&c, &pages, "never").await;
    let e = api_error(timed(BUDGET, c.evaluate("never", "new Promise(() => {})", Some(BUDGET))).await);
    assert_eq!((e.code, e.phase), (ErrorCode::Timeout, Phase::Evaluate));
    assert!(!assert_session_works(&c, &pages, "never", &e).await, "a free tab is not reset");

    // The counters saw it: at least the timer loop needed Runtime.terminateExecution (or a reset).
    let stats = c.stats().await.unwrap();
    assert!(stats.terminate_executions + stats.page_resets >= 1, "{stats:?}");
    let evaluate = &stats.actions["page.evaluate"];
    assert!(evaluate.timeouts >= 4 && evaluate.failures >= 4, "{evaluate:?}");
    assert_eq!(stats.evaluate_ms.count, evaluate.count);
    let failed = |l: &&str| l.contains("browser_action_failed") || l.contains("kill");
    let log = sup.log_text();
    let failures: Vec<&str> = log.lines().filter(failed).collect();
    assert_eq!(stats.worker_kills, 0, "the ladder freed every tab; failures:\n{}", failures.join("\n"));
}

/// The next action after a timeout waits for the tab to be freed inside its own budget, and says how
/// long (`waited_for_recovery_ms`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_action_waits_for_the_freeing_and_says_so() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    page_with_input(&c, &pages, "w").await;
    // A loop the page runs from a timer: the action that meets it times out, and only the ladder
    // (a probe that gets no answer, then Runtime.terminateExecution) frees the tab, after the answer.
    let armed = c.evaluate("w", "setTimeout(() => { while (true) {} }, 0), 'armed'", Some(BUDGET)).await;
    assert_eq!(armed.unwrap().value, Some(json!("armed")));
    let e = api_error(timed(BUDGET, c.evaluate("w", "1 + 1", Some(BUDGET))).await);
    assert_eq!(e.code, ErrorCode::Timeout);
    let r = c.call("page.evaluate", Some("w"), json!({"expression": "1 + 1"}), Some(NEXT)).await.unwrap();
    let v = r.result.unwrap_or_else(|| panic!("{:?}", r.error));
    assert_eq!(v["value"], json!(2));
    assert!(v["waited_for_recovery_ms"].as_u64().is_some(), "{v}");
    // Said once: the action after it did not wait.
    let r = c.call("page.evaluate", Some("w"), json!({"expression": "1 + 2"}), Some(NEXT)).await.unwrap();
    assert!(r.result.unwrap().get("waited_for_recovery_ms").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn goto_to_a_server_that_never_answers_returns_timed_out() {
    let pages = PageServer::start(None).await;
    let silent_url = pages.url("/test/never");
    let sup = Supervisor::start(&[]);
    let c = sup.client().await;
    page_with_input(&c, &pages, "nav").await;
    let g = c.goto("nav", &silent_url, Some(BUDGET)).await.unwrap();
    assert!(g.timed_out, "{g:?}");
    assert_eq!(g.load_state, "none", "nothing committed: {g:?}");
    assert_eq!(g.url, pages.url("/test/index.html"), "the tab still shows the previous page");
    let e = ErrorBody::new(ErrorCode::Timeout, Phase::Navigate, "");
    assert_session_works(&c, &pages, "nav", &e).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_worker_is_killed_and_replaced() {
    let Fixture { pages, sup, c } = Fixture::start().await;
    page_with_input(&c, &pages, "stopped").await;
    let browser_pid = c.health().await.unwrap().browser_pid;
    let worker = descendants(sup.pid())
        .into_iter()
        .find(|p| {
            *p != browser_pid
                && std::fs::read_to_string(format!("/proc/{p}/cmdline")).is_ok_and(|c| c.contains("worker"))
        })
        .expect("the session's worker");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(worker as i32), nix::sys::signal::Signal::SIGSTOP)
        .unwrap();
    // The last resort (the worker killed at the deadline plus a grace) answers inside the window too.
    let e = api_error(timed(BUDGET, c.evaluate("stopped", "1 + 1", Some(BUDGET))).await);
    assert_eq!((e.code, e.phase), (ErrorCode::Timeout, Phase::Evaluate), "{e:?}");
    assert!(e.message.contains("the worker's process was stopped (not running) and was ended"), "{e:?}");
    assert_session_works(&c, &pages, "stopped", &e).await;
    assert!(!sb_tests::alive(worker), "the stopped worker was killed");
    assert_eq!(c.stats().await.unwrap().worker_kills, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_session_does_not_slow_another() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    page_with_input(&c, &pages, "a").await;
    page_with_input(&c, &pages, "b").await;
    let hung = {
        let c = c.clone();
        tokio::spawn(async move {
            c.evaluate("a", "(async () => { await 0; while (true) {} })()", Some(5_000)).await
        })
    };
    // b works several times over while a is hung; a's answer is still outstanding afterwards.
    for i in 0..5 {
        let r = c.evaluate("b", &format!("{i} + 1"), Some(BUDGET)).await.unwrap();
        assert_eq!(r.value, Some(json!(i + 1)));
    }
    assert!(!hung.is_finished(), "a must still be hung while b answered five times");
    let e = api_error(hung.await.unwrap());
    assert_session_works(&c, &pages, "a", &e).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_disconnects_mid_evaluate_stops_the_loop() {
    let Fixture { pages, sup, c } = Fixture::start().await;
    page_with_input(&c, &pages, "gone").await;
    let started_before = evaluate_events(&sup, "browser_action_started");
    {
        use std::io::Write;
        let mut raw = std::os::unix::net::UnixStream::connect(&sup.socket).unwrap();
        let req = json!({"id": 1, "method": "page.evaluate", "session_id": "gone", "timeout_ms": 60_000,
            "params": {"expression": "(async () => { await 0; while (true) {} })()"}});
        raw.write_all(format!("{req}\n").as_bytes()).unwrap();
        // The request must really run before its client goes: wait for the runtime to take it up.
        sup.wait_for_log("the evaluate started", |events| {
            events.iter().filter(|e| is_evaluate(e, "browser_action_started")).count() > started_before
        });
        // Dropping the connection cancels the request.
    }
    // With the loop still running, this would wait for the 60 s evaluate or time out.
    let r = c.evaluate("gone", "document.querySelector('#name').value", Some(5_000)).await.unwrap();
    assert_eq!(r.value, Some(json!("kept")));
    // The cancel is what freed the tab: the abandoned request answered `cancelled`. Its log line is
    // written when its handler ends, which may be after the next request's answer: wait for it.
    let is_cancel =
        |e: &serde_json::Value| is_evaluate(e, "browser_action_failed") && e["error.code"] == "cancelled";
    sup.wait_for_log("the abandoned evaluate answered cancelled", |events| events.iter().any(is_cancel));
    sup.settle_log(&c).await;
    let cancelled = sup.log_events().iter().filter(|e| is_cancel(e)).count();
    assert_eq!(cancelled, 1, "{}", sup.log_text());
}

fn is_evaluate(e: &serde_json::Value, event: &str) -> bool {
    e["message"] == event && e["browser.action"] == "page.evaluate"
}

fn evaluate_events(sup: &Supervisor, event: &str) -> usize {
    sup.log_events().iter().filter(|e| is_evaluate(e, event)).count()
}

/// A key event that fails after the element passed its checks is input, phase `cdp` (it said
/// `actionability`): here the page's keydown handler never returns. It answers at the deadline (it
/// answered at 2 s, each event's old cap).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_press_stuck_after_its_checks_fails_in_phase_cdp() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    page_with_input(&c, &pages, "keys").await;
    c.evaluate(
        "keys",
        "document.querySelector('#name').addEventListener('keydown', () => { while (true) {} })",
        None,
    )
    .await
    .unwrap();
    let name = ElementParams { reference: None, selector: Some("#name".into()) };
    let press = PressParams { element: name, key: "a".into(), ..Default::default() };
    let e = api_error(timed(STUCK_INPUT, c.press("keys", press, Some(STUCK_INPUT))).await);
    assert_eq!(e.phase, Phase::Cdp, "{e:?}");
    assert!(matches!(e.code, ErrorCode::Timeout | ErrorCode::PageReset), "{e:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_each_condition_and_a_wait_that_never_ends() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    page_with_input(&c, &pages, "w").await;
    let later = |js: &str| format!("setTimeout(() => {{ {js} }}, 200), 'scheduled'");
    let wait = |p: WaitForParams| {
        let c = c.clone();
        async move { c.wait_for("w", p, Some(10_000)).await }
    };

    c.evaluate(
        "w",
        &later("document.body.insertAdjacentHTML('beforeend', '<p id=late>late text</p>')"),
        None,
    )
    .await
    .unwrap();
    let r = wait(WaitForParams { selector: Some("#late".into()), ..Default::default() }).await.unwrap();
    assert_eq!(r.matched, "selector #late visible");
    assert_eq!(r.url, pages.url("/test/index.html"));
    wait(WaitForParams { text: Some("late text".into()), ..Default::default() }).await.unwrap();

    c.evaluate("w", &later("document.querySelector('#late').style.visibility = 'hidden'"), None)
        .await
        .unwrap();
    wait(WaitForParams {
        selector: Some("#late".into()),
        state: Some(ElementState::Hidden),
        ..Default::default()
    })
    .await
    .unwrap();
    c.evaluate("w", &later("document.querySelector('#late').remove()"), None).await.unwrap();
    wait(WaitForParams {
        selector: Some("#late".into()),
        state: Some(ElementState::Detached),
        ..Default::default()
    })
    .await
    .unwrap();
    wait(WaitForParams { text_gone: Some("late text".into()), ..Default::default() }).await.unwrap();

    c.evaluate("w", &later("history.pushState({}, '', '/test/step/2.html')"), None).await.unwrap();
    let r = wait(WaitForParams { url: Some("**/step/*.html".into()), ..Default::default() }).await.unwrap();
    assert_eq!(r.url, pages.url("/test/step/2.html"));

    c.evaluate("w", &later("window.ready = 42"), None).await.unwrap();
    wait(WaitForParams { function: Some("() => window.ready === 42".into()), ..Default::default() })
        .await
        .unwrap();
    wait(WaitForParams { load_state: Some(LoadState::Load), ..Default::default() }).await.unwrap();
    c.goto("w", &pages.url("/test/long.html"), None).await.unwrap();
    wait(WaitForParams { load_state: Some(LoadState::NetworkIdle), ..Default::default() }).await.unwrap();
    wait(WaitForParams { time_ms: Some(10), ..Default::default() }).await.unwrap();

    // Never satisfied: timeout in phase wait, then the session works.
    let never = WaitForParams { selector: Some("#never".into()), ..Default::default() };
    let e = api_error(c.wait_for("w", never, Some(BUDGET)).await);
    assert_eq!((e.code, e.phase), (ErrorCode::Timeout, Phase::Wait), "{e:?}");
    assert!(e.message.contains("#never"), "{e:?}");
    assert_eq!(c.evaluate("w", "1 + 1", Some(BUDGET)).await.unwrap().value, Some(json!(2)));

    // Bad input (values the typed params cannot hold go as raw JSON).
    for bad in [
        json!({}),
        json!({"text": "a", "url": "b"}),
        json!({"selector": "#x", "state": "shiny"}),
        json!({"selector": "##"}),
        json!({"load_state": "idle"}),
    ] {
        let answer = c.call("page.wait_for", Some("w"), bad.clone(), Some(BUDGET)).await.unwrap();
        let e = answer.error.unwrap_or_else(|| panic!("{bad}: answered ok"));
        assert_eq!(e.code, ErrorCode::BadRequest, "{bad}: {e:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_that_cannot_be_freed_in_place_is_reset_at_its_url_after_the_answer() {
    let pages = PageServer::start(None).await;
    // A synchronous XHR to a server that never answers blocks the page's main thread outside
    // JavaScript, where Runtime.terminateExecution cannot reach: only the page reset frees the tab.
    let silent_url = pages.url("/test/never");
    let sup = Supervisor::start(&[]);
    let c = sup.client().await;
    page_with_input(&c, &pages, "blocked").await;
    let before = c.session_list().await.unwrap().sessions[0].target_id.clone();
    let expr = format!("(() => {{ const x = new XMLHttpRequest(); x.open('GET', '{silent_url}', false); x.send(); return 1; }})()");
    // The answer comes at the deadline; the ladder resets the tab after it.
    let e = api_error(timed(BUDGET, c.evaluate("blocked", &expr, Some(BUDGET))).await);
    assert_eq!(e.code, ErrorCode::Timeout, "{e:?}");
    assert!(assert_session_works(&c, &pages, "blocked", &e).await, "the tab was reset");
    let after = c.session_list().await.unwrap().sessions[0].target_id.clone();
    assert_ne!(after, before, "the session moved to a new target");
    assert_eq!(c.stats().await.unwrap().page_resets, 1);
}

/// A click whose `mousedown` handler never returns answers `timeout` in phase `cdp` at its deadline
/// (it answered at 2 s, each event's old cap), and the tab is freed after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_whose_handler_never_returns_answers_in_the_input_phase() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    page_with_input(&c, &pages, "busy").await;
    // The button passes every check; pressing it starts a loop in the page.
    c.evaluate("busy", "document.querySelector('#go').onmousedown = () => { while (true) {} }, 1", None)
        .await
        .unwrap();
    let click = ClickParams {
        element: ElementParams { reference: None, selector: Some("#go".into()) },
        ..Default::default()
    };
    let e = api_error(timed(STUCK_INPUT, c.click("busy", click, Some(STUCK_INPUT))).await);
    assert!(matches!(e.code, ErrorCode::Timeout | ErrorCode::PageReset), "{e:?}");
    assert_eq!(e.phase, Phase::Cdp, "the checks had passed; the input hung: {e:?}");
    // The tab is free again (the loop was stopped): the handler can be taken away and the page used.
    c.evaluate("busy", "document.querySelector('#go').onmousedown = null, 1", None).await.unwrap();
    assert_session_works(&c, &pages, "busy", &e).await;
}

/// Input that Chromium cannot take is refused with `bad_request` before it reaches the tab (a wheel
/// of 1e308 was measured to wedge a tab's input on an earlier Chromium), huge click counts too, and
/// the tab keeps taking input.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_range_input_is_refused_and_the_tab_keeps_taking_input() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    page_with_input(&c, &pages, "wedge").await;
    for (method, params) in [
        ("page.scroll", json!({"dy": 1e308})),
        ("page.scroll", json!({"dx": -1e7})),
        ("page.click", json!({"selector": "#go", "click_count": 1_000_000})),
    ] {
        let r = c.call(method, Some("wedge"), params.clone(), Some(BUDGET)).await.unwrap();
        assert_eq!(r.error.map(|e| e.code), Some(ErrorCode::BadRequest), "{method} {params}");
    }
    let r = c.call("page.scroll", Some("wedge"), json!({"dy": 100}), Some(BUDGET)).await.unwrap();
    assert!(r.ok, "{r:?}");
    let go = ElementParams { reference: None, selector: Some("#go".into()) };
    c.click("wedge", ClickParams { element: go, ..Default::default() }, Some(BUDGET)).await.unwrap();
    let title = c.evaluate("wedge", "document.title", None).await.unwrap();
    assert_eq!(title.value, Some(json!("clicked")));
}

/// Issue 55 §4: a timeout on a page that does not answer (a loop it runs from a timer) names the
/// leaf the action was in, from the steps the leaves log: the snapshot's walk, and a locator's
/// resolution (Playwright's call log says "waiting for locator(...)" there), where both answered
/// only that they ran out of time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_on_a_busy_page_names_the_leaf_it_was_in() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    page_with_input(&c, &pages, "busy").await;
    let arm = || c.evaluate("busy", "setTimeout(() => { while (true) {} }, 0), 'armed'", Some(NEXT));
    assert_eq!(arm().await.unwrap().value, Some(json!("armed")));
    let r = c.call("page.snapshot", Some("busy"), json!({}), Some(BUDGET)).await.unwrap();
    let e = r.error.unwrap_or_else(|| panic!("a snapshot of a page in a loop: {:?}", r.result));
    assert_eq!(e.code, ErrorCode::Timeout, "{e:?}");
    assert!(e.message.contains("walking the page's accessibility tree"), "{}", e.message);

    // The tab is freed after that answer; the loop again, and a click by selector meets it.
    assert_eq!(arm().await.unwrap().value, Some(json!("armed")));
    let go = ElementParams { reference: None, selector: Some("#go".into()) };
    let e = api_error(c.click("busy", ClickParams { element: go, ..Default::default() }, Some(BUDGET)).await);
    assert_eq!(e.code, ErrorCode::Timeout, "{e:?}");
    assert!(e.message.ends_with("(resolving selector \"#go\")"), "{}", e.message);
    assert_session_works(&c, &pages, "busy", &e).await;
}

/// Issue 55 §4: a timeout the supervisor answers names the supervisor's own steps too, as the
/// worker's name theirs: an action that waited in the session's queue behind an earlier one and then
/// met its deadline in the worker says how long it waited there, where it named only the worker's
/// wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_after_waiting_in_the_queue_says_how_long_it_waited() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    page_with_input(&c, &pages, "q").await;
    // The first action holds the session's worker for 1 s from the moment the page tells the test.
    let hold = "fetch('/test/release/q-running'); new Promise((r) => setTimeout(() => r(1), 1000))";
    let first = c.evaluate("q", hold, Some(NEXT));
    let second = async {
        pages.get("/test/hold/q-running").await;
        c.call("page.wait_for", Some("q"), json!({"selector": "#never"}), Some(4_000)).await.unwrap()
    };
    let (first, second) = tokio::join!(first, second);
    assert_eq!(first.unwrap().value, Some(json!(1)));
    let e = second.error.unwrap_or_else(|| panic!("#never appeared: {:?}", second.result));
    assert_eq!(e.code, ErrorCode::Timeout, "{e:?}");
    let waited =
        e.message.split("(the runtime first: waited ").nth(1).unwrap_or_else(|| panic!("{}", e.message));
    assert!(waited.ends_with(" ms in the queue behind the session's earlier actions)"), "{}", e.message);
    let ms: u64 = waited.split(' ').next().unwrap().parse().unwrap();
    assert!(ms > 0 && ms < 4_000, "{}", e.message);
}
