//! The multiplexing client, over any transport ([`crate::wire`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};

use crate::types::AttachToTargetResult;
use crate::wire::{closed_reason, Inbound, Outbound, Wire};
use crate::CdpError;

type Reply = Result<Value, CdpError>;

/// A CDP event: `{"method", "params", "sessionId"?}`.
#[derive(Debug, Clone)]
pub struct Event {
    /// E.g. `"Page.domContentEventFired"`.
    pub method: String,
    /// The event's params (`{}` when it has none), shared: every subscription gets the same parsed
    /// value (a page's network events, a few KB each, were copied once for each of a page's five or
    /// so subscriptions).
    pub params: Arc<Value>,
    /// The flat session the event belongs to; `None` for browser-level events.
    pub session_id: Option<String>,
}

impl Event {
    /// The params as `T` (one of [`crate::types`]' event types); `None` when they do not fit.
    pub fn parse<T: DeserializeOwned>(&self) -> Option<T> {
        T::deserialize(&*self.params).ok()
    }
}

/// Events for one subscription, in arrival order. Ends (`recv` gives `None`) when the connection
/// closes. Dropping it unsubscribes.
#[derive(Debug)]
pub struct EventStream {
    rx: mpsc::UnboundedReceiver<Event>,
}

impl EventStream {
    /// The next event, or `None` once the connection is closed.
    pub async fn recv(&mut self) -> Option<Event> {
        self.rx.recv().await
    }

    /// The next event already received, without waiting.
    pub fn try_recv(&mut self) -> Option<Event> {
        self.rx.try_recv().ok()
    }
}

/// The CDP error code of a call whose flat session ended before it was answered
/// (`Target.detachedFromTarget`: its target closed, or it was detached); see [`SESSION_ENDED`].
pub const SESSION_ENDED_CODE: i64 = -32091;

/// The message of a call whose flat session ended before it was answered, followed by the session's id.
pub const SESSION_ENDED: &str =
    "Target closed: its session ended (Target.detachedFromTarget) before the call was answered";

#[derive(Debug, Clone, PartialEq)]
enum Filter {
    /// Events without a `sessionId`.
    Browser,
    /// Events of one flat session.
    Session(String),
}

struct Subscriber {
    filter: Filter,
    tx: mpsc::UnboundedSender<Event>,
}

#[derive(Default)]
struct Pending {
    /// By call id: the method, the flat session it was sent on, and where its answer goes.
    calls: HashMap<u64, (String, Option<String>, oneshot::Sender<Reply>)>,
    /// Why the connection closed, once it has.
    closed: Option<String>,
}

struct Shared {
    pending: Mutex<Pending>,
    subscribers: Mutex<Vec<Subscriber>>,
    closed_tx: watch::Sender<Option<String>>,
}

impl Shared {
    /// Fails every pending call at once and ends every event stream.
    fn close(&self, reason: String) {
        let calls = {
            let mut p = self.pending.lock().unwrap();
            if p.closed.is_some() {
                return;
            }
            p.closed = Some(reason.clone());
            std::mem::take(&mut p.calls)
        };
        tracing::debug!(%reason, pending = calls.len(), "cdp connection closed");
        for (_, (_, _, tx)) in calls {
            let _ = tx.send(Err(CdpError::Closed { reason: reason.clone() }));
        }
        self.subscribers.lock().unwrap().clear();
        self.closed_tx.send_replace(Some(reason));
    }

    /// Fails every call still waiting on flat session `ended` (its target closed, or it was
    /// detached): Chromium never answers them, and each waited out its whole timeout. As Playwright's
    /// `CRSession` rejects its callbacks when its target detaches (`crConnection.ts`).
    fn fail_session(&self, ended: &str) {
        let calls: Vec<_> = {
            let mut p = self.pending.lock().unwrap();
            p.calls.extract_if(|_, (_, session, _)| session.as_deref() == Some(ended)).collect()
        };
        for (_, (method, _, tx)) in calls {
            let message = format!("{SESSION_ENDED} ({ended})");
            let _ = tx.send(Err(CdpError::Protocol { method, code: SESSION_ENDED_CODE, message }));
        }
    }

    fn closed_error(&self) -> CdpError {
        let reason =
            self.pending.lock().unwrap().closed.clone().unwrap_or_else(|| "connection closed".into());
        CdpError::Closed { reason }
    }

