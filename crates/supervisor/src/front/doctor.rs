//! `sandbox-browser doctor`: checks every prerequisite of `serve` and says how to fix each.
//!
//! Each [`Check`] is `pass`, `warn` or `fail` with a one-line detail and, unless it passed, a one-line
//! fix. [`run`] makes them all; [`probe`] only asks a running supervisor for `runtime.health` (for a
//! container `HEALTHCHECK` or a Kubernetes probe). The exit status is 0 when nothing failed, 1
//! otherwise.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sb_protocol::Budget;
use serde::Serialize;

use crate::front::config::Config;
use crate::lifecycle::browser::{choose_binary, Browser};
use crate::lifecycle::spawner::Spawner;
use crate::workers::worker::{WorkerHandle, WorkerLauncher};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Found what is needed.
    Pass,
    /// Works, with a caveat the detail names.
    Warn,
    /// Something the runtime needs is missing or broken; the detail says how to fix it.
    Fail,
    /// Not run (its precondition failed, or it was not asked for).
    Skip,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Skip => "skip",
        }
    }
}

/// One check's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// Stable name: `config`, `remote_browser` (with `[browser] cdp_url`), `browser_binary`,
    /// `browser_launch`, `worker`, `sandbox`, `dev_shm`, `fonts`, `runtime_dir`, `socket_dir`,
    /// `artifacts_dir`, `view`, `supervisor`.
    pub name: &'static str,
    /// How it came out.
    pub status: Status,
    /// One line: what was found.
    pub detail: String,
    /// One line: how to fix it (absent when it passed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// How long the check took, ms.
    pub duration_ms: u64,
}

/// `doctor --json`: `{"ok", "checks": [...]}`.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// True when no check failed (warnings allowed).
    pub ok: bool,
    /// Every check, in the order run.
    pub checks: Vec<Check>,
}

/// What the doctor checks against: the same paths and settings `serve` would use.
#[derive(Debug, Clone)]
pub struct DoctorConfig {
    /// The configuration file given (`--config` / `SANDBOX_BROWSER_CONFIG`), if any.
    pub config_file: Option<PathBuf>,
    /// Its settings (defaults when it did not parse).
    pub settings: Config,
    /// Why the file did not parse.
    pub config_error: Option<String>,
    /// The socket `serve` would listen on.
    pub socket: PathBuf,
    /// The runtime directory `serve` would use.
    pub runtime_dir: PathBuf,
    /// The artifacts directory `serve` would use.
    pub artifacts_dir: PathBuf,
    /// Ask a running supervisor on `socket` too (`--socket` was given).
    pub check_supervisor: bool,
    /// Skip launching the browser and starting a worker (the container entrypoint's quick pass).
    pub quick: bool,
}

fn outcome(name: &'static str, started: Instant, status: Status, detail: String, fix: Option<&str>) -> Check {
    Check {
        name,
        status,
        detail,
        fix: if status == Status::Pass { None } else { fix.map(str::to_string) },
        duration_ms: started.elapsed().as_millis() as u64,
    }
}

