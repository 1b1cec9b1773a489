//! Typed params and helpers for the calls every page action makes: `Runtime.evaluate`,
//! `Runtime.callFunctionOn`, `DOM.resolveNode`, `DOM.describeNode`, `DOM.getBoxModel`,
//! `DOM.getContentQuads`, `DOM.getFrameOwner`, `DOM.getNodeForLocation`, `Page.getFrameTree`,
//! `Page.getLayoutMetrics`, `Page.createIsolatedWorld`; and the browser's `Target.*`.
//!
//! They return what Chromium answered, typed; a thrown exception is the answer's
//! [`EvaluateResult::exception_details`], not an error here (the caller decides what it means).

use std::future::Future;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::types::{
    CreateTargetResult, EvaluateResult, FrameTree, GetTargetsResult, LayoutMetrics, RemoteObject, TargetInfo,
};
use crate::{CdpClient, CdpError, Session};

/// `Runtime.evaluate` params (the fields the runtime uses).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluate {
    /// The JavaScript expression.
    pub expression: String,
    /// The execution context (an isolated world's); the page's main world when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_id: Option<i64>,
    /// Return the value as JSON instead of a remote object.
    pub return_by_value: bool,
    /// Await a returned promise.
    pub await_promise: bool,
    /// Run as if from a user gesture (so `window.open`, fullscreen and the like are allowed).
    pub user_gesture: bool,
    /// V8's own time limit for the script, ms (`-32603` or "Execution was terminated" when it fires).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// The object group remote objects of the result belong to (`Runtime.releaseObjectGroup`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_group: Option<String>,
}

impl Evaluate {
    /// `expression`, returned by value, promises awaited.
    pub fn by_value(expression: impl Into<String>) -> Evaluate {
        Evaluate {
            expression: expression.into(),
            return_by_value: true,
            await_promise: true,
            ..Evaluate::default()
        }
    }
}

/// `Runtime.callFunctionOn` params: `function_declaration` called with `this` the remote object
/// `object_id` (or, with `execution_context_id` instead, that context's global object) and
/// `arguments` (CDP `CallArgument`s: `{"value": ...}` or `{"objectId": ...}`).
///
/// What varies from call to call belongs in `arguments`, not in the function's source: V8 keeps every
/// distinct source compiled through the inspector for as long as its context lives (measured: about
/// 21 KB kept for each distinct 8 KB `Runtime.evaluate` expression, after garbage collection).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFunctionOn {
    /// `function() { ... }` source.
    pub function_declaration: String,
    /// `this` (empty: none, `execution_context_id` names the context instead).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub object_id: String,
    /// The execution context whose global object is `this`, when there is no `object_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<i64>,
    /// The call's arguments.
    pub arguments: Vec<Value>,
    /// Return the value as JSON instead of a remote object.
    pub return_by_value: bool,
    /// Await a returned promise.
    pub await_promise: bool,
    /// The object group remote objects of the result belong to (`Runtime.releaseObjectGroup`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_group: Option<String>,
    /// Run as if the user acted (transient activation: what the clipboard's `writeText` asks of a
    /// page).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub user_gesture: bool,
}

/// A DOM node as `DOM.describeNode` gives it (the fields the runtime uses).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// The node's `backendNodeId`: stable for the node's life in its renderer.
    pub backend_node_id: i64,
    /// `DIV`, `#text`, ...
    #[serde(default)]
    pub node_name: String,
    /// For an `<iframe>`: the frame it owns.
    #[serde(default)]
    pub frame_id: Option<String>,
}

/// `Runtime.PropertyDescriptor` (the fields the runtime uses).
#[derive(Debug, Clone, Deserialize)]
pub struct Property {
    /// The property's name (`"0"`, `"1"`, ... for an array's elements).
    pub name: String,
    /// Its value; absent for an accessor.
    #[serde(default)]
    pub value: Option<RemoteObject>,
}

#[derive(Deserialize)]
struct Described {
    node: Node,
}

#[derive(Deserialize)]
struct Resolved {
    object: RemoteObject,
}

/// `DOM.getBoxModel`'s model: quads as `[x1, y1, ..., x4, y4]`, CSS px in the frame's viewport.
#[derive(Debug, Clone, Deserialize)]
pub struct BoxModel {
    /// The content box.
    pub content: Vec<f64>,
    /// The border box.
    pub border: Vec<f64>,
    /// Width, CSS px.
    pub width: f64,
    /// Height, CSS px.
    pub height: f64,
}

