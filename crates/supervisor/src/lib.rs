//! The supervisor: `sandbox-browser serve`, the container's entrypoint.
//!
//! Process model (see docs/architecture.md):
//!
//! ```text
//! harness ──JSON lines──▶ supervisor ──postcard frames──▶ worker (one per session) ──CDP──▶ Chromium
//!          Unix socket     (this crate)   socketpair        own process group       WebSocket
//! ```
//!
//! The crate is in folders, one group of modules each:
//!
//! - [`front`]: the front doors: the socket server ([`front::server`]), the command-line entry points
//!   ([`front::commands`]; `main.rs` only parses the command line and calls one), the configuration
//!   file ([`front::config`]), the doctor, the logs and the live view ([`front::view`]: its page,
//!   WebSocket, screencasts and takeover).
//! - [`pipeline`]: the request pipeline: a request's budget ([`pipeline::timeouts`]), the request
//!   handler ([`pipeline::runtime`]) over the method table ([`pipeline::dispatch`]), the session's
//!   queue ([`pipeline::queue`]) and `tabs.*`.
//! - [`lifecycle`]: Chromium's lifecycle ([`lifecycle::browser`]: find, launch, both probes, stop) and
//!   its health ([`lifecycle::health`]: the link, its generation, the recovery cycle), the process
//!   plumbing ([`lifecycle::spawner`]: `PR_SET_PDEATHSIG` from a long-lived thread;
//!   [`lifecycle::reaper`]: subreaper and orphan sweep), file descriptors.
//! - [`workers`]: the worker handles with their hard deadlines ([`workers::worker`]).
//! - [`sessions`]: sessions (tabs, refs), the store, kept logins, cookies, storage state, downloads,
//!   and freeing a tab no worker can attach to.
//! - [`gate`]: the URL policy and the connection gate every load goes through.
//! - [`features`]: routes, traces, what sessions did (for the view), the artifacts' retention.
//! - [`stats`], [`files`]: the counters, and how a path from a client's string stays under its root,
//!   which every group may use.
//!
//! It never runs page actions itself: a hung page can only hang a worker, which is killed. Arrows
//! between the groups run one way (`tests/layering.rs` holds it): front -> pipeline ->
//! features -> sessions -> gate -> workers -> lifecycle -> files, stats (each may skip layers below).

pub mod features;
pub mod files;
pub mod front;
pub mod gate;
pub mod lifecycle;
pub mod pipeline;
pub mod sessions;
pub mod stats;
pub mod workers;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::signal::unix::{signal, SignalKind};

use crate::front::server;
use crate::front::view;
use crate::lifecycle::reaper;
use crate::sessions::downloads;
use crate::sessions::store;

use crate::lifecycle::health::HealthPolicy;
use crate::lifecycle::spawner::Spawner;
use crate::pipeline::runtime::{Runtime, RuntimeConfig};

/// Everything `serve` needs: the paths resolved from flags, file and defaults, and the file's settings.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The harness socket.
    pub socket: PathBuf,
    /// Where the browser's user-data-dir is created (default: the socket's directory).
    pub runtime_dir: PathBuf,
    /// Where screenshots go (default: `<runtime_dir>/artifacts`).
    pub artifacts_dir: PathBuf,
    /// `json` or `text`.
    pub log_format: String,
    /// The configuration file's settings, with command-line overrides applied.
    pub settings: front::config::Config,
}

