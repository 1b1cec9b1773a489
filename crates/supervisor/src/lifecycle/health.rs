//! Browser health: the browser link, its generation, and the recovery cycle (docs/architecture.md,
//! "Health and recovery").
//!
//! [`BrowserHealth`] owns the current [`Browser`] and everything known of its health. Sessions observe
//! it ([`BrowserObserver`]): when a new browser comes up they are told before the link is handed out,
//! so the arrows run one way (sessions -> health -> browser); this module knows nothing of sessions.
//!
//! - **Health** before an action: the CDP probe `Browser.getVersion` on the supervisor's route of the
//!   browser's pipe: it fails after [`HANDSHAKE_TIMEOUT`] in which the browser sent nothing at all,
//!   and waits longer (10 s at most) while other messages keep coming ahead of its answer (a
//!   page's flood of events). Skipped while the connection is live and a probe passed within
//!   `runtime_healthcheck_interval_seconds`, unless something made the browser suspect (an action
//!   that timed out or lost its worker). While sessions are open the probes rerun in the
//!   background before they go stale (`BrowserHealth::keep_fresh`; one that fails only makes the next
//!   action probe). A closed browser connection (the process died) is noticed as it happens and
//!   starts the cycle at once, before any request asks.
//! - **The cycle**: unhealthy -> `browser_runtime_unhealthy` -> `browser_runtime_restarting` (kill the
//!   old process group, launch, the probe) -> `browser_runtime_ready`, and every open session gets a
//!   new target at its last URL (its next result carries `session_reset: true`). When the restart
//!   attempts (`runtime_restart_attempts`, default 1) are used up: `browser_runtime_restart_failed`,
//!   and every request that needs the browser answers `browser_unavailable` (not retryable) until the
//!   cool-down (`runtime_recovery_cooldown_seconds`) has passed; only then may a new cycle start.
//!   Action payloads are never re-sent.
//!
//! The cycle runs in a task of its own, so a request whose budget runs out (or whose client goes
//! away) never leaves a half-restarted browser: the request answers `timeout`, the cycle finishes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use sb_cdp::commands::BrowserGetVersion;
use sb_cdp::CdpClient;
use sb_protocol::error::{DO_NOT_RETRY, RUNTIME_HINT};
use sb_protocol::{Budget, ErrorBody, ErrorCode, Phase};

use crate::lifecycle::browser::{Browser, BrowserConfig, LaunchError, HANDSHAKE_TIMEOUT};
use crate::lifecycle::link::Link;
use crate::lifecycle::spawner::Spawner;
use crate::stats::Stats;

/// The longest a probe waits for its answer while the browser goes on speaking (see [`ask_version`]):
/// a browser that sends events but never answers is unhealthy past it.
const PROBE_CAP: Duration = Duration::from_secs(10);

/// The probe's call, `Browser.getVersion` on `link`'s route: `Ok` once answered. It fails when the
/// browser sent nothing at all for `silence` (no answer and no message for any route: frozen, or
/// gone), or after `cap`, or when the connection closes or the browser answers an error; the message
/// says which. Not a fixed `silence` for the answer: the one pipe carries every route's messages in
/// order, so behind a page's flood of events (tens of thousands of `console.log`s, a worker's route
/// ending under them) the answer may be seconds late on a loaded machine while the browser is well,
/// and a restart there would lose every page for nothing.
async fn ask_version(link: &Link, silence: Duration, cap: Duration) -> Result<(), String> {
    let call = link.client.run(&BrowserGetVersion {}, cap);
    tokio::pin!(call);
    let mut heard = link.relay.heard();
    loop {
        tokio::select! {
            answer = &mut call => return answer.map(drop).map_err(|e| format!("Browser.getVersion: {e}")),
            () = tokio::time::sleep(silence) => {
                let now = link.relay.heard();
                if now == heard {
                    return Err(format!(
                        "Browser.getVersion: no answer, and nothing else from the browser, in {} ms",
                        silence.as_millis()
                    ));
                }
                heard = now;
            }
        }
    }
}

/// Name of the browser provider in logs (`browser.provider`).
pub const PROVIDER: &str = "chromium";

