//! The configuration file (TOML): `--config PATH`, or `SANDBOX_BROWSER_CONFIG`.
//!
//! Every key has a default, so an empty file (or none) is a valid configuration. An unknown key or a
//! bad value is an error that names the key and the file. Command-line flags override the file.
//! docs/configuration.md lists every key.
//!
//! ```
//! let c = sb_supervisor::front::config::Config::parse("[timeouts]\ngoto_ms = 30000\n", "x.toml").unwrap();
//! assert_eq!(c.timeouts.goto_ms, 30_000);
//! assert!(c.evaluate_enabled);
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::pipeline::timeouts::Timeouts;

/// The whole file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// `[browser]`: which Chromium, how it runs, its viewport.
    pub browser: BrowserSection,
    /// `[timeouts]`: default budgets and their clamp.
    pub timeouts: Timeouts,
    /// When false, `page.evaluate` answers `evaluate_disabled`.
    pub evaluate_enabled: bool,
    /// `[paths]`: the socket, the runtime directory, the artifacts.
    pub paths: Paths,
    /// `[limits]`: sessions, connections, request sizes.
    pub limits: Limits,
    /// `[policy]`: which URLs load (see [`crate::gate::policy`]).
    pub policy: crate::gate::policy::Policy,
    /// `[downloads]`: where pages' downloads go and how large they may be (see [`crate::sessions::downloads`]).
    pub downloads: crate::sessions::downloads::DownloadsConfig,
    /// `[artifacts]`: how long screenshots are kept and how much they may hold (see
    /// [`crate::features::artifacts`]).
    pub artifacts: crate::features::artifacts::Retention,
    /// `[files]`: where `page.upload` takes files from.
    pub files: FilesSection,
    /// `[view]`: the live view (off unless `listen` is set; see [`crate::front::view`]).
    pub view: ViewConfig,
    /// `[trace]`: traces of sessions' actions (see [`crate::features::trace`]).
    pub trace: crate::features::trace::TraceConfig,
}

/// `[files]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FilesSection {
    /// The directory `page.upload` takes files from, by plain name (no subdirectories, no symlinks);
    /// unset: uploads are off.
    pub uploads_dir: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            browser: BrowserSection::default(),
            timeouts: Timeouts::default(),
            evaluate_enabled: true,
            paths: Paths::default(),
            limits: Limits::default(),
            policy: crate::gate::policy::Policy::default(),
            downloads: crate::sessions::downloads::DownloadsConfig::default(),
            artifacts: crate::features::artifacts::Retention::default(),
            files: FilesSection::default(),
            view: ViewConfig::default(),
            trace: crate::features::trace::TraceConfig::default(),
        }
    }
}

/// `[browser]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BrowserSection {
    /// The browser binary [default: Debian's chromium-headless-shell where installed (headless),
    /// else /usr/lib/chromium/chromium, else chromium on PATH].
    pub path: Option<PathBuf>,
    /// Flags appended to the launch flags.
    pub extra_flags: Vec<String>,
    /// Run headless (a display is needed otherwise).
    pub headless: bool,
    /// Pass `--no-sandbox` (always done as root).
    pub no_sandbox: bool,
    /// The largest JavaScript heap a renderer may grow, MiB (V8's `--max-old-space-size`); a page
    /// past it ends its renderer (the session answers `page_reset`). 0: V8's own limit.
    pub js_heap_mb: u32,
    /// `[browser.viewport]`: every session's viewport unless it asks for its own.
    pub viewport: Viewport,
    /// `[browser.sandbox]`: the seccomp filter of the processes the runtime starts.
    pub sandbox: SandboxSection,
    /// A browser elsewhere to attach to instead of launching one (a browser pool):
    /// `http(s)://user:pass@host:port/?token=...` (DevTools discovery) or `ws(s)://...`. Its
    /// credentials never reach a log line.
    pub cdp_url: Option<String>,
    /// A PEM file of CA certificates trusted for `cdp_url` besides the system's.
    pub ca_file: Option<PathBuf>,
    /// Headers sent to `cdp_url` (a token gateway's `Authorization`), by name.
    pub cdp_headers: std::collections::BTreeMap<String, String>,
    /// With `cdp_url`: let the remote browser's pages open WebSockets. Off by default: the connection
    /// gate cannot front a browser elsewhere and its request interception never sees a WebSocket's
    /// handshake, so they are refused (every session's browser context sends them to a proxy that
    /// does not exist); on, they reach whatever the remote browser's network reaches, unchecked.
    pub remote_websockets: bool,
}

