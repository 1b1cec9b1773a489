//! Chromium's lifecycle: find the binary, launch it in its own process group with CDP on a pipe pair
//! (`--remote-debugging-pipe`: no TCP listener, no `DevToolsActivePort`), wait for the handshake
//! probe, and stop it (SIGTERM to the group, SIGKILL after a grace period).

use std::collections::VecDeque;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use sb_cdp::commands::BrowserGetVersion;
use sb_cdp::types::BrowserVersion;
use sb_cdp::{CdpClient, Relay};
use sb_protocol::Phase;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::lifecycle::reaper;
use crate::lifecycle::spawner::{Detach, Spawner};

/// Debian's real browser binary (`/usr/bin/chromium` is a wrapper script that adds flags).
pub const DEBIAN_CHROMIUM: &str = "/usr/lib/chromium/chromium";
/// Debian's headless shell (package `chromium-headless-shell`): the default browser where it is
/// installed and the browser runs headless, as Playwright runs its headless shell for headless
/// Chromium (a browser context per session costs no window of the full browser's UI).
pub const DEBIAN_HEADLESS_SHELL: &str = "/usr/lib/chromium/chromium-headless-shell";
/// Timeout of the CDP probe (`Browser.getVersion` on the pipe) of a running browser.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_millis(800);
/// Longest a launch may take until the browser answers on its pipe.
pub const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);
/// The fds the browser reads CDP from and writes it to (`--remote-debugging-pipe`).
const PIPE_FDS: (i32, i32) = (3, 4);
/// Time between SIGTERM and SIGKILL of the browser's process group.
pub const KILL_GRACE: Duration = Duration::from_millis(2_500);
/// How long a failed launch waits for Chromium's stderr to be read to its end.
const STDERR_DRAIN: Duration = Duration::from_millis(500);
/// How much of Chromium's stderr is kept for error reports, in chars.
const STDERR_KEEP: usize = 2_000;

/// How to launch the browser.
#[derive(Debug, Clone)]
pub struct BrowserConfig {
    /// Configured binary; else as [`choose_binary`] chooses.
    pub path: Option<PathBuf>,
    /// Add `--no-sandbox` (always added when running as root).
    pub no_sandbox: bool,
    /// Where the fresh user-data-dir is created.
    pub runtime_dir: PathBuf,
    /// Viewport (and window) size in CSS px.
    pub window: (u32, u32),
    /// The largest JavaScript heap of a renderer, MiB (`--js-flags=--max-old-space-size`); 0: V8's
    /// own.
    pub js_heap_mb: u32,
    /// Further flags, appended last.
    pub extra_flags: Vec<String>,
    /// `--headless` (a display is needed otherwise).
    pub headless: bool,
    /// A browser the runtime does not launch but attaches to (`[browser] cdp_url`): when set, the
    /// fields above but `window` are unused.
    pub remote: Option<RemoteEndpoint>,
    /// The longest CDP message taken from the launched browser's pipe, bytes
    /// ([`sb_cdp::MAX_MESSAGE_BYTES`]; smaller in tests): a longer answer fails its call, a longer
    /// event is dropped, and the connection goes on (`sb_cdp::wire::pipe::open_limited`).
    pub max_message_bytes: usize,
}

/// A browser elsewhere (`[browser] cdp_url`, `ca_file`, `cdp_headers`).
#[derive(Debug, Clone)]
pub struct RemoteEndpoint {
    /// `http(s)://user:pass@host:port/?token=...` (DevTools discovery) or `ws(s)://...` (the browser's
    /// WebSocket itself).
    pub url: String,
    /// TLS roots and extra headers.
    pub remote: sb_cdp::Remote,
    /// Whether its pages may open WebSockets (`[browser] remote_websockets`): else every session's
    /// browser context refuses them ([`RemoteEndpoint::context_proxy`]).
    pub websockets: bool,
}

