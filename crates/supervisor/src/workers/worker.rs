//! The supervisor's handle on one worker process.
//!
//! The worker is `sandbox-browser worker --target-id ID`, started through the [`Spawner`] in its own
//! process group. Its end of a socketpair is inherited as the fd named by `SANDBOX_BROWSER_WORKER_FD`.
//! On it travel the runs and, at any time, the worker's CDP traffic: each of its connections is a
//! route of the browser's relay ([`sb_cdp::relay`]), opened when the worker first sends on it and
//! ended (its sessions detached) when the worker closes it or goes away. Every [`WorkerHandle::run`]
//! has a hard deadline: the request's deadline plus [`GRACE`] (the deadline less [`HEADROOM`], when the
//! worker's own budget ends, for a worker whose process is stopped then). Past it the worker's process group is killed and the handle is spent;
//! the session starts a fresh worker on the same target for its next action.

use std::os::fd::AsRawFd;
use std::process::Stdio;
use std::time::Duration;

use futures_util::StreamExt;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use sb_cdp::wire::{Inbound, Outbound};
use sb_cdp::Relay;
use sb_protocol::api::{DialogInfo, DialogLog};
use sb_protocol::ipc::{self, Action, Counter, Display, FromWorker, Output, ToWorker};
use sb_protocol::{Budget, ErrorBody, ErrorCode, Phase};
use tokio::net::UnixStream;
use tokio::process::{Child, Command};
use tokio::sync::mpsc;
use tokio_util::codec::Framed;
use tokio_util::sync::CancellationToken;

use crate::lifecycle::link::Link;
use crate::lifecycle::reaper;
use crate::lifecycle::spawner::{Detach, Spawner};

/// Env var naming the worker's IPC fd.
pub const WORKER_FD_ENV: &str = "SANDBOX_BROWSER_WORKER_FD";
pub use sb_protocol::margins::{GRACE, HEADROOM};

/// What starting a worker takes: the spawner, the executable (`<exe> worker ...`), the log format.
#[derive(Clone)]
pub struct WorkerLauncher {
    /// How the worker process is forked (the seccomp filter, the fds it keeps).
    pub spawner: Spawner,
    /// Normally the supervisor's own image, `/proc/self/exe` (the build that is running, whatever
    /// its file's path holds now).
    pub exe: std::path::PathBuf,
    /// `json` or `text`.
    pub log_format: String,
    /// The pages' display (`--viewport`, `--scale`); `None` leaves the window's own.
    pub viewport: Option<Display>,
    /// What the pages emulate, the session's (`page.emulate`): the worker's first frame
    /// ([`ToWorker::Setup`]).
    pub emulation: sb_protocol::api::Emulation,
}

impl WorkerLauncher {
    /// This launcher for a session: with its `display` instead of the configured one, when it has its
    /// own, and what it emulates.
    pub fn for_session(
        &self,
        display: Option<Display>,
        emulation: sb_protocol::api::Emulation,
    ) -> WorkerLauncher {
        WorkerLauncher { viewport: display.or(self.viewport), emulation, ..self.clone() }
    }
}

/// A live worker attached to one target.
pub struct WorkerHandle {
    child: Child,
    pid: u32,
    /// Frames to the worker (the stream's writer task).
    to_worker: mpsc::UnboundedSender<ToWorker>,
    /// Frames from the worker other than its CDP traffic; `Err` for one that could not be decoded.
    from_worker: mpsc::UnboundedReceiver<Result<FromWorker, String>>,
    next_seq: u64,
    /// The target the worker is attached to (changes on a page reset).
    target_id: String,
    /// Set once the supervisor killed it: spent even before the kernel has reaped it.
    killed: bool,
    /// Dialogs the worker answered during the last run.
    dialogs: DialogLog,
    /// The browser it drives ([`Link::browser`]; a browser restart makes it obsolete).
    browser: u64,
    /// Counted events reported during the last run.
    tallies: Vec<Counter>,
    /// Console errors and uncaught exceptions the tab raised during the last run, and the newest texts.
    console_errors: (u64, Vec<String>),
    /// The main frame's URL, when it changed during the last run.
    navigated: Option<String>,
    /// The last run's input started a download.
    download_began: bool,
    /// Set when the supervisor killed it for overrunning a deadline.
    overran: bool,
    /// Why the worker's page was reset (`tab_stuck`, `renderer_crashed`, `crash_loop`), when it was.
    reset_reason: Option<String>,
    /// How long the last run waited for the tab to be freed after the run before it (ms).
    recovery_waited_ms: Option<u64>,
    /// CDP sessions the worker holds on tabs, as it last said.
    tab_sessions: u32,
}

