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

/// Forks `cmd` and records the child as managed in one step, under the lock [`reap_adopted`] holds
/// while it reaps: a child that exits at once (a browser binary that fails to start) is never taken for
/// an adopted zombie and reaped behind tokio's back (tokio would then never see its exit status).
///
/// # Errors
/// The spawn's own error.
pub fn spawn_managed(cmd: &mut tokio::process::Command) -> std::io::Result<tokio::process::Child> {
    let mut managed = MANAGED.lock().unwrap();
    let child = cmd.spawn()?;
    if let Some(pid) = child.id() {
        managed.get_or_insert_with(HashSet::new).insert(pid as i32);
    }
    Ok(child)
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
///
/// Holds the managed set's lock throughout, so that no child is forked ([`spawn_managed`]) between
/// the look at the set and the reaping.
pub fn reap_adopted() -> usize {
    let managed = MANAGED.lock().unwrap();
    children()
        .into_iter()
        .filter(|(pid, state)| *state == 'Z' && !managed.as_ref().is_some_and(|m| m.contains(pid)))
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

/// Prefix of the browser profile dirs the supervisor creates in its runtime dir.
pub const PROFILE_PREFIX: &str = "chromium-profile-";

/// Ends what an earlier supervisor on the same runtime dir left behind (it was SIGKILLed, or its
/// container was frozen): every process whose command line names a profile dir under `runtime_dir`
/// (the browser, its helpers, crashpad handlers that escaped its group) gets SIGKILL and is waited for
/// (at most 3 s); then the old profile dirs are removed. Returns the pids ended.
///
/// Call it before this supervisor launches its own browser.
pub fn sweep_leftovers(runtime_dir: &std::path::Path) -> Vec<i32> {
    let mut needles = vec![format!("{}/{PROFILE_PREFIX}", runtime_dir.display())];
    if let Ok(canonical) = runtime_dir.canonicalize() {
        needles.push(format!("{}/{PROFILE_PREFIX}", canonical.display()));
    }
    let pids = end_naming_any(&needles);
    if let Ok(entries) = std::fs::read_dir(runtime_dir) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(PROFILE_PREFIX) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    pids
}

/// Whether `pid` exists and is not a zombie.
pub fn running(pid: i32) -> bool {
    state(pid).is_some_and(|s| s != 'Z')
}

/// The state letter of process `pid` (`R`, `S`, `T` stopped, `t` stopped by a tracer, `Z` zombie, ...,
/// `/proc/<pid>/stat`); `None` when it is gone.
pub fn state(pid: impl std::fmt::Display) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) S ...`: the state follows the last `)` (a command name may hold one).
    stat.get(stat.rfind(')')? + 1..)?.trim_start().chars().next()
}

/// SIGKILL to every process (not this one) whose command line contains `path`, then waits until they
/// are gone (at most 3 s). Returns their pids.
pub fn end_naming(path: &std::path::Path) -> Vec<i32> {
    end_naming_any(&[path.display().to_string()])
}

fn end_naming_any(needles: &[String]) -> Vec<i32> {
    let me = std::process::id() as i32;
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    let pids: Vec<i32> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != me)
        .filter(|pid| {
            let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { return false };
            let cmdline = String::from_utf8_lossy(&cmdline);
            needles.iter().any(|n| cmdline.contains(n.as_str()))
        })
        .collect();
    for &pid in &pids {
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while std::time::Instant::now() < deadline && pids.iter().any(|&p| running(p)) {
        // The kernel tears the processes down asynchronously; reap those that were adopted.
        reap_adopted();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    pids
}
