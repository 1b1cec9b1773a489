//! Supervisor <-> worker frames.
//!
//! One worker process serves one session. The supervisor gives it a connected Unix stream; on it both
//! sides exchange postcard-encoded messages, each in a length-prefixed frame ([`codec`]: 4-byte
//! big-endian length, at most [`MAX_FRAME_BYTES`]).
//!
//! The conversation: the worker attaches to its target and sends [`FromWorker::Ready`]; then, for
//! each [`ToWorker::Run`], it sends zero or more [`FromWorker::Phase`] as it moves through steps and
//! exactly one [`FromWorker::Done`] with the same `seq`. Runs are sequential per worker.
//!
//! The worker's CDP traffic travels on the same stream, at any time: [`FromWorker::Cdp`] and
//! [`ToWorker::Cdp`] carry the messages of its browser connections (routes of the supervisor's relay
//! on the browser's pipe; the worker has no other way to reach the browser).
//!
//! Postcard is not self-describing, so nothing here may skip fields or hold a `serde_json::Value`
//! (JSON travels as text instead). A worker's output that is an API result as the caller gets it
//! (`GotoResult`, `ExtractResult`, `InputResult`, ...) is carried as that type's JSON text inside the
//! frame (`as_json`), so the IPC declares no twin of it; the outputs the supervisor still turns into a
//! result (a snapshot's refs for its ref table, an evaluate's value) have types of their own. Likewise
//! an action whose params the supervisor only checks carries them as they are: most worker methods
//! are one [`Action::Call`] (their params as given, their element looked up) answered by one
//! [`Output::Json`] (their result type), and need no kind of their own; `Action::Pdf`, `Screenshot`
//! and `Har` carry theirs beside the file's path. An action's own fields are what the supervisor
//! made of its params (a ref looked up into a [`Locator`], a file staged, a path under the artifacts
//! dir, a default applied).

use bytes::Bytes;
use futures_util::{Sink, SinkExt};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use tokio_util::codec::LengthDelimitedCodec;

use crate::api::{
    ElementState, EmulateResult, Emulation, FillFormResult, GotoResult, HarParams, HarResult, InputResult,
    KeyboardAction, LoadState, Modifier, MouseAction, MouseButton, PdfParams, PdfResult, ScreenshotParams,
    ScreenshotResult, ScrollResult, SelectResult, UploadResult, WaitForResult,
};
use crate::error::{ErrorCode, Phase};
use serde_json::Value;

/// The most console error texts a run reports ([`FromWorker::ConsoleErrors`]).
pub const CONSOLE_TEXTS: usize = 5;
/// The longest console error text a run reports, chars.
pub const CONSOLE_TEXT_CHARS: usize = 300;

/// How [`ToWorker::CdpClosed`]'s reason begins when the relay ended the connection because the worker
/// fell a whole route's queue behind (the browser is fine; the worker is replaced).
pub const FELL_BEHIND: &str = "the browser connection's route ended: its reader fell";

/// Largest frame either side accepts, in bytes (256 MiB: an inline full-page screenshot fits).
pub const MAX_FRAME_BYTES: usize = 256 * 1024 * 1024;

/// The frame codec both sides use: length-prefixed, capped at [`MAX_FRAME_BYTES`].
pub fn codec() -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder().max_frame_length(MAX_FRAME_BYTES).new_codec()
}

/// Encodes a message for [`codec`].
///
/// # Errors
/// Only if a type cannot be represented by postcard (a bug, never input-dependent).
pub fn encode<T: Serialize>(msg: &T) -> Result<Bytes, postcard::Error> {
    postcard::to_stdvec(msg).map(Bytes::from)
}

/// Most frames one [`send_batch`] writes.
pub const WRITE_BATCH: usize = 64;

/// Sends `first`, then what `more` gives (the messages already waiting: `try_recv` of the writer's
/// channel), [`WRITE_BATCH`] frames at most, and flushes once: one write, and one wake-up of the
/// reader, for a burst (a page's network events, an action's first calls) instead of one for each
/// message. A message that cannot be encoded is skipped (a bug, never input-dependent).
///
/// # Errors
/// The sink's, when the stream is gone.
pub async fn send_batch<T, S>(
    sink: &mut S,
    first: T,
    mut more: impl FnMut() -> Option<T>,
) -> Result<(), S::Error>
where
    T: Serialize,
    S: Sink<Bytes> + Unpin,
{
    let mut next = Some(first);
    let mut fed = 0;
    while let Some(msg) = next.take() {
        if let Ok(frame) = encode(&msg) {
            sink.feed(frame).await?;
        }
        fed += 1;
        if fed < WRITE_BATCH {
            next = more();
        }
    }
    sink.flush().await
}

