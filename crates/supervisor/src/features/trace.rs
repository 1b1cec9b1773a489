//! A trace of what the agent did in a session (`session.trace`, `[trace] always`): each action as one
//! JSON line (the [`ActionRecord`]: params redacted, timing, outcome, URL, dialogs, downloads, console
//! errors, resets, a person's takeover) with a small JPEG of the page after it, in the directory of
//! its session owner's traces (`<artifacts>/owners/<owner>/traces`); on stop, one self-contained HTML
//! report (a timeline that opens offline: no script, the screenshots inline as `data:` URLs).
//!
//! Files: `<session>-trace-<ms>.jsonl`, `<session>-trace-<ms>-<n>.jpg`, and the report
//! (`<session>-trace-<ms>.html`, or the plain name `session.trace {name}` gives, through
//! [`crate::files::under`]). They are artifacts like screenshots (`[artifacts]` retention prunes
//! them); one trace holds at most `[trace] max_bytes`, past which actions are recorded without their
//! screenshot (the line says so).
//!
//! Arrows: trace -> activity, files, link, sessions, store, unstick.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use sb_cdp::commands::PageCaptureScreenshot;
use sb_protocol::api::TraceResult;
use sb_protocol::error::bad_request;
use sb_protocol::{Budget, ErrorBody, Phase};
use serde::Deserialize;
use serde_json::Value;

use crate::features::activity::ActionRecord;
use crate::lifecycle::link::Link;
use crate::sessions::SessionEntry;

/// The longest a trace's screenshot may take: it is taken before the action answers.
pub const SHOT_CAP: Duration = Duration::from_millis(1_000);
/// What a trace's screenshot leaves of the action's budget (the answer's own way back).
pub const SHOT_RESERVE: Duration = Duration::from_millis(150);
/// A trace's screenshots are the viewport at this scale (0.5: 640x400 for 1280x800), JPEG at
/// [`SHOT_QUALITY`]: 15-40 KB each.
pub const SHOT_SCALE: f64 = 0.5;
/// JPEG quality of a trace's screenshots.
pub const SHOT_QUALITY: u8 = 50;

/// `[trace]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TraceConfig {
    /// Trace every session from its start (its report is written when it closes).
    pub always: bool,
    /// The most one trace's files (JSON lines and screenshots) may hold, bytes; past it, actions are
    /// recorded without a screenshot.
    pub max_bytes: u64,
}

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig { always: false, max_bytes: 32 * 1024 * 1024 }
    }
}

/// The file `name` in `dir` (a plain name: [`crate::files::under`]).
///
/// # Errors
/// `bad_request` for a name that is not plain.
fn file(dir: &Path, name: &str) -> Result<PathBuf, ErrorBody> {
    crate::files::under(dir, name).map_err(|e| bad_request(format!("session.trace: {e}")))
}

/// One running trace.
struct Trace {
    /// The directory of its files: its session's owner's traces.
    dir: PathBuf,
    /// `<session>-trace-<ms>`: the files' common name.
    stem: String,
    jsonl: PathBuf,
    file: std::fs::File,
    actions: u64,
    bytes: u64,
}

/// The running traces by session, and the reports written.
pub struct Tracer {
    config: TraceConfig,
    running: Mutex<HashMap<String, Arc<Mutex<Trace>>>>,
    /// Reports per session, their names and paths (the view links them; it serves no other file).
    reports: Mutex<HashMap<String, Vec<(String, PathBuf)>>>,
}

impl Tracer {
    /// A tracer with `config`.
    pub fn new(config: TraceConfig) -> Tracer {
        Tracer { config, running: Mutex::default(), reports: Mutex::default() }
    }

    /// Whether every session is traced from its start.
    pub fn always(&self) -> bool {
        self.config.always
    }

    /// Whether `session_id` is traced now.
    pub fn active(&self, session_id: &str) -> bool {
        self.running.lock().unwrap().contains_key(session_id)
    }

    /// Starts tracing `session_id`, its files in `dir` (its owner's traces; a running trace goes on).
    ///
    /// # Errors
    /// `internal` when its file cannot be created.
    pub fn start(&self, session_id: &str, dir: PathBuf) -> Result<TraceResult, ErrorBody> {
        let mut running = self.running.lock().unwrap();
        if let Some(trace) = running.get(session_id) {
            return Ok(self.state(&trace.lock().unwrap(), true, None));
        }
        let millis = crate::sessions::store::now_ms();
        let stem = format!("{session_id}-trace-{millis}");
        let jsonl = file(&dir, &format!("{stem}.jsonl"))?;
        let file = crate::files::create_private(&jsonl).map_err(|e| write_error(&jsonl, e))?;
        let trace = Trace { dir, stem, jsonl, file, actions: 0, bytes: 0 };
        let result = self.state(&trace, true, None);
        running.insert(session_id.to_string(), Arc::new(Mutex::new(trace)));
        tracing::info!(browser.session_id = %session_id, "trace_started");
        Ok(result)
    }

