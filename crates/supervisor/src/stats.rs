//! The runtime's counters: `runtime.stats` (JSON, [`StatsResult`]) and `runtime.metrics` (the same in
//! the Prometheus text exposition format, version 0.0.4).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use sb_protocol::api::{ActionStats, Histogram, Method, StatsResult};
use sb_protocol::ErrorCode;

/// The method whose requests' durations make the histogram `sandbox_browser_evaluate_duration_seconds`
/// (in-page JavaScript of the agent's, the one action whose time is the page's to decide).
pub const TIMED: Method = Method::PageEvaluate;

/// Upper bounds of the `page.evaluate` duration buckets, ms (`+Inf` follows).
pub const EVALUATE_BUCKETS_MS: [f64; 11] =
    [1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 1_000.0, 5_000.0, 30_000.0];

/// A monotonic counter.
#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    /// Adds one.
    pub fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    /// The current value.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Every counter of the runtime (see [`StatsResult`] for what each counts).
#[derive(Debug, Default)]
pub struct Stats {
    /// Browser restarts attempted.
    pub restarts: Counter,
    /// Browser restarts that failed.
    pub restart_failures: Counter,
    /// Health checks that found the browser unhealthy.
    pub unhealthy_checks: Counter,
    /// Recovery cycles that ended with a working browser.
    pub recoveries: Counter,
    /// Health probes sent (`Browser.getVersion`).
    pub probes: Counter,
    /// Actions that skipped the probes (a recent one passed).
    pub probes_skipped: Counter,
    /// Sessions given a new page after a restart.
    pub sessions_rehydrated: Counter,
    /// Workers killed past their deadline.
    pub worker_kills: Counter,
    /// `Runtime.terminateExecution` calls that were answered.
    pub terminate_executions: Counter,
    /// Tabs closed and reopened at their last URL.
    pub page_resets: Counter,
    /// Renderer crashes seen.
    pub renderer_crashes: Counter,
    /// Screencasts started for the live view.
    pub screencasts_started: Counter,
    /// Sessions closed for being idle.
    pub sessions_expired: Counter,
    actions: Mutex<BTreeMap<&'static str, ActionStats>>,
    /// Per bucket (not cumulative), then `+Inf`; sum in ms; count.
    evaluate: Mutex<(Vec<u64>, f64, u64)>,
}

impl Stats {
    /// Counts one answered request of `method` that took `ms`; `failed` is its error code when it
    /// failed. A request of [`TIMED`] also goes into its duration histogram.
    pub fn record_action(&self, method: Method, failed: Option<ErrorCode>, ms: f64) {
        if method == TIMED {
            self.record_evaluate(ms);
        }
        let mut actions = self.actions.lock().unwrap();
        let a = actions.entry(method.name()).or_default();
        a.count += 1;
        if let Some(code) = failed {
            a.failures += 1;
            if code == ErrorCode::Timeout {
                a.timeouts += 1;
            }
        }
    }

    /// Records one `page.evaluate` duration, ms.
    fn record_evaluate(&self, ms: f64) {
        let mut e = self.evaluate.lock().unwrap();
        if e.0.is_empty() {
            e.0 = vec![0; EVALUATE_BUCKETS_MS.len() + 1];
        }
        let i = EVALUATE_BUCKETS_MS.iter().position(|&b| ms <= b).unwrap_or(EVALUATE_BUCKETS_MS.len());
        e.0[i] += 1;
        e.1 += ms;
        e.2 += 1;
    }

