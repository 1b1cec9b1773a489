//! A browser elsewhere, as issue 30's tests need it: a Chromium the test launches with its DevTools
//! port open ([`RemoteChromium`]), and in front of it a reverse proxy on loopback that terminates TLS
//! with a certificate made in the test (rcgen) and requires Basic auth ([`TlsProxy`]), built on hyper
//! and tokio-rustls. The proxy passes `/json/*` and the CDP WebSocket (an HTTP upgrade) through, and
//! the browser's `/json/version` keeps reporting its own loopback `webSocketDebuggerUrl`, as a browser
//! behind a gateway does.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use base64::Engine;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};

/// A Chromium with `--remote-debugging-port=0` on a profile of its own; killed on drop.
pub struct RemoteChromium {
    child: Child,
    /// Its DevTools port on 127.0.0.1.
    pub port: u16,
    _profile: tempfile::TempDir,
}

impl RemoteChromium {
    /// Launches it and waits for its `DevTools listening on ws://...` line on stderr.
    ///
    /// # Panics
    /// When it exits before listening.
    pub fn launch() -> RemoteChromium {
        RemoteChromium::launch_on(0)
    }

    /// [`RemoteChromium::launch`] on DevTools port `port` (0: any free one).
    ///
    /// # Panics
    /// As [`RemoteChromium::launch`].
    pub fn launch_on(port: u16) -> RemoteChromium {
        let profile = crate::temp_dir();
        let binary = sb_supervisor::lifecycle::browser::find_binary(None).expect("a Chromium binary");
        let mut child = Command::new(binary)
            .args(["--headless", "--no-sandbox", "--no-first-run"])
            .arg(format!("--remote-debugging-port={port}"))
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("chromium starts");
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let mut lines = stderr.lines();
        let port = loop {
            let line = lines.next().and_then(Result::ok).expect("chromium said where it listens");
            if let Some(rest) = line.strip_prefix("DevTools listening on ws://127.0.0.1:") {
                break rest.split('/').next().unwrap().parse().unwrap();
            }
        };
        // Its stderr keeps being read, so that it never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        RemoteChromium { child, port, _profile: profile }
    }

    /// Kills it now (the test's "the remote browser died").
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for RemoteChromium {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A TLS acceptor (rustls, ring) with a new self-signed certificate for `names`, and that
/// certificate's PEM (the CA a client must trust).
pub fn self_signed_acceptor(names: &[&str]) -> (tokio_rustls::TlsAcceptor, String) {
    let names = names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let certified = rcgen::generate_simple_self_signed(names).expect("a certificate");
    let key = rustls::pki_types::PrivateKeyDer::try_from(certified.signing_key.serialize_der()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .unwrap();
    (tokio_rustls::TlsAcceptor::from(Arc::new(config)), certified.cert.pem())
}

/// A TLS-terminating, Basic-auth reverse proxy on 127.0.0.1 in front of `127.0.0.1:<upstream>`.
pub struct TlsProxy {
    /// Its address.
    pub addr: SocketAddr,
    /// The PEM of its certificate (self-signed, for `127.0.0.1` and `localhost`): the CA a client must
    /// trust.
    pub ca_file: PathBuf,
    _dir: tempfile::TempDir,
    task: tokio::task::JoinHandle<()>,
}

impl TlsProxy {
    /// Starts it for `upstream`, accepting `user`:`password` only.
    pub async fn start(upstream: u16, user: &str, password: &str) -> TlsProxy {
        let (acceptor, pem) = self_signed_acceptor(&["127.0.0.1", "localhost"]);
        let dir = crate::temp_dir();
        let ca_file = dir.path().join("proxy-ca.pem");
        std::fs::write(&ca_file, pem).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let expected = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
        );
        let task = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                // Without it a large frame waits for a delayed ACK (40 ms a snapshot).
                let _ = tcp.set_nodelay(true);
                let (acceptor, expected) = (acceptor.clone(), expected.clone());
                tokio::spawn(async move {
                    // A client that does not trust the certificate ends the handshake here.
                    let Ok(tls) = acceptor.accept(tcp).await else { return };
                    let service =
                        hyper::service::service_fn(move |req| handle(req, upstream, expected.clone()));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service)
                        .with_upgrades()
                        .await;
                });
            }
        });
        TlsProxy { addr, ca_file, _dir: dir, task }
    }

    /// Its endpoint with credentials: `https://user:password@127.0.0.1:<port>`.
    pub fn url(&self, user: &str, password: &str) -> String {
        format!("https://{user}:{password}@{}", self.addr)
    }
}

impl Drop for TlsProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Body = BoxBody<Bytes, hyper::Error>;

fn full(status: StatusCode, text: &'static str) -> Response<Body> {
    let body = Full::new(Bytes::from_static(text.as_bytes())).map_err(|never| match never {}).boxed();
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response
}

/// One request: refused without the credentials; else sent upstream (its `Host` the browser's own,
/// which Chromium requires), and an upgrade (the CDP WebSocket) joined end to end.
async fn handle(
    mut req: Request<Incoming>,
    upstream: u16,
    expected: String,
) -> Result<Response<Body>, hyper::Error> {
    let authorized =
        req.headers().get(hyper::header::AUTHORIZATION).and_then(|v| v.to_str().ok()) == Some(&expected);
    if !authorized {
        let mut refused = full(StatusCode::UNAUTHORIZED, "credentials required");
        refused
            .headers_mut()
            .insert(hyper::header::WWW_AUTHENTICATE, "Basic realm=\"browser\"".parse().unwrap());
        return Ok(refused);
    }
    let Ok(tcp) = TcpStream::connect(("127.0.0.1", upstream)).await else {
        return Ok(full(StatusCode::BAD_GATEWAY, "the browser is unreachable"));
    };
    let _ = tcp.set_nodelay(true);
    let Ok((mut sender, conn)) = hyper::client::conn::http1::handshake(TokioIo::new(tcp)).await else {
        return Ok(full(StatusCode::BAD_GATEWAY, "the browser is unreachable"));
    };
    tokio::spawn(conn.with_upgrades());
    let downstream = hyper::upgrade::on(&mut req);
    let mut forward = Request::builder().method(req.method()).uri(req.uri().clone());
    for (name, value) in req.headers() {
        if name != hyper::header::HOST && name != hyper::header::AUTHORIZATION {
            forward = forward.header(name, value);
        }
    }
    let forward =
        forward.header(hyper::header::HOST, format!("127.0.0.1:{upstream}")).body(req.into_body()).unwrap();
    let Ok(mut response) = sender.send_request(forward).await else {
        return Ok(full(StatusCode::BAD_GATEWAY, "the browser did not answer"));
    };
    if response.status() == StatusCode::SWITCHING_PROTOCOLS {
        let upstream_side = hyper::upgrade::on(&mut response);
        tokio::spawn(async move {
            if let (Ok(down), Ok(up)) = (downstream.await, upstream_side.await) {
                let _ = tokio::io::copy_bidirectional(&mut TokioIo::new(down), &mut TokioIo::new(up)).await;
            }
        });
    }
    Ok(response.map(BodyExt::boxed))
}