    /// Stops tracing `session_id` and writes its report: under the plain name `name` (`.html` added
    /// when missing), else `<stem>.html`.
    ///
    /// # Errors
    /// `bad_request` when the session is not traced or `name` is not a plain name; `internal` when the
    /// report cannot be written.
    pub fn stop(&self, session_id: &str, name: Option<&str>) -> Result<TraceResult, ErrorBody> {
        let mut running = self.running.lock().unwrap();
        let trace = running.get(session_id).cloned().ok_or_else(|| {
            bad_request(
                "session.trace stop: the session is not being traced; start one with {\"action\": \"start\"}",
            )
        })?;
        let trace = trace.lock().unwrap();
        let name = match name {
            Some(n) if n.ends_with(".html") => n.to_string(),
            Some(n) => format!("{n}.html"),
            None => format!("{}.html", trace.stem),
        };
        // A name that is not plain is refused before the trace ends: it goes on.
        let path = file(&trace.dir, &name)?;
        running.remove(session_id);
        drop(running);
        let html = report(session_id, &trace.jsonl, &trace.dir);
        let written = sb_protocol::files::write_private(&path, html.as_bytes());
        written.map_err(|e| write_error(&path, e))?;
        self.reports.lock().unwrap().entry(session_id.to_string()).or_default().push((name, path.clone()));
        tracing::info!(browser.session_id = %session_id, actions = trace.actions, report = %path.display(), "trace_written");
        Ok(self.state(&trace, false, Some(path)))
    }

    /// Every report written, as `(session, name)`, oldest session first (closed sessions' too).
    pub fn all_reports(&self) -> Vec<(String, String)> {
        let reports = self.reports.lock().unwrap();
        let mut all: Vec<(String, String)> = reports
            .iter()
            .flat_map(|(s, names)| names.iter().map(move |(n, _)| (s.clone(), n.clone())))
            .collect();
        all.sort();
        all
    }

    /// The file of the report named `name` this runtime wrote, the latest of that name (the view
    /// serves those only); `None` for any other name.
    pub fn report_path(&self, name: &str) -> Option<PathBuf> {
        let reports = self.reports.lock().unwrap();
        reports.values().flatten().filter(|(n, _)| n == name).map(|(_, p)| p.clone()).last()
    }

    /// Appends `record` to `session_id`'s trace, with `shot` (a JPEG) when it fits in the trace's
    /// bytes. A write that fails is logged: a trace never fails an action.
    pub fn record(&self, record: &ActionRecord, shot: Option<Vec<u8>>) {
        let Some(trace) = self.running.lock().unwrap().get(&record.session_id).cloned() else { return };
        let mut trace = trace.lock().unwrap();
        let n = trace.actions + 1;
        let mut line = serde_json::to_value(record).unwrap_or_default();
        line["n"] = n.into();
        match shot {
            Some(jpeg) if trace.bytes + jpeg.len() as u64 <= self.config.max_bytes => {
                let name = format!("{}-{n:04}.jpg", trace.stem);
                let written = crate::files::under(&trace.dir, &name)
                    .and_then(|p| sb_protocol::files::write_private(&p, &jpeg));
                match written {
                    Ok(()) => {
                        trace.bytes += jpeg.len() as u64;
                        line["screenshot"] = name.into();
                    }
                    Err(e) => tracing::warn!(error.message = %e, "trace_screenshot_not_written"),
                }
            }
            Some(_) => line["screenshot_skipped"] = "the trace reached [trace] max_bytes".into(),
            None => line["screenshot_skipped"] = "no screenshot (the page did not answer in time)".into(),
        }
        let mut text = line.to_string();
        text.push('\n');
        match trace.file.write_all(text.as_bytes()) {
            Ok(()) => {
                trace.actions = n;
                trace.bytes += text.len() as u64;
            }
            Err(e) => tracing::warn!(error.message = %e, "trace_line_not_written"),
        }
    }

    /// Stops a closed session's trace, writing its report (logged, never failing the close).
    pub fn close(&self, session_id: &str) {
        if self.active(session_id) {
            if let Err(e) = self.stop(session_id, None) {
                tracing::warn!(browser.session_id = %session_id, error.message = %e.message, "trace_not_written");
            }
        }
    }

    fn state(&self, trace: &Trace, tracing: bool, report: Option<PathBuf>) -> TraceResult {
        TraceResult {
            tracing,
            actions: trace.actions,
            jsonl: trace.jsonl.display().to_string(),
            report: report.map(|p| p.display().to_string()),
            bytes: trace.bytes,
        }
    }
}

