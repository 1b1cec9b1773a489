//! Support for the end-to-end tests: real binaries, real Chromium, local pages.
//!
//! - [`Supervisor`]: runs `target/<profile>/sandbox-browser serve` on a socket in a fresh temp dir and
//!   stops it with SIGTERM on drop. Readiness is the supervisor's own `listening` log event, read from
//!   its stderr: no sleeping.
//! - [`PageServer`]: an axum server on 127.0.0.1 with the test pages ([`pages`]) and, optionally, a
//!   static directory (the demo serves the Rust docs with it through `sb-pages`).
//! - [`Fixture`]: both and a client, the preamble of most tests; [`api_error`]: the runtime's error of a
//!   call that must fail.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use axum::response::Html;
use axum::routing::get;
use axum::Router;

/// Path of a binary built from this workspace (`sandbox-browser`, `browserctl`), next to the test
/// executable's `deps/` directory. `scripts/test.sh` builds them before the tests run.
/// Also found next to a binary of this crate in `target/<profile>/` (the bench). `SB_TEST_BIN_DIR`
/// names another directory to take them from (`target/release`: scripts/release-check.sh).
pub fn bin_path(name: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os("SB_TEST_BIN_DIR") {
        return PathBuf::from(dir).join(name);
    }
    let exe = std::env::current_exe().expect("current exe");
    let dirs = [exe.parent(), exe.parent().and_then(Path::parent)];
    let found = dirs.into_iter().flatten().map(|d| d.join(name)).find(|p| p.is_file());
    found.unwrap_or_else(|| {
        panic!("{name} is missing: run `cargo build --workspace --bins` first (scripts/test.sh does)")
    })
}

/// A running `sandbox-browser serve`.
pub struct Supervisor {
    child: Option<Child>,
    /// The harness socket.
    pub socket: PathBuf,
    /// The temp dir holding socket, runtime dir and artifacts.
    pub dir: tempfile::TempDir,
    log: Arc<(Mutex<Vec<String>>, Condvar)>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Supervisor {
    /// Starts a supervisor with `extra` arguments and waits until it listens.
    ///
    /// # Panics
    /// When it exits before listening.
    pub fn start(extra: &[&str]) -> Supervisor {
        Supervisor::start_in(temp_dir(), extra)
    }

    /// [`Supervisor::start`] in a given dir (the socket is `<dir>/browser.sock`, the runtime dir is
    /// `dir`): a second supervisor on the same dir finds the first one's session store.
    ///
    /// `SB_TEST_CHROMIUM=<binary>` runs the supervisors of tests without a `--config` or `--browser` of
    /// their own on that browser (e.g. `/usr/lib/chromium/chromium-headless-shell`, the image's).
    pub fn start_in(dir: tempfile::TempDir, extra: &[&str]) -> Supervisor {
        let socket = dir.path().join("browser.sock");
        Supervisor::start_at(dir, socket, extra)
    }

    /// [`Supervisor::start_in`] with the socket at `socket` (which may be in a directory not made yet).
    pub fn start_at(dir: tempfile::TempDir, socket: PathBuf, extra: &[&str]) -> Supervisor {
        Supervisor::start_program(&bin_path("sandbox-browser"), dir, socket, extra)
    }

    /// [`Supervisor::start_at`], the runtime's binary at `program` (a copy of it).
    pub fn start_program(
        program: &Path,
        dir: tempfile::TempDir,
        socket: PathBuf,
        extra: &[&str],
    ) -> Supervisor {
        Supervisor::launch(Command::new(program), dir, socket, extra)
    }

    /// [`Supervisor::with_config`] under an open-file limit (`RLIMIT_NOFILE`, soft and hard) of
    /// `nofile`, set by util-linux's `prlimit` (which then runs the runtime in its place).
    pub fn with_config_and_nofile(toml: &str, nofile: u64) -> Supervisor {
        let mut command = Command::new("prlimit");
        command.arg(format!("--nofile={nofile}:{nofile}")).arg("--").arg(bin_path("sandbox-browser"));
        Supervisor::launch_with_config(command, toml)
    }

    /// Runs `command serve --socket <dir>/browser.sock --config <dir>/config.toml` (`toml` written
    /// there) in a new temp dir, and waits until it listens.
    fn launch_with_config(command: Command, toml: &str) -> Supervisor {
        let dir = temp_dir();
        let args = Supervisor::config_args(&dir, toml);
        let socket = dir.path().join("browser.sock");
        Supervisor::launch(command, dir, socket, &args.iter().map(String::as_str).collect::<Vec<_>>())
    }

    /// Runs `command serve --socket <socket> <extra>` and waits until it listens.
    fn launch(mut command: Command, dir: tempfile::TempDir, socket: PathBuf, extra: &[&str]) -> Supervisor {
        let mut extra: Vec<std::ffi::OsString> = extra.iter().map(Into::into).collect();
        if let Some(browser) = std::env::var_os("SB_TEST_CHROMIUM") {
            if !extra.iter().any(|a| a == "--config" || a == "--browser") {
                extra.extend(["--browser".into(), browser]);
            }
        }
        let mut child = command
            .arg("serve")
            .arg("--socket")
            .arg(&socket)
            .args(extra)
            // Each test chooses its configuration: none leaks in from the environment.
            .env_remove("SANDBOX_BROWSER_CONFIG")
            .env_remove("SANDBOX_BROWSER_CHROMIUM")
            .env_remove("SANDBOX_BROWSER_RUNTIME_DIR")
            .env_remove("SANDBOX_BROWSER_ARTIFACTS")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn sandbox-browser");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
        let (ready_tx, ready_rx) = mpsc::channel::<bool>();
        let log_sink = log.clone();
        let reader = std::thread::spawn(move || {
            let mut ready_tx = Some(ready_tx);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("\"listening\"") {
                    if let Some(tx) = ready_tx.take() {
                        let _ = tx.send(true);
                    }
                }
                log_sink.0.lock().unwrap().push(line);
                log_sink.1.notify_all();
            }
            if let Some(tx) = ready_tx.take() {
                let _ = tx.send(false);
            }
        });
        let ready = ready_rx.recv_timeout(Duration::from_secs(60)).unwrap_or(false);
        if !ready {
            let status = child.wait().map(|s| s.to_string()).unwrap_or_default();
            let _ = reader.join();
            panic!(
                "supervisor did not start listening ({status}); log:\n{}",
                log.0.lock().unwrap().join("\n")
            );
        }
        Supervisor { child: Some(child), socket, dir, log, reader: Some(reader) }
    }

