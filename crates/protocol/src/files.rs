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