/// How the runtime watches and restarts the browser (`[browser.sandbox]` of the configuration).
#[derive(Debug, Clone, Copy)]
pub struct HealthPolicy {
    /// Skip the probes while one passed this recently (0: probe before every action).
    pub interval: Duration,
    /// Restarts per recovery cycle.
    pub restart_attempts: u32,
    /// After a failed cycle, how long every request answers `browser_unavailable` before a new cycle
    /// may start.
    pub cooldown: Duration,
}

/// The link to browser `b`, the `generation`th of the runtime's life.
fn link_of(b: &Browser, generation: u64) -> Link {
    Link { client: b.client.clone(), relay: b.relay.clone(), browser: generation }
}

/// The current browser and what is known of its health.
#[derive(Default)]
struct Slot {
    browser: Option<Browser>,
    /// When the probe last passed.
    last_ok: Option<Instant>,
    /// Probe before the next action, however recent the last probe.
    suspect: bool,
    /// Browsers launched so far (0: none yet).
    generation: u64,
    /// Set while the observer gives the sessions their pages on a new browser: until then its link is
    /// not handed out without the cycle's lock (an action would find its session's old, dead target).
    settling: bool,
}

/// The recovery cycle's state; its mutex serializes checks and restarts.
#[derive(Default)]
struct Cycle {
    /// Set when the last cycle ended without a browser.
    down: Option<Down>,
}

struct Down {
    at: Instant,
    phase: Phase,
    message: String,
    /// The browser elsewhere that could not be reached again (its host), if it is one.
    remote: Option<String>,
}

impl Down {
    fn error(&self) -> ErrorBody {
        unavailable(self.phase, &self.message, self.remote.as_deref())
    }
}

/// `browser_unavailable`: one line ending with [`DO_NOT_RETRY`], the phase that failed, the hint (for
/// a browser elsewhere, at `remote`, one that names its host and the doctor's check).
pub fn unavailable(phase: Phase, what: &str, remote: Option<&str>) -> ErrorBody {
    let (again, hint) = match remote {
        Some(host) => (
            "reconnected",
            format!("Check the remote browser at {host} and the network to it; `sandbox-browser doctor` checks cdp_url."),
        ),
        None => ("restarted", RUNTIME_HINT.to_string()),
    };
    ErrorBody::new(
        ErrorCode::BrowserUnavailable,
        phase,
        format!("The browser could not be {again} ({}: {what}). {DO_NOT_RETRY}", phase.as_str()),
    )
    .with_hint(hint)
}

/// What watches the browser's life from above: the sessions. [`BrowserHealth`] calls it; it never
/// calls back into health while one of these runs (the cycle's lock is held).
pub trait BrowserObserver: Send + Sync {
    /// A new browser is up on `link` (first launch or restart): reopen pages and watch its targets.
    /// Awaited before the link is handed to the action that asked for it.
    fn browser_ready<'a>(&'a self, link: &'a Link) -> BoxFuture<'a, ()>;
    /// Whether anything is open that wants the probes kept fresh in the background.
    fn busy(&self) -> bool;
}

/// What the browser is, for `runtime.health`.
#[derive(Debug, Clone)]
pub struct BrowserFacts {
    /// `Browser.getVersion`'s `product` (`Chrome/156.0...`).
    pub version: String,
    /// The browser's pid (also its process group).
    pub pid: u32,
    /// Chromium's own sandbox: on (`chromium`), or off and why ([`crate::lifecycle::browser::sandbox_mode`]).
    pub sandbox: &'static str,
    /// Time since the probe last passed, ms (0 when never).
    pub last_probe_ms: u64,
    /// The binary and why it was chosen ([`crate::lifecycle::browser::Binary`]); `None` for a browser elsewhere.
    pub binary: Option<crate::lifecycle::browser::Binary>,
}

/// The browser, its generation and health, and the recovery cycle: one per runtime.
pub struct BrowserHealth {
    config: BrowserConfig,
    policy: HealthPolicy,
    spawner: Spawner,
    stats: Arc<Stats>,
    /// The current browser (none before the first launch and while a cycle has failed).
    slot: tokio::sync::RwLock<Slot>,
    /// Serializes health checks and restarts.
    cycle: tokio::sync::Mutex<Cycle>,
    /// Set by [`BrowserHealth::shutdown`]: a closing browser connection is then no fault.
    closing: AtomicBool,
    /// The sessions, told of each new browser.
    observer: OnceLock<Weak<dyn BrowserObserver>>,
}

