//! DevTools HTTP discovery: `GET /json/version` and `GET /json/list`.
//!
//! Chromium answers 500 to a `Host` header that is neither an IP nor `localhost` (DNS-rebinding
//! protection), so every request is sent with `Host: 127.0.0.1:<port>`. Plain `http:` only.

use std::time::Duration;

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde::de::DeserializeOwned;
use tokio::net::TcpStream;
use url::Url;

use crate::types::{ListedTarget, VersionInfo};
use crate::CdpError;

/// `GET <endpoint>/json/version`: the browser's version and `webSocketDebuggerUrl`, normalized with
/// [`crate::normalize_ws_url`] against `endpoint`.
///
/// # Errors
/// [`CdpError::Http`] on a refused connection, a non-200 status, a body that is not the expected JSON,
/// or when `timeout` passes first.
pub async fn version(endpoint: &Url, timeout: Duration) -> Result<VersionInfo, CdpError> {
    let mut info: VersionInfo = get_json(endpoint, "/json/version", timeout).await?;
    info.web_socket_debugger_url =
        crate::normalize_ws_url(&info.web_socket_debugger_url, endpoint.as_str())?.to_string();
    Ok(info)
}

/// `GET <endpoint>/json/list`: the browser's targets (pages, iframes, workers).
///
/// # Errors
/// As [`version`].
pub async fn list(endpoint: &Url, timeout: Duration) -> Result<Vec<ListedTarget>, CdpError> {
    get_json(endpoint, "/json/list", timeout).await
}

async fn get_json<T: DeserializeOwned>(endpoint: &Url, path: &str, timeout: Duration) -> Result<T, CdpError> {
    let url = endpoint
        .join(path)
        .map_err(|e| CdpError::Url { url: endpoint.to_string(), reason: e.to_string() })?;
    let fail = |reason: String| CdpError::Http { url: url.to_string(), reason };
    let body = tokio::time::timeout(timeout, get(&url))
        .await
        .map_err(|_| fail(format!("no answer within {} ms", timeout.as_millis())))?
        .map_err(fail)?;
    serde_json::from_slice(&body)
        .map_err(|e| CdpError::Http { url: url.to_string(), reason: format!("bad JSON: {e}") })
}

async fn get(url: &Url) -> Result<Bytes, String> {
    if url.scheme() != "http" {
        return Err(format!("only http: discovery is supported, not {}:", url.scheme()));
    }
    let host = url.host_str().ok_or("no host")?;
    let port = url.port_or_known_default().unwrap_or(80);
    let stream = TcpStream::connect((host.trim_start_matches('[').trim_end_matches(']'), port))
        .await
        .map_err(|e| e.to_string())?;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
    let conn = tokio::spawn(conn);
    let mut path = url.path().to_string();
    if let Some(q) = url.query() {
        path.push('?');
        path.push_str(q);
    }
    let mut req = hyper::Request::get(path).header(hyper::header::HOST, format!("127.0.0.1:{port}"));
    if let Some(auth) = crate::basic_auth_header(url) {
        req = req.header(hyper::header::AUTHORIZATION, auth);
    }
    let req = req.body(Empty::<Bytes>::new()).map_err(|e| e.to_string())?;
    let res = sender.send_request(req).await.map_err(|e| e.to_string())?;
    let status = res.status();
    let body = res.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    conn.abort();
    if !status.is_success() {
        return Err(format!("status {status}"));
    }
    Ok(body)
}
