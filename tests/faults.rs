//! Faults a real browser cannot be made to show on demand, injected by a CDP proxy between the worker and
//! a real Chromium's relay (everything else the worker does reaches the browser unchanged).
//!
//! Input that no longer answers while the page's JavaScript does (measured on an earlier Chromium after
//! a wheel of 1e308: every later `Input.dispatchMouseEvent` went unanswered until a navigation): the
//! proxy stops passing on the answers to one session's mouse events.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sb_cdp::wire::{Inbound, Outbound, Wire};
use sb_cdp::Relay;
use sb_protocol::api::{LoadState, MouseButton};
use sb_protocol::ipc::{Action, InputAction, Locator, Output, WaitCondition};
use sb_protocol::{Budget, ErrorCode, Phase};
use sb_supervisor::lifecycle::link::Link;
use sb_supervisor::lifecycle::spawner::Spawner;
use sb_supervisor::workers::worker::{WorkerHandle, WorkerLauncher};
use sb_tests::{bin_path, PageServer};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

const T: Duration = Duration::from_secs(20);

/// A CDP proxy in front of `upstream` (a route of the browser's relay), as a relay the worker gets its
/// route on: once `armed`, the first session that sends `Input.dispatchMouseEvent` gets no answer to
/// any of its mouse events again (its other calls, and other sessions, pass).
fn wedge(upstream: Wire, armed: Arc<AtomicBool>) -> Relay {
    let Wire { inbound: mut up_in, outbound: up_out } = upstream;
    let (down_tx, down_in) = mpsc::channel(1024);
    let (down_out, mut from_down) = mpsc::unbounded_channel::<Outbound>();
    let dropped: Arc<Mutex<HashSet<i64>>> = Arc::default();
    let (wedged, seen) = (Arc::new(Mutex::new(None::<String>)), dropped.clone());
    tokio::spawn(async move {
        while let Some(out) = from_down.recv().await {
            if let Outbound::Message(t) = &out {
                let v: Value = serde_json::from_str(t).unwrap_or_default();
                if armed.load(Ordering::SeqCst) && v["method"] == "Input.dispatchMouseEvent" {
                    let session = v["sessionId"].as_str().unwrap_or_default().to_string();
                    let mut w = wedged.lock().unwrap();
                    if w.get_or_insert_with(|| session.clone()) == &session {
                        seen.lock().unwrap().insert(v["id"].as_i64().unwrap_or(-1));
                    }
                }
            }
            if up_out.send(out).is_err() {
                break;
            }
        }
    });
    tokio::spawn(async move {
        while let Some(msg) = up_in.recv().await {
            if let Inbound::Message(t) = &msg {
                let v: Value = serde_json::from_str(t).unwrap_or_default();
                if v["id"].as_i64().is_some_and(|id| dropped.lock().unwrap().contains(&id)) {
                    continue;
                }
            }
            if down_tx.send(msg).await.is_err() {
                break;
            }
        }
    });
    Relay::start(Wire { inbound: down_in, outbound: down_out })
}

fn click_go() -> Action {
    let click = InputAction::Click { button: MouseButton::Left, click_count: 1, modifiers: Vec::new() };
    Action::Input { target: Some(Locator::Selector("#go".into())), input: click, settle_ms: 0 }
}

/// The input times out at its deadline (phase `cdp`); after the answer the ladder finds the page's
/// JavaScript answering but its input not, and resets the tab; the next action waits for that, runs on
/// the reopened page and reports the reset (`tab_stuck`); a click works again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_whose_input_is_wedged_while_its_javascript_answers_is_reset() {
    let pages = PageServer::start(None).await;
    let dir = tempfile::Builder::new().prefix("sbtest-faults-").tempdir().unwrap();
    let mut browser = sb_tests::launch_browser(dir.path()).await;
    let client = browser.client.clone();
    let target = client.create_target(&pages.url("/test/index.html"), true, None, T).await.unwrap();
    let armed = Arc::new(AtomicBool::new(false));
    let relay = wedge(browser.relay.route("wedge", true), armed.clone());
    let link = Link { client: client.clone(), relay, browser: 1 };
    let launcher = WorkerLauncher {
        spawner: Spawner::start(),
        exe: bin_path("sandbox-browser"),
        log_format: "json".into(),
        viewport: None,
        emulation: Default::default(),
    };
    let cancel = CancellationToken::new();
    let mut worker =
        WorkerHandle::spawn(&launcher, &link, &target, Default::default(), Budget::new(T)).await.unwrap();
    let loaded = Action::WaitFor { condition: WaitCondition::LoadState(LoadState::Load) };
    worker.run("page.wait_for", (Phase::Wait, false), loaded, Budget::new(T), &cancel).await.unwrap();
    worker
        .run("page.click", (Phase::Actionability, false), click_go(), Budget::new(T), &cancel)
        .await
        .expect("a click before the wedge");

    armed.store(true, Ordering::SeqCst);
    let budget = Duration::from_millis(2_000);
    let started = std::time::Instant::now();
    let e = worker
        .run("page.click", (Phase::Actionability, false), click_go(), Budget::new(budget), &cancel)
        .await
        .unwrap_err();
    let took = started.elapsed();
    assert_eq!((e.code, e.phase), (ErrorCode::Timeout, Phase::Cdp), "{e:?}");
    assert!(e.message.contains("Input.dispatchMouseEvent"), "{e:?}");
    assert!(
        took + Duration::from_millis(100) >= budget && took <= budget + Duration::from_millis(100),
        "{took:?}"
    );

    let title = Action::Evaluate { expression: "document.title".into(), frame: None, arg_json: None };
    let out =
        worker.run("page.evaluate", (Phase::Evaluate, false), title, Budget::new(T), &cancel).await.unwrap();
    assert!(
        matches!(out, Output::Evaluate(ref v) if v.value_json.as_deref() == Some("\"Test Index\"")),
        "{out:?}"
    );
    assert_eq!(worker.take_reset_reason().as_deref(), Some("tab_stuck"));
    assert!(worker.take_recovery_waited().is_some(), "the evaluate waited for the reset");
    assert_ne!(worker.target_id(), target, "the tab was replaced");
    worker
        .run("page.click", (Phase::Actionability, false), click_go(), Budget::new(T), &cancel)
        .await
        .expect("a click after the reset");
    worker.shutdown(Duration::from_secs(2)).await;
    browser.stop().await;
}
