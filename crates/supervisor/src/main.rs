//! `sandbox-browser`: the supervisor (`serve`) and, hidden, the worker process (`worker`).

use std::os::fd::FromRawFd;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use sb_supervisor::config::Config;
use sb_supervisor::worker::WORKER_FD_ENV;
use sb_supervisor::{doctor, logging, ServeConfig};

/// What `serve` and `doctor` both read: the configuration file, the paths and the browser.
#[derive(Args)]
struct Common {
    /// Configuration file (TOML; see docs/configuration.md).
    #[arg(long, env = "SANDBOX_BROWSER_CONFIG")]
    config: Option<PathBuf>,
    /// Socket path [default: $XDG_RUNTIME_DIR/sandbox-browser/browser.sock, else
    /// /tmp/sandbox-browser-$UID/browser.sock]. `doctor` asks the supervisor there when given.
    #[arg(long)]
    socket: Option<PathBuf>,
    /// Browser binary [default: /usr/lib/chromium/chromium, else chromium on PATH].
    #[arg(long, env = "SANDBOX_BROWSER_CHROMIUM")]
    browser: Option<PathBuf>,
    /// Directory for the browser profile and the session store [default: the socket's directory].
    #[arg(long)]
    runtime_dir: Option<PathBuf>,
    /// Directory for screenshots [default: the runtime dir's artifacts/ subdirectory].
    #[arg(long)]
    artifacts: Option<PathBuf>,
    /// Pass --no-sandbox to Chromium (always done as root).
    #[arg(long)]
    no_sandbox: bool,
}

impl Common {
    /// The configuration file's settings (defaults without one) with the flags applied.
    ///
    /// # Errors
    /// The file's error, naming the file and the key.
    fn settings(&self) -> Result<Config, String> {
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

    fn apply(&self, settings: &mut Config) {
        if self.browser.is_some() {
            settings.browser.path = self.browser.clone();
        }
        settings.browser.no_sandbox |= self.no_sandbox;
    }

    /// Socket, runtime dir and artifacts dir: flag, else configuration file, else default (the runtime
    /// dir defaults to the socket's directory, artifacts to `<runtime_dir>/artifacts`).
    fn paths(&self, settings: &Config) -> (PathBuf, PathBuf, PathBuf) {
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

#[derive(Parser)]
#[command(name = "sandbox-browser", version, about = "A browser runtime for AI agents that cannot hang")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Boot Chromium and serve the JSON API on a Unix socket until SIGTERM/SIGINT.
    ///
    /// Flags override the configuration file; the file overrides the defaults.
    Serve {
        #[command(flatten)]
        common: Common,
        /// Longest request line in bytes [default: 1048576].
        #[arg(long)]
        max_request_bytes: Option<usize>,
        /// Log format on stderr.
        #[arg(long, default_value = "json", value_parser = ["json", "text"])]
        log_format: String,
        /// Turn off `page.evaluate` (it answers `evaluate_disabled`).
        #[arg(long)]
        disable_evaluate: bool,
    },
    /// Check every prerequisite of `serve` and say how to fix each (exit 0 when nothing failed).
    ///
    /// Reads the same configuration and flags as `serve`. With `--socket`, also asks a running
    /// supervisor for `runtime.health`.
    Doctor {
        #[command(flatten)]
        common: Common,
        /// Print JSON (`{"ok", "checks": [{"name", "status", "detail", "fix"?, "duration_ms"}]}`).
        #[arg(long)]
        json: bool,
        /// Only ask the running supervisor for runtime.health, in under a second (for HEALTHCHECK and
        /// liveness/readiness probes).
        #[arg(long)]
        probe: bool,
        /// Static checks only: no browser launch, no worker, no supervisor asked (the container
        /// entrypoint's pass before serve).
        #[arg(long)]
        quick: bool,
    },
    /// One session's worker (started by the supervisor; not for direct use).
    #[command(hide = true)]
    Worker {
        #[arg(long)]
        ws_url: String,
        #[arg(long)]
        target_id: String,
        #[arg(long, default_value = "json")]
        log_format: String,
    },
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Cmd::Serve { common, max_request_bytes, log_format, disable_evaluate } => {
            logging::init(&log_format);
            let mut settings = match common.settings() {
                Ok(settings) => settings,
                Err(e) => {
                    eprintln!("sandbox-browser: {e}");
                    return std::process::ExitCode::from(2);
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
            let result =
                rt.map_err(anyhow::Error::from).and_then(|rt| rt.block_on(sb_supervisor::serve(config)));
            match result {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("sandbox-browser: {e:#}");
                    std::process::ExitCode::FAILURE
                }
            }
        }
        Cmd::Doctor { common, json, probe, quick } => {
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
            let rt = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    eprintln!("sandbox-browser doctor: {e}");
                    return std::process::ExitCode::FAILURE;
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
                std::process::ExitCode::SUCCESS
            } else {
                std::process::ExitCode::FAILURE
            }
        }
        Cmd::Worker { ws_url, target_id, log_format } => {
            logging::init(&log_format);
            let fd: i32 = match std::env::var(WORKER_FD_ENV).ok().and_then(|v| v.parse().ok()) {
                Some(fd) => fd,
                None => {
                    eprintln!("sandbox-browser worker: {WORKER_FD_ENV} is not set; the worker is started by `serve`");
                    return std::process::ExitCode::from(2);
                }
            };
            // SAFETY: the supervisor passed this fd, open and owned by nobody else in this process.
            let std_stream = unsafe { std::os::unix::net::UnixStream::from_raw_fd(fd) };
            let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(e) => {
                    eprintln!("sandbox-browser worker: {e}");
                    return std::process::ExitCode::FAILURE;
                }
            };
            let result = rt.block_on(async move {
                std_stream.set_nonblocking(true).map_err(|e| e.to_string())?;
                let stream = tokio::net::UnixStream::from_std(std_stream).map_err(|e| e.to_string())?;
                sb_worker::run(stream, sb_worker::WorkerConfig { ws_url, target_id }).await
            });
            match result {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(e) => {
                    tracing::warn!(error.message = %e, "worker_exiting");
                    std::process::ExitCode::FAILURE
                }
            }
        }
    }
}