    /// The supervisor's pid.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map(Child::id).unwrap_or(0)
    }

    /// The pid of the worker that drives `target_id` (its command line names the target).
    pub fn worker_of(&self, target_id: &str) -> u32 {
        descendant_naming(self.pid(), &format!("--target-id\0{target_id}\0"))
            .unwrap_or_else(|| panic!("no worker for target {target_id}"))
    }

    /// Everything it logged so far (JSON lines).
    pub fn log_text(&self) -> String {
        self.log.0.lock().unwrap().join("\n")
    }

    /// Makes the log current: sends `session.list` and waits for its `browser_action_succeeded` line
    /// (the `n`th such line: pass how many `session.list` calls this supervisor has answered so far,
    /// plus one).
    pub async fn settle_log(&self, client: &sb_client::Client) {
        let before = self.log_events().iter().filter(|e| is_list_done(e)).count();
        client.session_list().await.expect("session.list");
        let log = self.log.clone();
        let want = before + 1;
        tokio::task::spawn_blocking(move || {
            let (lines, arrived) = &*log;
            let deadline = std::time::Instant::now() + Duration::from_secs(30);
            let mut seen = lines.lock().unwrap();
            loop {
                let n = seen.iter().filter_map(|l| serde_json::from_str(l).ok()).filter(is_list_done).count();
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                if n >= want || left.is_zero() {
                    return;
                }
                seen = arrived.wait_timeout(seen, left).unwrap().0;
            }
        })
        .await
        .unwrap();
    }

    /// Waits (at most 30 s, woken by each new log line) until `ready` holds for the parsed log
    /// events; panics naming `what` otherwise.
    pub fn wait_for_log(&self, what: &str, ready: impl Fn(&[serde_json::Value]) -> bool) {
        let (lines, arrived) = &*self.log;
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let mut seen = lines.lock().unwrap();
        loop {
            let events: Vec<serde_json::Value> =
                seen.iter().filter_map(|l| serde_json::from_str(l).ok()).collect();
            if ready(&events) {
                return;
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            assert!(!left.is_zero(), "waited 30 s for {what}; log:\n{}", seen.join("\n"));
            seen = arrived.wait_timeout(seen, left).unwrap().0;
        }
    }

    /// A client connected to its socket.
    pub async fn client(&self) -> sb_client::Client {
        sb_client::Client::connect(&self.socket).await.expect("connect")
    }

    /// SIGKILL (no clean-up at all), then the dir, kept for a supervisor started after it.
    pub fn kill_keep_dir(mut self) -> tempfile::TempDir {
        self.signal_and_wait(nix::sys::signal::Signal::SIGKILL);
        std::mem::replace(&mut self.dir, temp_dir())
    }

    /// How many log lines are the event `name`.
    pub fn count_events(&self, name: &str) -> usize {
        self.log_events().iter().filter(|e| e["message"] == name).count()
    }

    /// The JSON log lines so far, parsed (lines that are not JSON are skipped).
    pub fn log_events(&self) -> Vec<serde_json::Value> {
        self.log.0.lock().unwrap().iter().filter_map(|l| serde_json::from_str(l).ok()).collect()
    }

    /// Starts the supervisor in a fresh directory with the configuration file `toml`.
    pub fn with_config(toml: &str) -> Supervisor {
        let dir = temp_dir();
        let args = Supervisor::config_args(&dir, toml);
        Supervisor::start_in(dir, &args.iter().map(String::as_str).collect::<Vec<_>>())
    }

    /// [`Supervisor::with_config`], `serve` in a session of its own (`setsid`), as a container's
    /// entrypoint runs: where the kernel's autogroups apply (on, in the root cpu cgroup), its CPU
    /// share is then not the caller's.
    pub fn with_config_as_entrypoint(toml: &str) -> Supervisor {
        let mut command = Command::new(bin_path("sandbox-browser"));
        in_own_session(&mut command);
        Supervisor::launch_with_config(command, toml)
    }

    /// Writes `toml` to `<dir>/config.toml` and returns the `--config` arguments for it.
    pub fn config_args(dir: &tempfile::TempDir, toml: &str) -> Vec<String> {
        let path = dir.path().join("config.toml");
        std::fs::write(&path, toml).expect("write config");
        vec!["--config".into(), path.display().to_string()]
    }

    /// SIGTERM, then wait for the exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        self.signal_and_wait(nix::sys::signal::Signal::SIGTERM)
    }

    /// Sends `signal`, then waits for the exit status (and for the log reader to see the end).
    pub fn signal_and_wait(&mut self, signal: nix::sys::signal::Signal) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("running");
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal);
        let status = child.wait().expect("wait");
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        status
    }
}

impl Drop for Supervisor {
    /// Stops the supervisor; when the test is failing, prints its last action lines and its
    /// warnings and errors (a browser's restart and why, a worker's end) first, each with its
    /// timestamp (and the action's own `duration_ms`), so that a late answer tells whether the time
    /// went in the supervisor or on the way to the test, and an unexpected reset tells its cause.
    fn drop(&mut self) {
        if std::thread::panicking() {
            let lines = self.log.0.lock().unwrap();
            let actions: Vec<&String> = lines
                .iter()
                .filter(|l| {
                    l.contains("\"browser_action_")
                        || l.contains("\"level\":\"WARN\"")
                        || l.contains("\"level\":\"ERROR\"")
                })
                .collect();
            let tail = &actions[actions.len().saturating_sub(POST_MORTEM)..];
            let tail: Vec<&str> = tail.iter().map(|l| l.as_str()).collect();
            eprintln!("the supervisor's last action, warning and error lines:\n{}", tail.join("\n"));
        }
        if self.child.is_some() {
            let _ = self.terminate();
        }
    }
}

/// How many of its last action, warning and error log lines a failing test's supervisor prints.
const POST_MORTEM: usize = 20;

fn is_list_done(e: &serde_json::Value) -> bool {
    e["message"] == "browser_action_succeeded" && e["browser.action"] == "session.list"
}

/// A fresh temp dir for a supervisor (`sbtest-*`).
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("sbtest-").tempdir().expect("temp dir")
}

/// Processes (not zombies) whose command line contains `needle`.
pub fn processes_naming(needle: &str) -> Vec<u32> {
    let all: Vec<u32> = std::fs::read_dir("/proc")
        .map(|d| d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).collect())
        .unwrap_or_default();
    all.into_iter().filter(|&p| command_line(p).is_some_and(|c| c.contains(needle)) && alive(p)).collect()
}

/// `command` runs in a session of its own (`setsid` before exec), as a container's entrypoint or
/// another terminal's job does: where the kernel's autogroups apply (on, in the root cpu cgroup), a
/// session is a scheduling group.
pub fn in_own_session(command: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid is async-signal-safe.
    unsafe { command.pre_exec(|| nix::unistd::setsid().map(|_| ()).map_err(std::io::Error::from)) }
}

/// All descendants of `pid` (children, grandchildren, ...), from one read of `/proc`.
pub fn descendants(pid: u32) -> Vec<u32> {
    // The process table, read once: each process's parent.
    let mut children: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(child) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let parent = stat_fields(child).and_then(|f| f.get(1)?.parse().ok());
        if let Some(parent) = parent {
            children.entry(parent).or_default().push(child);
        }
    }
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        found.extend(children.get(&found[i]).cloned().unwrap_or_default());
        i += 1;
    }
    found.remove(0);
    found
}

/// The first descendant of `pid` whose command line (NUL-separated arguments) contains `needle`.
pub fn descendant_naming(pid: u32, needle: &str) -> Option<u32> {
    descendants(pid).into_iter().find(|&p| command_line(p).is_some_and(|c| c.contains(needle)))
}

