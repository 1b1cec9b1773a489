//! The CDP client against a real Chromium, on a route of the relay over the browser's pipe: many calls
//! in flight on one connection, events by flat session, a screenshot message larger than 16 MiB, and a
//! route that ends leaving no session attached; a call whose target closes fails then.

use std::time::Duration;

use base64::Engine;
use sb_cdp::types::{CaptureScreenshotResult, EvaluateResult};
use serde_json::{json, Value};

const T: Duration = Duration::from_secs(20);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multiplexed_calls_events_and_big_frames_on_real_chromium() {
    let dir = tempfile::Builder::new().prefix("sbtest-cdp-").tempdir().unwrap();
    let mut browser = sb_tests::launch_browser(dir.path()).await;

    let targets = browser.client.call_raw("Target.getTargets", None, json!({}), T).await.unwrap();
    let page = targets["targetInfos"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["type"] == "page")
        .expect("the initial about:blank page")["targetId"]
        .as_str()
        .unwrap()
        .to_string();

    let client = sb_cdp::CdpClient::over(browser.relay.route("test", true));
    let session = client.attach(&page, T).await.unwrap();

    // 50 evaluations in flight on one socket; each answer reaches its own caller.
    let calls = (0..50u64).map(|i| {
        let s = session.clone();
        async move {
            let r: EvaluateResult = s
                .call("Runtime.evaluate", json!({"expression": format!("{i} * 2"), "returnByValue": true}), T)
                .await
                .unwrap();
            (i, r.result.value)
        }
    });
    for (i, value) in futures_util::future::join_all(calls).await {
        assert_eq!(value, Some(json!(i * 2)));
    }
    assert_eq!(client.pending_calls(), 0);

    // Events arrive on the session's stream, not on the browser's.
    let mut events = session.events();
    let mut browser_events = client.browser_events();
    session.call_raw("Page.enable", json!({}), T).await.unwrap();
    session.call_raw("Page.navigate", json!({"url": "data:text/html,<title>ev</title>"}), T).await.unwrap();
    loop {
        let ev = tokio::time::timeout(T, events.recv()).await.expect("an event").expect("stream open");
        assert_eq!(ev.session_id.as_deref(), Some(session.id()));
        if ev.method == "Page.loadEventFired" {
            break;
        }
    }
    assert!(browser_events.try_recv().is_none_or(|e| e.session_id.is_none()));

    // A session forgotten (it detached): its streams end, the browser's does not.
    let mut gone = session.events();
    client.forget_session(session.id());
    assert!(tokio::time::timeout(T, gone.recv()).await.expect("the stream ends at once").is_none());
    // The older stream ends too, once the events it already holds are read.
    let ended = async { while events.recv().await.is_some() {} };
    tokio::time::timeout(T, ended).await.expect("every stream of the session ended");
    session.call_raw("Runtime.evaluate", json!({"expression": "1"}), T).await.unwrap();
    assert!(browser_events.try_recv().is_none_or(|e| e.session_id.is_none()));

    // A 2500 x 2500 canvas of noise: the PNG's base64 is far over 16 MiB and arrives as one frame.
    let draw = "(() => { const c = document.createElement('canvas'); c.width = c.height = 2500; \
        c.style.display = 'block'; document.body.style.margin = '0'; document.body.appendChild(c); \
        const x = c.getContext('2d'); const img = x.createImageData(2500, 2500); \
        for (let o = 0; o < img.data.length; o += 65536) crypto.getRandomValues(img.data.subarray(o, o + 65536)); \
        for (let i = 3; i < img.data.length; i += 4) img.data[i] = 255; x.putImageData(img, 0, 0); return true; })()";
    session
        .call_raw("Runtime.evaluate", json!({"expression": draw, "returnByValue": true}), T)
        .await
        .unwrap();
    let shot: CaptureScreenshotResult = session
        .call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true, "clip": {"x": 0, "y": 0, "width": 2500, "height": 2500, "scale": 1}}),
            Duration::from_secs(60),
        )
        .await
        .unwrap();
    assert!(shot.data.len() > 16 * 1024 * 1024, "base64 is {} bytes", shot.data.len());
    let png = base64::engine::general_purpose::STANDARD.decode(&shot.data).unwrap();
    let info = png::Decoder::new(std::io::Cursor::new(png)).read_info().unwrap().info().clone();
    assert_eq!((info.width, info.height), (2500, 2500));
    assert!(client.closed_reason().is_none(), "the big frame must not close the connection");

    // The route ends (a worker killed): the relay detaches its session, and the page is attached to
    // nobody (Chromium says so to the routes that watch the browser).
    let mut watched = browser.client.browser_events();
    assert_eq!(browser.relay.sessions(), 1);
    client.close();
    loop {
        let ev = tokio::time::timeout(T, watched.recv()).await.expect("a detach").expect("open");
        if ev.method == "Target.detachedFromTarget" {
            assert_eq!(ev.params["sessionId"], json!(session.id()));
            break;
        }
    }
    assert_eq!(browser.relay.sessions(), 0);
    let targets = browser.client.call_raw("Target.getTargets", None, json!({}), T).await.unwrap();
    let info: &Value =
        targets["targetInfos"].as_array().unwrap().iter().find(|t| t["targetId"] == json!(page)).unwrap();
    assert_eq!(info["attached"], json!(false), "{info}");
    browser.stop().await;
}

