//! Chromium's lifecycle: find the binary, launch it in its own process group, wait for both probes,
//! and stop it (SIGTERM to the group, SIGKILL after a grace period).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use sb_cdp::types::BrowserVersion;
use sb_cdp::{discovery, CdpClient, CdpError};
use sb_protocol::Phase;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::Notify;

use crate::reaper;
use crate::spawner::Spawner;

/// Debian's real browser binary (`/usr/bin/chromium` is a wrapper script that adds flags).
pub const DEBIAN_CHROMIUM: &str = "/usr/lib/chromium/chromium";
/// Timeout of the HTTP readiness probe (`GET /json/version`).
pub const HTTP_PROBE_TIMEOUT: Duration = Duration::from_millis(500);
/// Timeout of the CDP handshake probe (connect + `Browser.getVersion`).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_millis(800);
/// Longest a launch may take until `DevToolsActivePort` appears.
pub const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);
/// Time between SIGTERM and SIGKILL of the browser's process group.
pub const KILL_GRACE: Duration = Duration::from_millis(2_500);
/// How long a failed launch waits for Chromium's stderr to be read to its end.
const STDERR_DRAIN: Duration = Duration::from_millis(500);
/// How much of Chromium's stderr is kept for error reports, in chars.
const STDERR_KEEP: usize = 2_000;

/// How to launch the browser.
#[derive(Debug, Clone)]
pub struct BrowserConfig {
    /// Configured binary; else [`DEBIAN_CHROMIUM`], else `chromium` on `PATH`.
    pub path: Option<PathBuf>,
    /// Add `--no-sandbox` (always added when running as root).
    pub no_sandbox: bool,
    /// Where the fresh user-data-dir is created.
    pub runtime_dir: PathBuf,
    /// Viewport (and window) size in CSS px.
    pub window: (u32, u32),
    /// Further flags, appended last.
    pub extra_flags: Vec<String>,
    /// `--headless` (a display is needed otherwise).
    pub headless: bool,
}

/// A launch or probe failure, with the phase that failed and Chromium's last stderr lines.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct LaunchError {
    pub phase: Phase,
    pub message: String,
    /// The end of Chromium's stderr (at most 2000 chars), for logs, not for models.
    pub stderr_tail: String,
}

/// Finds the browser binary: `configured`, else [`DEBIAN_CHROMIUM`], else `chromium` /
/// `chromium-browser` on `PATH`.
///
/// # Errors
/// A one-line message naming what was tried and how to fix it.
pub fn find_binary(configured: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = configured {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(format!("configured browser {} does not exist", p.display()))
        };
    }
    if Path::new(DEBIAN_CHROMIUM).is_file() {
        return Ok(DEBIAN_CHROMIUM.into());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(format!(
        "no browser found ({DEBIAN_CHROMIUM} or chromium on PATH); install it: apt-get install chromium"
    ))
}

