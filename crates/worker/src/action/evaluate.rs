//! `page.evaluate` and `page.call_function` (a function called with arguments, or on an element): the
//! script runs in the page (or a frame), and its value comes back as JSON without losing what JSON
//! cannot hold ([`TO_JSON`]).

use sb_cdp::calls::Evaluate;
use sb_cdp::commands::RuntimeReleaseObjectGroup;
use sb_cdp::types::{EvaluateResult, RemoteObject};
use sb_cdp::CdpError;
use sb_protocol::ipc::{EvaluateOutput, FrameTarget, Locator, Output, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use serde_json::{json, Value};

use crate::action::actions::SMALL_CALL;
use crate::action::worlds;
use crate::elements::resolve::{resolve, Element};
use crate::error::{cdp_failure, context_lost, fail, navigated_away, script_failure};
use crate::progress::Progress;
use crate::tab::page::Page;

/// The object group of `page.evaluate`'s results, released after each call.
const EVAL_GROUP: &str = "sandbox-browser-evaluate";

/// Turns an in-page value into JSON without losing what JSON cannot hold. Runs as
/// `Runtime.callFunctionOn` on the evaluated object. Tags: `{"$undefined": true}`,
/// `{"$number": "NaN" | "-0" | "Infinity" | "-Infinity"}`, `{"$bigint": "12"}`, `{"$symbol": "..."}`,
/// `{"$function": "name"}`, `{"$node": "<div id=\"x\">"}`, `{"$circular": true}`, `{"$regexp": "/a/g"}`,
/// `{"$map": [[k, v], ...]}`, `{"$set": [...]}`, `{"$error": "TypeError: ..."}`, `{"$object": "Window"}`
/// (platform objects), `{"$truncated": "..."}` past depth 32; Date and URL as their ISO string and
/// href. The value comes whole up to about 64 MiB of JSON; past that each open array, typed array,
/// Map or Set ends with one `{"$truncated": "N more items: ..."}` and each object with a
/// `"$truncated"` key.
const TO_JSON: &str = include_str!("to_json.js");

/// `Runtime.evaluate {awaitPromise, userGesture: true, timeout}`; an object result is converted by
/// [`TO_JSON`] (`Runtime.callFunctionOn`, `returnByValue`). V8's own `timeout` stops a synchronous
/// loop; anything else that runs past the budget is the ladder's.
///
/// Errors: `evaluate_error` with the JS message; `timeout`.
pub(crate) async fn evaluate(
    page: &Page,
    expression: &str,
    frame: Option<&FrameTarget>,
    arg_json: Option<&str>,
    p: &Progress,
) -> Result<Output, WorkerError> {
    let budget = p.budget();
    let phase = Phase::Evaluate;
    let arg = argument(arg_json)?;
    let world = worlds::main_world(page, frame, p).await?;
    let timeout = budget.remaining();
    // V8's own clock ends a little before the call's, so that its answer (not the call's timeout) comes.
    let v8_timeout_ms = timeout.as_millis().saturating_sub(8).max(1) as u64;
    let started = std::time::Instant::now();
    let call = Evaluate {
        expression: expression.to_string(),
        await_promise: true,
        user_gesture: true,
        return_by_value: false,
        object_group: Some(EVAL_GROUP.into()),
        timeout: Some(v8_timeout_ms),
        context_id: world.context_id,
    };
    p.log("running the script");
    let r = match world.session.evaluate(&call, timeout).await {
        Ok(r) => r,
        // V8 collected a promise nothing can settle any more: it never resolves, so the action cannot
        // finish, and it answers at its deadline like any other that cannot.
        Err(CdpError::Protocol { message, .. }) if message.contains("Promise was collected") => {
            tokio::time::sleep_until(budget.deadline().into()).await;
            return Err(fail(
                ErrorCode::Timeout,
                phase,
                "the script's promise never settles (nothing refers to it any more); it was given the whole budget",
            ));
        }
        Err(e) => return Err(script_failure(phase, e, started, v8_timeout_ms)),
    };
    if let Some(details) = r.exception_details {
        return Err(fail(ErrorCode::EvaluateError, phase, details.message()));
    }
    // An expression whose value is a function (`() => document.title`) is called, with the argument
    // when one was given, and its promise awaited: Playwright's `page.evaluate` does so with a string
    // when it is not told whether it is a function (`utilityScript.ts` `evaluate`, `isFunction`
    // undefined: Python's `page.evaluate(string, arg)`, Playwright MCP's `browser_evaluate`).
    let result = match (r.result.kind.as_str(), r.result.object_id.clone()) {
        ("function", Some(object_id)) => {
            let args = Value::Array(arg.into_iter().collect());
            call_on(&world.session, &object_id, "function(...args) { return this(...args); }", args, budget)
                .await?
        }
        _ => r.result,
    };
    typed(&world.session, result, budget).await
}

/// A function `page.evaluate` calls: its source, the element it gets first (when any), and the JSON
/// text of the argument it gets after it (when any).
pub(crate) struct FunctionCall<'a> {
    pub(crate) function: &'a str,
    pub(crate) target: Option<&'a Locator>,
    pub(crate) arg_json: Option<&'a str>,
}

