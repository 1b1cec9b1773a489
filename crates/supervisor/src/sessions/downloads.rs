//! Downloads (`[downloads]`): where a page's downloads go, how large they may grow, what the agent is
//! told, and when they are removed.
//!
//! Each session's browser context gets `Browser.setDownloadBehavior {behavior: "allowAndName",
//! browserContextId, downloadPath: <artifacts>/downloads/<session>, eventsEnabled: true}` (or
//! `"deny"` with `enabled = false`): a download lands in the session's own directory (0700), written
//! under its `guid`, not in the runtime's home; once complete it is renamed to the name the page or
//! server suggested, made safe (one plain name: `safe_name`) and unique in that directory
//! (`report (1).csv`). The browser-level events
//! (`Browser.downloadWillBegin`, `Browser.downloadProgress`) reach the supervisor's route: a download
//! that passes `max_bytes` is cancelled (`Browser.cancelDownload`) and its file removed; each one is
//! reported once it starts and once it ends in the session's next result (`downloads`). A session's
//! directory goes with `session.close` unless `keep`.
//!
//! `Browser.downloadWillBegin` names the frame, not the context: a download a tab starts is its
//! session's at once (the main frame's id is the target's); one a subframe starts is owned as soon as
//! its file (`<guid>.crdownload`, then `<guid>`) shows up in a session's directory, which is its
//! context's own.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use sb_protocol::api::DownloadInfo;
use serde::Deserialize;

use sb_cdp::commands::{BrowserCancelDownload, BrowserSetDownloadBehavior};
use sb_cdp::types::{DownloadProgress, DownloadWillBegin};

use crate::lifecycle::link::Link;

/// How long an answer waits for the news of a download its action started (the browser tells the
/// supervisor of it on its own connection, at about the time the worker answers): a `page.goto` whose
/// URL became a download, an input whose navigation did.
pub const DOWNLOAD_NEWS: Duration = Duration::from_millis(1_000);

/// `[downloads]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DownloadsConfig {
    /// Let pages download (else every download is denied).
    pub enabled: bool,
    /// The largest download, bytes; a larger one is cancelled and removed (`too_large`).
    pub max_bytes: u64,
    /// Keep a session's downloads after `session.close` (else they are removed with it).
    pub keep: bool,
}

impl Default for DownloadsConfig {
    fn default() -> Self {
        DownloadsConfig { enabled: true, max_bytes: 100 * 1024 * 1024, keep: false }
    }
}

/// When what is left of a cancelled download is removed a second time.
const LATE_SWEEP: Duration = Duration::from_millis(1_000);

/// Longest a `Browser.*` download call may take.
const CALL: Duration = Duration::from_millis(2_000);

/// One download in flight.
struct Entry {
    session: String,
    context: String,
    info: DownloadInfo,
    /// Cancelled by the runtime for passing `max_bytes`; reported when Chromium says it ended.
    too_large: bool,
}

/// The runtime's downloads: their directories, the ones in flight, what each session is yet to hear.
pub struct Downloads {
    config: DownloadsConfig,
    /// `<artifacts>/downloads`.
    root: PathBuf,
    /// By `guid`.
    flying: Mutex<HashMap<String, Entry>>,
    /// By session: what its next result reports.
    news: Mutex<HashMap<String, Vec<(String, DownloadInfo)>>>,
    /// By session: every download so far (`guid`, its latest state), oldest first (`page.downloads`).
    all: Mutex<HashMap<String, Vec<(String, DownloadInfo)>>>,
    /// Begun in a frame that is no session's tab (a subframe's): `Browser.downloadWillBegin`'s params
    /// by `guid`, until the file shows whose it is.
    unowned: Mutex<HashMap<String, DownloadWillBegin>>,
    /// Notified whenever a session has news (`page.wait_for {download}`).
    pub changed: tokio::sync::Notify,
    /// When each download ended, by `guid`.
    ended_at: Mutex<HashMap<String, std::time::Instant>>,
}

impl Downloads {
    /// Downloads under `<artifacts_dir>/downloads`.
    pub fn new(config: DownloadsConfig, artifacts_dir: &Path) -> Downloads {
        Downloads {
            config,
            root: artifacts_dir.join("downloads"),
            flying: Mutex::default(),
            news: Mutex::default(),
            all: Mutex::default(),
            unowned: Mutex::default(),
            changed: tokio::sync::Notify::new(),
            ended_at: Mutex::default(),
        }
    }