/// The command-line flags of a launch (without the binary).
pub fn flags(config: &BrowserConfig, user_data_dir: &Path) -> Vec<String> {
    let mut f: Vec<String> = [
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-breakpad",
        // Every session's page stays live whatever window has focus: no throttled timers, no
        // backgrounded renderer (input to it would stall), as Playwright launches Chromium.
        "--disable-background-timer-throttling",
        "--disable-backgrounding-occluded-windows",
        "--disable-renderer-backgrounding",
        // As Playwright launches Chromium (`chromiumSwitches.ts`): `window.open` from a page's own code
        // (a load handler, a timer) opens a tab, which joins the session, instead of being blocked.
        "--disable-popup-blocking",
        "--password-store=basic",
        "--use-mock-keychain",
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    if config.headless {
        f.insert(0, "--headless".into());
        // As Playwright runs headless Chromium: no scrollbars, so they neither show in screenshots nor
        // take 15 px of layout width.
        f.insert(1, "--hide-scrollbars".into());
    }
    f.push(format!("--user-data-dir={}", user_data_dir.display()));
    f.push(format!("--window-size={},{}", config.window.0, config.window.1));
    if config.no_sandbox || nix::unistd::geteuid().is_root() {
        f.push("--no-sandbox".into());
    }
    f.extend(config.extra_flags.iter().cloned());
    f.push("about:blank".into());
    f
}

/// The browser process: its group, its stderr tail, its user-data-dir.
pub struct BrowserProcess {
    child: Child,
    pid: u32,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// The task that reads stderr; it ends at EOF (every process holding the pipe has exited).
    stderr_reader: Option<tokio::task::JoinHandle<()>>,
    user_data_dir: Option<tempfile::TempDir>,
}

impl BrowserProcess {
    /// The browser's pid (also its process group id).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Whether the browser process is running: not exited, not a zombie, not stopped (SIGSTOP), from
    /// `/proc/<pid>/stat`.
    pub fn running(&self) -> bool {
        match std::fs::read_to_string(format!("/proc/{}/stat", self.pid)) {
            Ok(stat) => stat
                .rfind(')')
                .and_then(|i| stat.get(i + 2..)?.chars().next())
                .is_some_and(|s| !matches!(s, 'Z' | 'X' | 'T' | 't')),
            Err(_) => false,
        }
    }

    /// The last lines Chromium wrote to stderr (at most 2000 chars).
    pub fn stderr_tail(&self) -> String {
        self.stderr_tail.lock().unwrap().iter().cloned().collect::<Vec<_>>().join("\n")
    }

    /// SIGTERM to the browser's process group, SIGKILL after [`KILL_GRACE`], reap, remove the
    /// user-data-dir.
    pub async fn stop(&mut self) {
        let pgid = Pid::from_raw(self.pid as i32);
        let _ = killpg(pgid, Signal::SIGTERM);
        if tokio::time::timeout(KILL_GRACE, self.child.wait()).await.is_err() {
            let _ = killpg(pgid, Signal::SIGKILL);
            let _ = self.child.wait().await;
        }
        // Helpers that outlived the main process in the same group.
        let _ = killpg(pgid, Signal::SIGKILL);
        reaper::unmanage(self.pid);
        if let Some(dir) = self.user_data_dir.take() {
            let _ = dir.close();
        }
    }

    /// SIGKILL to the browser's process group at once (a frozen browser would not act on SIGTERM), reap
    /// it, end helpers that escaped the group (they name its profile dir), remove the profile dir.
    pub async fn kill(&mut self) {
        let pgid = Pid::from_raw(self.pid as i32);
        let _ = killpg(pgid, Signal::SIGKILL);
        let _ = tokio::time::timeout(KILL_GRACE, self.child.wait()).await;
        reaper::unmanage(self.pid);
        if let Some(dir) = self.user_data_dir.take() {
            let path = dir.path().to_path_buf();
            let _ = tokio::task::spawn_blocking(move || {
                reaper::end_naming(&path);
                drop(dir);
            })
            .await;
        }
    }

    /// Waits for `DevToolsActivePort` and returns the port. Chromium writes the file when it starts
    /// listening and prints `DevTools listening on ws://...` to stderr at the same moment; that line
    /// (`listening`) wakes the wait, and a 50 ms tick covers a build that does not print it.
    /// The second line of the file is the browser target's WebSocket path.
    async fn devtools_port(&mut self, listening: &Notify) -> Result<(u16, String), (Phase, String)> {
        let udd = self.user_data_dir.as_ref().map(|d| d.path().to_path_buf()).unwrap_or_default();
        let port_file = udd.join("DevToolsActivePort");
        let deadline = Instant::now() + LAUNCH_TIMEOUT;
        loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                let mut lines = text.lines();
                let port = lines.next().and_then(|l| l.trim().parse::<u16>().ok());
                let path = lines.next().map(str::trim).filter(|p| p.starts_with("/devtools/"));
                if let (Some(port), Some(path)) = (port, path) {
                    return Ok((port, path.to_string()));
                }
            }
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    return Err((Phase::Launch, format!("browser exited during launch ({status})")))
                }
                // No child to wait for: it exited and was reaped (it is not running, at any rate).
                Err(e) => return Err((Phase::Launch, format!("browser exited during launch ({e})"))),
                Ok(None) => {}
            }
            if Instant::now() >= deadline {
                return Err((
                    Phase::Launch,
                    format!("no DevToolsActivePort within {} s", LAUNCH_TIMEOUT.as_secs()),
                ));
            }
            tokio::select! {
                _ = listening.notified() => {}
                _ = tokio::time::sleep(Duration::from_millis(50)) => {}
            }
        }
    }
}

