//! Actions that behave as Playwright's do (issue 13), each on a real page: the browser as Playwright
//! launches it (popups, scrollbars), the keyboard, select, evaluate results.

use sb_protocol::ErrorCode;
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
    let v = widths.into_inner().value.unwrap();
    assert_eq!(v[0], v[1], "{v}");
    assert_eq!(v[2], json!(true), "the page scrolls: {v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_measures_the_configured_viewport_or_the_sessions_own() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("v")).await.unwrap();
    c.goto("v", &pages.url("/test/index.html"), None).await.unwrap();
    let size = c.evaluate("v", "[innerWidth, innerHeight, devicePixelRatio]", None).await.unwrap();
    assert_eq!(size.value, Some(json!([1280, 800, 1])), "the window's chrome takes nothing from the page");

    // A session of its own size and scale, kept by its pages (a screenshot is at that scale).
    let start =
        json!({"session_id": "m", "viewport": {"width": 390, "height": 700}, "device_scale_factor": 2});
    let r = c.call("session.start", None, start, None).await.unwrap();
    assert!(r.ok, "{r:?}");
    c.goto("m", &pages.url("/test/index.html"), None).await.unwrap();
    let size = c.evaluate("m", "[innerWidth, innerHeight, devicePixelRatio]", None).await.unwrap();
    assert_eq!(size.value, Some(json!([390, 700, 2])));
    let shot = c.call("page.screenshot", Some("m"), json!({}), None).await.unwrap().result.unwrap();
    assert_eq!((shot["width"].clone(), shot["height"].clone()), (json!(780), json!(1400)));
    // Changed for the running session: its page now (the session keeps it for the workers it starts
    // later).
    let r = c.call("page.set_viewport", Some("m"), json!({"width": 800, "height": 600}), None).await.unwrap();
    assert_eq!(r.result.unwrap_or_default()["width"], json!(800));
    let size = c.evaluate("m", "[innerWidth, innerHeight, devicePixelRatio]", None).await.unwrap();
    assert_eq!(size.value, Some(json!([800, 600, 1])));
    let bad = c.call("page.set_viewport", Some("m"), json!({"width": 0, "height": 600}), None).await.unwrap();
    assert_eq!(bad.error.map(|e| e.code), Some(ErrorCode::BadRequest));
    for bad in [json!({"viewport": {"width": 0, "height": 10}}), json!({"device_scale_factor": 9})] {
        let r = c.call("session.start", None, bad.clone(), None).await.unwrap();
        assert_eq!(r.error.map(|e| e.code), Some(ErrorCode::BadRequest), "{bad}");
    }
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
    let press = |key: &str| PressParams { element: name(), key: key.into(), ..Default::default() };
    let keys = |c: sb_client::Client| async move {
        let v = c
            .evaluate("k", "(() => { const k = keys; window.keys = []; return k.join(' '); })()", None)
            .await;
        v.unwrap().into_inner().value.unwrap()
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
    // Issue 26 §3, as Playwright's Keyboard: with Shift held a key sends its shifted form (`#` on
    // Digit3, keyCode 51, charCode 35); a key pressed as named gets no Shift of its own (`+` on Equal).
    c.evaluate(
        "k",
        "window.codes = []; document.querySelector('#name').addEventListener('keydown', (e) => codes.push('down:' + e.key + ':' + e.keyCode)); \
         document.querySelector('#name').addEventListener('keypress', (e) => codes.push('press:' + e.charCode)), 1",
        None,
    )
    .await
    .unwrap();
    c.press("k", press("Shift+Digit3"), None).await.unwrap();
    assert_eq!(
        keys(c.clone()).await,
        json!("keydown:Shift:ShiftLeft:1:s keydown:#:Digit3:0:s keyup:#:Digit3:0:s keyup:Shift:ShiftLeft:1:")
    );
    c.press("k", press("+"), None).await.unwrap();
    assert_eq!(keys(c.clone()).await, json!("keydown:+:Equal:0: keyup:+:Equal:0:"), "no Shift of its own");
    let codes = c.evaluate("k", "codes.join(' ')", None).await.unwrap().into_inner().value;
    assert_eq!(codes, Some(json!("down:Shift:16 down:#:51 press:35 down:+:187 press:43")));
    let value = c.evaluate("k", "document.querySelector('#name').value", None).await.unwrap();
    assert_eq!(value.value, Some(json!("~3a#+")), "the keys typed what a keyboard types");
    let e = c.press("k", press("Hyper+A"), None).await.unwrap_err();
    assert!(e.to_string().contains("KeyA-KeyZ"), "{e}");
}

/// `page.select` as Playwright's `selectOption`: a value matches an option's value or label, several
/// values on a single `<select>` take the first match, an option not there yet is waited for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_matches_value_or_label_takes_the_first_and_waits_for_options() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("s")).await.unwrap();
    c.goto("s", &pages.url("/test/index.html"), None).await.unwrap();
    c.evaluate(
        "s",
        "document.body.insertAdjacentHTML('beforeend', '<select id=c><option value=r>Red</option><option value=b>Blue</option><option value=g>Green</option></select>'), 1",
        None,
    )
    .await
    .unwrap();
    let select = |values: &[&str]| json!({"selector": "#c", "values": values});
    let picked =
        |r: sb_protocol::api::Response| r.result.unwrap_or_else(|| panic!("{:?}", r.error))["values"].clone();
    let r = c.call("page.select", Some("s"), select(&["Blue"]), None).await.unwrap();
    assert_eq!(picked(r), json!(["b"]), "a label given as a value");
    let r = c.call("page.select", Some("s"), select(&["g", "r"]), None).await.unwrap();
    assert_eq!(picked(r), json!(["r"]), "the first option that matches, in the select's order");
    let r =
        c.call("page.select", Some("s"), json!({"selector": "#c", "labels": ["Green"]}), None).await.unwrap();
    assert_eq!(picked(r), json!(["g"]));
    // An option that appears after 200 ms.
    c.evaluate(
        "s",
        "setTimeout(() => document.querySelector('#c').insertAdjacentHTML('beforeend', '<option value=p>Purple</option>'), 200), 1",
        None,
    )
    .await
    .unwrap();
    let r = c.call("page.select", Some("s"), select(&["Purple"]), Some(3_000)).await.unwrap();
    assert_eq!(picked(r), json!(["p"]));
    let r = c.call("page.select", Some("s"), select(&["Teal"]), Some(1_000)).await.unwrap();
    let e = r.error.unwrap();
    assert_eq!(e.code, ErrorCode::Timeout, "{e:?}");
    assert!(e.message.contains("Teal"), "{e:?}");
}