/// Runs every check, in order.
pub async fn run(config: &DoctorConfig) -> Report {
    let mut checks = Vec::new();
    let t = Instant::now();
    checks.push(match (&config.config_file, &config.config_error) {
        (_, Some(e)) => {
            outcome("config", t, Status::Fail, e.clone(), Some("fix the named key (docs/configuration.md)"))
        }
        (Some(f), None) => outcome("config", t, Status::Pass, format!("{} parses", f.display()), None),
        (None, None) => outcome("config", t, Status::Pass, "no file: defaults".into(), None),
    });

    let remote = config.settings.browser.remote();
    if let Some(endpoint) = &remote {
        checks.push(remote_check(endpoint).await);
    }
    let t = Instant::now();
    let b = &config.settings.browser;
    let binary = choose_binary(b.path.as_deref(), b.headless);
    checks.push(match &binary {
        // A browser elsewhere needs none here.
        _ if remote.is_some() => Check {
            name: "browser_binary",
            status: Status::Skip,
            detail: "the browser is remote ([browser] cdp_url)".into(),
            fix: None,
            duration_ms: 0,
        },
        Ok(chosen) => match browser_version(&chosen.path).await {
            Ok(version) => outcome(
                "browser_binary",
                t,
                Status::Pass,
                format!("{} ({version}; {})", chosen.path.display(), chosen.why),
                None,
            ),
            Err(e) => outcome(
                "browser_binary",
                t,
                Status::Fail,
                format!("{} does not run: {e}", chosen.path.display()),
                Some("reinstall it: apt-get install --reinstall chromium-headless-shell chromium"),
            ),
        },
        Err(e) => outcome(
            "browser_binary",
            t,
            Status::Fail,
            e.clone(),
            Some("apt-get install chromium, or set [browser] path / --browser"),
        ),
    });

    checks.push(sandbox_check(&config.settings));
    checks.push(shm_check());
    checks.push(memory_check(config.settings.browser.js_heap_mb));
    checks.push(files_check(config.settings.limits.max_sessions));
    checks.push(fonts_check().await);
    checks.push(dir_check("runtime_dir", &config.runtime_dir));
    let socket_dir = config.socket.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    checks.push(dir_check("socket_dir", &socket_dir));
    checks.push(dir_check("artifacts_dir", &config.artifacts_dir));
    checks.push(view_check(&config.settings.view, &config.runtime_dir).await);

    let can_launch = (binary.is_ok() || remote.is_some()) && checks.iter().all(|c| c.status != Status::Fail);
    if config.quick {
        // The entrypoint's pass: `serve` launches and probes the browser itself a moment later.
    } else if can_launch {
        checks.extend(launch_checks(config).await);
    } else {
        for name in ["browser_launch", "worker"] {
            checks.push(Check {
                name,
                status: Status::Skip,
                detail: "not tried: an earlier check failed".into(),
                fix: None,
                duration_ms: 0,
            });
        }
    }
    if config.check_supervisor {
        checks.push(supervisor_check(&config.socket).await);
    }
    Report { ok: checks.iter().all(|c| c.status != Status::Fail), checks }
}

/// `view`: whether the live view is on (`[view] listen`, `serve --view`) and where: a runtime serving it
/// there now (it answers 401 without the token), or the address free to bind; a taken address fails,
/// one that is not the loopback warns (whoever reaches it with the token watches and may take over).
async fn view_check(view: &crate::front::config::ViewConfig, runtime_dir: &Path) -> Check {
    let t = Instant::now();
    let Some(listen) = &view.listen else {
        return outcome("view", t, Status::Pass, "off ([view] listen unset)".into(), None);
    };
    let token = runtime_dir.join(crate::front::view::TOKEN_FILE);
    let takeover = if view.takeover { "takeover on" } else { "takeover off" };
    let loopback = listen.parse::<std::net::SocketAddr>().is_ok_and(|a| a.ip().is_loopback());
    let serving = tokio::time::timeout(Duration::from_secs(2), tokio::net::TcpStream::connect(listen))
        .await
        .is_ok_and(|c| c.is_ok());
    let (status, detail, fix) = if serving {
        (
            Status::Pass,
            format!("on at http://{listen}/ ({takeover}): served now; its token is in {}", token.display()),
            None,
        )
    } else {
        match tokio::net::TcpListener::bind(listen).await {
            Ok(_) => (
                Status::Pass,
                format!(
                    "on: serve will listen on http://{listen}/ ({takeover}) and write its token to {}",
                    token.display()
                ),
                None,
            ),
            Err(e) => (
                Status::Fail,
                format!("{listen} cannot be bound: {e}"),
                Some("choose a free local address for [view] listen (or serve --view)"),
            ),
        }
    };
    if status == Status::Pass && !loopback {
        let warn = "listen on 127.0.0.1 and reach it through a published port or a port-forward (docs/operations.md)";
        return outcome("view", t, Status::Warn, format!("{detail}; not a loopback address"), Some(warn));
    }
    outcome("view", t, status, detail, fix)
}