    /// All counters now, for `runtime.stats`.
    pub fn snapshot(&self) -> StatsResult {
        let actions =
            self.actions.lock().unwrap().iter().map(|(name, a)| (name.to_string(), a.clone())).collect();
        let (per_bucket, sum_ms, count) = self.evaluate.lock().unwrap().clone();
        let mut counts = Vec::with_capacity(EVALUATE_BUCKETS_MS.len() + 1);
        let mut running = 0;
        for i in 0..=EVALUATE_BUCKETS_MS.len() {
            running += per_bucket.get(i).copied().unwrap_or(0);
            counts.push(running);
        }
        let bounds_ms = EVALUATE_BUCKETS_MS.iter().map(|&b| Some(b)).chain([None]).collect();
        StatsResult {
            restarts: self.restarts.get(),
            restart_failures: self.restart_failures.get(),
            unhealthy_checks: self.unhealthy_checks.get(),
            recoveries: self.recoveries.get(),
            probes: self.probes.get(),
            probes_skipped: self.probes_skipped.get(),
            sessions_rehydrated: self.sessions_rehydrated.get(),
            worker_kills: self.worker_kills.get(),
            terminate_executions: self.terminate_executions.get(),
            page_resets: self.page_resets.get(),
            renderer_crashes: self.renderer_crashes.get(),
            actions,
            evaluate_ms: Histogram { bounds_ms, counts, sum_ms, count },
            cdp_sessions: 0,
            tab_sessions: 0,
            screencasts_started: self.screencasts_started.get(),
            sessions_expired: self.sessions_expired.get(),
        }
    }
}

