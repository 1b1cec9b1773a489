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
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::codec::{AnyDelimiterCodec, FramedRead, FramedWrite};
use url::Url;

use crate::CdpError;

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
    /// is a JSON text ended by a NUL byte (`AnyDelimiterCodec`), at most [`MAX_MESSAGE_BYTES`].
    pub fn open(
        from_browser: impl AsyncRead + Send + Unpin + 'static,
        to_browser: impl AsyncWrite + Send + Unpin + 'static,
    ) -> Wire {
        let codec = || AnyDelimiterCodec::new_with_max_length(vec![0], vec![0], MAX_MESSAGE_BYTES);
        let mut reader = FramedRead::new(from_browser, codec());
        let mut writer = FramedWrite::new(to_browser, codec());
        let (in_tx, inbound) = mpsc::channel(INBOUND_BUFFER);
        let (outbound, mut out_rx) = mpsc::unbounded_channel::<Outbound>();
        let reader_tx = in_tx.clone();
        tokio::spawn(async move {
            let reason = loop {
                match reader.next().await {
                    Some(Ok(bytes)) => {
                        let text = String::from_utf8_lossy(&bytes).into_owned();
                        if reader_tx.send(Inbound::Message(text)).await.is_err() {
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
}