/// A running browser that passed both probes.
pub struct Browser {
    /// The process.
    pub process: BrowserProcess,
    /// Loopback port of the DevTools endpoint.
    pub port: u16,
    /// `http://127.0.0.1:<port>/`.
    pub endpoint: url::Url,
    /// The browser-level CDP WebSocket URL.
    pub ws_url: String,
    /// The supervisor's own browser-level connection (targets are created and closed on it).
    pub client: CdpClient,
    /// `Browser.getVersion` of the handshake probe.
    pub version: BrowserVersion,
    /// When the launch began.
    pub started: Instant,
    /// How long launch + both probes took.
    pub ready_after: Duration,
    /// Where that time went.
    pub timings: LaunchTimings,
}

/// The steps of a launch, each in ms since the launch began.
#[derive(Debug, Clone, Copy, Default)]
pub struct LaunchTimings {
    /// `DevToolsActivePort` read.
    pub port_ms: u64,
    /// HTTP probe (`GET /json/version`) passed.
    pub http_probe_ms: u64,
    /// CDP handshake (`Browser.getVersion`) passed.
    pub handshake_ms: u64,
}

impl Browser {
    /// Launches the browser and waits until both probes pass.
    ///
    /// # Errors
    /// [`LaunchError`] with phase `launch` (binary missing, exited early, no `DevToolsActivePort`),
    /// `http_probe` or `handshake`; the process is stopped first.
    pub async fn launch(config: &BrowserConfig, spawner: &Spawner) -> Result<Browser, LaunchError> {
        let started = Instant::now();
        let fail = |phase, message: String| LaunchError { phase, message, stderr_tail: String::new() };
        let binary = find_binary(config.path.as_deref()).map_err(|m| fail(Phase::Launch, m))?;
        std::fs::create_dir_all(&config.runtime_dir).map_err(|e| {
            fail(Phase::Launch, format!("cannot create {}: {e}", config.runtime_dir.display()))
        })?;
        let udd = tempfile::Builder::new()
            .prefix(reaper::PROFILE_PREFIX)
            .tempdir_in(&config.runtime_dir)
            .map_err(|e| fail(Phase::Launch, format!("cannot create a user-data-dir: {e}")))?;
        let mut cmd = Command::new(&binary);
        cmd.args(flags(config, udd.path())).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = spawner
            .spawn(cmd, || Ok(()))
            .await
            .map_err(|e| fail(Phase::Launch, format!("cannot start {}: {e}", binary.display())))?;
        let pid = child.id().unwrap_or(0);

        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let listening = Arc::new(Notify::new());
        let mut stderr_reader = None;
        if let Some(stderr) = child.stderr.take() {
            let tail = stderr_tail.clone();
            let listening = listening.clone();
            stderr_reader = Some(tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    if line.starts_with("DevTools listening on ") {
                        listening.notify_one();
                    }
                    let mut t = tail.lock().unwrap();
                    t.push_back(line);
                    while t.iter().map(String::len).sum::<usize>() > STDERR_KEEP && t.len() > 1 {
                        t.pop_front();
                    }
                }
            }));
        }
        let mut process = BrowserProcess { child, pid, stderr_tail, stderr_reader, user_data_dir: Some(udd) };
        match probe_new(&mut process, &listening, started).await {
            Ok((port, endpoint, ws_url, client, version, timings)) => Ok(Browser {
                process,
                port,
                endpoint,
                ws_url,
                client,
                version,
                started,
                ready_after: started.elapsed(),
                timings,
            }),
            Err((phase, message)) => {
                process.stop().await;
                // Stopped: the pipe reaches EOF soon, and the tail then holds the last words.
                if let Some(reader) = process.stderr_reader.take() {
                    let _ = tokio::time::timeout(STDERR_DRAIN, reader).await;
                }
                Err(LaunchError { phase, message, stderr_tail: process.stderr_tail() })
            }
        }
    }

    /// Closes the supervisor's connection and stops the process.
    pub async fn stop(&mut self) {
        self.client.close();
        self.process.stop().await;
    }

    /// Closes the supervisor's connection and kills the process group at once ([`BrowserProcess::kill`]).
    pub async fn kill(&mut self) {
        self.client.close();
        self.process.kill().await;
    }
}