    fn dispatch(&self, text: &str) {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Incoming {
            id: Option<u64>,
            result: Option<Value>,
            error: Option<RpcError>,
            method: Option<String>,
            params: Option<Value>,
            session_id: Option<String>,
        }
        #[derive(Deserialize)]
        struct RpcError {
            #[serde(default)]
            code: i64,
            #[serde(default)]
            message: String,
        }
        let msg: Incoming = match serde_json::from_str(text) {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(error = %e, "undecodable CDP message ignored");
                return;
            }
        };
        if let Some(id) = msg.id {
            let entry = self.pending.lock().unwrap().calls.remove(&id);
            if let Some((method, _, tx)) = entry {
                let reply = match msg.error {
                    Some(e) => Err(CdpError::Protocol { method, code: e.code, message: e.message }),
                    None => Ok(msg.result.unwrap_or(Value::Null)),
                };
                let _ = tx.send(reply);
            }
            return;
        }
        let Some(method) = msg.method else { return };
        let event =
            Event { method, params: Arc::new(msg.params.unwrap_or(Value::Null)), session_id: msg.session_id };
        if event.method == "Target.detachedFromTarget" {
            if let Some(ended) = event.params.get("sessionId").and_then(Value::as_str) {
                self.fail_session(ended);
            }
        }
        let mut subs = self.subscribers.lock().unwrap();
        subs.retain(|s| {
            let wanted = match (&s.filter, &event.session_id) {
                (Filter::Browser, None) => true,
                (Filter::Session(want), Some(got)) => want == got,
                _ => false,
            };
            !wanted || s.tx.send(event.clone()).is_ok()
        });
    }
}

/// Removes a call's pending entry when the caller's future ends or is dropped, so that cancelled and
/// timed-out calls do not pile up until the connection closes.
struct PendingGuard {
    shared: Arc<Shared>,
    id: u64,
}

impl Drop for PendingGuard {
    fn drop(&mut self) {
        self.shared.pending.lock().unwrap().calls.remove(&self.id);
    }
}

/// A connection to a browser (its WebSocket, its pipe, or a relay's route). Cheap to clone; the
/// connection closes when the last clone is dropped or [`CdpClient::close`] is called.
#[derive(Clone)]
pub struct CdpClient {
    shared: Arc<Shared>,
    out: mpsc::UnboundedSender<Outbound>,
    next_id: Arc<AtomicU64>,
}

impl std::fmt::Debug for CdpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CdpClient").field("closed", &self.closed_reason()).finish()
    }
}

impl CdpClient {
    /// Opens the WebSocket at `ws_url` (`ws://host:port/devtools/browser/<id>`) within `timeout`
    /// ([`ws::open`](crate::wire::ws::open)) and speaks CDP over it.
    ///
    /// # Errors
    /// [`CdpError::Url`] for a bad URL, [`CdpError::Connect`] when the handshake fails or times out.
    pub async fn connect(ws_url: &str, timeout: Duration) -> Result<CdpClient, CdpError> {
        Ok(CdpClient::over(crate::wire::ws::open(ws_url, timeout).await?))
    }

    /// [`CdpClient::connect`] to a remote browser: `wss:` with `remote`'s TLS roots and headers
    /// ([`ws::open_with`](crate::wire::ws::open_with)).
    ///
    /// # Errors
    /// As [`CdpClient::connect`]; [`CdpError::Tls`].
    pub async fn connect_with(
        ws_url: &str,
        timeout: Duration,
        remote: &crate::tls::Remote,
    ) -> Result<CdpClient, CdpError> {
        Ok(CdpClient::over(crate::wire::ws::open_with(ws_url, timeout, remote).await?))
    }

