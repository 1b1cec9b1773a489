//! Transports: how CDP messages (one JSON text each) reach a browser and come back.
//!
//! A [`Wire`] is the two ends every transport gives a [`CdpClient`](crate::CdpClient): messages in
//! (ending with the reason the transport closed), messages out (and a request to close). Three make
//! one:
//! - [`ws`]: a WebSocket (`ws://host:port/devtools/browser/<id>`, a browser reached over the network);
//! - [`pipe`]: the pipe pair of `--remote-debugging-pipe` (Chromium reads CDP on its fd 3 and writes on
//!   its fd 4, each message ended by a NUL byte; no TCP listener, no `DevToolsActivePort`), which is
//!   what Playwright's `launch()` uses;
//! - a route of a [`Relay`](crate::relay::Relay): one virtual connection among several sharing one
//!   transport.

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, watch};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::codec::{AnyDelimiterCodec, FramedRead, FramedWrite};
use url::Url;

use crate::CdpError;

/// The CDP error code of an answer the transport dropped for being over its limit
/// ([`pipe::open_limited`]); Chromium's own codes are -32000 to -32700's others.
pub const TOO_LONG: i64 = -32090;

/// Largest message accepted, in bytes (256 MiB). Chromium sends a full-page screenshot as one
/// message; tungstenite's 16 MiB default would close the connection.
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// What a transport delivers: a message, or the end with its reason (nothing follows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inbound {
    /// One CDP message (a JSON object as text).
    Message(String),
    /// The transport closed; the reason is for logs and errors (`closed by the browser`, ...).
    Closed(String),
}

/// What a transport is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outbound {
    /// Send one CDP message (a JSON object as text).
    Message(String),
    /// Close the transport (a WebSocket close frame; the end of a pipe or route).
    Close,
}

/// The two ends of a transport. The transport's tasks end when `outbound`'s senders are all dropped
/// or [`Outbound::Close`] is sent; `inbound` then yields [`Inbound::Closed`] (or simply ends).
#[derive(Debug)]
pub struct Wire {
    /// Messages from the browser (or the relay), in order.
    pub inbound: mpsc::Receiver<Inbound>,
    /// Messages to it.
    pub outbound: mpsc::UnboundedSender<Outbound>,
}

/// How many inbound messages a transport buffers before it stops reading (back-pressure on the
/// socket or pipe; a relay route closes instead, see [`crate::relay`]).
pub(crate) const INBOUND_BUFFER: usize = 1024;

/// The WebSocket transport.
pub mod ws {
    use super::*;

    /// Opens the WebSocket at `ws_url` within `timeout`; frames and messages up to
    /// [`MAX_MESSAGE_BYTES`]. Userinfo in the URL is sent as `Authorization: Basic`.
    ///
    /// # Errors
    /// [`CdpError::Url`] for a bad URL, [`CdpError::Connect`] when the handshake fails or times out.
    pub async fn open(ws_url: &str, timeout: std::time::Duration) -> Result<Wire, CdpError> {
        open_with(ws_url, timeout, &crate::tls::Remote::default()).await
    }