fn write_error(path: &Path, e: std::io::Error) -> ErrorBody {
    sb_protocol::files::failed_write(Phase::Session, path, &e)
}

/// A small JPEG of `session`'s active tab (`Page.captureScreenshot`, the viewport `width` x `height`
/// CSS px at [`SHOT_SCALE`]), from the supervisor's own connection, within `budget` less
/// [`SHOT_RESERVE`] and at most [`SHOT_CAP`]; `None` when there is no time left or the page does not
/// answer.
pub async fn screenshot(
    session: &SessionEntry,
    link: &Link,
    viewport: (u32, u32),
    budget: Budget,
) -> Option<Vec<u8>> {
    let cap = budget.remaining().saturating_sub(SHOT_RESERVE).min(SHOT_CAP);
    if cap < Duration::from_millis(50) {
        return None;
    }
    let budget = Budget::new(cap);
    let target = session.target();
    let (cdp, fresh) = crate::sessions::unstick::session_on(session, link, &target, budget).await?;
    let shot = PageCaptureScreenshot {
        format: "jpeg".into(),
        quality: Some(SHOT_QUALITY),
        clip: Some(serde_json::json!({
            "x": 0, "y": 0, "width": viewport.0, "height": viewport.1, "scale": SHOT_SCALE
        })),
    };
    let answer = cdp.run(&shot, budget.remaining()).await;
    if fresh {
        crate::sessions::unstick::detach(&cdp).await;
    }
    base64::engine::general_purpose::STANDARD.decode(answer.ok()?.data).ok()
}

/// The HTML report of the trace in `jsonl` (screenshots read from `dir`, inlined).
fn report(session_id: &str, jsonl: &Path, dir: &Path) -> String {
    let text = std::fs::read_to_string(jsonl).unwrap_or_default();
    let lines: Vec<Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let failed = lines.iter().filter(|l| l.get("code").is_some()).count();
    let mut timeline = String::new();
    let mut steps = String::new();
    for line in &lines {
        let n = line["n"].as_u64().unwrap_or(0);
        let method = line["method"].as_str().unwrap_or("?");
        let ok = line.get("code").is_none();
        let outcome = line["code"].as_str().unwrap_or("ok");
        let ms = line["ms"].as_u64().unwrap_or(0);
        timeline.push_str(&format!(
            "<a class=\"tick {cls}\" href=\"#s{n}\" title=\"#{n} {m} {o} {ms} ms\"></a>",
            cls = if ok { "ok" } else { "failed" },
            m = esc(method),
            o = esc(outcome),
        ));
        let mut notes = String::new();
        if let Some(url) = line["url"].as_str() {
            notes.push_str(&format!("<li>url: <code>{}</code></li>", esc(url)));
        }
        if let Some(message) = line["message"].as_str() {
            notes.push_str(&format!("<li class=\"err\">{}</li>", esc(message)));
        }
        for d in line["dialogs"].as_array().into_iter().flatten() {
            notes.push_str(&format!("<li>dialog: <code>{}</code></li>", esc(&d.to_string())));
        }
        for d in line["downloads"].as_array().into_iter().flatten() {
            notes.push_str(&format!("<li>download: <code>{}</code></li>", esc(&d.to_string())));
        }
        if let Some(n) = line["console_errors"].as_u64() {
            notes.push_str(&format!("<li class=\"err\">console errors: {n}</li>"));
        }
        for text in line["console"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            notes.push_str(&format!("<li class=\"err\"><code>{}</code></li>", esc(text)));
        }
        if let Some(r) = line["reset"].as_str() {
            notes.push_str(&format!("<li class=\"err\">page reset before it: {}</li>", esc(r)));
        }
        if let Some(h) = line.get("human_took_over") {
            notes.push_str(&format!(
                "<li>a person held the session: <code>{}</code></li>",
                esc(&h.to_string())
            ));
        }
        let image = match line["screenshot"].as_str().and_then(|name| crate::files::under(dir, name).ok()) {
            Some(path) => match std::fs::read(&path) {
                Ok(bytes) => format!(
                    "<img alt=\"the page after #{n}\" src=\"data:image/jpeg;base64,{}\">",
                    base64::engine::general_purpose::STANDARD.encode(bytes)
                ),
                Err(_) => "<p class=\"none\">(screenshot removed by the artifacts' retention)</p>".into(),
            },
            None => format!(
                "<p class=\"none\">({})</p>",
                esc(line["screenshot_skipped"].as_str().unwrap_or("no screenshot"))
            ),
        };
        let params = match &line["params"] {
            Value::Null => "(no params)".to_string(),
            p => serde_json::to_string_pretty(p).unwrap_or_default(),
        };
        steps.push_str(&format!(
            "<section class=\"step {cls}\" id=\"s{n}\"><h2>#{n} <span class=\"method\">{m}</span> \
             <span class=\"outcome\">{o}</span> <span class=\"ms\">{ms} ms</span> \
             <span class=\"at\" data-ms=\"{ms_at}\">{at}</span></h2><div class=\"body\"><div>\
             <pre class=\"params\">{p}</pre><ul>{notes}</ul></div>{image}</div></section>\n",
            cls = if ok { "ok" } else { "failed" },
            m = esc(method),
            o = esc(outcome),
            ms_at = line["at_ms"].as_u64().unwrap_or(0),
            at = clock(line["at_ms"].as_u64().unwrap_or(0)),
            p = esc(&params),
        ));
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\
         <title>Trace of session {sid}</title><style>{css}</style></head><body>\
         <h1>Trace of session <code>{sid}</code></h1>\
         <p class=\"summary\">{count} actions, {failed} failed. Each step: the method, its params (typed text \
         redacted), its outcome and time, and the page after it.</p>\
         <nav class=\"timeline\">{timeline}</nav>\n{steps}</body></html>\n",
        sid = esc(session_id),
        css = REPORT_CSS,
        count = lines.len(),
    )
}