/// `remote_browser`: the endpoint reached (discovery, TLS, auth) and its version, or what failed with
/// its fix: credentials (401), the certificate (`ca_file`), reachability, the URL's form.
async fn remote_check(endpoint: &crate::lifecycle::browser::RemoteEndpoint) -> Check {
    let t = Instant::now();
    let host = endpoint.host();
    match Browser::connect(endpoint).await {
        Ok(mut browser) => {
            let detail =
                format!("{host}: {} ({})", browser.version.product, browser.version.protocol_version);
            browser.stop().await;
            outcome("remote_browser", t, Status::Pass, detail, None)
        }
        Err(e) => {
            let m = e.message.to_lowercase();
            // The status as both sides word it (`status 401 Unauthorized`, `HTTP error: 401
            // Unauthorized`), not any "401" (a port may hold one).
            let fix = if m.contains("401 unauthorized") || m.contains("403 forbidden") {
                "check the user and password in cdp_url (or [browser] cdp_headers for a token gateway)"
            } else if m.contains("certificate") || m.contains("tls") {
                "set [browser] ca_file to the PEM of the CA that signed the endpoint's certificate"
            } else if m.contains("not a url") || m.contains("must be http") {
                "write cdp_url as http(s)://user:pass@host:port or ws(s)://host:port/devtools/browser/<id>"
            } else {
                "check that the endpoint is up and reachable from here (host and port), e.g. curl its /json/version"
            };
            outcome("remote_browser", t, Status::Fail, e.message, Some(fix))
        }
    }
}

/// `<binary> --version`, at most 5 s: `Chromium 156.0.8078.79 built on Debian ...`.
async fn browser_version(path: &Path) -> Result<String, String> {
    let run = tokio::process::Command::new(path).arg("--version").kill_on_drop(true).output();
    let out = tokio::time::timeout(Duration::from_secs(5), run)
        .await
        .map_err(|_| "--version did not answer within 5 s".to_string())?
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if out.status.success() && !text.is_empty() {
        Ok(text)
    } else {
        Err(format!("--version exited {}", out.status))
    }
}

/// Root needs `--no-sandbox` (added by the runtime); a non-root user needs user namespaces for
/// Chromium's sandbox, or `no_sandbox`.
fn sandbox_check(settings: &Config) -> Check {
    let t = Instant::now();
    if nix::unistd::geteuid().is_root() {
        return outcome(
            "sandbox",
            t,
            Status::Warn,
            "running as root: Chromium runs with --no-sandbox (the container is the only sandbox)".into(),
            Some("run as a non-root user (the image's `sandbox` user) to keep Chromium's own sandbox"),
        );
    }
    if settings.browser.no_sandbox {
        return outcome(
            "sandbox",
            t,
            Status::Warn,
            "browser.no_sandbox = true: Chromium's own sandbox is off".into(),
            Some("enable unprivileged user namespaces and set browser.no_sandbox = false"),
        );
    }
    // The real question, asked of the kernel: sysctls show the host's values inside a container
    // whose seccomp profile still denies the call.
    if user_namespaces_allowed() {
        outcome(
            "sandbox",
            t,
            Status::Pass,
            "non-root with user namespaces: Chromium's sandbox is on".into(),
            None,
        )
    } else {
        outcome(
            "sandbox",
            t,
            Status::Fail,
            "non-root, and creating a user namespace is denied (seccomp or sysctl): Chromium's sandbox cannot start".into(),
            Some("set browser.no_sandbox = true (SANDBOX_BROWSER_NO_SANDBOX=true), or allow user namespaces"),
        )
    }
}

