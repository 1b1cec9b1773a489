//! File descriptors: how many a process holds against its `RLIMIT_NOFILE`, so that a new session or
//! connection is refused with a clear error while there is still room, before the browser (which
//! aborts when it runs out) or the supervisor (whose `accept` would fail and leave the client waiting)
//! runs out.
//!
//! Measured with the headless shell: the browser holds about 80 descriptors and 4 more per session
//! (with one page each); the supervisor about 20 and 2 more per session, 1 per connection.

use sb_protocol::{ErrorBody, ErrorCode, Phase};

/// Descriptors a new session leaves free in the browser and in the supervisor, at least: room for its
/// own (4 in the browser, 2 here), its popups, frames and downloads, and the files an action writes.
pub const SESSION_HEADROOM: u64 = 48;

/// Descriptors a new connection leaves free in the supervisor, at least: room for the sessions'
/// actions (a screenshot, the kept state, a worker's spawn) while connections pile up.
pub const CONNECTION_HEADROOM: u64 = 24;

/// The advice every refusal for want of descriptors gives.
pub const RAISE_LIMIT: &str =
    "raise the open-file limit (ulimit -n 65536 before serve, docker run --ulimit nofile=65536)";

/// One process's descriptors: how many are open (`/proc/<pid>/fd`) and its soft `RLIMIT_NOFILE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdUse {
    /// Descriptors open now.
    pub open: u64,
    /// The soft limit (`RLIMIT_NOFILE`); `u64::MAX` for unlimited.
    pub limit: u64,
}

impl FdUse {
    /// This process's.
    pub fn own() -> Option<FdUse> {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: a valid rlimit of ours to fill.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return None;
        }
        Some(FdUse { open: count("/proc/self/fd")?, limit: limit.rlim_cur })
    }

    /// Process `pid`'s (the browser's), from `/proc/<pid>/fd` and `/proc/<pid>/limits`; `None` when
    /// they cannot be read (the process is gone, or is not ours).
    pub fn of(pid: u32) -> Option<FdUse> {
        let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).ok()?;
        Some(FdUse { open: count(&format!("/proc/{pid}/fd"))?, limit: soft_open_files(&limits)? })
    }

    /// Descriptors that may still be opened.
    pub fn free(&self) -> u64 {
        self.limit.saturating_sub(self.open)
    }
}

/// Entries of a `/proc/<pid>/fd` directory.
fn count(dir: &str) -> Option<u64> {
    Some(std::fs::read_dir(dir).ok()?.count() as u64)
}

/// The soft limit of the `Max open files` line of a `/proc/<pid>/limits` text.
fn soft_open_files(limits: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line["Max open files".len()..].split_whitespace().next()?;
    if soft == "unlimited" {
        Some(u64::MAX)
    } else {
        soft.parse().ok()
    }
}

/// Whether a new session has room: at least [`SESSION_HEADROOM`] descriptors free in the browser
/// (`browser_pid`; `None` for a browser elsewhere, not checked) and in this process.
///
/// # Errors
/// `too_many_sessions` naming the process, its count and its limit, and how to raise it.
pub fn room_for_session(browser_pid: Option<u32>) -> Result<(), ErrorBody> {
    let short = |who: &str, fds: FdUse| {
        ErrorBody::new(
            ErrorCode::TooManySessions,
            Phase::Session,
            format!(
                "out of file descriptors: the {who} has {} open of its {} (RLIMIT_NOFILE) and a session \
                 needs {SESSION_HEADROOM} free; close a session, or {RAISE_LIMIT}",
                fds.open, fds.limit
            ),
        )
    };
    if let Some(fds) = browser_pid.and_then(FdUse::of) {
        if fds.free() < SESSION_HEADROOM {
            return Err(short("browser", fds));
        }
    }
    match FdUse::own() {
        Some(fds) if fds.free() < SESSION_HEADROOM => Err(short("runtime", fds)),
        _ => Ok(()),
    }
}

/// Whether a new connection has room: at least [`CONNECTION_HEADROOM`] descriptors free here once it
/// is open; the use counted when it is not.
pub fn room_for_connection() -> Result<(), FdUse> {
    match FdUse::own() {
        Some(fds) if fds.free() < CONNECTION_HEADROOM => Err(fds),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_is_read_from_a_limits_text() {
        let text = "Limit                     Soft Limit           Hard Limit           Units     \n\
                    Max cpu time              unlimited            unlimited            seconds   \n\
                    Max open files            256                  1024                 files     \n";
        assert_eq!(soft_open_files(text), Some(256));
        assert_eq!(soft_open_files("Max open files  unlimited unlimited files"), Some(u64::MAX));
        assert_eq!(soft_open_files("Max processes 10 10"), None);
    }

    #[test]
    fn this_process_counts_its_own() {
        let own = FdUse::own().unwrap();
        let of = FdUse::of(std::process::id()).unwrap();
        assert!(own.open >= 3 && own.limit >= own.open);
        assert_eq!(own.limit, of.limit);
    }
}