const REPORT_CSS: &str = "body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.3em}code,pre{font:12px ui-monospace,monospace}\
.timeline{display:flex;flex-wrap:wrap;gap:2px;margin:1em 0}.tick{width:14px;height:22px;border-radius:2px}\
.tick.ok{background:#3a7}.tick.failed{background:#c33}\
.step{border:1px solid #ccc;border-left:6px solid #3a7;border-radius:4px;margin:.8em 0;padding:.4em .8em}\
.step.failed{border-left-color:#c33}.step h2{font-size:1em;margin:.2em 0}.outcome{font-weight:normal}\
.failed .outcome,.err{color:#c33}.ms,.at{color:#777;font-weight:normal}\
.body{display:flex;gap:1em;align-items:flex-start}.body>div{flex:1;min-width:0}\
pre.params{background:#f6f6f6;padding:.4em;white-space:pre-wrap;word-break:break-all;margin:.3em 0}\
img{max-width:480px;border:1px solid #ddd}.none{color:#777;font-style:italic}";

/// `ms` since the Unix epoch as the time of day, UTC: `12:04:31.207 UTC`.
fn clock(ms: u64) -> String {
    let (s, milli) = (ms / 1000, ms % 1000);
    format!("{:02}:{:02}:{:02}.{milli:03} UTC", (s / 3600) % 24, (s / 60) % 60, s % 60)
}

/// `text` with `& < > " '` escaped for HTML text and attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(n: u64, code: Option<&'static str>) -> ActionRecord {
        let params = serde_json::json!({"selector": "<b>", "text": "hunter2"});
        let outcome = match code {
            None => Ok(&Value::Null),
            Some(c) => Err((c, "it <failed>")),
        };
        let mut r =
            ActionRecord::of("s1", "page.type", &params, 1_000 + n, 12, outcome, Some("https://a/".into()));
        if code.is_none() {
            r.url = Some("https://a/".into());
        }
        r
    }

    /// A trace's lines and report: each action once, typed text never written, HTML escaped, a report
    /// name that is not plain refused, a trace over its bytes keeps recording without screenshots.
    #[test]
    fn a_trace_writes_lines_and_a_self_contained_report() {
        let dir = tempfile::tempdir().unwrap();
        let tracer = Tracer::new(TraceConfig { always: false, max_bytes: 1_000 });
        assert!(tracer.stop("s1", None).is_err(), "nothing to stop");
        tracer.start("s1", dir.path().to_path_buf()).unwrap();
        tracer.record(&record(1, None), Some(vec![0xFF, 0xD8, 0xFF, 0xD9]));
        tracer.record(&record(2, Some("timeout")), Some(vec![0; 2_000]));
        assert_eq!(tracer.stop("s1", Some("../x")).unwrap_err().code, sb_protocol::ErrorCode::BadRequest);
        let done = tracer.stop("s1", Some("run")).unwrap();
        assert_eq!((done.actions, done.tracing), (2, false));
        let html = std::fs::read_to_string(dir.path().join("run.html")).unwrap();
        assert_eq!(html.matches("<section class=\"step").count(), 2);
        assert_eq!(html.matches("data:image/jpeg;base64,").count(), 1, "the second is over max_bytes");
        assert!(html.contains("max_bytes") && html.contains("&lt;b&gt;") && !html.contains("<b>"));
        let lines = std::fs::read_to_string(&done.jsonl).unwrap();
        assert!(!lines.contains("hunter2") && !html.contains("hunter2"));
        assert_eq!(tracer.all_reports(), vec![("s1".to_string(), "run.html".to_string())]);
        assert_eq!(tracer.report_path("run.html"), Some(dir.path().join("run.html")));
        assert_eq!(tracer.report_path("run.jsonl"), None);
    }
}