/// The command line of process `pid` as `/proc/<pid>/cmdline` has it (arguments NUL-separated; Chromium's
/// processes rewrite theirs as one space-separated string); `None` when it is gone.
pub fn command_line(pid: u32) -> Option<String> {
    Some(String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).ok()?).into_owned())
}

/// Whether `pid` exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    stat_fields(pid).is_some_and(|f| f.first().is_some_and(|s| s != "Z"))
}

/// The fields of `/proc/<pid>/stat` after the command name (`state`, `ppid`, ... : field 3 of
/// proc(5) is index 0 here); `None` when the process is gone.
pub fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) S ...`: the fields follow the last `)` (a command name may hold one).
    Some(stat.get(stat.rfind(')')? + 1..)?.split_whitespace().map(str::to_string).collect())
}

pub mod remote;

/// The test pages, by path.
pub mod pages {
    /// `/test/pixel.png`: a 1x1 transparent PNG.
    pub const PIXEL: &[u8] = &[
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00,
        0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00,
        0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01,
        0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];

    /// A page that, once loaded, moves its URL within the document every millisecond for 300 ms
    /// (`history.replaceState`: a `Page.navigatedWithinDocument` each time).
    pub const REPLACING: &str = r#"<!doctype html><html><head><title>Replacing</title></head>
<body><h1>Replacing</h1><script>
addEventListener('load', () => {
  let n = 0;
  const t = setInterval(() => { history.replaceState(null, '', '#' + (++n)); if (n >= 300) clearInterval(t); }, 1);
});
</script></body></html>"#;

    /// `/test/replacing/{ms}` (answered after `ms`, never from the cache): a page titled
    /// `"Replacing n"`, `n` counting its loads in the tab (`sessionStorage`), that moves its URL within the
    /// document every 20 ms from the time it is parsed (`history.replaceState`).
    pub const REPLACING_COUNTED: &str = r#"<!doctype html><html><head><title>Replacing</title></head>
<body><h1>Replacing</h1><script>
const loads = Number(sessionStorage.loads || 0) + 1;
sessionStorage.loads = loads;
document.title = 'Replacing ' + loads;
let n = 0;
setInterval(() => history.replaceState(null, '', '#' + (++n)), 20);
</script></body></html>"#;

    /// `/test/redirecting.html`: sends the tab on to `/test/index.html` from a script in its head, before
    /// it has parsed the rest (a client redirect, as login pages do).
    pub const REDIRECTING: &str = r#"<!doctype html><html><head><title>Redirecting</title>
<script>location.href = '/test/index.html';</script></head><body><p>Redirecting</p></body></html>"#;

    /// `/test/reloading.html`: reloads itself once each load is done, 100 times (counted in
    /// `sessionStorage`), then stays, with a button "Done" that sets the title to `done`.
    pub const RELOADING: &str = r#"<!doctype html><html><head><title>Reloading</title></head>
<body><h1>Reloading</h1><p id="n"></p><script>
const n = Number(sessionStorage.getItem('reloads') || 0);
document.getElementById('n').textContent = 'reload ' + n;
if (n < 100) {
  sessionStorage.setItem('reloads', n + 1);
  addEventListener('load', () => setTimeout(() => location.reload(), 0));
} else {
  const b = document.createElement('button');
  b.textContent = 'Done';
  b.onclick = () => { document.title = 'done'; };
  document.body.append(b);
}
</script></body></html>"#;

    /// `/test/busy-after-load.html` ("Busy"): its main thread spins for 2.5 s once loaded, so a script
    /// sent to it then (a title read) does not answer for that long.
    pub const BUSY_AFTER_LOAD: &str = r#"<!doctype html><html><head><title>Busy</title></head>
<body><h1>Busy</h1><script>
addEventListener('load', () => { const end = Date.now() + 2500; while (Date.now() < end) {} });
</script></body></html>"#;

    /// A file input (`#resume`, "Resume", multiple) that lists the chosen files' names and sizes in
    /// `#chosen` when they change, and a text input.
    pub const UPLOAD: &str = r#"<!doctype html><html><head><title>Upload</title></head>
<body><label>Resume <input id="resume" type="file" multiple></label><input id="text" aria-label="Note">
<p id="chosen"></p><script>
document.getElementById('resume').addEventListener('change', (e) => {
  document.getElementById('chosen').textContent = [...e.target.files].map(f => f.name + ':' + f.size).join(',');
});
</script></body></html>"#;

    /// `/`: a title, a heading, an input and a button.
    pub const INDEX: &str = r#"<!doctype html><html><head><title>Test Index</title></head>
<body><h1>Hello from the test server</h1><p id="intro">Some text to extract.</p>
<input id="name" value=""><button id="go" onclick="document.title='clicked'">Go</button></body></html>"#;

    /// A big button at (100, 100) CSS px, 300x200 (its centre at (250, 200)), that says "Clicked by a
    /// person" once clicked and asks `/test/release/takeover` (a test waits for it with
    /// `/test/hold/takeover`); a text field below it.
    pub const TAKEOVER: &str = r#"<!doctype html><html><head><title>Takeover</title></head>
<body style="margin:0">
<button id="b" style="position:fixed;left:100px;top:100px;width:300px;height:200px"
  onclick="this.textContent='Clicked by a person'; fetch('/test/release/takeover')">Press</button>
<input id="i" aria-label="Password" type="password" style="position:fixed;left:100px;top:400px">
</body></html>"#;

    /// `/test/nav.html`: a link, a form submitted with Enter and a select that navigates, each to a
    /// page that answers after 200 ms (`/test/slow/200`).
    pub const NAV: &str = r##"<!doctype html><html><head><title>Nav</title></head>
<body><h1>Navigation</h1><a id="next" href="/test/slow/200">Next page</a>
<form action="/test/slow/200"><input id="q" name="q" aria-label="Query"></form>
<select id="go" aria-label="Go to" onchange="location.href = this.value"><option value="">Pick</option><option value="/test/slow/200">Slow</option></select>
<a id="hash" href="#part">Same page</a><p id="part">Part</p></body></html>"##;

    /// `/test/shadow.html`: a span and a button in an open shadow root, and a link whose text is
    /// light-DOM content slotted into a shadow `<a>`.
    pub const SHADOW: &str = r##"<!doctype html><html><head><title>Shadow</title></head>
<body><h1>Shadow</h1><div id="host"></div><my-link>Docs</my-link>
<script>
  const root = document.querySelector('#host').attachShadow({ mode: 'open' });
  root.innerHTML = '<span class="inner">Inside</span><button id="deep" onclick="document.title = \'deep clicked\'">Deep</button>';
  customElements.define('my-link', class extends HTMLElement {
    constructor() {
      super();
      this.attachShadow({ mode: 'open' }).innerHTML = '<a href="#docs" onclick="document.title = \'link clicked\'"><slot></slot></a>';
    }
  });
</script></body></html>"##;

    /// `/test/opener.html`: opens a popup from its load handler (no user gesture).
    pub const OPENER: &str = r#"<!doctype html><html><head><title>Opener</title></head>
<body onload="window.opened = !!window.open('/test/index.html')"><h1>Opener</h1></body></html>"#;

    /// `/test/form.html`: a form with the usual controls, a covered button and a disabled one.
    pub const FORM: &str = r#"<!doctype html><html><head><title>Form</title>