/// Evaluate results as Playwright's serializer gives them: an object with its own `toJSON` as it is
/// (issue 26 §3: Playwright does not call it), platform objects as a short description; a `data:` URL
/// has no HTTP status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evaluate_keeps_objects_as_they_are_and_describes_platform_objects() {
    let Fixture { pages, sup: _sup, c } = Fixture::with_config(sb_tests::MORE_SCHEMES).await;
    c.session_start(Some("e")).await.unwrap();
    c.goto("e", &pages.url("/test/index.html"), None).await.unwrap();
    let r = c.evaluate("e", "({toJSON: () => 'string', data: 'data'})", None).await.unwrap();
    assert_eq!(r.value, Some(json!({"toJSON": {"$function": "toJSON"}, "data": "data"})));
    let r = c.evaluate("e", "[window, document, document.body, location, navigator]", None).await.unwrap();
    assert_eq!(
        r.value,
        Some(
            json!([{"$object": "Window"}, {"$node": "#document"}, {"$node": "<body>"}, {"$object": "Location"}, {"$object": "Navigator"}])
        )
    );
    let r = c.evaluate("e", "(() => { class P { constructor() { this.x = 1; } } return [new P(), new URL('http://a/b')]; })()", None).await.unwrap();
    assert_eq!(r.value, Some(json!([{"x": 1}, "http://a/b"])), "the page's own classes keep their fields");
    let g = c.goto("e", "data:text/html,<h1>Data</h1>", None).await.unwrap();
    assert_eq!(g.status, None, "{g:?}");
}