impl RemoteEndpoint {
    /// The proxy every session's browser context of this browser is made with
    /// (`Target.createBrowserContext {proxyServer, proxyBypassList}`), `None` when its pages may open
    /// WebSockets. Chromium's proxy rules per scheme (`net/proxy_resolution/proxy_config.cc`,
    /// `ProxyRules::MapUrlSchemeToProxyList`) send `http` and `https` direct, where the request
    /// interception holds the policy on them, and take a `ws`/`wss` URL, which has no rule of its
    /// own, to the SOCKS fallback: a port that refuses, so every WebSocket fails (fail closed; no
    /// fallback to direct, as the list holds no `direct://`). `<-loopback>` keeps loopback
    /// WebSockets from bypassing it.
    pub fn context_proxy(&self) -> Option<sb_cdp::calls::ContextProxy> {
        (!self.websockets).then(|| sb_cdp::calls::ContextProxy {
            server: "http=direct://;https=direct://;socks=socks5://127.0.0.1:1".into(),
            bypass: "<-loopback>".into(),
        })
    }

    /// The endpoint's host (and port), for messages: never its credentials or query.
    pub fn host(&self) -> String {
        url::Url::parse(&self.url)
            .ok()
            .and_then(|u| u.host_str().map(|h| u.port().map_or(h.to_string(), |p| format!("{h}:{p}"))))
            .unwrap_or_else(|| "the configured cdp_url".into())
    }
}

/// A launch or probe failure, with the phase that failed and Chromium's last stderr lines.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct LaunchError {
    /// The step that failed (`launch`).
    pub phase: Phase,
    /// One line for the error's message.
    pub message: String,
    /// The end of Chromium's stderr (at most 2000 chars), for logs, not for models.
    pub stderr_tail: String,
}

/// The browser binary the runtime runs and why it was chosen (`runtime.health`'s `browser_binary`
/// and `browser_choice`, `doctor`, the `browser_runtime_ready` log line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary {
    /// Its path.
    pub path: PathBuf,
    /// Why: `configured` (`[browser] path` or `--browser`), `default: headless shell installed`,
    /// `default: no headless shell installed`, `default: headed mode needs the full browser`.
    pub why: &'static str,
}

/// Chooses the browser binary: `configured` when given; else, running `headless`, Debian's headless
/// shell ([`DEBIAN_HEADLESS_SHELL`]) where installed; else [`DEBIAN_CHROMIUM`]; else
/// `chromium-headless-shell` (headless only), `chromium` or `chromium-browser` on `PATH`.
///
/// # Errors
/// A one-line message naming what was tried and how to fix it.
pub fn choose_binary(configured: Option<&Path>, headless: bool) -> Result<Binary, String> {
    if let Some(p) = configured {
        return if p.is_file() {
            Ok(Binary { path: p.to_path_buf(), why: "configured" })
        } else {
            Err(format!("configured browser {} does not exist", p.display()))
        };
    }
    let default_why = if headless {
        "default: no headless shell installed"
    } else {
        "default: headed mode needs the full browser"
    };
    if headless && Path::new(DEBIAN_HEADLESS_SHELL).is_file() {
        return Ok(Binary { path: DEBIAN_HEADLESS_SHELL.into(), why: "default: headless shell installed" });
    }
    if Path::new(DEBIAN_CHROMIUM).is_file() {
        return Ok(Binary { path: DEBIAN_CHROMIUM.into(), why: default_why });
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let names: &[&str] = if headless {
        &["chromium-headless-shell", "chromium", "chromium-browser"]
    } else {
        &["chromium", "chromium-browser"]
    };
    for name in names {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                let why = if *name == "chromium-headless-shell" {
                    "default: headless shell installed"
                } else {
                    default_why
                };
                return Ok(Binary { path: candidate, why });
            }
        }
    }
    Err(format!(
        "no browser found ({DEBIAN_HEADLESS_SHELL}, {DEBIAN_CHROMIUM} or chromium on PATH); install it: apt-get install chromium-headless-shell chromium"
    ))
}