    /// A client over any transport: a WebSocket, the browser's pipe, a relay's route
    /// ([`crate::wire`]). Must be called inside a tokio runtime (it spawns the reading task).
    pub fn over(wire: Wire) -> CdpClient {
        let Wire { mut inbound, outbound } = wire;
        let (closed_tx, _) = watch::channel(None);
        let shared = Arc::new(Shared {
            pending: Mutex::new(Pending::default()),
            subscribers: Mutex::new(Vec::new()),
            closed_tx,
        });
        let reader_shared = shared.clone();
        tokio::spawn(async move {
            let reason = loop {
                match inbound.recv().await {
                    Some(Inbound::Message(text)) => reader_shared.dispatch(&text),
                    Some(Inbound::Closed(reason)) => break reason,
                    None => break "connection ended".to_string(),
                }
            };
            reader_shared.close(reason);
        });
        CdpClient { shared, out: outbound, next_id: Arc::new(AtomicU64::new(1)) }
    }

    /// Calls `method` and decodes its result into `R`, waiting at most `timeout`.
    ///
    /// `session_id` targets a flat session (from `Target.attachToTarget {flatten: true}`); `None` is
    /// the browser itself.
    ///
    /// # Errors
    /// [`CdpError::Timeout`], [`CdpError::Closed`] (also when the socket drops mid-call),
    /// [`CdpError::Protocol`] for Chromium's JSON-RPC errors, [`CdpError::Decode`] when the result does
    /// not fit `R`.
    pub async fn call<R: DeserializeOwned>(
        &self,
        method: &str,
        session_id: Option<&str>,
        params: Value,
        timeout: Duration,
    ) -> Result<R, CdpError> {
        let value = self.call_raw(method, session_id, params, timeout).await?;
        serde_json::from_value(value)
            .map_err(|e| CdpError::Decode { method: method.into(), reason: e.to_string() })
    }

    /// Calls `method` and returns its raw `result`. See [`CdpClient::call`].
    ///
    /// # Errors
    /// As [`CdpClient::call`], but never [`CdpError::Decode`].
    pub async fn call_raw(
        &self,
        method: &str,
        session_id: Option<&str>,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, CdpError> {
        self.send_raw(method, session_id, params, timeout).await
    }

    /// Sends `method` now and returns its answer's future: calls sent one after another reach
    /// Chromium in that order (a renderer runs one session's DOM and Runtime commands in the order they
    /// arrive), so a caller can pipeline them without waiting for each answer. The answer is the raw
    /// `result`, within `timeout` counted from now. Dropping the future forgets the call.
    ///
    /// # Errors
    /// As [`CdpClient::call`], but never [`CdpError::Decode`].
    pub fn send_raw(
        &self,
        method: &str,
        session_id: Option<&str>,
        params: Value,
        timeout: Duration,
    ) -> impl std::future::Future<Output = Result<Value, CdpError>> + Send + 'static {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        let shared = self.shared.clone();
        let method = method.to_string();
        let sent = {
            let mut p = self.shared.pending.lock().unwrap();
            match &p.closed {
                Some(reason) => Err(CdpError::Closed { reason: reason.clone() }),
                None => {
                    p.calls.insert(id, (method.clone(), session_id.map(str::to_string), tx));
                    Ok(())
                }
            }
        };
        let guard = sent.is_ok().then(|| PendingGuard { shared: shared.clone(), id });
        let sent = sent.and_then(|()| {
            let mut msg = serde_json::json!({"id": id, "method": method, "params": params});
            if let Some(sid) = session_id {
                msg["sessionId"] = Value::String(sid.to_string());
            }
            self.out.send(Outbound::Message(msg.to_string())).map_err(|_| shared.closed_error())
        });
        let deadline = tokio::time::Instant::now() + timeout;
        async move {
            let _guard = guard;
            sent?;
            match tokio::time::timeout_at(deadline, rx).await {
                Err(_) => Err(CdpError::Timeout { method, timeout }),
                Ok(Err(_)) => Err(shared.closed_error()),
                Ok(Ok(reply)) => reply,
            }
        }
    }

    /// Subscribes to browser-level events (those without a `sessionId`).
    pub fn browser_events(&self) -> EventStream {
        self.subscribe(Filter::Browser)
    }

    /// Subscribes to the events of flat session `session_id`. Subscribe before sending the command
    /// whose events you wait for. The stream ends when the connection closes or
    /// [`CdpClient::forget_session`] is called.
    pub fn session_events(&self, session_id: &str) -> EventStream {
        self.subscribe(Filter::Session(session_id.to_string()))
    }