/// Whether this process may create a user namespace (`unshare(CLONE_NEWUSER)` in a child about to run
/// `true`), which Chromium's sandbox needs when not root.
pub fn user_namespaces_allowed() -> bool {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new("true");
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: only the unshare syscall runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::unshare(libc::CLONE_NEWUSER) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.status().is_ok_and(|s| s.success())
}

/// `/dev/shm` size: Chromium is launched with `--disable-dev-shm-usage`, so a small one is slower,
/// not fatal.
fn shm_check() -> Check {
    let t = Instant::now();
    const WANT: u64 = 256 * 1024 * 1024;
    match nix::sys::statvfs::statvfs("/dev/shm") {
        Ok(v) => {
            // fsblkcnt_t and c_ulong are 32 bits on some targets.
            #[allow(clippy::unnecessary_cast)]
            let bytes = v.blocks() as u64 * v.fragment_size() as u64;
            let mib = bytes / (1024 * 1024);
            if bytes >= WANT {
                outcome("dev_shm", t, Status::Pass, format!("/dev/shm is {mib} MiB"), None)
            } else {
                outcome(
                    "dev_shm",
                    t,
                    Status::Warn,
                    format!("/dev/shm is {mib} MiB (Chromium falls back to /tmp: --disable-dev-shm-usage)"),
                    Some("give the container more: docker run --shm-size=1g, or an emptyDir with medium: Memory"),
                )
            }
        }
        Err(e) => outcome(
            "dev_shm",
            t,
            Status::Warn,
            format!("/dev/shm: {e}"),
            Some("mount a tmpfs on /dev/shm (docker run --shm-size=1g)"),
        ),
    }
}

/// Open files each session may take (its worker's socketpair and CDP routes, the browser's renderer
/// and its pipes, the connection of its agent), a generous count: the limit is checked against it.
const FILES_PER_SESSION: u64 = 64;
/// Open files the runtime takes before any session (its socket, the gate, the browser, logs).
const FILES_BASE: u64 = 256;

/// `open_files`: the soft `RLIMIT_NOFILE` this process (and so `serve`, started alike) runs with,
/// against what `max_sessions` sessions may open ([`FILES_BASE`] + [`FILES_PER_SESSION`] each): a
/// warning with the fix below it (at 256 the 16th session's worker or the next connection would be
/// refused for want of a descriptor).
fn files_check(max_sessions: usize) -> Check {
    let t = Instant::now();
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: a valid rlimit of ours to fill.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    let wanted = FILES_BASE + FILES_PER_SESSION * max_sessions as u64;
    let detail = format!(
        "RLIMIT_NOFILE {} (hard {}); {max_sessions} sessions (limits.max_sessions) may want {wanted}",
        limit.rlim_cur, limit.rlim_max
    );
    if !read {
        return outcome("open_files", t, Status::Warn, "RLIMIT_NOFILE cannot be read".into(), None);
    }
    if limit.rlim_cur < wanted {
        let fix = "raise the open-file limit: ulimit -n 65536 before serve, docker run --ulimit nofile=65536, or lower limits.max_sessions";
        return outcome("open_files", t, Status::Warn, detail, Some(fix));
    }
    outcome("open_files", t, Status::Pass, detail, None)
}