impl BrowserHealth {
    /// Health for a browser launched with `config` through `spawner` (not launched yet).
    pub fn new(config: BrowserConfig, policy: HealthPolicy, spawner: Spawner, stats: Arc<Stats>) -> Self {
        BrowserHealth {
            config,
            policy,
            spawner,
            stats,
            slot: tokio::sync::RwLock::new(Slot::default()),
            cycle: tokio::sync::Mutex::new(Cycle::default()),
            closing: AtomicBool::new(false),
            observer: OnceLock::new(),
        }
    }

    /// Sets who is told of each new browser (once; later calls are ignored).
    pub fn observe(&self, observer: Weak<dyn BrowserObserver>) {
        let _ = self.observer.set(observer);
    }

    fn observer(&self) -> Option<Arc<dyn BrowserObserver>> {
        self.observer.get().and_then(Weak::upgrade)
    }

    /// The spawner every child of the runtime is started by.
    pub fn spawner(&self) -> &Spawner {
        &self.spawner
    }

    /// Launches the browser at start-up (`runtime_warmup_on_start`); a failed launch starts the
    /// recovery cycle like any other fault.
    ///
    /// # Errors
    /// `browser_unavailable` when the cycle could not bring a browser up.
    pub async fn start(self: &Arc<Self>) -> Result<(), ErrorBody> {
        let mut cycle = self.cycle.lock().await;
        self.launch_first(&mut cycle).await.map(|_| ())
    }

    /// The browser connection for an action, after the health check (skipped while fresh), within
    /// `budget`.
    ///
    /// # Errors
    /// `browser_unavailable` when the browser is down and could not be restarted; `timeout` (phase
    /// `launch`) when a check or restart still runs at the end of the budget.
    pub async fn link(self: &Arc<Self>, budget: Budget) -> Result<Link, ErrorBody> {
        if let Some(link) = self.fresh_link().await {
            self.stats.probes_skipped.inc();
            return Ok(link);
        }
        let this = self.clone();
        let check = tokio::spawn(async move { this.check().await });
        match tokio::time::timeout(budget.remaining(), check).await {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => {
                Err(ErrorBody::new(ErrorCode::Internal, Phase::Launch, format!("health check: {e}")))
            }
            Err(_) => Err(ErrorBody::new(
                ErrorCode::Timeout,
                Phase::Launch,
                "the browser is being checked or restarted and was not ready within the budget; retry",
            )),
        }
    }

    /// The current connection without any check (closing targets, background worker starts).
    pub async fn current_link(&self) -> Option<Link> {
        let slot = self.slot.read().await;
        slot.browser
            .as_ref()
            .filter(|b| b.client.closed_reason().is_none())
            .map(|b| link_of(b, slot.generation))
    }

    /// Whether the browser is known not to be alive right now: none, its connection closed, or its
    /// process exited (one read of `/proc`).
    pub async fn is_down(&self) -> bool {
        let slot = self.slot.read().await;
        slot.browser.as_ref().is_none_or(|b| b.client.closed_reason().is_some() || !b.running())
    }

    /// Makes the next action probe first (an action timed out or lost its worker).
    pub async fn mark_suspect(&self) {
        self.slot.write().await.suspect = true;
    }

    /// The connection, when it is live and a probe passed within the interval.
    async fn fresh_link(&self) -> Option<Link> {
        let slot = self.slot.read().await;
        let b = slot.browser.as_ref()?;
        let recent = slot.last_ok.is_some_and(|t| t.elapsed() < self.policy.interval);
        // The process's state costs one read of /proc: a browser that died (or was stopped) a moment
        // ago is noticed even before its connection reports the close.
        let fresh =
            recent && !slot.suspect && !slot.settling && b.client.closed_reason().is_none() && b.running();
        fresh.then(|| link_of(b, slot.generation))
    }

