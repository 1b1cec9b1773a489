//! DevTools HTTP discovery: `GET /json/version` and `GET /json/list`.
//!
//! Chromium answers 500 to a `Host` header that is neither an IP nor `localhost` (DNS-rebinding
//! protection), so a plain `http:` request is sent with `Host: 127.0.0.1:<port>`; an `https:` one (a
//! gateway or TLS proxy in front of a remote browser, [`crate::tls`]) with the endpoint's own.

use std::time::Duration;

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde::de::DeserializeOwned;
use tokio::net::TcpStream;
use url::Url;

use crate::tls::Remote;
use crate::types::{ListedTarget, VersionInfo};
use crate::CdpError;

/// `GET <endpoint>/json/version`: the browser's version and `webSocketDebuggerUrl`, normalized with
/// [`crate::normalize_ws_url`] against `endpoint`.
///
/// # Errors
/// [`CdpError::Http`] on a refused connection, a non-200 status, a body that is not the expected JSON,
/// or when `timeout` passes first.
pub async fn version(endpoint: &Url, timeout: Duration) -> Result<VersionInfo, CdpError> {
    version_with(endpoint, timeout, &Remote::default()).await
}

/// [`version`] of a remote endpoint: `https:` with [`Remote`]'s TLS roots, its headers sent.
///
/// # Errors
/// As [`version`]; [`CdpError::Tls`] when the TLS configuration cannot be made.
pub async fn version_with(
    endpoint: &Url,
    timeout: Duration,
    remote: &Remote,
) -> Result<VersionInfo, CdpError> {
    let mut info: VersionInfo = get_json(endpoint, "/json/version", timeout, remote).await?;
    info.web_socket_debugger_url =
        crate::normalize_ws_url(&info.web_socket_debugger_url, endpoint.as_str())?.to_string();
    Ok(info)
}

/// `GET <endpoint>/json/list`: the browser's targets (pages, iframes, workers).
///
/// # Errors
/// As [`version`].
pub async fn list(endpoint: &Url, timeout: Duration) -> Result<Vec<ListedTarget>, CdpError> {
    get_json(endpoint, "/json/list", timeout, &Remote::default()).await
}

async fn get_json<T: DeserializeOwned>(
    endpoint: &Url,
    path: &str,
    timeout: Duration,
    remote: &Remote,
) -> Result<T, CdpError> {
    let url = endpoint
        .join(path)
        .map_err(|e| CdpError::Url { url: endpoint.to_string(), reason: e.to_string() })?;
    // Shown without its credentials.
    let shown = {
        let mut u = url.clone();
        let _ = u.set_password(None);
        let _ = u.set_username("");
        u.to_string()
    };
    let fail = |reason: String| CdpError::Http { url: shown.clone(), reason };
    let tls = if url.scheme() == "https" { Some(remote.tls_config()?) } else { None };
    let body = tokio::time::timeout(timeout, get(&url, tls, &remote.headers))
        .await
        .map_err(|_| fail(format!("no answer within {} ms", timeout.as_millis())))?
        .map_err(fail)?;
    serde_json::from_slice(&body).map_err(|e| CdpError::Http { url: shown, reason: format!("bad JSON: {e}") })
}

/// One `GET`: over TLS when `tls` is given (an `https:` endpoint: a gateway or proxy in front of the
/// browser, sent the endpoint's own `Host`), else plain (the browser itself, sent `Host: 127.0.0.1`:
/// Chromium answers 500 to a `Host` that is neither an IP nor `localhost`, DNS-rebinding protection).
async fn get(
    url: &Url,
    tls: Option<std::sync::Arc<rustls::ClientConfig>>,
    headers: &[(String, String)],
) -> Result<Bytes, String> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("discovery is http: or https:, not {}:", url.scheme()));
    }
    let host = url.host_str().ok_or("no host")?.trim_start_matches('[').trim_end_matches(']').to_string();
    let port = url.port_or_known_default().unwrap_or(80);
    let stream = TcpStream::connect((host.as_str(), port)).await.map_err(|e| e.to_string())?;
    let mut path = url.path().to_string();
    if let Some(q) = url.query() {
        path.push('?');
        path.push_str(q);
    }
    let host_header = if tls.is_some() { format!("{host}:{port}") } else { format!("127.0.0.1:{port}") };
    let mut req = hyper::Request::get(path).header(hyper::header::HOST, host_header);
    if let Some(auth) = crate::basic_auth_header(url) {
        req = req.header(hyper::header::AUTHORIZATION, auth);
    }
    for (name, value) in headers {
        req = req.header(name.as_str(), value.as_str());
    }
    let req = req.body(Empty::<Bytes>::new()).map_err(|e| e.to_string())?;
    match tls {
        Some(config) => {
            let name = rustls::pki_types::ServerName::try_from(host.clone()).map_err(|e| e.to_string())?;
            let stream = tokio_rustls::TlsConnector::from(config)
                .connect(name, stream)
                .await
                .map_err(|e| format!("TLS: {e}"))?;
            send(stream, req).await
        }
        None => send(stream, req).await,
    }
}

async fn send<S>(io: S, req: hyper::Request<Empty<Bytes>>) -> Result<Bytes, String>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(TokioIo::new(io)).await.map_err(|e| e.to_string())?;
    let conn = tokio::spawn(conn);
    let res = sender.send_request(req).await.map_err(|e| e.to_string())?;
    let status = res.status();
    let body = res.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    conn.abort();
    if !status.is_success() {
        return Err(format!("status {status}"));
    }
    Ok(body)
}