/// Runs the supervisor until SIGTERM or SIGINT: launch the browser, bind the socket once ready, serve,
/// then close sessions, stop the browser, reap every child, remove the socket.
///
/// # Errors
/// When the browser cannot be launched or the socket cannot be bound; everything started is stopped
/// first.
pub async fn serve(config: ServeConfig) -> anyhow::Result<()> {
    if let Err(e) = reaper::become_subreaper() {
        tracing::warn!(error.message = %e, "cannot become a child subreaper");
    }
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sigchld = signal(SignalKind::child())?;
    let spawner = Spawner::start();

    files::private_dir(&config.runtime_dir)?;
    files::private_dir(&config.artifacts_dir)?;
    if let Some(uploads) = &config.settings.files.uploads_dir {
        // A directory another uid can write to could plant a state file or swap a file an upload
        // names: refused, as the runtime dir is.
        files::checked_dir(uploads)?;
    }
    let runtime_dir = config.runtime_dir.canonicalize()?;
    let swept = reaper::sweep_leftovers(&runtime_dir);
    if !swept.is_empty() {
        tracing::warn!(count = swept.len(), runtime_dir = %runtime_dir.display(), "leftover_browser_processes_ended");
    }
    let (store, restored) = match store::SessionStore::open(&runtime_dir) {
        Ok((store, restored)) => (Some(store), restored),
        Err(e) => {
            tracing::warn!(error.message = %e, runtime_dir = %runtime_dir.display(), "session_store_unavailable");
            (None, Vec::new())
        }
    };
    let b = &config.settings.browser;
    let sandbox = &b.sandbox;
    // A browser elsewhere reads and writes its own machine's files: a download would land there and an
    // upload's path would name a file there, so both are off (said once here, and by their errors).
    let remote = b.cdp_url.is_some();
    if remote {
        tracing::info!("remote_browser_downloads_and_uploads_off");
    }
    let worker_exe = worker_exe()?;
    let runtime = Arc::new(Runtime::new(
        RuntimeConfig {
            artifacts_dir: config.artifacts_dir.clone(),
            worker_exe,
            log_format: config.log_format.clone(),
            evaluate_enabled: config.settings.evaluate_enabled,
            policy: config.settings.policy.clone(),
            downloads: downloads::DownloadsConfig {
                enabled: config.settings.downloads.enabled && !remote,
                ..config.settings.downloads.clone()
            },
            retention: config.settings.artifacts.clone(),
            uploads_dir: config.settings.files.uploads_dir.clone().filter(|_| !remote),
            view: config.settings.view.listen.is_some(),
            trace: config.settings.trace.clone(),
            timeouts: config.settings.timeouts,
            max_sessions: config.settings.limits.max_sessions,
            session_tokens: config.settings.limits.session_tokens,
            keep_logins: config.settings.limits.keep_logins,
            browser: b.browser_config(runtime_dir.clone()),
            health: HealthPolicy {
                interval: Duration::from_secs(sandbox.runtime_healthcheck_interval_seconds),
                restart_attempts: sandbox.runtime_restart_attempts,
                cooldown: Duration::from_secs(sandbox.runtime_recovery_cooldown_seconds),
            },
        },
        spawner,
        store,
        restored,
    ));
    runtime.prune_artifacts(None).await;
    // Sessions no request has used for `[limits] session_idle_timeout_ms` are closed (0: never).
    if let ms @ 1.. = config.settings.limits.session_idle_timeout_ms {
        runtime.expire_idle_sessions(Duration::from_millis(ms));
    }
    if sandbox.runtime_warmup_on_start {
        if let Err(e) = runtime.start().await {
            if sandbox.runtime_required {
                runtime.shutdown().await;
                reaper::kill_adopted();
                anyhow::bail!("browser did not start ({}): {}", e.phase.as_str(), e.message);
            }
        }
    }
    let listener = match server::bind(&config.socket) {
        Ok(l) => l,
        Err(e) => {
            runtime.shutdown().await;
            reaper::kill_adopted();
            anyhow::bail!("cannot serve on {}: {e}", config.socket.display());
        }
    };
    let view = match view::start(&config.settings.view, runtime.clone(), &runtime_dir).await {
        Ok(view) => view,
        Err(e) => {
            let _ = std::fs::remove_file(&config.socket);
            runtime.shutdown().await;
            reaper::kill_adopted();
            return Err(e);
        }
    };
    tracing::info!(socket = %config.socket.display(), "listening");
    let limits = server::Limits {
        max_line_bytes: config.settings.limits.max_request_bytes,
        max_connections: config.settings.limits.max_connections,
        partial_line_timeout: Duration::from_millis(config.settings.limits.partial_line_timeout_ms),
        idle_timeout: match config.settings.limits.idle_timeout_ms {
            0 => None,
            ms => Some(Duration::from_millis(ms)),
        },
        evict_idle_after: Duration::from_millis(config.settings.limits.evict_idle_after_ms),
    };
    let server = tokio::spawn(server::serve(listener, runtime.clone(), limits));
    let signal_name = loop {
        tokio::select! {
            _ = sigterm.recv() => break "SIGTERM",
            _ = sigint.recv() => break "SIGINT",
            _ = sigchld.recv() => { reaper::reap_adopted(); }
        }
    };
    tracing::info!(signal = signal_name, "shutting down");
    server.abort();
    if let Some(view) = &view {
        view.stop();
    }
    let _ = std::fs::remove_file(&config.socket);
    runtime.shutdown().await;
    reaper::kill_adopted();
    tracing::info!("stopped");
    Ok(())
}

/// The program workers run: this process's own image (`/proc/self/exe`), which stays this build even
/// when the file it was started from is replaced (a package upgrade under a running runtime), else
/// that file's path. Before, workers ran whatever the path held by then: another build's worker,
/// whose frames this supervisor cannot read, so every session answered `timeout` "worker did not
/// attach within the budget" (retryable) until the supervisor restarted.
fn worker_exe() -> std::io::Result<PathBuf> {
    let own = PathBuf::from("/proc/self/exe");
    if own.exists() {
        Ok(own)
    } else {
        std::env::current_exe()
    }
}
