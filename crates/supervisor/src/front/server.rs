//! The Unix-socket server: newline-delimited JSON, several requests in flight per connection.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use sb_protocol::api::{Method, Response};
use sb_protocol::{ErrorBody, ErrorCode, Phase};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;
use tokio_util::codec::{Decoder, LinesCodec, LinesCodecError};
use tokio_util::sync::CancellationToken;

use crate::files;
use crate::pipeline::runtime::Runtime;

/// Binds the socket: its directory is private ([`files::private_dir`]: made 0700, or refused when
/// another uid owns it or may write to it, since that uid could swap the socket), a stale socket file
/// from a dead supervisor is removed, the socket gets mode 0600. The file appears at `path` only once
/// the socket listens and has its mode: it is bound and listens under a temporary name in the same
/// directory, then is renamed (a client that waits for the file and connects at once was refused,
/// `ECONNREFUSED`, when it came between `bind` and `listen`).
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
    // A short name beside it (a socket's path has at most 107 bytes), this process's own.
    let temporary = path.with_file_name(format!(".sb-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&temporary);
    let listener = UnixListener::bind(&temporary)?;
    let ready = std::fs::set_permissions(&temporary, std::fs::Permissions::from_mode(0o600))
        .and_then(|()| std::fs::rename(&temporary, path));
    if let Err(e) = ready {
        let _ = std::fs::remove_file(&temporary);
        return Err(e);
    }
    Ok(listener)
}

/// What one supervisor's socket holds at most.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest request line, bytes (`frame_too_large` past it).
    pub max_line_bytes: usize,
    /// Open connections at once (`too_many_connections` past it).
    pub max_connections: usize,
    /// How long a connection may hold part of a line without sending more of it before it is closed.
    pub partial_line_timeout: Duration,
    /// How long a connection may be idle between lines (nothing in flight) before it is closed.
    pub idle_timeout: Option<Duration>,
    /// At `max_connections`, a new connection closes the longest-idle one idle at least this long.
    pub evict_idle_after: Duration,
}

/// What the accept loop knows of an open connection: when it was last active, what it has in flight,
/// and how to close it.
struct Conn {
    last_active: std::sync::Mutex<Instant>,
    in_flight: AtomicUsize,
    close: CancellationToken,
}

impl Conn {
    fn touch(&self) {
        *self.last_active.lock().unwrap() = Instant::now();
    }

    /// How long it has been idle, or `None` while it has a request in flight.
    fn idle_for(&self) -> Option<Duration> {
        (self.in_flight.load(Ordering::SeqCst) == 0).then(|| self.last_active.lock().unwrap().elapsed())
    }
}

/// The open connections, by a number of the accept loop's.
type Conns = Arc<std::sync::Mutex<std::collections::HashMap<u64, Arc<Conn>>>>;

/// How long a connection in the reserved slots may take to send its one line.
const RESERVED_LINE: Duration = Duration::from_secs(1);

/// Connections past the limit read at once for a `runtime.health` line; one more closes the one that
/// has waited longest without a whole line (a health check sends its line as it connects, so only a
/// slow or hoarding client is ever closed so).
const RESERVED_SLOTS: usize = 8;

/// A connection in a reserved slot: a number of the accept loop's, whether it has sent its whole line
/// (such a one, being answered, is never closed for a newer one), and what closes it.
struct Waiting {
    id: u64,
    talking: Arc<std::sync::atomic::AtomicBool>,
    cancel: CancellationToken,
}

/// The connections in the reserved slots, oldest first.
type Reserved = Arc<std::sync::Mutex<std::collections::VecDeque<Waiting>>>;

/// Whether a whole line from the peer already waits on `stream` (`recv` of up to 1 KiB with
/// `MSG_PEEK | MSG_DONTWAIT`: nothing is taken).
fn has_line(stream: &UnixStream) -> bool {
    use std::os::fd::AsRawFd;
    let mut buf = [0u8; 1024];
    // SAFETY: a buffer of ours of that length, and the stream's open descriptor.
    let n = unsafe {
        libc::recv(
            stream.as_raw_fd(),
            buf.as_mut_ptr().cast(),
            buf.len(),
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        )
    };
    n > 0 && buf[..n as usize].contains(&b'\n')
}