impl BrowserSection {
    /// How `serve` (and the doctor) start this browser, with profiles under `runtime_dir`.
    pub fn browser_config(&self, runtime_dir: PathBuf) -> crate::lifecycle::browser::BrowserConfig {
        crate::lifecycle::browser::BrowserConfig {
            path: self.path.clone(),
            no_sandbox: self.no_sandbox,
            runtime_dir,
            window: (self.viewport.width, self.viewport.height),
            js_heap_mb: self.js_heap_mb,
            extra_flags: self.extra_flags.clone(),
            headless: self.headless,
            remote: self.remote(),
            max_message_bytes: sb_cdp::MAX_MESSAGE_BYTES,
        }
    }

    /// The browser elsewhere to attach to (`cdp_url`, `ca_file`, `cdp_headers`), if one is configured.
    pub fn remote(&self) -> Option<crate::lifecycle::browser::RemoteEndpoint> {
        self.cdp_url.clone().map(|url| crate::lifecycle::browser::RemoteEndpoint {
            url,
            remote: sb_cdp::Remote {
                ca_file: self.ca_file.clone(),
                headers: self.cdp_headers.clone().into_iter().collect(),
            },
            websockets: self.remote_websockets,
        })
    }
}

impl Default for BrowserSection {
    fn default() -> Self {
        BrowserSection {
            path: None,
            extra_flags: Vec::new(),
            headless: true,
            no_sandbox: false,
            js_heap_mb: 1024,
            viewport: Viewport::default(),
            sandbox: SandboxSection::default(),
            cdp_url: None,
            ca_file: None,
            cdp_headers: Default::default(),
            remote_websockets: false,
        }
    }
}

/// `[browser.viewport]`, CSS px.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Viewport {
    /// Width, CSS px.
    pub width: u32,
    /// Height, CSS px.
    pub height: u32,
}

impl Default for Viewport {
    fn default() -> Self {
        Viewport { width: 1280, height: 800 }
    }
}

/// `[browser.sandbox]`: the runtime's health and recovery policy.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SandboxSection {
    /// Fail start-up when the browser cannot be started (else serve and answer `browser_unavailable`).
    pub runtime_required: bool,
    /// Start the browser at start-up rather than at the first request.
    pub runtime_warmup_on_start: bool,
    /// Skip the health probes while one passed this recently, in seconds.
    pub runtime_healthcheck_interval_seconds: u64,
    /// Browser restarts per recovery cycle.
    pub runtime_restart_attempts: u32,
    /// After a recovery cycle failed, seconds during which every request answers
    /// `browser_unavailable` before a new cycle may start.
    pub runtime_recovery_cooldown_seconds: u64,
}

impl Default for SandboxSection {
    fn default() -> Self {
        SandboxSection {
            runtime_required: true,
            runtime_warmup_on_start: true,
            runtime_healthcheck_interval_seconds: 1,
            runtime_restart_attempts: 1,
            runtime_recovery_cooldown_seconds: 30,
        }
    }
}

/// `[paths]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Paths {
    /// The Unix socket (`--socket`).
    pub socket: Option<PathBuf>,
    /// The runtime directory: session store, profile, worker sockets (`--runtime-dir`).
    pub runtime_dir: Option<PathBuf>,
    /// Screenshots and downloads (`--artifacts`).
    pub artifacts: Option<PathBuf>,
}

/// `[limits]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Open sessions at once; one more `session.start` answers `too_many_sessions`.
    pub max_sessions: usize,
    /// Longest request line, bytes.
    pub max_request_bytes: usize,
    /// Open socket connections at once; one more is answered `too_many_connections` and closed.
    pub max_connections: usize,
    /// How long a connection may hold part of a request line without sending more, ms; then it is
    /// closed.
    pub partial_line_timeout_ms: u64,
    /// How long a connection may stay idle (nothing in flight, nothing sent), ms; then it is closed.
    /// 0: never.
    pub idle_timeout_ms: u64,
    /// At `max_connections`, a new connection closes the one idle longest when that one has been idle
    /// at least this long, ms (0: any idle one).
    pub evict_idle_after_ms: u64,
    /// Sessions belong to the token they were started with (`session.start`'s `session_token`): a
    /// call on a session must carry its token (a wrong or missing one answers `unknown_session`, as an
    /// unknown id does), and `session.list` shows only the caller's. For one runtime serving several
    /// agents. Off by default.
    pub session_tokens: bool,
    /// How long a session may go without a request (none in progress, no person holding it in the
    /// live view) before it is closed, ms: its tabs and browser context go, and a later call on it
    /// answers `unknown_session` saying so. A crashed agent's sessions would otherwise hold their
    /// pages, and their places under `max_sessions`, for good (and across restarts: the store keeps
    /// them). 0: never; else at least 1000.
    pub session_idle_timeout_ms: u64,
    /// Each session's login (cookies, local storage) is kept in the runtime dir as actions change it
    /// and put back after a browser or supervisor restart (`crate::sessions::kept`). `false`: nothing of it is
    /// written to disk, and a restart loses it.
    pub keep_logins: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_sessions: 32,
            max_request_bytes: sb_protocol::api::DEFAULT_MAX_REQUEST_BYTES,
            max_connections: 64,
            partial_line_timeout_ms: 10_000,
            idle_timeout_ms: 600_000,
            evict_idle_after_ms: 5_000,
            session_tokens: false,
            session_idle_timeout_ms: 3_600_000,
            keep_logins: true,
        }
    }
}

