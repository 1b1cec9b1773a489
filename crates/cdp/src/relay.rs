//! The relay: one browser connection (the browser's pipe) shared by many clients, each on a route of
//! its own, as if each had a connection of its own.
//!
//! Chromium launched with `--remote-debugging-pipe` has exactly one CDP connection, held by whoever
//! launched it. The relay multiplexes it the way Playwright's `CRConnection` multiplexes its sessions:
//! - **ids**: every call a route sends gets a relay-wide id on the way up, and its answer goes back to
//!   that route with the route's own id;
//! - **sessions** (`sessionId`, flat mode): a session belongs to the route that attached it
//!   (`Target.attachToTarget`'s answer, or the browser-level `Target.attachedToTarget` that comes with
//!   it), and a session auto-attached under it (`Target.attachedToTarget` on that session) belongs to
//!   the same route. Its events go to that route only, and a route may send only on its own sessions
//!   (another's answer `Session with given id not found`, as Chromium answers an unknown one);
//! - **auto-attach at the browser level** (`Target.setAutoAttach` without a `sessionId`): a session
//!   it makes on a new target (`Target.attachedToTarget` with `waitingForDebugger`, which no explicit
//!   attach is announced with) belongs to the route that asked for it, which alone hears of it;
//!   another route may take one over ([`ADOPT_SESSION`]), after which the route that gave it may
//!   still answer the paused requests it was told of ([`FETCH_ANSWERS`]). One it makes on a target that was already
//!   there (announced at once, awaited by no route's `Target.attachToTarget`) is detached by the relay:
//!   auto-attach is for new targets;
//! - **browser-level events** (`Target.targetCreated`, ...) go to the routes that asked for them;
//! - **a route that ends** (its client closed it, or it stopped reading: its queue of
//!   [`ROUTE_BUFFER`] messages is full) is detached from every target it attached
//!   (`Target.detachFromTarget`), so a killed worker leaves no session behind, and a stuck one never
//!   stalls the others: the relay never waits for a route.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use tokio::sync::{mpsc, watch};

use crate::wire::{closed_reason, Inbound, Outbound, Wire};

/// The relay's own method, answered by the relay: `{"method": "Relay.adoptSession", "params":
/// {"sessionId"}}` makes a session that auto-attach at the browser level made (the auto-attacher's,
/// at the browser level) the calling route's, with the sessions under it; its overrides stay, as the
/// session does. Answers `{}`, or Chromium's `Session with given id not found.` for any other session.
pub const ADOPT_SESSION: &str = "Relay.adoptSession";

/// Messages a route may have unread before the relay closes it (it is stuck or gone). A page's
/// bursts fit: 20,000 `console.log`s in one script filled the 4,096 it was, so a worker that was
/// reading, only behind, lost its page (the queue grows as it fills: an idle route holds none).
pub const ROUTE_BUFFER: usize = 65_536;

type RouteId = u64;

/// The calls that answer a paused request (`Fetch.requestPaused`, `Fetch.authRequired`), which the
/// route that gave a session away may still send on it: the events it was sent before the session
/// was taken are its to answer (a request nobody answers hangs), those after are the taker's.
pub const FETCH_ANSWERS: [&str; 5] = [
    "Fetch.continueRequest",
    "Fetch.fulfillRequest",
    "Fetch.failRequest",
    "Fetch.continueWithAuth",
    "Fetch.continueResponse",
];
/// The relay's own calls (`Target.detachFromTarget` of a route that ended); their answers are dropped.
const RELAY: RouteId = 0;

/// One browser connection shared by routes. Cheap to clone.
#[derive(Clone)]
pub struct Relay {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Relay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.inner.state.lock().unwrap();
        f.debug_struct("Relay").field("routes", &state.routes.len()).field("closed", &state.closed).finish()
    }
}

struct Inner {
    upstream: mpsc::UnboundedSender<Outbound>,
    state: Mutex<State>,
    closed_tx: watch::Sender<Option<String>>,
    /// Messages read from the browser so far ([`Relay::heard`]).
    heard: AtomicU64,
}