/// A seccomp filter that refuses (`EPERM`) to bind any socket to an IP address: `bind` with an
/// address the length of a `sockaddr_in` (16 bytes) or a `sockaddr_in6` (28), and allows everything
/// else; installed in the launched browser before it runs, so that its every process inherits it.
/// Every connection of the browser goes through the connection gate, which carries TCP only, and the
/// browser neither serves nor listens on a port of its own (CDP is on its pipe); what binds an IP
/// address there is a UDP socket on its way past the gate: WebRTC's (a page's `RTCPeerConnection`
/// with `stun:127.0.0.1:PORT` or `stun:169.254.169.254:3478` sent STUN packets to both), which binds
/// its socket before it sends. Refusing the socket itself (`socket(AF_INET, SOCK_DGRAM)`) is not
/// possible: Chromium's network change notifier opens one for an `ioctl` (without it,
/// `navigator.onLine` was false). `--webrtc-ip-handling-policy=disable_non_proxied_udp` does the same
/// in the full browser; the headless shell does not read that switch. Local sockets (Chromium's own
/// IPC, its singleton socket) have other lengths.
///
/// # Errors
/// When the filter cannot be built for this machine's architecture.
fn no_ip_bind_filter() -> Result<seccompiler::BpfProgram, String> {
    use seccompiler::{
        SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    };
    let ip_address = |len: usize| -> Result<SeccompRule, seccompiler::BackendError> {
        SeccompRule::new(vec![SeccompCondition::new(
            2,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            len as u64,
        )?])
    };
    let build = || -> Result<seccompiler::BpfProgram, Box<dyn std::error::Error>> {
        let v4 = size_of::<libc::sockaddr_in>();
        let v6 = size_of::<libc::sockaddr_in6>();
        let rules = vec![(libc::SYS_bind, vec![ip_address(v4)?, ip_address(v6)?])];
        let filter = SeccompFilter::new(
            rules.into_iter().collect(),
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EPERM as u32),
            std::env::consts::ARCH.try_into()?,
        )?;
        Ok(filter.try_into()?)
    };
    build().map_err(|e| format!("cannot build the browser's seccomp filter (no IP binds): {e}"))
}

/// Where the browser runs ([`Detach`]): in a session of its own when the supervisor leads its own
/// (a container's entrypoint, a service: `getsid(0) == getpid()`), as Playwright's launcher starts its
/// browser (`detached: true` in `server/utils/processLauncher.ts`, `setsid` on Linux). Where the
/// kernel's autogroups apply (on, and the supervisor in the root cpu cgroup: a host's service, not a
/// container, whose cgroup the kernel shares thread by thread), supervisor and browser are then two
/// scheduling groups, as Playwright's driver and browser are, and jobs of other sessions do not take
/// the browser's share and the supervisor's from one group. A supervisor started inside another
/// program's session (a shell, a test harness) keeps its browser there: the busy jobs of that session
/// are its neighbours, and a browser moved out of it would leave the supervisor, whose timers answer
/// each budget, a smaller share beside them.
fn browser_detach() -> Detach {
    if nix::unistd::getsid(None).ok() == Some(nix::unistd::getpid()) {
        Detach::Session
    } else {
        Detach::Group
    }
}

/// [`choose_binary`]'s path for a headless browser.
///
/// # Errors
/// As [`choose_binary`].
pub fn find_binary(configured: Option<&Path>) -> Result<PathBuf, String> {
    choose_binary(configured, true).map(|b| b.path)
}

/// Whether Chromium's own sandbox is on, and why not: `"chromium"`, `"off: running as root"`,
/// `"off: browser.no_sandbox"` (the entrypoint sets it where user namespaces are denied).
pub fn sandbox_mode(config: &BrowserConfig) -> &'static str {
    if nix::unistd::geteuid().is_root() {
        "off: running as root"
    } else if config.no_sandbox {
        "off: browser.no_sandbox"
    } else {
        "chromium"
    }
}

