//! The per-command entry points of `sandbox-browser`: `serve`, `doctor` and the hidden `worker`.
//!
//! `main.rs` parses the command line and calls one of these; each sets up what its command needs
//! (logging, a tokio runtime, the configuration) and returns the process's exit code.

use std::os::fd::FromRawFd;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{doctor, logging};
use crate::front::config::Config;
use crate::workers::worker::WORKER_FD_ENV;
use crate::ServeConfig;

/// What `serve` and `doctor` both read: the configuration file, the paths and the browser.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// Configuration file (TOML; see docs/configuration.md).
    #[arg(long, env = "SANDBOX_BROWSER_CONFIG")]
    pub config: Option<PathBuf>,
    /// Socket path [default: $XDG_RUNTIME_DIR/sandbox-browser/browser.sock, else
    /// /tmp/sandbox-browser-$UID/browser.sock]. `doctor` asks the supervisor there when given.
    #[arg(long, env = "SANDBOX_BROWSER_SOCKET")]
    pub socket: Option<PathBuf>,
    /// Browser binary [default: Debian's chromium-headless-shell where installed (headless), else
    /// /usr/lib/chromium/chromium, else chromium on PATH].
    #[arg(long, env = "SANDBOX_BROWSER_CHROMIUM")]
    pub browser: Option<PathBuf>,
    /// Directory for the browser profile and the session store [default: the socket's directory].
    #[arg(long, env = "SANDBOX_BROWSER_RUNTIME_DIR")]
    pub runtime_dir: Option<PathBuf>,
    /// Directory for screenshots [default: the runtime dir's artifacts/ subdirectory].
    #[arg(long, env = "SANDBOX_BROWSER_ARTIFACTS")]
    pub artifacts: Option<PathBuf>,
    /// Pass --no-sandbox to Chromium (always done as root).
    #[arg(long)]
    pub no_sandbox: bool,
    /// Serve the live view on ADDR (`127.0.0.1:9300`; `[view] listen`): a web page where a person
    /// watches the sessions (docs/operations.md).
    #[arg(long, value_name = "ADDR")]
    pub view: Option<String>,
}

impl Common {
    /// The configuration file's settings (defaults without one) with the flags applied.
    ///
    /// # Errors
    /// The file's error, naming the file and the key.
    pub fn settings(&self) -> Result<Config, String> {
        let mut settings = self
            .config
            .as_deref()
            .map(Config::load)
            .transpose()
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        self.apply(&mut settings);
        Ok(settings)
    }

    /// Overrides `settings` with the options given on the command line (each wins over the file).
    pub fn apply(&self, settings: &mut Config) {
        if self.browser.is_some() {
            settings.browser.path = self.browser.clone();
        }
        settings.browser.no_sandbox |= self.no_sandbox;
        if self.view.is_some() {
            settings.view.listen = self.view.clone();
        }
    }

    /// Socket, runtime dir and artifacts dir: flag, else configuration file, else default (the runtime
    /// dir defaults to the socket's directory, artifacts to `<runtime_dir>/artifacts`).
    pub fn paths(&self, settings: &Config) -> (PathBuf, PathBuf, PathBuf) {
        let socket = self
            .socket
            .clone()
            .or_else(|| settings.paths.socket.clone())
            .unwrap_or_else(sb_protocol::api::default_socket_path);
        let runtime_dir = self
            .runtime_dir
            .clone()
            .or_else(|| settings.paths.runtime_dir.clone())
            .or_else(|| socket.parent().map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("."));
        let artifacts = self
            .artifacts
            .clone()
            .or_else(|| settings.paths.artifacts.clone())
            .unwrap_or_else(|| runtime_dir.join("artifacts"));
        (socket, runtime_dir, artifacts)
    }
}

