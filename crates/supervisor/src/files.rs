//! The runtime's own files: directories 0700 and files 0600, always, in directories no other uid
//! can write to.
//!
//! A directory the runtime uses (the runtime dir, the socket's, the artifacts dir) is created 0700, or,
//! when it exists, must be a real directory (not a symlink) owned by the runtime's uid and not writable
//! by group or others: another uid that pre-created `/tmp/sandbox-browser-$UID` 0777 could swap the
//! socket or plant symlinks in it. One of ours that is only readable by others is tightened to 0700. A
//! file the runtime writes is created new (`O_CREAT | O_EXCL`, never through an existing file or
//! symlink) with `O_NOFOLLOW` and mode 0600 ([`create_private`], which the worker shares).

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

pub use sb_protocol::files::{create_private, DIR_MODE, FILE_MODE};

/// Makes `dir` (and its missing parents) 0700, or checks the one there (see the module doc).
///
/// # Errors
/// `PermissionDenied` naming the problem and its fix for a directory of another uid, one writable by
/// others, or a symlink; the I/O error when it cannot be made.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::DirBuilder::new().recursive(true).mode(DIR_MODE).create(dir)?;
            // The umask may have taken bits the mode asked for; the directory is exactly 0700.
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(DIR_MODE))
        }
        Err(e) => Err(e),
        Ok(meta) => {
            ours(dir, &meta)?;
            if meta.mode() & 0o777 != DIR_MODE {
                std::fs::set_permissions(dir, std::fs::Permissions::from_mode(DIR_MODE))?;
            }
            Ok(())
        }
    }
}

/// Checks that `dir`, a directory the runtime reads a client's files from (`[files] uploads_dir`),
/// is one no other uid can change: a real directory (not a symlink) of the runtime's uid, not
/// writable by group or others. Nothing is changed.
///
/// # Errors
/// As [`private_dir`]'s for a directory that is not so; the I/O error when it cannot be read.
pub fn checked_dir(dir: &Path) -> std::io::Result<()> {
    ours(dir, &std::fs::symlink_metadata(dir)?)
}

/// The checks of [`private_dir`] and [`checked_dir`] on `dir`'s `meta`.
fn ours(dir: &Path, meta: &std::fs::Metadata) -> std::io::Result<()> {
    let refuse = |why: String| {
        Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "refusing {}: {why}; remove it or point the runtime at a directory of its own",
                dir.display()
            ),
        ))
    };
    if !meta.is_dir() {
        return refuse("it is not a directory (a symlink or a file)".into());
    }
    let me = nix::unistd::geteuid().as_raw();
    if meta.uid() != me {
        return refuse(format!("it belongs to uid {}, not to the runtime's uid {me}", meta.uid()));
    }
    let mode = meta.mode() & 0o777;
    if mode & 0o022 != 0 {
        return refuse(format!("it is writable by other users (mode {mode:04o})"));
    }
    Ok(())
}

/// The longest file name, bytes (Linux's `NAME_MAX`).
pub const NAME_MAX: usize = 255;

/// `root` joined with `name`, a string a client gave (a session id), proven to stay directly under
/// `root`: `name` must be one plain path component (not empty, not `.` or `..`, no `/`, no NUL or
/// other control character: a newline in a file name breaks every line-based reader of it), and
/// the joined path's parent must be `root` itself. Every path the runtime builds from a client's
/// string goes through here (a session's downloads directory, its screenshots' names).
///
/// # Errors
/// `InvalidInput` naming the string and the rule, or its length past [`NAME_MAX`].
pub fn under(root: &Path, name: &str) -> std::io::Result<PathBuf> {
    if name.len() > NAME_MAX {
        // The file system's own limit: an answer for the request, not a failed write (which answered
        // `internal` "File name too long").
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("a name of {} bytes is longer than the {NAME_MAX} a file name may have", name.len()),
        ));
    }
    let mut parts = Path::new(name).components();
    let plain = matches!((parts.next(), parts.next()), (Some(Component::Normal(c)), None) if c == name)
        && !name.chars().any(char::is_control);
    let path = root.join(name);
    if plain && path.parent() == Some(root) {
        Ok(path)
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{name:?} is not a plain name (one path component, not . or .., no control characters): refused under {}",
                root.display()
            ),
        ))
    }
}

/// The kinds of file a session writes for its caller, each in a directory of its own under its
/// owner's ([`owned_dir`]): a name given for one kind can never be a file of another kind, nor one of
/// the runtime's own (the socket, the session store), whatever directory the artifacts dir is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `session.storage_state` saves.
    States,
    /// `page.screenshot`'s images.
    Screenshots,
    /// Copies of the files `page.upload` gave a page (the browser reads a file by its path, later:
    /// the copy is the file the runtime checked, whatever happens to the uploads dir meanwhile).
    Uploads,
    /// `page.pdf`'s documents.
    Pdfs,
    /// `session.trace`'s JSON lines, their screenshots and reports.
    Traces,
    /// `session.har`'s files.
    Hars,
}

impl Kind {
    /// The kind's directory name.
    pub fn dir(self) -> &'static str {
        match self {
            Kind::States => "states",
            Kind::Screenshots => "screenshots",
            Kind::Uploads => "uploads",
            Kind::Pdfs => "pdfs",
            Kind::Traces => "traces",
            Kind::Hars => "hars",
        }
    }
}

/// The directory under the artifacts dir that holds every owner's files.
pub const OWNERS: &str = "owners";