/// A configuration error: one line naming the file, the place and the key.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl Config {
    /// Reads and checks `path`.
    ///
    /// # Errors
    /// [`ConfigError`] when the file cannot be read, is not TOML, has an unknown key or a bad value.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError(format!("cannot read config {}: {e}", path.display())))?;
        Config::parse(&text, &path.display().to_string())
    }

    /// Parses and checks `text`; `file` names it in errors.
    ///
    /// # Errors
    /// As [`Config::load`].
    pub fn parse(text: &str, file: &str) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let at = line.map(|l| format!(" line {l}")).unwrap_or_default();
            let message = e.message().lines().next().unwrap_or_default().to_string();
            ConfigError(format!("config {file}{at}: {message}"))
        })?;
        config.check(file)?;
        Ok(config)
    }

    fn check(&self, file: &str) -> Result<(), ConfigError> {
        let bad = |key: &str, why: &str| Err(ConfigError(format!("config {file}: {key} {why}")));
        let t = &self.timeouts;
        if t.min_ms == 0 {
            return bad("timeouts.min_ms", "must be at least 1");
        }
        if t.min_ms > t.max_ms {
            return bad("timeouts.min_ms", "must not be above timeouts.max_ms");
        }
        for (key, v) in [
            ("timeouts.default_ms", t.default_ms),
            ("timeouts.goto_ms", t.goto_ms),
            ("timeouts.wait_for_ms", t.wait_for_ms),
        ] {
            if v < t.min_ms || v > t.max_ms {
                return bad(
                    key,
                    &format!(
                        "must be within timeouts.min_ms..=timeouts.max_ms ({}..={})",
                        t.min_ms, t.max_ms
                    ),
                );
            }
        }
        if self.browser.viewport.width == 0 || self.browser.viewport.height == 0 {
            return bad("browser.viewport", "width and height must be above 0");
        }
        if self.limits.max_sessions == 0 {
            return bad("limits.max_sessions", "must be at least 1");
        }
        if self.limits.max_connections == 0 {
            return bad("limits.max_connections", "must be at least 1");
        }
        if self.limits.partial_line_timeout_ms == 0 {
            return bad("limits.partial_line_timeout_ms", "must be at least 1");
        }
        if (1..1_000).contains(&self.limits.session_idle_timeout_ms) {
            return bad("limits.session_idle_timeout_ms", "must be 0 (never) or at least 1000");
        }
        if self.limits.max_request_bytes < 1024 {
            return bad("limits.max_request_bytes", "must be at least 1024");
        }
        if let Err(why) = self.policy.check() {
            return Err(ConfigError(format!("config {file}: {why}")));
        }
        if let Err(why) = self.view.check() {
            return bad("view.listen", &why);
        }
        if self.browser.sandbox.runtime_restart_attempts > 10 {
            return bad("browser.sandbox.runtime_restart_attempts", "must be at most 10");
        }
        Ok(())
    }
}

/// `[view]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ViewConfig {
    /// `host:port` to serve the view on (`127.0.0.1:9300`; port 0 picks one); unset: off.
    pub listen: Option<String>,
    /// Whether a person on the view page may take a session over (their clicks, wheel and keys go to
    /// the page; the agent's actions wait).
    pub takeover: bool,
}

