//! `sandbox-browser`: the supervisor (`serve`), `doctor`, the MCP server (`mcp`) and, hidden, the worker
//! process (`worker`).

use clap::{Parser, Subcommand};
use sb_supervisor::front::commands::{self, Common};

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
    /// An MCP server on stdin/stdout (tools named as Playwright MCP's) over the supervisor's socket.
    ///
    /// With no supervisor answering on the socket, starts one of its own (with the same `--config`,
    /// `--browser`, `--runtime-dir`, `--artifacts`, `--no-sandbox`) and stops it on exit.
    Mcp {
        #[command(flatten)]
        common: Common,
        /// Optional tool groups to offer, comma-separated: `evaluate` (browser_evaluate), `files`
        /// (browser_take_screenshot), and, off by default as Playwright MCP's, `pdf` (browser_pdf_save),
        /// `storage` (cookies, local and session storage, storage state files), `network`
        /// (browser_network_requests, browser_network_state_set), `vision` (mouse at coordinates,
        /// browser_keydown, browser_keyup), `devtools` (browser_start_tracing, browser_stop_tracing)
        /// and `testing` (browser_verify_element_visible, _text_visible, _list_visible,
        /// browser_verify_value); the core tools are always on.
        #[arg(long, value_delimiter = ',', default_value = "evaluate,files")]
        caps: Vec<String>,
    },
    /// Print the API's JSON Schema (every method's params and result, the common result part, the
    /// error body, the error codes with `retryable`): the contract clients are generated from, as
    /// docs/api.schema.json holds it.
    Schema,
    /// One session's worker (started by the supervisor; not for direct use).
    #[command(hide = true)]
    Worker {
        #[arg(long)]
        target_id: String,
        #[arg(long, default_value = "json")]
        log_format: String,
        /// The page's viewport, `WIDTHxHEIGHT` CSS px.
        #[arg(long, value_parser = commands::parse_viewport)]
        viewport: Option<(u32, u32)>,
        /// Device pixels per CSS px.
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
    },
}

fn main() -> std::process::ExitCode {
    match Cli::parse().command {
        Cmd::Serve { common, max_request_bytes, log_format, disable_evaluate } => {
            commands::serve(common, max_request_bytes, log_format, disable_evaluate)
        }
        Cmd::Doctor { common, json, probe, quick } => commands::doctor(common, json, probe, quick),
        Cmd::Mcp { common, caps } => commands::mcp(common, caps),
        Cmd::Schema => commands::schema(),
        Cmd::Worker { target_id, log_format, viewport, scale } => {
            let display = viewport.map(|(width, height)| sb_protocol::ipc::Display { width, height, scale });
            commands::worker(target_id, log_format, display)
        }
    }
}