/// Decodes one frame's payload.
///
/// # Errors
/// When the frame is not a valid `T` (a peer of another version, or a corrupted stream).
pub fn decode<T: DeserializeOwned>(frame: &[u8]) -> Result<T, postcard::Error> {
    postcard::from_bytes(frame)
}

/// Supervisor -> worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ToWorker {
    /// The first frame a worker reads, before it attaches: what every page of the session emulates
    /// (its routes' bodies and init scripts included, which a command line could not carry: Linux
    /// takes at most 128 KiB in one argument).
    Setup {
        /// The emulation in force.
        #[serde(with = "as_json")]
        emulation: Box<Emulation>,
    },
    /// Run one action within `budget_ms` (what remains of the request's budget, less headroom).
    Run {
        /// The run's number, which its reports and its `Done` carry.
        seq: u64,
        /// What remains of the request's budget for the action, ms.
        budget_ms: u64,
        /// The action.
        action: Box<Action>,
        /// Its method only reads the page ([`crate::api::Fact::Reads`]): a run whose renderer crashed
        /// under it runs again on the reopened page.
        reads: bool,
        /// The phase its method's work starts in ([`crate::api::Method::phase`]).
        phase: Phase,
    },
    /// The client of run `seq` went away: stop it (`Runtime.terminateExecution`) and answer `Done`.
    Cancel {
        /// The run to stop.
        seq: u64,
    },
    /// Detach and exit.
    Shutdown,
    /// How the worker answers the next dialog (read as it arrives, during a run too): `None` when the
    /// supervisor answered a dialog of a tab it holds as `page.handle_dialog` asked (the worker forgets
    /// it); `Some((accept, prompt_text))` to a worker that replaced one the policy was left with. The
    /// worker's copy only says there is an answer to claim ([`FromWorker::ClaimDialog`]).
    NextDialog {
        /// `(accept, prompt_text)` as `page.handle_dialog` asked, or `None`: dismissed by default.
        answer: Option<(bool, Option<String>)>,
    },
    /// The answer to the oldest [`FromWorker::ClaimDialog`] not answered yet: `page.handle_dialog`'s
    /// answer, now the worker's dialog's alone, or `None` when it was used (the dialog is answered by
    /// default).
    DialogClaimed {
        /// `(accept, prompt_text)`, or `None`.
        answer: Option<(bool, Option<String>)>,
    },
    /// A CDP message from the browser for the worker's connection `conn` (a route of the supervisor's
    /// relay on the browser's pipe).
    Cdp {
        /// The worker's connection (0: the page's).
        conn: u32,
        /// The CDP message as JSON text.
        message: String,
    },
    /// The worker's connection `conn` ended (the browser closed, or the connection stopped reading);
    /// `reason` is for logs.
    CdpClosed {
        /// The connection that ended.
        conn: u32,
        /// Why (for logs).
        reason: String,
    },
}

/// A page's display: its viewport (CSS px) and device pixels per CSS px
/// (`Emulation.setDeviceMetricsOverride`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Display {
    /// Viewport width, CSS px.
    pub width: u32,
    /// Viewport height, CSS px.
    pub height: u32,
    /// Device pixels per CSS px.
    pub scale: f64,
}

impl Display {
    /// The largest viewport side, CSS px.
    pub const MAX_SIDE: u32 = 10_000;
    /// The device scale factors a display may have.
    pub const SCALES: std::ops::RangeInclusive<f64> = 0.5..=4.0;

    /// A display of `width` x `height` CSS px (each 1..=[`Display::MAX_SIDE`]) at `scale` (within
    /// [`Display::SCALES`]).
    ///
    /// # Errors
    /// A one-line message naming the bounds and what was given.
    pub fn checked(width: u32, height: u32, scale: f64) -> Result<Display, String> {
        let sides = 1..=Display::MAX_SIDE;
        if !sides.contains(&width) || !sides.contains(&height) || !Display::SCALES.contains(&scale) {
            return Err(format!(
                "viewport sides must be 1 to {} CSS px and device_scale_factor 0.5 to 4; got {width}x{height} at {scale}",
                Display::MAX_SIDE
            ));
        }
        Ok(Display { width, height, scale })
    }
}