/// A message from the browser over the limit (a page's huge string returned by value, or logged to
/// its console) fails the call it answers, or is dropped as an event, and the connection goes on:
/// the next call on the same session works. Before, the pipe's codec error closed the connection, so
/// the supervisor restarted the browser under every session (measured: `page.evaluate` of
/// `'x'.repeat(3e8)`, over the 256 MiB limit, answered `page_reset` "the browser went away" after
/// 8.6 s, and each session's page state was lost). Here the limit is 1 MiB, so the page's string need
/// not be 256 MiB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_over_the_limit_fails_its_call_and_the_connection_goes_on() {
    let dir = tempfile::Builder::new().prefix("sbtest-cdp-").tempdir().unwrap();
    let mut browser = sb_tests::launch_browser_taking(dir.path(), 1024 * 1024).await;
    let targets = browser.client.call_raw("Target.getTargets", None, json!({}), T).await.unwrap();
    let page = targets["targetInfos"].as_array().unwrap().iter().find(|t| t["type"] == "page").unwrap()
        ["targetId"]
        .as_str()
        .unwrap()
        .to_string();
    let client = sb_cdp::CdpClient::over(browser.relay.route("test", true));
    let session = client.attach(&page, T).await.unwrap();
    let evaluate = |expression: &str| {
        let session = session.clone();
        let params = json!({"expression": expression, "returnByValue": true});
        async move { session.call_raw("Runtime.evaluate", params, T).await }
    };
    let e = evaluate("'x'.repeat(2e6)").await.expect_err("an answer over 1 MiB");
    assert!(e.to_string().contains("over 1048576 bytes"), "{e}");
    assert_eq!(evaluate("1 + 1").await.unwrap()["result"]["value"], json!(2));
    // An event over the limit: dropped; the one after it arrives.
    let mut events = session.events();
    session.call_raw("Runtime.enable", json!({}), T).await.unwrap();
    evaluate("console.log('x'.repeat(2e6)), console.log('after'), 1").await.unwrap();
    loop {
        let ev = tokio::time::timeout(T, events.recv()).await.expect("an event").expect("stream open");
        if ev.method == "Runtime.consoleAPICalled" {
            assert_eq!(ev.params["args"][0]["value"], json!("after"), "the long one was dropped");
            break;
        }
    }
    assert!(client.closed_reason().is_none() && browser.relay.closed_reason().is_none());
    browser.stop().await;
}

/// A call in flight on a session whose target closes fails at once with [`sb_cdp::SESSION_ENDED`]:
/// Chromium never answers it, and it waited out its whole timeout (a page that closed itself under a
/// `page.evaluate` held the action to its budget and then answered `timeout`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_on_a_target_that_closes_fails_then() {
    let dir = tempfile::Builder::new().prefix("sbtest-cdp-").tempdir().unwrap();
    let mut browser = sb_tests::launch_browser(dir.path()).await;
    let page = browser.client.create_target("about:blank", false, None, T).await.unwrap();
    let client = sb_cdp::CdpClient::over(browser.relay.route("test", true));
    let session = client.attach(&page, T).await.unwrap();
    let never = json!({"expression": "new Promise(() => {})", "awaitPromise": true});
    let pending = tokio::spawn({
        let session = session.clone();
        async move { session.call_raw("Runtime.evaluate", never, Duration::from_secs(120)).await }
    });
    // The evaluate is running in the page before the page goes.
    assert_eq!(
        session
            .call_raw("Runtime.evaluate", json!({"expression": "1", "returnByValue": true}), T)
            .await
            .unwrap()["result"]["value"],
        json!(1)
    );
    browser.client.call_raw("Target.closeTarget", None, json!({"targetId": page}), T).await.unwrap();
    match pending.await.unwrap() {
        Err(sb_cdp::CdpError::Protocol { code, message, .. }) => {
            assert_eq!(code, sb_cdp::SESSION_ENDED_CODE, "{message}");
            assert!(message.starts_with(sb_cdp::SESSION_ENDED), "{message}");
        }
        other => panic!("expected the session's end, got {other:?}"),
    }
    assert!(client.closed_reason().is_none(), "the connection goes on");
    browser.stop().await;
}