    /// The directory of `session`'s downloads ([`crate::files::under`] the downloads root).
    ///
    /// # Errors
    /// A session id that is not a plain name (a store written by an older runtime may hold one).
    pub fn dir(&self, session: &str) -> std::io::Result<PathBuf> {
        crate::files::under(&self.root, session)
    }

    /// Sets the download behaviour of `session`'s new browser context `context`: into its own
    /// directory (made 0700), or denied.
    ///
    /// # Errors
    /// The directory cannot be made, or `Browser.setDownloadBehavior` failed (one line).
    pub async fn allow(&self, link: &Link, session: &str, context: &str) -> Result<(), String> {
        let behavior = if self.config.enabled {
            let dir = self.dir(session).map_err(|e| format!("downloads directory: {e}"))?;
            crate::files::private_dir(&self.root)
                .and_then(|()| crate::files::private_dir(&dir))
                .map_err(|e| format!("downloads directory: {e}"))?;
            BrowserSetDownloadBehavior {
                behavior: "allowAndName".into(),
                browser_context_id: Some(context.to_string()),
                download_path: Some(dir.display().to_string()),
                events_enabled: Some(true),
            }
        } else {
            BrowserSetDownloadBehavior {
                behavior: "deny".into(),
                browser_context_id: Some(context.to_string()),
                ..BrowserSetDownloadBehavior::default()
            }
        };
        link.client
            .run(&behavior, CALL)
            .await
            .map(|_| ())
            .map_err(|e| format!("Browser.setDownloadBehavior: {e}"))
    }

    /// A download began (`Browser.downloadWillBegin`) in `session`'s context `context`.
    pub fn began(&self, session: &str, context: &str, began: DownloadWillBegin) {
        let info = DownloadInfo {
            url: sb_protocol::redact::in_url(&began.url).into_owned(),
            suggested_filename: began.suggested_filename,
            state: "started".into(),
            bytes: 0,
            path: None,
        };
        self.tell(session, &began.guid, info.clone());
        self.record(session, &began.guid, &info);
        let entry =
            Entry { session: session.to_string(), context: context.to_string(), info, too_large: false };
        self.flying.lock().unwrap().insert(began.guid, entry);
    }

    /// A download began in a frame that is no session's tab (a subframe's): it is followed once its
    /// file shows whose it is ([`Downloads::progressed`]).
    pub fn began_unowned(&self, began: DownloadWillBegin) {
        self.unowned.lock().unwrap().insert(began.guid.clone(), began);
    }

    /// The owner of an unowned download `guid` among `sessions` (`(session, context)`): the session
    /// whose directory holds its file; it begins there.
    fn adopt(&self, guid: &str, sessions: &[(String, String)]) {
        let Some(began) = self.unowned.lock().unwrap().get(guid).cloned() else { return };
        let owner = sessions.iter().find(|(session, _)| {
            self.dir(session)
                .is_ok_and(|dir| dir.join(guid).exists() || dir.join(format!("{guid}.crdownload")).exists())
        });
        if let Some((session, context)) = owner {
            self.unowned.lock().unwrap().remove(guid);
            self.began(session, context, began);
        }
    }