#[derive(Deserialize)]
struct Boxed {
    model: BoxModel,
}

impl Session {
    /// Whether the page's main thread runs a trivial script (`Runtime.evaluate "1"`) within `timeout`
    /// (a zero timeout: no). A page busy in a script, or blocked outside JavaScript, does not.
    pub async fn responsive(&self, timeout: Duration) -> bool {
        if timeout.is_zero() {
            return false;
        }
        let r = self.evaluate(&Evaluate::by_value("1"), timeout).await;
        r.is_ok_and(|r| r.exception_details.is_none())
    }

    /// `Runtime.evaluate` within `timeout`.
    ///
    /// # Errors
    /// The call's [`CdpError`]; a thrown exception is not one (see [`EvaluateResult::exception_details`]).
    pub async fn evaluate(&self, params: &Evaluate, timeout: Duration) -> Result<EvaluateResult, CdpError> {
        self.evaluate_now(params, timeout).await
    }

    /// `Runtime.evaluate`, sent now (in order with this session's other calls); the answer's future,
    /// which may be dropped or spawned without changing what the session runs.
    ///
    /// # Errors
    /// As [`Session::evaluate`].
    pub fn evaluate_now(
        &self,
        params: &Evaluate,
        timeout: Duration,
    ) -> impl Future<Output = Result<EvaluateResult, CdpError>> + Send + 'static {
        self.script_now("Runtime.evaluate", to_value(params), timeout)
    }

    /// `Runtime.callFunctionOn`, sent now (in order with this session's other calls); the answer's
    /// future.
    pub fn call_function_on(
        &self,
        params: &CallFunctionOn,
        timeout: Duration,
    ) -> impl Future<Output = Result<EvaluateResult, CdpError>> + Send + 'static {
        self.script_now("Runtime.callFunctionOn", to_value(params), timeout)
    }

    /// `method` (a script call: `Runtime.evaluate`, `Runtime.callFunctionOn`) sent now; its answer's
    /// future.
    fn script_now(
        &self,
        method: &'static str,
        params: Value,
        timeout: Duration,
    ) -> impl Future<Output = Result<EvaluateResult, CdpError>> + Send + 'static {
        let sent = self.send_raw(method, params, timeout);
        async move {
            let v = sent.await?;
            serde_json::from_value(v)
                .map_err(|e| CdpError::Decode { method: method.into(), reason: e.to_string() })
        }
    }

    /// `DOM.resolveNode {backendNodeId, objectGroup}`: the node's remote object in its document's main
    /// world, in object group `group` (it lives until the group is released, `Runtime.releaseObjectGroup`,
    /// or its document goes).
    ///
    /// # Errors
    /// The call's [`CdpError`] (`-32000 No node with given id found` when it is gone).
    pub async fn resolve_node(
        &self,
        backend_node_id: i64,
        group: &str,
        timeout: Duration,
    ) -> Result<RemoteObject, CdpError> {
        let params = serde_json::json!({"backendNodeId": backend_node_id, "objectGroup": group});
        let r: Resolved = self.call("DOM.resolveNode", params, timeout).await?;
        Ok(r.object)
    }

    /// `DOM.resolveNode {backendNodeId, executionContextId, objectGroup}`: the node's remote object in
    /// the execution context `context` (an isolated world's), in object group `group`.
    ///
    /// # Errors
    /// The call's [`CdpError`] (`-32000 No node with given id found` when it is gone).
    pub async fn resolve_node_in(
        &self,
        backend_node_id: i64,
        context: i64,
        group: &str,
        timeout: Duration,
    ) -> Result<RemoteObject, CdpError> {
        let params = serde_json::json!({"backendNodeId": backend_node_id, "executionContextId": context, "objectGroup": group});
        let r: Resolved = self.call("DOM.resolveNode", params, timeout).await?;
        Ok(r.object)
    }

    /// `Runtime.getProperties {objectId, ownProperties: true}`: an object's own properties, each its name
    /// and value (a remote object; absent for accessors).
    ///
    /// # Errors
    /// The call's [`CdpError`].
    pub async fn own_properties(
        &self,
        object_id: &str,
        timeout: Duration,
    ) -> Result<Vec<Property>, CdpError> {
        #[derive(Deserialize)]
        struct Got {
            result: Vec<Property>,
        }
        let params = serde_json::json!({"objectId": object_id, "ownProperties": true});
        let got: Got = self.call("Runtime.getProperties", params, timeout).await?;
        Ok(got.result)
    }

    /// `DOM.describeNode {objectId}`: the node behind a remote object.
    ///
    /// # Errors
    /// The call's [`CdpError`] (the object is not a node, or is gone).
    pub async fn describe_node(&self, object_id: &str, timeout: Duration) -> Result<Node, CdpError> {
        let r: Described =
            self.call("DOM.describeNode", serde_json::json!({"objectId": object_id}), timeout).await?;
        Ok(r.node)
    }

    /// `Page.getFrameTree`: the frames of this session's renderer, its root first.
    ///
    /// # Errors
    /// The call's [`CdpError`].
    pub async fn frame_tree(&self, timeout: Duration) -> Result<FrameTree, CdpError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Got {
            frame_tree: FrameTree,
        }
        let got: Got = self.call("Page.getFrameTree", serde_json::json!({}), timeout).await?;
        Ok(got.frame_tree)
    }

    /// `DOM.getFrameOwner {frameId}`: the `backendNodeId` of the frame's `<iframe>` element.
    ///
    /// # Errors
    /// The call's [`CdpError`] (the frame is gone, or not of this renderer's documents).
    pub async fn frame_owner(&self, frame_id: &str, timeout: Duration) -> Result<i64, CdpError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Owner {
            backend_node_id: i64,
        }
        let owner: Owner =
            self.call("DOM.getFrameOwner", serde_json::json!({"frameId": frame_id}), timeout).await?;
        Ok(owner.backend_node_id)
    }

    /// `Page.getLayoutMetrics`.
    ///
    /// # Errors
    /// The call's [`CdpError`].
    pub async fn layout_metrics(&self, timeout: Duration) -> Result<LayoutMetrics, CdpError> {
        self.call("Page.getLayoutMetrics", serde_json::json!({}), timeout).await
    }

    /// `DOM.getNodeForLocation {x, y}` (CSS px of the document: the viewport's plus its scroll offset;
    /// user-agent shadow DOM left out, as the page sees its own nodes): the `backendNodeId` of the node
    /// that gets pointer events there.
    ///
    /// # Errors
    /// The call's [`CdpError`] (no node at that point).
    pub async fn node_for_location(&self, x: i64, y: i64, timeout: Duration) -> Result<i64, CdpError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Hit {
            backend_node_id: i64,
        }
        let params = serde_json::json!({"x": x, "y": y, "includeUserAgentShadowDOM": false});
        let hit: Hit = self.call("DOM.getNodeForLocation", params, timeout).await?;
        Ok(hit.backend_node_id)
    }

    /// `Page.createIsolatedWorld {frameId, worldName}`: the new world's `executionContextId`.
    ///
    /// # Errors
    /// The call's [`CdpError`] (the frame is gone).
    pub async fn create_isolated_world(
        &self,
        frame_id: &str,
        name: &str,
        timeout: Duration,
    ) -> Result<i64, CdpError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct World {
            execution_context_id: i64,
        }
        let params = serde_json::json!({"frameId": frame_id, "worldName": name});
        let world: World = self.call("Page.createIsolatedWorld", params, timeout).await?;
        Ok(world.execution_context_id)
    }

    /// `DOM.getBoxModel {backendNodeId}`.
    ///
    /// # Errors
    /// The call's [`CdpError`] (`Could not compute box model` for a node without layout).
    pub async fn get_box_model(&self, backend_node_id: i64, timeout: Duration) -> Result<BoxModel, CdpError> {
        let r: Boxed = self
            .call("DOM.getBoxModel", serde_json::json!({"backendNodeId": backend_node_id}), timeout)
            .await?;
        Ok(r.model)
    }
}