/// One page action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Action {
    /// A method the worker runs from its params as the agent gave them: the supervisor checked them
    /// ([`crate::api::Method::check_value`]) and looked their element up, and the worker's handler of
    /// that method decodes them as its params type and answers its result type
    /// ([`crate::api::ApiMethod`]). A worker method needs no kind of its own here, nor in [`Output`]
    /// ([`Output::Json`]); [`Action::call`] builds one.
    Call {
        /// The method's wire name (`page.query`).
        method: String,
        /// Its params as the agent gave them (`{}` when it gave none).
        #[serde(with = "as_json")]
        params: Value,
        /// The element the params name (their `ref` looked up, or their `selector`), when they name
        /// one.
        target: Option<Locator>,
    },
    /// `Page.navigate` and wait for `domcontentloaded`.
    Goto {
        /// The URL to load (already checked against the URL policy).
        url: String,
    },
    /// Another entry of the tab's session history, `delta` away (-1: back, 1: forward).
    History {
        /// -1 or 1.
        delta: i64,
    },
    /// The tab's document loaded again (`Page.reload`).
    Reload,
    /// `Page.captureScreenshot` of `params` (checked by the supervisor), written to `path`; a full page
    /// is cut at [`ScreenshotParams::tallest`] CSS px.
    Screenshot {
        /// The method's params as the agent gave them (their element is `target`).
        #[serde(with = "as_json")]
        params: ScreenshotParams,
        /// Where the image is written (under the session's artifacts; `files::under`).
        path: String,
        /// The element whose border box is captured (scrolled into view first): the params' ref
        /// looked up, or their selector.
        target: Option<Locator>,
    },
    /// `page.fill_form`: each field by its element's kind, in order, stopping at the first failure.
    FillForm {
        /// The fields and their values.
        fields: Vec<(Locator, String)>,
    },
    /// `DOM.setFileInputFiles` of `paths` (checked by the supervisor: regular files in the uploads
    /// dir) on the file input `target`.
    Upload {
        /// The file input (`None`: the file chooser the page opened last).
        target: Option<Locator>,
        /// Absolute paths.
        paths: Vec<String>,
        /// Their names, for the answer.
        names: Vec<String>,
        /// Their sizes together, bytes.
        bytes: u64,
    },
    /// `Page.printToPDF` of `params` (checked by the supervisor), written to `path`.
    Pdf {
        /// The method's params as the agent gave them (their defaults: [`PdfParams::margin`], ...).
        #[serde(with = "as_json")]
        params: PdfParams,
        /// Where the PDF is written (under the artifacts dir; `files::under`).
        path: String,
    },
    /// `session.har`: start recording the session's requests, as `params` say; or stop, writing the
    /// recording as HAR 1.2 to `path`.
    Har {
        /// The method's params as the agent gave them (checked by the supervisor; whether bodies are
        /// kept: [`HarParams::embeds`]).
        #[serde(with = "as_json")]
        params: HarParams,
        /// Where a stop writes the file (under the artifacts dir; `files::under`); `None` for start.
        path: Option<String>,
    },
    /// `Runtime.evaluate` of `expression`, in the main world of `frame` (default: the main frame).
    Evaluate {
        /// The script.
        expression: String,
        /// The frame whose main world it runs in (default: the main frame).
        frame: Option<FrameTarget>,
        /// The JSON text of the argument a function value of `expression` is called with, when any.
        arg_json: Option<String>,
    },
    /// `Runtime.callFunctionOn` of `function` with the element (when given) and the argument (when
    /// given) as its arguments; without an element, `this` is the global object of `frame` (default:
    /// the main frame).
    CallFunction {
        /// The function's source.
        function: String,
        /// The element passed as its first argument, when any.
        target: Option<Locator>,
        /// The frame whose global object is `this` without an element (default: the main frame).
        frame: Option<FrameTarget>,
        /// The JSON text of the argument passed after the element, when any.
        arg_json: Option<String>,
    },
    /// Scroll the page by a mouse wheel at the viewport's center, in CSS px.
    Scroll {
        /// Horizontal wheel delta, CSS px.
        dx: f64,
        /// Vertical wheel delta, CSS px.
        dy: f64,
    },
    /// Wait until the condition holds.
    WaitFor {
        /// The condition.
        condition: WaitCondition,
    },
    /// The accessibility snapshot; new refs are numbered from `next_ref`.
    Snapshot {
        /// What to show.
        options: SnapshotOptions,
        /// The number of the first new ref (`e{next_ref}`).
        next_ref: u64,
    },
    /// How to answer the next JavaScript dialog (default: dismiss; `beforeunload` is accepted).
    HandleDialog {
        /// Accept (OK) or dismiss (Cancel).
        accept: bool,
        /// The text a prompt answers with.
        prompt_text: Option<String>,
    },
    /// `Emulation.setDeviceMetricsOverride` on the page, kept for every page the worker attaches to.
    SetDisplay {
        /// The viewport and scale.
        display: Display,
    },
    /// Input the supervisor made something of: `page.drag` (its drop target looked up) and
    /// `page.scroll` of an element into view. The other inputs come as [`Action::Call`]s, whose
    /// handlers make their [`InputAction`] from their params in the worker.
    Input {
        /// The element (none: the focused one, for `Press`).
        target: Option<Locator>,
        /// What to do.
        input: InputAction,
        /// Ms of the page's time to wait after the input's effects (`settle_ms`), 0 for none.
        settle_ms: u64,
    },
    /// What every page of the session emulates from now on (the whole of it, not a change).
    Emulate {
        /// The emulation in force.
        #[serde(with = "as_json")]
        emulation: Emulation,
    },
    /// Drive another of the session's tabs from now on: attach to `target_id` (`tabs.focus`).
    Attach {
        /// CDP `targetId` of the tab.
        target_id: String,
        /// The supervisor's flat session on the tab (a popup it held with the session's settings),
        /// which the worker takes over (`Relay.adoptSession`) instead of attaching: the page keeps
        /// its overrides throughout.
        held_session: Option<String>,
        /// The init scripts the supervisor added on that session, `(source, identifier)`: the
        /// worker removes one the session no longer has by its identifier.
        held_scripts: Vec<(String, String)>,
    },
}