    /// [`open`] for a remote browser: `wss:` with [`crate::tls::Remote`]'s roots, its headers sent
    /// with the handshake. The URL's credentials never reach an error's text.
    ///
    /// # Errors
    /// As [`open`]; [`CdpError::Tls`] when the TLS configuration cannot be made.
    pub async fn open_with(
        ws_url: &str,
        timeout: std::time::Duration,
        remote: &crate::tls::Remote,
    ) -> Result<Wire, CdpError> {
        let url =
            Url::parse(ws_url).map_err(|e| CdpError::Url { url: ws_url.into(), reason: e.to_string() })?;
        let auth = crate::basic_auth_header(&url);
        let mut bare = url.clone();
        let _ = bare.set_username("");
        let _ = bare.set_password(None);
        let fail = |reason: String| CdpError::Connect { url: bare.to_string(), reason };
        let mut request = bare.as_str().into_client_request().map_err(|e| fail(e.to_string()))?;
        if let Some(auth) = auth {
            request
                .headers_mut()
                .insert("Authorization", auth.parse().map_err(|_| fail("bad userinfo".into()))?);
        }
        for (name, value) in &remote.headers {
            let name = tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| fail(format!("bad header name {name:?}")))?;
            let value = value.parse().map_err(|_| fail(format!("bad value for header {name}")))?;
            request.headers_mut().insert(name, value);
        }
        let connector = match url.scheme() {
            "wss" => Some(tokio_tungstenite::Connector::Rustls(remote.tls_config()?)),
            _ => None,
        };
        let config = WebSocketConfig::default()
            .max_frame_size(Some(MAX_MESSAGE_BYTES))
            .max_message_size(Some(MAX_MESSAGE_BYTES));
        let (ws, _) = tokio::time::timeout(
            timeout,
            tokio_tungstenite::connect_async_tls_with_config(request, Some(config), true, connector),
        )
        .await
        .map_err(|_| fail(format!("no handshake within {} ms", timeout.as_millis())))?
        .map_err(|e| fail(e.to_string()))?;

        let (mut sink, mut stream) = ws.split();
        let (in_tx, inbound) = mpsc::channel(INBOUND_BUFFER);
        let (outbound, mut out_rx) = mpsc::unbounded_channel::<Outbound>();
        let reader_tx = in_tx.clone();
        tokio::spawn(async move {
            let reason = loop {
                let text = match stream.next().await {
                    Some(Ok(Message::Text(t))) => t.as_str().to_string(),
                    Some(Ok(Message::Binary(b))) => String::from_utf8_lossy(&b).into_owned(),
                    Some(Ok(Message::Close(frame))) => {
                        break match frame {
                            Some(f) if !f.reason.is_empty() => format!("closed by the browser: {}", f.reason),
                            _ => "closed by the browser".to_string(),
                        }
                    }
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => break format!("socket error: {e}"),
                    None => break "socket ended".to_string(),
                };
                if reader_tx.send(Inbound::Message(text)).await.is_err() {
                    return;
                }
            };
            let _ = reader_tx.send(Inbound::Closed(reason)).await;
        });
        tokio::spawn(async move {
            while let Some(out) = out_rx.recv().await {
                let msg = match out {
                    Outbound::Message(text) => Message::Text(text.into()),
                    Outbound::Close => break,
                };
                if let Err(e) = sink.send(msg).await {
                    let _ = in_tx.send(Inbound::Closed(format!("socket error: {e}"))).await;
                    return;
                }
            }
            let _ = sink.send(Message::Close(None)).await;
            let _ = sink.close().await;
            let _ = in_tx.send(Inbound::Closed("closed by the client".into())).await;
        });
        Ok(Wire { inbound, outbound })
    }
}

/// The pipe transport of `--remote-debugging-pipe`.
pub mod pipe {
    use super::*;

    /// A wire over the browser's pipe pair: `to_browser` is the write end of the pipe the browser
    /// reads as its fd 3, `from_browser` the read end of the one it writes as its fd 4. Each message
    /// is a JSON text ended by a NUL byte (`AnyDelimiterCodec`), at most [`MAX_MESSAGE_BYTES`]
    /// ([`open_limited`]).
    pub fn open(
        from_browser: impl AsyncRead + Send + Unpin + 'static,
        to_browser: impl AsyncWrite + Send + Unpin + 'static,
    ) -> Wire {
        open_limited(from_browser, to_browser, MAX_MESSAGE_BYTES)
    }

