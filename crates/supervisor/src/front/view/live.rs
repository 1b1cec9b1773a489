//! One watched session: its active tab's screencast and console errors, shared by the view pages that
//! watch it ([`Watch`]), and each page's WebSocket (`viewer`): what it is sent, and the takeover
//! (a person's clicks, wheel and keys sent to the page while the agent's actions wait).
//!
//! Messages to the page are JSON objects with `t`: `hello`, `frame` (`data`: base64 JPEG; `w`, `h`: the
//! device in CSS px; `top`: the page's offset in it; `scale`: the pinch zoom), `action` (an
//! [`crate::features::activity::ActionRecord`], with the console errors the action's tab raised), `snapshot`,
//! `control` (`held`, `holder`), `control_pending` (a takeover waits for the agent's action in flight),
//! `error`, `closed`. From the page: `take`, `release {note?}`, `mouse {type, x, y, button?, buttons?,
//! click_count?, modifiers?}`, `wheel {x, y, dx, dy}`, `key {type, key, code, key_code, text?,
//! modifiers?, location?}`, coordinates in the page's CSS px (the page maps them from the frame it
//! shows, as DevTools' screencast view does: through the frame's device size, offset and zoom).
//!
//! The screencast runs on a flat session of the supervisor's own on the tab (`Page.startScreencast`,
//! every frame acknowledged as it is forwarded, so a slow viewer slows the frames, not the page); it
//! follows the session's active tab and its browser, and stops when its last viewer leaves. The console
//! errors come with the actions (the worker's journal reports them), not from a `Runtime.enable` of the
//! watch's own: that made the watched session's snapshots 1.23x slower (docs/benchmarks.md).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket};
use sb_cdp::commands::{
    InputDispatchKeyEvent, InputDispatchMouseEvent, PageScreencastFrameAck, PageStartScreencast,
    PageStopScreencast,
};
use sb_cdp::types::ScreencastFrame;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};

use super::{message, ViewState};
use crate::sessions::SessionEntry;

/// The longest a call of the watch may take (attach, enable, start, stop, an input event).
const STEP: Duration = Duration::from_millis(2_000);
/// How often the watch checks its viewers, the session's active tab and browser.
const TICK: Duration = Duration::from_millis(250);
/// JPEG quality of the screencast's frames.
const QUALITY: u8 = 60;
/// The largest frame, device px (a 1280x800 viewport at scale 1 is sent as it is).
const MAX_FRAME: u32 = 1_600;
/// The longest note a person may leave the agent, chars.
const MAX_NOTE: usize = 1_000;

/// A session's screencast, shared by its viewers.
pub struct Watch {
    /// Frames, console errors and control changes, as JSON text.
    pub(crate) tx: broadcast::Sender<Arc<str>>,
    /// A holder's input, to send on the watch's CDP session.
    input: mpsc::UnboundedSender<Input>,
}

/// A person's input, as the page sent it (checked).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum FromPage {
    Take,
    Release {
        #[serde(default)]
        note: Option<String>,
    },
    Mouse {
        #[serde(rename = "type")]
        kind: String,
        x: f64,
        y: f64,
        #[serde(default)]
        button: Option<String>,
        #[serde(default)]
        buttons: Option<u32>,
        #[serde(default)]
        click_count: Option<u32>,
        #[serde(default)]
        modifiers: Option<u32>,
    },
    Wheel {
        x: f64,
        y: f64,
        dx: f64,
        dy: f64,
    },
    Key {
        #[serde(rename = "type")]
        kind: String,
        key: String,
        code: String,
        #[serde(default)]
        key_code: u32,
        #[serde(default)]
        text: Option<String>,
        #[serde(default)]
        modifiers: Option<u32>,
        #[serde(default)]
        location: Option<u32>,
    },
}

/// Input events for the page, already checked.
#[derive(Debug)]
enum Input {
    Mouse(InputDispatchMouseEvent),
    Key(InputDispatchKeyEvent),
}