#[derive(Default)]
struct State {
    next_id: u64,
    next_route: RouteId,
    routes: HashMap<RouteId, Route>,
    /// Relay-wide call id -> who sent it.
    pending: HashMap<u64, Call>,
    /// `sessionId` -> its route and the session it was auto-attached under (`None`: attached at the
    /// browser level, so detaching it ends its children too).
    owners: HashMap<String, (RouteId, Option<String>)>,
    /// `sessionId` -> the route that gave it to its route now ([`ADOPT_SESSION`]), which may still
    /// answer the requests it was told were paused ([`FETCH_ANSWERS`]).
    given: HashMap<String, RouteId>,
    /// `targetId` -> the routes whose `Target.attachToTarget` to it awaits its `attachedToTarget`.
    attaching: HashMap<String, VecDeque<RouteId>>,
    /// The route that set auto-attach at the browser level, whose the sessions it makes are.
    auto_attacher: Option<RouteId>,
    closed: Option<String>,
}

struct Route {
    name: String,
    tx: mpsc::Sender<Inbound>,
    browser_events: bool,
}

struct Call {
    route: RouteId,
    id: u64,
    /// The target of a `Target.attachToTarget`.
    attach: Option<String>,
}

/// The fields the relay routes by; everything else is passed through as text.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Head {
    id: Option<u64>,
    method: Option<String>,
    session_id: Option<String>,
    params: Option<HeadParams>,
    result: Option<HeadResult>,
    error: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeadParams {
    /// A flat session's id in `Target.attachedToTarget` / `detachedFromTarget`; other events' params
    /// may have a `sessionId` of another type (`Page.screencastFrame`'s is the frame's number), which
    /// is not one.
    #[serde(default, deserialize_with = "string_or_none")]
    session_id: Option<String>,
    target_id: Option<String>,
    target_info: Option<HeadTarget>,
    /// `Target.setAutoAttach`'s switch.
    auto_attach: Option<bool>,
    /// `Target.attachedToTarget`'s: a new target auto-attached, held until it is let run.
    waiting_for_debugger: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeadTarget {
    target_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeadResult {
    session_id: Option<String>,
}

/// A string, else `None` (a number or anything else in that place).
fn string_or_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    Ok(match v {
        serde_json::Value::String(s) => Some(s),
        _ => None,
    })
}

impl Relay {
    /// Starts relaying `upstream` (the browser's pipe, or any [`Wire`]). Must be called inside a
    /// tokio runtime.
    pub fn start(upstream: Wire) -> Relay {
        let Wire { mut inbound, outbound } = upstream;
        let (closed_tx, _) = watch::channel(None);
        let inner = Arc::new(Inner {
            upstream: outbound,
            state: Mutex::new(State::default()),
            closed_tx,
            heard: AtomicU64::new(0),
        });
        let reader = inner.clone();
        tokio::spawn(async move {
            let reason = loop {
                match inbound.recv().await {
                    Some(Inbound::Message(text)) => {
                        reader.heard.fetch_add(1, Ordering::Relaxed);
                        reader.down(text);
                    }
                    Some(Inbound::Closed(reason)) => break reason,
                    None => break "the browser connection ended".to_string(),
                }
            };
            reader.close(reason);
        });
        Relay { inner }
    }

    /// A new route: a [`Wire`] a [`crate::CdpClient`] (`CdpClient::over`; or a process at the end of an IPC stream) speaks CDP
    /// on. `name` is for logs; with `browser_events` the route also gets the browser-level events no
    /// session owns (`Target.targetCreated`, `Target.targetDestroyed`, ...). The route ends when its
    /// outbound senders are dropped or [`Outbound::Close`] is sent; its sessions are then detached.
    pub fn route(&self, name: &str, browser_events: bool) -> Wire {
        let (tx, inbound) = mpsc::channel(ROUTE_BUFFER);
        let (outbound, mut out_rx) = mpsc::unbounded_channel::<Outbound>();
        let id = {
            let mut state = self.inner.state.lock().unwrap();
            if let Some(reason) = &state.closed {
                let _ = tx.try_send(Inbound::Closed(reason.clone()));
                return Wire { inbound, outbound };
            }
            state.next_route += 1;
            let id = state.next_route;
            state.routes.insert(id, Route { name: name.to_string(), tx, browser_events });
            id
        };
        let inner = self.inner.clone();
        tokio::spawn(async move {
            while let Some(Outbound::Message(text)) = out_rx.recv().await {
                inner.up(id, text);
            }
            inner.end_route(id);
        });
        Wire { inbound, outbound }
    }

    /// Why the browser connection closed, or `None` while it is open.
    pub fn closed_reason(&self) -> Option<String> {
        self.inner.state.lock().unwrap().closed.clone()
    }

    /// Routes open now.
    pub fn routes(&self) -> usize {
        self.inner.state.lock().unwrap().routes.len()
    }

    /// Messages read from the browser so far (answers and events, for every route and for none): a
    /// count that moves while the browser speaks. A call whose answer is late behind a page's flood of
    /// events (one pipe carries them all, in order) sees it move; one to a frozen browser does not.
    pub fn heard(&self) -> u64 {
        self.inner.heard.load(Ordering::Relaxed)
    }

    /// Sessions open now, over all routes.
    pub fn sessions(&self) -> usize {
        self.inner.state.lock().unwrap().owners.len()
    }

    /// Resolves once the browser connection is closed, with the reason.
    pub async fn closed(&self) -> String {
        closed_reason(&self.inner.closed_tx, "the relay is gone").await
    }

    /// Closes the browser connection (the pipe's end: Chromium exits when it reads EOF on fd 3).
    pub fn close(&self) {
        let _ = self.inner.upstream.send(Outbound::Close);
        self.inner.close("closed by the runtime".into());
    }
}

impl Inner {
    /// A call (or anything) a route sends: a relay-wide id on the way up, and only on the route's own
    /// sessions.
    fn up(&self, route: RouteId, text: String) {
        let head: Head = match serde_json::from_str(&text) {
            Ok(head) => head,
            Err(e) => {
                tracing::warn!(error = %e, "undecodable CDP message from a route dropped");
                return;
            }
        };
        let Some(id) = head.id else { return };
        let mut state = self.state.lock().unwrap();
        if !state.routes.contains_key(&route) {
            return;
        }
        if head.method.as_deref() == Some(ADOPT_SESSION) {
            let session = head.params.and_then(|p| p.session_id);
            let answer = match session {
                Some(session) if state.adopt(&session, route) => serde_json::json!({"id": id, "result": {}}),
                _ => {
                    serde_json::json!({"id": id, "error": {"code": -32001, "message": "Session with given id not found."}})
                }
            };
            state.deliver(route, answer.to_string());
            return;
        }
        if let Some(session) = &head.session_id {
            let owned = state.owners.get(session).is_some_and(|(owner, _)| *owner == route);
            let gave = state.given.get(session) == Some(&route)
                && head.method.as_deref().is_some_and(|m| FETCH_ANSWERS.contains(&m));
            if !owned && !gave {
                let answer = serde_json::json!({
                    "id": id,
                    "error": {"code": -32001, "message": "Session with given id not found."},
                    "sessionId": session,
                });
                state.deliver(route, answer.to_string());
                return;
            }
        }
        let attach = match (head.method.as_deref(), head.params) {
            (Some("Target.attachToTarget"), Some(HeadParams { target_id: Some(target), .. })) => {
                state.attaching.entry(target.clone()).or_default().push_back(route);
                Some(target)
            }
            (Some("Target.setAutoAttach"), Some(p)) if head.session_id.is_none() => {
                state.auto_attacher = p.auto_attach.unwrap_or(false).then_some(route);
                None
            }
            _ => None,
        };
        state.next_id += 1;
        let global = state.next_id;
        state.pending.insert(global, Call { route, id, attach });
        drop(state);
        let _ = self.upstream.send(Outbound::Message(with_id(&text, global)));
    }

    /// A message from the browser: an answer to its route, a session's event to the session's route,
    /// a browser-level event to the routes that want them.
    fn down(&self, text: String) {
        let head: Head = match serde_json::from_str(&text) {
            Ok(head) => head,
            Err(e) => {
                tracing::warn!(error = %e, "undecodable CDP message from the browser dropped");
                return;
            }
        };
        let mut state = self.state.lock().unwrap();
        if let Some(global) = head.id {
            let Some(call) = state.pending.remove(&global) else { return };
            if let Some(target) = &call.attach {
                match head.result.and_then(|r| r.session_id) {
                    Some(session) if head.error.is_none() => {
                        state.owners.insert(session, (call.route, None));
                    }
                    // Refused: no `attachedToTarget` will claim the route's place in the queue.
                    _ => state.unqueue(target, call.route),
                }
            }
            if call.route != RELAY {
                state.deliver(call.route, with_id(&text, call.id));
            }
            return;
        }
        let method = head.method.unwrap_or_default();
        let params = head.params;
        let child = params.as_ref().and_then(|p| p.session_id.clone());
        if let Some(session) = head.session_id {
            let Some(&(route, _)) = state.owners.get(&session) else { return };
            match (method.as_str(), child) {
                ("Target.attachedToTarget", Some(child)) => {
                    state.owners.insert(child, (route, Some(session)));
                }
                ("Target.detachedFromTarget", Some(child)) => state.forget(&child),
                _ => {}
            }
            state.deliver(route, text);
            return;
        }
        match (method.as_str(), child) {
            ("Target.attachedToTarget", Some(child)) => {
                let waiting = params.as_ref().and_then(|p| p.waiting_for_debugger) == Some(true);
                let target = params.and_then(|p| p.target_info).and_then(|t| t.target_id).unwrap_or_default();
                // A target auto-attached as it was made is announced before anyone could have asked
                // to attach to it; an explicit attach is never announced as waiting.
                let queued = if waiting {
                    None
                } else {
                    state.attaching.get_mut(&target).and_then(VecDeque::pop_front)
                };
                let auto = state.auto_attacher.filter(|r| state.routes.contains_key(r));
                let route = queued.or_else(|| state.owners.get(&child).map(|(r, _)| *r));
                let route = match (route, auto) {
                    (Some(route), _) => Some(route),
                    (None, Some(auto)) if waiting => Some(auto),
                    (None, Some(_)) => {
                        // A target that was there when auto-attach was set (announced at once, not
                        // waiting, asked for by no one): auto-attach is for new targets.
                        self.detach(state, child);
                        return;
                    }
                    (None, None) => None,
                };
                if let Some(route) = route {
                    state.owners.insert(child, (route, None));
                    state.deliver(route, text);
                    return;
                }
            }
            ("Target.detachedFromTarget", Some(child)) => {
                if let Some(&(route, _)) = state.owners.get(&child) {
                    state.forget(&child);
                    state.deliver(route, text);
                    return;
                }
            }
            _ => {}
        }
        let watchers: Vec<RouteId> =
            state.routes.iter().filter(|(_, r)| r.browser_events).map(|(id, _)| *id).collect();
        for route in watchers {
            state.deliver(route, text.clone());
        }
    }

    /// A route ended: forget it and detach its sessions.
    fn end_route(&self, route: RouteId) {
        let detach = self.state.lock().unwrap().end_route(route);
        for session in detach {
            let state = self.state.lock().unwrap();
            if state.closed.is_some() {
                return;
            }
            self.detach(state, session);
        }
    }

    /// The relay's own `Target.detachFromTarget` of `session` (its answer dropped); `state` is let go
    /// before it is sent.
    fn detach(&self, mut state: std::sync::MutexGuard<'_, State>, session: String) {
        state.next_id += 1;
        let global = state.next_id;
        state.pending.insert(global, Call { route: RELAY, id: 0, attach: None });
        drop(state);
        let msg = serde_json::json!({
            "id": global,
            "method": "Target.detachFromTarget",
            "params": {"sessionId": session},
        });
        let _ = self.upstream.send(Outbound::Message(msg.to_string()));
    }

    /// The browser connection closed: every route ends with `reason`.
    fn close(&self, reason: String) {
        let routes = {
            let mut state = self.state.lock().unwrap();
            if state.closed.is_some() {
                return;
            }
            state.closed = Some(reason.clone());
            state.pending.clear();
            state.owners.clear();
            state.attaching.clear();
            std::mem::take(&mut state.routes)
        };
        tracing::debug!(%reason, routes = routes.len(), "cdp relay closed");
        for (_, route) in routes {
            let _ = route.tx.try_send(Inbound::Closed(reason.clone()));
        }
        self.closed_tx.send_replace(Some(reason));
    }
}

impl State {
    /// Hands `text` to `route` without waiting; a route that cannot take it is ended.
    fn deliver(&mut self, route: RouteId, text: String) {
        let Some(r) = self.routes.get(&route) else { return };
        match r.tx.try_send(Inbound::Message(text)) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                let name = r.name.clone();
                tracing::warn!(route = %name, unread = ROUTE_BUFFER, "cdp_route_stuck");
                // The route's sessions are detached when its sender's task ends; here it stops
                // getting messages at once.
                self.routes.remove(&route);
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {
                self.routes.remove(&route);
            }
        }
    }

    /// Forgets `route`; the sessions it attached at the browser level, to detach.
    fn end_route(&mut self, route: RouteId) -> Vec<String> {
        self.routes.remove(&route);
        if self.auto_attacher == Some(route) {
            self.auto_attacher = None;
        }
        self.pending.retain(|_, call| call.route != route);
        for queue in self.attaching.values_mut() {
            queue.retain(|r| *r != route);
        }
        self.attaching.retain(|_, q| !q.is_empty());
        self.given.retain(|_, giver| *giver != route);
        let mine: Vec<(String, Option<String>)> = self
            .owners
            .iter()
            .filter(|(_, (r, _))| *r == route)
            .map(|(s, (_, parent))| (s.clone(), parent.clone()))
            .collect();
        let mut detach = Vec::new();
        for (session, parent) in mine {
            self.owners.remove(&session);
            self.given.remove(&session);
            if parent.is_none() {
                detach.push(session);
            }
        }
        detach
    }

    /// Makes `session` (made by the browser-level auto-attach, still its route's) `route`'s, with the
    /// sessions under it; whether it was one.
    fn adopt(&mut self, session: &str, route: RouteId) -> bool {
        let auto = self.owners.get(session).is_some_and(|(owner, parent)| {
            parent.is_none() && self.auto_attacher == Some(*owner) && *owner != route
        });
        if auto {
            if let Some((giver, _)) = self.owners.get(session) {
                self.given.insert(session.to_string(), *giver);
            }
            self.move_to(session, route);
        }
        auto
    }

    /// `session` and the sessions under it, now `route`'s.
    fn move_to(&mut self, session: &str, route: RouteId) {
        if let Some(owner) = self.owners.get_mut(session) {
            owner.0 = route;
        }
        for child in self.children(session) {
            self.move_to(&child, route);
        }
    }

    /// The sessions auto-attached under `session`.
    fn children(&self, session: &str) -> Vec<String> {
        self.owners
            .iter()
            .filter(|(_, (_, parent))| parent.as_deref() == Some(session))
            .map(|(s, _)| s.clone())
            .collect()
    }

    /// Forgets a session that was detached, and the sessions under it.
    fn forget(&mut self, session: &str) {
        self.owners.remove(session);
        self.given.remove(session);
        for child in self.children(session) {
            self.forget(&child);
        }
    }

    /// Takes `route` out of the queue of attaches to `target`.
    fn unqueue(&mut self, target: &str, route: RouteId) {
        if let Some(queue) = self.attaching.get_mut(target) {
            if let Some(i) = queue.iter().position(|r| *r == route) {
                queue.remove(i);
            }
            if queue.is_empty() {
                self.attaching.remove(target);
            }
        }
    }
}