/// The longest `TMPDIR` the browser is given (bytes): Chromium's singleton socket in it must fit a
/// Unix socket path (107 bytes).
const MAX_TMPDIR_LEN: usize = 60;

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
        // As Playwright launches Chromium (`chromiumSwitches.ts`), for what a page load costs: no
        // back/forward cache (with it, each same-site navigation swaps to a new renderer process so
        // that the old page can be kept: a process launch per `page.goto`, and about a third more CPU
        // per load with four sessions; `page.back` then loads the page again, as Playwright's does);
        // no field-trial testing config, IPC flooding protection, hang monitor, extensions or
        // background services; and no start-up or background requests to Google's services (which
        // the URL policy would also refuse). And no spare renderer (ours, not Playwright's): Chromium
        // keeps one process warm for the next navigation, but for one browser context at a time, so
        // with a context per session each navigation elsewhere threw it away and started another (32
        // renderer processes started for 20 navigations of four sessions at once; none without it).
        // And no omnibox popup (ours too): each window (one a session) had a renderer of its own for
        // the omnibox's popup WebUI (`chrome://omnibox-popup.top-chrome/`), which headless never
        // shows but which worked on every navigation of the window's tab: a tenth of the CPU of a
        // load of the Python docs' index, and a process's memory per session.
        // A `--disable-features` in `extra_flags` replaces this one.
        "--disable-back-forward-cache",
        "--disable-field-trial-config",
        "--disable-ipc-flooding-protection",
        "--disable-hang-monitor",
        "--disable-extensions",
        "--disable-default-apps",
        "--disable-component-extensions-with-background-pages",
        "--metrics-recording-only",
        "--no-service-autorun",
        "--disable-features=AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,\
         HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,LensOverlay,MediaRouter,PaintHolding,\
         OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,PreconnectToSearch,\
         SpareRendererForSitePerProcess,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
        // CDP on fds 3 and 4 only, as Playwright's `launch()`: no TCP port another uid (or another
        // container of the pod, which shares the loopback) could reach.
        "--remote-debugging-pipe",
        // WebRTC only through the proxy, which is the connection gate: it carries no UDP, so none is
        // sent (a page's `RTCPeerConnection` with `stun:127.0.0.1:PORT` or
        // `stun:169.254.169.254:3478` sent STUN packets to both past the URL policy). The switch
        // Chromium reads is this one; `--force-webrtc-ip-handling-policy` left them going.
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
        // Every site in a renderer of its own, as the full browser isolates them by default: the
        // headless shell does not, and then a cross-site iframe stuck in a synchronous request
        // blocked its page's renderer too (and a page's script shared a process with another site's).
        "--site-per-process",
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
    // Crash dumps (which may hold a page's cookies) go into the profile, removed with it, not under
    // $HOME/.config/chromium/Crash Reports.
    f.push(format!("--crash-dumps-dir={}", user_data_dir.join("crash").display()));
    f.push("--disable-crash-reporter".into());
    f.push(format!("--window-size={},{}", config.window.0, config.window.1));
    if config.no_sandbox || nix::unistd::geteuid().is_root() {
        f.push("--no-sandbox".into());
    }
    if config.js_heap_mb > 0 {
        // Every renderer's V8 heap is bounded: a page that allocates past it loses its renderer (a
        // `page_reset` for its session) instead of taking the machine's memory.
        f.push(format!("--js-flags=--max-old-space-size={}", config.js_heap_mb));
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
        reaper::state(self.pid).is_some_and(|s| !matches!(s, 'Z' | 'X' | 'T' | 't'))
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
}

/// A running browser that answered on its connection: one the runtime launched (its pipe), or one
/// elsewhere it attached to (a WebSocket).
pub struct Browser {
    /// The process, when the runtime launched it.
    pub process: Option<BrowserProcess>,
    /// The browser's one CDP connection (its pipe), shared by the supervisor and every worker.
    pub relay: Relay,
    /// The supervisor's own route on it (targets are created and closed on it).
    pub client: CdpClient,
    /// `Browser.getVersion` of the handshake probe.
    pub version: BrowserVersion,
    /// When the launch began.
    pub started: Instant,
    /// How long launch + probe took.
    pub ready_after: Duration,
    /// The binary launched and why it was chosen; `None` for a browser elsewhere.
    pub binary: Option<Binary>,
}