/// `serve`: boots Chromium and serves the socket until SIGTERM/SIGINT, with the umask 077 (the
/// runtime's files and its browser's are its own). Exit 2 for a bad configuration, 1 when the runtime
/// could not start.
pub fn serve(
    common: Common,
    max_request_bytes: Option<usize>,
    log_format: String,
    disable_evaluate: bool,
) -> ExitCode {
    crate::front::server::one_arena();
    logging::init(&log_format);
    // Whatever umask the runtime was started with, what it and its browser and workers write is the
    // runtime's only (a finished download was 0644, the profile directory 0755).
    nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o077));
    let mut settings = match common.settings() {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("sandbox-browser: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(bytes) = max_request_bytes {
        settings.limits.max_request_bytes = bytes;
    }
    if disable_evaluate {
        settings.evaluate_enabled = false;
    }
    let (socket, runtime_dir, artifacts_dir) = common.paths(&settings);
    let config = ServeConfig { socket, runtime_dir, artifacts_dir, log_format, settings };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build();
    let result = rt.map_err(anyhow::Error::from).and_then(|rt| rt.block_on(crate::serve(config)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sandbox-browser: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `mcp`: the MCP server over the socket of the configured (or given) supervisor, or of one of its
/// own started with the same flags ([`sb_mcp::run`]). Exit 2 for a bad configuration or `--caps`.
pub fn mcp(common: Common, caps: Vec<String>) -> ExitCode {
    let settings = match common.settings() {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let caps = match caps.iter().filter(|c| !c.is_empty()).map(|c| c.parse()).collect::<Result<_, _>>() {
        Ok(caps) => caps,
        Err(e) => {
            eprintln!("error: --caps: {e}");
            return ExitCode::from(2);
        }
    };
    let socket = common.socket.clone().or_else(|| settings.paths.socket.clone());
    let mut serve_args: Vec<std::ffi::OsString> = vec!["--log-format".into(), "json".into()];
    for (flag, value) in [
        ("--config", &common.config),
        ("--browser", &common.browser),
        ("--runtime-dir", &common.runtime_dir),
        ("--artifacts", &common.artifacts),
    ] {
        if let Some(value) = value {
            serve_args.extend([flag.into(), value.into()]);
        }
    }
    if common.no_sandbox {
        serve_args.push("--no-sandbox".into());
    }
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("sandbox-browser"));
    sb_mcp::run(sb_mcp::Options { socket, exe, serve_args, caps })
}

/// `schema`: prints the API's JSON Schema document ([`sb_protocol::schema::document`]), pretty, with a
/// final newline: byte for byte what `docs/api.schema.json` holds.
pub fn schema() -> ExitCode {
    println!("{}", schema_text());
    ExitCode::SUCCESS
}

/// The schema document as `schema` prints it (without the final newline).
pub fn schema_text() -> String {
    serde_json::to_string_pretty(&sb_protocol::schema::document()).unwrap_or_default()
}

/// `doctor`: checks every prerequisite of `serve` (or, with `probe`, only asks the running supervisor)
/// and prints a table or JSON. Exit 0 when nothing failed.
pub fn doctor(common: Common, json: bool, probe: bool, quick: bool) -> ExitCode {
    let (settings, config_error) = match common.settings() {
        Ok(settings) => (settings, None),
        Err(e) => {
            let mut defaults = Config::default();
            common.apply(&mut defaults);
            (defaults, Some(e))
        }
    };
    let check_supervisor = common.socket.is_some() && !quick;
    let (socket, runtime_dir, artifacts_dir) = common.paths(&settings);
    let rt = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sandbox-browser doctor: {e}");
            return ExitCode::FAILURE;
        }
    };
    let report = if probe {
        let check = rt.block_on(doctor::probe(&socket));
        doctor::Report { ok: check.status != doctor::Status::Fail, checks: vec![check] }
    } else {
        let d = doctor::DoctorConfig {
            config_file: common.config.clone(),
            settings,
            config_error,
            socket,
            runtime_dir,
            artifacts_dir,
            check_supervisor,
            quick,
        };
        rt.block_on(doctor::run(&d))
    };
    // Nothing of the runtime may outlive the answer (a probe must not wait on a stuck socket).
    rt.shutdown_timeout(std::time::Duration::from_millis(100));
    if json {
        println!("{}", serde_json::to_string(&report).unwrap_or_default());
    } else if probe {
        let c = &report.checks[0];
        println!("{}: {}", if report.ok { "ok" } else { "fail" }, c.detail);
    } else {
        print!("{}", doctor::table(&report));
    }
    if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A viewport as `WIDTHxHEIGHT` (CSS px, each side as [`sb_protocol::ipc::Display::checked`] allows).
///
/// # Errors
/// A message naming the expected form.
pub fn parse_viewport(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("viewport must be WIDTHxHEIGHT in CSS px, e.g. 1280x800; got {s:?}");
    let (w, h) = s.split_once('x').ok_or_else(bad)?;
    let w: u32 = w.parse().map_err(|_| bad())?;
    let h: u32 = h.parse().map_err(|_| bad())?;
    sb_protocol::ipc::Display::checked(w, h, 1.0).map(|d| (d.width, d.height))
}

/// `worker`: one session's worker on the IPC fd named by [`WORKER_FD_ENV`] (started by `serve`).
/// Exit 2 when started by hand, 1 when it could not attach or the IPC broke.
pub fn worker(
    target_id: String,
    log_format: String,
    viewport: Option<sb_protocol::ipc::Display>,
) -> ExitCode {
    logging::init(&log_format);
    // Started as `/proc/self/exe` (the supervisor's own image), the process would be named `exe`.
    let _ = nix::sys::prctl::set_name(c"sandbox-browser");
    let fd: i32 = match std::env::var(WORKER_FD_ENV).ok().and_then(|v| v.parse().ok()) {
        Some(fd) => fd,
        None => {
            eprintln!("sandbox-browser worker: {WORKER_FD_ENV} is not set; the worker is started by `serve`");
            return ExitCode::from(2);
        }
    };
    // SAFETY: the supervisor passed this fd, open and owned by nobody else in this process.
    let std_stream = unsafe { std::os::unix::net::UnixStream::from_raw_fd(fd) };
    let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sandbox-browser worker: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = rt.block_on(async move {
        std_stream.set_nonblocking(true).map_err(|e| e.to_string())?;
        let stream = tokio::net::UnixStream::from_std(std_stream).map_err(|e| e.to_string())?;
        sb_worker::run(stream, sb_worker::WorkerConfig { target_id, viewport }).await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::warn!(error.message = %e, "worker_exiting");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str) -> String {
        let path = format!("{}/../../docs/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The checked-in schema is what the code generates: CI fails when a type changed without it.
    #[test]
    fn docs_api_schema_json_is_current() {
        assert!(
            doc("api.schema.json") == format!("{}\n", schema_text()),
            "docs/api.schema.json is stale: run `cargo run -q --bin sandbox-browser -- schema > docs/api.schema.json`"
        );
    }

    /// docs/errors.md's table has every code the runtime sends, each once, with its `retryable`.
    #[test]
    fn docs_errors_md_lists_every_code_with_its_retryable() {
        let text = doc("errors.md");
        let codes_section = text.split("\n## ").find(|s| s.starts_with("Codes")).expect("a Codes section");
        let rows: Vec<(String, String)> = codes_section
            .lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line.split('|').map(str::trim).collect();
                let code = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
                Some((code.to_string(), cells.get(3)?.to_string()))
            })
            .collect();
        let codes = sb_protocol::schema::error_codes();
        assert_eq!(rows.len(), codes.len(), "{rows:?}");
        for code in codes {
            let row = rows.iter().find(|(c, _)| c == code.as_str());
            let (_, retryable) = row.unwrap_or_else(|| panic!("{code} is not in docs/errors.md"));
            assert_eq!(retryable, if code.retryable() { "yes" } else { "no" }, "{code}");
        }
    }
}