impl FromPage {
    /// The CDP event of an input message, when it is one and its values are sane (finite coordinates
    /// within 0..=100000 CSS px, known event types and buttons, short strings).
    fn input(self) -> Option<Input> {
        let coord = |v: f64| v.is_finite().then_some(v.clamp(0.0, 100_000.0));
        let delta = |v: f64| v.is_finite().then_some(v.clamp(-100_000.0, 100_000.0));
        match self {
            FromPage::Mouse { kind, x, y, button, buttons, click_count, modifiers } => {
                if !["mousePressed", "mouseReleased", "mouseMoved"].contains(&kind.as_str()) {
                    return None;
                }
                let button = button
                    .filter(|b| ["none", "left", "middle", "right", "back", "forward"].contains(&b.as_str()));
                Some(Input::Mouse(InputDispatchMouseEvent {
                    kind,
                    x: coord(x)?,
                    y: coord(y)?,
                    button,
                    buttons: buttons.map(|b| b & 0x1f),
                    click_count: click_count.map(|c| c.min(3)),
                    modifiers: modifiers.map(|m| m & 0xf),
                    ..Default::default()
                }))
            }
            FromPage::Wheel { x, y, dx, dy } => Some(Input::Mouse(InputDispatchMouseEvent {
                kind: "mouseWheel".into(),
                x: coord(x)?,
                y: coord(y)?,
                delta_x: Some(delta(dx)?),
                delta_y: Some(delta(dy)?),
                ..Default::default()
            })),
            FromPage::Key { kind, key, code, key_code, text, modifiers, location } => {
                if key.chars().count() > 32 || code.chars().count() > 32 {
                    return None;
                }
                let text = text.filter(|t| !t.is_empty() && t.chars().count() <= 4);
                // As Puppeteer and Playwright send keys: `keyDown` with the text it types, else
                // `rawKeyDown`.
                let kind = match (kind.as_str(), &text) {
                    ("keyDown", Some(_)) => "keyDown",
                    ("keyDown", None) => "rawKeyDown",
                    ("keyUp", _) => "keyUp",
                    _ => return None,
                };
                let location = location.unwrap_or(0).min(3);
                Some(Input::Key(InputDispatchKeyEvent {
                    kind: kind.into(),
                    key,
                    code,
                    windows_virtual_key_code: key_code.min(255),
                    native_virtual_key_code: key_code.min(255),
                    modifiers: modifiers.unwrap_or(0) & 0xf,
                    location,
                    is_keypad: location == 3,
                    unmodified_text: text.clone().filter(|_| kind == "keyDown"),
                    text: text.filter(|_| kind == "keyDown"),
                }))
            }
            FromPage::Take | FromPage::Release { .. } => None,
        }
    }
}

/// The watch of `session`, started when none runs; subscribed before it can stop.
fn watch_of(
    state: &Arc<ViewState>,
    session: &Arc<SessionEntry>,
) -> (Arc<Watch>, broadcast::Receiver<Arc<str>>) {
    let mut watches = state.watches.lock().unwrap();
    if let Some(w) = watches.get(&session.id) {
        return (w.clone(), w.tx.subscribe());
    }
    let (tx, rx) = broadcast::channel(64);
    let (input, inputs) = mpsc::unbounded_channel();
    let watch = Arc::new(Watch { tx, input });
    watches.insert(session.id.clone(), watch.clone());
    tokio::spawn(run_watch(state.clone(), session.clone(), watch.clone(), inputs));
    (watch, rx)
}

/// Whether the watch must stop: no viewer is left (removed from the map under its lock, so a viewer
/// that arrives now starts a new one).
fn unwatched(state: &ViewState, session_id: &str, watch: &Arc<Watch>) -> bool {
    let mut watches = state.watches.lock().unwrap();
    if watch.tx.receiver_count() > 0 {
        return false;
    }
    if watches.get(session_id).is_some_and(|w| Arc::ptr_eq(w, watch)) {
        watches.remove(session_id);
    }
    true
}