impl Browser {
    /// Launches the browser with its pipe pair and waits until it answers `Browser.getVersion` on it.
    ///
    /// # Errors
    /// [`LaunchError`] with phase `launch` (binary missing, exited early) or `handshake` (no answer on
    /// the pipe within [`LAUNCH_TIMEOUT`]); the process is stopped first.
    pub async fn launch(config: &BrowserConfig, spawner: &Spawner) -> Result<Browser, LaunchError> {
        let started = Instant::now();
        let fail = |phase, message: String| LaunchError { phase, message, stderr_tail: String::new() };
        let chosen =
            choose_binary(config.path.as_deref(), config.headless).map_err(|m| fail(Phase::Launch, m))?;
        let binary = chosen.path.clone();
        std::fs::create_dir_all(&config.runtime_dir).map_err(|e| {
            fail(Phase::Launch, format!("cannot create {}: {e}", config.runtime_dir.display()))
        })?;
        let udd = tempfile::Builder::new()
            .prefix(reaper::PROFILE_PREFIX)
            .tempdir_in(&config.runtime_dir)
            .map_err(|e| fail(Phase::Launch, format!("cannot create a user-data-dir: {e}")))?;
        let pipes =
            Pipes::new().map_err(|e| fail(Phase::Launch, format!("cannot create the CDP pipes: {e}")))?;
        // The browser's temporary files (`org.chromium.Chromium.*`) go into the profile too, removed
        // with it, not into /tmp where every launch left a directory. Chromium binds a Unix socket
        // there (`<TMPDIR>/org.chromium.Chromium.XXXXXX/SingletonSocket`, 46 chars more), and a socket
        // path has at most 107 bytes: a profile too deep for that keeps the system's temp dir.
        let tmp = udd.path().join("tmp");
        let mut cmd = Command::new(&binary);
        if tmp.as_os_str().len() <= MAX_TMPDIR_LEN {
            crate::files::private_dir(&tmp)
                .map_err(|e| fail(Phase::Launch, format!("cannot create {}: {e}", tmp.display())))?;
            cmd.env("TMPDIR", &tmp);
        } else {
            tracing::warn!(path = %tmp.display(), "browser_tmpdir_too_long");
        }
        // Chromium's crash handler keeps its database (dumps that may hold a page's cookies) under the
        // *default* user-data-dir's parent, `$XDG_CONFIG_HOME/chromium/Crash Reports`, whatever
        // `--user-data-dir` and `--crash-dumps-dir` say: the config and cache homes go into the
        // profile too.
        for (var, dir) in [("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")] {
            let path = udd.path().join(dir);
            crate::files::private_dir(&path)
                .map_err(|e| fail(Phase::Launch, format!("cannot create {}: {e}", path.display())))?;
            cmd.env(var, &path);
        }
        cmd.args(flags(config, udd.path())).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        let (browser_reads, browser_writes) =
            (pipes.browser_reads.as_raw_fd(), pipes.browser_writes.as_raw_fd());
        // An operator who opens a DevTools port (`--remote-debugging-port` in `extra_flags`: the tests
        // do, to crash a renderer from outside) has the browser bind an IP address: no filter then.
        let opens_a_port = config.extra_flags.iter().any(|f| f.starts_with("--remote-debugging-port"));
        let no_ip_bind = if opens_a_port {
            tracing::warn!("browser_ip_bind_filter_off_for_remote_debugging_port");
            None
        } else {
            Some(no_ip_bind_filter().map_err(|m| fail(Phase::Launch, m))?)
        };
        let mut child = spawner
            .spawn(cmd, browser_detach(), move || {
                // No socket bound to an IP address in the browser's processes (inherited by every
                // one it starts): see [`no_ip_bind_filter`]. Applying a built filter is two system calls, no allocation.
                if let Some(filter) = &no_ip_bind {
                    seccompiler::apply_filter(filter).map_err(|e| std::io::Error::other(e.to_string()))?;
                }
                // The browser's ends become its fds 3 and 4 (dup2 clears close-on-exec); both were made
                // above 4 first, so neither dup2 overwrites the other's source.
                // SAFETY: dup2 is async-signal-safe.
                unsafe {
                    if libc::dup2(browser_reads, PIPE_FDS.0) < 0 || libc::dup2(browser_writes, PIPE_FDS.1) < 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            })
            .await
            .map_err(|e| fail(Phase::Launch, format!("cannot start {}: {e}", binary.display())))?;
        let pid = child.id().unwrap_or(0);
        let relay = pipes
            .relay(config.max_message_bytes)
            .map_err(|e| fail(Phase::Launch, format!("cannot open the CDP pipes: {e}")))?;

        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let mut stderr_reader = None;
        if let Some(stderr) = child.stderr.take() {
            let tail = stderr_tail.clone();
            stderr_reader = Some(tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let mut t = tail.lock().unwrap();
                    t.push_back(line);
                    while t.iter().map(String::len).sum::<usize>() > STDERR_KEEP && t.len() > 1 {
                        t.pop_front();
                    }
                }
            }));
        }
        let mut process = BrowserProcess { child, pid, stderr_tail, stderr_reader, user_data_dir: Some(udd) };
        let client = CdpClient::over(relay.route("supervisor", true));
        match handshake(&mut process, &client, started + LAUNCH_TIMEOUT).await {
            Ok(version) => Ok(Browser {
                process: Some(process),
                relay,
                client,
                version,
                started,
                ready_after: started.elapsed(),
                binary: Some(chosen),
            }),
            Err((phase, message)) => {
                relay.close();
                process.stop().await;
                // Stopped: the pipe reaches EOF soon, and the tail then holds the last words.
                if let Some(reader) = process.stderr_reader.take() {
                    let _ = tokio::time::timeout(STDERR_DRAIN, reader).await;
                }
                Err(LaunchError { phase, message, stderr_tail: process.stderr_tail() })
            }
        }
    }

    /// The configured browser: launched ([`Browser::launch`]), or attached to when `config.remote` is
    /// set ([`Browser::connect`]).
    ///
    /// # Errors
    /// Theirs.
    pub async fn start(config: &BrowserConfig, spawner: &Spawner) -> Result<Browser, LaunchError> {
        match &config.remote {
            Some(remote) => Browser::connect(remote).await,
            None => Browser::launch(config, spawner).await,
        }
    }

    /// Attaches to a browser elsewhere: its WebSocket (from DevTools discovery for an `http(s):`
    /// endpoint, normalized by `sb_cdp::normalize_ws_url`), over TLS for `wss:`, within
    /// [`LAUNCH_TIMEOUT`], then the same probe as a launch (`Browser.getVersion`).
    ///
    /// # Errors
    /// [`LaunchError`] with phase `launch` (the endpoint unreachable, refused, its certificate or
    /// credentials wrong) or `handshake` (no answer to the probe): the message names the endpoint's host,
    /// never its credentials.
    pub async fn connect(remote: &RemoteEndpoint) -> Result<Browser, LaunchError> {
        let started = Instant::now();
        let host = remote.host();
        let fail = |phase, why: String| LaunchError {
            phase,
            message: format!(
                "the remote browser at {host} is unreachable: {}",
                sb_protocol::redact::in_text(&why)
            ),
            stderr_tail: String::new(),
        };
        let url = url::Url::parse(&remote.url)
            .map_err(|e| fail(Phase::Launch, format!("cdp_url is not a URL ({e})")))?;
        let ws = match url.scheme() {
            "ws" | "wss" => url.to_string(),
            "http" | "https" => {
                let version = sb_cdp::discovery::version_with(&url, LAUNCH_TIMEOUT, &remote.remote).await;
                version.map_err(|e| fail(Phase::Launch, e.to_string()))?.web_socket_debugger_url
            }
            other => {
                return Err(fail(Phase::Launch, format!("cdp_url must be http(s) or ws(s), not {other}:")))
            }
        };
        let left = (started + LAUNCH_TIMEOUT).saturating_duration_since(Instant::now());
        let wire = sb_cdp::wire::ws::open_with(&ws, left, &remote.remote).await;
        let relay = Relay::start(wire.map_err(|e| fail(Phase::Launch, e.to_string()))?);
        let client = CdpClient::over(relay.route("supervisor", true));
        let left = (started + LAUNCH_TIMEOUT).saturating_duration_since(Instant::now());
        match client.run(&BrowserGetVersion {}, left.min(HANDSHAKE_TIMEOUT)).await {
            Ok(version) => Ok(Browser {
                process: None,
                relay,
                client,
                version,
                started,
                ready_after: started.elapsed(),
                binary: None,
            }),
            Err(e) => {
                relay.close();
                Err(fail(Phase::Handshake, format!("Browser.getVersion: {e}")))
            }
        }
    }

    /// The browser's pid (also its process group); 0 for a browser elsewhere.
    pub fn pid(&self) -> u32 {
        self.process.as_ref().map_or(0, BrowserProcess::pid)
    }

    /// Whether the process is still running (one read of `/proc`); for a browser elsewhere, its
    /// connection says (always true here).
    pub fn running(&self) -> bool {
        self.process.as_ref().is_none_or(BrowserProcess::running)
    }

    /// Closes the connection (every route ends) and stops the process, when the runtime launched it.
    pub async fn stop(&mut self) {
        self.relay.close();
        if let Some(p) = &mut self.process {
            p.stop().await;
        }
    }

    /// Closes the connection and kills the process group at once ([`BrowserProcess::kill`]); a browser
    /// elsewhere is only left.
    pub async fn kill(&mut self) {
        self.relay.close();
        if let Some(p) = &mut self.process {
            p.kill().await;
        }
    }
}