    /// Ends every event stream of flat session `session_id` (their `recv` answers `None`): for a
    /// session that is gone (`Target.detachedFromTarget`), whose streams would otherwise wait forever.
    pub fn forget_session(&self, session_id: &str) {
        self.shared
            .subscribers
            .lock()
            .unwrap()
            .retain(|s| !matches!(&s.filter, Filter::Session(id) if id == session_id));
    }

    fn subscribe(&self, filter: Filter) -> EventStream {
        let (tx, rx) = mpsc::unbounded_channel();
        if self.shared.pending.lock().unwrap().closed.is_none() {
            self.shared.subscribers.lock().unwrap().push(Subscriber { filter, tx });
        }
        EventStream { rx }
    }

    /// `Target.attachToTarget {targetId, flatten: true}`: a [`Session`] on this connection.
    ///
    /// # Errors
    /// As [`CdpClient::call`]; [`CdpError::Protocol`] when the target does not exist.
    pub async fn attach(&self, target_id: &str, timeout: Duration) -> Result<Session, CdpError> {
        let r: AttachToTargetResult = self
            .call(
                "Target.attachToTarget",
                None,
                serde_json::json!({"targetId": target_id, "flatten": true}),
                timeout,
            )
            .await?;
        Ok(self.session(r.session_id))
    }

    /// Takes over flat session `session_id`, made by the relay's browser-level auto-attach on another
    /// route ([`crate::relay::ADOPT_SESSION`]): a [`Session`] on this connection, whose target keeps
    /// what that session set on it.
    ///
    /// # Errors
    /// As [`CdpClient::call`]; [`CdpError::Protocol`] when no such session may be taken (or the
    /// connection is not a relay's route).
    pub async fn adopt(&self, session_id: &str, timeout: Duration) -> Result<Session, CdpError> {
        let params = serde_json::json!({"sessionId": session_id});
        self.call_raw(crate::relay::ADOPT_SESSION, None, params, timeout).await?;
        Ok(self.session(session_id.to_string()))
    }

    /// A handle on an already attached flat session.
    pub fn session(&self, session_id: String) -> Session {
        Session { client: self.clone(), session_id }
    }

    /// Why the connection closed, or `None` while it is open.
    pub fn closed_reason(&self) -> Option<String> {
        self.shared.pending.lock().unwrap().closed.clone()
    }

    /// Resolves once the connection is closed, with the reason.
    pub async fn closed(&self) -> String {
        closed_reason(&self.shared.closed_tx, "connection dropped").await
    }

    /// Closes the transport (a WebSocket close frame, the end of a pipe or route); pending calls fail
    /// with [`CdpError::Closed`].
    pub fn close(&self) {
        let _ = self.out.send(Outbound::Close);
        self.shared.close("closed by the client".into());
    }

    /// Number of calls awaiting an answer (for tests and metrics).
    pub fn pending_calls(&self) -> usize {
        self.shared.pending.lock().unwrap().calls.len()
    }
}

/// A flat CDP session (`sessionId`) on a [`CdpClient`] connection.
#[derive(Clone, Debug)]
pub struct Session {
    client: CdpClient,
    session_id: String,
}

impl Session {
    /// The CDP `sessionId`.
    pub fn id(&self) -> &str {
        &self.session_id
    }

    /// The connection this session lives on.
    pub fn client(&self) -> &CdpClient {
        &self.client
    }

    /// [`CdpClient::call`] within this session.
    ///
    /// # Errors
    /// As [`CdpClient::call`].
    pub async fn call<R: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<R, CdpError> {
        self.client.call(method, Some(&self.session_id), params, timeout).await
    }

    /// [`CdpClient::call_raw`] within this session.
    ///
    /// # Errors
    /// As [`CdpClient::call_raw`].
    pub async fn call_raw(&self, method: &str, params: Value, timeout: Duration) -> Result<Value, CdpError> {
        self.client.call_raw(method, Some(&self.session_id), params, timeout).await
    }

    /// [`CdpClient::send_raw`] within this session: sent now, in order with this session's other
    /// calls; the answer's future.
    pub fn send_raw(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> impl std::future::Future<Output = Result<Value, CdpError>> + Send + 'static {
        self.client.send_raw(method, Some(&self.session_id), params, timeout)
    }

    /// This session's events.
    pub fn events(&self) -> EventStream {
        self.client.session_events(&self.session_id)
    }
}