<style>#cover { position: fixed; left: 0; top: 0; width: 100vw; height: 100vh; background: rgba(0,0,0,.1); }</style></head>
<body><h1>Sign up</h1>
<p>Fill in <b>all</b> fields.</p>
<label>Name <input id="name" name="name"></label>
<label><input type="checkbox" id="agree"> Agree</label>
<a href="/test/index.html">Back home</a>
<ul><li>One</li><li>Two</li></ul>
<button id="save" onclick="document.title = 'saved:' + document.querySelector('#name').value">Save</button>
<button id="off" disabled>Off</button>
<div id="log"></div>
<script>
  const log = (e) => document.querySelector('#log').textContent += e.type + (e.key ? ':' + e.key : '') + (e.button !== undefined && e.type.includes('click') || e.type === 'contextmenu' || e.type === 'auxclick' ? ':' + e.button + ':' + e.detail : '') + (e.ctrlKey ? '+ctrl' : '') + (e.shiftKey ? '+shift' : '') + ' ';
  for (const t of ['keydown', 'keyup', 'click', 'dblclick', 'contextmenu', 'auxclick']) document.querySelector('#name').addEventListener(t, log);
  for (const t of ['click', 'dblclick', 'contextmenu', 'auxclick']) document.querySelector('#save').addEventListener(t, log);
</script></body></html>"#;

    /// `/test/locators.html`: elements each of Playwright's generated locators names (a test id, a
    /// role and name, a placeholder, a label, an alt text, a text, a title; two buttons of one name; a
    /// `<div>` with nothing of its own).
    pub const LOCATORS: &str = r#"<!doctype html><html><head><title>Locators</title></head><body>
<h1>Orders</h1>
<button data-testid="save-order">Save</button>
<button id="submit">Submit</button>
<ul><li>Pen <button class="del">Delete</button></li><li>Ink <button class="del">Delete</button></li></ul>
<input id="search" placeholder="Search orders">
<label>Quantity <input type="number" id="qty"></label>
<img id="logo" src="data:," alt="Company logo">
<p id="ship">Free shipping over 50 euros</p>
<span id="help" title="Help text">?</span>
<div id="box"><div><span id="ok">ok</span></div></div>
<section><div></div><div class="leaf"></div></section>
</body></html>"#;

    /// `/test/unfinished.html`: a page whose `load` never comes (its image never arrives).
    pub const UNFINISHED: &str = r#"<!doctype html><html><head><title>Unfinished</title></head>
<body><h1>Unfinished</h1><img alt="never" src="/test/never"></body></html>"#;

    /// `/test/selectors.html`: elements for Playwright's selector engines and locators (text, role,
    /// label, placeholder, alt, title, test id, XPath, chains), one in an open shadow root.
    pub const SELECTORS: &str = r##"<!doctype html><html><head><title>Selectors</title></head>
<body><h1 id="h1">Selectors</h1>
<nav id="nav"><a id="one" href="#one">One</a> <a id="two" href="#two">Two items</a></nav>
<form id="form">
<label for="email">Email address</label><input id="email" placeholder="you@example.com">
<label id="pwl">Password <input type="password" id="pw"></label>
<input aria-label="Search docs" id="q" title="Search here">
<button type="button" id="save" onclick="out.textContent = 'saved'">Save</button>
<button type="button" id="saveall" onclick="out.textContent = 'saved all'">Save all</button>
<button type="button" disabled id="dis">Disabled thing</button>
<input type="checkbox" id="cb" aria-label="Remember me" checked>
<input type="submit" value="Send it" id="send" onclick="event.preventDefault(); out.textContent = 'sent'">
<img alt="Company logo" src="data:," id="logo">
<div data-testid="card" id="card"><span id="cardspan">Card <b id="cardb">title</b></span></div>
<div data-test="x" id="dt">dt</div>
<h2 id="h2">Second heading</h2>
<button style="display:none" id="hidden">Hidden button</button>
</form>
<div id="host"></div>
<p id="out"></p>
<p id="chev">Next &gt;&gt; page</p>
<script>document.querySelector('#host').attachShadow({ mode: 'open' }).innerHTML =
  '<button id="inner">Shadow save</button><span id="deep">deep text</span>';</script>
</body></html>"##;

    /// `/test/frameset.html`: a `<frameset>` page (old documentation sites, intranets):
    /// `/test/index.html` and `/test/form.html` side by side.
    pub const FRAMESET: &str = r#"<!doctype html><html><head><title>Frameset</title></head>
<frameset cols="40%,60%"><frame name="left" src="/test/index.html"><frame name="main" src="/test/form.html"></frameset></html>"#;

    /// `/test/popup.html`: opens popups, by `window.open` and by a `target=_blank` link.
    pub const POPUP: &str = r#"<!doctype html><html><head><title>Opener</title></head><body>
<button id="open" onclick="window.open('/test/index.html')">Open a window</button>
<a id="blank" href="/test/form.html" target="_blank">Form in a new tab</a>
</body></html>"#;

    /// `/test/alerting.html`: raises an `alert` as it loads; its title becomes "Answered" once the
    /// alert is.
    pub const ALERTING: &str = r#"<!doctype html><html><head><title>Alerting</title></head><body>
<script>alert('from the popup'); document.title = 'Answered';</script></body></html>"#;

    /// `/test/frames.html`: an open shadow root, a same-site iframe, and a cross-site iframe (the page
    /// is served on 127.0.0.1; the iframe comes from `localhost`, another site: an out-of-process iframe).
    pub const FRAMES: &str = r#"<!doctype html><html><head><title>Frames</title></head><body>
<h1>Outer heading</h1>
<div id="host"></div>
<iframe id="same" title="Same site" style="margin-left: 400px" srcdoc="<button onclick=&quot;document.title='inner clicked'&quot;>Inner button</button><input id=inner-input aria-label='Inner field'>"></iframe>
<iframe id="remote" title="Cross site"></iframe>
<script>
  const root = document.querySelector('#host').attachShadow({mode: 'open'});
  root.innerHTML = '<button onclick="document.title = `shadow clicked`">Shadow button</button>';
  // The cross-site child says when it has loaded: the title becomes "Frames ready".
  addEventListener('message', (e) => { if (e.data === 'child ready') document.title = 'Frames ready'; });
  document.querySelector('#remote').src = 'http://localhost:' + location.port + '/test/child.html';
</script></body></html>"#;

    /// `/test/child.html`: the cross-site iframe's document.
    pub const CHILD: &str = r#"<!doctype html><html><head><title>Child</title></head><body>
