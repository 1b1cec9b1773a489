//! `session.har`: the session's requests as a HAR 1.2 file, as Playwright's `recordHar`
//! (`server/har/harTracer.ts`) writes one.
//!
//! Recording costs nothing of its own: every tab's journal already keeps its requests (headers, post
//! data, status, timings) in a bounded buffer ([`crate::tab::journal`]). Starting marks where each tab's
//! journal stands; stopping reads every tab's requests after its mark (a tab opened meanwhile: all of
//! them), asks the browser for each response body still held (`Network.getResponseBody`, cut at
//! [`NETWORK_BODY_BYTES`]; none with `content: omit`), and writes the entries, oldest first. A tab
//! closed during the recording takes its requests with it; a tab's requests past its buffer are
//! counted in the log's `comment`.

use sb_cdp::Session;
use sb_protocol::api::{HarParams, HarResult, NETWORK_BODY_BYTES};
use sb_protocol::ipc::{Output, WorkerError};
use sb_protocol::{ErrorCode, Phase};
use serde_json::{json, Value};

use crate::error::fail;
use crate::progress::Progress;
use crate::tab::journal::{Found, HarFacts, HarRecording as Recording, Journal};
use crate::tab::page::Page;

/// The tabs the worker holds: target id, page session, journal.
fn tabs(page: &Page) -> Vec<(String, Session, std::sync::Arc<Journal>)> {
    let mut all = vec![(page.target_id.clone(), page.session.clone(), page.journal.clone())];
    for (target, left) in &page.left {
        all.push((target.clone(), left.attached.session.clone(), left.attached.journal.clone()));
    }
    all
}

/// `session.har {action: start}`: marks where every tab's journal stands; bodies kept unless `content: omit`.
///
/// # Errors
/// `bad_request` when a recording is on already, or `url_filter` does not compile.
pub(crate) fn start(page: &mut Page, params: &HarParams) -> Result<Output, WorkerError> {
    let (embed, url_filter) = (params.embeds(), params.url_filter.as_deref());
    let bad = |m: String| fail(ErrorCode::BadRequest, Phase::Request, m);
    if page.har.is_some() {
        return Err(bad("session.har: the session is recording already; stop it first".into()));
    }
    let filter = url_filter.map(sb_protocol::pattern::url_pattern).transpose().map_err(bad)?;
    let marks = tabs(page).into_iter().map(|(target, _, journal)| (target, journal.last_request())).collect();
    page.har = Some(Recording { marks, embed, filter });
    Ok(Output::Har(HarResult { recording: true, ..HarResult::default() }))
}

/// `session.har {action: stop}`: the recording's entries written to `path` as HAR 1.2, within the
/// action's budget (a body not fetched by then is left out, and says so).
///
/// # Errors
/// `bad_request` when nothing is recording; a write that fails (`disk_full`, `internal`).
pub(crate) async fn stop(page: &mut Page, path: &str, p: &Progress) -> Result<Output, WorkerError> {
    let Some(recording) = page.har.take() else {
        return Err(fail(
            ErrorCode::BadRequest,
            Phase::Request,
            "session.har: the session is not recording; start it with session.har {action: start}",
        ));
    };
    p.log("reading the tabs' requests");
    let mut entries: Vec<(f64, Value)> = Vec::new();
    let mut dropped = 0;
    for (target, session, journal) in tabs(page) {
        let (since, dropped_before) = recording.marks.get(&target).copied().unwrap_or((0, 0));
        dropped += journal.last_request().1.saturating_sub(dropped_before);
        for id in journal.request_ids(since) {
            let Some(found) = journal.details(id) else { continue };
            if recording.filter.as_ref().is_some_and(|f| !f.is_match(&found.entry.url)) {
                continue;
            }
            let wall_time = found.har.wall_time;
            entries.push((wall_time, entry(found, recording.embed, &session, p).await));
        }
    }
    entries.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut log = json!({
        "version": "1.2",
        "creator": {"name": "sandbox-browser", "version": env!("CARGO_PKG_VERSION")},
        "pages": [],
        "entries": entries.iter().map(|(_, e)| e).collect::<Vec<_>>(),
    });
    if dropped > 0 {
        log["comment"] = json!(format!(
            "{dropped} requests were let go before the recording stopped (each tab keeps its newest {})",
            sb_protocol::api::NETWORK_BUFFER
        ));
    }
    let bytes = serde_json::to_vec_pretty(&json!({ "log": log })).unwrap_or_default();
    let path = std::path::Path::new(path);
    // A name given again replaces the file it named (the owner's own, under the artifacts dir).
    let _ = std::fs::remove_file(path);
    crate::action::actions::write_private(path, &bytes, Phase::Session)?;
    Ok(Output::Har(HarResult {
        recording: false,
        path: Some(path.to_string_lossy().into_owned()),
        entries: Some(entries.len() as u64),
        bytes: Some(bytes.len() as u64),
    }))
}

