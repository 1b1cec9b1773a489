//! The worker: the killable process that runs one session's page actions over CDP.
//!
//! The supervisor starts one worker per session (the hidden `sandbox-browser worker` subcommand) in
//! its own process group, hands it a connected Unix stream, and kills the group when an action
//! overruns its budget. So everything that can hang on a page (navigation, in-page JavaScript,
//! screenshots) happens here, never in the supervisor.
//!
//! The worker opens its *own* CDP WebSocket to the browser, attaches to its session's target
//! (`Target.attachToTarget {flatten: true}`), answers [`sb_protocol::ipc::FromWorker::Ready`], then
//! runs [`sb_protocol::ipc::ToWorker::Run`] requests one at a time, each within the `budget_ms` it is
//! given. It must not touch the harness API, other sessions, or the browser process.

mod actions;

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use sb_cdp::{CdpClient, CdpError, Session};
use sb_protocol::ipc::{self, Action, FromWorker, Output, ToWorker, WorkerError};
use sb_protocol::{Budget, ErrorCode, Phase};
use tokio::net::UnixStream;
use tokio::sync::mpsc;
use tokio_util::codec::Framed;

/// How the worker finds its page.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// The browser's CDP WebSocket URL (`ws://127.0.0.1:<port>/devtools/browser/<id>`).
    pub ws_url: String,
    /// CDP `targetId` of the session's page.
    pub target_id: String,
}

/// Time allowed to connect and attach before `Ready`.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs the worker on `ipc` until the supervisor says `Shutdown`, closes the stream, or the browser
/// connection is lost.
///
/// # Errors
/// When the browser cannot be reached or the target cannot be attached (the supervisor sees the
/// stream close without `Ready`), or the IPC stream breaks.
pub async fn run(ipc: UnixStream, config: WorkerConfig) -> Result<(), String> {
    let framed = Framed::new(ipc, ipc::codec());
    let (mut sink, mut frames) = framed.split();

    let page = Page::attach(&config).await.map_err(|e| format!("attach to {}: {e}", config.target_id))?;
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<FromWorker>();
    out_tx
        .send(FromWorker::Ready {
            target_id: config.target_id.clone(),
            cdp_session_id: page.session.id().to_string(),
        })
        .ok();
    let writer = tokio::spawn(async move {
        while let Some(msg) = out_rx.recv().await {
            let frame = ipc::encode(&msg).map_err(|e| e.to_string())?;
            sink.send(frame).await.map_err(|e| e.to_string())?;
        }
        Ok::<(), String>(())
    });

    let result = loop {
        let frame = tokio::select! {
            f = frames.next() => f,
            reason = page.session.client().closed() => break Err(format!("browser connection lost: {reason}")),
        };
        let msg: ToWorker = match frame {
            None => break Ok(()),
            Some(Err(e)) => break Err(format!("ipc: {e}")),
            Some(Ok(bytes)) => match ipc::decode(&bytes) {
                Ok(m) => m,
                Err(e) => break Err(format!("ipc: undecodable frame: {e}")),
            },
        };
        match msg {
            ToWorker::Shutdown => break Ok(()),
            ToWorker::Run { seq, budget_ms, action } => {
                let budget = Budget::new(Duration::from_millis(budget_ms));
                let outcome = page.run(action, budget).await;
                let lost = matches!(&outcome, Err(e) if e.code == ErrorCode::CdpError && page.session.client().closed_reason().is_some());
                let _ = out_tx.send(FromWorker::Done { seq, outcome });
                if lost {
                    break Err("browser connection lost".into());
                }
            }
        }
    };
    drop(out_tx);
    let _ = writer.await;
    page.session.client().close();
    result
}

/// The attached page and what the worker remembers of it.
pub(crate) struct Page {
    pub(crate) session: Session,
}

impl Page {
    async fn attach(config: &WorkerConfig) -> Result<Page, CdpError> {
        let client = CdpClient::connect(&config.ws_url, ATTACH_TIMEOUT).await?;
        let session = client.attach(&config.target_id, ATTACH_TIMEOUT).await?;
        for method in ["Page.enable", "Network.enable"] {
            session.call_raw(method, serde_json::json!({}), ATTACH_TIMEOUT).await?;
        }
        session
            .call_raw("Page.setLifecycleEventsEnabled", serde_json::json!({"enabled": true}), ATTACH_TIMEOUT)
            .await?;
        Ok(Page { session })
    }

    /// Runs one action. Its first phase is implied by the action (`Action::phase`); a later step of a
    /// multi-step action would be reported with `FromWorker::Phase` (none has one yet).
    async fn run(&self, action: Action, budget: Budget) -> Result<Output, WorkerError> {
        match action {
            Action::Goto { url } => actions::goto(self, &url, budget).await,
            Action::Extract { format, max_chars } => actions::extract(self, format, max_chars, budget).await,
            Action::Screenshot { full_page, format, quality, inline, max_height, path } => {
                let shot = actions::Shot { full_page, format, quality, inline, max_height };
                actions::screenshot(self, shot, &path, budget).await
            }
            Action::Evaluate { expression } => actions::evaluate(self, &expression, budget).await,
        }
    }
}

/// Maps a CDP failure in `phase` to the worker's error: a CDP timeout is the action's [`ErrorCode::Timeout`].
pub(crate) fn cdp_failure(phase: Phase, e: CdpError) -> WorkerError {
    let code = if e.is_timeout() { ErrorCode::Timeout } else { ErrorCode::CdpError };
    let message = match &e {
        CdpError::Timeout { method, .. } => format!("{method} did not answer within the budget"),
        other => other.to_string(),
    };
    WorkerError { code, phase, message }
}
