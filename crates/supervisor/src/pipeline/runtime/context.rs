//! What a page method sees of its session while its params become an action
//! ([`dispatch::Context`]): its refs, its settings, its uploads and where its artifacts go.

use std::path::PathBuf;

use sb_protocol::error::bad_request;
use sb_protocol::ipc::RefRecord;
use sb_protocol::{ErrorBody, Phase};

use super::{Runtime, RuntimeConfig};
use crate::files::Kind;
use crate::pipeline::dispatch::Context;
use crate::sessions::SessionEntry;

/// A page method's view of its session ([`dispatch::Context`]).
struct SessionContext<'a> {
    session: &'a SessionEntry,
    config: &'a RuntimeConfig,
}

impl Context for SessionContext<'_> {
    fn reference(&self, id: &str) -> Result<RefRecord, ErrorBody> {
        self.session.reference(id)
    }

    fn evaluate_enabled(&self) -> bool {
        self.config.evaluate_enabled
    }

    fn sessions_apart(&self) -> bool {
        self.config.session_tokens
    }

    fn uploads_dir(&self) -> Option<&std::path::Path> {
        self.config.uploads_dir.as_deref()
    }

    fn emulation(&self) -> sb_protocol::api::Emulation {
        self.session.emulation.lock().unwrap().clone()
    }

    fn read_upload(&self, name: &str, max_bytes: usize) -> Result<Vec<u8>, ErrorBody> {
        use std::io::Read as _;
        let bad = |m: String| bad_request(format!("page.route body_file: {m}"));
        let dir = self.uploads_dir().ok_or_else(|| bad("uploads are off ([files] uploads_dir)".into()))?;
        crate::files::checked_dir(dir).map_err(|e| bad(e.to_string()))?;
        let found = crate::files::open_regular_under(dir, name).map_err(bad)?;
        let (file, size) = found.ok_or_else(|| bad(format!("no file {name:?} in the uploads dir")))?;
        if size > max_bytes as u64 {
            return Err(bad(format!("{name:?} is {size} bytes, over {max_bytes}")));
        }
        let mut bytes = Vec::new();
        // Read no more than was checked, whatever the file grows to meanwhile.
        file.take(max_bytes as u64 + 1).read_to_end(&mut bytes).map_err(|e| bad(e.to_string()))?;
        if bytes.len() > max_bytes {
            return Err(bad(format!("{name:?} is over {max_bytes} bytes")));
        }
        Ok(bytes)
    }

    fn stage_uploads(
        &self,
        dir: &std::path::Path,
        names: &[String],
    ) -> Result<(Vec<String>, u64), ErrorBody> {
        let bad = |m: String| bad_request(format!("page.upload: {m}"));
        crate::files::checked_dir(dir).map_err(|e| bad(e.to_string()))?;
        let mut opened = Vec::new();
        for name in names {
            let found = crate::files::open_regular_under(dir, name).map_err(bad)?;
            let (file, size) = found.ok_or_else(|| bad(format!("no file {name:?} in the uploads dir")))?;
            opened.push((name, file, size));
        }
        let owner = self.session.owner(self.config.session_tokens);
        let uploads = owned_dir(&self.config.artifacts_dir, &owner, Kind::Uploads)?;
        let written = |e: std::io::Error| sb_protocol::files::failed_write(Phase::Session, &uploads, &e);
        let batch =
            format!("{}-{}-{}", self.session.id, crate::sessions::store::now_ms(), self.session.next_shot());
        let staged = crate::files::under(&uploads, &batch).map_err(written)?;
        crate::files::private_dir(&staged).map_err(written)?;
        let (mut paths, mut bytes) = (Vec::new(), 0u64);
        for (name, mut file, size) in opened {
            let path = crate::files::under(&staged, name).map_err(written)?;
            let mut copy = crate::files::create_private(&path).map_err(written)?;
            if let Err(e) = std::io::copy(&mut file, &mut copy) {
                // No partial copy is left behind.
                let _ = std::fs::remove_file(&path);
                return Err(written(e));
            }
            bytes += size;
            paths.push(path.to_string_lossy().into_owned());
        }
        Ok((paths, bytes))
    }

    fn named_artifact(&self, extension: &str, name: &str) -> Result<String, ErrorBody> {
        let dir = owned_dir(
            &self.config.artifacts_dir,
            &self.session.owner(self.config.session_tokens),
            kind_of(extension),
        )?;
        let suffix = format!(".{extension}");
        let name = if name.ends_with(&suffix) { name.to_string() } else { format!("{name}{suffix}") };
        let path = crate::files::under(&dir, &name).map_err(|e| bad_request(format!("name: {e}")))?;
        Ok(path.to_string_lossy().into_owned())
    }

    fn artifact_path(&self, extension: &str) -> Result<String, ErrorBody> {
        let kind = kind_of(extension);
        let dir =
            owned_dir(&self.config.artifacts_dir, &self.session.owner(self.config.session_tokens), kind)?;
        let n = self.session.next_shot();
        let millis = crate::sessions::store::now_ms();
        let name = format!("{}-{millis}-{n}.{extension}", self.session.id);
        // Session ids are plain names (checked at session.start and when the store is read), so this
        // stays under the directory; a name that would not falls back to one without the id.
        let path = crate::files::under(&dir, &name)
            .unwrap_or_else(|_| dir.join(format!("session-{millis}-{n}.{extension}")));
        Ok(path.to_string_lossy().into_owned())
    }

    fn next_ref(&self) -> u64 {
        self.session.next_ref()
    }
}

/// The directory kind of an artifact with file `extension`.
fn kind_of(extension: &str) -> Kind {
    match extension {
        "pdf" => Kind::Pdfs,
        "har" => Kind::Hars,
        _ => Kind::Screenshots,
    }
}

/// `<artifacts>/owners/<owner>/<kind>` ([`crate::files::owned_dir`]), made when missing.
///
/// # Errors
/// `disk_full` on a full disk, else `internal` when it cannot be made (a directory another uid
/// planted).
fn owned_dir(artifacts: &std::path::Path, owner: &str, kind: Kind) -> Result<PathBuf, ErrorBody> {
    crate::files::owned_dir(artifacts, owner, kind)
        .map_err(|e| sb_protocol::files::failed_write(Phase::Session, &artifacts.join(kind.dir()), &e))
}

impl Runtime {
    /// The view of `session` a page method's params are prepared with ([`dispatch::PageMethod::prepare`]).
    pub(super) fn context<'a>(&'a self, session: &'a SessionEntry) -> impl Context + 'a {
        SessionContext { session, config: &self.config }
    }

    /// The directory of `owner`'s files of `kind` under the artifacts dir, made when missing.
    ///
    /// # Errors
    /// `internal` when it cannot be made.
    pub(super) fn owned_dir(&self, owner: &str, kind: Kind) -> Result<PathBuf, ErrorBody> {
        owned_dir(&self.config.artifacts_dir, owner, kind)
    }

    /// [`Runtime::owned_dir`] of `session`'s owner (its token's, with `[limits] session_tokens`).
    ///
    /// # Errors
    /// `internal` when it cannot be made.
    pub(super) fn session_dir(&self, session: &SessionEntry, kind: Kind) -> Result<PathBuf, ErrorBody> {
        self.owned_dir(&session.owner(self.config.session_tokens), kind)
    }
}
