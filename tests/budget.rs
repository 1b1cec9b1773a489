//! The caller's budget belongs to the action (issue 12): like Playwright's `timeout`, it means "wait
//! this long". An action that cannot finish answers `timeout` (`timed_out` for a navigation) inside
//! `[T - EARLY, T + LATE]`, never early and never late; an action that needs 300 ms succeeds with the
//! smallest budget (1000 ms).

use sb_protocol::api::WaitForParams;
use sb_protocol::{ErrorCode, Phase};
use sb_tests::{api_error, timed, Fixture};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_that_cannot_finish_answer_at_their_deadline() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("t")).await.unwrap();
    for budget in [1_000, 3_000] {
        c.goto("t", &pages.url("/test/index.html"), None).await.unwrap();

        // A wait that is never met.
        let never = WaitForParams { selector: Some("#never".into()), ..Default::default() };
        let e = api_error(timed(budget, c.wait_for("t", never, Some(budget))).await);
        assert_eq!((e.code, e.phase), (ErrorCode::Timeout, Phase::Wait), "{e:?}");

        // A promise that never resolves.
        let e = api_error(timed(budget, c.evaluate("t", "new Promise(() => {})", Some(budget))).await);
        assert_eq!((e.code, e.phase), (ErrorCode::Timeout, Phase::Evaluate), "{e:?}");

        // A busy loop (V8's own timeout stops it).
        let e = api_error(timed(budget, c.evaluate("t", "while (true) {}", Some(budget))).await);
        assert_eq!((e.code, e.phase), (ErrorCode::Timeout, Phase::Evaluate), "{e:?}");

        // A server that never answers: the navigation does not commit.
        let g = timed(budget, c.goto("t", &pages.url("/test/never"), Some(budget))).await.unwrap();
        assert!(g.timed_out, "{g:?}");
        assert_eq!(g.load_state, "none", "{g:?}");
    }
    // A server that answers after 1500 ms, budget 1234 (the measurement: 98 ms).
    let slow = pages.url("/test/slow/1500");
    let g = timed(1_234, c.goto("t", &slow, Some(1_234))).await.unwrap();
    assert!(g.timed_out, "{g:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_that_need_300_ms_succeed_with_the_smallest_budget() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("f")).await.unwrap();
    let budget = Some(1_000);
    // A page that loads in about 100 ms.
    let g = c.goto("f", &pages.url("/test/slow/100"), budget).await.unwrap();
    assert!(!g.timed_out, "{g:?}");
    assert_eq!(g.title, "Test Index");
    // A snapshot of a small page.
    let s = c.call("page.snapshot", Some("f"), json!({}), budget).await.unwrap();
    sb_tests::checked_snapshot(&s);
    let text = s.result.unwrap_or_else(|| panic!("{:?}", s.error))["snapshot"].as_str().unwrap().to_string();
    assert!(text.contains("button \"Go\""), "{text}");
    // A script that takes 300 ms.
    let r = c.evaluate("f", "new Promise((r) => setTimeout(() => r('late'), 300))", budget).await.unwrap();
    assert_eq!(r.value, Some(json!("late")));
    // Text that appears after 200 ms.
    c.evaluate(
        "f",
        "setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p>appeared</p>'), 200), 1",
        budget,
    )
    .await
    .unwrap();
    let w = WaitForParams { text: Some("appeared".into()), ..Default::default() };
    c.wait_for("f", w, budget).await.unwrap();
}
