//! The Unix-socket server: newline-delimited JSON, several requests in flight per connection.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

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

/// Accepts connections until the task is dropped. A peer whose uid (`SO_PEERCRED`) is neither the
/// supervisor's nor root is refused and logged.
pub async fn serve(listener: UnixListener, runtime: Arc<Runtime>, max_line_bytes: usize) {
    let me = nix::unistd::geteuid().as_raw();
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error.message = %e, "accept failed");
                continue;
            }
        };
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
        tokio::spawn(connection(stream, runtime.clone(), max_line_bytes));
    }
}

/// One connection: lines in, each handled on its own task, responses written as they complete. When
/// the client closes its end, every action it still has in flight is cancelled.
async fn connection(stream: UnixStream, runtime: Arc<Runtime>, max_line_bytes: usize) {
    let (mut reader, mut writer) = stream.into_split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Response>();
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
                let runtime = runtime.clone();
                let tx = tx.clone();
                let cancel = gone.clone();
                tokio::spawn(async move {
                    let _ = tx.send(runtime.handle_line(&line, &cancel).await);
                });
            }
            Ok(None) if eof => break,
            Ok(None) => match reader.read_buf(&mut buf).await {
                Ok(0) | Err(_) => eof = true,
                Ok(_) => {}
            },
            Err(LinesCodecError::MaxLineLengthExceeded) => {
                let _ = tx.send(Response::failure(
                    None,
                    ErrorBody::new(
                        ErrorCode::FrameTooLarge,
                        Phase::Request,
                        format!("request line is longer than {max_line_bytes} bytes; it was discarded"),
                    ),
                ));
            }
            Err(LinesCodecError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                let _ = tx.send(Response::failure(
                    None,
                    ErrorBody::new(ErrorCode::BadRequest, Phase::Request, "request line is not UTF-8"),
                ));
            }
            Err(_) => break,
        }
    }
    gone.cancel();
    drop(tx);
    let _ = write_task.await;
}