impl ViewConfig {
    /// Checks `listen`.
    ///
    /// # Errors
    /// Why `listen` is not an `ip:port` address.
    pub fn check(&self) -> Result<(), String> {
        match &self.listen {
            Some(addr) => addr
                .parse::<std::net::SocketAddr>()
                .map(|_| ())
                .map_err(|e| format!("must be an ip:port address such as 127.0.0.1:9300 ({e})")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sb_protocol::api::Method;

    #[test]
    fn an_empty_file_is_the_defaults() {
        let c = Config::parse("", "empty.toml").unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(
            (c.timeouts.default_ms, c.timeouts.goto_ms, c.timeouts.wait_for_ms),
            (8_000, 15_000, 20_000)
        );
        assert!(c.evaluate_enabled && c.browser.headless && c.browser.sandbox.runtime_warmup_on_start);
        assert_eq!(c.browser.sandbox.runtime_restart_attempts, 1);
        assert_eq!(c.limits.max_request_bytes, 1024 * 1024);
    }

    #[test]
    fn every_section_can_be_overridden() {
        let c = Config::parse(
            r#"
evaluate_enabled = false
[browser]
path = "/opt/chromium"
extra_flags = ["--lang=de"]
no_sandbox = true
[browser.viewport]
width = 800
height = 600
[browser.sandbox]
runtime_required = false
runtime_warmup_on_start = false
runtime_healthcheck_interval_seconds = 5
runtime_restart_attempts = 2
[timeouts]
default_ms = 5000
goto_ms = 30000
wait_for_ms = 25000
min_ms = 500
max_ms = 60000
[paths]
socket = "/run/sb/browser.sock"
runtime_dir = "/run/sb"
artifacts = "/data/shots"
[limits]
max_sessions = 4
max_request_bytes = 65536
"#,
            "full.toml",
        )
        .unwrap();
        assert!(!c.evaluate_enabled);
        assert_eq!(c.browser.path.as_deref(), Some(Path::new("/opt/chromium")));
        assert_eq!(c.browser.extra_flags, vec!["--lang=de"]);
        assert_eq!(c.browser.viewport, Viewport { width: 800, height: 600 });
        assert_eq!(c.browser.sandbox.runtime_restart_attempts, 2);
        assert!(!c.browser.sandbox.runtime_required);
        assert_eq!(c.timeouts.for_method(Method::PageGoto), 30_000);
        assert_eq!(c.timeouts.for_method(Method::PageClick), 5_000);
        assert_eq!(c.timeouts.budget_ms(Method::PageClick, Some(100)), 500, "clamped to min_ms");
        assert_eq!(c.timeouts.budget_ms(Method::PageClick, Some(999_999)), 60_000, "clamped to max_ms");
        assert_eq!(c.paths.artifacts.as_deref(), Some(Path::new("/data/shots")));
        assert_eq!(c.limits, Limits { max_sessions: 4, max_request_bytes: 65_536, ..Limits::default() });
    }

    #[test]
    fn an_unknown_key_names_the_key_and_the_file() {
        let e = Config::parse("[timeouts]\ngoto_ms = 1000\nnavigate_ms = 5\n", "/etc/sb.toml").unwrap_err().0;
        assert!(e.starts_with("config /etc/sb.toml line 3:"), "{e}");
        assert!(e.contains("navigate_ms"), "{e}");
        let e = Config::parse("evaluate = true\n", "a.toml").unwrap_err().0;
        assert!(e.contains("evaluate") && e.contains("a.toml"), "{e}");
    }

    #[test]
    fn a_bad_value_names_the_key_and_the_file() {
        let e = Config::parse("[limits]\nmax_sessions = \"many\"\n", "b.toml").unwrap_err().0;
        assert!(e.starts_with("config b.toml line 2:"), "{e}");
        let e = Config::parse("[timeouts]\ngoto_ms = 200000\n", "c.toml").unwrap_err().0;
        assert_eq!(e, "config c.toml: timeouts.goto_ms must be within timeouts.min_ms..=timeouts.max_ms (1000..=120000)");
        let e = Config::parse("[browser.viewport]\nwidth = 0\n", "d.toml").unwrap_err().0;
        assert!(e.contains("browser.viewport"), "{e}");
        let e = Config::parse("[limits]\nsession_idle_timeout_ms = 500\n", "e.toml").unwrap_err().0;
        assert_eq!(e, "config e.toml: limits.session_idle_timeout_ms must be 0 (never) or at least 1000");
        let never = Config::parse("[limits]\nsession_idle_timeout_ms = 0\n", "f.toml").unwrap();
        assert_eq!(never.limits.session_idle_timeout_ms, 0);
    }
}