/// Requests of one connection in flight at once: a client that sends more waits (its next lines are
/// not read) until one is answered, and at most this many answers wait for a client that does not read.
pub const MAX_IN_FLIGHT: usize = 16;

/// Pause after a failed `accept` (out of file descriptors, say), so that the loop does not spin.
pub const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Accepts connections until the task is dropped. A peer whose uid (`SO_PEERCRED`) is neither the
/// supervisor's nor root is refused and logged. A failed accept (`EMFILE`) is logged once for a run
/// of failures and retried after [`ACCEPT_BACKOFF`].
///
/// At `max_connections` the socket stays reachable: a new connection first closes the connection idle
/// longest, when it has been idle at least `evict_idle_after` (`connection_closed`, reason
/// `idle_at_limit`); else it gets one of 8 reserved slots, where a `runtime.health`
/// (the container's health check, `doctor --probe`) is answered and anything else gets one
/// `too_many_connections` line; with the reserved slots taken, the one that has waited longest for
/// its line is given that line and closed: a client that keeps re-taking the slots never locks the
/// health check out. An idle connection is also closed after `idle_timeout` (reason
/// `idle_timeout`). Each close is logged once.
pub async fn serve(listener: UnixListener, runtime: Arc<Runtime>, limits: Limits) {
    let me = nix::unistd::geteuid().as_raw();
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let reserved: Reserved = Arc::default();
    let conns: Conns = Arc::default();
    let mut next_id = 0u64;
    let mut failed_accepts = 0u64;
    // A descriptor kept for the moment the process has none left: closed, it lets the waiting
    // connection be accepted and told why, instead of waiting for an answer that never comes.
    let mut spare = std::fs::File::open("/dev/null").ok();
    let _trims = tokio_util::task::AbortOnDropHandle::new(tokio::spawn(late_trims()));
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(s) => s,
            Err(e) => {
                if failed_accepts == 0 {
                    tracing::warn!(error.message = %e, "accept_failed");
                }
                failed_accepts += 1;
                if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) && spare.take().is_some() {
                    turn_away(&listener, me).await;
                    spare = std::fs::File::open("/dev/null").ok();
                } else {
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
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
        let room = crate::lifecycle::fds::room_for_connection();
        let why = match room {
            Ok(()) => over_limit(limits.max_connections),
            Err(fds) => out_of_files(fds),
        };
        let slot = match slots.clone().try_acquire_owned() {
            // Out of descriptors: the connection waits in a reserved slot, as one over the limit.
            _ if room.is_err() => None,
            Ok(slot) => Some(slot),
            // The evicted connection gives its slot back as it closes.
            Err(_) if evict_idlest(&conns, limits.evict_idle_after) => {
                let freed = tokio::time::timeout(Duration::from_secs(1), slots.clone().acquire_owned()).await;
                freed.ok().and_then(Result::ok)
            }
            Err(_) => None,
        };
        next_id += 1;
        let id = next_id;
        let Some(slot) = slot else {
            let cancel = CancellationToken::new();
            let talking = Arc::new(std::sync::atomic::AtomicBool::new(has_line(&stream)));
            let admitted = {
                let mut waiting = reserved.lock().unwrap();
                let silent = waiting.iter().position(|w| !w.talking.load(Ordering::Relaxed));
                match silent {
                    Some(at) if waiting.len() >= RESERVED_SLOTS => {
                        if let Some(oldest) = waiting.remove(at) {
                            oldest.cancel.cancel();
                        }
                        true
                    }
                    _ => waiting.len() < RESERVED_SLOTS,
                }
            };
            if !admitted {
                // Every slot holds a connection being answered.
                tokio::spawn(refuse(stream, why));
                continue;
            }
            reserved.lock().unwrap().push_back(Waiting {
                id,
                talking: talking.clone(),
                cancel: cancel.clone(),
            });
            let (runtime, reserved) = (runtime.clone(), reserved.clone());
            tokio::spawn(async move {
                reserved_slot(stream, runtime, why, talking, cancel).await;
                reserved.lock().unwrap().retain(|w| w.id != id);
            });
            // Let it read what it was sent before the next arrival is weighed against it.
            tokio::task::yield_now().await;
            continue;
        };
        let conn = Arc::new(Conn {
            last_active: std::sync::Mutex::new(Instant::now()),
            in_flight: AtomicUsize::new(0),
            close: CancellationToken::new(),
        });
        conns.lock().unwrap().insert(id, conn.clone());
        let (runtime, conns) = (runtime.clone(), conns.clone());
        tokio::spawn(async move {
            connection(stream, runtime, limits, conn).await;
            conns.lock().unwrap().remove(&id);
            drop(slot);
        });
    }
}

