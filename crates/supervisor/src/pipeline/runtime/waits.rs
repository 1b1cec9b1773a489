//! `page.wait_for` for what the supervisor sees and the page does not: a download, a popup, a
//! dialog of any of the session's tabs.

use std::sync::Arc;

use sb_protocol::api::WaitForResult;
use sb_protocol::ipc::{Action, WaitCondition};
use sb_protocol::{ErrorBody, ErrorCode, Phase};
use serde_json::Value;

use super::Runtime;
use crate::pipeline::call::Call;
use crate::pipeline::dispatch;
use crate::sessions::{SessionEntry, Sessions};

impl Runtime {
    /// `page.wait_for {download}` / `{popup}`: one that came since the session's previous request
    /// started (a popup its click opened, a download it started), or the first that comes within the
    /// budget; each is returned once.
    ///
    /// # Errors
    /// `timeout` (phase `wait`) at the deadline; `bad_request` for another condition beside it.
    pub(super) async fn wait_for_event(
        &self,
        session: &Arc<SessionEntry>,
        params: Value,
        call: Call<'_>,
    ) -> Result<WaitForResult, ErrorBody> {
        let condition = dispatch::wait_condition(dispatch::params(params)?)?;
        let budget = call.budget;
        let downloads = &self.queue.sessions.downloads;
        let not_met = |what: &str| {
            ErrorBody::new(
                ErrorCode::Timeout,
                Phase::Wait,
                format!("wait_for {what}: not met within the budget"),
            )
        };
        let mut result = WaitForResult {
            matched: String::new(),
            url: session.last_url().unwrap_or_default(),
            response: None,
            download: None,
            popup: None,
        };
        match condition {
            WaitCondition::Download => {
                let found = budget.wait_notified(&downloads.changed, || {
                    let since = session.marks.lock().unwrap().0;
                    downloads.ended_since(&session.id, since, &session.waited.lock().unwrap())
                });
                let (guid, d) = found.await.ok_or_else(|| not_met("download"))?;
                session.waited.lock().unwrap().insert(guid);
                result.matched = "download".into();
                result.download = Some(Box::new(d));
                Ok(result)
            }
            WaitCondition::Dialog => self.wait_for_dialog(session, call).await,
            WaitCondition::Popup => {
                let popup = budget.wait_notified(&session.popup_opened, || session.take_popup());
                let popup = popup.await.ok_or_else(|| not_met("popup"))?;
                let link = self.queue.health.link(budget).await?;
                let infos = Sessions::refresh_tabs(session, &link, budget).await?;
                result.matched = "popup".into();
                result.popup = crate::sessions::tab_infos(session, &infos)
                    .into_iter()
                    .find(|t| t.target_id == popup)
                    .map(Box::new);
                Ok(result)
            }
            _ => Err(ErrorBody::new(
                ErrorCode::Internal,
                Phase::Wait,
                "wait_for: not an event the runtime waits for",
            )),
        }
    }

    /// `page.wait_for {dialog}`: met by a dialog of any of the session's tabs that its results have not
    /// reported yet, as every result reports them: one the supervisor answered in a tab it holds (a
    /// popup not focused), already or while the worker waits for one of its own tabs'
    /// ([`WaitCondition::Dialog`] there, stopped as a cancelled run once a held tab's came). Before,
    /// only the worker's tabs counted: a popup's dialog was answered and reported while the wait ran
    /// to its deadline.
    ///
    /// # Errors
    /// The worker's (`timeout` at the deadline when no dialog opened).
    pub(super) async fn wait_for_dialog(
        &self,
        session: &Arc<SessionEntry>,
        call: Call<'_>,
    ) -> Result<WaitForResult, ErrorBody> {
        let held = || (!session.dialogs.lock().unwrap().is_empty()).then_some(());
        let met = || WaitForResult {
            matched: "dialog".into(),
            url: session.last_url().unwrap_or_default(),
            response: None,
            download: None,
            popup: None,
        };
        if held().is_some() {
            return Ok(met());
        }
        let stop = call.cancel.child_token();
        let action = Action::WaitFor { condition: WaitCondition::Dialog };
        let worker = self.queue.run(session, Call { cancel: &stop, ..call }, action);
        let mut worker = std::pin::pin!(worker);
        tokio::select! {
            output = &mut worker => output?.into_kind(),
            Some(()) = call.budget.wait_notified(&session.dialog_answered, held) => {
                stop.cancel();
                // The worker's answer (`cancelled`) frees the session's queue for the next action.
                let _ = worker.await;
                Ok(met())
            }
        }
    }
}