/// Issue 26 §1: a click answers as soon as its effects are known, and a dialog its handler's timer
/// raises 100 ms later is never lost: answered by policy and reported in the session's next result (a
/// `page.wait_for` here), or in the click's own result when the click asks for a window (`settle_ms`);
/// `page.wait_for {dialog: true}` waits for one. A prompt reports its default value and an accepted
/// prompt without text answers with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_dialog_is_reported_in_the_next_result_or_within_settle_ms() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("d")).await.unwrap();
    c.goto("d", &pages.url("/test/index.html"), None).await.unwrap();
    c.evaluate(
        "d",
        "document.querySelector('#go').onclick = () => setTimeout(() => { alert('later'); document.title = 'after ' + Date.now(); }, 100), 1",
        None,
    )
    .await
    .unwrap();
    let later = json!([{"type": "alert", "message": "later", "accepted": false}]);
    let click = |settle: Option<u64>| {
        let mut params = json!({"selector": "#go"});
        if let Some(ms) = settle {
            params["settle_ms"] = ms.into();
        }
        c.call("page.click", Some("d"), params, None)
    };
    // No window: the click's answer does not wait for the timer; the next result carries the dialog.
    let v = click(None).await.unwrap().result.unwrap();
    assert!(v.get("dialogs").is_none(), "{v}");
    let v = c
        .call("page.wait_for", Some("d"), json!({"function": "document.title.startsWith('after')"}), None)
        .await
        .unwrap()
        .result
        .unwrap();
    assert_eq!(v["dialogs"], later, "{v}");
    // A window the click asks for: the dialog is the click's own.
    let v = click(Some(400)).await.unwrap().result.unwrap();
    assert_eq!(v["dialogs"], later, "{v}");
    // Waiting for a dialog.
    click(None).await.unwrap();
    let v = c.call("page.wait_for", Some("d"), json!({"dialog": true}), None).await.unwrap().result.unwrap();
    assert_eq!((&v["matched"], &v["dialogs"]), (&json!("dialog"), &later), "{v}");
    let none = c.call("page.wait_for", Some("d"), json!({"dialog": true}), Some(1_000)).await.unwrap();
    assert_eq!(none.error.unwrap().code, ErrorCode::Timeout);

    c.call("page.handle_dialog", Some("d"), json!({"accept": true}), None).await.unwrap();
    let r = c
        .call("page.evaluate", Some("d"), json!({"expression": "prompt('Name?', 'Ann')"}), None)
        .await
        .unwrap();
    let v = r.result.unwrap();
    assert_eq!(v["value"], json!("Ann"), "accepted with its default value: {v}");
    assert_eq!(
        v["dialogs"],
        json!([{"type": "prompt", "message": "Name?", "accepted": true, "default_value": "Ann"}]),
        "{v}"
    );
}

/// Selectors pierce open shadow roots (actions and `wait_for`), and a link whose text is slotted
/// light-DOM content is clicked, not reported covered by its host (Playwright's `expectHitTarget`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selectors_pierce_shadow_roots_and_slotted_content_is_the_hit_target() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("sh")).await.unwrap();
    c.goto("sh", &pages.url("/test/shadow.html"), None).await.unwrap();
    let w = sb_protocol::api::WaitForParams { selector: Some("span.inner".into()), ..Default::default() };
    c.wait_for("sh", w, Some(2_000)).await.unwrap();
    let r = c.call("page.click", Some("sh"), json!({"selector": "#deep"}), None).await.unwrap();
    assert!(r.ok, "{r:?}");
    assert_eq!(c.evaluate("sh", "document.title", None).await.unwrap().value, Some(json!("deep clicked")));

    let snap = c.call("page.snapshot", Some("sh"), json!({"interactive": true}), None).await.unwrap();
    sb_tests::checked_snapshot(&snap);
    let text = snap.result.unwrap()["snapshot"].as_str().unwrap().to_string();
    let line = text.lines().find(|l| l.contains("link \"Docs\"")).unwrap_or_else(|| panic!("{text}"));
    let reference = line.split("[ref=").nth(1).unwrap().trim_end_matches([']', ':']).to_string();
    let r = c.call("page.click", Some("sh"), json!({"ref": reference}), Some(3_000)).await.unwrap();
    assert!(r.ok, "the slotted link is the hit target: {r:?}");
    assert_eq!(c.evaluate("sh", "document.title", None).await.unwrap().value, Some(json!("link clicked")));
}

