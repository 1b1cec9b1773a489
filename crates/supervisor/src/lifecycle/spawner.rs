//! Spawning children from one long-lived thread.
//!
//! `PR_SET_PDEATHSIG` fires when the *thread* that forked the child exits, not the process. Tokio's
//! blocking-pool threads come and go, so a child spawned from one could be killed at a random moment.
//! Every child of the supervisor (browser, workers) is therefore forked by [`Spawner`]'s own thread,
//! which lives as long as the supervisor.

use std::io;
use std::sync::mpsc as std_mpsc;

use tokio::process::{Child, Command};
use tokio::sync::oneshot;

type Job = (Command, oneshot::Sender<io::Result<Child>>);

/// Where a child of the supervisor runs, for signals and for the kernel's scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detach {
    /// A process group of its own (pgid = its pid, `setpgid(0, 0)`) in the supervisor's session: a
    /// worker. Its CPU is shared with the supervisor's where the kernel groups tasks by session.
    Group,
    /// A session of its own (`setsid`, which makes a process group too, pgid = its pid): the browser of
    /// a supervisor that leads its own session (`browser::browser_detach`). Where the kernel's
    /// autogroups apply (`/proc/sys/kernel/sched_autogroup_enabled`, to tasks of the root cpu cgroup
    /// only), a session is a scheduling group.
    Session,
}

/// A handle on the spawning thread. Cheap to clone. The thread outlives the handles (it parks once
/// they are all dropped), so children never die just because a handle went away.
#[derive(Clone)]
pub struct Spawner {
    tx: std_mpsc::Sender<Job>,
}

impl Spawner {
    /// Starts the spawning thread inside the current tokio runtime.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    pub fn start() -> Spawner {
        let handle = tokio::runtime::Handle::current();
        let (tx, rx) = std_mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("sb-spawner".into())
            .spawn(move || {
                let _guard = handle.enter();
                while let Ok((mut cmd, reply)) = rx.recv() {
                    let _ = reply.send(crate::lifecycle::reaper::spawn_managed(&mut cmd));
                }
                // Every handle is gone, but children forked here may still run: if this thread
                // exited, the kernel would SIGKILL them (PR_SET_PDEATHSIG). So it stays, idle.
                loop {
                    std::thread::park();
                }
            })
            .expect("spawn the spawner thread");
        Spawner { tx }
    }

    /// Spawns `cmd` in its own process group, or its own session ([`Detach`]), with
    /// `PR_SET_PDEATHSIG(SIGKILL)`, so that the child dies with the supervisor; the child is managed
    /// (`reaper::spawn_managed`) from the moment it exists. `extra` runs in the child after fork,
    /// before exec (async-signal-safe code only).
    ///
    /// # Errors
    /// The spawn's own error (binary missing, not executable, ...).
    pub async fn spawn(
        &self,
        mut cmd: Command,
        detach: Detach,
        extra: impl Fn() -> io::Result<()> + Send + Sync + 'static,
    ) -> io::Result<Child> {
        cmd.kill_on_drop(true);
        if detach == Detach::Group {
            cmd.process_group(0);
        }
        // SAFETY: the closure only calls async-signal-safe functions (setsid, prctl, and `extra`,
        // which callers keep to fcntl/dup2-like calls).
        unsafe {
            cmd.pre_exec(move || {
                // (`setsid` fails in a process group's leader: a session's child is not made one.)
                if detach == Detach::Session && libc::setsid() < 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                extra()
            });
        }
        let (reply_tx, reply_rx) = oneshot::channel();
        self.tx.send((cmd, reply_tx)).map_err(|_| io::Error::other("spawner thread is gone"))?;
        reply_rx.await.map_err(|_| io::Error::other("spawner thread is gone"))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::reaper;

    #[tokio::test]
    async fn a_child_that_exits_at_once_keeps_its_exit_status_for_tokio() {
        // A browser binary that fails at once: its SIGCHLD runs the adopted-zombie reaper, possibly
        // before the spawn's caller has the child. The child must still be tokio's to wait on.
        let spawner = Spawner::start();
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", "exit 3"]);
        let mut child = spawner.spawn(cmd, Detach::Group, || Ok(())).await.unwrap();
        let pid = child.id().unwrap() as i32;
        while reaper::children().iter().any(|&(p, state)| p == pid && state != 'Z') {
            tokio::task::yield_now().await;
        }
        reaper::reap_adopted();
        assert_eq!(child.wait().await.unwrap().code(), Some(3));
    }
}