/// One request as a HAR entry, its response body fetched when `embed` (within `p`'s budget).
async fn entry(found: Found, embed: bool, session: &Session, p: &Progress) -> Value {
    let (entry, har) = (found.entry.clone(), found.har.clone());
    let details = match (embed, p.budget().expired()) {
        (true, false) => found.fetch(session, p.budget()).await,
        (true, true) => {
            let mut details = found.details;
            details.body_missing = Some("not asked for: the action's budget ran out".into());
            details
        }
        (false, _) => found.details,
    };
    let http_version = match har.protocol.as_str() {
        "" => "HTTP/1.1".to_string(),
        "h2" => "HTTP/2.0".to_string(),
        "h3" => "HTTP/3.0".to_string(),
        other => other.to_uppercase(),
    };
    let query: Vec<Value> = url::Url::parse(&entry.url)
        .map(|u| u.query_pairs().map(|(n, v)| json!({"name": n, "value": v})).collect())
        .unwrap_or_default();
    let mut request = json!({
        "method": entry.method,
        "url": entry.url,
        "httpVersion": http_version,
        "cookies": [],
        "headers": pairs(&details.request_headers),
        "queryString": query,
        "headersSize": -1,
        "bodySize": details.post_data.as_ref().map_or(0, |d| d.len()),
    });
    if let Some(text) = &details.post_data {
        let mime = details.request_headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("content-type"));
        request["postData"] = json!({"mimeType": mime.map_or("", |(_, v)| v.as_str()), "text": text});
    }
    let response_headers = details.response_headers.clone().unwrap_or_default();
    let redirect = response_headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("location"));
    let mut content = json!({
        "size": details.body_bytes.unwrap_or(0),
        "mimeType": details.mime_type.clone().unwrap_or_default(),
    });
    if let Some(body) = &details.body {
        content["text"] = json!(body);
        if details.body_base64 {
            content["encoding"] = json!("base64");
        }
        if details.truncated {
            content["comment"] = json!(format!("cut at {NETWORK_BODY_BYTES} bytes"));
        }
    } else if let Some(why) = &details.body_missing {
        content["comment"] = json!(why);
    }
    let status = entry.status.unwrap_or(0);
    let response = json!({
        "status": status,
        "statusText": details.status_text.clone().unwrap_or_default(),
        "httpVersion": http_version,
        "cookies": [],
        "headers": pairs(&response_headers),
        "content": content,
        "redirectURL": redirect.map_or("", |(_, v)| v.as_str()),
        "headersSize": -1,
        "bodySize": entry.bytes.map_or(-1, |b| b as i64),
    });
    let timings = timings(&har);
    let time: f64 = ["blocked", "dns", "connect", "send", "wait", "receive"]
        .iter()
        .filter_map(|k| timings[*k].as_f64())
        .filter(|t| *t > 0.0)
        .sum();
    let mut e = json!({
        "startedDateTime": started(har.wall_time),
        "time": round(time),
        "request": request,
        "response": response,
        "cache": {},
        "timings": timings,
        "_resourceType": entry.resource_type,
    });
    if !har.remote_ip.is_empty() {
        e["serverIPAddress"] = json!(har.remote_ip.trim_start_matches('[').trim_end_matches(']'));
    }
    if let Some(failure) = &entry.failure {
        e["response"]["_failureText"] = json!(failure);
    }
    e
}