/// A full-page screenshot leaves the page as it was: the same layout width, height and viewport after
/// the capture (scrollbars hidden, the viewport's metrics restored).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_page_screenshot_leaves_the_layout_as_it_was() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("f")).await.unwrap();
    c.goto("f", &pages.url("/test/long.html"), None).await.unwrap();
    let measure = "[document.documentElement.clientWidth, document.documentElement.scrollHeight, innerWidth, innerHeight]";
    let before = c.evaluate("f", measure, None).await.unwrap().into_inner().value;
    let shot = c.call("page.screenshot", Some("f"), json!({"full_page": true}), None).await.unwrap();
    assert!(shot.ok, "{shot:?}");
    let after = c.evaluate("f", measure, None).await.unwrap().into_inner().value;
    assert_eq!(before, after);
    let after = after.unwrap();
    assert_eq!((&after[2], &after[3]), (&json!(1280), &json!(800)));
}

/// `page.screenshot` takes a `clip` (CSS px of the viewport) and an element (`ref` or `selector`: its
/// box, scrolled into view), as Playwright's `clip` and element screenshots.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screenshots_of_a_clip_and_of_an_element() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("c")).await.unwrap();
    c.goto("c", &pages.url("/test/long.html"), None).await.unwrap();
    c.evaluate("c", "scrollTo(0, 300), 1", None).await.unwrap();
    let shot = |params: serde_json::Value| {
        let c = c.clone();
        async move { c.call("page.screenshot", Some("c"), params, None).await.unwrap() }
    };
    let size = |r: &sb_protocol::api::Response| {
        let v = r.result.as_ref().unwrap_or_else(|| panic!("{:?}", r.error));
        (v["width"].as_u64().unwrap(), v["height"].as_u64().unwrap())
    };
    let r = shot(json!({"clip": {"x": 10, "y": 20, "width": 100, "height": 50}})).await;
    assert_eq!(size(&r), (100, 50));
    // An element below the fold: scrolled into view and captured at its own size.
    c.evaluate(
        "c",
        "document.body.insertAdjacentHTML('beforeend', '<div id=box style=\"width: 120px; height: 70px; background: red\"></div>'), 1",
        None,
    )
    .await
    .unwrap();
    let r = shot(json!({"selector": "#box"})).await;
    assert_eq!(size(&r), (120, 70));
    let both = shot(json!({"selector": "#box", "clip": {"x": 0, "y": 0, "width": 10, "height": 10}})).await;
    assert_eq!(both.error.map(|e| e.code), Some(ErrorCode::BadRequest));
    let bad = shot(json!({"clip": {"x": 0, "y": 0, "width": 0, "height": 10}})).await;
    assert_eq!(bad.error.map(|e| e.code), Some(ErrorCode::BadRequest));
}

/// `page.frames` lists the frame tree, out-of-process iframes included (Playwright's `page.frames()`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_frames_lists_the_frame_tree() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    sb_tests::session_at_frames(&c, &pages, "fr", Some(10_000)).await;
    let r = c.call("page.frames", Some("fr"), json!({}), None).await.unwrap();
    let v = r.result.unwrap_or_else(|| panic!("{:?}", r.error));
    let frames = v["frames"].as_array().unwrap();
    assert!(frames.len() >= 2, "{v}");
    let main = &frames[0];
    assert!(main.get("parent_id").is_none(), "{v}");
    assert_eq!(main["url"], json!(pages.url("/test/frames.html")));
    assert!(frames[1..].iter().all(|f| f["parent_id"].is_string()), "every other frame has a parent: {v}");
    assert!(frames.iter().any(|f| f["url"].as_str().is_some_and(|u| u.contains("/test/child.html"))), "{v}");
}

