//! Structured logs through `tracing`: JSON lines (default) or a human format, on stderr.
//!
//! Event names are the log message (`browser_runtime_ready`, `browser_action_failed`, ...); fields
//! use dotted names (`browser.action`, `error.message`). A field with no value is left out.

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber. `format` is `json` or `text` (coloured only when stderr is a
/// terminal); `RUST_LOG` overrides the level (default `info`).
pub fn init(format: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // Colour only on a terminal: `docker logs` and files get plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder =
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
    let _ = if format == "text" {
        builder.try_init()
    } else {
        builder.json().flatten_event(true).with_current_span(false).with_span_list(false).try_init()
    };
}