<p>Remote text</p><button onclick="document.body.dataset.clicked = 'yes'; document.querySelector('p').textContent = 'Remote clicked'">Remote button</button>
<script>parent.postMessage('child ready', '*');</script>
</body></html>"#;

    /// `/test/big/<blocks>`: a generated page of `blocks` blocks of five elements each
    /// (`<div><h3>Item i</h3><p>Text <a>link i</a></p><button>Go i</button></div>`), plus a few.
    pub fn big(blocks: usize) -> String {
        let mut body = String::with_capacity(blocks * 110);
        for i in 0..blocks {
            body.push_str(&format!(
                "<div><h3>Item {i}</h3><p>Text <a href=\"/x{i}\">link {i}</a></p><button onclick=\"document.title='go {i}'\">Go {i}</button></div>"
            ));
        }
        format!("<!doctype html><html><head><title>Big {blocks}</title></head><body>{body}</body></html>")
    }

    /// `/test/bigframe/<blocks>`: [`big`] with a same-origin iframe first, holding a button that sets
    /// the page's title to `framed`, then a cross-site one ([`CHILD`], from `localhost`: out of
    /// process); the body gets `data-child="ready"` once that one has loaded.
    pub fn big_framed(blocks: usize) -> String {
        let frames = r#"<iframe title="Inner" srcdoc="<button onclick=&quot;parent.document.title='framed'&quot;>Framed button</button>"></iframe>
<iframe title="Remote" id="remote"></iframe>
<script>
  addEventListener('message', (e) => { if (e.data === 'child ready') document.body.dataset.child = 'ready'; });
  document.querySelector('#remote').src = 'http://localhost:' + location.port + '/test/child.html';
</script>"#;
        big(blocks).replacen("<body>", &format!("<body>{frames}"), 1)
    }

    /// `/test/nested.html`: an out-of-process iframe (`a.test`) holding another (`b.test`, [`CHILD`]):
    /// three sites, so three renderers. Needs the browser to resolve `*.test` to the loopback
    /// ([`NESTED_FLAGS`]). The title becomes "Nested ready" once the innermost document has loaded.
    pub const NESTED: &str = r#"<!doctype html><html><head><title>Nested</title></head><body>
<h1>Top</h1><iframe title="Middle" id="middle" style="margin-left: 30px"></iframe>
<script>
  addEventListener('message', (e) => { if (e.data === 'child ready') document.title = 'Nested ready'; });
  document.querySelector('#middle').src = 'http://a.test:' + location.port + '/test/middle.html';
</script></body></html>"#;

    /// `/test/middle.html`: the middle frame of [`NESTED`]; passes the innermost frame's message up.
    pub const MIDDLE: &str = r#"<!doctype html><html><head><title>Middle</title></head><body>
<p>Middle text</p><iframe title="Deep" id="deep" style="margin-top: 20px"></iframe>
<script>
  addEventListener('message', (e) => parent.postMessage(e.data, '*'));
  document.querySelector('#deep').src = 'http://b.test:' + location.port + '/test/child.html';
</script></body></html>"#;

    /// `/test/siblings.html`: eleven out-of-process iframes of one site (`a.test`, [`HANGABLE`]: one
    /// renderer) beside one of another (`b.test`, [`HOLDER`]) that holds a same-process iframe with a
    /// button ("Inner button": sets its document's title to "inner clicked"). Needs [`NESTED_FLAGS`].
    /// The title becomes "Siblings ready" once all twelve have loaded.
    pub const SIBLINGS: &str = r#"<!doctype html><html><head><title>Siblings</title></head><body>
<div id="stuck"></div><iframe title="Holder" id="holder"></iframe>
<script>
  let loaded = 0;
  addEventListener('message', (e) => { if (e.data === 'ready' && ++loaded === 12) document.title = 'Siblings ready'; });
  for (let i = 0; i < 11; i++) {
    const f = document.createElement('iframe');
    f.title = 'Stuck ' + i;
    f.src = 'http://a.test:' + location.port + '/test/hangable.html';
    document.querySelector('#stuck').append(f);
  }
  document.querySelector('#holder').src = 'http://b.test:' + location.port + '/test/holder.html';
</script></body></html>"#;

    /// `/test/hangable.html`: on the message `hang`, asks `/test/release/hung` and then
    /// `/test/hold/never` synchronously, in one task: once `/test/hold/hung` has answered, its renderer's
    /// main thread is blocked for good (no CPU spent) and answers no CDP call.
    pub const HANGABLE: &str = r#"<!doctype html><html><head><title>Hangable</title></head><body><p>Here</p>
<script>
  const get = (path) => { const x = new XMLHttpRequest(); x.open('GET', path, false); x.send(); };
  addEventListener('message', (e) => { if (e.data === 'hang') { get('/test/release/hung'); get('/test/hold/never'); } });
  parent.postMessage('ready', '*');
</script></body></html>"#;

    /// `/test/holder.html`: [`SIBLINGS`]'s `b.test` frame: a same-process iframe with "Inner button".
    pub const HOLDER: &str = r#"<!doctype html><html><head><title>Holder</title></head><body>
<iframe title="Inner" onload="parent.postMessage('ready', '*')" srcdoc="<button onclick=&quot;document.title='inner clicked'&quot;>Inner button</button>"></iframe>
</body></html>"#;

    /// The configuration [`NESTED`] needs: Chromium resolves `a.test` and `b.test` to 127.0.0.1.
    pub const NESTED_FLAGS: &str =
        "[browser]\nextra_flags = [\"--host-resolver-rules=MAP *.test 127.0.0.1\"]\n";

    /// `/test/bignested/<blocks>`: [`big`] with [`NESTED`]'s frames first.
    pub fn big_nested(blocks: usize) -> String {
        let body = &NESTED[NESTED.find("<body>").unwrap() + 6..NESTED.find("</body>").unwrap()];
        big(blocks).replacen("<body>", &format!("<body>{body}"), 1)
    }

    /// `/test/smallbig.html`: a small page whose same-origin iframe is [`big`] with 4000 blocks; the
    /// body gets `data-loaded="yes"` when the iframe has loaded.
    pub const SMALL_BIG: &str = r#"<!doctype html><html><head><title>Small</title></head><body>
<h1>Small</h1><iframe title="Big" src="/test/big/4000" onload="document.body.dataset.loaded = 'yes'"></iframe></body></html>"#;

    /// `/test/smallbigremote.html`: [`SMALL_BIG`] with the iframe from `localhost` (cross-site: out of
    /// process in Chromium, in process but unreachable by script in headless shell).
    pub const SMALL_BIG_REMOTE: &str = r#"<!doctype html><html><head><title>Small</title></head><body>
<h1>Small</h1><iframe title="Big" id="big"></iframe>
<script>
  // Set after the initial about:blank has loaded (at insertion): only the cross-site document's load counts.
  const big = document.querySelector('#big');
  big.onload = () => { document.body.dataset.loaded = 'yes'; };
  big.src = 'http://localhost:' + location.port + '/test/big/4000';
</script>
</body></html>"#;

    /// `/long`: a page much taller than the viewport (about 6000 CSS px).
    pub fn long() -> String {
        let rows: String =
            (0..300).map(|i| format!("<p style=\"height:20px;margin:0\">row {i}</p>")).collect();
        format!("<!doctype html><html><head><title>Long</title></head><body style=\"margin:0\">{rows}</body></html>")
    }
}

/// Launches a headless Chromium of the runtime's own (800x600) with its profile under `dir`.
pub async fn launch_browser(dir: &Path) -> sb_supervisor::lifecycle::browser::Browser {
    launch_browser_taking(dir, sb_cdp::MAX_MESSAGE_BYTES).await
}

