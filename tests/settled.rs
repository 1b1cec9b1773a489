//! Settled pages (issue 12): an input that starts a navigation waits for it to commit and says where it
//! went; a snapshot right after it is never empty; `wait_for` goes on in a new document; a navigation
//! under `page.evaluate` is an `evaluate_error` that says so; a read or an input whose document goes
//! away under it goes on in the new one.

use sb_protocol::api::{
    ClickParams, ElementParams, FillParams, Method, PressParams, SelectParams, SelectResult, WaitForParams,
};
use sb_protocol::ErrorCode;
use sb_tests::{api_error, Fixture};
use serde_json::json;

fn css(selector: &str) -> ElementParams {
    ElementParams { reference: None, selector: Some(selector.into()) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_navigating_click_waits_for_the_commit_and_the_snapshot_after_it_is_never_empty() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("n")).await.unwrap();
    let next = pages.url("/test/slow/200");
    for round in 0..20 {
        c.goto("n", &pages.url("/test/nav.html"), None).await.unwrap();
        let click = ClickParams { element: css("#next"), ..Default::default() };
        let r = c.click("n", click, None).await.unwrap();
        assert_eq!(r.navigated_to.as_deref(), Some(next.as_str()), "round {round}: {r:?}");
        let s = c.call("page.snapshot", Some("n"), json!({}), None).await.unwrap();
        sb_tests::checked_snapshot(&s);
        let v = s.result.unwrap_or_else(|| panic!("round {round}: {:?}", s.error));
        let text = v["snapshot"].as_str().unwrap();
        assert!(text.contains("heading \"Hello from the test server\""), "round {round}: {v}");
        assert_eq!(v["loading"], json!(false), "round {round}: {v}");
        assert!(v["lines"].as_u64().unwrap() > 0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enter_in_a_form_and_a_navigating_select_wait_too_and_a_plain_click_reports_no_navigation() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("f")).await.unwrap();
    c.goto("f", &pages.url("/test/nav.html"), None).await.unwrap();
    c.fill("f", FillParams { element: css("#q"), value: "cats".into(), ..Default::default() }, None)
        .await
        .unwrap();
    let r = c
        .press("f", PressParams { element: css("#q"), key: "Enter".into(), ..Default::default() }, None)
        .await
        .unwrap();
    assert_eq!(r.navigated_to, Some(pages.url("/test/slow/200?q=cats")), "{r:?}");
    // The new document has committed (its content may still be arriving: the action waits for the
    // commit, as Playwright's do, and a read of the page waits for DOMContentLoaded).
    let at = c.evaluate("f", "location.pathname + location.search", None).await.unwrap();
    assert_eq!(at.value, Some(json!("/test/slow/200?q=cats")), "the action answered on the new document");

    c.goto("f", &pages.url("/test/nav.html"), None).await.unwrap();
    let select =
        SelectParams { element: css("#go"), values: vec!["/test/slow/200".into()], ..Default::default() };
    let r: SelectResult =
        c.request::<SelectResult>(Method::PageSelect, Some("f"), select, None).await.unwrap().into_inner();
    assert_eq!(r.navigated_to, Some(pages.url("/test/slow/200")), "{r:?}");

    c.goto("f", &pages.url("/test/index.html"), None).await.unwrap();
    let r = c.click("f", ClickParams { element: css("#go"), ..Default::default() }, None).await.unwrap();
    assert_eq!(
        (r.navigated_to.clone(), r.navigation_pending),
        (None, false),
        "a button that navigates nowhere"
    );

    // A link to a place in another page says the place too (Page.frameNavigated's urlFragment; the
    // fragment was left out: an agent read /test/form.html and not which part it was sent to).
    let link = "document.body.insertAdjacentHTML('beforeend', '<a id=\"to\" href=\"/test/form.html#save\">To</a>'), 1";
    c.evaluate("f", link, None).await.unwrap();
    let r = c.click("f", ClickParams { element: css("#to"), ..Default::default() }, None).await.unwrap();
    assert_eq!(r.navigated_to, Some(pages.url("/test/form.html#save")), "{r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_goes_on_in_the_new_document_and_evaluate_says_the_page_navigated() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("w")).await.unwrap();
    c.goto("w", &pages.url("/test/nav.html"), None).await.unwrap();
    c.evaluate("w", "setTimeout(() => { location.href = '/test/slow/100'; }, 50), 1", None).await.unwrap();
    let w = WaitForParams { text: Some("Hello from the test server".into()), ..Default::default() };
    let r = c.wait_for("w", w, Some(5_000)).await.unwrap();
    assert_eq!(r.url, pages.url("/test/slow/100"));

    c.goto("w", &pages.url("/test/nav.html"), None).await.unwrap();
    let e = api_error(
        c.evaluate(
            "w",
            "new Promise(() => { setTimeout(() => { location.href = '/test/index.html'; }, 50); })",
            Some(5_000),
        )
        .await,
    );
    assert_eq!(e.code, ErrorCode::EvaluateError, "{e:?}");
    assert!(e.message.contains("navigated while the script ran"), "{e:?}");
}

/// A page that reloads itself (a hundred times, as each load ends): a snapshot or an extract taken
/// while it does, and a click on what only its last document has, go on in the new document. The
/// snapshot answered `cdp_error` "Cannot find context with specified id" (31 of 40 on a page that
/// refreshes itself at once), the click the same at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_and_inputs_go_on_across_a_page_that_reloads_itself() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("r")).await.unwrap();
    c.goto("r", &pages.url("/test/reloading.html"), None).await.unwrap();
    let mut reloads_seen = std::collections::BTreeSet::new();
    for round in 0..30 {
        let s = c.call("page.snapshot", Some("r"), json!({}), None).await.unwrap();
        let v = s.result.unwrap_or_else(|| panic!("snapshot {round}: {:?}", s.error));
        let text = v["snapshot"].as_str().unwrap();
        reloads_seen.extend(text.lines().filter(|l| l.contains("reload ")).map(str::to_string));
        let e = c.call("page.extract", Some("r"), json!({}), None).await.unwrap();
        assert!(e.error.is_none(), "extract {round}: {:?}", e.error);
    }
    assert!(reloads_seen.len() > 1, "the snapshots saw the page reload: {reloads_seen:?}");
    let click = ClickParams { element: css("button"), ..Default::default() };
    c.click("r", click, Some(20_000)).await.unwrap();
    let title = c.evaluate("r", "document.title", None).await.unwrap();
    assert_eq!(title.value, Some(json!("done")));
}

/// `page.goto` of a page that sends the tab on from a script while it loads answers once the page it
/// went on to is loaded, as Playwright's goto does (its first response's status): it waited out its
/// whole budget for a `DOMContentLoaded` the replaced document never fired, and answered `timed_out`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn goto_follows_a_redirect_the_page_makes_while_it_loads() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("g")).await.unwrap();
    let r = c.goto("g", &pages.url("/test/redirecting.html"), Some(10_000)).await.unwrap().into_inner();
    assert!(!r.timed_out, "{r:?}");
    assert_eq!(
        (r.url.as_str(), r.title.as_str(), r.status),
        (pages.url("/test/index.html").as_str(), "Test Index", Some(200))
    );
    assert!(r.load_state == "domcontentloaded" || r.load_state == "load", "{r:?}");
}