/// How `page.handle_dialog` asked the next dialog of a session to be answered, `(accept,
/// prompt_text)`, until one dialog is: the session's (`SessionEntry::dialog_policy`), shared with its
/// worker's stream reader, which gives it to a dialog of the worker's that claims it
/// (`FromWorker::ClaimDialog`), and with the tabs the supervisor holds, which take it themselves.
pub type DialogPolicy = std::sync::Arc<std::sync::Mutex<Option<(bool, Option<String>)>>>;

impl WorkerHandle {
    /// Starts a worker for `target_id` and waits for its `Ready` within `budget`; its dialogs claim
    /// `page.handle_dialog`'s answer from `dialog_policy` (the session's).
    ///
    /// # Errors
    /// `worker_crashed` (phase `worker`) when it cannot start, exits, or is not ready in time.
    pub async fn spawn(
        launcher: &WorkerLauncher,
        link: &Link,
        target_id: &str,
        dialog_policy: DialogPolicy,
        budget: Budget,
    ) -> Result<WorkerHandle, ErrorBody> {
        let (spawner, exe, log_format) =
            (&launcher.spawner, launcher.exe.as_path(), launcher.log_format.as_str());
        let fail = |m: String| ErrorBody::new(ErrorCode::WorkerCrashed, Phase::Worker, m);
        let (ours, theirs) = std::os::unix::net::UnixStream::pair()
            .map_err(|e| fail(format!("cannot create worker socket: {e}")))?;
        let fd = theirs.as_raw_fd();
        let mut cmd = Command::new(exe);
        // Named as the supervisor's binary in `ps` (`/proc/self/exe` would show as `exe`).
        if let Ok(path) = std::env::current_exe() {
            cmd.arg0(path.to_string_lossy().trim_end_matches(" (deleted)"));
        }
        cmd.arg("worker")
            .arg("--target-id")
            .arg(target_id)
            .arg("--log-format")
            .arg(log_format)
            .args(launcher.viewport.map(|d| format!("--viewport={}x{}", d.width, d.height)))
            .args(launcher.viewport.map(|d| format!("--scale={}", d.scale)))
            .env(WORKER_FD_ENV, fd.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        let child = spawner
            .spawn(cmd, Detach::Group, move || {
                // Keep the worker's end open across exec.
                // SAFETY: fcntl is async-signal-safe.
                if unsafe { libc::fcntl(fd, libc::F_SETFD, 0) } != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            })
            .await
            .map_err(|e| fail(format!("cannot start worker {}: {e}", exe.display())))?;
        drop(theirs);
        let pid = child.id().unwrap_or(0);
        ours.set_nonblocking(true).map_err(|e| fail(e.to_string()))?;
        let stream = UnixStream::from_std(ours).map_err(|e| fail(e.to_string()))?;
        let (to_worker, from_worker) = pump(stream, link.relay.clone(), pid, dialog_policy);
        // Its first frame: the session's emulation, before it attaches.
        let _ = to_worker.send(ToWorker::Setup { emulation: Box::new(launcher.emulation.clone()) });
        let mut handle = WorkerHandle {
            child,
            pid,
            to_worker,
            from_worker,
            next_seq: 1,
            target_id: target_id.to_string(),
            killed: false,
            dialogs: DialogLog::default(),
            browser: link.browser,
            tallies: Vec::new(),
            console_errors: (0, Vec::new()),
            navigated: None,
            download_began: false,
            overran: false,
            reset_reason: None,
            recovery_waited_ms: None,
            tab_sessions: 0,
        };
        match tokio::time::timeout_at(budget.deadline().into(), handle.from_worker.recv()).await {
            Ok(Some(Ok(FromWorker::Ready { .. }))) => Ok(handle),
            Ok(Some(other)) => {
                handle.kill();
                Err(fail(format!("worker sent {other:?} instead of Ready")))
            }
            Ok(None) => {
                handle.kill();
                Err(fail(format!("worker exited before attaching to target {target_id}")))
            }
            Err(_) => {
                handle.kill();
                Err(ErrorBody::new(
                    ErrorCode::Timeout,
                    Phase::Worker,
                    "worker did not attach within the budget",
                ))
            }
        }
    }

    /// The target the worker drives; a page reset replaces it.
    pub fn target_id(&self) -> &str {
        &self.target_id
    }

    /// The dialogs answered during the last run.
    pub fn take_dialogs(&mut self) -> DialogLog {
        std::mem::take(&mut self.dialogs)
    }

    /// The console errors of the last run (0 when none) and the newest ones' texts.
    pub fn take_console_errors(&mut self) -> (u64, Vec<String>) {
        std::mem::take(&mut self.console_errors)
    }

    /// The counted events of the last run.
    pub fn take_tallies(&mut self) -> Vec<Counter> {
        std::mem::take(&mut self.tallies)
    }

    /// The main frame's new URL, when it changed during the last run.
    pub fn take_navigated(&mut self) -> Option<String> {
        self.navigated.take()
    }

    /// Whether the last run's input started a download (its `FromWorker::DownloadBegan`).
    pub fn take_download_began(&mut self) -> bool {
        std::mem::take(&mut self.download_began)
    }

    /// Why the worker's page was reset since the last call, when it was.
    pub fn take_reset_reason(&mut self) -> Option<String> {
        self.reset_reason.take()
    }

    /// How long the last run waited for the tab to be freed after the previous answer (ms).
    pub fn take_recovery_waited(&mut self) -> Option<u64> {
        self.recovery_waited_ms.take()
    }

    /// CDP sessions the worker holds on tabs, as it last said (`FromWorker::TabSessions`).
    pub fn tab_sessions(&self) -> u32 {
        self.tab_sessions
    }

    /// A sender of frames to the worker, for what the supervisor tells it outside a run
    /// (`ToWorker::NextDialog`); sending on it after the worker ended does nothing.
    pub fn sender(&self) -> mpsc::UnboundedSender<ToWorker> {
        self.to_worker.clone()
    }

    /// Whether the last run overran its deadline and the worker was killed for it.
    pub fn overran(&self) -> bool {
        self.overran
    }

    /// The browser the worker drives ([`Link::browser`]).
    pub fn browser(&self) -> u64 {
        self.browser
    }

    /// The worker's pid (also its process group id).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Runs `action` for `method` within `budget`: the worker starts it in `phase` (the method's
    /// declared one), and runs it again should its renderer crash under it when `reads` (the method
    /// only reads the page). The worker gets the remaining time less
    /// [`HEADROOM`]; the supervisor waits until the deadline plus [`GRACE`].
    ///
    /// # Errors
    /// The worker's own error; `timeout` with the phase the worker was in when it overran (the worker
    /// is then killed: see [`WorkerHandle::is_spent`]); `worker_crashed` when it died.
    ///
    /// When `cancel` fires (the client went away), the worker is asked to stop the action
    /// ([`ToWorker::Cancel`]) and its answer is still awaited, so the session stays in step.
    pub async fn run(
        &mut self,
        method: &str,
        (phase, reads): (Phase, bool),
        action: Action,
        budget: Budget,
        cancel: &CancellationToken,
    ) -> Result<Output, ErrorBody> {
        let seq = self.next_seq;
        self.next_seq += 1;
        let budget_ms = budget.child(HEADROOM).remaining_ms();
        let mut phase = phase;
        // The run's last steps, for a timeout answered here (the worker's own answer names its own).
        let mut steps = std::collections::VecDeque::with_capacity(ipc::STEPS_NAMED);
        let msg = ToWorker::Run { seq, budget_ms, action: Box::new(action), reads, phase };
        let crashed = |what: &str| {
            ErrorBody::new(
                ErrorCode::WorkerCrashed,
                Phase::Worker,
                format!("the worker {what} during {method}; it is replaced for the next action"),
            )
        };
        if self.to_worker.send(msg).is_err() {
            self.kill();
            return Err(crashed("was gone"));
        }
        let hard_deadline = budget.deadline() + GRACE;
        let mut cancel_sent = false;
        // The worker's own budget ends at the deadline less HEADROOM, when it answers a timeout itself.
        // A worker that cannot run then (stopped: its process is in state `T`) cannot answer by the
        // deadline nor in the grace: it is killed at once, and its `timeout` goes out when a running
        // worker's would, which leaves the window's lateness to a supervisor that waits for a core on a
        // loaded machine. One that runs (busy, or waiting for a core) gets until the deadline, then the
        // grace.
        let own_deadline = budget.deadline().checked_sub(HEADROOM).unwrap_or(budget.deadline());
        let mut until = own_deadline;
        loop {
            let next = tokio::select! {
                next = tokio::time::timeout_at(until.into(), self.from_worker.recv()) => next,
                _ = cancel.cancelled(), if !cancel_sent => {
                    cancel_sent = true;
                    let _ = self.to_worker.send(ToWorker::Cancel { seq });
                    continue;
                }
            };
            // At the deadline, a frame the reader task has not handed over yet (it waits for a core
            // on a loaded machine) still counts: other ready tasks run once before the kill.
            let next = match next {
                Err(elapsed) => {
                    tokio::task::yield_now().await;
                    match self.from_worker.try_recv() {
                        Ok(frame) => Ok(Some(frame)),
                        Err(_) if until < hard_deadline && !stopped(self.pid) => {
                            until = if until < budget.deadline() { budget.deadline() } else { hard_deadline };
                            continue;
                        }
                        Err(_) => Err(elapsed),
                    }
                }
                ok => ok,
            };
            let frame = match next {
                Err(_) => {
                    let was_stopped = stopped(self.pid);
                    self.kill();
                    self.overran = true;
                    return Err(ErrorBody::new(
                        ErrorCode::Timeout,
                        phase,
                        overran(method, phase, &steps, was_stopped),
                    ));
                }
                Ok(None) => {
                    self.kill();
                    return Err(crashed("exited"));
                }
                Ok(Some(frame)) => frame,
            };
            match frame {
                Ok(FromWorker::Phase { seq: s, phase: p }) if s == seq => phase = p,
                Ok(FromWorker::Step { seq: s, step }) if s == seq => {
                    if steps.len() == ipc::STEPS_NAMED {
                        steps.pop_front();
                    }
                    steps.push_back(step);
                }
                Ok(other @ FromWorker::TargetChanged { .. }) => self.note(other),
                Ok(FromWorker::Recovered { seq: s, waited_ms }) if s == seq => {
                    self.recovery_waited_ms = Some(waited_ms)
                }
                Ok(FromWorker::Tally { counter }) => self.tallies.push(counter),
                Ok(FromWorker::TabSessions { count }) => self.tab_sessions = count,
                Ok(FromWorker::ConsoleErrors { seq: s, count, texts }) if s == seq => {
                    self.console_errors.0 += count;
                    self.console_errors.1.extend(texts);
                }
                Ok(FromWorker::Navigated { url }) => self.navigated = Some(url),
                Ok(FromWorker::DownloadBegan) => self.download_began = true,
                Ok(FromWorker::Dialog { seq: s, kind, message, accepted, default_value }) if s == seq => {
                    self.dialogs.push(DialogInfo { kind, message, accepted, default_value })
                }
                Ok(FromWorker::DialogsDropped { seq: s, count }) if s == seq => self.dialogs.dropped += count,
                Ok(FromWorker::Done { seq: s, outcome }) if s == seq => {
                    return outcome
                        .map_err(|e| ErrorBody { url: e.url, ..ErrorBody::new(e.code, e.phase, e.message) });
                }
                // Answers to an earlier, abandoned run.
                Ok(_) => {}
                Err(_) => {
                    self.kill();
                    return Err(crashed("sent an undecodable frame"));
                }
            }
        }
    }

    /// Keeps what a message between runs says about the page.
    fn note(&mut self, msg: FromWorker) {
        if let FromWorker::TargetChanged { target_id, reason } = msg {
            self.target_id = target_id;
            if reason.is_some() {
                self.reset_reason = reason;
            }
        }
    }

    /// Whether the process has been killed or has exited, or its socketpair is closed (the session must
    /// start a new worker). A process that dies closes its socket before the kernel reports it exited:
    /// the closed stream tells first.
    pub fn is_spent(&mut self) -> bool {
        self.killed
            || self.to_worker.is_closed()
            || self.from_worker.is_closed()
            || !matches!(self.child.try_wait(), Ok(None))
    }

    /// SIGKILL to the worker's process group. Tokio reaps it.
    pub fn kill(&mut self) {
        self.killed = true;
        let _ = killpg(Pid::from_raw(self.pid as i32), Signal::SIGKILL);
        let _ = self.child.start_kill();
    }

    /// Asks the worker to exit, waits up to `wait`, then kills its group. Returns the target the worker
    /// drove last (a page reset after the last answer may have moved it: that target must be closed
    /// too).
    pub async fn shutdown(mut self, wait: Duration) -> String {
        let _ = self.to_worker.send(ToWorker::Shutdown);
        let deadline = tokio::time::Instant::now() + wait;
        // Read what the worker still says (a page reset it finished) until it closes the stream.
        while let Ok(Some(msg)) = tokio::time::timeout_at(deadline, self.from_worker.recv()).await {
            if let Ok(msg) = msg {
                self.note(msg);
            }
        }
        if tokio::time::timeout_at(deadline, self.child.wait()).await.is_err() {
            self.kill();
            let _ = self.child.wait().await;
        }
        // Anything the worker left in its group.
        let _ = killpg(Pid::from_raw(self.pid as i32), Signal::SIGKILL);
        reaper::unmanage(self.pid);
        std::mem::take(&mut self.target_id)
    }
}

/// The message of a timeout the supervisor answers for a worker it stopped: the method, the phase the
/// worker was in, its last steps (at most [`ipc::STEPS_NAMED`], oldest first) and whether its process
/// was not running (stopped: `T` in `/proc/<pid>/stat`) or ran without answering.
fn overran(
    method: &str,
    phase: Phase,
    steps: &std::collections::VecDeque<String>,
    was_stopped: bool,
) -> String {
    let mut what = format!("phase {}", phase.as_str());
    if !steps.is_empty() {
        let last: Vec<&str> = steps.iter().map(String::as_str).collect();
        what = format!("{what}; its last steps: {}", last.join("; "));
    }
    let why = if was_stopped {
        "the worker's process was stopped (not running)"
    } else {
        "the worker did not answer"
    };
    format!("{method} did not finish within its budget ({what}); {why} and was ended, a new one takes the next action")
}

impl Drop for WorkerHandle {
    fn drop(&mut self) {
        if self.is_spent() {
            reaper::unmanage(self.pid);
        } else {
            self.kill();
        }
    }
}

/// The worker's stream, both ways: a writer task (runs, cancels, and the browser's messages for the
/// worker's connections) and a reader task (the worker's answers to the handle; its CDP messages to
/// their routes of `relay`, each connection a route opened at its first message; its dialogs' claims
/// on `dialog_policy`, answered at once). When the worker goes away the reader ends and drops its
/// routes, so the relay detaches their sessions.
fn pump(
    stream: UnixStream,
    relay: Relay,
    pid: u32,
    dialog_policy: DialogPolicy,
) -> (mpsc::UnboundedSender<ToWorker>, mpsc::UnboundedReceiver<Result<FromWorker, String>>) {
    let (mut sink, mut frames) = Framed::new(stream, ipc::codec()).split();
    let (to_worker, mut to_rx) = mpsc::unbounded_channel::<ToWorker>();
    let (from_tx, from_worker) = mpsc::unbounded_channel();
    // The browser's messages wait here while the worker is slow to read; when it stops reading,
    // this fills, the forwarders stop, and the relay ends the routes (it never waits for one).
    let (cdp_tx, mut cdp_rx) = mpsc::channel::<ToWorker>(64);
    tokio::spawn(async move {
        loop {
            let msg = tokio::select! {
                msg = to_rx.recv() => msg,
                msg = cdp_rx.recv() => msg,
            };
            let Some(msg) = msg else { break };
            // What else is already waiting goes out in the same write (a page's network events come
            // in bursts).
            let more = || to_rx.try_recv().or_else(|_| cdp_rx.try_recv()).ok();
            if ipc::send_batch(&mut sink, msg, more).await.is_err() {
                break;
            }
        }
    });
    let claims = to_worker.clone();
    tokio::spawn(async move {
        let mut routes: std::collections::HashMap<u32, mpsc::UnboundedSender<Outbound>> = Default::default();
        while let Some(Ok(frame)) = frames.next().await {
            match ipc::decode::<FromWorker>(&frame) {
                Ok(FromWorker::Cdp { conn, message }) => {
                    let route = routes.entry(conn).or_insert_with(|| {
                        let wire = relay.route(&format!("worker {pid} connection {conn}"), false);
                        let (mut inbound, cdp_tx) = (wire.inbound, cdp_tx.clone());
                        tokio::spawn(async move {
                            loop {
                                // Ended by the relay (the worker fell a whole queue behind) while
                                // that queue still waits here: the route is over, so what it holds
                                // is dropped, and the worker is told now, not after reading up to
                                // ROUTE_BUFFER messages it can no longer answer (under load that took
                                // the next action's whole budget: wedge.rs, a load run of stop 61).
                                if inbound.is_closed() && inbound.len() > SKIPPED_BACKLOG {
                                    let mut said = None;
                                    while let Ok(msg) = inbound.try_recv() {
                                        if let Inbound::Closed(reason) = msg {
                                            said = Some(reason);
                                        }
                                    }
                                    let reason = said.unwrap_or_else(fell_behind);
                                    let _ = cdp_tx.send(ToWorker::CdpClosed { conn, reason }).await;
                                    return;
                                }
                                let Some(msg) = inbound.recv().await else { break };
                                let frame = match msg {
                                    Inbound::Message(message) => ToWorker::Cdp { conn, message },
                                    Inbound::Closed(reason) => ToWorker::CdpClosed { conn, reason },
                                };
                                if cdp_tx.send(frame).await.is_err() {
                                    return;
                                }
                            }
                            // Ended by the relay without a word: the worker fell a whole route's
                            // queue behind (`cdp_route_stuck`). It is told, so that its calls fail at
                            // once and the session gets a worker that reads, where before they waited
                            // out every later action's budget.
                            let _ = cdp_tx.send(ToWorker::CdpClosed { conn, reason: fell_behind() }).await;
                        });
                        wire.outbound
                    });
                    let _ = route.send(Outbound::Message(message));
                }
                Ok(FromWorker::CdpClose { conn }) => {
                    routes.remove(&conn);
                }
                Ok(FromWorker::ClaimDialog) => {
                    // Taken under the lock: one dialog gets it, of the worker's tabs or the
                    // supervisor's.
                    let answer = dialog_policy.lock().unwrap().take();
                    let _ = claims.send(ToWorker::DialogClaimed { answer });
                }
                Ok(other) => {
                    let _ = from_tx.send(Ok(other));
                }
                Err(e) => {
                    let _ = from_tx.send(Err(e.to_string()));
                    break;
                }
            }
        }
    });
    (to_worker, from_worker)
}

/// Messages a route that ended may still hold for its worker and be passed on (a route the browser's
/// end closed holds a few); past this many, it ended because the worker fell a whole queue behind,
/// and they are dropped.
const SKIPPED_BACKLOG: usize = 1_024;

/// Why a worker's route ended when it fell a whole queue behind ([`ipc::FELL_BEHIND`]).
fn fell_behind() -> String {
    format!("{} {} messages behind", ipc::FELL_BEHIND, sb_cdp::relay::ROUTE_BUFFER)
}

/// Whether process `pid` is stopped (state `T`, or `t` under a tracer, in `/proc/<pid>/stat`): it cannot
/// run until someone continues it.
fn stopped(pid: u32) -> bool {
    reaper::state(pid).is_some_and(|s| s == 'T' || s == 't')
}

#[cfg(test)]
mod tests {
    use super::*;
    use nix::sys::wait::{waitpid, WaitPidFlag};

    #[test]
    fn a_stopped_process_is_told_from_a_running_one() {
        let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let pid = Pid::from_raw(child.id() as i32);
        assert!(!stopped(child.id()));
        nix::sys::signal::kill(pid, Signal::SIGSTOP).unwrap();
        // Returns once the kernel has stopped it.
        waitpid(pid, Some(WaitPidFlag::WUNTRACED)).unwrap();
        assert!(stopped(child.id()));
        nix::sys::signal::kill(pid, Signal::SIGCONT).unwrap();
        waitpid(pid, Some(WaitPidFlag::WCONTINUED)).unwrap();
        assert!(!stopped(child.id()));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!stopped(u32::MAX), "no such process");
    }
}
