//! The `runtime.*` methods' handlers (`runtime.health`, `runtime.stats`, `runtime.metrics`) and the
//! session methods that need no session yet (`session.list`, `session.start`).

use sb_protocol::api::{HealthResult, MetricsResult, Request, SessionListResult};
use sb_protocol::{Budget, ErrorBody, ErrorCode, Phase};
use serde_json::Value;

use super::{to_json, Runtime};
use crate::pipeline::dispatch::RuntimeOp;

impl Runtime {
    /// Methods without a session: `runtime.*`, `session.start`, `session.list`.
    pub(super) async fn execute_runtime(
        &self,
        op: RuntimeOp,
        request: Request,
        budget: Budget,
    ) -> Result<Value, ErrorBody> {
        match op {
            RuntimeOp::Health => to_json(self.health(budget).await?),
            RuntimeOp::Stats => {
                let mut stats = self.queue.stats.snapshot();
                if let Some(link) = self.queue.health.current_link().await {
                    stats.cdp_sessions = link.relay.sessions() as u64;
                }
                stats.tab_sessions = self.queue.sessions.tab_sessions();
                to_json(stats)
            }
            RuntimeOp::Metrics => {
                let mut stats = self.queue.stats.snapshot();
                stats.tab_sessions = self.queue.sessions.tab_sessions();
                to_json(MetricsResult {
                    content_type: "text/plain; version=0.0.4".into(),
                    text: crate::stats::prometheus(&stats, self.queue.sessions.len()),
                })
            }
            RuntimeOp::SessionList => {
                // With session tokens, a caller sees only its own sessions (none without a token).
                let token = self.config.session_tokens.then(|| request.session_token.unwrap_or_default());
                to_json(SessionListResult { sessions: self.queue.sessions.list(token.as_deref()) })
            }
            RuntimeOp::SessionStart => to_json(self.session_start(request, budget).await?),
        }
    }

    /// `runtime.health`: the health check (probes unless fresh), then what the browser is.
    async fn health(&self, budget: Budget) -> Result<HealthResult, ErrorBody> {
        self.queue.health.link(budget).await?;
        let facts = self.queue.health.facts().await.ok_or_else(|| {
            ErrorBody::new(ErrorCode::Timeout, Phase::Launch, "the browser is being restarted; retry")
        })?;
        Ok(HealthResult {
            browser_version: facts.version,
            browser_pid: facts.pid,
            cdp_transport: if self.config.browser.remote.is_some() { "websocket" } else { "pipe" }.into(),
            browser_binary: facts.binary.as_ref().map(|b| b.path.display().to_string()).unwrap_or_default(),
            browser_choice: facts.binary.as_ref().map_or("remote", |b| b.why).into(),
            browser_sandbox: facts.sandbox.into(),
            uptime_ms: self.started.elapsed().as_millis() as u64,
            sessions: self.queue.sessions.len(),
            restarts: self.queue.stats.restarts.get(),
            last_probe_ms: facts.last_probe_ms,
            max_timeout_ms: self.config.timeouts.max_ms,
        })
    }
}