/// How long a browser whose pipe closed during the handshake may take to be seen exiting.
const EXIT_SEEN: Duration = Duration::from_millis(500);

/// The launch's probe: `Browser.getVersion` on the pipe, answered once the browser reads it (the call
/// waits in the pipe meanwhile), by `deadline`; a browser that exits first fails at once.
async fn handshake(
    process: &mut BrowserProcess,
    client: &CdpClient,
    deadline: Instant,
) -> Result<BrowserVersion, (Phase, String)> {
    let left = deadline.saturating_duration_since(Instant::now());
    let get_version = BrowserGetVersion {};
    let call = client.run(&get_version, left);
    tokio::pin!(call);
    loop {
        tokio::select! {
            answer = &mut call => {
                let e = match answer {
                    Ok(version) => return Ok(version),
                    Err(e) => e,
                };
                // A browser that exits closes its pipe before the kernel reports it exited: a closed
                // pipe gives it a moment to be seen exiting (a launch failure), else it is the
                // handshake that failed.
                let exited = if matches!(e, sb_cdp::CdpError::Closed { .. }) {
                    let wait = EXIT_SEEN.min(deadline.saturating_duration_since(Instant::now()));
                    tokio::time::timeout(wait, process.child.wait()).await.ok().and_then(Result::ok)
                } else {
                    process.child.try_wait().ok().flatten()
                };
                return Err(match exited {
                    Some(status) => (Phase::Launch, format!("browser exited during launch ({status})")),
                    None => (Phase::Handshake, format!("CDP handshake failed: {e}")),
                });
            }
            _ = tokio::time::sleep(Duration::from_millis(50)) => match process.child.try_wait() {
                Ok(Some(status)) => return Err((Phase::Launch, format!("browser exited during launch ({status})"))),
                // No child to wait for: it exited and was reaped.
                Err(e) => return Err((Phase::Launch, format!("browser exited during launch ({e})"))),
                Ok(None) => {}
            },
        }
    }
}

