//! Actions that behave as Playwright's do (issue 13), each on a real page: the browser as Playwright
//! launches it (popups, scrollbars), the keyboard, select, evaluate results.

use sb_tests::Fixture;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn popups_from_page_code_open_and_scrollbars_take_no_room() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("p")).await.unwrap();
    // A popup opened by the page's load handler (no user gesture) is not blocked: it joins the session.
    c.goto("p", &pages.url("/test/opener.html"), None).await.unwrap();
    let w = sb_protocol::api::WaitForParams {
        function: Some("() => window.opened".into()),
        ..Default::default()
    };
    c.wait_for("p", w, None).await.unwrap();
    let tabs = c.call("tabs.list", Some("p"), json!({}), None).await.unwrap();
    let tabs = tabs.result.unwrap()["tabs"].as_array().unwrap().len();
    assert_eq!(tabs, 2, "the popup joined the session's tabs");
    // Scrollbars take no layout width on a page taller than the viewport.
    c.goto("p", &pages.url("/test/long.html"), None).await.unwrap();
    let widths = c.evaluate("p", "[document.documentElement.clientWidth, innerWidth, document.documentElement.scrollHeight > innerHeight]", None).await.unwrap();
    let v = widths.value.unwrap();
    assert_eq!(v[0], v[1], "{v}");
    assert_eq!(v[2], json!(true), "the page scrolls: {v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_measures_the_configured_viewport() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("v")).await.unwrap();
    c.goto("v", &pages.url("/test/index.html"), None).await.unwrap();
    let size = c.evaluate("v", "[innerWidth, innerHeight, devicePixelRatio]", None).await.unwrap();
    assert_eq!(size.value, Some(json!([1280, 800, 1])), "the window's chrome takes nothing from the page");
}