    /// [`open`] with messages from the browser of at most `max_bytes`. A longer one (a page's
    /// 300-million-character string returned by value, or logged to its console) is skipped, not
    /// the end of the connection: an answer (its `"id"` is first, as Chromium writes it) becomes a
    /// CDP error for that call ([`TOO_LONG`] "... over N bytes ..."), and an event is dropped (logged).
    /// Before, the codec's error ended the pipe, and the supervisor restarted the browser under
    /// every session.
    pub fn open_limited(
        from_browser: impl AsyncRead + Send + Unpin + 'static,
        to_browser: impl AsyncWrite + Send + Unpin + 'static,
        max_bytes: usize,
    ) -> Wire {
        let codec = || AnyDelimiterCodec::new_with_max_length(vec![0], vec![0], max_bytes);
        let mut reader = FramedRead::new(from_browser, Skipping(codec()));
        let mut writer = FramedWrite::new(to_browser, codec());
        let (in_tx, inbound) = mpsc::channel(INBOUND_BUFFER);
        let (outbound, mut out_rx) = mpsc::unbounded_channel::<Outbound>();
        let reader_tx = in_tx.clone();
        tokio::spawn(async move {
            let reason = loop {
                match reader.next().await {
                    Some(Ok(Chunk::Whole(bytes))) => {
                        let text = String::from_utf8_lossy(&bytes).into_owned();
                        if reader_tx.send(Inbound::Message(text)).await.is_err() {
                            return;
                        }
                    }
                    Some(Ok(Chunk::TooLong(head))) => {
                        let Some(answer) = too_long(&head, max_bytes) else { continue };
                        if reader_tx.send(Inbound::Message(answer)).await.is_err() {
                            return;
                        }
                    }
                    Some(Err(e)) => break format!("pipe error: {e}"),
                    None => break "the browser closed its pipe".to_string(),
                }
            };
            let _ = reader_tx.send(Inbound::Closed(reason)).await;
        });
        tokio::spawn(async move {
            while let Some(Outbound::Message(text)) = out_rx.recv().await {
                if let Err(e) = writer.send(text).await {
                    let _ = in_tx.send(Inbound::Closed(format!("pipe error: {e}"))).await;
                    return;
                }
            }
            let _ = in_tx.send(Inbound::Closed("closed by the client".into())).await;
        });
        Wire { inbound, outbound }
    }
}

/// What the pipe's reader takes from the browser: a whole message, or the first [`HEAD_BYTES`] of
/// one over the limit, whose rest is skipped.
enum Chunk {
    Whole(tokio_util::bytes::Bytes),
    TooLong(Vec<u8>),
}

/// How much of a message over the limit is kept to tell what it was (its `"id"`, or its `"method"`).
const HEAD_BYTES: usize = 200;

/// `AnyDelimiterCodec`, whose error for a message over its limit (after which `FramedRead` ends the
/// stream) becomes [`Chunk::TooLong`]; the codec then skips that message's bytes by itself.
struct Skipping(AnyDelimiterCodec);

impl tokio_util::codec::Decoder for Skipping {
    type Item = Chunk;
    type Error = tokio_util::codec::AnyDelimiterCodecError;

    fn decode(&mut self, buf: &mut tokio_util::bytes::BytesMut) -> Result<Option<Chunk>, Self::Error> {
        match self.0.decode(buf) {
            Ok(chunk) => Ok(chunk.map(Chunk::Whole)),
            // The message over the limit starts at the buffer's start (each whole one before it was
            // split off by an earlier call).
            Err(tokio_util::codec::AnyDelimiterCodecError::MaxChunkLengthExceeded) => {
                Ok(Some(Chunk::TooLong(buf[..buf.len().min(HEAD_BYTES)].to_vec())))
            }
            Err(e) => Err(e),
        }
    }
}