/// `page.back`, `page.forward` and `page.reload` answer once the document is ready to read
/// (`DOMContentLoaded`), as `page.goto` does: on a page whose image never arrives, back and reload
/// held out their whole budget for a `load` that never came (`timed_out`), where the goto of the same
/// page answered at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_forward_and_reload_answer_when_the_document_is_ready_as_goto_does() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("h")).await.unwrap();
    let unfinished = pages.url("/test/unfinished.html");
    c.goto("h", &pages.url("/test/index.html"), None).await.unwrap();
    let r = c.goto("h", &unfinished, Some(5_000)).await.unwrap();
    assert_eq!((r.load_state.as_str(), r.timed_out), ("domcontentloaded", false), "{r:?}");
    c.goto("h", &pages.url("/test/index.html"), None).await.unwrap();
    let back = c.back("h", Some(5_000)).await.unwrap();
    assert_eq!((back.url.as_str(), back.timed_out), (unfinished.as_str(), false), "{back:?}");
    assert_eq!(back.title, "Unfinished");
    let reload = c.reload("h", Some(5_000)).await.unwrap();
    assert_eq!((reload.load_state.as_str(), reload.timed_out), ("domcontentloaded", false), "{reload:?}");
    c.back("h", None).await.unwrap();
    let forward = c.forward("h", Some(5_000)).await.unwrap();
    assert_eq!((forward.url.as_str(), forward.timed_out), (unfinished.as_str(), false), "{forward:?}");
}

/// Only what the input started is its own: a page whose timers move its URL (`history.replaceState`, a
/// fragment) while the click waits for its button reports no navigation for the click, as Playwright's
/// `waitForSignalsCreatedBy` wraps the input alone. The click answered `navigated_to` the timer's URL.
/// A click whose own handler pushes a URL (a single-page app's link) still reports it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_reports_its_own_navigation_and_not_the_page_timers() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("t")).await.unwrap();
    c.goto("t", &pages.url("/test/index.html"), None).await.unwrap();
    // The URL moves three times, then the button appears (after the last move has been reported: the
    // button is added by the same timer that makes the last move, one task later).
    let page = "(() => { let n = 0; const t = setInterval(() => { n += 1; \
        if (n === 1) history.replaceState({}, '', '?step=1'); \
        if (n === 2) location.hash = 'two'; \
        if (n === 3) { history.pushState({}, '', '/test/index.html?step=3'); clearInterval(t); \
          setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<button id=\"late\">Late</button>'), 100); } \
        }, 100); return 1; })()";
    c.evaluate("t", page, None).await.unwrap();
    let r = c
        .click("t", ClickParams { element: css("#late"), ..Default::default() }, Some(10_000))
        .await
        .unwrap();
    assert_eq!((r.navigated_to.clone(), r.navigation_pending), (None, false), "{r:?}");
    let at = c.evaluate("t", "location.search", None).await.unwrap();
    assert_eq!(at.value, Some(json!("?step=3")), "the page's timers ran");

    let own =
        "document.querySelector('#late').onclick = () => history.pushState({}, '', '/test/app/next'), 1";
    c.evaluate("t", own, None).await.unwrap();
    let r = c.click("t", ClickParams { element: css("#late"), ..Default::default() }, None).await.unwrap();
    assert_eq!(r.navigated_to, Some(pages.url("/test/app/next")), "{r:?}");
}