/// What bounds the browser's memory: each renderer's JavaScript heap (`browser.js_heap_mb`, a V8
/// flag), and the container's cgroup v2 `memory.max` / `pids.max` (the deployment's: the runtime does
/// not create a cgroup of its own).
fn memory_check(js_heap_mb: u32) -> Check {
    let t = Instant::now();
    let own = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("0::").map(str::to_string)));
    let read = |file: &str| {
        let dir = Path::new("/sys/fs/cgroup").join(own.as_deref().unwrap_or("/").trim_start_matches('/'));
        std::fs::read_to_string(dir.join(file)).ok().map(|s| s.trim().to_string())
    };
    let (memory, pids) = (read("memory.max"), read("pids.max"));
    let heap = if js_heap_mb > 0 {
        format!("each renderer's JS heap at most {js_heap_mb} MiB (browser.js_heap_mb)")
    } else {
        "renderers' JS heaps unbounded (browser.js_heap_mb = 0)".to_string()
    };
    let cgroup = format!(
        "cgroup memory.max {}, pids.max {}",
        memory.as_deref().unwrap_or("unknown"),
        pids.as_deref().unwrap_or("unknown")
    );
    let unbounded = js_heap_mb == 0 || memory.as_deref().is_none_or(|m| m == "max");
    if unbounded {
        outcome(
            "memory",
            t,
            Status::Warn,
            format!("{heap}; {cgroup}"),
            Some("bound the container: docker run --memory=2g --pids-limit=512, or Kubernetes resources.limits.memory; keep browser.js_heap_mb above 0"),
        )
    } else {
        outcome("memory", t, Status::Pass, format!("{heap}; {cgroup}"), None)
    }
}

/// `fc-list`: pages render text only with fonts.
async fn fonts_check() -> Check {
    let t = Instant::now();
    let fix = "apt-get install fontconfig fonts-liberation fonts-noto-cjk fonts-noto-color-emoji";
    let run = tokio::process::Command::new("fc-list").kill_on_drop(true).output();
    match tokio::time::timeout(Duration::from_secs(10), run).await {
        Ok(Ok(out)) if out.status.success() => {
            let n = String::from_utf8_lossy(&out.stdout).lines().filter(|l| !l.trim().is_empty()).count();
            if n > 0 {
                outcome("fonts", t, Status::Pass, format!("{n} fonts (fc-list)"), None)
            } else {
                outcome("fonts", t, Status::Warn, "no fonts: pages render without text".into(), Some(fix))
            }
        }
        Ok(Ok(out)) => outcome("fonts", t, Status::Warn, format!("fc-list exited {}", out.status), Some(fix)),
        Ok(Err(e)) => outcome("fonts", t, Status::Warn, format!("fc-list: {e}"), Some(fix)),
        Err(_) => outcome("fonts", t, Status::Warn, "fc-list did not answer within 10 s".into(), Some(fix)),
    }
}

/// A directory the supervisor writes: exists (or can be made), writable, not writable by others.
fn dir_check(name: &'static str, dir: &Path) -> Check {
    let t = Instant::now();
    let fix_mode = format!("chmod 0700 {}", dir.display());
    let made =
        std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700).create(dir);
    if let Err(e) = made {
        return outcome(
            name,
            t,
            Status::Fail,
            format!("cannot create {}: {e}", dir.display()),
            Some(&format!(
                "create it, owned by uid {}: install -d -m 0700 {}",
                nix::unistd::geteuid(),
                dir.display()
            )),
        );
    }
    if let Err(e) = tempfile::tempfile_in(dir) {
        return outcome(
            name,
            t,
            Status::Fail,
            format!("{} is not writable: {e}", dir.display()),
            Some(&format!("chown {} {}", nix::unistd::geteuid(), dir.display())),
        );
    }
    let mode = std::fs::metadata(dir).map(|m| m.permissions().mode() & 0o7777).unwrap_or(0);
    if mode & 0o002 != 0 && mode & 0o1000 == 0 {
        return outcome(
            name,
            t,
            Status::Warn,
            format!("{} is writable by everyone (mode {mode:04o})", dir.display()),
            Some(&fix_mode),
        );
    }
    outcome(name, t, Status::Pass, format!("{} writable (mode {mode:04o})", dir.display()), None)
}

