//! The runtime's own methods: `runtime.health`, `runtime.stats`, `runtime.metrics`.

use serde::{Deserialize, Serialize};

/// `runtime.health` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HealthResult {
    /// `Browser.getVersion`'s `product`, e.g. `"HeadlessChrome/156.0.8078.79"`.
    pub browser_version: String,
    /// The browser's process id.
    pub browser_pid: u32,
    /// How the runtime speaks CDP to the browser: `"pipe"` (`--remote-debugging-pipe`: no DevTools
    /// port, no `DevToolsActivePort`; docs/security.md), or `"websocket"` for a browser elsewhere
    /// (`[browser] cdp_url`; `browser_pid` is then 0).
    pub cdp_transport: String,
    /// The browser binary that runs (`/usr/lib/chromium/chromium-headless-shell`); empty for a browser
    /// elsewhere.
    #[serde(default)]
    pub browser_binary: String,
    /// Why it was chosen: `configured` (`[browser] path`, `--browser`), `default: headless shell
    /// installed` (Debian's `chromium-headless-shell`, the default for a headless browser, as
    /// Playwright's), `default: no headless shell installed`, `default: headed mode needs the full
    /// browser`; `remote` for a browser elsewhere.
    #[serde(default)]
    pub browser_choice: String,
    /// Chromium's own sandbox: `"chromium"` (on), or `"off: running as root"` /
    /// `"off: browser.no_sandbox"` (the container is then the only sandbox; `doctor` says why).
    #[serde(default)]
    pub browser_sandbox: String,
    /// Since the supervisor started, ms.
    pub uptime_ms: u64,
    /// Open sessions.
    pub sessions: usize,
    /// Browser restarts since the supervisor started.
    pub restarts: u64,
    /// How long ago the browser last passed its probe, in ms.
    pub last_probe_ms: u64,
    /// The largest `timeout_ms` this runtime honours (its clamp, `timeouts.max_ms`): a client waits
    /// for up to this long (plus its slack) on a request without `timeout_ms`.
    #[serde(default = "default_max_timeout_ms")]
    pub max_timeout_ms: u64,
}

fn default_max_timeout_ms() -> u64 {
    crate::budget::MAX_TIMEOUT_MS
}

/// Calls, failures and timeouts of one method (`runtime.stats`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ActionStats {
    /// Requests answered.
    pub count: u64,
    /// Requests answered with an error.
    pub failures: u64,
    /// Failures with code `timeout` (also counted in `failures`).
    pub timeouts: u64,
}

/// A histogram: `counts[i]` observations were at most `bounds_ms[i]` (cumulative, the last bound is
/// `+Inf`, written `null`); `sum_ms` and `count` over all of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Histogram {
    /// Upper bounds of the buckets, ms (`null`: `+Inf`).
    pub bounds_ms: Vec<Option<f64>>,
    /// Observations at most each bound (cumulative).
    pub counts: Vec<u64>,
    /// Sum of all observations, ms.
    pub sum_ms: f64,
    /// Number of observations.
    pub count: u64,
}

/// `runtime.stats` result: counters since the supervisor started.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StatsResult {
    /// Browser restarts attempted (each recovery cycle makes at most `runtime_restart_attempts`).
    pub restarts: u64,
    /// Restarts that failed (the runtime then answers `browser_unavailable`).
    pub restart_failures: u64,
    /// Health checks that found the browser unhealthy (each starts a recovery cycle).
    pub unhealthy_checks: u64,
    /// Recovery cycles that ended with a working browser.
    pub recoveries: u64,
    /// Health probe rounds run (HTTP `/json/version` + CDP `Browser.getVersion`).
    pub probes: u64,
    /// Actions that skipped the probes because one passed recently.
    pub probes_skipped: u64,
    /// Sessions given a new page after a browser or supervisor restart.
    pub sessions_rehydrated: u64,
    /// Worker processes killed past their deadline.
    pub worker_kills: u64,
    /// `Runtime.terminateExecution` calls that stopped a script.
    pub terminate_executions: u64,
    /// Tabs closed and reopened at their last URL (stuck page or renderer crash).
    pub page_resets: u64,
    /// Renderer crashes seen (`Inspector.targetCrashed`).
    pub renderer_crashes: u64,
    /// Per method (`page.goto`, ...): calls, failures, timeouts.
    pub actions: std::collections::BTreeMap<String, ActionStats>,
    /// Durations of `page.evaluate` calls, ms.
    pub evaluate_ms: Histogram,
    /// Flat CDP sessions the relay routes now: the workers' (a page's, its out-of-process iframes')
    /// and the supervisor's standby sessions (one on each session's active tab).
    #[serde(default)]
    pub cdp_sessions: u64,
    /// CDP sessions the sessions' workers hold on tabs: one on each tab a worker drove that is still
    /// open (its active tab, and those it left for another with `tabs.focus`, kept so their dialogs
    /// are answered and their emulation held). A tab that closes is let go at its worker's next
    /// action; a replaced worker's count is its own.
    #[serde(default)]
    pub tab_sessions: u64,
    /// Screencasts started for the live view (`Page.startScreencast`; one while a session is watched).
    #[serde(default)]
    pub screencasts_started: u64,
    /// Sessions closed for going `limits.session_idle_timeout_ms` without a request.
    #[serde(default)]
    pub sessions_expired: u64,
}

/// `runtime.metrics` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MetricsResult {
    /// `text/plain; version=0.0.4`.
    pub content_type: String,
    /// The Prometheus text exposition.
    pub text: String,
}
