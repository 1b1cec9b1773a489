//! No orphans, no zombies.
//!
//! The supervisor is a child subreaper (`PR_SET_CHILD_SUBREAPER`): processes that escape their parent
//! (Chromium's crashpad handler calls `setsid` and is re-parented) become the supervisor's children
//! instead of init's. [`reap_adopted`] waits for such adopted zombies by pid, never with
//! `waitpid(-1)`, so the exit status of the children tokio waits on is not stolen.

use std::collections::HashSet;
use std::sync::Mutex;

use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag};
use nix::unistd::Pid;

/// Pids of children that tokio owns (browser, workers); [`reap_adopted`] leaves them alone.
static MANAGED: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

/// Marks the current process a child subreaper.
///
/// # Errors
/// The `prctl` error (only on kernels without the feature).
pub fn become_subreaper() -> std::io::Result<()> {
    // SAFETY: plain prctl with integer arguments.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Records a child that tokio waits on.
pub fn manage(pid: u32) {
    MANAGED.lock().unwrap().get_or_insert_with(HashSet::new).insert(pid as i32);
}

/// Forgets a child once tokio has reaped it.
pub fn unmanage(pid: u32) {
    if let Some(set) = MANAGED.lock().unwrap().as_mut() {
        set.remove(&(pid as i32));
    }
}

/// `(pid, state)` of every direct child of this process, read from `/proc/<pid>/stat`.
pub fn children() -> Vec<(i32, char)> {
    let me = std::process::id() as i32;
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // "pid (comm) S ppid ...": comm may hold spaces and parentheses; split after the last ')'.
            let rest = &stat[stat.rfind(')')? + 2..];
            let mut fields = rest.split_whitespace();
            let state = fields.next()?.chars().next()?;
            let ppid: i32 = fields.next()?.parse().ok()?;
            (ppid == me).then_some((pid, state))
        })
        .collect()
}

/// Reaps adopted children that have exited (zombies not managed by tokio). Returns how many.
pub fn reap_adopted() -> usize {
    let managed = MANAGED.lock().unwrap().clone().unwrap_or_default();
    children()
        .into_iter()
        .filter(|(pid, state)| *state == 'Z' && !managed.contains(pid))
        .filter(|(pid, _)| waitpid(Pid::from_raw(*pid), Some(WaitPidFlag::WNOHANG)).is_ok())
        .count()
}

/// At exit: SIGKILL every remaining child that tokio does not manage (adopted escapees), then reap it.
pub fn kill_adopted() {
    let managed = MANAGED.lock().unwrap().clone().unwrap_or_default();
    for (pid, _) in children().into_iter().filter(|(pid, _)| !managed.contains(pid)) {
        let pid = Pid::from_raw(pid);
        let _ = kill(pid, Signal::SIGKILL);
        let _ = waitpid(pid, None);
    }
}