/// [`launch_browser`], taking CDP messages of at most `max_message_bytes` from it.
pub async fn launch_browser_taking(
    dir: &Path,
    max_message_bytes: usize,
) -> sb_supervisor::lifecycle::browser::Browser {
    let config = sb_supervisor::lifecycle::browser::BrowserConfig {
        path: None,
        no_sandbox: false,
        runtime_dir: dir.to_path_buf(),
        window: (800, 600),
        js_heap_mb: 1024,
        extra_flags: Vec::new(),
        headless: true,
        remote: None,
        max_message_bytes,
    };
    sb_supervisor::lifecycle::browser::Browser::launch(
        &config,
        &sb_supervisor::lifecycle::spawner::Spawner::start(),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}: {}", e.stderr_tail))
}

/// What the answer's trip from the supervisor to the test may add on a loaded machine (ms).
pub const TRIP_MS: u64 = 25;

/// Runs `call` and checks the product's contract: an action that cannot finish answers within
/// `[budget - EARLY, budget + LATE]` (plus [`TRIP_MS`] for the answer to reach the test), budget in ms.
pub async fn timed<T>(budget: u64, call: impl std::future::Future<Output = T>) -> T {
    let early = sb_protocol::margins::EARLY.as_millis() as u64;
    let late = sb_protocol::margins::LATE.as_millis() as u64;
    let at = utc_time_of_day();
    let started = std::time::Instant::now();
    let out = call.await;
    let took = started.elapsed().as_millis() as u64;
    assert!(
        took + early >= budget,
        "answered early: after {took} ms with a budget of {budget} ms (sent {at})"
    );
    assert!(
        took <= budget + late + TRIP_MS,
        "answered late: after {took} ms with a budget of {budget} ms (sent {at} UTC; the supervisor's \
         duration_ms for it is in its log lines below)"
    );
    out
}

/// The time of day now, UTC, as `hh:mm:ss.mmm` (the supervisor's log timestamps' clock).
fn utc_time_of_day() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let (s, ms) = (now.as_secs() % 86_400, now.subsec_millis());
    format!("{:02}:{:02}:{:02}.{ms:03}", s / 3600, s / 60 % 60, s % 60)
}

/// `page` answered after the path's `ms` (at most 60 s), never from the cache (`no-store`: a history
/// step asks the server again): a slow server's page.
async fn slowly(
    axum::extract::Path(ms): axum::extract::Path<u64>,
    page: &'static str,
) -> impl axum::response::IntoResponse {
    tokio::time::sleep(Duration::from_millis(ms.min(60_000))).await;
    ([(axum::http::header::CACHE_CONTROL, "no-store")], Html(page))
}

/// A local HTTP server for test pages.
pub struct PageServer {
    /// `http://127.0.0.1:<port>`, no trailing slash.
    pub base: String,
    /// The directory served under `/`, when there is one.
    pub root: Option<PathBuf>,
    task: tokio::task::JoinHandle<()>,
}

