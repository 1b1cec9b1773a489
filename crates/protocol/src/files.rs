//! How the runtime's processes (the supervisor and its workers) write a file: created new
//! (`O_CREAT | O_EXCL`, never through an existing file or symlink) with `O_NOFOLLOW` and mode 0600,
//! in directories of mode 0700.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Mode of every directory the runtime makes.
pub const DIR_MODE: u32 = 0o700;
/// Mode of every file the runtime writes.
pub const FILE_MODE: u32 = 0o600;

/// Writes `bytes` to `path`, created new as [`create_private`] creates it; a write that fails leaves no
/// partial file behind (it is removed).
///
/// # Errors
/// The I/O error ([`failed_write`] turns it into an answer).
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let written = create_private(path).and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()));
    if written.is_err() {
        let _ = std::fs::remove_file(path);
    }
    written
}

/// The answer for a file that could not be written at `path` in `phase`: `disk_full` when its disk is
/// full or over quota (`ENOSPC`, `EDQUOT`), else `internal`; the message names the file and the cause.
pub fn failed_write(phase: crate::Phase, path: &Path, e: &std::io::Error) -> crate::ErrorBody {
    use crate::ErrorCode;
    let full = matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT));
    let (code, advice) = if full {
        (ErrorCode::DiskFull, "; free space there, or lower [artifacts] max_bytes")
    } else {
        (ErrorCode::Internal, "")
    };
    crate::ErrorBody::new(code, phase, format!("cannot write {}: {e}{advice}", path.display()))
}

/// Creates `path` new for writing (`O_EXCL | O_NOFOLLOW`, mode 0600). A file already there (ours,
/// from an earlier run, in a directory of the runtime's own) is removed first: never written
/// through, and a symlink is removed, not followed.
///
/// # Errors
/// The I/O error.
pub fn create_private(path: &Path) -> std::io::Result<File> {
    let open = || {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(FILE_MODE)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
    };
    match open() {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(path)?;
            open()
        }
        other => other,
    }
}