impl CdpClient {
    /// `Target.createTarget {url, newWindow, browserContextId}` on the browser connection: the new page
    /// target's `targetId`. A page in a window of its own (`new_window`) gets animation frames even when
    /// another window has the focus; `context` is a browser context of [`CdpClient::create_browser_context`]
    /// (`None`: the default one).
    ///
    /// # Errors
    /// The call's [`CdpError`].
    pub async fn create_target(
        &self,
        url: &str,
        new_window: bool,
        context: Option<&str>,
        timeout: Duration,
    ) -> Result<String, CdpError> {
        let mut params = serde_json::json!({"url": url, "newWindow": new_window});
        if let Some(context) = context {
            params["browserContextId"] = context.into();
        }
        let created: CreateTargetResult = self.call("Target.createTarget", None, params, timeout).await?;
        Ok(created.target_id)
    }

    /// `Target.getTargetInfo {targetId}` on the browser connection.
    ///
    /// # Errors
    /// The call's [`CdpError`] (no such target).
    pub async fn target_info(&self, target_id: &str, timeout: Duration) -> Result<TargetInfo, CdpError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Got {
            target_info: TargetInfo,
        }
        let got: Got = self
            .call("Target.getTargetInfo", None, serde_json::json!({"targetId": target_id}), timeout)
            .await?;
        Ok(got.target_info)
    }

    /// `Target.getTargets` on the browser connection: every target of every browser context.
    ///
    /// # Errors
    /// The call's [`CdpError`].
    pub async fn targets(&self, timeout: Duration) -> Result<Vec<TargetInfo>, CdpError> {
        let got: GetTargetsResult =
            self.call("Target.getTargets", None, serde_json::json!({}), timeout).await?;
        Ok(got.target_infos)
    }

    /// `Target.createBrowserContext`: a browser context of its own (cookies, storage, cache and
    /// permissions apart from every other context), with `proxy` when given
    /// (`proxyServer`, `proxyBypassList`); its `browserContextId`.
    ///
    /// # Errors
    /// The call's [`CdpError`].
    pub async fn create_browser_context(
        &self,
        proxy: Option<&ContextProxy>,
        timeout: Duration,
    ) -> Result<String, CdpError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Created {
            browser_context_id: String,
        }
        let params = match proxy {
            Some(p) => serde_json::json!({"proxyServer": p.server, "proxyBypassList": p.bypass}),
            None => serde_json::json!({}),
        };
        let created: Created = self.call("Target.createBrowserContext", None, params, timeout).await?;
        Ok(created.browser_context_id)
    }

    /// `Target.disposeBrowserContext`: closes the context's pages and deletes its data.
    ///
    /// # Errors
    /// The call's [`CdpError`] (a context that is already gone included).
    pub async fn dispose_browser_context(&self, context: &str, timeout: Duration) -> Result<(), CdpError> {
        self.call_raw(
            "Target.disposeBrowserContext",
            None,
            serde_json::json!({"browserContextId": context}),
            timeout,
        )
        .await
        .map(|_| ())
    }
}

