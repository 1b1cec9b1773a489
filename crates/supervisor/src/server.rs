//! The Unix-socket server: newline-delimited JSON, several requests in flight per connection.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use sb_protocol::api::Response;
use sb_protocol::{ErrorBody, ErrorCode, Phase};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;
use tokio_util::codec::{Decoder, LinesCodec, LinesCodecError};
use tokio_util::sync::CancellationToken;

use crate::files;
use crate::runtime::Runtime;

/// Binds the socket: its directory is private ([`files::private_dir`]: made 0700, or refused when
/// another uid owns it or may write to it, since that uid could swap the socket), a stale socket file
/// from a dead supervisor is removed, the socket gets mode 0600.
///
/// # Errors
/// When another supervisor answers on `path`, the directory is refused, or it or the socket cannot be
/// made.
pub fn bind(path: &Path) -> std::io::Result<UnixListener> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        files::private_dir(dir)?;
    }
    if path.exists() {
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AddrInUse,
                format!("another supervisor is serving on {}", path.display()),
            ));
        }
        std::fs::remove_file(path)?;
    }
    let listener = UnixListener::bind(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

/// What one supervisor's socket holds at most.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest request line, bytes (`frame_too_large` past it).
    pub max_line_bytes: usize,
    /// Open connections at once (`too_many_connections` past it).
    pub max_connections: usize,
    /// How long a connection may hold part of a line without sending more of it before it is closed
    /// (an idle connection between lines is not).
    pub partial_line_timeout: Duration,
}

/// Requests of one connection in flight at once: a client that sends more waits (its next lines are
/// not read) until one is answered, and at most this many answers wait for a client that does not read.
pub const MAX_IN_FLIGHT: usize = 16;

/// Pause after a failed `accept` (out of file descriptors, say), so that the loop does not spin.
pub const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Accepts connections until the task is dropped. A peer whose uid (`SO_PEERCRED`) is neither the
/// supervisor's nor root is refused and logged. Past `max_connections` a connection gets one
/// `too_many_connections` line and is closed. A failed accept (`EMFILE`) is logged once for a run of
/// failures and retried after [`ACCEPT_BACKOFF`].
pub async fn serve(listener: UnixListener, runtime: Arc<Runtime>, limits: Limits) {
    let me = nix::unistd::geteuid().as_raw();
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let mut failed_accepts = 0u64;
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(s) => s,
            Err(e) => {
                if failed_accepts == 0 {
                    tracing::warn!(error.message = %e, "accept_failed");
                }
                failed_accepts += 1;
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        if failed_accepts > 0 {
            tracing::info!(failed = failed_accepts, "accept_recovered");
            failed_accepts = 0;
        }
        match stream.peer_cred() {
            Ok(cred) if cred.uid() == me || cred.uid() == 0 => {}
            Ok(cred) => {
                tracing::warn!(peer.uid = cred.uid(), peer.pid = cred.pid(), "peer_refused");
                continue;
            }
            Err(e) => {
                tracing::warn!(error.message = %e, "peer_refused");
                continue;
            }
        }
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tokio::spawn(refuse(stream, limits.max_connections));
            continue;
        };
        let runtime = runtime.clone();
        tokio::spawn(async move {
            connection(stream, runtime, limits).await;
            drop(slot);
        });
    }
}

/// One `too_many_connections` line, then the connection is closed (within a second: a client that
/// does not read is not waited for).
async fn refuse(mut stream: UnixStream, max: usize) {
    tracing::warn!(limit = max, "connection_refused_over_limit");
    let error = ErrorBody::new(
        ErrorCode::TooManyConnections,
        Phase::Request,
        format!("the runtime has {max} connections open (limits.max_connections); close one and retry"),
    );
    let mut line = serde_json::to_vec(&Response::failure(None, error)).unwrap_or_default();
    line.push(b'\n');
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(&line)).await;
}

/// One connection: lines in, each handled on its own task (at most [`MAX_IN_FLIGHT`] at once),
/// responses written as they complete. When the client closes its end, every action it still has in
/// flight is cancelled; a partial line held past `partial_line_timeout` closes the connection.
async fn connection(stream: UnixStream, runtime: Arc<Runtime>, limits: Limits) {
    let max_line_bytes = limits.max_line_bytes;
    let (mut reader, mut writer) = stream.into_split();
    let (tx, mut rx) = mpsc::channel::<Response>(MAX_IN_FLIGHT);
    let in_flight = Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT));
    let write_task = tokio::spawn(async move {
        while let Some(response) = rx.recv().await {
            let mut line = serde_json::to_vec(&response).unwrap_or_else(|_| b"{}".to_vec());
            line.push(b'\n');
            if writer.write_all(&line).await.is_err() {
                break;
            }
        }
    });
    // LinesCodec used directly (not through FramedRead, which ends the stream after its first error),
    // so that an over-long or non-UTF-8 line is answered and the connection goes on.
    let mut codec = LinesCodec::new_with_max_length(max_line_bytes);
    let mut buf = BytesMut::with_capacity(8 * 1024);
    let mut eof = false;
    // Fires when the client goes away: its in-flight actions are stopped.
    let gone = CancellationToken::new();
    loop {
        let decoded = if eof { codec.decode_eof(&mut buf) } else { codec.decode(&mut buf) };
        match decoded {
            Ok(Some(line)) => {
                if line.trim().is_empty() {
                    continue;
                }
                // Waits while MAX_IN_FLIGHT requests of this connection are unanswered (or their
                // answers unread).
                let Ok(permit) = in_flight.clone().acquire_owned().await else { break };
                let runtime = runtime.clone();
                let tx = tx.clone();
                let cancel = gone.clone();
                tokio::spawn(async move {
                    let response = runtime.handle_line(&line, &cancel).await;
                    let _ = tx.send(response).await;
                    drop(permit);
                });
            }
            Ok(None) if eof => break,
            Ok(None) => {
                // Between lines a connection may idle; in the middle of one it may not.
                let partial = !buf.is_empty();
                let read = reader.read_buf(&mut buf);
                let read = if !partial {
                    read.await
                } else {
                    match tokio::time::timeout(limits.partial_line_timeout, read).await {
                        Ok(r) => r,
                        Err(_) => {
                            tracing::warn!(
                                timeout_ms = limits.partial_line_timeout.as_millis() as u64,
                                "partial_line_timeout"
                            );
                            break;
                        }
                    }
                };
                match read {
                    Ok(0) | Err(_) => eof = true,
                    Ok(_) => {}
                }
            }
            Err(LinesCodecError::MaxLineLengthExceeded) => {
                let _ = tx
                    .send(Response::failure(
                        None,
                        ErrorBody::new(
                            ErrorCode::FrameTooLarge,
                            Phase::Request,
                            format!("request line is longer than {max_line_bytes} bytes; it was discarded"),
                        ),
                    ))
                    .await;
            }
            Err(LinesCodecError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                let _ = tx
                    .send(Response::failure(
                        None,
                        ErrorBody::new(ErrorCode::BadRequest, Phase::Request, "request line is not UTF-8"),
                    ))
                    .await;
            }
            Err(_) => break,
        }
    }
    gone.cancel();
    drop(tx);
    let _ = write_task.await;
}