/// Headers as HAR lists them: `[{name, value}]` (a value Chromium joined with `\n` as one per line).
fn pairs(headers: &std::collections::BTreeMap<String, String>) -> Vec<Value> {
    headers.iter().flat_map(|(n, v)| v.split('\n').map(move |v| json!({"name": n, "value": v}))).collect()
}

/// The entry's `startedDateTime`: ISO 8601 with milliseconds, UTC.
fn started(wall_time: f64) -> String {
    let ms = if wall_time.is_finite() { (wall_time * 1000.0) as i64 } else { 0 };
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// HAR `timings` (ms; -1 for a phase that did not happen) from Chromium's `ResourceTiming`, as
/// Playwright's HAR tracer reads them: `dns`, `connect` and `ssl` from their starts and ends, `send`
/// the request's writing, `wait` until the response's headers, `receive` until the request ended;
/// `blocked` until the first phase began. Without a timing (a failed or cached request, `data:`):
/// the whole time as `wait`.
fn timings(har: &HarFacts) -> Value {
    let whole = har.ended.map_or(0.0, |e| ((e - har.started) * 1000.0).max(0.0));
    let Some(t) = har.timing else {
        return json!({"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": round(whole), "receive": 0});
    };
    let span = |s: f64, e: f64| if s >= 0.0 && e >= s { round(e - s) } else { -1.0 };
    let first = [t.dns_start, t.connect_start, t.send_start].into_iter().find(|v| *v >= 0.0);
    let ended = har.ended.map(|e| (e - t.request_time) * 1000.0);
    json!({
        "blocked": first.map_or(-1.0, round),
        "dns": span(t.dns_start, t.dns_end),
        "connect": span(t.connect_start, t.connect_end),
        "ssl": span(t.ssl_start, t.ssl_end),
        "send": span(t.send_start, t.send_end).max(0.0),
        "wait": round((t.receive_headers_end - t.send_end).max(0.0)),
        "receive": ended.map_or(0.0, |e| round((e - t.receive_headers_end).max(0.0))),
    })
}

/// Milliseconds to three decimals (HAR's numbers are ms; Chromium's carry microseconds).
fn round(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_follow_chromiums_resource_timing() {
        let har = HarFacts {
            started: 100.0,
            ended: Some(100.5),
            timing: serde_json::from_value(json!({
                "requestTime": 100.0, "dnsStart": 1.0, "dnsEnd": 3.0, "connectStart": 3.0, "connectEnd": 10.0,
                "sslStart": 5.0, "sslEnd": 10.0, "sendStart": 10.0, "sendEnd": 11.0, "receiveHeadersEnd": 200.0,
            }))
            .unwrap(),
            ..HarFacts::default()
        };
        let t = timings(&har);
        assert_eq!(
            t,
            json!({"blocked": 1.0, "dns": 2.0, "connect": 7.0, "ssl": 5.0, "send": 1.0, "wait": 189.0, "receive": 300.0})
        );
        let cached = timings(&HarFacts { started: 1.0, ended: Some(1.25), ..HarFacts::default() });
        assert_eq!(cached["wait"], json!(250.0));
        assert_eq!(started(1_700_000_000.123), "2023-11-14T22:13:20.123Z");
    }

    #[test]
    fn a_header_chromium_joined_is_one_entry_a_line() {
        let headers = [("set-cookie".to_string(), "a=1\nb=2".to_string())].into_iter().collect();
        assert_eq!(pairs(&headers).len(), 2);
    }
}
