//! The connection gate: a forward proxy on a loopback port of the supervisor's that the browser must
//! use for every connection it opens (`--proxy-server=http://127.0.0.1:<port>`, and
//! `--proxy-bypass-list=<-loopback>` so that loopback addresses go through it too; Chromium bypasses
//! the proxy for them by default).
//!
//! This is where the URL policy holds for every load a page makes ([`crate::gate::guard`]). Every
//! connection, WebSockets included, goes through here: a tunnel (`CONNECT host:port`: `https`, `wss`,
//! and `ws`, which Chromium tunnels through an HTTP proxy too) or a plain `http` request (absolute-form
//! URI). Each is checked against the policy
//! ([`Guard::connect_to`]: origins, and networks after DNS) and connected to exactly the addresses the
//! check passed, so a name that resolves elsewhere a moment later (DNS rebinding) cannot move the
//! connection. A refused tunnel is answered `403` (the page sees `net::ERR_TUNNEL_CONNECTION_FAILED`), a
//! refused plain request is closed unanswered (`net::ERR_EMPTY_RESPONSE`: a `403` would be a page that
//! loaded); each refusal is logged (`url_blocked`: the URL without its credentials, or a tunnel's host
//! and port; the rule) and told to the guard, which explains a navigation that failed here.
//!
//! The gate listens on loopback TCP (Chromium takes no other kind of proxy), so it serves only
//! connections from the runtime's own uid: the kernel names the owner of the peer's end
//! ([`crate::gate::sock_diag`]) and another uid's connection is closed unanswered.
//!
//! HTTP here is hyper's (server and client, HTTP/1.1 with upgrades); the tunnel is a byte copy.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Empty, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use sb_protocol::Budget;
use tokio::net::{TcpListener, TcpStream};

use crate::gate::guard::{GateSaid, Guard, HostPort};

/// Longest the policy check and the upstream connect of one connection may take together.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

type Body = BoxBody<Bytes, hyper::Error>;

/// The upstream connection a browser connection's last plain `http` request went out on (its host and
/// port, and hyper's sender on it), kept for the next request to the same place: Chromium sends one
/// request at a time on a connection to a proxy, often to the same origin, and a loopback connect and
/// handshake per request is most of what the gate costs a plain `http` page.
type Idle = Arc<std::sync::Mutex<Option<(HostPort, SendRequest<Incoming>)>>>;

/// The gate, listening; it runs until the supervisor exits.
pub struct Proxy {
    addr: SocketAddr,
}

impl Proxy {
    /// Binds a loopback port and serves the gate on it: a thread of its own with its own event loop
    /// (a task per browser connection), so that a request's hop through the gate never waits behind
    /// the supervisor's other work (the relay, the sessions' workers) for a thread of the runtime.
    ///
    /// # Errors
    /// When no loopback port can be bound or the thread cannot start.
    pub fn start(guard: Arc<Guard>) -> std::io::Result<Proxy> {
        let std_listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let events = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        std::thread::Builder::new().name("connection-gate".into()).spawn(move || {
            events.block_on(async move {
                let Ok(listener) = TcpListener::from_std(std_listener) else { return };
                serve(listener, addr, guard).await;
            })
        })?;
        Ok(Proxy { addr })
    }

    /// The browser flags that send every connection through the gate.
    pub fn flags(&self) -> Vec<String> {
        proxy_flags(self.addr.port())
    }
}

/// The gate's accept loop on `listener` (at `addr`).
async fn serve(listener: TcpListener, addr: SocketAddr, guard: Arc<Guard>) {
    loop {
        let Ok((stream, peer)) = listener.accept().await else { continue };
        if crate::gate::sock_diag::peer_uid(peer, addr) != Some(nix::unistd::geteuid().as_raw()) {
            tracing::warn!(peer = %peer, "connection_gate_peer_refused");
            continue;
        }
        // Small writes (a request's headers, a tunnel's records) go out at once.
        let _ = stream.set_nodelay(true);
        let guard = guard.clone();
        tokio::spawn(async move {
            // The upstream connection of this browser connection's last plain request.
            let idle: Idle = Arc::new(std::sync::Mutex::new(None));
            let service = hyper::service::service_fn(move |req| handle(req, guard.clone(), idle.clone()));
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades()
                .await;
        });
    }
}

/// The flags for a gate on loopback port `port`. Port 1 (nothing listens there): every connection
/// fails, which is what a browser whose gate could not start must get (closed, not open).
pub fn proxy_flags(port: u16) -> Vec<String> {
    vec![format!("--proxy-server=http://127.0.0.1:{port}"), "--proxy-bypass-list=<-loopback>".into()]
}