impl Action {
    /// [`Action::Call`] of method `M` with `params` on `target`.
    pub fn call<M: crate::api::ApiMethod>(params: &M::Params, target: Option<Locator>) -> Action {
        // The API's params types are plain structs: they always serialize.
        let params = serde_json::to_value(params).unwrap_or_default();
        Action::Call { method: M::METHOD.name().into(), params, target }
    }
}

/// A stored element ref: what a snapshot showed, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefRecord {
    /// `e1`, `e2`, ...: never reused within a session.
    pub id: String,
    /// Its role as the snapshot showed it, e.g. `button`.
    pub role: String,
    /// Its accessible name as the snapshot showed it.
    pub name: String,
    /// CDP `backendDOMNodeId`; 0 for a large-page ref, which the page keeps (the walker's registry in
    /// the runtime's isolated world) until an action looks it up.
    pub backend_node_id: i64,
    /// CDP `frameId` of the element's frame.
    pub frame_id: String,
    /// The frame's document (`loaderId`) at snapshot time: a different one now means the ref is stale.
    pub loader_id: String,
}

/// How an action names its element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Locator {
    /// A ref from a snapshot.
    Ref(RefRecord),
    /// A selector in the main frame: CSS, or Playwright's selector or locator syntax (`query.js`).
    Selector(String),
}

/// A frame a script runs in (`page.evaluate {frame}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum FrameTarget {
    /// A CDP `frameId` (as `page.frames` lists).
    Id(String),
    /// The frame an `<iframe>` or `<frame>` element owns.
    Owner(Locator),
}

/// `page.snapshot` options (see the API's `SnapshotParams`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotOptions {
    /// Only what an agent can act on (and the text around it).
    pub interactive: bool,
    /// Fewer wrapper lines.
    pub compact: bool,
    /// Deepest level shown.
    pub max_depth: Option<u32>,
    /// The subtree to show, when not the whole page.
    pub scope: Option<Locator>,
    /// Cap on the text, characters.
    pub max_chars: u64,
    /// Only the changes since the previous snapshot of the same document with the same options.
    pub diff: bool,
}

