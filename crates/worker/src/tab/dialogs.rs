//! JavaScript dialogs never wedge a session.
//!
//! An open `alert`, `confirm`, `prompt` or `beforeunload` blocks the page's main thread, so every
//! later CDP call that needs the page would hang. A watcher on the page's session answers each one as
//! it opens (`Page.javascriptDialogOpening` -> `Page.handleJavaScriptDialog`): dismissed by default,
//! `beforeunload` accepted (so navigations go on), or as `page.handle_dialog` asked for the next one.
//! What was answered is reported with the action that was running, or, for one that opened between
//! actions (a timer an earlier click started), with the session's next result; `page.wait_for
//! {dialog: true}` waits for one, and an input's `settle_ms` gives its handlers' dialogs a window to
//! count as the input's.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use sb_cdp::commands::PageHandleJavaScriptDialog;
use sb_cdp::types::JavascriptDialogOpening;
use sb_cdp::Session;
use sb_protocol::api::{dialog_text, DialogInfo, DialogLog};
use sb_protocol::ipc::FromWorker;

/// How to answer the next dialog: (accept, prompt text).
type Answer = (bool, Option<String>);

/// Longest a dialog waits for the supervisor's answer to a claim ([`Dialogs::claim`]): past it, the
/// worker's own copy of the answer is used.
const CLAIM_TIMEOUT: Duration = Duration::from_secs(1);

/// Shared between the watcher and the worker's loop; survives page resets.
///
/// `page.handle_dialog`'s answer is used once, by one dialog: the supervisor holds it (for the tabs
/// it holds too, popups not focused yet), and a dialog of the worker's claims it there
/// (`FromWorker::ClaimDialog`, answered by `ToWorker::DialogClaimed`). The worker's copy says that
/// there is one to claim (no round trip for a dialog when there is none), and answers when the
/// supervisor does not within [`CLAIM_TIMEOUT`].
#[derive(Clone)]
pub(crate) struct Dialogs {
    next: Arc<Mutex<Option<Answer>>>,
    /// Claims sent and not answered yet, oldest first (the supervisor answers them in order).
    claims: Arc<Mutex<std::collections::VecDeque<tokio::sync::oneshot::Sender<Option<Answer>>>>>,
    /// To the supervisor.
    out: tokio::sync::mpsc::UnboundedSender<FromWorker>,
    /// Answered since the last [`Dialogs::take`]: the first `DIALOGS_LISTED`, and a count of the rest
    /// (a page that opens them in a loop), as the supervisor keeps them.
    answered: Arc<Mutex<DialogLog>>,
    /// Told each time a dialog is answered (`page.wait_for {dialog: true}`).
    pub(crate) opened: Arc<tokio::sync::Notify>,
}

impl Dialogs {
    /// Dialogs whose claims go to the supervisor on `out`.
    pub(crate) fn new(out: tokio::sync::mpsc::UnboundedSender<FromWorker>) -> Dialogs {
        Dialogs {
            next: Arc::default(),
            claims: Arc::default(),
            out,
            answered: Arc::default(),
            opened: Arc::default(),
        }
    }

    /// Sets how the next dialog is answered (the supervisor holds the same answer: a dialog claims it).
    pub(crate) fn set_next(&self, accept: bool, prompt_text: Option<String>) {
        *self.next.lock().unwrap() = Some((accept, prompt_text));
    }

    /// Forgets how to answer the next dialog: the supervisor answered one of a tab it holds with it.
    pub(crate) fn forget_next(&self) {
        *self.next.lock().unwrap() = None;
    }

    /// The supervisor's answer to the oldest claim not answered yet (`ToWorker::DialogClaimed`).
    pub(crate) fn claimed(&self, answer: Option<Answer>) {
        if let Some(waiting) = self.claims.lock().unwrap().pop_front() {
            let _ = waiting.send(answer);
        }
    }