/// Closes the connection idle longest, when it has been idle at least `after`; whether one was.
fn evict_idlest(conns: &Conns, after: Duration) -> bool {
    let conns = conns.lock().unwrap();
    let idlest = conns
        .values()
        .filter_map(|c| c.idle_for().map(|idle| (idle, c)))
        .filter(|(idle, _)| *idle >= after)
        .max_by_key(|(idle, _)| *idle);
    match idlest {
        Some((idle, conn)) => {
            tracing::warn!(reason = "idle_at_limit", idle_ms = idle.as_millis() as u64, "connection_closed");
            conn.close.cancel();
            true
        }
        None => false,
    }
}

/// A reserved slot, for a connection past the limit: its first line (within [`RESERVED_LINE`], unless
/// `cancel` gives its slot to a newer connection first) is answered when it is a `runtime.health`, so
/// that a health check sees a crowded runtime as alive; anything else gets the `too_many_connections`
/// line. Then it is closed.
async fn reserved_slot(
    mut stream: UnixStream,
    runtime: Arc<Runtime>,
    why: ErrorBody,
    talking: Arc<std::sync::atomic::AtomicBool>,
    cancel: CancellationToken,
) {
    let mut buf = BytesMut::with_capacity(1024);
    let mut codec = LinesCodec::new_with_max_length(64 * 1024);
    let first = async {
        loop {
            match codec.decode(&mut buf) {
                Ok(Some(line)) => {
                    talking.store(true, Ordering::Relaxed);
                    return Some(line);
                }
                Ok(None) => {}
                Err(_) => return None,
            }
            match stream.read_buf(&mut buf).await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
        }
    };
    let line = tokio::select! {
        line = tokio::time::timeout(RESERVED_LINE, first) => line.ok().flatten(),
        () = cancel.cancelled() => None,
    };
    let method = line.as_deref().and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok());
    let is_health = method.is_some_and(|v| v["method"] == Method::RuntimeHealth.name());
    match line {
        Some(line) if is_health => {
            let response = runtime.handle_line(&line, &CancellationToken::new()).await;
            let mut out = serde_json::to_vec(&response).unwrap_or_default();
            out.push(b'\n');
            let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(&out)).await;
        }
        _ => refuse(stream, why).await,
    }
}

/// `read` (the next bytes of a connection between lines), unless the connection is closed first: by
/// the accept loop (evicted at the limit), or for being idle past `idle_timeout` (nothing in flight,
/// nothing sent; logged once). `None` when it is closed.
async fn idle_or_read<F: std::future::Future<Output = std::io::Result<usize>>>(
    conn: &Conn,
    idle_timeout: Option<Duration>,
    read: F,
) -> Option<std::io::Result<usize>> {
    tokio::pin!(read);
    loop {
        // While a request is in flight the connection is not idle: look again a whole timeout later
        // (its answer makes it active again).
        let idle_deadline = idle_timeout.map(|t| match conn.idle_for() {
            Some(_) => *conn.last_active.lock().unwrap() + t,
            None => Instant::now() + t,
        });
        let idle = async {
            match idle_deadline {
                Some(at) => tokio::time::sleep_until(at.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            r = &mut read => return Some(r),
            _ = conn.close.cancelled() => return None,
            _ = idle => {
                let limit = idle_timeout.unwrap_or_default();
                if conn.idle_for().is_some_and(|idle| idle >= limit) {
                    tracing::info!(reason = "idle_timeout", idle_ms = limit.as_millis() as u64, "connection_closed");
                    return None;
                }
            }
        }
    }
}

/// One `too_many_connections` line (`why`), then the connection is closed (within a second: a client
/// that does not read is not waited for).
async fn refuse(mut stream: UnixStream, why: ErrorBody) {
    tracing::warn!(error.message = %why.message, "connection_refused_over_limit");
    let mut line = serde_json::to_vec(&Response::failure(None, why)).unwrap_or_default();
    line.push(b'\n');
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(&line)).await;
}

/// The refusal at `limits.max_connections`.
fn over_limit(max: usize) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::TooManyConnections,
        Phase::Request,
        format!("the runtime has {max} connections open (limits.max_connections); close one and retry"),
    )
}

