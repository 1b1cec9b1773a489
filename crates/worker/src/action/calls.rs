//! The worker's methods that come as [`Action::Call`](sb_protocol::ipc::Action::Call): their params as
//! the agent gave them (checked by the supervisor against the method's declaration), their element
//! looked up. `handlers!` lists each method once, by its declaration's name, with its handler: an
//! `async fn(&Page, Params, Option<&Locator>, &Progress) -> Result<Result, WorkerError>` whose
//! `Params` and `Result` are the declaration's ([`ApiMethod`]), so a handler that takes or answers
//! another type does not compile. Adding a worker method is its declaration and its handler here.

use sb_protocol::api::{
    call, decode_params, ApiMethod, ConsoleParams, ConsoleResult, FramesResult, Method, NetworkParams,
    NetworkResult,
};
use sb_protocol::fields::NoParams;
use sb_protocol::ipc::{Locator, Output, WorkerError};
use sb_protocol::{ErrorCode, Phase};
use serde_json::Value;

use super::{actions, verify};
use crate::error::fail;
use crate::inputs::methods;
use crate::progress::Progress;
use crate::tab::frames;
use crate::tab::page::Page;

/// Declares the table: [`call`] (a method's handler by its wire name), [`handles`] and [`rereads`].
/// `rereads` after a handler: a run whose document went away under it runs again in the new one,
/// though the declaration does not say the method only reads.
macro_rules! handlers {
    ($($method:ident => $handler:path $(, $rereads:ident)?;)*) => {
        /// Runs `method`'s handler on `params` and `target` within `p`, its result as the caller gets
        /// it ([`Output::Json`]).
        ///
        /// # Errors
        /// The handler's; `internal` for a method the worker has no handler for, or params that are
        /// not its type (the supervisor checked them: the worker's bug, or a version skew).
        pub(crate) async fn call(
            page: &mut Page,
            method: &str,
            params: Value,
            target: Option<&Locator>,
            p: &Progress,
        ) -> Result<Output, WorkerError> {
            match Method::parse(method) {
                $(Some(Method::$method) => {
                    let params = decode::<call::$method>(&params)?;
                    // Boxed: the table's future would otherwise hold the largest handler's inline.
                    let result: <call::$method as ApiMethod>::Result =
                        Box::pin($handler(page, params, target, p)).await?;
                    encode::<call::$method>(result)
                })*
                _ => Err(internal(format!("the worker has no handler for {method}"))),
            }
        }

        /// Whether the worker has a handler for `method` as a call of its own params
        /// ([`sb_protocol::ipc::Action::Call`]): the supervisor's tests hold every method it sends
        /// so to one.
        pub fn handles(method: Method) -> bool {
            matches!(method, $(Method::$method)|*)
        }

        /// Whether a run of `method` whose document went away under it (a navigation, a page that
        /// reloads itself) runs again in the new one, as Playwright's reads wait across a navigation:
        /// a method declared to only read ([`Method::reads_only`]), or one marked `rereads` here.
        pub(crate) fn rereads(method: &str) -> bool {
            match Method::parse(method) {
                $(Some(Method::$method) => Method::$method.reads_only() $(|| handlers!(@$rereads))?,)*
                _ => false,
            }
        }
    };
    (@rereads) => {
        true
    };
}

handlers! {
    PageClick => methods::click;
    PageType => methods::type_text;
    PageFill => methods::fill;
    PagePress => methods::press;
    PageHover => methods::hover;
    PageCheck => methods::check;
    PageSelect => methods::select;
    PageMouse => methods::mouse;
    PageKeyboard => methods::keyboard;
    PageExtract => actions::extract;
    PageFrames => frames_listed;
    // Its get reads; a set, a delete or a clear done again in the new document is what was asked.
    PageStorage => actions::storage, rereads;
    PageClipboard => actions::clipboard;
    PageQuery => verify::query;
    PageVerify => verify::verify;
    PageGenerateLocator => verify::generate_locator;
    PageConsole => console;
    PageNetwork => network;
}

/// The params of method `M` from their JSON.
fn decode<M: ApiMethod>(params: &Value) -> Result<M::Params, WorkerError> {
    decode_params(params)
        .map_err(|e| internal(format!("{} came with params that are not its own: {e}", M::METHOD.name())))
}

/// The result of method `M` as JSON.
fn encode<M: ApiMethod>(result: M::Result) -> Result<Output, WorkerError> {
    serde_json::to_value(result)
        .map(Output::Json)
        .map_err(|e| internal(format!("{}'s result could not be written: {e}", M::METHOD.name())))
}

/// The worker's bug, phase `worker`.
fn internal(message: String) -> WorkerError {
    fail(ErrorCode::Internal, Phase::Worker, message)
}

/// `page.frames`: the active tab's frame tree, main frame first.
async fn frames_listed(
    page: &Page,
    _: NoParams,
    _: Option<&Locator>,
    p: &Progress,
) -> Result<FramesResult, WorkerError> {
    Ok(FramesResult { frames: frames::list(page, p.budget()).await? })
}

/// `page.console`: the active tab's console messages after `since`, at `level` or more severe, the
/// newest `limit` (from the tab's journal: no call to the page).
async fn console(
    page: &Page,
    params: ConsoleParams,
    _: Option<&Locator>,
    _: &Progress,
) -> Result<ConsoleResult, WorkerError> {
    let (since, level) = (params.since.unwrap_or(0), params.level.unwrap_or_default());
    Ok(page.journal.console(since, level, params.newest()))
}

/// `page.network`: the active tab's requests after `since` whose URL matches `filter`, the newest
/// `limit`; or with `id`, that request with its details (headers, post data, the response's body,
/// capped: `Network.getResponseBody`, `Network.getRequestPostData`).
///
/// # Errors
/// `bad_request` for a filter that does not compile, or an `id` the tab's buffer does not hold.
async fn network(
    page: &Page,
    params: NetworkParams,
    _: Option<&Locator>,
    p: &Progress,
) -> Result<NetworkResult, WorkerError> {
    let bad = |message: String| fail(ErrorCode::BadRequest, Phase::Cdp, message);
    if let Some(id) = params.id {
        let Some(found) = page.journal.details(id) else {
            let listed = page.journal.network(0, None, true, 1);
            return Err(bad(format!(
                "page.network: the active tab's buffer holds no request {id} (its newest is {}); list them with page.network",
                listed.last_id
            )));
        };
        let entry = found.entry.clone();
        let details = found.fetch(&page.session, p.budget()).await;
        let listed = page.journal.network(0, None, true, 1);
        return Ok(NetworkResult {
            requests: vec![entry],
            last_id: listed.last_id,
            dropped: listed.dropped,
            details: Some(Box::new(details)),
        });
    }
    let pattern = params
        .filter
        .as_deref()
        .map(sb_protocol::pattern::url_pattern)
        .transpose()
        .map_err(|e| bad(format!("page.network filter: {e}")))?;
    let (since, limit) = (params.since.unwrap_or(0), params.newest());
    Ok(page.journal.network(since, pattern.as_ref(), params.include_static, limit))
}