impl PageServer {
    /// Serves the test pages, plus `static_root` (if given) under `/`.
    pub async fn start(static_root: Option<&Path>) -> PageServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        PageServer::serve(listener, static_root)
    }

    /// Serves on an already bound listener.
    pub fn serve(listener: tokio::net::TcpListener, static_root: Option<&Path>) -> PageServer {
        let addr: SocketAddr = listener.local_addr().expect("addr");
        // Rendezvous points of /test/hold and /test/release, by name.
        let holds: Arc<Mutex<std::collections::HashMap<String, Arc<tokio::sync::Notify>>>> = Arc::default();
        let point = move |name: &str| holds.lock().unwrap().entry(name.to_string()).or_default().clone();
        let (hold, release) = (point.clone(), point);
        let mut app = Router::new()
            // Answers once /test/release/{name} was asked (before or after): a request that waits on
            // another client's, in any session or browser context.
            .route(
                "/test/hold/{name}",
                get(move |axum::extract::Path(name): axum::extract::Path<String>| {
                    let point = hold(&name);
                    async move {
                        point.notified().await;
                        "released"
                    }
                }),
            )
            .route(
                "/test/release/{name}",
                get(move |axum::extract::Path(name): axum::extract::Path<String>| {
                    release(&name).notify_one();
                    async { "ok" }
                }),
            )
            .route("/test/index.html", get(|| async { Html(pages::INDEX) }))
            // A 302 to the URL in `?to=`.
            .route(
                "/test/redirect",
                get(
                    |axum::extract::Query(q): axum::extract::Query<
                        std::collections::HashMap<String, String>,
                    >| async move {
                        let to = q.get("to").cloned().unwrap_or_default();
                        (axum::http::StatusCode::FOUND, [(axum::http::header::LOCATION, to)])
                    },
                ),
            )
            // `bytes` bytes (at most 64 MiB) to download (`Content-Disposition: attachment`).
            .route(
                "/test/download/{bytes}",
                get(|axum::extract::Path(bytes): axum::extract::Path<usize>| async move {
                    (
                        [
                            (axum::http::header::CONTENT_TYPE, "application/octet-stream"),
                            (axum::http::header::CONTENT_DISPOSITION, "attachment; filename=\"data.bin\""),
                        ],
                        vec![b'x'; bytes.min(64 << 20)],
                    )
                }),
            )
            // Echoes a POST: `{"got": <the body>}` as JSON, with an `X-Echo: yes` header.
            .route(
                "/test/echo",
                axum::routing::post(|body: String| async move {
                    (
                        [
                            (axum::http::header::CONTENT_TYPE, "application/json"),
                            (axum::http::HeaderName::from_static("x-echo"), "yes"),
                        ],
                        serde_json::json!({"got": body}).to_string(),
                    )
                }),
            )
            // A 1x1 PNG.
            .route(
                "/test/pixel.png",
                get(|| async { ([(axum::http::header::CONTENT_TYPE, "image/png")], pages::PIXEL) }),
            )
            // A page of `n` images, each a URL never loaded before (`?r=<run>-<i>`, `r` from the query).
            .route(
                "/test/images/{n}",
                get(
                    |axum::extract::Path(n): axum::extract::Path<usize>,
                     axum::extract::RawQuery(run): axum::extract::RawQuery| async move {
                        let run = run.unwrap_or_default();
                        let imgs: String = (0..n.min(1000))
                            .map(|i| format!("<img src=\"/test/pixel.png?{run}-{i}\">"))
                            .collect();
                        Html(format!("<!doctype html><html><body>{imgs}</body></html>"))
                    },
                ),
            )
            .route("/test/long.html", get(|| async { Html(pages::long()) }))
            .route("/test/form.html", get(|| async { Html(pages::FORM) }))
            .route("/test/locators.html", get(|| async { Html(pages::LOCATORS) }))
            .route("/test/selectors.html", get(|| async { Html(pages::SELECTORS) }))
            .route("/test/unfinished.html", get(|| async { Html(pages::UNFINISHED) }))
            .route("/test/replacing.html", get(|| async { Html(pages::REPLACING) }))
            .route("/test/reloading.html", get(|| async { Html(pages::RELOADING) }))
            .route("/test/redirecting.html", get(|| async { Html(pages::REDIRECTING) }))
            .route("/test/busy-after-load.html", get(|| async { Html(pages::BUSY_AFTER_LOAD) }))
            .route("/test/upload.html", get(|| async { Html(pages::UPLOAD) }))
            .route("/test/popup.html", get(|| async { Html(pages::POPUP) }))
            .route("/test/alerting.html", get(|| async { Html(pages::ALERTING) }))
            .route("/test/frameset.html", get(|| async { Html(pages::FRAMESET) }))
            .route("/test/frames.html", get(|| async { Html(pages::FRAMES) }))
            .route("/test/child.html", get(|| async { Html(pages::CHILD) }))
            .route("/test/nested.html", get(|| async { Html(pages::NESTED) }))
            .route("/test/smallbig.html", get(|| async { Html(pages::SMALL_BIG) }))
            .route("/test/smallbigremote.html", get(|| async { Html(pages::SMALL_BIG_REMOTE) }))
            .route("/test/middle.html", get(|| async { Html(pages::MIDDLE) }))
            .route("/test/siblings.html", get(|| async { Html(pages::SIBLINGS) }))
            .route("/test/hangable.html", get(|| async { Html(pages::HANGABLE) }))
            .route("/test/holder.html", get(|| async { Html(pages::HOLDER) }))
            .route(
                "/test/bignested/{blocks}",
                get(|axum::extract::Path(blocks): axum::extract::Path<usize>| async move {
                    Html(pages::big_nested(blocks.min(50_000)))
                }),
            )
            .route(
                "/test/bigframe/{blocks}",
                get(|axum::extract::Path(blocks): axum::extract::Path<usize>| async move {
                    Html(pages::big_framed(blocks.min(50_000)))
                }),
            )
            .route(
                "/test/big/{blocks}",
                get(|axum::extract::Path(blocks): axum::extract::Path<usize>| async move {
                    Html(pages::big(blocks.min(50_000)))
                }),
            )
            // The index page and the replacing page, each answered slowly (`slowly`).
            .route("/test/slow/{ms}", get(|ms| slowly(ms, pages::INDEX)))
            .route("/test/replacing/{ms}", get(|ms| slowly(ms, pages::REPLACING_COUNTED)))
            // Sets an HttpOnly cookie (`sid=<value>`).
            .route(
                "/test/set-cookie/{value}",
                get(|axum::extract::Path(value): axum::extract::Path<String>| async move {
                    (
                        [(axum::http::header::SET_COOKIE, format!("sid={value}; HttpOnly; Path=/"))],
                        Html(pages::INDEX),
                    )
                }),
            )
            // Shows the Cookie header the request came with: `<p id="cookie">...</p>`.
            .route(
                "/test/cookie",
                get(|headers: axum::http::HeaderMap| async move {
                    let cookie = headers
                        .get(axum::http::header::COOKIE)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("")
                        .replace(['<', '>', '&'], "");
                    Html(format!("<!doctype html><title>Cookie</title><p id=\"cookie\">{cookie}</p>"))
                }),
            )
            // What the page's request and its first script saw: the `User-Agent` and `Accept-Language`
            // headers (and `X-Agent-Run`'s, in `#custom`), and `window.atLoad` (`navigator.language`, the time zone, `innerHeight`) set
            // by a script in its head.
            // HTTP Basic authentication: 401 with a `WWW-Authenticate` challenge, unless the request
            // carries `ada:lovelace`.
            .route(
                "/test/auth",
                get(|headers: axum::http::HeaderMap| async move {
                    let given = headers.get(axum::http::header::AUTHORIZATION).and_then(|v| v.to_str().ok());
                    if given == Some("Basic YWRhOmxvdmVsYWNl") {
                        axum::response::IntoResponse::into_response(Html("<!doctype html><title>Signed in</title><p id=\"who\">ada</p>"))
                    } else {
                        axum::response::IntoResponse::into_response((
                            axum::http::StatusCode::UNAUTHORIZED,
                            [(axum::http::header::WWW_AUTHENTICATE, "Basic realm=\"test\"")],
                            Html("<!doctype html><title>Unauthorized</title>"),
                        ))
                    }
                }),
            )
            .route(
                "/test/headers",
                get(|headers: axum::http::HeaderMap| async move {
                    let header = |name: axum::http::header::HeaderName| {
                        headers
                            .get(name)
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("")
                            .replace(['<', '>', '&'], "")
                    };
                    let (agent, language) =
                        (header(axum::http::header::USER_AGENT), header(axum::http::header::ACCEPT_LANGUAGE));
                    let custom = header(axum::http::HeaderName::from_static("x-agent-run"));
                    Html(format!(
                        "<!doctype html><title>Headers</title><script>window.atLoad = [navigator.language, \
                         Intl.DateTimeFormat().resolvedOptions().timeZone, innerHeight];</script>\
                         <p id=\"agent\">{agent}</p><p id=\"language\">{language}</p><p id=\"custom\">{custom}</p>"
                    ))
                }),
            )
            .route("/test/nav.html", get(|| async { Html(pages::NAV) }))
            .route("/test/takeover.html", get(|| async { Html(pages::TAKEOVER) }))
            .route("/test/opener.html", get(|| async { Html(pages::OPENER) }))
            .route("/test/shadow.html", get(|| async { Html(pages::SHADOW) }))
            // Accepts the request and never answers: a server that hangs.
            .route("/test/never", get(std::future::pending::<Html<&'static str>>));
        if let Some(root) = static_root {
            app = app.fallback_service(tower_http::services::ServeDir::new(root));
        }
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        PageServer { base: format!("http://{addr}"), root: static_root.map(Path::to_path_buf), task }
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// The body of `GET path` from this server, asked by the test itself (not through a browser):
    /// `/test/hold/{name}` returns once a page asked `/test/release/{name}`.
    pub async fn get(&self, path: &str) -> String {
        http_get(&url::Url::parse(&self.base).unwrap(), path).await.1
    }
}

impl Drop for PageServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The page server, a supervisor with `extra` arguments and a client connected to it.
pub struct Fixture {
    /// The test pages.
    pub pages: PageServer,
    /// The runtime under test.
    pub sup: Supervisor,
    /// A client on its socket.
    pub c: sb_client::Client,
}

impl Fixture {
    /// Starts the page server and a supervisor with default settings, and connects a client.
    pub async fn start() -> Fixture {
        Fixture::with_args(&[]).await
    }

    /// [`Fixture::start`] with extra `serve` arguments.
    pub async fn with_args(extra: &[&str]) -> Fixture {
        let pages = PageServer::start(None).await;
        let sup = Supervisor::start(extra);
        let c = sup.client().await;
        Fixture { pages, sup, c }
    }

    /// [`Fixture::start`] with the configuration file `toml`.
    pub async fn with_config(toml: &str) -> Fixture {
        let pages = PageServer::start(None).await;
        let sup = Supervisor::with_config(toml);
        let c = sup.client().await;
        Fixture { pages, sup, c }
    }
}

/// A configuration whose URL policy also loads `data:` and `chrome:` URLs (for tests that load a page
/// from a `data:` URL or crash a renderer with `chrome://crash`).
pub const MORE_SCHEMES: &str =
    "[policy]\nallowed_schemes = [\"http\", \"https\", \"about\", \"data\", \"chrome\"]\n";

/// A configuration that opens a DevTools port beside the runtime's pipe
/// (`--remote-debugging-port=0` in `extra_flags`): only for tests that need a hand on the browser
/// from outside the runtime (crashing a renderer, the bench's raw CDP baseline). The runtime itself
/// never opens one (docs/security.md).
pub const DEVTOOLS_PORT: &str = "[browser]\nextra_flags = [\"--remote-debugging-port=0\"]\n";

/// The browser WebSocket URL of the browser a supervisor in `dir` runs with [`DEVTOOLS_PORT`] (from
/// its profile's `DevToolsActivePort`).
///
/// # Panics
/// When no profile under `dir` has the file (the port is not open).
pub fn devtools_ws_url(dir: &Path) -> String {
    let found = std::fs::read_dir(dir).into_iter().flatten().flatten().find_map(|e| {
        let text = std::fs::read_to_string(e.path().join("DevToolsActivePort")).ok()?;
        let mut lines = text.lines();
        Some(format!("ws://127.0.0.1:{}{}", lines.next()?.trim(), lines.next()?.trim()))
    });
    found.unwrap_or_else(|| panic!("no DevToolsActivePort under {}", dir.display()))
}

/// What holds an answer of the runtime: a client call's result, or a raw [`sb_protocol::api::Response`].
pub trait Answer {
    /// The runtime's error, or `Err(what came instead)`.
    fn into_error(self) -> Result<sb_protocol::ErrorBody, String>;
}

impl<T: std::fmt::Debug> Answer for Result<T, sb_client::ClientError> {
    fn into_error(self) -> Result<sb_protocol::ErrorBody, String> {
        match self {
            Err(sb_client::ClientError::Api(e)) => Ok(e),
            other => Err(format!("{other:?}")),
        }
    }
}

impl Answer for &sb_protocol::api::Response {
    fn into_error(self) -> Result<sb_protocol::ErrorBody, String> {
        self.error.clone().ok_or_else(|| format!("ok: {:?}", self.result))
    }
}

/// The runtime's error in `answer`; panics (at the caller's line) when the call succeeded or failed in
/// the client.
#[track_caller]
pub fn api_error(answer: impl Answer) -> sb_protocol::ErrorBody {
    match answer.into_error() {
        Ok(e) => e,
        Err(other) => panic!("expected the runtime's error, got {other}"),
    }
}

/// Starts session `sid` at `/test/frames.html` ([`pages::FRAMES`]) and waits (within `timeout_ms`, the
/// method's default when `None`) until its cross-site iframe has loaded.
pub async fn session_at_frames(
    c: &sb_client::Client,
    pages: &PageServer,
    sid: &str,
    timeout_ms: Option<u64>,
) {
    c.session_start(Some(sid)).await.unwrap();
    c.goto(sid, &pages.url("/test/frames.html"), None).await.unwrap();
    let ready = sb_protocol::api::WaitForParams {
        function: Some("() => document.title === 'Frames ready'".into()),
        ..Default::default()
    };
    c.wait_for(sid, ready, timeout_ms).await.unwrap();
}

/// A snapshot's text without its refs (` [ref=eN]`), which number on from snapshot to snapshot.
pub fn without_refs(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(" [ref=e") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        rest = &rest[rest.find(']').map_or(rest.len(), |e| e + 1)..];
    }
    out.push_str(rest);
    out
}

/// Panics unless `text` (a snapshot) parses as YAML: Playwright's aria snapshots are YAML, and so
/// are ours (issue 14); any parser reads them.
pub fn assert_yaml(text: &str) {
    if let Err(e) = yaml_rust2::YamlLoader::load_from_str(text) {
        panic!("the snapshot is not valid YAML ({e}):\n{text}");
    }
}

/// `page.snapshot` through the client, its text checked with [`assert_yaml`].
pub async fn snapshot(
    c: &sb_client::Client,
    session_id: &str,
    params: sb_protocol::api::SnapshotParams,
) -> Result<sb_client::Reply<sb_protocol::api::SnapshotResult>, sb_client::ClientError> {
    let r = c.snapshot(session_id, params).await;
    if let Ok(s) = &r {
        assert_yaml(&s.snapshot);
    }
    r
}

/// A raw `page.snapshot` answer's text checked with [`assert_yaml`] (when it has one and is not a
/// diff, which is a patch of marked lines).
pub fn checked_snapshot(answer: &sb_protocol::api::Response) {
    let result = answer.result.as_ref().filter(|r| r["diff"] != true);
    if let Some(text) = result.and_then(|r| r["snapshot"].as_str()) {
        assert_yaml(text);
    }
}

/// The result of `method` with `params` on session `sid` (the method's default budget).
///
/// # Panics
/// When the call failed: the message names the method, its params and the runtime's error.
pub async fn result_of(
    c: &sb_client::Client,
    sid: &str,
    method: &str,
    params: serde_json::Value,
) -> serde_json::Value {
    let r = c.call(method, Some(sid), params.clone(), None).await.unwrap();
    r.result.unwrap_or_else(|| panic!("{method} {params}: {:?}", r.error))
}

/// The runtime's error of `method` with `params` on session `sid`, a call that must fail.
///
/// # Panics
/// When it succeeded.
pub async fn error_of(
    c: &sb_client::Client,
    sid: &str,
    method: &str,
    params: serde_json::Value,
) -> sb_protocol::ErrorBody {
    api_error(&c.call(method, Some(sid), params, None).await.unwrap())
}

/// Asks `runtime.stats` until the relay's count of routed CDP sessions (`cdp_sessions`) satisfies
/// `done`, for at most 10 s, and returns that count; panics with `what` and the last count after that
/// (a killed worker's sessions leave the count once the supervisor has seen it go).
pub async fn cdp_sessions_until(c: &sb_client::Client, what: &str, done: impl Fn(u64) -> bool) -> u64 {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let n = c.stats().await.expect("runtime.stats").cdp_sessions;
        if done(n) {
            return n;
        }
        assert!(std::time::Instant::now() < deadline, "{what}: {n} CDP sessions routed");
        tokio::task::yield_now().await;
    }
}

/// A WebSocket server on `host` that counts the connections it sees (any bytes at all) and completes
/// the handshake; its port.
pub async fn ws_server(host: &str) -> (u16, Arc<std::sync::atomic::AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind((host, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::spawn(async move {
                if let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await {
                    use futures_util::StreamExt;
                    while ws.next().await.is_some() {}
                }
            });
        }
    });
    (port, seen)
}

/// Sends one raw request `line` on a new connection to the runtime at `socket` and returns the first
/// line it answers (for requests the clients would not send as written).
pub async fn raw_request(socket: &Path, line: &str) -> String {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let mut stream = tokio::net::UnixStream::connect(socket).await.expect("connect");
    stream.write_all(format!("{line}\n").as_bytes()).await.unwrap();
    let mut answer = String::new();
    tokio::io::BufReader::new(stream).read_line(&mut answer).await.unwrap();
    answer
}

/// A plain HTTP/1.1 GET of `path` (with its query) on `url`'s host and port, asked by the test itself:
/// the status and the body.
pub async fn http_get(url: &url::Url, path: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap());
    let mut stream = tokio::net::TcpStream::connect(&host).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}
