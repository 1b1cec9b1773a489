//! What every method entry is made of: a page method ([`PageMethod`]: `params -> Action`,
//! `Output -> result`, and for a few a supervisor-side step after the run, [`After`]), the session
//! it is prepared against ([`Context`]), a finished action ([`Done`]), and the checks the entries
//! share (params, refs and selectors, frames, waits).

use futures_util::future::BoxFuture;
use sb_protocol::api::{ElementParams, WaitForParams};
use sb_protocol::api::{Emulation, Method};
use sb_protocol::error::bad_request;
use sb_protocol::ipc::{Action, Display, FrameTarget, Locator, Output, RefRecord, WaitCondition};
use sb_protocol::Budget;
use sb_protocol::{ErrorBody, ErrorCode, Phase};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::gate::guard::Guard;
use crate::sessions::downloads::Downloads;

/// What a page method may ask of its session while it builds its action.
pub trait Context {
    /// A ref the session issued.
    ///
    /// # Errors
    /// `unknown_ref` / `stale_ref`.
    fn reference(&self, id: &str) -> Result<RefRecord, ErrorBody>;
    /// Whether in-page JavaScript of the caller's may run (`evaluate_enabled`).
    fn evaluate_enabled(&self) -> bool;
    /// Whether sessions are kept apart by their tokens (`[limits] session_tokens`).
    fn sessions_apart(&self) -> bool;
    /// Where `page.upload` takes files from (`[files] uploads_dir`); `None`: uploads are off.
    fn uploads_dir(&self) -> Option<&std::path::Path>;
    /// The files `names` of the uploads dir `dir`, each opened once ([`crate::files::open_regular_under`]:
    /// a plain name of a regular file, not a symlink) and copied into a new directory of the session
    /// owner's uploads ([`crate::files::Kind::Uploads`]) under its own name: their paths there and
    /// their bytes in all. The browser reads a chosen file by its path, later (when the page reads
    /// it): the copy is the file that was checked, whatever is swapped in the uploads dir meanwhile.
    ///
    /// # Errors
    /// `bad_request` naming a file that is missing, not plain, a symlink or not a regular file;
    /// `internal` when a copy cannot be written.
    fn stage_uploads(&self, dir: &std::path::Path, names: &[String])
        -> Result<(Vec<String>, u64), ErrorBody>;
    /// Where the session's next artifact (a screenshot, a PDF) with file `extension` is written: in
    /// its owner's directory of that kind ([`crate::files::owned_dir`]).
    ///
    /// # Errors
    /// `internal` when that directory cannot be made.
    fn artifact_path(&self, extension: &str) -> Result<String, ErrorBody>;
    /// Where the session's artifact named `name` (a plain file name; `.extension` added when it
    /// does not end so) is written: in its owner's directory of that kind.
    ///
    /// # Errors
    /// `bad_request` for a name that is not plain; `internal` when the directory cannot be made.
    fn named_artifact(&self, extension: &str, name: &str) -> Result<String, ErrorBody>;
    /// The number the session's next new ref gets (held steady while a snapshot runs).
    fn next_ref(&self) -> u64;
    /// What the session's pages emulate now (`page.emulate`).
    fn emulation(&self) -> Emulation;
    /// The bytes of file `name` of the uploads dir (opened once as
    /// [`crate::files::open_regular_under`] opens it), at most `max_bytes`.
    ///
    /// # Errors
    /// `bad_request` when uploads are off, or naming a file that is missing, not plain, a symlink,
    /// not a regular file or larger than `max_bytes`.
    fn read_upload(&self, name: &str, max_bytes: usize) -> Result<Vec<u8>, ErrorBody>;
}

/// A finished page action: its result, and what the session keeps of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    /// The method's result object (the API's `*Result` type as JSON).
    pub result: Value,
    /// Refs a snapshot issued, for the session's ref table.
    pub refs: Vec<RefRecord>,
    /// The main frame's URL the action reports (goto), for the session store.
    pub url: Option<String>,
    /// The session's display from now on (`page.set_viewport`).
    pub display: Option<Display>,
    /// What the session's pages emulate from now on (`page.emulate`).
    pub emulation: Option<Emulation>,
}