/// One request of the browser to the gate.
async fn handle(
    req: Request<Incoming>,
    guard: Arc<Guard>,
    idle: Idle,
) -> Result<Response<Body>, std::io::Error> {
    let tunnel = req.method() == Method::CONNECT;
    let target = if tunnel {
        req.uri().authority().map(|a| (None, a.host().to_string(), a.port_u16().unwrap_or(443)))
    } else {
        let uri = req.uri();
        match (uri.scheme_str(), uri.host()) {
            (Some("http"), Some(host)) => {
                Some((Some("http"), host.to_string(), uri.port_u16().unwrap_or(80)))
            }
            _ => None,
        }
    };
    let Some((scheme, host, port)) = target else {
        return Ok(status(
            StatusCode::BAD_REQUEST,
            "the gate takes CONNECT host:port or an absolute http:// URI",
        ));
    };
    let host = host.trim_start_matches('[').trim_end_matches(']').to_string();
    let key: HostPort = (host.to_ascii_lowercase(), port);
    let budget = Budget::new(CONNECT_TIMEOUT);
    let addresses = match guard.connect_to(scheme, &host, port, budget).await {
        Ok(a) => a,
        Err(blocked) => {
            let url = if tunnel {
                format!("{host}:{port}")
            } else {
                sb_protocol::redact::in_url(&req.uri().to_string()).into_owned()
            };
            tracing::warn!(url = %url, rule = %blocked.rule, tunnel, "url_blocked");
            guard.gate_says(key, GateSaid::Refused(blocked.rule.clone()));
            if tunnel {
                let text = format!("blocked by the URL policy: {}", blocked.rule);
                return Ok(status(StatusCode::FORBIDDEN, &text));
            }
            // A plain request is failed, not answered: the browser gets no response (a 403 page would
            // be a page that loaded).
            return Err(std::io::Error::other("blocked by the URL policy"));
        }
    };
    let mut req = req;
    if !tunnel {
        if !origin_form(&mut req) {
            return Ok(status(StatusCode::BAD_REQUEST, "bad request target"));
        }
        // The same place as this connection's last plain request, and that connection is free: it
        // goes there again (to an address checked for this host and port). A kept connection the
        // server closed meanwhile hands the request back, and it goes on a new one.
        let reuse = idle.lock().unwrap().take().filter(|(k, sender)| *k == key && sender.is_ready());
        if let Some((_, mut sender)) = reuse {
            match sender.try_send_request(req).await {
                Ok(response) => {
                    *idle.lock().unwrap() = Some((key, sender));
                    return Ok(without_hop_headers(response).map(BodyExt::boxed));
                }
                Err(mut e) => match e.take_message() {
                    Some(unsent) => req = unsent,
                    // As the upstream ended it: the browser's connection ends unanswered.
                    None => return Err(std::io::Error::other(format!("upstream: {}", e.error()))),
                },
            }
        }
    }
    let upstream = match connect(&host, port, addresses, budget).await {
        Ok(s) => s,
        Err(e) => {
            guard.gate_says(key, GateSaid::Unreachable(net_error(&e)));
            if tunnel {
                return Ok(status(StatusCode::BAD_GATEWAY, &format!("cannot connect to {host}:{port}: {e}")));
            }
            return Err(e);
        }
    };
    if tunnel {
        tokio::spawn(async move {
            if let Ok(upgraded) = hyper::upgrade::on(req).await {
                let mut upstream = upstream;
                let _ = tokio::io::copy_bidirectional(&mut TokioIo::new(upgraded), &mut upstream).await;
            }
        });
        return Ok(Response::new(empty()));
    }
    match forward(req, upstream, key.clone(), &idle).await {
        Ok(response) => Ok(response),
        Err(e) => {
            // An upstream that reset the connection: the page's failure says so, as it would without
            // the gate (one that closed unanswered already reads `net::ERR_EMPTY_RESPONSE`).
            if reset_by_peer(&e) {
                guard.gate_says(key, GateSaid::Unreachable("net::ERR_CONNECTION_RESET"));
            }
            Err(std::io::Error::other(format!("upstream: {e}")))
        }
    }
}

/// Whether an upstream error is the connection reset by its peer (`ECONNRESET` under hyper's error).
fn reset_by_peer(e: &hyper::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            return io.kind() == std::io::ErrorKind::ConnectionReset;
        }
        source = s.source();
    }
    false
}

/// A connection to `host:port` at one of the checked `addresses`, and never anywhere else: the name is
/// not resolved again here. No addresses means the check could not resolve the name (with only the
/// default network rules a name that does not resolve passes the policy); the connection fails as
/// the browser's would, `net::ERR_NAME_NOT_RESOLVED`, where a second lookup could have answered an
/// address nobody checked (a name that answers NXDOMAIN, then `169.254.169.254`).
async fn connect(
    host: &str,
    port: u16,
    addresses: Vec<IpAddr>,
    budget: Budget,
) -> std::io::Result<TcpStream> {
    let targets: Vec<SocketAddr> = addresses.into_iter().map(|ip| SocketAddr::new(ip, port)).collect();
    if targets.is_empty() {
        return Err(std::io::Error::new(std::io::ErrorKind::NotFound, format!("{host} did not resolve")));
    }
    match tokio::time::timeout(budget.remaining(), TcpStream::connect(&targets[..])).await {
        Ok(connected) => {
            let stream = connected?;
            let _ = stream.set_nodelay(true);
            Ok(stream)
        }
        Err(_) => Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "connect timed out")),
    }
}