/// What stands in for a message over `max_bytes` that began with `head`: an error answer to its call
/// (`{"id":N,"error":{"code":TOO_LONG,"message"}}`), or `None` for an event (dropped, logged).
fn too_long(head: &[u8], max_bytes: usize) -> Option<String> {
    let head = String::from_utf8_lossy(head);
    let id = head
        .strip_prefix("{\"id\":")
        .map(|rest| rest.bytes().take_while(u8::is_ascii_digit).map(char::from).collect::<String>())
        .and_then(|digits| digits.parse::<u64>().ok());
    let Some(id) = id else {
        let method = head.split("\"method\":\"").nth(1).and_then(|m| m.split('"').next()).unwrap_or("?");
        tracing::warn!(cdp.method = method, max_bytes, "CDP event over the message limit dropped");
        return None;
    };
    let message = format!(
        "the browser's answer was over {max_bytes} bytes (the runtime's limit for one CDP message) and was dropped"
    );
    tracing::warn!(cdp.id = id, max_bytes, "CDP answer over the message limit dropped");
    Some(serde_json::json!({"id": id, "error": {"code": TOO_LONG, "message": message}}).to_string())
}

/// Waits until `closed` holds a reason and answers it (`gone` when its sender went away first): the
/// `closed()` of a client and of a relay.
pub(crate) async fn closed_reason(closed: &watch::Sender<Option<String>>, gone: &str) -> String {
    let mut rx = closed.subscribe();
    loop {
        if let Some(reason) = rx.borrow_and_update().clone() {
            return reason;
        }
        if rx.changed().await.is_err() {
            return gone.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_pipe_frames_messages_by_nul_bytes_both_ways() {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (our_read, our_write) = tokio::io::split(ours);
        let mut wire = pipe::open(our_read, our_write);
        let (mut their_read, mut their_write) = tokio::io::split(theirs);
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        their_write.write_all(b"{\"id\":1}\0{\"method\":\"A.b\"}\0").await.unwrap();
        assert_eq!(wire.inbound.recv().await, Some(Inbound::Message("{\"id\":1}".into())));
        assert_eq!(wire.inbound.recv().await, Some(Inbound::Message("{\"method\":\"A.b\"}".into())));
        wire.outbound.send(Outbound::Message("{\"id\":2}".into())).unwrap();
        let mut buf = [0u8; 9];
        their_read.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"{\"id\":2}\0");
        drop(their_write);
        drop(their_read);
        assert!(matches!(wire.inbound.recv().await, Some(Inbound::Closed(_))));
    }

    /// A message over the limit is skipped, not the end of the pipe: an answer becomes its call's
    /// error, an event is dropped, and the messages after either arrive. Before, the codec's error
    /// ended the connection (and the supervisor restarted the browser under every session).
    #[tokio::test]
    async fn a_message_over_the_limit_is_skipped_and_the_pipe_goes_on() {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (our_read, our_write) = tokio::io::split(ours);
        let mut wire = pipe::open_limited(our_read, our_write, 1_000);
        let (_their_read, mut their_write) = tokio::io::split(theirs);
        use tokio::io::AsyncWriteExt;
        let big = "x".repeat(5_000);
        let sent = format!(
            "{{\"id\":7,\"result\":{{\"v\":\"{big}\"}}}}\0{{\"id\":8}}\0\
             {{\"method\":\"Runtime.consoleAPICalled\",\"params\":{{\"v\":\"{big}\"}}}}\0{{\"id\":9}}\0"
        );
        tokio::spawn(async move { their_write.write_all(sent.as_bytes()).await.unwrap() });
        let Some(Inbound::Message(first)) = wire.inbound.recv().await else { panic!("no answer") };
        let first: serde_json::Value = serde_json::from_str(&first).unwrap();
        assert_eq!(first["id"], 7);
        assert!(first["error"]["message"].as_str().unwrap().contains("over 1000 bytes"), "{first}");
        assert_eq!(wire.inbound.recv().await, Some(Inbound::Message("{\"id\":8}".into())));
        assert_eq!(wire.inbound.recv().await, Some(Inbound::Message("{\"id\":9}".into())));
    }
}
