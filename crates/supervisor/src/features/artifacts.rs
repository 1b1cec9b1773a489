//! Screenshot retention (`[artifacts]`): the artifacts directory's files are kept for
//! `max_age_seconds` and up to `max_bytes` in all; past either, the oldest go first.
//!
//! Checked at start-up and after each `page.screenshot` (the file just written is never removed).
//! Counted: the screenshots, upload copies, PDFs and traces of every owner
//! (`owners/<owner>/{screenshots,uploads,pdfs,traces}`)
//! and any file at the directory's top. Not counted: saved storage states (an agent's logins, small,
//! kept until it removes them), and a session's downloads (`downloads/<session>`), which have their own
//! cap and go with their session.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Deserialize;

/// `[artifacts]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Retention {
    /// The most the artifacts directory's files may hold in all, bytes.
    pub max_bytes: u64,
    /// How long a file is kept, s.
    pub max_age_seconds: u64,
}

impl Default for Retention {
    fn default() -> Self {
        Retention { max_bytes: 512 * 1024 * 1024, max_age_seconds: 24 * 3600 }
    }
}

/// What a pass removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pruned {
    /// Files removed.
    pub files: usize,
    /// Their size, bytes.
    pub bytes: u64,
}

/// Removes from the artifacts directory `dir` (see the module doc for which files count) the files
/// older than `max_age_seconds`, then the oldest until the rest fit in `max_bytes`; never `keep` (the
/// file just written). Files that vanish meanwhile are skipped.
pub fn prune(dir: &Path, retention: &Retention, keep: Option<&Path>) -> Pruned {
    use crate::files::Kind;
    let now = SystemTime::now();
    let max_age = Duration::from_secs(retention.max_age_seconds);
    let owned = crate::files::owned_dirs(dir, &[Kind::Screenshots, Kind::Pdfs, Kind::Traces]);
    // An upload's copies are in a directory of their own (they keep their names).
    let batches: Vec<PathBuf> = crate::files::owned_dirs(dir, &[Kind::Uploads])
        .into_iter()
        .flat_map(std::fs::read_dir)
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    let mut files: Vec<(SystemTime, u64, PathBuf)> = std::iter::once(dir.to_path_buf())
        .chain(owned)
        .chain(batches.iter().cloned())
        .flat_map(std::fs::read_dir)
        .flatten()
        .flatten()
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            meta.is_file().then(|| (meta.modified().unwrap_or(now), meta.len(), e.path()))
        })
        .collect();
    files.sort();
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    let mut pruned = Pruned::default();
    for (modified, len, path) in files {
        if keep == Some(path.as_path()) {
            continue;
        }
        let expired = now.duration_since(modified).unwrap_or_default() > max_age;
        if (expired || total > retention.max_bytes) && std::fs::remove_file(&path).is_ok() {
            total -= len;
            pruned.files += 1;
            pruned.bytes += len;
        }
    }
    for batch in batches {
        // Gone once its last copy is (a directory that still holds one is not removed).
        let _ = std::fs::remove_dir(batch);
    }
    pruned
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &Path, name: &str, len: usize, age: Duration) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, vec![0u8; len]).unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(SystemTime::now() - age).unwrap();
        path
    }

    #[test]
    fn expired_files_go_then_the_oldest_until_the_rest_fit() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        use crate::files::{owned_dir, Kind};
        let old = file(d, "old.png", 10, Duration::from_secs(7200));
        let a = file(&owned_dir(d, "t", Kind::Screenshots).unwrap(), "a.png", 400, Duration::from_secs(300));
        let b = file(&owned_dir(d, "u", Kind::Pdfs).unwrap(), "b.pdf", 400, Duration::from_secs(200));
        let c = file(&owned_dir(d, "t", Kind::Traces).unwrap(), "c.jpg", 400, Duration::from_secs(100));
        let batch = owned_dir(d, "u", Kind::Uploads).unwrap().join("s-1");
        std::fs::create_dir(&batch).unwrap();
        let copy = file(&batch, "cv.pdf", 10, Duration::from_secs(7200));
        // A saved login is the agent's, however old.
        let state =
            file(&owned_dir(d, "t", Kind::States).unwrap(), "login.json", 10, Duration::from_secs(7200));
        std::fs::create_dir(d.join("downloads")).unwrap();
        let r = Retention { max_bytes: 900, max_age_seconds: 3600 };
        assert_eq!(prune(d, &r, Some(&c)), Pruned { files: 3, bytes: 420 });
        assert!(!old.exists() && !a.exists() && b.exists() && c.exists() && state.exists());
        assert!(!copy.exists() && !batch.exists(), "an old upload's copy goes, and its directory");
        assert!(d.join("downloads").is_dir(), "directories are not the screenshots'");
        // The file just written stays even when it alone is over the cap.
        let r = Retention { max_bytes: 100, max_age_seconds: 3600 };
        prune(d, &r, Some(&c));
        assert!(!b.exists() && c.exists());
    }
}