/// Pointer and keyboard actions: what the worker's input engine runs (`interact::act`), made by the
/// worker's handlers of the input methods from their params, or sent by the supervisor in
/// [`Action::Input`] (`DragTo`, `ScrollIntoView`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum InputAction {
    /// `button` pressed `click_count` times with `modifiers` held.
    Click {
        /// The button pressed.
        button: MouseButton,
        /// Presses in a row (2: a double click).
        click_count: u32,
        /// Modifiers held during the click.
        modifiers: Vec<Modifier>,
    },
    /// Move the mouse over the element.
    Hover,
    /// Key events per character; `clear` empties the field first, `submit` presses Enter after.
    Type {
        /// The text typed.
        text: String,
        /// Empty the field first.
        clear: bool,
        /// Press Enter after.
        submit: bool,
    },
    /// Sets the value of an input, textarea or contenteditable, firing `input` and `change`.
    Fill {
        /// The value set.
        value: String,
    },
    /// A key or combo such as `Enter`, `Control+A`, `Shift+Tab`.
    Press {
        /// The key, e.g. `Enter`, `Control+A`.
        key: String,
    },
    /// Choose `<select>` options by value, label or index (several where the select allows it).
    Select {
        /// By value (or label).
        values: Vec<String>,
        /// By label.
        labels: Vec<String>,
        /// By position, 0-based.
        indexes: Vec<u32>,
    },
    /// Click a checkbox, radio or switch until it is in the `checked` state.
    Check {
        /// The state wanted.
        checked: bool,
    },
    /// Scroll the element into view.
    ScrollIntoView,
    /// Raw mouse input at viewport coordinates (no element; `page.mouse`).
    Mouse(MouseInput),
    /// Raw keys on the focused element (no element; `page.keyboard`).
    Keyboard {
        /// What to do.
        action: KeyboardAction,
        /// The key, combo (press) or text (insert_text).
        key: String,
    },
    /// Press on the element, move to `to`'s center, release (HTML5 drag and drop included).
    DragTo {
        /// Where to drop.
        to: Locator,
    },
}

/// One `page.mouse` input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MouseInput {
    /// What to do.
    pub action: MouseAction,
    /// Where, CSS px (`None`: where the mouse is).
    pub at: Option<(f64, f64)>,
    /// The button.
    pub button: MouseButton,
    /// Presses in a row, for click.
    pub click_count: u32,
    /// Wheel deltas, CSS px.
    pub delta: (f64, f64),
    /// Where a drag ends, CSS px.
    pub to: Option<(f64, f64)>,
}

/// What `page.wait_for` waits for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum WaitCondition {
    /// A selector in `state`.
    Selector {
        /// The selector (as [`Locator::Selector`]).
        selector: String,
        /// The state waited for.
        state: ElementState,
    },
    /// Text that appears in the page.
    Text(String),
    /// Text that leaves the page.
    TextGone(String),
    /// A JavaScript dialog answered since the session's last result.
    Dialog,
    /// A URL glob.
    Url(String),
    /// A load state of the main frame's document.
    LoadState(LoadState),
    /// A response whose URL matches the glob, received since the previous action started.
    Response(String),
    /// A download of the session that ended (the supervisor waits for it; never sent to a worker).
    Download,
    /// A popup of one of the session's tabs (the supervisor waits for it; never sent to a worker).
    Popup,
    /// A JS expression polled until truthy.
    Function(String),
    /// ms.
    Time(u64),
}

/// How many of a run's last steps ([`FromWorker::Step`]) a timeout the supervisor answers names.
pub const STEPS_NAMED: usize = 4;