type Probed = (u16, url::Url, String, CdpClient, BrowserVersion, LaunchTimings);

/// Port file, then both probes at once: the HTTP probe, and the CDP handshake on the WebSocket path
/// from the port file. Both must pass; the HTTP probe's `webSocketDebuggerUrl` must name the same
/// browser.
async fn probe_new(
    process: &mut BrowserProcess,
    listening: &Notify,
    started: Instant,
) -> Result<Probed, (Phase, String)> {
    let ms = || started.elapsed().as_millis() as u64;
    let (port, ws_path) = process.devtools_port(listening).await?;
    let port_ms = ms();
    let endpoint = url::Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap();
    let ws_url = format!("ws://127.0.0.1:{port}{ws_path}");
    // A browser still starting (a loaded machine) may miss one attempt: each probe is retried, each
    // attempt within its own limit, until the launch deadline.
    let deadline = started + LAUNCH_TIMEOUT;
    let http = async {
        let r = retry_until(deadline, || discovery::version(&endpoint, HTTP_PROBE_TIMEOUT)).await;
        (r, ms())
    };
    let cdp = async {
        let r = retry_until(deadline, || handshake(&ws_url)).await;
        (r, ms())
    };
    let ((info, http_probe_ms), (shake, handshake_ms)) = tokio::join!(http, cdp);
    let info = info.map_err(|e| (Phase::HttpProbe, format!("HTTP probe failed: {e}")))?;
    let (client, version) = shake.map_err(|e| (Phase::Handshake, format!("CDP handshake failed: {e}")))?;
    if info.web_socket_debugger_url != ws_url {
        return Err((
            Phase::HttpProbe,
            format!(
                "HTTP probe names {} but DevToolsActivePort names {ws_url}",
                info.web_socket_debugger_url
            ),
        ));
    }
    let timings = LaunchTimings { port_ms, http_probe_ms, handshake_ms };
    Ok((port, endpoint, info.web_socket_debugger_url, client, version, timings))
}

/// Runs `attempt` until it succeeds or `deadline` passes (25 ms between failed attempts); the last
/// error when it never succeeded.
async fn retry_until<T, F, Fut>(deadline: Instant, mut attempt: F) -> Result<T, CdpError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, CdpError>>,
{
    loop {
        match attempt().await {
            Ok(v) => return Ok(v),
            Err(e) if Instant::now() + Duration::from_millis(25) >= deadline => return Err(e),
            Err(_) => tokio::time::sleep(Duration::from_millis(25)).await,
        }
    }
}

/// The CDP handshake probe: connect to `ws_url` and call `Browser.getVersion`, within
/// [`HANDSHAKE_TIMEOUT`] in all.
///
/// # Errors
/// The connect or call error.
pub async fn handshake(ws_url: &str) -> Result<(CdpClient, BrowserVersion), CdpError> {
    let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
    let client = CdpClient::connect(ws_url, HANDSHAKE_TIMEOUT).await?;
    let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
    let version = client.call("Browser.getVersion", None, serde_json::json!({}), left).await?;
    Ok((client, version))
}