impl Done {
    pub(super) fn of<T: serde::Serialize>(result: T) -> Done {
        // The API's result types are plain structs: they always serialize.
        Done {
            result: serde_json::to_value(result).unwrap_or(Value::Null),
            refs: Vec::new(),
            url: None,
            display: None,
            emulation: None,
        }
    }
}

/// One page method.
pub struct PageMethod {
    /// The method and its params -> the worker's action. Checks every parameter.
    pub prepare: fn(Method, Value, &dyn Context) -> Result<Action, ErrorBody>,
    /// The worker's output -> the result. An output of another kind is answered `internal`.
    pub finish: fn(Output) -> Result<Done, ErrorBody>,
    /// Holds the session's ref numbering from `prepare` to storing the refs (snapshots), so two
    /// snapshots never share numbers.
    pub numbers_refs: bool,
    /// What the supervisor adds to the answer from what it sees itself, for the few methods that
    /// have something (`page.goto`'s download, `page.network`'s refusals); `None` for the rest.
    pub after: Option<After>,
}

/// The entry of every worker method with nothing of its own to do in the supervisor: its params
/// held to its declaration ([`Method::check_value`]: their type, and the declared `check`), their
/// element looked up (a `ref` in the session's table, or a `selector`), and the whole handed to the
/// worker as they are ([`Action::Call`]), whose handler of the method answers its result type
/// ([`Output::Json`]). Adding such a method is its declaration and its worker handler: the route
/// sends every worker method without an entry here.
pub static CALL: PageMethod = PageMethod {
    prepare: |method, v, cx| {
        let v = declared(method, v)?;
        // The element, when the params name one (a params type without `ref` and `selector` has had
        // them refused as unknown fields already).
        let element = ElementParams::deserialize(&v).map_err(|e| bad_request(format!("bad params: {e}")))?;
        let target = locator(cx, element, true)?;
        Ok(Action::Call { method: method.name().into(), params: v, target })
    },
    finish: |o| finish_as(o, |v: Value| Done::of(v)),
    numbers_refs: false,
    after: None,
};

/// `params` held to `method`'s declaration ([`Method::check_value`]: its params type and its declared
/// `check`), `{}` for absent params.
///
/// # Errors
/// `bad_request` with the rule's words.
pub(super) fn declared(method: Method, params: Value) -> Result<Value, ErrorBody> {
    let params = if params.is_null() { json!({}) } else { params };
    method.check_value(&params).map_err(bad_request)?;
    Ok(params)
}

/// What a page method's supervisor-side step ([`PageMethod::after`]) works with: the parts of the
/// supervisor it may read, beside the request's session and budget.
pub struct Supervised<'a> {
    /// The request's session (the registry's id).
    pub session_id: &'a str,
    /// Every session's downloads, which the browser tells the supervisor of on its own connection.
    pub downloads: &'a Downloads,
    /// The session's downloads when the request began ([`Downloads::list`]'s length).
    pub downloads_before: usize,
    /// The URL policy, and what the connection gate said of the URLs pages asked for
    /// ([`Guard::gate_said`]).
    pub guard: &'a Guard,
    /// The request's one deadline.
    pub budget: Budget,
}

/// A page method's supervisor-side step, run once its worker answered (or failed), on the answer
/// as it goes back: it may add to a result or say more in an error. Within [`Supervised::budget`].
pub type After = for<'a> fn(&'a Supervised<'a>, &'a mut Result<Value, ErrorBody>) -> BoxFuture<'a, ()>;

/// The output as kind `O`, finished by `f`; another kind is the worker's bug, answered `internal`.
pub(super) fn finish_as<O: TryFrom<Output, Error = Output>>(
    o: Output,
    f: impl FnOnce(O) -> Done,
) -> Result<Done, ErrorBody> {
    o.into_kind().map(f)
}