/// Issue 56 §7: console messages read as Playwright's `ConsoleMessage.type()` and `.text()` give them
/// (`renderPreview` in `crProtocolHelper.ts`): objects from V8's preview (`{foo: bar, n: Object}`, not
/// `Object`), arrays with their holes, a DOM node as `JSHandle@node`. The expected lines are what
/// playwright-core printed for the same calls on the same Chromium (2026-11-29).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn console_messages_read_as_playwrights_text() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("con")).await.unwrap();
    c.goto("con", &pages.url("/test/index.html"), None).await.unwrap();
    let calls = "console.log('hello', 5, {foo: 'bar', n: {x: 1}}, [1, , 3], null, undefined, 1.5, true, NaN, \
                 document.body, function f() {}); console.info('i'); console.table([1]); console.dir({a: 1}); 1";
    let r = c.call("page.evaluate", Some("con"), json!({"expression": calls}), None).await.unwrap();
    assert!(r.ok, "{r:?}");
    let r = c.call("page.console", Some("con"), json!({"level": "debug"}), None).await.unwrap();
    let v = r.result.unwrap_or_else(|| panic!("{:?}", r.error));
    let got: Vec<(String, String)> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["type"].as_str().unwrap().to_string(), m["text"].as_str().unwrap().to_string()))
        .collect();
    let want = [
        ("log", "hello 5 {foo: bar, n: Object} [1, empty, 3] null undefined 1.5 true NaN JSHandle@node function f() {}"),
        ("info", "i"),
        ("table", "[1]"),
        ("dir", "{a: 1}"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(t, x)| (t.to_string(), x.to_string())).collect();
    assert_eq!(got, want, "{v}");
}

/// Issue 56 §3: `page.evaluate {arg}` passes a JSON value to the script, as Playwright's
/// `page.evaluate(fn, arg)`: to a `function` (after the element with `ref`/`selector`, as
/// `locator.evaluate(fn, arg)`), and to an `expression` whose value is a function. Text with quotes
/// arrives as it was sent: nothing is spliced into the source. Before, `arg` was refused as an unknown
/// parameter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evaluate_passes_its_arg_as_playwright_does() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("arg")).await.unwrap();
    c.goto("arg", &pages.url("/test/index.html"), None).await.unwrap();
    let eval = |params: serde_json::Value| {
        let c = &c;
        async move {
            let r = c.call("page.evaluate", Some("arg"), params.clone(), None).await.unwrap();
            r.result.unwrap_or_else(|| panic!("{params}: {:?}", r.error))["value"].clone()
        }
    };
    let data = json!({"x": 20, "list": [1, 2], "nested": {"s": "it's \"quoted\" </script>"}});
    let v = eval(json!({"function": "(a) => [a.x * 2 + a.list.length, a.nested.s]", "arg": data})).await;
    assert_eq!(v, json!([42, "it's \"quoted\" </script>"]));
    let v =
        eval(json!({"function": "(el, suffix) => el.tagName + suffix", "selector": "h1", "arg": "!"})).await;
    assert_eq!(v, json!("H1!"));
    let snap = sb_tests::snapshot(&c, "arg", sb_protocol::api::SnapshotParams::default()).await.unwrap();
    let heading = snap.snapshot.lines().find(|l| l.contains("heading")).unwrap().to_string();
    let heading = heading.split("[ref=").nth(1).unwrap().split(']').next().unwrap();
    let v = eval(json!({"function": "(el, n) => el.tagName.repeat(n)", "ref": heading, "arg": 2})).await;
    assert_eq!(v, json!("H1H1"));
    let v = eval(json!({"expression": "(s) => s.toUpperCase()", "arg": "a'b\"c"})).await;
    assert_eq!(v, json!("A'B\"C"));
    // Without arg, as before.
    let v = eval(json!({"function": "(...all) => all.length"})).await;
    assert_eq!(v, json!(0));
}