/// The screencast of `session`'s active tab while anyone watches it (see the module doc).
async fn run_watch(
    state: Arc<ViewState>,
    session: Arc<SessionEntry>,
    watch: Arc<Watch>,
    mut inputs: mpsc::UnboundedReceiver<Input>,
) {
    let runtime = state.runtime.clone();
    let mut tick = tokio::time::interval(TICK);
    loop {
        if unwatched(&state, &session.id, &watch) {
            return;
        }
        if runtime.sessions().get(&session.id).is_err() {
            let _ = watch.tx.send(message(json!({"t": "closed"})));
            tick.tick().await;
            continue;
        }
        let Some(link) = runtime.current_link().await else {
            tick.tick().await;
            continue;
        };
        let target = session.target();
        let cdp = match link.client.attach(&target, STEP).await {
            Ok(cdp) => cdp,
            Err(e) => {
                tracing::debug!(browser.session_id = %session.id, error.message = %e, "screencast_not_attached");
                tick.tick().await;
                continue;
            }
        };
        let mut events = cdp.events();
        let (w, h) = runtime.viewport(&session);
        // `Page.startScreencast` needs no `Page.enable` on this session (the worker's session has it):
        // the screencast's frames come as this session's events all the same.
        let start = PageStartScreencast {
            format: "jpeg".into(),
            quality: QUALITY,
            max_width: MAX_FRAME.max(w),
            max_height: MAX_FRAME.max(h),
            every_nth_frame: 1,
        };
        let started = cdp.run(&start, STEP).await;
        if let Err(e) = started {
            tracing::debug!(browser.session_id = %session.id, error.message = %e, "screencast_not_started");
            crate::sessions::unstick::detach(&cdp).await;
            tick.tick().await;
            continue;
        }
        runtime.stats().screencasts_started.inc();
        tracing::info!(browser.session_id = %session.id, target_id = %target, "screencast_started");
        loop {
            tokio::select! {
                event = events.recv() => {
                    let Some(event) = event else { break };
                    forward(&watch, &cdp, &event);
                }
                Some(input) = inputs.recv() => {
                    let sent = match &input {
                        Input::Mouse(m) => cdp.run(m, STEP).await.map(|_| ()),
                        Input::Key(k) => cdp.run(k, STEP).await.map(|_| ()),
                    };
                    if let Err(e) = sent {
                        let _ = watch.tx.send(message(json!({"t": "error", "message": format!("input not sent: {e}")})));
                    }
                }
                _ = tick.tick() => {
                    let moved = session.target() != target || runtime.current_link().await.is_none_or(|l| l.browser != link.browser);
                    if moved || unwatched(&state, &session.id, &watch) || runtime.sessions().get(&session.id).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = cdp.run(&PageStopScreencast {}, Duration::from_millis(500)).await;
        crate::sessions::unstick::detach(&cdp).await;
        tracing::info!(browser.session_id = %session.id, "screencast_stopped");
    }
}

/// One CDP event of the watch's session to its viewers: a frame (acknowledged now); others are not
/// read.
fn forward(watch: &Watch, cdp: &sb_cdp::Session, event: &sb_cdp::Event) {
    if event.method != "Page.screencastFrame" {
        return;
    }
    let Some(frame) = event.parse::<ScreencastFrame>() else { return };
    // Sent now; its answer is not waited for.
    drop(cdp.send(&PageScreencastFrameAck { session_id: frame.session_id }, STEP));
    let m = &frame.metadata;
    let _ = watch.tx.send(message(json!({
        "t": "frame",
        "data": frame.data,
        "w": m.device_width,
        "h": m.device_height,
        "top": m.offset_top,
        "scale": m.page_scale_factor,
    })));
}

/// The active tab's URL now (for a takeover's `url_before` / `url_after`), redacted.
async fn tab_url(state: &ViewState, session: &SessionEntry) -> Option<String> {
    let link = state.runtime.current_link().await?;
    let info = link.client.target_info(&session.target(), Duration::from_millis(1_000)).await.ok();
    let url = info.map(|i| i.url).or_else(|| session.last_url())?;
    Some(sb_protocol::redact::in_url(&url).into_owned())
}

/// A view page's WebSocket on session `session_id` (see the module doc).
pub(crate) async fn viewer(mut socket: WebSocket, state: Arc<ViewState>, session_id: String) {
    let Ok(session) = state.runtime.sessions().get(&session_id) else {
        let _ = socket.send(text(json!({"t": "error", "message": "no such session"}))).await;
        return;
    };
    let me = super::next_viewer(&state);
    let (watch, mut frames) = watch_of(&state, &session);
    let mut actions = state.runtime.activity().subscribe();
    let seen = state.runtime.activity().seen(&session.id);
    let mut hello =
        vec![json!({"t": "hello", "session_id": session.id, "viewer": me, "takeover": state.takeover})];
    hello.extend(seen.recent.iter().map(|r| action(r)));
    if let Some(snapshot) = &seen.snapshot {
        hello.push(json!({"t": "snapshot", "text": snapshot.as_ref()}));
    }
    hello.push(json!({"t": "control", "held": session.held_by().is_some(), "holder": session.held_by()}));
    for m in hello {
        if socket.send(text(m)).await.is_err() {
            return;
        }
    }
    tracing::info!(browser.session_id = %session.id, viewer = me, "viewer_joined");
    // Set once this viewer's takeover holds (the agent's action in flight has finished).
    let holding = Arc::new(std::sync::atomic::AtomicBool::new(false));
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let Some(Ok(msg)) = incoming else { break };
                let Message::Text(body) = msg else {
                    if matches!(msg, Message::Close(_)) { break }
                    continue;
                };
                let reply = from_page(&state, &session, &watch, (me, &holding), body.as_str()).await;
                if let Some(reply) = reply {
                    if socket.send(text(reply)).await.is_err() { break }
                }
            }
            out = frames.recv() => {
                match out {
                    Ok(m) => if socket.send(Message::Text(m.as_ref().into())).await.is_err() { break },
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
            record = actions.recv() => {
                let record = match record {
                    Ok(r) => r,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => break,
                };
                if record.session_id != session.id { continue }
                let mut out = vec![action(&record)];
                if record.method == "page.snapshot" && record.code.is_none() {
                    if let Some(s) = state.runtime.activity().snapshot(&session.id) {
                        out.push(json!({"t": "snapshot", "text": s.as_ref()}));
                    }
                }
                for m in out {
                    if socket.send(text(m)).await.is_err() { break }
                }
            }
        }
    }
    // A person whose page closed hands the session back.
    if session.held_by() == Some(me) {
        let url = tab_url(&state, &session).await;
        session.hand_back(me, Some("(the person's view closed)".into()), url);
        let _ = watch.tx.send(message(json!({"t": "control", "held": false, "holder": null})));
        tracing::info!(browser.session_id = %session.id, viewer = me, "takeover_ended");
    }
    tracing::info!(browser.session_id = %session.id, viewer = me, "viewer_left");
}

fn text(value: Value) -> Message {
    Message::Text(value.to_string().into())
}

fn action(record: &crate::features::activity::ActionRecord) -> Value {
    let mut v = serde_json::to_value(record).unwrap_or_default();
    v["t"] = "action".into();
    v
}

/// Handles one message of a page; the reply to that page only, if any.
async fn from_page(
    state: &Arc<ViewState>,
    session: &Arc<SessionEntry>,
    watch: &Arc<Watch>,
    (me, holding): (u64, &Arc<std::sync::atomic::AtomicBool>),
    body: &str,
) -> Option<Value> {
    use std::sync::atomic::Ordering;
    let msg: FromPage = match serde_json::from_str(body) {
        Ok(m) => m,
        Err(e) => return Some(json!({"t": "error", "message": format!("not understood: {e}")})),
    };
    let refuse = |why: &str| Some(json!({"t": "error", "message": why}));
    if !state.takeover {
        return refuse("takeover is off: the runtime's [view] takeover is false");
    }
    match msg {
        FromPage::Take => {
            let url = tab_url(state, session).await;
            if !session.take_control(me, url) {
                return refuse("another person holds this session");
            }
            // From now on the agent's actions wait; the one in flight (and any already queued behind
            // it) finishes first: the person's input never races the agent's.
            let (session, watch, holding) = (session.clone(), watch.clone(), holding.clone());
            tokio::spawn(async move {
                drop(session.worker.lock().await);
                if session.held_by() == Some(me) {
                    holding.store(true, Ordering::SeqCst);
                    tracing::info!(browser.session_id = %session.id, viewer = me, "takeover_started");
                    let _ = watch.tx.send(message(json!({"t": "control", "held": true, "holder": me})));
                }
            });
            Some(
                json!({"t": "control_pending", "message": "waiting for the agent's current action to finish"}),
            )
        }
        FromPage::Release { note } => {
            let url = tab_url(state, session).await;
            let note = note.map(|n| n.chars().take(MAX_NOTE).collect::<String>());
            if !session.hand_back(me, note, url) {
                return refuse("you do not hold this session");
            }
            holding.store(false, Ordering::SeqCst);
            tracing::info!(browser.session_id = %session.id, viewer = me, "takeover_ended");
            let _ = watch.tx.send(message(json!({"t": "control", "held": false, "holder": null})));
            None
        }
        input => {
            if session.held_by() != Some(me) || !holding.load(Ordering::SeqCst) {
                return refuse("take the session over first");
            }
            match input.input() {
                Some(event) => {
                    let _ = watch.input.send(event);
                    None
                }
                None => refuse("input out of range"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_from_a_page_is_checked() {
        let parse = |s: &str| serde_json::from_str::<FromPage>(s).unwrap().input();
        let Some(Input::Mouse(m)) =
            parse(r#"{"t":"mouse","type":"mousePressed","x":10.5,"y":-3,"button":"left","click_count":9}"#)
        else {
            panic!("a click")
        };
        assert_eq!((m.x, m.y, m.click_count), (10.5, 0.0, Some(3)));
        assert!(parse(r#"{"t":"mouse","type":"evil","x":1,"y":1}"#).is_none());
        assert!(serde_json::from_str::<FromPage>(r#"{"t":"mouse","type":"mouseMoved","x":1e999,"y":1}"#)
            .map_or(true, |m| m.input().is_none()));
        let Some(Input::Key(k)) =
            parse(r#"{"t":"key","type":"keyDown","key":"a","code":"KeyA","key_code":65,"text":"a"}"#)
        else {
            panic!("a key")
        };
        assert_eq!((k.kind.as_str(), k.text.as_deref()), ("keyDown", Some("a")));
        let Some(Input::Key(k)) =
            parse(r#"{"t":"key","type":"keyDown","key":"Enter","code":"Enter","key_code":13}"#)
        else {
            panic!("a key")
        };
        assert_eq!(k.kind, "rawKeyDown");
        assert!(parse(
            r#"{"t":"key","type":"keyDown","key":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","code":"a"}"#
        )
        .is_none());
    }
}