/// `stats` in the Prometheus text format: counters as `sandbox_browser_<name>_total`, per-method
/// counts labelled `method`, and the evaluate durations as the histogram
/// `sandbox_browser_evaluate_duration_seconds`.
pub fn prometheus(stats: &StatsResult, sessions: usize) -> String {
    let mut out = String::new();
    let mut counter = |name: &str, help: &str, value: u64| {
        let _ = writeln!(out, "# HELP sandbox_browser_{name}_total {help}");
        let _ = writeln!(out, "# TYPE sandbox_browser_{name}_total counter");
        let _ = writeln!(out, "sandbox_browser_{name}_total {value}");
    };
    counter("restarts", "Browser restarts attempted.", stats.restarts);
    counter("restart_failures", "Browser restarts that failed.", stats.restart_failures);
    counter("unhealthy_checks", "Health checks that found the browser unhealthy.", stats.unhealthy_checks);
    counter("recoveries", "Recovery cycles that ended with a working browser.", stats.recoveries);
    counter("probes", "Health probes (`Browser.getVersion` on the CDP pipe).", stats.probes);
    counter("probes_skipped", "Actions that skipped the probes (a recent one passed).", stats.probes_skipped);
    counter("sessions_rehydrated", "Sessions given a new page after a restart.", stats.sessions_rehydrated);
    counter("worker_kills", "Workers killed past their deadline.", stats.worker_kills);
    counter(
        "terminate_executions",
        "Runtime.terminateExecution calls that were answered.",
        stats.terminate_executions,
    );
    counter("page_resets", "Tabs closed and reopened at their last URL.", stats.page_resets);
    counter("renderer_crashes", "Renderer crashes seen.", stats.renderer_crashes);
    counter(
        "screencasts_started",
        "Screencasts started for the live view (one while a session is watched).",
        stats.screencasts_started,
    );
    counter(
        "sessions_expired",
        "Sessions closed for going limits.session_idle_timeout_ms without a request.",
        stats.sessions_expired,
    );
    let _ = writeln!(out, "# HELP sandbox_browser_sessions Open sessions.");
    let _ = writeln!(out, "# TYPE sandbox_browser_sessions gauge");
    let _ = writeln!(out, "sandbox_browser_sessions {sessions}");
    let _ = writeln!(
        out,
        "# HELP sandbox_browser_tab_sessions CDP sessions the workers hold on tabs (one a tab a worker drove that is still open)."
    );
    let _ = writeln!(out, "# TYPE sandbox_browser_tab_sessions gauge");
    let _ = writeln!(out, "sandbox_browser_tab_sessions {}", stats.tab_sessions);
    for (name, help, pick) in [
        ("actions", "Requests answered, per method.", (|a: &ActionStats| a.count) as fn(&ActionStats) -> u64),
        ("action_failures", "Requests answered with an error, per method.", |a| a.failures),
        ("action_timeouts", "Requests answered with a timeout, per method.", |a| a.timeouts),
    ] {
        let _ = writeln!(out, "# HELP sandbox_browser_{name}_total {help}");
        let _ = writeln!(out, "# TYPE sandbox_browser_{name}_total counter");
        for (method, a) in &stats.actions {
            let _ = writeln!(out, "sandbox_browser_{name}_total{{method=\"{method}\"}} {}", pick(a));
        }
    }
    let h = &stats.evaluate_ms;
    let _ =
        writeln!(out, "# HELP sandbox_browser_evaluate_duration_seconds Duration of page.evaluate requests.");
    let _ = writeln!(out, "# TYPE sandbox_browser_evaluate_duration_seconds histogram");
    for (bound, count) in h.bounds_ms.iter().zip(&h.counts) {
        let le = bound.map_or("+Inf".to_string(), |ms| format!("{}", ms / 1000.0));
        let _ = writeln!(out, "sandbox_browser_evaluate_duration_seconds_bucket{{le=\"{le}\"}} {count}");
    }
    let _ = writeln!(out, "sandbox_browser_evaluate_duration_seconds_sum {}", h.sum_ms / 1000.0);
    let _ = writeln!(out, "sandbox_browser_evaluate_duration_seconds_count {}", h.count);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_and_histogram_are_counted() {
        let s = Stats::default();
        s.record_action(Method::PageGoto, None, 20.0);
        s.record_action(Method::PageGoto, Some(ErrorCode::Timeout), 8_000.0);
        s.record_action(Method::PageClick, Some(ErrorCode::ElementCovered), 30.0);
        s.record_action(Method::PageEvaluate, None, 0.4);
        s.record_action(Method::PageEvaluate, None, 7.0);
        s.record_action(Method::PageEvaluate, Some(ErrorCode::Timeout), 60_000.0);
        let r = s.snapshot();
        assert_eq!(r.actions["page.goto"], ActionStats { count: 2, failures: 1, timeouts: 1 });
        assert_eq!(r.actions["page.click"], ActionStats { count: 1, failures: 1, timeouts: 0 });
        assert_eq!(r.evaluate_ms.count, 3, "page.evaluate's three, not the others'");
        assert_eq!(r.evaluate_ms.counts[0], 1, "<= 1 ms");
        assert_eq!(r.evaluate_ms.counts[3], 2, "<= 10 ms, cumulative");
        assert_eq!(*r.evaluate_ms.counts.last().unwrap(), 3, "+Inf holds all");
        assert_eq!(r.evaluate_ms.bounds_ms.last(), Some(&None));
    }

    #[test]
    fn prometheus_text_has_every_counter_and_a_histogram() {
        let s = Stats::default();
        s.restarts.inc();
        s.record_action(Method::PageEvaluate, None, 3.0);
        let text = prometheus(&s.snapshot(), 2);
        assert!(text.contains("sandbox_browser_restarts_total 1\n"));
        assert!(text.contains("sandbox_browser_actions_total{method=\"page.evaluate\"} 1\n"));
        assert!(text.contains("sandbox_browser_evaluate_duration_seconds_bucket{le=\"0.005\"} 1\n"));
        assert!(text.contains("sandbox_browser_evaluate_duration_seconds_bucket{le=\"+Inf\"} 1\n"));
        assert!(text.contains("sandbox_browser_sessions 2\n"));
        assert!(text.contains("sandbox_browser_tab_sessions 0\n"));
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (name, value) = line.rsplit_once(' ').unwrap();
            assert!(name.starts_with("sandbox_browser_"), "{line}");
            assert!(value.parse::<f64>().is_ok(), "{line}");
        }
    }
}