/// Worker -> supervisor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(
    clippy::large_enum_variant,
    reason = "`Done` is the frame of every answer and lives one hop: boxing it would allocate once an action"
)]
pub enum FromWorker {
    /// Attached to the target (`Target.attachToTarget`, flat session `cdp_session_id`).
    Ready {
        /// CDP `targetId` attached to.
        target_id: String,
        /// The flat session's `sessionId`.
        cdp_session_id: String,
    },
    /// Run `seq` entered a new step: on a hard timeout the supervisor reports the last one. The first
    /// step is implied by the method ([`crate::api::Method::phase`]) and not sent; input sends `cdp` once its
    /// actionability checks passed.
    Phase {
        /// The run.
        seq: u64,
        /// The step it entered.
        phase: Phase,
    },
    /// Run `seq` took a step its answer would name ("button \"Go\" is actionable at (40, 12)"): on a
    /// hard timeout the supervisor's answer names the last [`STEPS_NAMED`] of them, as the worker's
    /// own timeout names its steps.
    Step {
        /// The run.
        seq: u64,
        /// The step, one line.
        step: String,
    },
    /// A JavaScript dialog opened during run `seq` and was answered (`kind`: alert, confirm, prompt,
    /// beforeunload).
    Dialog {
        /// The run it opened during.
        seq: u64,
        /// `alert`, `confirm`, `prompt` or `beforeunload`.
        kind: String,
        /// The dialog's text.
        message: String,
        /// Whether it was accepted.
        accepted: bool,
        /// A prompt's default value.
        default_value: Option<String>,
    },
    /// `count` more dialogs were answered during run `seq` than [`crate::api::DIALOGS_LISTED`]: counted,
    /// not sent (a page that opens them in a loop).
    DialogsDropped {
        /// The run they opened during.
        seq: u64,
        /// How many.
        count: u64,
    },
    /// The session's page moved to `target_id`: a page reset (`reason`: `tab_stuck`,
    /// `renderer_crashed`, `crash_loop`), or another tab of the session (`tabs.focus`, no reason).
    /// May come between runs, after the freeing that follows an answer; the supervisor reads it with
    /// the next run.
    TargetChanged {
        /// The tab now driven.
        target_id: String,
        /// Why the page was replaced (none: another tab was focused).
        reason: Option<String>,
    },
    /// Run `seq` waited `waited_ms` for the tab to be freed after the previous answer (the escalation
    /// ladder, a page reopened after a crash) before it started (sent before `Done`).
    Recovered {
        /// The run.
        seq: u64,
        /// How long it waited, ms.
        waited_ms: u64,
    },
    /// The run's input started a download in the main frame (`Page.downloadWillBegin`; sent before
    /// `Done`): the supervisor, which hears of downloads on the browser's connection, reports it in
    /// this run's result.
    DownloadBegan,
    /// The main frame committed a new URL since the last report (sent before `Done`).
    Navigated {
        /// The main frame's URL.
        url: String,
    },
    /// Run `seq`'s tab raised `count` console errors and uncaught exceptions (sent before `Done`, when
    /// any).
    ConsoleErrors {
        /// The run.
        seq: u64,
        /// How many.
        count: u64,
        /// The newest of them (at most [`CONSOLE_TEXTS`]), each at most [`CONSOLE_TEXT_CHARS`] chars:
        /// the live view and traces show them.
        texts: Vec<String>,
    },
    /// Something worth counting happened during the run (`runtime.stats`).
    Tally {
        /// What happened.
        counter: Counter,
    },
    /// A dialog opened in one of the worker's tabs while `page.handle_dialog` had asked how to answer
    /// the next one: the supervisor gives that answer to this dialog alone, forgetting it
    /// ([`ToWorker::DialogClaimed`]), so a dialog of a tab it holds cannot use it too. Sent any time,
    /// and answered by the stream's reader, during a run or not.
    ClaimDialog,
    /// The worker now holds `count` CDP sessions on tabs: the active tab's and those it left, each
    /// kept until its tab closes (sent when it changed; `runtime.stats` `tab_sessions`).
    TabSessions {
        /// How many.
        count: u32,
    },
    /// Run `seq` finished.
    Done {
        /// The run.
        seq: u64,
        /// Its output, or what went wrong.
        outcome: Result<Output, WorkerError>,
    },
    /// A CDP message to the browser on the worker's connection `conn` (0: the page's; others are
    /// opened by sending on them, as the escalation ladder's second connection).
    Cdp {
        /// The worker's connection.
        conn: u32,
        /// The CDP message as JSON text.
        message: String,
    },
    /// The worker closed its connection `conn`: the relay detaches its sessions.
    CdpClose {
        /// The connection closed.
        conn: u32,
    },
}

/// What a worker reports for the runtime's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Counter {
    /// `Runtime.terminateExecution` was answered (a script was stopped).
    TerminateExecution,
    /// The renderer crashed (`Inspector.targetCrashed`).
    RendererCrash,
}

/// A failed action, as the worker classifies it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerError {
    /// The error code.
    pub code: ErrorCode,
    /// The step it failed in.
    pub phase: Phase,
    /// One line for a model to read.
    pub message: String,
    /// The URL a failed navigation last asked for (a redirect's last hop), for the supervisor to say
    /// why it failed when the connection gate refused or could not reach it.
    pub url: Option<String>,
}