/// The CDP `CallArgument` of an evaluate's JSON argument (`{"value": ...}`), when one was given.
///
/// # Errors
/// `bad_request` when the text is not JSON (the supervisor sends JSON it parsed: never in practice).
fn argument(arg_json: Option<&str>) -> Result<Option<Value>, WorkerError> {
    let Some(text) = arg_json else { return Ok(None) };
    let value: Value = serde_json::from_str(text)
        .map_err(|e| fail(ErrorCode::BadRequest, Phase::Evaluate, format!("arg is not JSON: {e}")))?;
    Ok(Some(json!({ "value": value })))
}

/// The call's function called with the element named by its `target` (or nothing) and its argument
/// (when given) as its arguments (`Runtime.callFunctionOn`, promises awaited), as Playwright's
/// `locator.evaluate(fn, arg)` and `page.evaluate(fn, arg)`; its result typed as [`evaluate`]'s.
pub(crate) async fn call_function(
    page: &Page,
    call: FunctionCall<'_>,
    frame: Option<&FrameTarget>,
    p: &Progress,
) -> Result<Output, WorkerError> {
    let FunctionCall { function, target, arg_json } = call;
    let budget = p.budget();
    let phase = Phase::Evaluate;
    let this = match target {
        Some(locator) => resolve(page, locator, p)
            .await?
            .ok_or_else(|| fail(ErrorCode::BadRequest, phase, "the selector matches no element"))?,
        None => {
            let world = worlds::main_world(page, frame, p).await?;
            let global = Evaluate {
                expression: "globalThis".into(),
                context_id: world.context_id,
                ..Evaluate::default()
            };
            let global = world
                .session
                .evaluate(&global, budget.remaining())
                .await
                .map_err(|e| cdp_failure(phase, e))?;
            Element {
                object_id: global.result.object_id.unwrap_or_default(),
                backend: 0,
                label: "page".into(),
                session: world.session,
                // Not an element: no function here asks for its frame.
                frame_id: String::new(),
                offset: (0.0, 0.0),
                world: None,
            }
        }
    };
    let element = target.is_some().then(|| json!({"objectId": this.object_id}));
    let args = Value::Array(element.into_iter().chain(argument(arg_json)?).collect());
    // In the element's own session: an element of an out-of-process iframe lives there.
    let result = call_on(&this.session, &this.object_id, function, args, budget).await?;
    typed(&this.session, result, budget).await
}

/// `function` called on the object `object_id` with `args` (`Runtime.callFunctionOn`, its promise
/// awaited, with a user gesture, the result kept in [`EVAL_GROUP`]).
///
/// # Errors
/// `evaluate_error` with the JS message when it throws, or "the page navigated" when its document
/// went away; a CDP failure or timeout.
async fn call_on(
    session: &sb_cdp::Session,
    object_id: &str,
    function: &str,
    args: Value,
    budget: Budget,
) -> Result<RemoteObject, WorkerError> {
    let phase = Phase::Evaluate;
    let r: EvaluateResult = session
        .call(
            "Runtime.callFunctionOn",
            json!({"objectId": object_id, "functionDeclaration": function, "arguments": args,
                   "awaitPromise": true, "userGesture": true, "returnByValue": false, "objectGroup": EVAL_GROUP}),
            budget.remaining(),
        )
        .await
        .map_err(|e| if context_lost(&e) { navigated_away(phase) } else { cdp_failure(phase, e) })?;
    if let Some(details) = r.exception_details {
        return Err(fail(ErrorCode::EvaluateError, phase, details.message()));
    }
    Ok(r.result)
}

/// A result as [`Output::Evaluate`]: primitives as they are, objects through [`TO_JSON`].
async fn typed(session: &sb_cdp::Session, obj: RemoteObject, budget: Budget) -> Result<Output, WorkerError> {
    let phase = Phase::Evaluate;
    let Some(object_id) = obj.object_id else {
        return Ok(Output::Evaluate(EvaluateOutput {
            kind: obj.kind,
            value_json: obj.value.as_ref().map(Value::to_string),
            unserializable: obj.unserializable_value,
            description: None,
        }));
    };
    let converted: Result<EvaluateResult, CdpError> = session
        .call(
            "Runtime.callFunctionOn",
            json!({"objectId": object_id, "functionDeclaration": TO_JSON, "returnByValue": true}),
            budget.remaining(),
        )
        .await;
    let _ = session
        .run(&RuntimeReleaseObjectGroup { object_group: EVAL_GROUP.into() }, budget.capped(SMALL_CALL))
        .await;
    let converted =
        converted
            .map_err(|e| if context_lost(&e) { navigated_away(phase) } else { cdp_failure(phase, e) })?;
    if let Some(details) = converted.exception_details {
        return Err(fail(ErrorCode::EvaluateError, phase, details.message()));
    }
    Ok(Output::Evaluate(EvaluateOutput {
        kind: obj.kind,
        value_json: converted.result.value.as_ref().map(Value::to_string),
        unserializable: None,
        description: obj.description.filter(|_| converted.result.value.is_none()),
    }))
}