/// `page.evaluate {frame}` runs in that frame's main world, as Playwright's `frame.evaluate`: a
/// same-process child frame by its `frame_id`, an out-of-process one by its `<iframe>`'s ref, a
/// function too; a frame the page does not have, or a ref that owns no frame, is `bad_request`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evaluate_runs_in_the_frame_it_is_given() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    sb_tests::session_at_frames(&c, &pages, "ef", Some(10_000)).await;
    let eval = |params: serde_json::Value| {
        let c = &c;
        async move { c.call("page.evaluate", Some("ef"), params, None).await.unwrap() }
    };
    let frames = c.call("page.frames", Some("ef"), json!({}), None).await.unwrap().result.unwrap();
    let same = frames["frames"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["url"] == "about:srcdoc")
        .unwrap_or_else(|| panic!("{frames}"))["frame_id"]
        .clone();
    // The page sets a global in its own main world; the frame has its own.
    let r = eval(json!({"expression": "window.mark = 'inner'; document.querySelector('button').textContent", "frame": same})).await;
    assert_eq!(r.result.unwrap_or_else(|| panic!("{:?}", r.error))["value"], json!("Inner button"));
    let r = eval(
        json!({"expression": "[typeof window.mark, document.querySelector('#same').contentWindow.mark]"}),
    )
    .await;
    assert_eq!(
        r.result.unwrap()["value"],
        json!(["undefined", "inner"]),
        "the frame's main world, not an isolated one"
    );
    let r = eval(json!({"function": "() => location.href", "frame": same})).await;
    assert_eq!(r.result.unwrap()["value"], json!("about:srcdoc"));

    // The cross-site frame (out of process) by its <iframe>'s ref.
    let snap = sb_tests::snapshot(&c, "ef", sb_protocol::api::SnapshotParams::default())
        .await
        .unwrap()
        .into_inner()
        .snapshot;
    let ref_of = |prefix: &str| -> String {
        let line =
            snap.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix} in:\n{snap}"));
        line.split("[ref=").nth(1).unwrap().split(']').next().unwrap().to_string()
    };
    // The second iframe (iframes have no name, as in Playwright's snapshot): the cross-site one.
    let remote = snap.lines().filter(|l| l.starts_with("- iframe [ref=")).nth(1).expect(&snap);
    let remote = remote.split("[ref=").nth(1).unwrap().split(']').next().unwrap().to_string();
    let r = eval(json!({"expression": "[location.hostname, document.querySelector('p').textContent]", "frame": remote})).await;
    assert_eq!(
        r.result.unwrap_or_else(|| panic!("{:?}", r.error))["value"],
        json!(["localhost", "Remote text"])
    );

    // What cannot name a frame.
    let heading = ref_of("- heading \"Outer heading\"");
    for (params, says) in [
        (json!({"expression": "1", "frame": "F00D"}), "no frame F00D"),
        (json!({"expression": "1", "frame": heading}), "is not an <iframe>"),
        (json!({"function": "(e) => e", "frame": same, "ref": heading}), "not both"),
    ] {
        let e = eval(params.clone()).await.error.unwrap_or_else(|| panic!("{params} succeeded"));
        assert_eq!(e.code, ErrorCode::BadRequest, "{params}: {}", e.message);
        assert!(e.message.contains(says), "{params}: {}", e.message);
    }
}

/// `page.wait_for {function}` reads the page's globals by any name, as Playwright's
/// `waitForFunction` does. The expression was wrapped as `let v = (...)`, so it could not read a page
/// global named `v` ("Cannot access 'v' before initialization", `evaluate_error`, measured).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_a_function_reads_any_page_global() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("g")).await.unwrap();
    c.goto("g", &pages.url("/test/index.html"), None).await.unwrap();
    c.evaluate("g", "window.v = 2; window.value = 3; window.test = 4; 1", None).await.unwrap();
    for function in ["v === 2 && value === 3 && test === 4", "() => v + value + test === 9"] {
        let r = c.call("page.wait_for", Some("g"), json!({"function": function}), None).await.unwrap();
        assert_eq!(
            r.result.as_ref().map(|v| v["matched"].clone()),
            Some(json!("function")),
            "{function}: {r:?}"
        );
    }
}