    /// A download moved on (`Browser.downloadProgress`): past `max_bytes` it is cancelled
    /// (`Browser.cancelDownload`); once it ends (Chromium says `completed` or `canceled`), what is left of
    /// a cancelled one is removed (the file, and the `.crdownload` it is written to meanwhile) and its
    /// session hears of it. The cancel is sent in a task of its own: the events that follow are not
    /// held up for its answer. `sessions` (`(session, context)`, asked only for a download not yet
    /// owned) are the sessions that may own it.
    pub fn progressed(
        &self,
        link: &Link,
        progress: &DownloadProgress,
        sessions: impl FnOnce() -> Vec<(String, String)>,
    ) {
        let guid = progress.guid.as_str();
        if !self.flying.lock().unwrap().contains_key(guid) && self.unowned.lock().unwrap().contains_key(guid)
        {
            self.adopt(guid, &sessions());
        }
        let state = progress.state.as_str();
        if matches!(state, "completed" | "canceled") {
            self.unowned.lock().unwrap().remove(guid);
        }
        let received = progress.received_bytes.max(0.0) as u64;
        let over = received > self.config.max_bytes;
        if state == "inProgress" {
            let cancel = {
                let mut flying = self.flying.lock().unwrap();
                let Some(entry) = flying.get_mut(guid).filter(|e| over && !e.too_large) else { return };
                entry.too_large = true;
                entry.info.bytes = received;
                tracing::warn!(browser.session_id = %entry.session, url = %entry.info.url, bytes = received, max_bytes = self.config.max_bytes, "download_too_large");
                BrowserCancelDownload {
                    guid: guid.to_string(),
                    browser_context_id: Some(entry.context.clone()),
                }
            };
            let client = link.client.clone();
            tokio::spawn(async move {
                let _ = client.run(&cancel, CALL).await;
            });
            return;
        }
        let Some(mut entry) = self.flying.lock().unwrap().remove(guid) else { return };
        // A session is only given a directory (`allow`) when its id is a plain name.
        let Ok(dir) = self.dir(&entry.session) else { return };
        let (file, partial) = (dir.join(guid), dir.join(format!("{guid}.crdownload")));
        entry.info.bytes = entry.info.bytes.max(received);
        if state == "completed" && !entry.too_large && !over {
            entry.info.state = "completed".into();
            // Named as the page or server suggested, made safe and unique (Playwright's
            // `download.suggestedFilename()`, as its `saveAs` is usually given); the guid's name
            // where that cannot be done.
            let saved = match named(&dir, &file, &entry.info.suggested_filename) {
                Ok(path) => path,
                Err(e) => {
                    tracing::warn!(browser.session_id = %entry.session, error.message = %e, "download_not_renamed");
                    file
                }
            };
            entry.info.path = Some(saved.display().to_string());
        } else {
            // Cancelled (by the page, or by us at max_bytes), or done past the bound before the
            // cancel took: nothing of it stays. Chromium may still be renaming the file it wrote when
            // it reports the end (seen under load: `<guid>` appeared after the `canceled` event), so
            // the names are removed now and once more a moment later.
            let remove = move || {
                let _ = std::fs::remove_file(&file);
                let _ = std::fs::remove_file(&partial);
            };
            remove();
            tokio::spawn(async move {
                tokio::time::sleep(LATE_SWEEP).await;
                remove();
            });
            entry.info.state = if entry.too_large || over { "too_large" } else { "canceled" }.into();
        }
        self.ended_at.lock().unwrap().insert(guid.to_string(), std::time::Instant::now());
        self.record(&entry.session, guid, &entry.info);
        self.tell(&entry.session, guid, entry.info);
    }

    /// Keeps `info` as the latest state of `session`'s download `guid`.
    fn record(&self, session: &str, guid: &str, info: &DownloadInfo) {
        let mut all = self.all.lock().unwrap();
        let list = all.entry(session.to_string()).or_default();
        match list.iter_mut().find(|(g, _)| g == guid) {
            Some((_, kept)) => *kept = info.clone(),
            None => list.push((guid.to_string(), info.clone())),
        }
    }

    /// Every download of `session` so far, oldest first, each in its latest state (`page.downloads`).
    pub fn list(&self, session: &str) -> Vec<DownloadInfo> {
        let all = self.all.lock().unwrap();
        all.get(session).map(|l| l.iter().map(|(_, i)| i.clone()).collect()).unwrap_or_default()
    }

    /// Keeps `info` for `session`'s next result: one entry a download, in its latest state (a
    /// download that started and ended within one action is listed once, ended).
    fn tell(&self, session: &str, guid: &str, info: DownloadInfo) {
        {
            let mut news = self.news.lock().unwrap();
            let list = news.entry(session.to_string()).or_default();
            match list.iter_mut().find(|(g, _)| g == guid) {
                Some((_, told)) => *told = info,
                None => list.push((guid.to_string(), info)),
            }
        }
        self.changed.notify_waiters();
    }

    /// The first download of `session` that ended at or after `since` and is not in `skip`, with its
    /// `guid`.
    pub fn ended_since(
        &self,
        session: &str,
        since: std::time::Instant,
        skip: &std::collections::HashSet<String>,
    ) -> Option<(String, DownloadInfo)> {
        let ended_at = self.ended_at.lock().unwrap();
        let all = self.all.lock().unwrap();
        all.get(session)?
            .iter()
            .find(|(guid, _)| !skip.contains(guid) && ended_at.get(guid).is_some_and(|t| *t >= since))
            .cloned()
    }

    /// Whether `session`'s next result has a download to report.
    pub fn has_news(&self, session: &str) -> bool {
        self.news.lock().unwrap().get(session).is_some_and(|n| !n.is_empty())
    }