    /// The health check and, when it fails, the recovery cycle. One at a time. (Boxed: the cycle's
    /// connection watcher calls it again, and a recursive `async fn` has no nameable `Send` type.)
    fn check(self: Arc<Self>) -> BoxFuture<'static, Result<Link, ErrorBody>> {
        Box::pin(async move { self.check_now().await })
    }

    async fn check_now(self: &Arc<Self>) -> Result<Link, ErrorBody> {
        let mut cycle = self.cycle.lock().await;
        if let Some(link) = self.fresh_link().await {
            return Ok(link);
        }
        if let Some(down) = &cycle.down {
            if down.at.elapsed() < self.policy.cooldown {
                return Err(down.error());
            }
            cycle.down = None;
        }
        if self.slot.read().await.generation == 0 {
            return self.launch_first(&mut cycle).await;
        }
        match self.probe().await {
            Ok(link) => Ok(link),
            Err((phase, message)) => {
                self.stats.unhealthy_checks.inc();
                tracing::warn!(
                    browser.provider = PROVIDER,
                    error.phase = phase.as_str(),
                    error.message = %message,
                    "browser_runtime_unhealthy"
                );
                self.restart(&mut cycle).await
            }
        }
    }

    /// The probe of the current browser: `Browser.getVersion` on its pipe. Marks it fresh when it
    /// passes.
    async fn probe(&self) -> Result<Link, (Phase, String)> {
        self.stats.probes.inc();
        let link = {
            let slot = self.slot.read().await;
            match &slot.browser {
                Some(b) => link_of(b, slot.generation),
                None => return Err((Phase::Launch, "the browser is not running".into())),
            }
        };
        if let Some(reason) = link.client.closed_reason() {
            return Err((Phase::Handshake, format!("the browser connection closed ({reason})")));
        }
        if let Err(message) = ask_version(&link, HANDSHAKE_TIMEOUT, PROBE_CAP).await {
            return Err((Phase::Handshake, message));
        }
        let mut slot = self.slot.write().await;
        slot.last_ok = Some(Instant::now());
        slot.suspect = false;
        Ok(link)
    }

    /// The first launch (at start-up, or at the first request without warm-up).
    async fn launch_first(self: &Arc<Self>, cycle: &mut Cycle) -> Result<Link, ErrorBody> {
        tracing::info!(browser.provider = PROVIDER, "browser_runtime_starting");
        match Browser::start(&self.config, &self.spawner).await {
            Ok(b) => Ok(self.install(b).await),
            Err(e) => {
                self.stats.unhealthy_checks.inc();
                tracing::warn!(
                    browser.provider = PROVIDER,
                    error.phase = e.phase.as_str(),
                    error.message = %e.message,
                    browser.stderr = stderr_field(&e),
                    "browser_runtime_unhealthy"
                );
                self.restart(cycle).await
            }
        }
    }

    /// Kill and relaunch, at most `restart_attempts` times; then the cycle ends, up or down.
    async fn restart(self: &Arc<Self>, cycle: &mut Cycle) -> Result<Link, ErrorBody> {
        let mut failure = LaunchError {
            phase: Phase::Launch,
            message: "restarts are turned off (runtime_restart_attempts = 0)".into(),
            stderr_tail: String::new(),
        };
        for attempt in 1..=self.policy.restart_attempts {
            self.stats.restarts.inc();
            tracing::warn!(browser.provider = PROVIDER, attempt, "browser_runtime_restarting");
            let old = self.slot.write().await.browser.take();
            if let Some(mut old) = old {
                old.kill().await;
            }
            match Browser::start(&self.config, &self.spawner).await {
                Ok(b) => {
                    self.stats.recoveries.inc();
                    return Ok(self.install(b).await);
                }
                Err(e) => failure = e,
            }
        }
        self.stats.restart_failures.inc();
        tracing::error!(
            browser.provider = PROVIDER,
            error.phase = failure.phase.as_str(),
            error.message = %failure.message,
            browser.stderr = stderr_field(&failure),
            "browser_runtime_restart_failed"
        );
        let remote = self.config.remote.as_ref().map(crate::lifecycle::browser::RemoteEndpoint::host);
        let down = Down { at: Instant::now(), phase: failure.phase, message: failure.message, remote };
        let error = down.error();
        cycle.down = Some(down);
        Err(error)
    }

    /// Makes `b` the current browser, watches its connection, and gives every open session a page on
    /// it.
    async fn install(self: &Arc<Self>, b: Browser) -> Link {
        tracing::info!(
            browser.provider = PROVIDER,
            browser.version = %b.version.product,
            browser.pid = b.pid(),
            cdp.transport = if b.process.is_some() { "pipe" } else { "websocket" },
            browser.sandbox = crate::lifecycle::browser::sandbox_mode(&self.config),
            browser.binary = %b.binary.as_ref().map_or("remote".into(), |x| x.path.display().to_string()),
            browser.choice = b.binary.as_ref().map_or("[browser] cdp_url", |x| x.why),
            duration_ms = b.ready_after.as_millis() as u64,
            "browser_runtime_ready"
        );
        let (link, generation) = {
            let mut slot = self.slot.write().await;
            slot.generation += 1;
            let link = link_of(&b, slot.generation);
            slot.browser = Some(b);
            slot.last_ok = Some(Instant::now());
            slot.suspect = false;
            slot.settling = true;
            (link, slot.generation)
        };
        // The browser's death closes this connection: start the cycle then, not at the next request.
        let this = Arc::downgrade(self);
        let client = link.client.clone();
        tokio::spawn(async move {
            client.closed().await;
            let Some(this) = this.upgrade() else { return };
            if this.closing.load(Ordering::SeqCst) {
                return;
            }
            {
                let mut slot = this.slot.write().await;
                if slot.generation != generation {
                    return;
                }
                slot.suspect = true;
            }
            let _ = this.check().await;
        });
        self.keep_fresh(generation);
        if let Some(observer) = self.observer() {
            observer.browser_ready(&link).await;
        }
        self.slot.write().await.settling = false;
        link
    }

    /// While sessions are open, probes browser `generation` in the background shortly before its
    /// last probe goes stale (at three quarters of `runtime_healthcheck_interval_seconds`), so that an
    /// action after a pause finds it fresh and does not wait for the probes. A background probe that
    /// fails restarts nothing: a probe that timed out may be a browser that is slow for a moment (a
    /// loaded machine), not a frozen one, so it only makes the browser suspect and the next action
    /// probes it itself, as it would have without this loop (`browser_probe_failed` in the log); a
    /// later background probe that passes clears that. Stops with that browser, at shutdown, and when
    /// the runtime is down. Off when the interval is 0 (every action probes).
    fn keep_fresh(self: &Arc<Self>, generation: u64) {
        let every = self.policy.interval * 3 / 4;
        if every.is_zero() {
            return;
        }
        let this = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                let due = {
                    let Some(this) = this.upgrade() else { return };
                    let slot = this.slot.read().await;
                    if slot.generation != generation || this.closing.load(Ordering::SeqCst) {
                        return;
                    }
                    slot.last_ok.map_or_else(Instant::now, |t| t + every)
                };
                tokio::time::sleep_until(due.into()).await;
                let Some(this) = this.upgrade() else { return };
                let stale = this.slot.read().await.last_ok.is_none_or(|t| t.elapsed() >= every);
                if !stale {
                    continue;
                }
                let idle = !this.observer().is_some_and(|o| o.busy());
                if idle {
                    drop(this);
                    tokio::time::sleep(every).await;
                    continue;
                }
                match this.check_in_background().await {
                    Some(true) => {}
                    // Suspect: the next action decides; the next background probe is not rushed.
                    Some(false) => {
                        drop(this);
                        tokio::time::sleep(every).await;
                    }
                    None => return,
                }
            }
        });
    }

    /// The background probe of [`BrowserHealth::keep_fresh`]: the probe now (after any check or cycle in
    /// progress). Whether it passed (a failure marks the browser suspect); `None` when the runtime
    /// is down.
    async fn check_in_background(self: &Arc<Self>) -> Option<bool> {
        let cycle = self.cycle.lock().await;
        if cycle.down.is_some() {
            return None;
        }
        match self.probe().await {
            Ok(_) => Some(true),
            Err((phase, message)) => {
                tracing::info!(
                    browser.provider = PROVIDER,
                    error.phase = phase.as_str(),
                    error.message = %message,
                    "browser_probe_failed"
                );
                self.slot.write().await.suspect = true;
                Some(false)
            }
        }
    }

    /// What the current browser is (after [`BrowserHealth::link`] for a checked answer); `None` while
    /// none runs.
    pub async fn facts(&self) -> Option<BrowserFacts> {
        let slot = self.slot.read().await;
        let b = slot.browser.as_ref()?;
        Some(BrowserFacts {
            version: b.version.product.clone(),
            pid: b.pid(),
            sandbox: crate::lifecycle::browser::sandbox_mode(&self.config),
            last_probe_ms: slot.last_ok.map(|t| t.elapsed().as_millis() as u64).unwrap_or(0),
            binary: b.binary.clone(),
        })
    }

    /// Stops the browser for good: `before` runs with its connection first (closing the sessions'
    /// targets), then the process group is stopped.
    pub async fn shutdown<F, Fut>(&self, before: F)
    where
        F: FnOnce(CdpClient) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        self.closing.store(true, Ordering::SeqCst);
        let mut slot = self.slot.write().await;
        if let Some(browser) = slot.browser.as_mut() {
            before(browser.client.clone()).await;
            browser.stop().await;
        }
        slot.browser = None;
    }
}