/// A plain request's target in origin form (`/path?query`), without the proxy's hop-by-hop headers;
/// `false` when its target has no such form.
fn origin_form(req: &mut Request<Incoming>) -> bool {
    let path = req.uri().path_and_query().map_or("/", |p| p.as_str()).to_string();
    let Ok(uri) = path.parse() else { return false };
    *req.uri_mut() = uri;
    for hop in ["proxy-connection", "proxy-authorization", "keep-alive"] {
        req.headers_mut().remove(hop);
    }
    true
}

/// A plain `http` request (in origin form) sent on a new connection `upstream`, its response streamed
/// back (an upgrade, such as a WebSocket's, is carried through); the connection is kept in `idle` for
/// the next request to `key`.
///
/// # Errors
/// When the upstream fails before it answers (it closed the connection unanswered, reset it, sent no
/// HTTP): the gate then closes the browser's connection unanswered too, so the page sees what it would
/// without the gate (`net::ERR_EMPTY_RESPONSE`, no status), never an answer of the gate's own (a 502
/// was a response the page loaded).
async fn forward(
    req: Request<Incoming>,
    upstream: TcpStream,
    key: HostPort,
    idle: &Idle,
) -> Result<Response<Body>, hyper::Error> {
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(upstream)).await?;
    tokio::spawn(conn.with_upgrades());
    let response = sender.send_request(req).await?;
    *idle.lock().unwrap() = Some((key, sender));
    Ok(without_hop_headers(response).map(BodyExt::boxed))
}

/// A response without its hop-by-hop headers (RFC 9110 §7.6.1: `Connection`, the headers it names,
/// `Keep-Alive`, `Proxy-Connection`), which speak of the upstream connection, not of the browser's
/// connection to the gate: an upstream that closes each connection (`Connection: close`, as HTTP/1.0
/// servers do) no longer makes the browser open a new connection to the gate for every request. A
/// `101 Switching Protocols` (a WebSocket's) keeps them: its `Connection: upgrade` is the upgrade.
fn without_hop_headers<B>(mut response: Response<B>) -> Response<B> {
    if response.status() == StatusCode::SWITCHING_PROTOCOLS {
        return response;
    }
    let headers = response.headers_mut();
    let named: Vec<String> = headers
        .get_all(hyper::header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(',').map(|n| n.trim().to_ascii_lowercase()))
        .filter(|n| !n.is_empty())
        .collect();
    for name in named.iter().map(String::as_str).chain(["connection", "keep-alive", "proxy-connection"]) {
        headers.remove(name);
    }
    response
}

/// Chromium's name for a failed connect (`net/base/net_error_list.h`).
fn net_error(e: &std::io::Error) -> &'static str {
    use std::io::ErrorKind::*;
    match e.kind() {
        ConnectionRefused => "net::ERR_CONNECTION_REFUSED",
        TimedOut => "net::ERR_CONNECTION_TIMED_OUT",
        ConnectionReset => "net::ERR_CONNECTION_RESET",
        HostUnreachable | NetworkUnreachable | AddrNotAvailable => "net::ERR_ADDRESS_UNREACHABLE",
        NotFound => "net::ERR_NAME_NOT_RESOLVED",
        _ => "net::ERR_CONNECTION_FAILED",
    }
}

fn empty() -> Body {
    Empty::<Bytes>::new().map_err(|never| match never {}).boxed()
}

/// An answer of the gate's own: `code` with `text`.
fn status(code: StatusCode, text: &str) -> Response<Body> {
    let body = Full::new(Bytes::from(text.to_string())).map_err(|never| match never {}).boxed();
    let mut response = Response::new(body);
    *response.status_mut() = code;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An upstream's `Connection: close` (and the headers `Connection` names, and `Keep-Alive`) stay
    /// on the upstream side: the browser's connection to the gate is kept. A `101` keeps its
    /// `Connection: upgrade`.
    #[test]
    fn hop_by_hop_headers_stay_with_the_upstream_connection() {
        let response = Response::builder()
            .header("connection", "close, x-hop")
            .header("x-hop", "1")
            .header("keep-alive", "timeout=5")
            .header("content-type", "image/png")
            .body(())
            .unwrap();
        let kept = without_hop_headers(response);
        let names: Vec<&str> = kept.headers().keys().map(|k| k.as_str()).collect();
        assert_eq!(names, ["content-type"]);
        let upgrade = Response::builder()
            .status(StatusCode::SWITCHING_PROTOCOLS)
            .header("connection", "upgrade")
            .header("upgrade", "websocket")
            .body(())
            .unwrap();
        assert_eq!(without_hop_headers(upgrade).headers()["connection"], "upgrade");
    }
}