/// The refusal for want of file descriptors ([`crate::lifecycle::fds::room_for_connection`]).
fn out_of_files(fds: crate::lifecycle::fds::FdUse) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::TooManyConnections,
        Phase::Request,
        format!(
            "the runtime is out of file descriptors ({} open of its {}, RLIMIT_NOFILE); close a \
             connection or a session and retry, or {}",
            fds.open,
            fds.limit,
            crate::lifecycle::fds::RAISE_LIMIT
        ),
    )
}

/// With no descriptor left (`accept` failed with `EMFILE`; the spare one was just closed): accepts
/// the waiting connection, writes it the refusal without waiting (a new socket's buffer takes one
/// line) and closes it, so that its client is told at once rather than left waiting.
async fn turn_away(listener: &UnixListener, me: u32) {
    let Ok(Ok((stream, _))) = tokio::time::timeout(Duration::from_millis(10), listener.accept()).await else {
        return;
    };
    if !stream.peer_cred().is_ok_and(|c| c.uid() == me || c.uid() == 0) {
        return;
    }
    let fds =
        crate::lifecycle::fds::FdUse::own().unwrap_or(crate::lifecycle::fds::FdUse { open: 0, limit: 0 });
    tracing::warn!(open = fds.open, limit = fds.limit, "connection_refused_out_of_files");
    let mut line = serde_json::to_vec(&Response::failure(None, out_of_files(fds))).unwrap_or_default();
    line.push(b'\n');
    let _ = stream.try_write(&line);
}