/// Launches the browser as `serve` would (in a temp dir under the runtime dir), with its probe, then
/// starts a worker on a new target.
async fn launch_checks(config: &DoctorConfig) -> Vec<Check> {
    let b = &config.settings.browser;
    let Ok(scratch) = tempfile::Builder::new().prefix("doctor-").tempdir_in(&config.runtime_dir) else {
        return vec![outcome(
            "browser_launch",
            Instant::now(),
            Status::Fail,
            "cannot create a scratch dir in the runtime dir".into(),
            Some("see runtime_dir above"),
        )];
    };
    let browser_config = b.browser_config(scratch.path().to_path_buf());
    let spawner = Spawner::start();
    let t = Instant::now();
    let mut browser = match Browser::start(&browser_config, &spawner).await {
        Ok(browser) => browser,
        Err(e) => {
            let last = e.stderr_tail.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").to_string();
            let fix = if last.contains("--no-sandbox") || last.contains("sandbox") {
                "set browser.no_sandbox = true (SANDBOX_BROWSER_NO_SANDBOX=true)".to_string()
            } else {
                "run the browser by hand with the flags in docs/operations.md and read its stderr".to_string()
            };
            let detail = if last.is_empty() {
                format!("{} failed: {}", e.phase.as_str(), e.message)
            } else {
                format!("{} failed: {}; stderr: {last}", e.phase.as_str(), e.message)
            };
            return vec![
                outcome("browser_launch", t, Status::Fail, detail, Some(&fix)),
                Check {
                    name: "worker",
                    status: Status::Skip,
                    detail: "not tried: the browser did not start".into(),
                    fix: None,
                    duration_ms: 0,
                },
            ];
        }
    };
    let launched = outcome(
        "browser_launch",
        t,
        Status::Pass,
        match &config.settings.browser.remote() {
            // A browser elsewhere speaks CDP over a WebSocket (the endpoint's host only, never its
            // credentials or query).
            Some(endpoint) => format!(
                "{} ready in {} ms (CDP over a WebSocket to the remote browser at {})",
                browser.version.product,
                browser.ready_after.as_millis(),
                endpoint.host()
            ),
            None => format!(
                "{} ready in {} ms (CDP on its pipe: no DevTools port)",
                browser.version.product,
                browser.ready_after.as_millis(),
            ),
        },
        None,
    );
    let t = Instant::now();
    let worker = start_worker(&browser, spawner).await;
    let worker = match worker {
        Ok(pid) => {
            outcome("worker", t, Status::Pass, format!("a worker (pid {pid}) attached to a new target"), None)
        }
        Err(e) => outcome(
            "worker",
            t,
            Status::Fail,
            format!("the worker could not attach: {e}"),
            Some("check that this executable can run `sandbox-browser worker` (same binary, same user)"),
        ),
    };
    browser.stop().await;
    vec![launched, worker]
}

async fn start_worker(browser: &Browser, spawner: Spawner) -> Result<u32, String> {
    let target = browser
        .client
        .create_target("about:blank", false, None, Duration::from_secs(5))
        .await
        .map_err(|e| format!("Target.createTarget: {e}"))?;
    let launcher = WorkerLauncher {
        spawner,
        exe: std::env::current_exe().map_err(|e| e.to_string())?,
        log_format: "json".into(),
        viewport: None,
        emulation: Default::default(),
    };
    let link = crate::lifecycle::link::Link {
        client: browser.client.clone(),
        relay: browser.relay.clone(),
        browser: 1,
    };
    let worker = WorkerHandle::spawn(
        &launcher,
        &link,
        &target,
        Default::default(),
        Budget::new(Duration::from_secs(10)),
    )
    .await
    .map_err(|e| e.message)?;
    let pid = worker.pid();
    worker.shutdown(Duration::from_millis(500)).await;
    Ok(pid)
}

/// A running supervisor answers `runtime.health` on `socket`.
async fn supervisor_check(socket: &Path) -> Check {
    let t = Instant::now();
    match health(socket, Duration::from_secs(3)).await {
        Ok(h) => outcome("supervisor", t, Status::Pass, describe_health(socket, &h), None),
        Err(e) => outcome(
            "supervisor",
            t,
            Status::Fail,
            e,
            Some(&format!("start it: sandbox-browser serve --socket {}", socket.display())),
        ),
    }
}