/// The two pipes of `--remote-debugging-pipe`: the browser reads CDP from the first (its fd 3) and
/// writes to the second (its fd 4). Every end is close-on-exec and above fd 4.
struct Pipes {
    browser_reads: OwnedFd,
    to_browser: OwnedFd,
    from_browser: OwnedFd,
    browser_writes: OwnedFd,
}

impl Pipes {
    fn new() -> std::io::Result<Pipes> {
        let high = |fd: OwnedFd| -> std::io::Result<OwnedFd> {
            // SAFETY: F_DUPFD_CLOEXEC returns a new fd this process owns, or -1.
            let dup = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
            if dup < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: `dup` was just created and is owned by nobody else.
            Ok(unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(dup) })
        };
        let (browser_reads, to_browser) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
        let (from_browser, browser_writes) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
        Ok(Pipes {
            browser_reads: high(browser_reads)?,
            to_browser: high(to_browser)?,
            from_browser: high(from_browser)?,
            browser_writes: high(browser_writes)?,
        })
    }

    /// The supervisor's ends as one relayed connection, messages from the browser of at most
    /// `max_bytes` (the browser's ends are closed here: the child has its copies).
    fn relay(self, max_bytes: usize) -> std::io::Result<Relay> {
        let to_browser = tokio::net::unix::pipe::Sender::from_owned_fd(self.to_browser)?;
        let from_browser = tokio::net::unix::pipe::Receiver::from_owned_fd(self.from_browser)?;
        Ok(Relay::start(sb_cdp::wire::pipe::open_limited(from_browser, to_browser, max_bytes)))
    }
}