/// One connection: lines in, each handled on its own task (at most [`MAX_IN_FLIGHT`] at once),
/// responses written as they complete. When the client closes its end, every action it still has in
/// flight is cancelled, and once an answer cannot be written to it (it closed without reading) the
/// lines still buffered are dropped unrun; a partial line held past `partial_line_timeout` closes the
/// connection.
async fn connection(stream: UnixStream, runtime: Arc<Runtime>, limits: Limits, conn: Arc<Conn>) {
    let max_line_bytes = limits.max_line_bytes;
    let (mut reader, mut writer) = stream.into_split();
    let (tx, mut rx) = mpsc::channel::<Response>(MAX_IN_FLIGHT);
    let in_flight = Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT));
    let writer_conn = conn.clone();
    // Fires when the client goes away: its in-flight actions are stopped, and the lines it sent
    // before it closed are not run (nobody would read their answers).
    let gone = CancellationToken::new();
    let client_gone = gone.clone();
    let write_task = tokio::spawn(async move {
        while let Some(response) = rx.recv().await {
            writer_conn.touch();
            let mut line = serde_json::to_vec(&response).unwrap_or_else(|_| b"{}".to_vec());
            line.push(b'\n');
            if writer.write_all(&line).await.is_err() {
                client_gone.cancel();
                break;
            }
        }
    });
    // LinesCodec used directly (not through FramedRead, which ends the stream after its first error),
    // so that an over-long or non-UTF-8 line is answered and the connection goes on.
    let mut codec = LinesCodec::new_with_max_length(max_line_bytes);
    let mut buf = BytesMut::with_capacity(8 * 1024);
    let mut eof = false;
    loop {
        if gone.is_cancelled() {
            break;
        }
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
                conn.in_flight.fetch_add(1, Ordering::SeqCst);
                let busy = conn.clone();
                tokio::spawn(async move {
                    let response = runtime.handle_line(&line, &cancel).await;
                    let _ = tx.send(response).await;
                    busy.touch();
                    busy.in_flight.fetch_sub(1, Ordering::SeqCst);
                    drop(permit);
                });
            }
            Ok(None) if eof => break,
            Ok(None) => {
                // Between lines a connection may idle; in the middle of one it may not.
                let partial = !buf.is_empty();
                let read = reader.read_buf(&mut buf);
                let read = if !partial {
                    match idle_or_read(&conn, limits.idle_timeout, read).await {
                        Some(r) => r,
                        None => break,
                    }
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
                    Ok(_) => conn.touch(),
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
    release_memory();
}

/// Passes of [`release_memory`] still wanted after connections closed (set at each close).
static TRIMS_WANTED: AtomicUsize = AtomicUsize::new(0);

/// Passes of [`release_memory`] after a connection closes: at once, then once a second this many
/// times more, for the memory its requests still held as it closed (handlers still running for a
/// client that closed without reading its answers free theirs when they finish).
const LATE_TRIMS: usize = 3;

/// Gives the memory a connection's requests used back to the system, at once and [`LATE_TRIMS`]
/// times more a second apart ([`late_trims`]). A burst of large or hostile lines (2 MB lines, deep
/// nesting, many requests in flight on several threads) grows the allocator's arenas, and glibc's
/// `malloc` keeps freed memory of an arena for reuse: without this the supervisor's RSS stayed at its
/// high-water mark (8 MB idle, 108 MB after a fuzz run, flat after; with the first pass only, 14 MB ->
/// 34 MB -> 30 MB in the release build when the clients closed without reading their answers).
/// `malloc_trim(0)` returns every arena's free pages; it costs well under a millisecond on an idle
/// heap.
fn release_memory() {
    TRIMS_WANTED.store(LATE_TRIMS, Ordering::Relaxed);
    trim();
}

/// The later passes of [`release_memory`]: once a second while any is wanted (nothing otherwise).
async fn late_trims() {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tick.tick().await;
        let wanted = TRIMS_WANTED.load(Ordering::Relaxed);
        if wanted > 0 {
            TRIMS_WANTED.store(wanted - 1, Ordering::Relaxed);
            trim();
        }
    }
}

/// Puts the supervisor's threads on one glibc `malloc` arena (`mallopt(M_ARENA_MAX, 1)`; glibc's
/// default is up to 8 per core). Called first thing in `serve`, before any thread starts. Memory freed
/// in one of several arenas stays in that arena's heap between live blocks, where `malloc_trim` cannot
/// return it. After 10,000 hostile frames whose clients closed without reading (release build, three
/// runs each), the RSS 1 s after the connections closed was 17.2-17.8 MB from 11.2-11.6 MB idle with
/// the default, 14.7-16.0 MB with two arenas and 12.0-12.1 MB with one; under two busy processes,
/// 16.4-19.5 MB against 11.8-11.9 MB. The supervisor's threads spend their time in I/O, and glibc's
/// per-thread cache serves their small allocations without the arena's lock.
pub fn one_arena() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets the allocator's own tunable; it takes no pointer of ours.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// `malloc_trim(0)`, on glibc.
fn trim() {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim only walks the allocator's own free lists; it takes no pointer of ours and
    // is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 57 §2: a client that waits for the socket file and connects the moment it appears is
    /// never refused: the file is there only once the socket listens.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_socket_file_appears_only_once_it_listens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("browser.sock");
        for round in 0..2000 {
            let watched = path.clone();
            let client = std::thread::spawn(move || loop {
                if watched.exists() {
                    return std::os::unix::net::UnixStream::connect(&watched).map(drop);
                }
                std::thread::yield_now();
            });
            let listener = bind(&path).unwrap();
            let connected = client.join().unwrap();
            assert!(connected.is_ok(), "round {round}: {connected:?}");
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
            drop(listener);
            std::fs::remove_file(&path).unwrap();
        }
        let leftovers: Vec<_> =
            std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}