    /// What `session` has not been told yet (its next result's `downloads`): each download once, in
    /// its latest state.
    pub fn take(&self, session: &str) -> Vec<DownloadInfo> {
        let news = self.news.lock().unwrap().remove(session).unwrap_or_default();
        news.into_iter().map(|(_, info)| info).collect()
    }

    /// `session` closed: its directory goes (unless `keep`), and what it was not told.
    pub fn closed(&self, session: &str) {
        self.news.lock().unwrap().remove(session);
        if let Some(list) = self.all.lock().unwrap().remove(session) {
            let mut ended_at = self.ended_at.lock().unwrap();
            for (guid, _) in list {
                ended_at.remove(&guid);
            }
        }
        self.flying.lock().unwrap().retain(|_, e| e.session != session);
        if !self.config.keep {
            if let Ok(dir) = self.dir(session) {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
}

/// A file name from one a page or server suggested: its last path component, without control
/// characters, leading dots or surrounding spaces, at most 200 bytes (the extension kept), `download`
/// when nothing is left; one that could be taken for a download in flight (a guid, `.crdownload`) is
/// prefixed with `download `.
fn safe_name(suggested: &str) -> String {
    let base = suggested.rsplit(['/', '\\']).next().unwrap_or_default();
    let clean: String = base.chars().filter(|c| !c.is_control()).collect();
    let mut name = clean.trim().trim_start_matches('.').trim().to_string();
    if name.is_empty() {
        name = "download".into();
    }
    let in_flight = name.ends_with(".crdownload")
        || (name.len() == 36 && name.chars().all(|c| c.is_ascii_hexdigit() || c == '-'));
    if in_flight {
        name = format!("download {name}");
    }
    const MAX: usize = 200;
    if name.len() > MAX {
        let ext =
            name.rfind('.').map(|at| name[at..].to_string()).filter(|e| e.len() <= 16).unwrap_or_default();
        let mut cut = MAX - ext.len();
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        name = format!("{}{ext}", &name[..cut]);
    }
    name
}

/// Moves the completed download `file` in `dir` to [`safe_name`] of `suggested`, or `stem (n).ext`
/// when that name is taken (a hard link, which never replaces a file, then the guid's name removed).
///
/// # Errors
/// The link or the removal's failure; a name [`crate::files::under`] refuses.
fn named(dir: &Path, file: &Path, suggested: &str) -> std::io::Result<PathBuf> {
    let name = safe_name(suggested);
    let (stem, ext) = match name.rfind('.').filter(|&at| at > 0) {
        Some(at) => (&name[..at], &name[at..]),
        None => (name.as_str(), ""),
    };
    for n in 0..1_000 {
        let candidate = if n == 0 { name.clone() } else { format!("{stem} ({n}){ext}") };
        let path = crate::files::under(dir, &candidate)?;
        match std::fs::hard_link(file, &path) {
            Ok(()) => {
                std::fs::remove_file(file)?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(format!("no free name for {name:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suggested_name_is_made_one_safe_plain_name() {
        assert_eq!(safe_name("report.csv"), "report.csv");
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name("a\\b\\c.txt"), "c.txt");
        assert_eq!(safe_name(".bashrc"), "bashrc");
        assert_eq!(safe_name("  \n"), "download");
        assert_eq!(safe_name(".."), "download");
        assert_eq!(safe_name("x.crdownload"), "download x.crdownload");
        assert_eq!(
            safe_name("0123abcd-0123-abcd-0123-0123456789ab"),
            "download 0123abcd-0123-abcd-0123-0123456789ab"
        );
        let long = format!("{}.pdf", "é".repeat(300));
        let cut = safe_name(&long);
        assert!(cut.len() <= 200 && cut.ends_with(".pdf"), "{cut}");
    }

    #[test]
    fn a_taken_name_gets_a_number_and_nothing_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let mut saved = Vec::new();
        for (guid, body) in [("g1", "one"), ("g2", "two"), ("g3", "three")] {
            let file = dir.path().join(guid);
            std::fs::write(&file, body).unwrap();
            saved.push(named(dir.path(), &file, "report.csv").unwrap());
            assert!(!file.exists());
        }
        let names: Vec<_> =
            saved.iter().map(|p| p.file_name().unwrap().to_str().unwrap().to_string()).collect();
        assert_eq!(names, ["report.csv", "report (1).csv", "report (2).csv"]);
        assert_eq!(std::fs::read_to_string(&saved[0]).unwrap(), "one");
    }
}