    /// How the dialog that just opened is answered: `None` (by default) when no answer was asked
    /// for; else the answer claimed from the supervisor, which gives it to one dialog only (`None`
    /// when a dialog of a tab it holds had it first), or the worker's copy when the supervisor does
    /// not answer within [`CLAIM_TIMEOUT`].
    async fn claim(&self) -> Option<Answer> {
        let local = self.next.lock().unwrap().take()?;
        let (tx, rx) = tokio::sync::oneshot::channel();
        {
            // Queued and sent under one lock: claims are answered in the order they were sent.
            let mut claims = self.claims.lock().unwrap();
            claims.push_back(tx);
            let _ = self.out.send(FromWorker::ClaimDialog);
        }
        match tokio::time::timeout(CLAIM_TIMEOUT, rx).await {
            Ok(Ok(answer)) => answer,
            _ => Some(local),
        }
    }

    /// Whether a dialog was answered since the last [`Dialogs::take`].
    pub(crate) fn any(&self) -> bool {
        !self.answered.lock().unwrap().is_empty()
    }

    /// The dialogs answered since the last call.
    pub(crate) fn take(&self) -> DialogLog {
        std::mem::take(&mut *self.answered.lock().unwrap())
    }

    /// Starts answering the dialogs of `session` (subscribe before `Page.enable`, which reports a
    /// dialog that is already open).
    pub(crate) fn watch(&self, session: &Session) {
        let mut events = session.events();
        let session = session.clone();
        let me = self.clone();
        tokio::spawn(async move {
            while let Some(ev) = events.recv().await {
                if ev.method != "Page.javascriptDialogOpening" {
                    continue;
                }
                let Some(opening) = ev.parse::<JavascriptDialogOpening>() else { continue };
                let asked = me.claim().await;
                let DialogAnswer { kind, message, default_value, answer } = answer_dialog(opening, asked);
                let accept = answer.accept;
                let _ = session.run(&answer, Duration::from_secs(2)).await;
                tracing::info!(dialog.kind = %kind, dialog.accepted = accept, "dialog_answered");
                let info = DialogInfo { kind, message, accepted: accept, default_value };
                me.answered.lock().unwrap().push(info);
                me.opened.notify_waiters();
            }
        });
    }
}

/// A dialog that opened, and how it is answered ([`answer_dialog`]).
pub struct DialogAnswer {
    /// `alert`, `confirm`, `prompt` or `beforeunload` (`alert` when Chromium gives none).
    pub kind: String,
    /// The dialog's text, cut to [`sb_protocol::api::DIALOG_TEXT_CHARS`].
    pub message: String,
    /// A prompt's default value, when it has one that is not empty (cut as `message` is; the answer
    /// has it whole).
    pub default_value: Option<String>,
    /// The answer to send on the dialog's page session.
    pub answer: PageHandleJavaScriptDialog,
}

/// How a dialog that opened (`Page.javascriptDialogOpening`) is answered, in the worker's tabs and
/// in those the supervisor holds alike: as `asked` (`page.handle_dialog`'s `(accept, prompt_text)`)
/// when given, else dismissed (`beforeunload` accepted, so navigations go on). An accepted prompt
/// without text of the caller's answers with its default value, as a person pressing OK does.
pub fn answer_dialog(
    opening: JavascriptDialogOpening,
    asked: Option<(bool, Option<String>)>,
) -> DialogAnswer {
    let kind = if opening.kind.is_empty() { "alert".to_string() } else { opening.kind };
    let default_value = opening.default_prompt.filter(|d| kind == "prompt" && !d.is_empty());
    let (accept, prompt) = asked.unwrap_or((kind == "beforeunload", None));
    let prompt_text = prompt.or_else(|| default_value.clone().filter(|_| accept));
    DialogAnswer {
        kind,
        message: dialog_text(opening.message),
        default_value: default_value.map(dialog_text),
        answer: PageHandleJavaScriptDialog { accept, prompt_text },
    }
}