/// `page.generate_locator` names an element as Playwright's generator does (Playwright MCP's
/// `browser_generate_locator`). The expected locators are Playwright 1.56's own for the same page
/// (`locator._resolveSelector()` written by `asLocator('javascript', ...)`, on the same headless
/// shell), but for the second of two same-named buttons, where Playwright scopes the button inside its
/// list item and ours picks it by index. Each locator, given back as a `selector`, finds the same
/// element; a ref names it too; a selector that never matches is a timeout that names the selector.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_locators_are_playwrights_and_find_their_element() {
    use sb_tests::{error_of, result_of};
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("g")).await.unwrap();
    c.goto("g", &pages.url("/test/locators.html"), None).await.unwrap();
    let expected = [
        ("[data-testid=save-order]", "getByTestId('save-order')", true),
        ("#submit", "getByRole('button', { name: 'Submit' })", true),
        ("li:nth-child(2) > button", "getByRole('button', { name: 'Delete' }).nth(1)", false),
        ("#search", "getByRole('textbox', { name: 'Search orders' })", true),
        ("#qty", "getByRole('spinbutton', { name: 'Quantity' })", true),
        ("#logo", "getByRole('img', { name: 'Company logo' })", true),
        ("#ship", "getByText('Free shipping over 50 euros')", true),
        ("#help", "getByText('?')", true),
        ("#ok", "getByText('ok')", true),
        (".leaf", "locator('div').nth(3)", false),
        ("h1", "getByRole('heading', { name: 'Orders' })", true),
    ];
    let mark = "el => { window.marked = el; return el.outerHTML.length; }";
    for (selector, locator, unique) in expected {
        let r = result_of(&c, "g", "page.generate_locator", json!({ "selector": selector })).await;
        assert_eq!(
            (r["locator"].as_str(), r["unique"].as_bool()),
            (Some(locator), Some(unique)),
            "{selector}"
        );
        // Given back as a selector, it finds that very element.
        result_of(&c, "g", "page.evaluate", json!({"function": mark, "selector": selector})).await;
        let same = "el => el === window.marked";
        let found = result_of(&c, "g", "page.evaluate", json!({"function": same, "selector": locator})).await;
        assert_eq!(found["value"], json!(true), "{selector}: {locator}");
    }

    // By a snapshot's ref.
    let snap = result_of(&c, "g", "page.snapshot", json!({})).await;
    let text = snap["snapshot"].as_str().unwrap();
    let line = text.lines().find(|l| l.contains("button \"Submit\"")).unwrap_or_else(|| panic!("{text}"));
    let submit = line.split("[ref=").nth(1).unwrap().split(']').next().unwrap();
    let r = result_of(&c, "g", "page.generate_locator", json!({ "ref": submit })).await;
    assert_eq!(r["locator"], "getByRole('button', { name: 'Submit' })");

    // Checked before the page is touched; a selector that never matches times out naming it.
    for bad in [json!({}), json!({"ref": submit, "selector": "h1"}), json!({"selector": "h1", "exact": true})]
    {
        assert_eq!(
            error_of(&c, "g", "page.generate_locator", bad.clone()).await.code,
            ErrorCode::BadRequest,
            "{bad}"
        );
    }
    assert_eq!(
        error_of(&c, "g", "page.generate_locator", json!({"ref": "e999"})).await.code,
        ErrorCode::UnknownRef
    );
    let r =
        c.call("page.generate_locator", Some("g"), json!({"selector": "#never"}), Some(1_000)).await.unwrap();
    let e = r.error.expect("no element matches");
    assert_eq!(e.code, ErrorCode::Timeout, "{e:?}");
    assert!(e.message.contains("resolving selector \"#never\""), "{}", e.message);
}