/// Declares [`Output`] with one typed payload per kind, and the conversions both ways: the worker
/// builds a payload and `.into()`s it; the supervisor takes it back with `TryFrom`, which hands the
/// whole [`Output`] back when it is of another kind (one place answers that case, not every method).
macro_rules! outputs {
    ($($(#[$doc:meta])* $variant:ident($ty:ident)),* $(,)?) => {
        /// A successful action's result: one payload per kind of action.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        pub enum Output {
            $($(#[$doc])* $variant($ty)),*
        }

        impl Output {
            /// The kind's name, for messages (`Goto`, `Snapshot`, ...).
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Output::$variant(_) => stringify!($variant)),*
                }
            }

            /// The result of method `M`'s [`Action::Call`].
            ///
            /// # Errors
            /// Another kind, or JSON that is not `M`'s result, is the worker's bug: `internal`.
            pub fn result<M: crate::api::ApiMethod>(self) -> Result<M::Result, crate::ErrorBody> {
                let json: Value = self.into_kind()?;
                serde_json::from_value(json).map_err(|e| {
                    crate::ErrorBody::new(
                        ErrorCode::Internal,
                        Phase::Worker,
                        format!("worker answered {} with a result that is not its own: {e}", M::METHOD.name()),
                    )
                })
            }

            /// The payload as kind `O` (e.g. [`GotoResult`] for `Output::Goto`).
            ///
            /// # Errors
            /// Another kind is the worker's bug: `internal`, phase `worker`, naming the kind it was.
            pub fn into_kind<O: TryFrom<Output, Error = Output>>(self) -> Result<O, crate::ErrorBody> {
                O::try_from(self).map_err(|other| {
                    crate::ErrorBody::new(
                        ErrorCode::Internal,
                        Phase::Worker,
                        format!("worker answered with the wrong result kind: {}", other.kind()),
                    )
                })
            }
        }

        $(
            impl From<$ty> for Output {
                fn from(o: $ty) -> Output {
                    Output::$variant(o)
                }
            }

            impl TryFrom<Output> for $ty {
                type Error = Output;
                fn try_from(o: Output) -> Result<$ty, Output> {
                    match o {
                        Output::$variant(x) => Ok(x),
                        other => Err(other),
                    }
                }
            }
        )*
    };
}

outputs! {
    /// The result of an [`Action::Call`]: the method's result type ([`crate::api::ApiMethod::Result`])
    /// as the caller gets it.
    #[serde(with = "as_json")]
    Json(Value),
    /// `page.goto`.
    #[serde(with = "as_json")]
    Goto(GotoResult),
    /// `page.screenshot`.
    #[serde(with = "as_json")]
    Screenshot(ScreenshotResult),
    /// `page.pdf`.
    #[serde(with = "as_json")]
    Pdf(PdfResult),
    /// `session.har`.
    #[serde(with = "as_json")]
    Har(HarResult),
    /// `page.upload`.
    #[serde(with = "as_json")]
    Upload(UploadResult),
    /// `page.fill_form`.
    #[serde(with = "as_json")]
    FillForm(FillFormResult),
    /// `page.wait_for`.
    #[serde(with = "as_json")]
    WaitFor(WaitForResult),
    /// `page.snapshot`.
    Snapshot(SnapshotOutput),
    /// `HandleDialog` was stored.
    DialogPolicy(DialogPolicyOutput),
    /// `page.select`.
    #[serde(with = "as_json")]
    Selected(SelectResult),
    /// `page.scroll` by deltas.
    #[serde(with = "as_json")]
    Scrolled(ScrollResult),
    /// `tabs.focus` / `tabs.open`: attached to another tab.
    Attached(AttachedOutput),
    /// Input on an element.
    #[serde(with = "as_json")]
    Input(InputResult),
    /// `page.evaluate`.
    Evaluate(EvaluateOutput),
    /// `page.set_viewport`: the display now in force.
    Display(Display),
    /// `page.emulate`.
    #[serde(with = "as_json")]
    Emulate(EmulateResult),
}

