//! The client's multiplexing against a scripted fake CDP peer: faults a real browser cannot be made to
//! show on demand (a socket that drops with calls in flight, replies in reverse order).

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use sb_cdp::{CdpClient, CdpError};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

const LONG: Duration = Duration::from_secs(60);

/// A peer that reads `n` calls, then runs `then` with the socket and the calls it read.
async fn fake_peer<F, Fut>(n: usize, then: F) -> String
where
    F: FnOnce(tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>, Vec<Value>) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        let mut calls = Vec::new();
        while calls.len() < n {
            match ws.next().await {
                Some(Ok(Message::Text(t))) => calls.push(serde_json::from_str::<Value>(t.as_str()).unwrap()),
                Some(Ok(_)) => {}
                _ => return,
            }
        }
        then(ws, calls).await;
    });
    format!("ws://{addr}/devtools/browser/fake")
}

#[tokio::test]
async fn a_dropped_socket_fails_every_pending_call_at_once() {
    let url = fake_peer(3, |ws, _| async move { drop(ws) }).await;
    let client = CdpClient::connect(&url, LONG).await.unwrap();
    let calls = (0..3).map(|i| {
        let c = client.clone();
        async move { c.call_raw(&format!("Test.m{i}"), None, json!({}), LONG).await }
    });
    let results = tokio::time::timeout(Duration::from_secs(30), futures_util::future::join_all(calls))
        .await
        .expect("pending calls must fail when the socket drops, not wait for their 60 s timeout");
    for r in results {
        assert!(matches!(r, Err(CdpError::Closed { .. })), "{r:?}");
    }
    assert!(client.closed_reason().is_some());
    let after = client.call_raw("Test.after", None, json!({}), LONG).await;
    assert!(matches!(after, Err(CdpError::Closed { .. })), "{after:?}");
}

#[tokio::test]
async fn replies_out_of_order_reach_their_callers_and_events_route_by_session() {
    let url = fake_peer(3, |mut ws, calls| async move {
        ws.send(Message::Text(json!({"method": "X.ev", "params": {"n": 1}, "sessionId": "S1"}).to_string().into()))
            .await
            .unwrap();
        ws.send(Message::Text(json!({"method": "X.ev", "params": {"n": 2}}).to_string().into())).await.unwrap();
        for call in calls.iter().rev() {
            let reply = if call["method"] == "Test.fail" {
                json!({"id": call["id"], "error": {"code": -32000, "message": "No target with given id found"}})
            } else {
                json!({"id": call["id"], "result": {"echo": call["method"], "session": call.get("sessionId")}})
            };
            ws.send(Message::Text(reply.to_string().into())).await.unwrap();
        }
        // Keep the socket open until the client goes away.
        while ws.next().await.is_some() {}
    })
    .await;
    let client = CdpClient::connect(&url, LONG).await.unwrap();
    let mut s1_events = client.session_events("S1");
    let mut browser_events = client.browser_events();
    let session = client.session("S1".into());
    let (a, b, c) = tokio::join!(
        client.call_raw("Test.a", None, json!({}), LONG),
        session.call_raw("Test.b", json!({}), LONG),
        client.call_raw("Test.fail", None, json!({}), LONG),
    );
    assert_eq!(a.unwrap(), json!({"echo": "Test.a", "session": null}));
    assert_eq!(b.unwrap(), json!({"echo": "Test.b", "session": "S1"}));
    match c {
        Err(CdpError::Protocol { code, message, method }) => {
            assert_eq!(
                (code, message.as_str(), method.as_str()),
                (-32000, "No target with given id found", "Test.fail")
            )
        }
        other => panic!("{other:?}"),
    }
    let ev = s1_events.recv().await.unwrap();
    assert_eq!((ev.method.as_str(), ev.params["n"].as_i64()), ("X.ev", Some(1)));
    let ev = browser_events.recv().await.unwrap();
    assert_eq!(ev.params["n"].as_i64(), Some(2));
    assert!(s1_events.try_recv().is_none(), "a browser event must not reach a session subscriber");
}

#[tokio::test]
async fn timed_out_and_cancelled_calls_leave_no_pending_entry() {
    let url = fake_peer(1, |mut ws, _| async move { while ws.next().await.is_some() {} }).await;
    let client = CdpClient::connect(&url, LONG).await.unwrap();
    let r = client.call_raw("Test.never", None, json!({}), Duration::from_millis(50)).await;
    assert!(matches!(r, Err(CdpError::Timeout { .. })), "{r:?}");
    assert_eq!(client.pending_calls(), 0);

    let c = client.clone();
    let task = tokio::spawn(async move { c.call_raw("Test.cancelled", None, json!({}), LONG).await });
    while client.pending_calls() == 0 {
        tokio::task::yield_now().await;
    }
    task.abort();
    let _ = task.await;
    assert_eq!(client.pending_calls(), 0, "a dropped call future must remove its pending entry");
}