/// An answer of `method` (from [`Session::send_raw`], sent earlier) as `T`.
///
/// # Errors
/// [`CdpError::Decode`] when it does not fit.
pub fn decode<T: serde::de::DeserializeOwned>(method: &str, answer: Value) -> Result<T, CdpError> {
    serde_json::from_value(answer)
        .map_err(|e| CdpError::Decode { method: method.into(), reason: e.to_string() })
}

/// `DOM.getContentQuads` result: quads as `[x1, y1, ..., x4, y4]`, CSS px in the frame's viewport.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ContentQuads {
    /// Each quad's four corners `[x1, y1, x2, y2, x3, y3, x4, y4]`, CSS px (a box split over lines has several).
    pub quads: Vec<Vec<f64>>,
}

fn to_value(params: &impl Serialize) -> Value {
    serde_json::to_value(params).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_serialize_as_cdp_names_them() {
        let e = Evaluate { context_id: Some(3), timeout: Some(500), ..Evaluate::by_value("1 + 1") };
        assert_eq!(
            to_value(&e),
            serde_json::json!({"expression": "1 + 1", "contextId": 3, "returnByValue": true,
                               "awaitPromise": true, "userGesture": false, "timeout": 500})
        );
        let c = CallFunctionOn {
            function_declaration: "function() {}".into(),
            object_id: "o".into(),
            ..Default::default()
        };
        assert_eq!(to_value(&c)["functionDeclaration"], "function() {}");
        assert_eq!(to_value(&c)["objectId"], "o");
    }
}

/// A browser context's own proxy (`Target.createBrowserContext`'s `proxyServer`, in Chromium's
/// `--proxy-server` syntax with rules per scheme, and `proxyBypassList`, as `--proxy-bypass-list`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextProxy {
    /// `proxyServer`: `http=direct://;https=...;socks=socks5://host:port`, or one proxy for all.
    pub server: String,
    /// `proxyBypassList`: `<-loopback>` to send loopback through the proxy too.
    pub bypass: String,
}