/// An API type inside a frame, as its JSON text: the API's types leave absent fields out of their
/// JSON (`skip_serializing_if`), which postcard (not self-describing) cannot read back. So the worker's
/// output travels in the very shape the caller gets, an action carries its method's params as the
/// agent gave them, and the IPC has no twin of either.
mod as_json {
    use serde::de::{DeserializeOwned, Error as _};
    use serde::ser::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<T: Serialize, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&serde_json::to_string(value).map_err(S::Error::custom)?)
    }

    pub(super) fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        serde_json::from_str(&String::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// An aria snapshot and the refs its text shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotOutput {
    /// The aria-snapshot text with `[ref=eN]`.
    pub text: String,
    /// Lines in `text`.
    pub lines: u64,
    /// Characters in `text`.
    pub chars: u64,
    /// Cut at `max_chars`.
    pub truncated: bool,
    /// The main document had not reached `DOMContentLoaded` (the text starts with a marker line).
    pub loading: bool,
    /// The text is a diff against the previous snapshot.
    pub diff: bool,
    /// The refs the text shows, for the session's ref table.
    pub refs: Vec<RefRecord>,
    /// The page's URL.
    pub url: String,
    /// The page's title.
    pub title: String,
}

/// How the next dialog will be answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DialogPolicyOutput {
    /// Accept the next dialog (else dismiss it).
    pub accept: bool,
}

/// The tab now driven: its URL and title.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttachedOutput {
    /// The tab's URL.
    pub url: String,
    /// The tab's title.
    pub title: String,
}

/// A script's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvaluateOutput {
    /// JavaScript's `typeof`-like kind (`string`, `number`, `object`, ...).
    pub kind: String,
    /// The value as JSON text when it has one.
    pub value_json: Option<String>,
    /// `NaN`, `-0`, `Infinity`, bigints.
    pub unserializable: Option<String>,
    /// For values without JSON (functions, symbols).
    pub description: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::BytesMut;
    use tokio_util::codec::{Decoder, Encoder};

    #[test]
    fn a_display_is_checked_once_for_every_caller() {
        assert_eq!(Display::checked(390, 700, 2.0), Ok(Display { width: 390, height: 700, scale: 2.0 }));
        for (w, h, s) in [(0, 10, 1.0), (10, 10_001, 1.0), (10, 10, 0.4), (10, 10, 4.5), (10, 10, f64::NAN)] {
            assert!(Display::checked(w, h, s).is_err(), "{w}x{h} at {s}");
        }
    }

    /// An API result whose absent fields its JSON leaves out (a goto without a status, an input that
    /// started no navigation) comes back whole through postcard: it travels as its JSON text.
    #[test]
    fn api_results_travel_whole_in_a_frame() {
        let goto = GotoResult {
            url: "about:blank".into(),
            title: String::new(),
            status: None,
            load_state: "load".into(),
            timed_out: false,
        };
        for output in [Output::Goto(goto), Output::Input(InputResult::of("button \"Go\""))] {
            let done = FromWorker::Done { seq: 1, outcome: Ok(output) };
            let back: FromWorker = decode(&encode(&done).unwrap()).unwrap();
            assert_eq!(back, done);
        }
    }

    #[test]
    fn messages_round_trip_through_the_codec() {
        let msg = ToWorker::Run {
            seq: 3,
            budget_ms: 7_750,
            reads: true,
            phase: Phase::Screenshot,
            action: Box::new(Action::Screenshot {
                params: ScreenshotParams {
                    full_page: true,
                    max_height: Some(16_384),
                    clip: Some(crate::api::Clip { x: 1.0, y: 2.0, width: 30.0, height: 40.0 }),
                    ..Default::default()
                },
                path: "/tmp/a.png".into(),
                target: Some(Locator::Selector("#x".into())),
            }),
        };
        let mut codec = codec();
        let mut buf = BytesMut::new();
        codec.encode(encode(&msg).unwrap(), &mut buf).unwrap();
        let frame = codec.decode(&mut buf).unwrap().unwrap();
        assert_eq!(decode::<ToWorker>(&frame).unwrap(), msg);

        let done = FromWorker::Done {
            seq: 3,
            outcome: Err(WorkerError {
                code: ErrorCode::Timeout,
                phase: Phase::Navigate,
                message: "x".into(),
                url: Some("http://a.test/".into()),
            }),
        };
        assert_eq!(decode::<FromWorker>(&encode(&done).unwrap()).unwrap(), done);
    }

    #[test]
    fn oversized_frames_are_refused() {
        let mut codec = codec();
        let mut buf = BytesMut::new();
        buf.extend_from_slice(&((MAX_FRAME_BYTES as u32) + 1).to_be_bytes());
        assert!(codec.decode(&mut buf).is_err());
    }
}