/// `text` (a CDP message with a numeric `id`) with `id` in its place. Chromium and [`crate::CdpClient`] put
/// `"id"` first; anything else is rewritten through a parse.
fn with_id(text: &str, id: u64) -> String {
    if let Some(rest) = text.strip_prefix("{\"id\":") {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            return format!("{{\"id\":{id}{}", &rest[digits..]);
        }
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(mut v) => {
            v["id"] = id.into();
            v.to_string()
        }
        Err(_) => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// A relay over an in-memory browser: what the relay sends up, and a way to answer.
    struct Browser {
        up: mpsc::UnboundedReceiver<Outbound>,
        down: mpsc::Sender<Inbound>,
    }

    impl Browser {
        fn relay() -> (Relay, Browser) {
            let (down, inbound) = mpsc::channel(64);
            let (outbound, up) = mpsc::unbounded_channel();
            (Relay::start(Wire { inbound, outbound }), Browser { up, down })
        }

        async fn next(&mut self) -> Value {
            match self.up.recv().await {
                Some(Outbound::Message(t)) => serde_json::from_str(&t).unwrap(),
                other => panic!("expected a message, got {other:?}"),
            }
        }

        async fn send(&self, v: Value) {
            self.down.send(Inbound::Message(v.to_string())).await.unwrap();
        }
    }

    async fn recv(wire: &mut Wire) -> Value {
        match wire.inbound.recv().await {
            Some(Inbound::Message(t)) => serde_json::from_str(&t).unwrap(),
            other => panic!("expected a message, got {other:?}"),
        }
    }

    fn send(wire: &Wire, v: Value) {
        wire.outbound.send(Outbound::Message(v.to_string())).unwrap();
    }

    #[test]
    fn ids_are_replaced_in_place_or_through_a_parse() {
        assert_eq!(with_id(r#"{"id":12,"result":{}}"#, 7), r#"{"id":7,"result":{}}"#);
        let v: Value = serde_json::from_str(&with_id(r#"{"result":{},"id":12}"#, 7)).unwrap();
        assert_eq!(v, json!({"id": 7, "result": {}}));
    }

    #[tokio::test]
    async fn answers_go_back_to_their_route_with_its_own_id() {
        let (relay, mut browser) = Browser::relay();
        let (mut a, mut b) = (relay.route("a", false), relay.route("b", false));
        send(&a, json!({"id": 1, "method": "Browser.getVersion"}));
        send(&b, json!({"id": 1, "method": "Browser.getVersion"}));
        let (first, second) = (browser.next().await, browser.next().await);
        assert_ne!(first["id"], second["id"]);
        browser.send(json!({"id": second["id"], "result": {"product": "b"}})).await;
        browser.send(json!({"id": first["id"], "result": {"product": "a"}})).await;
        assert_eq!(recv(&mut a).await, json!({"id": 1, "result": {"product": "a"}}));
        assert_eq!(recv(&mut b).await, json!({"id": 1, "result": {"product": "b"}}));
    }

    #[tokio::test]
    async fn sessions_belong_to_the_route_that_attached_them_and_their_children_too() {
        let (relay, mut browser) = Browser::relay();
        let (mut a, mut b) = (relay.route("a", false), relay.route("b", true));
        send(
            &a,
            json!({"id": 5, "method": "Target.attachToTarget", "params": {"targetId": "T", "flatten": true}}),
        );
        let call = browser.next().await;
        // Chromium announces the session at the browser level before it answers.
        let attached = json!({"method": "Target.attachedToTarget", "params": {"sessionId": "S", "targetInfo": {"targetId": "T"}}});
        browser.send(attached.clone()).await;
        browser.send(json!({"id": call["id"], "result": {"sessionId": "S"}})).await;
        assert_eq!(recv(&mut a).await, attached);
        assert_eq!(recv(&mut a).await, json!({"id": 5, "result": {"sessionId": "S"}}));
        // An iframe auto-attached under S is a's too.
        let child = json!({"method": "Target.attachedToTarget", "sessionId": "S", "params": {"sessionId": "C", "targetInfo": {"targetId": "F"}}});
        browser.send(child.clone()).await;
        assert_eq!(recv(&mut a).await, child);
        let event = json!({"method": "Page.loadEventFired", "sessionId": "C", "params": {}});
        browser.send(event.clone()).await;
        assert_eq!(recv(&mut a).await, event);
        // An event whose params have a `sessionId` that is not a session's (a screencast frame's
        // number) reaches its session's route too.
        let frame = json!({"method": "Page.screencastFrame", "sessionId": "S", "params": {"data": "", "sessionId": 1}});
        browser.send(frame.clone()).await;
        assert_eq!(recv(&mut a).await, frame);
        // b may not drive a's session.
        send(&b, json!({"id": 9, "method": "Runtime.evaluate", "sessionId": "S", "params": {}}));
        let refused = recv(&mut b).await;
        assert_eq!(refused["id"], 9);
        assert_eq!(refused["error"]["message"], "Session with given id not found.");
        // Browser-level events reach the routes that want them.
        let created = json!({"method": "Target.targetCreated", "params": {"targetInfo": {"targetId": "X"}}});
        browser.send(created.clone()).await;
        assert_eq!(recv(&mut b).await, created);
        assert_eq!(relay.sessions(), 2);

        // a ends: its browser-level session is detached (its child goes with it).
        drop(a);
        let detach = browser.next().await;
        assert_eq!(detach["method"], "Target.detachFromTarget");
        assert_eq!(detach["params"], json!({"sessionId": "S"}));
        browser.send(json!({"id": detach["id"], "result": {}})).await;
        assert_eq!(relay.sessions(), 0);
        assert_eq!(relay.routes(), 1);
    }

    #[tokio::test]
    async fn sessions_auto_attached_at_the_browser_level_belong_to_the_route_that_asked() {
        let (relay, mut browser) = Browser::relay();
        let (mut sup, mut worker) = (relay.route("supervisor", true), relay.route("worker", false));
        send(
            &sup,
            json!({"id": 1, "method": "Target.setAutoAttach", "params": {"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}}),
        );
        let call = browser.next().await;
        browser.send(json!({"id": call["id"], "result": {}})).await;
        assert_eq!(recv(&mut sup).await["id"], 1);
        // A new target, held: the supervisor's, even while the worker already waits to attach to it.
        send(
            &worker,
            json!({"id": 7, "method": "Target.attachToTarget", "params": {"targetId": "T", "flatten": true}}),
        );
        let attach = browser.next().await;
        let held = json!({"method": "Target.attachedToTarget", "params": {"sessionId": "A", "targetInfo": {"targetId": "T"}, "waitingForDebugger": true}});
        browser.send(held.clone()).await;
        // The worker's own session, announced then answered.
        let mine = json!({"method": "Target.attachedToTarget", "params": {"sessionId": "W", "targetInfo": {"targetId": "T"}, "waitingForDebugger": false}});
        browser.send(mine.clone()).await;
        browser.send(json!({"id": attach["id"], "result": {"sessionId": "W"}})).await;
        assert_eq!(recv(&mut sup).await, held);
        assert_eq!(recv(&mut worker).await, mine);
        assert_eq!(recv(&mut worker).await["result"]["sessionId"], "W");
        // The supervisor may drive A (and the worker may not).
        send(
            &sup,
            json!({"id": 2, "method": "Runtime.runIfWaitingForDebugger", "sessionId": "A", "params": {}}),
        );
        assert_eq!(browser.next().await["sessionId"], "A");
        send(&worker, json!({"id": 8, "method": "Runtime.evaluate", "sessionId": "A", "params": {}}));
        assert_eq!(recv(&mut worker).await["error"]["message"], "Session with given id not found.");
        // A target that was there when auto-attach was set (not waiting, not asked for) is detached at
        // once: auto-attach is for new targets.
        let old = json!({"method": "Target.attachedToTarget", "params": {"sessionId": "O", "targetInfo": {"targetId": "X"}, "waitingForDebugger": false}});
        browser.send(old).await;
        let detach = browser.next().await;
        assert_eq!(
            (&detach["method"], &detach["params"]),
            (&json!("Target.detachFromTarget"), &json!({"sessionId": "O"}))
        );
        assert_eq!(relay.sessions(), 2);
        // The worker takes A over (not its own W again, nor one that does not exist): A's events and
        // calls are the worker's from then on, and the supervisor's are refused.
        for (id, session, ok) in [(10, "W", false), (11, "nope", false), (12, "A", true)] {
            send(&worker, json!({"id": id, "method": ADOPT_SESSION, "params": {"sessionId": session}}));
            let answer = recv(&mut worker).await;
            assert_eq!((answer["id"].clone(), answer.get("result").is_some()), (json!(id), ok), "{answer}");
        }
        let event = json!({"method": "Page.loadEventFired", "sessionId": "A", "params": {}});
        browser.send(event.clone()).await;
        assert_eq!(recv(&mut worker).await, event);
        send(&sup, json!({"id": 4, "method": "Runtime.evaluate", "sessionId": "A", "params": {}}));
        assert_eq!(recv(&mut sup).await["error"]["message"], "Session with given id not found.");
        // But a request the supervisor was told was paused before is still its to answer (else it
        // would hang), and the answer comes back to it.
        let go = json!({"id": 6, "method": "Fetch.continueRequest", "sessionId": "A", "params": {"requestId": "r1"}});
        send(&sup, go);
        let up = tokio::time::timeout(std::time::Duration::from_secs(10), browser.next());
        let up = up.await.expect("the supervisor's answer reaches the browser");
        assert_eq!(
            (&up["method"], &up["params"]["requestId"]),
            (&json!("Fetch.continueRequest"), &json!("r1"))
        );
        browser.send(json!({"id": up["id"], "result": {}, "sessionId": "A"})).await;
        assert_eq!(recv(&mut sup).await["id"], json!(6));
        // Auto-attach switched off: an unclaimed announcement goes to the watchers again, unowned.
        send(
            &sup,
            json!({"id": 5, "method": "Target.setAutoAttach", "params": {"autoAttach": false, "waitForDebuggerOnStart": false, "flatten": true}}),
        );
        let _ = browser.next().await;
        let stray = json!({"method": "Target.attachedToTarget", "params": {"sessionId": "Z", "targetInfo": {"targetId": "Y"}, "waitingForDebugger": true}});
        browser.send(stray.clone()).await;
        assert_eq!(recv(&mut sup).await, stray);
        assert_eq!(relay.sessions(), 2);
    }

    #[tokio::test]
    async fn a_route_that_stops_reading_is_ended_without_stalling_the_others() {
        let (relay, mut browser) = Browser::relay();
        let (stuck, mut live) = (relay.route("stuck", true), relay.route("live", true));
        for i in 0..ROUTE_BUFFER + 1 {
            browser.send(json!({"method": "Target.targetInfoChanged", "params": {"n": i}})).await;
            // The live route reads as it goes.
            assert_eq!(recv(&mut live).await["params"]["n"], i);
        }
        assert_eq!(relay.routes(), 1);
        send(&live, json!({"id": 1, "method": "Browser.getVersion"}));
        assert_eq!(browser.next().await["method"], "Browser.getVersion");
        drop(stuck);
    }

    #[tokio::test]
    async fn every_route_ends_with_the_browser_connection() {
        let (relay, browser) = Browser::relay();
        let mut a = relay.route("a", false);
        browser.down.send(Inbound::Closed("the browser closed its pipe".into())).await.unwrap();
        assert_eq!(a.inbound.recv().await, Some(Inbound::Closed("the browser closed its pipe".into())));
        assert_eq!(relay.closed().await, "the browser closed its pipe");
        let mut late = relay.route("late", false);
        assert!(matches!(late.inbound.recv().await, Some(Inbound::Closed(_))));
    }
}