fn describe_health(socket: &Path, h: &sb_protocol::api::HealthResult) -> String {
    format!(
        "{} answers: {} (pid {}, sandbox {}), {} sessions, {} restarts, up {} s",
        socket.display(),
        h.browser_version,
        h.browser_pid,
        h.browser_sandbox,
        h.sessions,
        h.restarts,
        h.uptime_ms / 1000
    )
}

/// `runtime.health` on `socket`, all within `limit`.
async fn health(socket: &Path, limit: Duration) -> Result<sb_protocol::api::HealthResult, String> {
    let ask = async {
        let client = sb_client::Client::connect(socket)
            .await
            .map_err(|e| format!("no supervisor answers on {}: {e}", socket.display()))?;
        client.health().await.map(sb_client::Reply::into_inner).map_err(|e| e.to_string())
    };
    tokio::time::timeout(limit, ask)
        .await
        .map_err(|_| format!("{} did not answer within {} ms", socket.display(), limit.as_millis()))?
}

/// `doctor --probe`: `runtime.health` only, within [`PROBE_LIMIT`]. For a container `HEALTHCHECK` or a
/// Kubernetes probe.
pub async fn probe(socket: &Path) -> Check {
    let t = Instant::now();
    match health(socket, PROBE_LIMIT).await {
        Ok(h) => outcome("supervisor", t, Status::Pass, describe_health(socket, &h), None),
        Err(e) => outcome("supervisor", t, Status::Fail, e, Some("see docs/troubleshooting.md")),
    }
}

/// The longest `doctor --probe` takes.
pub const PROBE_LIMIT: Duration = Duration::from_millis(900);

/// The report as a table for a terminal: one row a check, its fix under it.
pub fn table(report: &Report) -> String {
    let width = report.checks.iter().map(|c| c.name.len()).max().unwrap_or(5).max(5);
    let mut out = format!("{:<width$}  {:<6} DETAIL\n", "CHECK", "STATUS");
    for c in &report.checks {
        out.push_str(&format!("{:<width$}  {:<6} {}\n", c.name, c.status.as_str(), c.detail));
        if let Some(fix) = &c.fix {
            out.push_str(&format!("{:<width$}  {:<6} fix: {fix}\n", "", ""));
        }
    }
    let failed = report.checks.iter().filter(|c| c.status == Status::Fail).count();
    let warned = report.checks.iter().filter(|c| c.status == Status::Warn).count();
    out.push_str(&match failed {
        0 => format!("ok ({warned} warnings)\n"),
        n => format!("{n} failed, {warned} warnings\n"),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_shows_fixes_and_a_summary() {
        let report = Report {
            ok: false,
            checks: vec![
                outcome("config", Instant::now(), Status::Pass, "defaults".into(), Some("unused")),
                outcome(
                    "browser_binary",
                    Instant::now(),
                    Status::Fail,
                    "none".into(),
                    Some("apt-get install chromium"),
                ),
            ],
        };
        let t = table(&report);
        assert!(t.contains("config          pass   defaults\n"), "{t}");
        assert!(t.contains("fix: apt-get install chromium"), "{t}");
        assert!(!t.contains("unused"), "a passed check has no fix");
        assert!(t.ends_with("1 failed, 0 warnings\n"));
    }

    #[test]
    fn a_world_writable_dir_warns_and_a_missing_one_is_made() {
        let base = tempfile::tempdir().unwrap();
        let made = base.path().join("a/b");
        assert_eq!(dir_check("runtime_dir", &made).status, Status::Pass);
        std::fs::set_permissions(&made, std::fs::Permissions::from_mode(0o777)).unwrap();
        let c = dir_check("runtime_dir", &made);
        assert_eq!(c.status, Status::Warn, "{c:?}");
        assert!(c.fix.unwrap().starts_with("chmod 0700"));
    }
}