/// Decodes `params` ([`sb_protocol::api::decode_params`]: absent params are `{}`, so a missing
/// required field is named in the error).
///
/// # Errors
/// `bad_request` naming the field.
pub fn params<T: DeserializeOwned>(params: Value) -> Result<T, ErrorBody> {
    sb_protocol::api::decode_params(&params).map_err(bad_request)
}

/// `evaluate_disabled` when the configuration turned in-page JavaScript off (`page.evaluate`,
/// `page.wait_for {function}`).
pub(super) fn evaluate_allowed(cx: &dyn Context, phase: Phase) -> Result<(), ErrorBody> {
    if cx.evaluate_enabled() {
        return Ok(());
    }
    Err(ErrorBody::new(
        ErrorCode::EvaluateDisabled,
        phase,
        "in-page JavaScript is turned off in this runtime (evaluate_enabled = false)",
    ))
}

/// The element an input names: a ref or a selector, exactly one (`optional`: neither is fine).
/// `page.evaluate {frame}`: a ref (`e` and digits, as snapshots name them) is the `<iframe>` it names;
/// anything else is a CDP `frameId`.
pub(super) fn frame_target(cx: &dyn Context, frame: String) -> Result<FrameTarget, ErrorBody> {
    if looks_like_ref(&frame) {
        Ok(FrameTarget::Owner(Locator::Ref(cx.reference(&frame)?)))
    } else if frame.is_empty() {
        Err(bad_request("frame is empty: give a frame_id from page.frames or the ref of an <iframe>"))
    } else {
        Ok(FrameTarget::Id(frame))
    }
}

/// The element `e` names, `None` when it names none and that is allowed (`optional`).
pub(super) fn locator(
    cx: &dyn Context,
    e: ElementParams,
    optional: bool,
) -> Result<Option<Locator>, ErrorBody> {
    if optional && e.reference.is_none() && e.selector.is_none() {
        return Ok(None);
    }
    required(cx, e).map(Some)
}

/// The element `e` names with exactly one of ref or selector.
pub(super) fn required(cx: &dyn Context, e: ElementParams) -> Result<Locator, ErrorBody> {
    match (e.reference, e.selector) {
        (Some(r), None) => Ok(Locator::Ref(cx.reference(&r)?)),
        (None, Some(css)) => Ok(Locator::Selector(css)),
        _ => Err(bad_request(sb_protocol::api::ELEMENT_EXACTLY_ONE)),
    }
}

/// Whether a scope string is a ref (`e12`) rather than a CSS selector.
pub(super) fn looks_like_ref(s: &str) -> bool {
    s.strip_prefix('e').is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// The one condition of `page.wait_for`.
///
/// # Errors
/// `bad_request` when it has none or more than one, or `state` without `selector`.
pub fn wait_condition(p: WaitForParams) -> Result<WaitCondition, ErrorBody> {
    let state = p.state;
    let mut found: Vec<WaitCondition> = Vec::new();
    if let Some(selector) = p.selector {
        found.push(WaitCondition::Selector { selector, state: state.unwrap_or_default() });
    } else if state.is_some() {
        return Err(bad_request("state goes with selector"));
    }
    found.extend(p.text.map(WaitCondition::Text));
    found.extend(p.text_gone.map(WaitCondition::TextGone));
    found.extend(p.url.map(WaitCondition::Url));
    found.extend(p.load_state.map(WaitCondition::LoadState));
    found.extend(p.function.map(WaitCondition::Function));
    found.extend(p.time_ms.map(WaitCondition::Time));
    found.extend(p.response.map(WaitCondition::Response));
    if p.download {
        found.push(WaitCondition::Download);
    }
    if p.popup {
        found.push(WaitCondition::Popup);
    }
    if p.dialog {
        found.push(WaitCondition::Dialog);
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        n => Err(bad_request(format!(
            "page.wait_for takes exactly one of selector, text, text_gone, url, load_state, function, time_ms, dialog, response, download, popup (got {n})"
        ))),
    }
}
