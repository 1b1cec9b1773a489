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

/// Each modifier goes down once and every key event carries the whole mask (Playwright's `Keyboard`);
/// keys may be named by their `code` (`Digit3`, `KeyA`, `NumpadEnter`), as Playwright accepts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn key_combos_hold_each_modifier_once_and_code_names_work() {
    use sb_protocol::api::{ElementParams, PressParams};
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("k")).await.unwrap();
    c.goto("k", &pages.url("/test/form.html"), None).await.unwrap();
    // Every key event on #name, with its location and modifier state.
    c.evaluate(
        "k",
        "window.keys = []; for (const t of ['keydown', 'keyup']) document.querySelector('#name').addEventListener(t, (e) => \
         keys.push(`${e.type}:${e.key}:${e.code}:${e.location}:${e.ctrlKey ? 'c' : ''}${e.shiftKey ? 's' : ''}`)), 1",
        None,
    )
    .await
    .unwrap();
    let name = || ElementParams { reference: None, selector: Some("#name".into()) };
    let press = |key: &str| PressParams { element: name(), key: key.into() };
    let keys = |c: sb_client::Client| async move {
        let v = c
            .evaluate("k", "(() => { const k = keys; window.keys = []; return k.join(' '); })()", None)
            .await;
        v.unwrap().value.unwrap()
    };
    c.press("k", press("Shift+~"), None).await.unwrap();
    assert_eq!(
        keys(c.clone()).await,
        json!("keydown:Shift:ShiftLeft:1:s keydown:~:Backquote:0:s keyup:~:Backquote:0:s keyup:Shift:ShiftLeft:1:")
    );
    c.press("k", press("Control+Shift+~"), None).await.unwrap();
    assert_eq!(
        keys(c.clone()).await,
        json!("keydown:Control:ControlLeft:1:c keydown:Shift:ShiftLeft:1:cs keydown:~:Backquote:0:cs keyup:~:Backquote:0:cs keyup:Shift:ShiftLeft:1:c keyup:Control:ControlLeft:1:")
    );
    for (name, expected) in [
        ("Digit3", "keydown:3:Digit3:0: keyup:3:Digit3:0:"),
        ("KeyA", "keydown:a:KeyA:0: keyup:a:KeyA:0:"),
        ("NumpadEnter", "keydown:Enter:NumpadEnter:3: keyup:Enter:NumpadEnter:3:"),
        ("ShiftRight", "keydown:Shift:ShiftRight:2:s keyup:Shift:ShiftRight:2:"),
    ] {
        c.press("k", press(name), None).await.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(keys(c.clone()).await, json!(expected), "{name}");
    }
    let value = c.evaluate("k", "document.querySelector('#name').value", None).await.unwrap();
    assert_eq!(value.value, Some(json!("~3a")), "the keys typed what a keyboard types");
    let e = c.press("k", press("Hyper+A"), None).await.unwrap_err();
    assert!(e.to_string().contains("KeyA-KeyZ"), "{e}");
}