/// Chromium's stderr tail for the log, left out when empty.
fn stderr_field(e: &LaunchError) -> Option<&str> {
    (!e.stderr_tail.is_empty()).then_some(e.stderr_tail.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sb_cdp::wire::{Inbound, Outbound, Wire};
    use sb_cdp::Relay;
    use serde_json::{json, Value};
    use tokio::sync::mpsc;

    /// A link over an in-memory browser (a fake CDP peer: a loaded machine's flood on demand), and the
    /// browser's ends: what it is sent, and a way to speak.
    fn link() -> (Link, mpsc::UnboundedReceiver<Outbound>, mpsc::Sender<Inbound>) {
        let (down, inbound) = mpsc::channel(64);
        let (outbound, up) = mpsc::unbounded_channel();
        let relay = Relay::start(Wire { inbound, outbound });
        let client = CdpClient::over(relay.route("supervisor", true));
        (Link { client, relay, browser: 1 }, up, down)
    }

    /// The id of the call the browser was sent.
    async fn call_id(up: &mut mpsc::UnboundedReceiver<Outbound>) -> Value {
        match up.recv().await {
            Some(Outbound::Message(t)) => serde_json::from_str::<Value>(&t).unwrap()["id"].clone(),
            other => panic!("expected a call, got {other:?}"),
        }
    }

    fn event(i: u32) -> Inbound {
        let e = json!({"method": "Target.targetInfoChanged", "params": {"targetInfo": {"targetId": i.to_string()}}});
        Inbound::Message(e.to_string())
    }

    /// A probe whose answer comes 3 s late behind the browser's other messages (one every 100 ms)
    /// passes: the browser is well, only busy. Before, the probe failed at 800 ms and the runtime
    /// restarted a healthy browser (a suite run: a page's 70,000 `console.log`s reset its page).
    #[tokio::test(start_paused = true)]
    async fn a_probe_waits_for_its_answer_while_the_browser_speaks() {
        let (link, mut up, down) = link();
        let browser = tokio::spawn(async move {
            let id = call_id(&mut up).await;
            for i in 0..30 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                down.send(event(i)).await.unwrap();
            }
            let answer = json!({"id": id, "result": {"protocolVersion": "1.3", "product": "Chrome/156", "revision": "", "userAgent": "", "jsVersion": ""}});
            down.send(Inbound::Message(answer.to_string())).await.unwrap();
            (up, down)
        });
        let started = tokio::time::Instant::now();
        let probe = ask_version(&link, HANDSHAKE_TIMEOUT, PROBE_CAP).await;
        assert_eq!(probe, Ok(()));
        assert!(started.elapsed() >= Duration::from_secs(3));
        drop(browser.await.unwrap());
    }

    /// A browser that sends nothing fails the probe after the silence (800 ms), and one that speaks but
    /// never answers fails it at the cap; each message says which.
    #[tokio::test(start_paused = true)]
    async fn a_silent_browser_fails_the_probe_at_the_silence_and_a_talking_one_at_the_cap() {
        let (link, mut up, down) = link();
        let started = tokio::time::Instant::now();
        let silent = ask_version(&link, HANDSHAKE_TIMEOUT, PROBE_CAP).await.unwrap_err();
        assert_eq!(started.elapsed(), HANDSHAKE_TIMEOUT);
        assert!(silent.contains("nothing else from the browser, in 800 ms"), "{silent}");
        call_id(&mut up).await;

        let chatter = tokio::spawn(async move {
            for i in 0.. {
                tokio::time::sleep(Duration::from_millis(100)).await;
                if down.send(event(i)).await.is_err() {
                    break;
                }
            }
        });
        let started = tokio::time::Instant::now();
        let talking = ask_version(&link, HANDSHAKE_TIMEOUT, PROBE_CAP).await.unwrap_err();
        assert_eq!(started.elapsed(), PROBE_CAP);
        assert!(talking.contains("timed out after 10000 ms"), "{talking}");
        chatter.abort();
    }
}
