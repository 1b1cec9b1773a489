//! The supervisor the MCP server talks to: one already running on a socket, or one of its own,
//! started for the MCP server's lifetime and stopped with it.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// How long an own supervisor may take to boot Chromium and listen.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long an own supervisor may take to stop on SIGTERM before it is killed.
pub const STOP_TIMEOUT: Duration = Duration::from_secs(15);

/// A supervisor this process started (`sandbox-browser serve`); stopped by [`OwnSupervisor::stop`],
/// and by the kernel (SIGTERM, `PR_SET_PDEATHSIG`) if this process dies first.
pub struct OwnSupervisor {
    child: Child,
    /// Holds the socket, profile and session store; removed on stop.
    dir: Option<tempfile::TempDir>,
    ready: Option<mpsc::Receiver<Result<(), String>>>,
}

/// Whether a supervisor answers connections at `socket`.
pub fn answers(socket: &Path) -> bool {
    std::os::unix::net::UnixStream::connect(socket).is_ok()
}

impl OwnSupervisor {
    /// Starts `exe serve --socket <socket> <serve_args>`; `socket` absent means one in a new private
    /// directory (0700), which also holds the runtime dir. Its log lines go to this process's stderr
    /// (stdout is the MCP transport and stays clean). Call from a thread that lives as long as the
    /// process: the death signal is tied to the spawning thread.
    ///
    /// # Errors
    /// The spawn's error.
    pub fn spawn(
        exe: &Path,
        socket: Option<PathBuf>,
        serve_args: &[OsString],
    ) -> std::io::Result<(Self, PathBuf)> {
        let (dir, socket) = match socket {
            Some(socket) => (None, socket),
            None => {
                let dir = tempfile::Builder::new().prefix("sandbox-browser-mcp-").tempdir()?;
                let socket = dir.path().join("browser.sock");
                (Some(dir), socket)
            }
        };
        let mut command = Command::new(exe);
        command
            .arg("serve")
            .arg("--socket")
            .arg(&socket)
            .args(serve_args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        // SAFETY: prctl is async-signal-safe; the closure allocates nothing.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn()?;
        let stderr = child.stderr.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            let mut err = std::io::stderr();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = writeln!(err, "{line}");
                if line.contains("\"listening\"") || line.contains(" listening") {
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(Ok(()));
                    }
                }
            }
            if let Some(tx) = tx.take() {
                let _ = tx.send(Err("the runtime exited before it was ready (its log is above)".into()));
            }
        });
        Ok((OwnSupervisor { child, dir, ready: Some(rx) }, socket))
    }

    /// Waits (blocking, at most [`START_TIMEOUT`]) until the supervisor listens.
    ///
    /// # Errors
    /// A sentence saying why it is not ready (it exited, or did not listen in time).
    pub fn wait_ready(&mut self) -> Result<(), String> {
        let Some(rx) = self.ready.take() else { return Ok(()) };
        match rx.recv_timeout(START_TIMEOUT) {
            Ok(result) => result,
            Err(_) => Err(format!("the runtime did not start within {} s", START_TIMEOUT.as_secs())),
        }
    }

    /// SIGTERM (the supervisor stops Chromium and its workers), then SIGKILL after [`STOP_TIMEOUT`];
    /// waits for it and removes its private directory.
    pub fn stop(mut self) {
        let pid = Pid::from_raw(self.child.id() as i32);
        let _ = kill(pid, Signal::SIGTERM);
        let deadline = std::time::Instant::now() + STOP_TIMEOUT;
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if std::time::Instant::now() >= deadline => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        drop(self.dir.take());
    }
}