/// The directory name of the owner of a session's files: with `[limits] session_tokens`, its token's
/// (the first 128 bits of its SHA-256, hex: the token itself never becomes a path), so that one
/// agent's sessions share their files and no other agent reaches them; without tokens `shared`
/// (every client of the socket may drive every session then, so the runtime's one agent owns them
/// all, and a login saved by one session loads in another).
pub fn owner(token: Option<&str>) -> String {
    use sha2::Digest;
    match token {
        Some(token) => {
            sha2::Sha256::digest(token.as_bytes())[..16].iter().map(|b| format!("{b:02x}")).collect()
        }
        None => "shared".into(),
    }
}

/// `<artifacts>/owners/<owner>/<kind>`, made (0700, each level checked as [`private_dir`] checks)
/// when missing; `owner` as [`owner`] gives it.
///
/// # Errors
/// `InvalidInput` for an owner that is not a plain name; the I/O error of making the directory.
pub fn owned_dir(artifacts: &Path, owner: &str, kind: Kind) -> std::io::Result<PathBuf> {
    let dir = under(&artifacts.join(OWNERS), owner)?.join(kind.dir());
    private_dir(&dir)?;
    Ok(dir)
}

/// The directories of every owner's files of `kinds` under `artifacts` that exist now.
pub fn owned_dirs(artifacts: &Path, kinds: &[Kind]) -> Vec<PathBuf> {
    let owners = std::fs::read_dir(artifacts.join(OWNERS)).into_iter().flatten().flatten();
    owners.flat_map(|o| kinds.iter().map(move |k| o.path().join(k.dir()))).filter(|d| d.is_dir()).collect()
}

/// The regular file `name` under `root`, opened once (`O_NOFOLLOW`, `O_NONBLOCK` so that a FIFO does
/// not hang the open) and checked on the open descriptor (`fstat`): the file checked is the file read,
/// whatever is renamed meanwhile. Its size in bytes beside it; `None` when there is no such name. A
/// client's file (an upload, a storage state) is taken only this way.
///
/// # Errors
/// A one-line message for a name that is not plain, a symlink (even one inside `root`), anything else
/// that is not a regular file, or an I/O error other than a missing file.
pub fn open_regular_under(root: &Path, name: &str) -> Result<Option<(File, u64)>, String> {
    let path = under(root, name).map_err(|e| e.to_string())?;
    let opened = OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(&path);
    match opened {
        Ok(file) => match file.metadata() {
            Ok(m) if m.file_type().is_file() => Ok(Some((file, m.len()))),
            Ok(_) => Err(format!("{name:?} is not a regular file")),
            Err(e) => Err(format!("{name:?}: {e}")),
        },
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            Err(format!("{name:?} is a symlink; only regular files are taken"))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{name:?}: {e}")),
    }
}

/// Opens `path` to append (`O_NOFOLLOW`; created 0600 when missing).
///
/// # Errors
/// The I/O error (`ELOOP` for a symlink).
pub fn append_private(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().append(true).create(true).mode(FILE_MODE).custom_flags(libc::O_NOFOLLOW).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 28 §1: no string a client can give leaves the root it is joined to.
    #[test]
    fn a_clients_string_never_leaves_its_root() {
        let root = Path::new("/srv/artifacts/downloads");
        for hostile in ["", ".", "..", "../x", "x/..", "a/b", "/etc", "./a", "a/", "a\0b", "//", "..."] {
            let joined = under(root, hostile);
            if hostile == "..." {
                // Three dots is a plain name (a file called `...`), and it stays under the root.
                assert_eq!(joined.unwrap(), root.join("..."));
            } else {
                assert!(joined.is_err(), "{hostile:?} gave {joined:?}");
            }
        }
        assert_eq!(under(root, "s1.a_b-c").unwrap(), root.join("s1.a_b-c"));
        // Issue 53 §5: control characters (a newline, an escape) are not part of a plain name.
        for hostile in ["a\nb.json", "a\rb", "\u{1b}[31m", "tab\t"] {
            assert!(under(root, hostile).is_err(), "{hostile:?}");
        }
        // A name past the file system's limit is refused as input (it answered `internal`, the write
        // failing with "File name too long").
        assert!(under(root, &"x".repeat(NAME_MAX)).is_ok());
        let long = under(root, &"x".repeat(NAME_MAX + 1)).unwrap_err();
        assert_eq!(long.kind(), std::io::ErrorKind::InvalidInput, "{long}");
    }
    use std::io::Write;

    #[test]
    fn directories_are_private_and_loose_ones_refused() {
        let base = tempfile::tempdir().unwrap();
        let made = base.path().join("a/b");
        private_dir(&made).unwrap();
        assert_eq!(std::fs::metadata(&made).unwrap().mode() & 0o777, 0o700);
        // Ours but readable by others: tightened.
        std::fs::set_permissions(&made, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&made).unwrap();
        assert_eq!(std::fs::metadata(&made).unwrap().mode() & 0o777, 0o700);
        // Writable by others: refused.
        std::fs::set_permissions(&made, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = private_dir(&made).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        assert!(e.to_string().contains("writable by other users"), "{e}");
        // A symlink to a directory: refused.
        let link = base.path().join("link");
        std::os::unix::fs::symlink(&made, &link).unwrap();
        assert!(private_dir(&link).unwrap_err().to_string().contains("not a directory"));
    }

    #[test]
    fn files_are_created_new_0600_and_never_through_a_symlink() {
        let base = tempfile::tempdir().unwrap();
        let victim = base.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let planted = base.path().join("out.tmp");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let mut f = create_private(&planted).unwrap();
        f.write_all(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep", "the symlink's target is untouched");
        let meta = std::fs::symlink_metadata(&planted).unwrap();
        assert!(meta.is_file() && meta.mode() & 0o777 == 0o600);
        let link = base.path().join("log");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(append_private(&link).is_err(), "O_NOFOLLOW refuses a symlink");
    }
}
