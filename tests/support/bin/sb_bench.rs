//! `sb-bench`: the benchmark behind scripts/bench.sh. Not a test: it prints figures side by side from
//! one run on the same Chromium, as medians over repeated runs.
//!
//! 1. start -> ready: `sandbox-browser serve` until its socket exists (both probes passed), against a
//!    bare Chromium launch with the same flags until `/json/version` answers.
//! 2. `page.evaluate` of `1+1` through the socket, against `Runtime.evaluate` on a raw CDP WebSocket
//!    (tokio-tungstenite, no client library) to an attached page.
//! 3. Memory of the supervisor and of one worker: RSS, and PSS (the worker is the same executable, so
//!    most of their resident pages are the same file's, counted in both RSS figures; PSS shares them
//!    out, and its sum is what the pair costs the machine).
//! 4. The hang variants, beside Playwright.
//! 5. `page.snapshot` of generated pages (5k / 20k / 50k elements) beside Playwright's `ariaSnapshot()`,
//!    and a click by ref (p50/p95) beside Playwright's locator click.
//! 6. The budget: for T in 1000, 3000, 8000 ms, when an action that cannot finish answers, as a
//!    fraction of T, beside Playwright's own timeout; and 4 and 16 sessions looping goto -> snapshot ->
//!    click, beside Playwright with as many pages of one browser (`SB_BENCH_ONLY=budget` runs only these).
//! 7. The snapshot beside Playwright's `ariaSnapshot()` on the fidelity corpus and on real documentation
//!    (the Rust standard library's, Python's when `python3.11-doc` is installed): time (whole page and
//!    `interactive`), lines, chars, and the share of Playwright's lines ours has (`SB_BENCH_ONLY=snapshot`).
//! 8. What the URL policy costs a page load: a page of 100 images through the connection gate beside
//!    Playwright's unguarded browser, at rest and with two busy processes; and N = 4, 16 sessions looping
//!    goto -> snapshot -> click on Python's docs beside Playwright's N pages, with each side's peak
//!    memory, then looping the goto alone, then the loop once more with each goto's time split into
//!    the page's own (its Navigation Timing) and the rest, ours also paced to Playwright's action rate
//!    (`SB_BENCH_ONLY=loads`; `guarded`: the page loads alone; `site`: the loops alone; `parts`: the
//!    split alone).
//! 9. `page.evaluate` and `page.snapshot` through a browser elsewhere (`[browser] cdp_url`, a plain
//!    WebSocket and the tests' TLS + Basic-auth proxy) beside the local pipe (`SB_BENCH_ONLY=remote`).
//! 10. The live view's cost: a watched session's actions and another session's, with and without a
//!     viewer on the view's WebSocket, and the frame latency (a change the agent makes -> its frame at
//!     the viewer) (`SB_BENCH_ONLY=view`).
//! 11. Only with `SB_BENCH_ONLY=kept`: what keeping sessions' logins costs (`[limits] keep_logins` on and
//!     off): a click by ref and the real-site loop.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use sb_tests::{bin_path, descendants, Supervisor};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

const STARTS: usize = 7;
const EVALS: usize = 500;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ready() {
        assert!(Instant::now() < deadline, "{what} did not happen within 30 s");
        std::thread::sleep(Duration::from_micros(500));
    }
}

/// Spawn `serve` until the socket exists; the supervisor is stopped afterwards.
fn supervisor_ready_ms() -> f64 {
    let dir = tempfile::Builder::new().prefix("sbtest-bench-").tempdir().unwrap();
    let socket = dir.path().join("b.sock");
    let t = Instant::now();
    let mut child = Command::new(bin_path("sandbox-browser"))
        .args(["serve", "--socket"])
        .arg(&socket)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("socket", || socket.exists());
    let ms = t.elapsed().as_secs_f64() * 1e3;
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGTERM)
        .unwrap();
    child.wait().unwrap();
    ms
}

/// Bare Chromium with the same flags until `/json/version` answers 200.
fn bare_chromium_ready_ms() -> f64 {
    let dir = tempfile::Builder::new().prefix("sbtest-bench-").tempdir().unwrap();
    let config = sb_supervisor::lifecycle::browser::BrowserConfig {
        path: None,
        no_sandbox: false,
        runtime_dir: dir.path().into(),
        window: (1280, 800),
        js_heap_mb: 1024,
        extra_flags: Vec::new(),
        headless: true,
        remote: None,
        max_message_bytes: sb_cdp::MAX_MESSAGE_BYTES,
    };
    let binary = sb_supervisor::lifecycle::browser::find_binary(bench_chromium().as_deref()).unwrap();
    let udd = dir.path().join("profile");
    let t = Instant::now();
    // The same flags with a port instead of the pipe (nothing here holds fds 3 and 4).
    let flags = sb_supervisor::lifecycle::browser::flags(&config, &udd).into_iter().map(|f| {
        if f == "--remote-debugging-pipe" {
            "--remote-debugging-port=0".into()
        } else {
            f
        }
    });
    let mut child = Command::new(binary).args(flags).stderr(Stdio::null()).process_group(0).spawn().unwrap();
    // Kills the group however this function ends (a panic must not orphan a browser).
    struct Group(i32);
    impl Drop for Group {
        fn drop(&mut self) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(self.0),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
    let group = Group(child.id() as i32);
    let port_file = udd.join("DevToolsActivePort");
    let mut port = 0u16;
    wait_for("DevToolsActivePort", || {
        port = std::fs::read_to_string(&port_file)
            .ok()
            .and_then(|s| s.lines().next()?.parse().ok())
            .unwrap_or(0);
        port != 0
    });
    let rt = tokio::runtime::Handle::current();
    wait_for("/json/version", || http_ok(&rt, port));
    let ms = t.elapsed().as_secs_f64() * 1e3;
    drop(group);
    child.wait().unwrap();
    ms
}

/// `GET /json/version` answered 200, through the same discovery call the supervisor's probe uses.
fn http_ok(rt: &tokio::runtime::Handle, port: u16) -> bool {
    let endpoint = url_of(port);
    tokio::task::block_in_place(|| {
        rt.block_on(sb_cdp::discovery::version(&endpoint, Duration::from_millis(500))).is_ok()
    })
}

/// A bare CDP WebSocket: no client library, one call at a time.
struct RawCdp {
    ws: tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    id: u64,
}

impl RawCdp {
    async fn call(&mut self, method: &str, params: Value, session: Option<&str>) -> Value {
        self.id += 1;
        let mut msg = json!({"id": self.id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.ws.send(Message::Text(msg.to_string().into())).await.unwrap();
        loop {
            if let Some(Ok(Message::Text(t))) = self.ws.next().await {
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                if v["id"] == json!(self.id) {
                    return v;
                }
            }
        }
    }
}

/// `page.evaluate` through the socket and `Runtime.evaluate` on a raw WebSocket, alternating call by
/// call so both see the same machine. Returns both series (ms) and the worker's pid.
async fn evaluate_pair_ms(sup: &Supervisor) -> (Vec<f64>, Vec<f64>, u32) {
    let c = sup.client().await;
    let sid = c.session_start(Some("bench")).await.unwrap().into_inner().session_id;
    let health = c.health().await.unwrap();
    let ws_url = sb_tests::devtools_ws_url(sup.dir.path());
    let (ws, _) = tokio_tungstenite::connect_async(ws_url.as_str()).await.unwrap();
    let mut raw = RawCdp { ws, id: 0 };
    let target = raw.call("Target.createTarget", json!({"url": "about:blank"}), None).await;
    let target_id = target["result"]["targetId"].as_str().unwrap().to_string();
    let attached =
        raw.call("Target.attachToTarget", json!({"targetId": target_id, "flatten": true}), None).await;
    let session = attached["result"]["sessionId"].as_str().unwrap().to_string();
    let params =
        json!({"expression": "1+1", "returnByValue": true, "awaitPromise": true, "userGesture": true});

    let (mut ours, mut theirs) = (Vec::with_capacity(EVALS), Vec::with_capacity(EVALS));
    for i in 0..EVALS + 50 {
        let t = Instant::now();
        let r = c.evaluate(&sid, "1+1", None).await.unwrap();
        let a = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(r.value, Some(json!(2)));
        let t = Instant::now();
        let r = raw.call("Runtime.evaluate", params.clone(), Some(&session)).await;
        let b = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(r["result"]["result"]["value"], json!(2));
        if i >= 50 {
            ours.push(a);
            theirs.push(b);
        }
    }
    let worker = descendants(sup.pid())
        .into_iter()
        .find(|p| {
            *p != health.browser_pid
                && std::fs::read_to_string(format!("/proc/{p}/cmdline")).is_ok_and(|c| c.contains("worker"))
        })
        .expect("the session's worker");
    (ours, theirs, worker)
}

/// Budget of each hang variant, ms.
const HANG_BUDGET: u64 = 2_000;
/// How long Playwright gets before a call counts as hung, ms.
const PLAYWRIGHT_CAP: u64 = 10_000;
const HANG_VARIANTS: [(&str, &str); 4] = [
    ("sync", "while (true) {}"),
    ("after_await", "(async () => { await 0; while (true) {} })()"),
    ("timer", ""),
    ("never_resolves", "new Promise(() => {})"),
];

/// One hang variant through the runtime: (normal screenshot ms, answer ms, next screenshot ms).
async fn hang_variant(c: &sb_client::Client, url: &str, name: &str, expr: &str) -> (f64, f64, f64) {
    use sb_protocol::api::ScreenshotParams;
    let sid = c.session_start(None).await.unwrap().into_inner().session_id;
    c.goto(&sid, url, None).await.unwrap();
    let mut normal = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        c.screenshot(&sid, ScreenshotParams::default()).await.unwrap();
        normal.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let t = Instant::now();
    let answered = if name == "timer" {
        c.evaluate(&sid, "setTimeout(() => { while (true) {} }, 0), 'armed'", None).await.unwrap();
        let t = Instant::now();
        let _ = c.evaluate(&sid, "1 + 1", Some(HANG_BUDGET)).await;
        t.elapsed()
    } else {
        let _ = c.evaluate(&sid, expr, Some(HANG_BUDGET)).await;
        t.elapsed()
    };
    let t = Instant::now();
    c.screenshot(&sid, ScreenshotParams::default()).await.unwrap();
    let next = t.elapsed().as_secs_f64() * 1e3;
    c.session_close(&sid).await.unwrap();
    (median(normal), answered.as_secs_f64() * 1e3, next)
}

/// The Playwright figures, one JSON object per variant, when scripts/bench.sh set it up.
fn playwright_hangs(url: &str) -> Vec<Value> {
    node_json_lines("SB_BENCH_PLAYWRIGHT", &[url, &HANG_BUDGET.to_string(), &PLAYWRIGHT_CAP.to_string()])
}

/// Runs the Node script named by the environment variable `script_var` with the browser binary and
/// `args`; its stdout's JSON lines (none when the variable is unset or the run fails).
fn node_json_lines(script_var: &str, args: &[&str]) -> Vec<Value> {
    let Ok(script) = std::env::var(script_var) else { return Vec::new() };
    let binary = sb_supervisor::lifecycle::browser::find_binary(bench_chromium().as_deref()).unwrap();
    let out = Command::new("node").arg(script).arg(binary).args(args).stderr(Stdio::inherit()).output();
    match out {
        Ok(out) => String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        Err(e) => {
            eprintln!("playwright run failed: {e}");
            Vec::new()
        }
    }
}

/// The browser both sides run: `SB_TEST_CHROMIUM`'s binary when set (`scripts/bench.sh` sets it), else
/// the runtime's default (`find_binary`: Debian's `chromium-headless-shell` where it is installed, the
/// image's and Playwright's default headless browser, else Debian's Chromium).
fn bench_chromium() -> Option<std::path::PathBuf> {
    std::env::var_os("SB_TEST_CHROMIUM").map(std::path::PathBuf::from)
}

/// `<binary> --version` of [`bench_chromium`].
fn chromium_version() -> String {
    let binary = sb_supervisor::lifecycle::browser::find_binary(bench_chromium().as_deref()).unwrap();
    let out = Command::new(binary).arg("--version").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // SB_BENCH_SCHED: how scripts/bench.sh placed the bench for the kernel's scheduler (its cgroup).
    let sched = std::env::var("SB_BENCH_SCHED").map(|s| format!("; {s}")).unwrap_or_default();
    println!("machine: {} cores, {}; {}{sched}", num_cpus(), kernel(), chromium_version());
    println!();

    // SB_BENCH_ONLY=evaluate runs only the request path's figures (evaluate and RSS);
    // SB_BENCH_ONLY=interaction runs only the snapshot and click tables.
    let only = std::env::var("SB_BENCH_ONLY").unwrap_or_default();
    if only == "snapshot" {
        snapshot_table().await;
        return;
    }
    if only == "budget" {
        budget_tables().await;
        return;
    }
    if only == "loads" || only == "guarded" || only == "site" || only == "parts" {
        loads_tables(only == "loads" || only == "guarded", only != "guarded", only == "parts").await;
        return;
    }
    if only == "remote" {
        remote_table().await;
        return;
    }
    if only == "kept" {
        kept_table().await;
        return;
    }
    if only == "view" {
        view_table().await;
        return;
    }
    if only == "interaction" {
        let sup = Supervisor::start(&[]);
        interaction_table(&sup).await;
        return;
    }
    let only_evaluate = only == "evaluate";
    let (mut ours, mut bare) = (Vec::new(), Vec::new());
    for _ in 0..if only_evaluate { 0 } else { STARTS } {
        ours.push(supervisor_ready_ms());
        bare.push(bare_chromium_ready_ms());
    }
    println!("{:<52} {:>10} {:>10} {:>9}   target", "(medians)", "ours", "baseline", "vs");
    if !only_evaluate {
        let (o, b) = (median(ours), median(bare));
        println!(
            "{:<52} {:>8.1}ms {:>8.1}ms {:>8.2}x   <= 1.15x",
            "start -> ready, 7 runs (serve vs bare chromium)",
            o,
            b,
            o / b
        );
    }

    // The raw baseline needs a DevTools port the runtime does not open: the test-only flag opens one
    // beside the pipe (the runtime's own traffic still goes through its relay).
    let sup = Supervisor::with_config(sb_tests::DEVTOOLS_PORT);
    let (through_socket, raw, worker_pid) = evaluate_pair_ms(&sup).await;
    let (s, r) = (median(through_socket), median(raw));
    println!(
        "{:<52} {:>8.3}ms {:>8.3}ms {:>+7.3}ms   <= +0.3 ms",
        "page.evaluate 1+1, 500 alternating (socket vs raw CDP)",
        s,
        r,
        s - r
    );

    let (sup_rss, sup_pss) = rss_pss_kib(sup.pid());
    let (worker_rss, worker_pss) = rss_pss_kib(worker_pid);
    for (what, s, w) in [("RSS", sup_rss, worker_rss), ("PSS", sup_pss, worker_pss)] {
        println!(
            "{:<52} {:>8.1}MB {:>8.1}MB {:>7.1}MB   <= 16 MB together",
            format!("{what} supervisor / one worker / together"),
            s as f64 / 1024.0,
            w as f64 / 1024.0,
            (s + w) as f64 / 1024.0
        );
    }
    if only_evaluate {
        return;
    }
    hang_table(&sup).await;
    interaction_table(&sup).await;
    budget_tables().await;
    loads_tables(true, true, false).await;
    remote_table().await;
}

/// `page.evaluate` and `page.snapshot` through the remote path beside the local pipe (issue 30): the
/// same Chromium build, the runtime launching it (its pipe) or attached to it (`[browser] cdp_url`)
/// over a plain WebSocket and through the TLS + Basic-auth proxy of the tests; Python's docs index (or
/// the test page), 200 evaluates and 20 snapshots in a row each, p50 and p95.
async fn remote_table() {
    use sb_tests::remote::{RemoteChromium, TlsProxy};
    let docs = std::path::Path::new(PYTHON_DOCS);
    let pages = sb_tests::PageServer::start(docs.is_dir().then_some(docs)).await;
    let page = if docs.is_dir() { pages.url("/index.html") } else { pages.url("/test/index.html") };
    let browser = RemoteChromium::launch();
    let proxy = TlsProxy::start(browser.port, "bench", "bench").await;
    let plain = format!("[browser]\ncdp_url = \"http://127.0.0.1:{}\"\n", browser.port);
    let tls = format!(
        "[browser]\ncdp_url = {:?}\nca_file = {:?}\n",
        proxy.url("bench", "bench"),
        proxy.ca_file.display().to_string()
    );
    println!("page.evaluate 1+1 (200) and page.snapshot of {page} (20), in a row, ms");
    println!("{:<34} {:>9} {:>9} {:>11} {:>11}", "path", "eval p50", "eval p95", "snap p50", "snap p95");
    for (label, config) in
        [("local pipe", None), ("remote ws (plain)", Some(plain)), ("remote wss (TLS + Basic)", Some(tls))]
    {
        let sup = match &config {
            Some(toml) => Supervisor::with_config(toml),
            None => Supervisor::start(&[]),
        };
        let c = sup.client().await;
        c.session_start(Some("r")).await.unwrap();
        c.goto("r", &page, None).await.unwrap();
        let timed = |method: &'static str, params: Value, n: usize| {
            let c = &c;
            async move {
                let mut ms = Vec::new();
                for _ in 0..n {
                    let t = Instant::now();
                    let r = c.call(method, Some("r"), params.clone(), None).await.unwrap();
                    assert!(r.ok, "{method}: {:?}", r.error);
                    ms.push(t.elapsed().as_secs_f64() * 1000.0);
                }
                ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
                (ms[ms.len() / 2], ms[ms.len() * 95 / 100])
            }
        };
        let (e50, e95) = timed("page.evaluate", json!({"expression": "1 + 1"}), 200).await;
        let (s50, s95) = timed("page.snapshot", json!({}), 20).await;
        println!("{label:<34} {e50:>9.2} {e95:>9.2} {s50:>11.1} {s95:>11.1}");
        c.session_close("r").await.unwrap();
    }
}

/// The live view's cost (see the module doc, 10): blocks of actions in the watched session and in
/// another, alternating without and with a viewer; then the frame latency.
async fn view_table() {
    let docs = std::path::Path::new(PYTHON_DOCS);
    let pages = sb_tests::PageServer::start(docs.is_dir().then_some(docs)).await;
    let page = if docs.is_dir() { pages.url("/index.html") } else { pages.url("/test/index.html") };
    let sup = Supervisor::with_config("[view]\nlisten = \"127.0.0.1:0\"\n");
    sup.wait_for_log("view_listening", |e| e.iter().any(|e| e["message"] == "view_listening"));
    let line = sup.log_events().into_iter().find(|e| e["message"] == "view_listening").unwrap();
    let view = url::Url::parse(line["url"].as_str().unwrap()).unwrap();
    let token = std::fs::read_to_string(line["token_file"].as_str().unwrap()).unwrap().trim().to_string();
    let host = format!("{}:{}", view.host_str().unwrap(), view.port().unwrap());
    let c = sup.client().await;
    for s in ["watched", "other"] {
        c.session_start(Some(s)).await.unwrap();
        c.goto(s, &page, None).await.unwrap();
    }
    // One block: goto, snapshot, a scroll and back, an evaluate; per action kind, its times (ms).
    let block = |sid: &'static str| {
        let (c, page) = (&c, page.clone());
        async move {
            let mut ms: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
            for _ in 0..5 {
                for (method, params) in [
                    ("page.goto", json!({"url": page})),
                    ("page.snapshot", json!({})),
                    ("page.scroll", json!({"dy": 400})),
                    ("page.scroll", json!({"dy": -400})),
                    ("page.evaluate", json!({"expression": "document.title"})),
                ] {
                    let t = Instant::now();
                    let r = c.call(method, Some(sid), params, None).await.unwrap();
                    assert!(r.ok, "{method}: {:?}", r.error);
                    ms.entry(method).or_default().push(t.elapsed().as_secs_f64() * 1000.0);
                }
            }
            ms
        }
    };
    let connect = || {
        let url = format!("ws://{host}/ws?session=watched&token={token}");
        let origin = format!("http://{host}");
        async move {
            use tokio_tungstenite::tungstenite::client::IntoClientRequest;
            let mut request = url.into_client_request().unwrap();
            request.headers_mut().insert("Origin", origin.parse().unwrap());
            tokio_tungstenite::connect_async(request).await.unwrap().0
        }
    };
    type Times = std::collections::BTreeMap<&'static str, Vec<f64>>;
    let (mut bare, mut watched) = ((Times::new(), Times::new()), (Times::new(), Times::new()));
    let merge = |into: &mut Times, from: Times| {
        for (k, v) in from {
            into.entry(k).or_default().extend(v);
        }
    };
    for _ in 0..8 {
        merge(&mut bare.0, block("watched").await);
        merge(&mut bare.1, block("other").await);
        let mut ws = connect().await;
        // The viewer reads everything it is sent, as a page would.
        let reader = tokio::spawn(async move {
            let mut frames = 0u64;
            while let Some(Ok(m)) = ws.next().await {
                frames += u64::from(m.to_text().is_ok_and(|t| t.contains("\"t\":\"frame\"")));
            }
            frames
        });
        merge(&mut watched.0, block("watched").await);
        merge(&mut watched.1, block("other").await);
        reader.abort();
    }
    println!(
        "the live view's cost: p50 ms of each action without / with a viewer watching 'watched' ({page})"
    );
    println!(
        "{:<16} {:>12} {:>12} {:>7}   {:>12} {:>12} {:>7}",
        "action", "watched: no", "viewer", "ratio", "other: no", "viewer", "ratio"
    );
    let mut totals = [0.0f64; 4];
    for method in ["page.goto", "page.snapshot", "page.scroll", "page.evaluate"] {
        let p = |t: &Times| pct(&t[method], 0.5);
        let (a, b, c2, d) = (p(&bare.0), p(&watched.0), p(&bare.1), p(&watched.1));
        for (i, v) in [a, b, c2, d].into_iter().enumerate() {
            totals[i] += v;
        }
        println!("{method:<16} {a:>12.1} {b:>12.1} {:>6.2}x   {c2:>12.1} {d:>12.1} {:>6.2}x", b / a, d / c2);
    }
    println!(
        "{:<16} {:>12.1} {:>12.1} {:>6.2}x   {:>12.1} {:>12.1} {:>6.2}x   (target <= 1.10x watched, ~1.00x other)",
        "sum of p50s", totals[0], totals[1], totals[1] / totals[0], totals[2], totals[3], totals[3] / totals[2]
    );

    // Frame latency: on a still page, the agent changes the background; the time from sending that
    // evaluate to the first frame the viewer receives after it.
    c.goto("watched", &pages.url("/test/index.html"), None).await.unwrap();
    let mut ws = connect().await;
    let mut first = true;
    let mut lat = Vec::new();
    for i in 0..40 {
        // Let the frames of the last change (and the first one of a new screencast) arrive first.
        let quiet = Duration::from_millis(if first { 1_000 } else { 300 });
        while let Ok(Some(Ok(_))) = tokio::time::timeout(quiet, ws.next()).await {}
        first = false;
        let color = format!("#{:02x}{:02x}{:02x}", (i * 37) % 256, (i * 91) % 256, (i * 53) % 256);
        let t = Instant::now();
        let expression = format!("document.body.style.background = '{color}'; 1");
        c.call("page.evaluate", Some("watched"), json!({"expression": expression}), None).await.unwrap();
        loop {
            let m = tokio::time::timeout(Duration::from_secs(5), ws.next()).await;
            match m {
                Ok(Some(Ok(m))) if m.to_text().is_ok_and(|t| t.contains("\"t\":\"frame\"")) => {
                    lat.push(t.elapsed().as_secs_f64() * 1000.0);
                    break;
                }
                Ok(Some(Ok(_))) => continue,
                _ => break,
            }
        }
    }
    println!(
        "frame latency (the agent's change -> its frame at the viewer), {} changes: p50 {:.1} ms, p95 {:.1} ms",
        lat.len(),
        pct(&lat, 0.5),
        pct(&lat, 0.95)
    );
}

/// The budgets of the budget-fraction table, ms.
const BUDGETS: [u64; 3] = [1_000, 3_000, 8_000];
/// Session counts of the concurrency table.
const LOOP_SESSIONS: [usize; 2] = [4, 16];
/// How long each concurrency run loops, ms.
const LOOP_MS: u64 = 15_000;

/// The budget-fraction table and the concurrency table, each beside Playwright.
async fn budget_tables() {
    let pages = sb_tests::PageServer::start(None).await;
    let budgets: Vec<String> = BUDGETS.iter().map(ToString::to_string).collect();
    let counts: Vec<String> = LOOP_SESSIONS.iter().map(ToString::to_string).collect();
    let theirs = node_json_lines(
        "SB_BENCH_PLAYWRIGHT_BUDGET",
        &[&pages.base, &budgets.join(","), &counts.join(","), &LOOP_MS.to_string()],
    );
    let sup = Supervisor::start(&[]);
    let c = sup.client().await;
    println!();
    println!(
        "budget: an action that cannot finish, answer time / T (target 0.97..1.03); Playwright's own timeout"
    );
    println!(
        "{:<10} {:>7} {:>10} {:>8}   {:>14} {:>8}",
        "case", "T ms", "ours ms", "ours/T", "playwright ms", "pw/T"
    );
    let sid = c.session_start(None).await.unwrap().into_inner().session_id;
    for budget in BUDGETS {
        for case in ["wait", "promise", "busy", "server"] {
            c.goto(&sid, &pages.url("/test/index.html"), Some(10_000)).await.unwrap();
            let t = Instant::now();
            let answer = match case {
                "wait" => {
                    c.call("page.wait_for", Some(&sid), json!({"selector": "#never"}), Some(budget)).await
                }
                "promise" => {
                    c.call(
                        "page.evaluate",
                        Some(&sid),
                        json!({"expression": "new Promise(() => {})"}),
                        Some(budget),
                    )
                    .await
                }
                "busy" => {
                    c.call(
                        "page.evaluate",
                        Some(&sid),
                        json!({"expression": "while (true) {}"}),
                        Some(budget),
                    )
                    .await
                }
                _ => {
                    c.call("page.goto", Some(&sid), json!({"url": pages.url("/test/never")}), Some(budget))
                        .await
                }
            };
            let ours = t.elapsed().as_secs_f64() * 1e3;
            if let Ok(r) = &answer {
                if ours < budget as f64 * 0.97 || ours > budget as f64 * 1.03 {
                    eprintln!("{case} {budget}: {:?} {:?}", r.error, r.result);
                }
            }
            let pw = theirs
                .iter()
                .find(|v| v["kind"] == "budget" && v["case"] == case && v["budget"] == budget)
                .map(|v| v["answer_ms"].as_f64());
            let (pw_ms, pw_frac) = match pw {
                Some(Some(ms)) => (format!("{ms:.0}"), format!("{:.3}", ms / budget as f64)),
                Some(None) => ("none in T+2 s".to_string(), "-".into()),
                None => ("-".into(), "-".into()),
            };
            println!(
                "{:<10} {:>7} {:>10.0} {:>8.3}   {:>14} {:>8}",
                case,
                budget,
                ours,
                ours / budget as f64,
                pw_ms,
                pw_frac
            );
        }
    }
    c.session_close(&sid).await.unwrap();

    println!();
    println!("concurrency: N sessions looping goto -> snapshot -> click (a link; the click waits for its navigation), {} s", LOOP_MS / 1000);
    println!(
        "{:<4} {:>10} {:>9} {:>9}   {:>10} {:>9} {:>9}   {:>10} {:>8}",
        "N", "ours loops", "p50 ms", "p95 ms", "pw loops", "p50 ms", "p95 ms", "thrpt x", "p95 x"
    );
    for n in LOOP_SESSIONS {
        let (loops, times) = loop_sessions(&sup, &pages, n).await;
        let pw = theirs.iter().find(|v| v["kind"] == "loop" && v["sessions"] == n);
        let pw_loops = pw.and_then(|v| v["loops"].as_f64()).unwrap_or(0.0);
        let pw_p50 = pw.and_then(|v| v["p50_ms"].as_f64()).unwrap_or(f64::NAN);
        let pw_p95 = pw.and_then(|v| v["p95_ms"].as_f64()).unwrap_or(f64::NAN);
        let p95 = pct(&times, 0.95);
        println!(
            "{:<4} {:>10} {:>9.0} {:>9.0}   {:>10.0} {:>9.0} {:>9.0}   {:>9.2}x {:>7.2}x",
            n,
            loops,
            pct(&times, 0.5),
            p95,
            pw_loops,
            pw_p50,
            pw_p95,
            loops as f64 / pw_loops,
            p95 / pw_p95
        );
    }
}

/// `n` sessions, each looping goto -> snapshot -> click on a link for [`LOOP_MS`]; the loops done and
/// each loop's time, ms.
async fn loop_sessions(sup: &Supervisor, pages: &sb_tests::PageServer, n: usize) -> (usize, Vec<f64>) {
    let form = pages.url("/test/form.html");
    let sessions = ready_sessions(sup, n, &form).await;
    let end = Instant::now() + Duration::from_millis(LOOP_MS);
    let mut tasks = Vec::new();
    for (c, sid) in sessions {
        let form = form.clone();
        tasks.push(tokio::spawn(async move {
            let mut times = Vec::new();
            while Instant::now() < end {
                let t = Instant::now();
                c.goto(&sid, &form, None).await.unwrap();
                c.call("page.snapshot", Some(&sid), json!({}), None).await.unwrap();
                let r = c
                    .call("page.click", Some(&sid), json!({"selector": "a[href=\"/test/index.html\"]"}), None)
                    .await
                    .unwrap();
                assert!(r.ok, "{r:?}");
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
            (c, sid, times)
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        let (c, sid, times) = t.await.unwrap();
        c.session_close(&sid).await.unwrap();
        all.extend(times);
    }
    (all.len(), all)
}

/// `n` sessions, each with a client of its own and `url` loaded once: made before a loop's clock
/// starts (as Playwright's pages are made before its loop), so that session starts and cold loads are
/// not counted as the loop's.
async fn ready_sessions(sup: &Supervisor, n: usize, url: &str) -> Vec<(sb_client::Client, String)> {
    let mut sessions = Vec::new();
    for _ in 0..n {
        let c = sup.client().await;
        let sid = c.session_start(None).await.unwrap().into_inner().session_id;
        c.goto(&sid, url, Some(60_000)).await.unwrap();
        sessions.push((c, sid));
    }
    sessions
}

/// Page sizes of the snapshot figures, in blocks of five elements.
const SNAPSHOT_BLOCKS: [usize; 3] = [1_000, 4_000, 10_000];
/// Clicks in a row measured per side.
const CLICKS: usize = 60;
/// Clicks measured per side at an agent's cadence, each after [`PAUSE_MS`] of idle page.
const IDLE_CLICKS: usize = 30;
/// Lengths of the arrays of numbers `page.evaluate` returns by value in the interaction table (3 runs
/// each per side).
const EVAL_ARRAYS: [usize; 2] = [100_000, 1_000_000];
/// The idle time before each of the [`IDLE_CLICKS`], ms: long enough for Chromium to stop producing
/// frames (it does after a few hundred ms without a change), short next to a model's think time.
const PAUSE_MS: u64 = 1000;

fn pct(v: &[f64], p: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 * p) as usize).min(v.len() - 1)]
}

async fn interaction_table(sup: &Supervisor) {
    use sb_protocol::api::SnapshotParams;
    let pages = sb_tests::PageServer::start(None).await;
    let c = sup.client().await;
    let theirs = playwright_interaction(&pages.base);
    let sid = c.session_start(None).await.unwrap().into_inner().session_id;
    println!();
    println!("snapshot (ours: default max_chars 40000, cut; Playwright: whole page), 3 runs each, medians");
    println!(
        "{:<22} {:>10} {:>8} {:>12} {:>10} {:>8}   target",
        "page", "ours", "chars", "playwright", "chars", "ratio"
    );
    for blocks in SNAPSHOT_BLOCKS {
        c.goto(&sid, &pages.url(&format!("/test/big/{blocks}")), None).await.unwrap();
        let mut ms = Vec::new();
        let mut chars = 0;
        for _ in 0..3 {
            let t = Instant::now();
            chars = c.snapshot(&sid, SnapshotParams::default()).await.unwrap().chars;
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let pw = theirs.iter().find(|v| v["kind"] == "snapshot" && v["blocks"] == blocks);
        let pw_ms = pw.and_then(median_of_runs);
        let ours = median(ms);
        println!(
            "{:<22} {:>8.0}ms {:>8} {:>12} {:>10} {:>8}   <= 0.5x",
            format!("{} elements", blocks * 5 + 3),
            ours,
            chars,
            pw_ms.map(|m| format!("{m:.0}ms")).unwrap_or_else(|| "-".into()),
            pw.map(|v| v["chars"].to_string()).unwrap_or_else(|| "-".into()),
            pw_ms.map(|m| format!("{:.3}x", ours / m)).unwrap_or_else(|| "-".into()),
        );
    }
    let save = save_button(&c, &sid, &pages).await;
    let click = || save.clone();
    c.click(&sid, click(), None).await.unwrap();
    let mut ms = Vec::new();
    for _ in 0..CLICKS {
        let t = Instant::now();
        c.click(&sid, click(), None).await.unwrap();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    // At an agent's cadence: the page sits idle before each click, as it does while a model thinks.
    let mut idle = Vec::new();
    for _ in 0..IDLE_CLICKS {
        tokio::time::sleep(Duration::from_millis(PAUSE_MS)).await;
        let t = Instant::now();
        c.click(&sid, click(), None).await.unwrap();
        idle.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!();
    println!(
        "click by ref ({CLICKS} in a row; {IDLE_CLICKS} after {PAUSE_MS} ms idle each), ours vs Playwright's locator click"
    );
    for (kind, row, ms) in [("click", "in a row", &ms), ("click_idle", "after idle", &idle)] {
        let pw = theirs.iter().find(|v| v["kind"] == kind);
        for (label, p) in [("p50", 0.5), ("p95", 0.95)] {
            let ours = pct(ms, p);
            let pw_ms = pw.and_then(|v| v[label].as_f64());
            println!(
                "{:<22} {:>8.1}ms {:>8} {:>12} {:>10} {:>8}   <= 0.3x",
                format!("{row}, {label}"),
                ours,
                "",
                pw_ms.map(|m| format!("{m:.1}ms")).unwrap_or_else(|| "-".into()),
                "",
                pw_ms.map(|m| format!("{:.2}x", ours / m)).unwrap_or_else(|| "-".into()),
            );
        }
    }
    println!();
    println!("page.evaluate of Array.from({{length: N}}, (_, i) => i) by value, 3 runs each, medians");
    for n in EVAL_ARRAYS {
        let expression = format!("Array.from({{length: {n}}}, (_, i) => i)");
        let mut ms = Vec::new();
        for _ in 0..3 {
            let t = Instant::now();
            let r = c.evaluate(&sid, &expression, Some(120_000)).await.unwrap();
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(r.value.as_ref().and_then(Value::as_array).map(Vec::len), Some(n));
        }
        let ours = median(ms);
        let pw = theirs.iter().find(|v| v["kind"] == "evaluate_array" && v["n"] == n);
        let pw_ms = pw.and_then(median_of_runs);
        println!(
            "{:<22} {:>8.0}ms {:>8} {:>12} {:>10} {:>8}   <= 1.0x",
            format!("N = {n}"),
            ours,
            "",
            pw_ms.map(|m| format!("{m:.0}ms")).unwrap_or_else(|| "-".into()),
            "",
            pw_ms.map(|m| format!("{:.2}x", ours / m)).unwrap_or_else(|| "-".into()),
        );
    }
    c.session_close(&sid).await.unwrap();
}

/// The median of a Playwright figure's runs (its `ms` array), ms.
fn median_of_runs(figure: &Value) -> Option<f64> {
    figure["ms"].as_array().map(|a| median(a.iter().filter_map(Value::as_f64).collect()))
}

/// The Playwright snapshot, click and evaluate figures, when scripts/bench.sh set it up.
fn playwright_interaction(base: &str) -> Vec<Value> {
    let blocks: Vec<String> = SNAPSHOT_BLOCKS.iter().map(ToString::to_string).collect();
    node_json_lines(
        "SB_BENCH_PLAYWRIGHT_INTERACTION",
        &[
            base,
            &blocks.join(","),
            &CLICKS.to_string(),
            &IDLE_CLICKS.to_string(),
            &PAUSE_MS.to_string(),
            &EVAL_ARRAYS.map(|n| n.to_string()).join(","),
        ],
    )
}

async fn hang_table(sup: &Supervisor) {
    let pages = sb_tests::PageServer::start(None).await;
    let url = pages.url("/test/index.html");
    let c = sup.client().await;
    println!();
    println!(
        "hang variants, budget {HANG_BUDGET} ms; next action = viewport screenshot (target: answer <= budget + 100 ms, next <= 2x normal)"
    );
    println!(
        "{:<16} {:>12} {:>10} {:>11} {:>7}   {:>14} {:>16}",
        "variant", "answer", "vs budget", "next/normal", "ratio", "playwright ans", "playwright next"
    );
    let theirs = playwright_hangs(&url);
    for (name, expr) in HANG_VARIANTS {
        let (normal, answer, next) = hang_variant(&c, &url, name, expr).await;
        let pw = theirs.iter().find(|v| v["variant"] == name);
        let show = |v: Option<&Value>| match v.and_then(Value::as_f64) {
            Some(ms) => format!("{ms:.0} ms"),
            None if pw.is_some() => format!("none in {} s", PLAYWRIGHT_CAP / 1000),
            None => "-".into(),
        };
        println!(
            "{:<16} {:>9.0} ms {:>+7.0} ms {:>5.0}/{:<4.0}ms {:>6.2}x   {:>14} {:>16}",
            name,
            answer,
            answer - HANG_BUDGET as f64,
            next,
            normal,
            next / normal,
            show(pw.map(|v| &v["answer_ms"])),
            show(pw.map(|v| &v["next_ms"])),
        );
    }
}

fn url_of(port: u16) -> url::Url {
    url::Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap()
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

fn kernel() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| format!("Linux {}", s.trim()))
        .unwrap_or_default()
}

/// Pages for the snapshot table: `(label, url)`, the corpus's and the documentation's that this machine has.
fn snapshot_pages(
    corpus: &sb_tests::PageServer,
    docs: &[(String, sb_tests::PageServer)],
) -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|f| f.ends_with(".html"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut pages: Vec<(String, String)> =
        files.iter().map(|f| (format!("corpus/{f}"), corpus.url(&format!("/{f}")))).collect();
    for (label, server) in docs {
        for path in [
            "index.html",
            "collections/struct.HashMap.html",
            "all.html",
            "library/json.html",
            "library/stdtypes.html",
        ] {
            let root = &server.root;
            if root.as_ref().is_some_and(|r| r.join(path).exists()) {
                pages.push((format!("{label}/{path}"), server.url(&format!("/{path}"))));
            }
        }
    }
    pages
}

/// Our lines (refs removed) that Playwright's text has too, counted as a multiset, over Playwright's.
fn shared_lines(ours: &str, theirs: &str) -> (usize, usize) {
    let mut pool: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for l in theirs.lines() {
        *pool.entry(l.to_string()).or_default() += 1;
    }
    let mut shared = 0;
    for l in ours.lines() {
        if let Some(n) = pool.get_mut(&sb_tests::without_refs(l)).filter(|n| **n > 0) {
            *n -= 1;
            shared += 1;
        }
    }
    (shared, theirs.lines().count())
}

/// Playwright's side of a table asked one command at a time: a script of `scripts/bench/` (the
/// snapshot table's `playwright-snapshot.cjs`, named by `SB_BENCH_PLAYWRIGHT_SNAPSHOT`; the loads
/// table's `playwright-loads.cjs`, by `SB_BENCH_PLAYWRIGHT_LOADS`), one command a line, one JSON line an
/// answer.
struct Peer {
    _child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
}

impl Peer {
    /// Starts the script named by `script_var` on our Chromium binary (`SB_TEST_CHROMIUM`'s when set,
    /// as our side's supervisors use it); `None` without the script (or node).
    fn start(script_var: &str) -> Option<Peer> {
        Peer::start_with(script_var, &[], false)
    }

    /// [`Peer::start`], its browser launched with `flags` too; with `own_session`, Node runs in a
    /// session of its own (`setsid`), as a program an agent starts beside others would.
    fn start_with(script_var: &str, flags: &[&str], own_session: bool) -> Option<Peer> {
        use tokio::io::AsyncBufReadExt;
        let script = std::env::var(script_var).ok()?;
        let binary = sb_supervisor::lifecycle::browser::find_binary(bench_chromium().as_deref()).ok()?;
        let mut node = Command::new("node");
        if own_session {
            sb_tests::in_own_session(&mut node);
        }
        let mut child = tokio::process::Command::from(node)
            .arg(script)
            .arg(binary)
            .args(flags)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .ok()?;
        let stdin = child.stdin.take()?;
        let lines = tokio::io::BufReader::new(child.stdout.take()?).lines();
        Some(Peer { _child: child, stdin, lines })
    }

    /// The peer's process id (node's; Chromium runs under it).
    fn pid(&self) -> u32 {
        self._child.id().unwrap_or(0)
    }

    /// One command and its answer; `None` once the peer has failed.
    async fn ask(&mut self, command: &str) -> Option<Value> {
        use tokio::io::AsyncWriteExt;
        self.stdin.write_all(format!("{command}\n").as_bytes()).await.ok()?;
        let line = self.lines.next_line().await.ok()??;
        serde_json::from_str(&line).ok()
    }
}

/// Runs per page in the snapshot table: the first of each is a warm-up, the others give the median.
const SNAPSHOT_RUNS: usize = 9;

async fn snapshot_table() {
    use sb_protocol::api::SnapshotParams;
    let corpus_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let corpus = sb_tests::PageServer::start(Some(&corpus_dir)).await;
    let sysroot = Command::new("rustc").args(["--print", "sysroot"]).output().ok();
    let rust_docs = sysroot.map(|o| {
        std::path::PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()).join("share/doc/rust/html/std")
    });
    let python_docs = std::path::PathBuf::from(PYTHON_DOCS);
    let mut docs = Vec::new();
    for (label, root) in [("rust-std", rust_docs), ("python", Some(python_docs))] {
        if let Some(root) = root.filter(|r| r.exists()) {
            docs.push((label.to_string(), sb_tests::PageServer::start(Some(&root)).await));
        }
    }
    let pages = snapshot_pages(&corpus, &docs);
    let mut peer = Peer::start("SB_BENCH_PLAYWRIGHT_SNAPSHOT");
    let sup = Supervisor::start(&[]);
    let c = sup.client().await;
    let sid = c.session_start(None).await.unwrap().into_inner().session_id;
    println!(
        "snapshot beside Playwright's locator('body').ariaSnapshot(), medians of {} runs (a warm-up first), \
         one of Playwright's and one of ours in turn",
        SNAPSHOT_RUNS - 1
    );
    println!(
        "{:<40} {:>9} {:>9} {:>9} {:>7} {:>7} {:>7} {:>8} {:>8}",
        "page", "ours", "inter.", "pw", "ratio", "i.ratio", "lines", "chars", "same"
    );
    let whole = SnapshotParams { max_chars: Some(10_000_000), ..Default::default() };
    let interactive = SnapshotParams { interactive: true, max_chars: Some(10_000_000), ..Default::default() };
    for (label, url) in &pages {
        c.goto(&sid, url, Some(60_000)).await.unwrap();
        let mut theirs = match peer.as_mut() {
            Some(p) => p.ask(&format!("goto {url}")).await.map(|_| p),
            None => None,
        };
        let (mut ours_ms, mut inter_ms, mut pw_ms) = (Vec::new(), Vec::new(), Vec::new());
        let (mut text, mut pw_text) = (String::new(), String::new());
        for _ in 0..SNAPSHOT_RUNS {
            if let Some(answer) = match theirs.as_mut() {
                Some(p) => p.ask("snap").await,
                None => None,
            } {
                pw_ms.extend(answer["ms"].as_f64());
                pw_text = answer["text"].as_str().unwrap_or_default().to_string();
            }
            let t = Instant::now();
            text = c.snapshot(&sid, whole.clone()).await.unwrap().into_inner().snapshot;
            ours_ms.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            c.snapshot(&sid, interactive.clone()).await.unwrap();
            inter_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let ours_ms = median(ours_ms[1..].to_vec());
        let inter_ms = median(inter_ms[1..].to_vec());
        let pw_ms = (pw_ms.len() > 1).then(|| median(pw_ms[1..].to_vec()));
        let (shared, total) = shared_lines(&text, &pw_text);
        let ratio = |m: f64| pw_ms.map(|p| format!("{:.2}x", m / p)).unwrap_or_else(|| "-".into());
        println!(
            "{:<40} {:>7.1}ms {:>7.1}ms {:>9} {:>7} {:>7} {:>7} {:>8} {:>7.1}%",
            label,
            ours_ms,
            inter_ms,
            pw_ms.map(|m| format!("{m:.1}ms")).unwrap_or_else(|| "-".into()),
            ratio(ours_ms),
            ratio(inter_ms),
            text.lines().count(),
            text.chars().count(),
            if total == 0 { 100.0 } else { 100.0 * shared as f64 / total as f64 },
        );
    }
    c.session_close(&sid).await.unwrap();
}

/// Loads per side and condition in the guarded-load table (the first is a warm-up). 60: a ratio of
/// medians of 20 under two busy processes moves by up to 0.4x between runs on this machine, more than
/// the 1.10x target's margin.
const LOADS: usize = 61;
/// How long each run of the real-site concurrency table loops, ms.
const SITE_LOOP_MS: u64 = 20_000;
/// [`SITE_LOOP_MS`] in seconds, the divisor of each rate the real-site tables print.
const SITE_LOOP_SECS: f64 = SITE_LOOP_MS as f64 / 1e3;
/// The real site of the concurrency table: Debian's `python3.11-doc`.
const PYTHON_DOCS: &str = "/usr/share/doc/python3.11-doc/html";

/// The guarded page load beside Playwright's unguarded one, at rest and with two busy processes
/// (`guarded`), and the real-site concurrency tables (Python's docs), alternating runs of ours and
/// Playwright's (`site`; with `parts_only`, of those only where a goto's time goes).
async fn loads_tables(guarded: bool, site: bool, parts_only: bool) {
    // Each side's driver in a session of its own, as beside an agent: our supervisor is an entrypoint,
    // Playwright's Node a program started beside it; each browser is in a session of its own too (our
    // supervisor's `setsid`, Node's detached spawn). Where the kernel's autogroups apply (on, and the
    // bench in the root cpu cgroup: `SB_BENCH_CGROUP=host`), the CPU is shared between sessions first:
    // the pages' servers (this bench's session) take the same share from either side. In the cpu
    // cgroup scripts/bench.sh makes, as in a container, it is shared thread by thread.
    let Some(mut peer) =
        Peer::start_with("SB_BENCH_PLAYWRIGHT_LOADS", &["--ignore-certificate-errors"], true)
    else {
        println!("loads: no Playwright peer (SB_BENCH_PLAYWRIGHT_LOADS)");
        return;
    };
    let pages = sb_tests::PageServer::start(None).await;
    let closing = closing_server().await;
    let origins = tls_origins(10).await;
    // The TLS origins' certificate is the bench's own: both browsers are told to take it.
    let path =
        bench_chromium().map(|p| format!("path = {:?}\n", p.display().to_string())).unwrap_or_default();
    let sup = Supervisor::with_config_as_entrypoint(&format!(
        "[browser]\n{path}extra_flags = [\"--ignore-certificate-errors\"]\n"
    ));
    let c = sup.client().await;
    let sid = c.session_start(None).await.unwrap().into_inner().session_id;
    if guarded {
        println!();
        println!(
            "guarded page loads, the page's own Navigation Timing (loadEventEnd), medians of {}; ours through \
             the connection gate, Playwright's browser unguarded, one load of each in turn",
            LOADS - 1
        );
        println!("{:<44} {:<20} {:>9} {:>11} {:>7}", "page", "condition", "ours ms", "playwright", "ratio");
    }
    let load_ms = "new Promise(r => { const done = () => r(performance.getEntriesByType('navigation')[0].loadEventEnd); \
                   document.readyState === 'complete' ? setTimeout(done) : addEventListener('load', () => setTimeout(done)); })";
    // Each page's URL, `RUN` replaced by the load's own tag (every load's URLs are new).
    let sites = [
        ("(a) 100 images, server closes each conn.", format!("http://127.0.0.1:{closing}/page?RUN")),
        ("(b) 100 images, keep-alive server", pages.url("/test/images/100?RUN")),
        ("(c) https, 60 images from 10 origins", format!("https://127.0.0.1:{}/page?RUN", origins[0])),
    ];
    for (site, url) in sites.iter().filter(|_| guarded) {
        let url_of = |run: &str| url.replace("RUN", run);
        for busy in [false, true] {
            // Each busy process in a session of its own, as another terminal's or another user's job
            // would be.
            let spinners: Vec<std::process::Child> = (0..if busy { 2 } else { 0 })
                .map(|_| {
                    sb_tests::in_own_session(Command::new("yes").stdout(Stdio::null())).spawn().expect("yes")
                })
                .collect();
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for i in 0..LOADS {
                let run = format!("{}-{i}-{busy}", std::process::id());
                if let Some(answer) = peer.ask(&format!("load {}", url_of(&format!("{run}-pw")))).await {
                    theirs.extend(answer["load_ms"].as_f64());
                }
                c.goto(&sid, &url_of(&run), Some(30_000)).await.unwrap();
                let v = c.evaluate(&sid, load_ms, Some(30_000)).await.unwrap().into_inner().value;
                ours.extend(v.and_then(|v| v.as_f64()));
            }
            for mut s in spinners {
                let _ = s.kill();
                let _ = s.wait();
            }
            let (o, t) = (median(ours[1..].to_vec()), median(theirs[1..].to_vec()));
            let label = if busy { "two busy processes" } else { "at rest" };
            println!("{site:<44} {label:<20} {o:>9.1} {t:>11.1} {:>6.2}x", o / t);
        }
    }
    c.session_close(&sid).await.unwrap();
    if !site {
        return;
    }

    if !std::path::Path::new(PYTHON_DOCS).join("index.html").exists() {
        println!("real-site concurrency: {PYTHON_DOCS} is missing (Debian's python3.11-doc)");
        return;
    }
    // The docs are served by a process of their own (`sb-pages`), as a site would be: not on this
    // process's runtime, which also runs our side's clients; and in a session of its own, so that
    // (where the kernel's autogroups apply) our clients have this bench's session to themselves as
    // Playwright's Node has its own, and neither side's driver shares a scheduling group with the
    // site. Killed and waited for when this function returns.
    let (_docs, index) = serve_python_docs(true);
    println!();
    println!(
        "real-site concurrency: N sessions (ours; a browser context each) / N pages of one context (pw) or of \
         a context each (pw ctx, our isolation) looping page.goto of Python's docs index (16 subresources) -> \
         snapshot -> click the link \"Glossary\", {} s a run, ours and Playwright's in turn, two runs each",
        SITE_LOOP_MS / 1000
    );
    println!(
        "{:<3} {:<12} {:>9} {:>9} {:>7} {:>10} {:>10} {:>10}",
        "N", "side", "actions/s", "goto p50", "at once", "p95 all", "peak RSS", "peak PSS"
    );
    for n in [4usize, 16].into_iter().filter(|_| !parts_only) {
        // Each side's gotos of both rounds: ours, pw, pw ctx.
        let mut both: [Vec<f64>; 3] = Default::default();
        for round in 0..2 {
            let sampler = MemorySampler::start(sup.pid());
            let run = site_loop(&sup, n, &index, Loop::Full, None).await;
            let peaks = sampler.peak().await;
            print_site_row(n, &format!("ours {}", round + 1), &run.gotos, &run.all, peaks.rss, peaks.pss);
            print_cpu(&peaks, run.all.len());
            both[0].extend(&run.gotos);
            for (side, (contexts, label)) in [("one", "pw"), ("each", "pw ctx")].into_iter().enumerate() {
                let sampler = MemorySampler::start(peer.pid());
                let command = format!("loop {n} {SITE_LOOP_MS} {contexts} full {index} Glossary");
                let answer = peer.ask(&command).await.unwrap_or_default();
                let peaks = sampler.peak().await;
                let (gotos, all) = (numbers(&answer, "goto"), numbers(&answer, "all"));
                print_site_row(n, &format!("{label} {}", round + 1), &gotos, &all, peaks.rss, peaks.pss);
                print_cpu(&peaks, all.len());
                both[side + 1].extend(gotos);
            }
        }
        print_both_rounds(n, &both);
    }
    // The same sessions and pages doing nothing but the goto: what one goto costs when gotos compete
    // only with each other. In the loop above a side whose snapshot and click are quicker spends more
    // of the loop in its gotos, so more of them run at once and each takes longer (session 17: ours
    // 1.35x and 1.52x Playwright's goto p50 in the loop, 0.90x in this one, at sixteen).
    println!();
    println!("the same, gotos only (one run each)");
    for n in [4usize, 16].into_iter().filter(|_| !parts_only) {
        let sampler = MemorySampler::start(sup.pid());
        let run = site_loop(&sup, n, &index, Loop::Goto, None).await;
        let peaks = sampler.peak().await;
        print_site_row(n, "ours", &run.gotos, &run.all, peaks.rss, peaks.pss);
        for (contexts, label) in [("one", "pw"), ("each", "pw ctx")] {
            let sampler = MemorySampler::start(peer.pid());
            let answer = peer.ask(&format!("loop {n} {SITE_LOOP_MS} {contexts} goto {index} -")).await;
            let answer = answer.unwrap_or_default();
            let peaks = sampler.peak().await;
            let gotos = numbers(&answer, "goto");
            print_site_row(n, label, &gotos, &gotos, peaks.rss, peaks.pss);
        }
    }
    // The loop again, each goto followed by a read of the page's own Navigation Timing (not timed):
    // how much of a goto is the page's own load and how much the driver's way to the browser and back.
    println!();
    println!(
        "where a goto's time goes in the loop (one run each; p50s): before the navigation starts in the \
         browser, the page's own time to the event the goto waits for (ours DOMContentLoaded, pw load), \
         after it until the client has the answer"
    );
    println!(
        "{:<3} {:<12} {:>9} {:>7} {:>9} {:>10} {:>10} {:>10} {:>8}",
        "N", "side", "actions/s", "at once", "goto", "before", "page", "after", "gotos"
    );
    for n in [4usize, 16] {
        let run = site_loop(&sup, n, &index, Loop::Timeline, None).await;
        print_parts_row(n, "ours", &run.gotos, &run.all, &run.parts);
        let answer = peer.ask(&format!("loop {n} {SITE_LOOP_MS} one timeline {index} Glossary")).await;
        let answer = answer.unwrap_or_default();
        let parts: Vec<GotoParts> = serde_json::from_value(answer["parts"].clone()).unwrap_or_default();
        print_parts_row(n, "pw", &numbers(&answer, "goto"), &numbers(&answer, "all"), &parts);
        // Ours again with each session's loops no faster than Playwright's were: the same action
        // rate (its sessions wait between loops where Playwright's waited on their driver).
        let loops = answer["loops"].as_f64().unwrap_or(0.0).max(1.0);
        let pace = Duration::from_secs_f64(SITE_LOOP_SECS * n as f64 / loops);
        let run = site_loop(&sup, n, &index, Loop::Timeline, Some(pace)).await;
        print_parts_row(n, "ours paced", &run.gotos, &run.all, &run.parts);
    }
}

/// A server that speaks HTTP/1.0 and closes each connection after its one answer (as many simple
/// servers and appliances do): `/page?<run>` is a page of 100 images (`/pixel.png?<run>-<i>`, each a
/// URL never loaded before), anything else the 1x1 PNG. Its port.
async fn closing_server() -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut chunk = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65_536 {
                    match tcp.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&chunk[..n]),
                    }
                }
                let target =
                    String::from_utf8_lossy(&head).split_whitespace().nth(1).unwrap_or("/").to_string();
                let (kind, body) = match target.strip_prefix("/page?") {
                    Some(run) => {
                        let imgs: String =
                            (0..100).map(|i| format!("<img src=\"/pixel.png?{run}-{i}\">")).collect();
                        ("text/html", format!("<!doctype html><html><body>{imgs}</body></html>").into_bytes())
                    }
                    None => ("image/png", sb_tests::pages::PIXEL.to_vec()),
                };
                let head = format!(
                    "HTTP/1.0 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = tcp.write_all(head.as_bytes()).await;
                let _ = tcp.write_all(&body).await;
                let _ = tcp.shutdown().await;
            });
        }
    });
    port
}

/// `n` HTTPS origins on 127.0.0.1 (a port each, one self-signed certificate; HTTP/1.1, keep-alive):
/// `/page?<run>` is a page of 60 images spread over the `n` origins in turn, anything else the 1x1
/// PNG. Their ports (the page is the first's).
async fn tls_origins(n: usize) -> Vec<u16> {
    use hyper_util::rt::TokioIo;
    let (acceptor, _) = sb_tests::remote::self_signed_acceptor(&["127.0.0.1"]);
    let mut listeners = Vec::new();
    for _ in 0..n {
        listeners.push(tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap());
    }
    let ports: Vec<u16> = listeners.iter().map(|l| l.local_addr().unwrap().port()).collect();
    for listener in listeners {
        let (acceptor, ports) = (acceptor.clone(), ports.clone());
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let _ = tcp.set_nodelay(true);
                let (acceptor, ports) = (acceptor.clone(), ports.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else { return };
                    let service = hyper::service::service_fn(
                        move |req: hyper::Request<hyper::body::Incoming>| {
                            let ports = ports.clone();
                            async move {
                                let target =
                                    req.uri().path_and_query().map_or("/", |p| p.as_str()).to_string();
                                let (kind, body) = match target.strip_prefix("/page?") {
                                    Some(run) => {
                                        let imgs: String = (0..60)
                                        .map(|i| {
                                            let port = ports[i % ports.len()];
                                            format!("<img src=\"https://127.0.0.1:{port}/pixel.png?{run}-{i}\">")
                                        })
                                        .collect();
                                        let page = format!("<!doctype html><html><body>{imgs}</body></html>");
                                        ("text/html", hyper::body::Bytes::from(page))
                                    }
                                    None => {
                                        ("image/png", hyper::body::Bytes::from_static(sb_tests::pages::PIXEL))
                                    }
                                };
                                let mut response = hyper::Response::new(http_body_util::Full::new(body));
                                response
                                    .headers_mut()
                                    .insert("content-type", hyper::header::HeaderValue::from_static(kind));
                                Ok::<_, std::convert::Infallible>(response)
                            }
                        },
                    );
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
        });
    }
    ports
}

/// Session `sid` on the form page (`/test/form.html`): the click on its button "Save" by the ref an
/// interactive snapshot gave it (the click tables' action).
async fn save_button(
    c: &sb_client::Client,
    sid: &str,
    pages: &sb_tests::PageServer,
) -> sb_protocol::api::ClickParams {
    use sb_protocol::api::{ClickParams, ElementParams, SnapshotParams};
    c.goto(sid, &pages.url("/test/form.html"), None).await.unwrap();
    let snap = c.snapshot(sid, SnapshotParams { interactive: true, ..Default::default() }).await.unwrap();
    let line = snap.snapshot.lines().find(|l| l.contains("button \"Save\"")).unwrap();
    let reference = line.split("[ref=").nth(1).unwrap().trim_end_matches(']').to_string();
    ClickParams {
        element: ElementParams { reference: Some(reference), selector: None },
        ..Default::default()
    }
}

/// Clicks per side and round in the kept-login table.
const KEPT_CLICKS: usize = 200;

/// What keeping each session's login costs (`[limits] keep_logins`, on by default): a click by ref on
/// the form page (p50, p95 of [`KEPT_CLICKS`] in a row) and the real-site loop (4 sessions on Python's
/// docs, throughput and goto p50), with it on and off, alternating, two rounds each. Neither page
/// changes any state, so each action's refresh reads the cookies and local storage and writes nothing.
async fn kept_table() {
    let pages = sb_tests::PageServer::start(None).await;
    let index = std::path::Path::new(PYTHON_DOCS).join("index.html").exists().then(|| {
        let (docs, index) = serve_python_docs(false);
        (index, docs)
    });
    println!();
    println!(
        "kept logins ([limits] keep_logins) on and off: click by ref ({KEPT_CLICKS} in a row, form page) and the \
         real-site loop (4 sessions, Python's docs, {} s), alternating, two rounds",
        SITE_LOOP_MS / 1000
    );
    println!(
        "{:<10} {:<6} {:>10} {:>10} {:>10} {:>10}",
        "kept", "round", "click p50", "click p95", "actions/s", "goto p50"
    );
    for round in 1..=2 {
        for keep in [true, false] {
            let sup = Supervisor::with_config(&format!("[limits]\nkeep_logins = {keep}\n"));
            let c = sup.client().await;
            let sid = c.session_start(None).await.unwrap().into_inner().session_id;
            let save = save_button(&c, &sid, &pages).await;
            let click = || save.clone();
            c.click(&sid, click(), None).await.unwrap();
            let mut ms = Vec::new();
            for _ in 0..KEPT_CLICKS {
                let t = Instant::now();
                c.click(&sid, click(), None).await.unwrap();
                ms.push(t.elapsed().as_secs_f64() * 1e3);
            }
            c.session_close(&sid).await.unwrap();
            let (rate, goto) = match &index {
                Some((index, _)) => {
                    let run = site_loop(&sup, 4, index, Loop::Full, None).await;
                    (
                        format!("{:.1}", run.all.len() as f64 / SITE_LOOP_SECS),
                        format!("{:.1}", pct(&run.gotos, 0.5)),
                    )
                }
                None => ("-".into(), "-".into()),
            };
            let label = if keep { "on" } else { "off" };
            println!(
                "{label:<10} {round:<6} {:>8.2}ms {:>8.2}ms {rate:>10} {goto:>8}ms",
                pct(&ms, 0.5),
                pct(&ms, 0.95)
            );
        }
    }
}

/// The numbers of the list `key` of a peer's answer (none when it has no such list).
fn numbers(answer: &Value, key: &str) -> Vec<f64> {
    answer[key].as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default()
}

/// Python's docs ([`PYTHON_DOCS`]) served by a process of their own (`sb-pages`), in a session of its
/// own with `own_session`: the process (killed and waited for when dropped) and the index's URL.
fn serve_python_docs(own_session: bool) -> (Reaped, String) {
    use std::io::BufRead;
    let mut command = Command::new(bin_path("sb-pages"));
    command.arg(PYTHON_DOCS).stdout(Stdio::piped());
    if own_session {
        sb_tests::in_own_session(&mut command);
    }
    let mut docs = Reaped(command.spawn().expect("sb-pages"));
    let mut line = String::new();
    std::io::BufReader::new(docs.0.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let index = format!("{}/index.html", line.trim());
    (docs, index)
}

/// A child process killed and waited for when dropped.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One row of the real-site table for a run of [`SITE_LOOP_MS`]: actions a second, goto p50, gotos
/// at once ([`at_once`]), p95 of every action (ms), peak RSS and PSS (MB) of the side's whole process
/// tree.
fn print_site_row(n: usize, side: &str, gotos: &[f64], all: &[f64], rss: u64, pss: u64) {
    if all.is_empty() {
        println!("{n:<3} {side:<12} (no answer)");
        return;
    }
    println!(
        "{:<3} {:<12} {:>9.1} {:>7.0}ms {:>7.1} {:>8.0}ms {:>8.0}MB {:>8.0}MB",
        n,
        side,
        all.len() as f64 / SITE_LOOP_SECS,
        pct(gotos, 0.5),
        at_once(gotos),
        pct(all, 0.95),
        rss as f64 / 1024.0,
        pss as f64 / 1024.0
    );
}

/// The goto p50 (ms) of each side over both rounds of the real-site loop at `n` sessions (`gotos`:
/// ours, pw, pw ctx), and ours against pw's. A slower spell of the machine during one side's round
/// moves this less than it moves that round's own figures.
fn print_both_rounds(n: usize, gotos: &[Vec<f64>; 3]) {
    if gotos.iter().any(|g| g.is_empty()) {
        return;
    }
    let [ours, pw, ctx] = [0, 1, 2].map(|i| pct(&gotos[i], 0.5));
    println!(
        "{n:<3} both rounds: goto p50 ours {ours:.0} / pw {pw:.0} / pw ctx {ctx:.0} ms: {:.2}x of pw's",
        ours / pw
    );
}

/// How many of a side's sessions were in a goto at a time, on average, over a run of
/// [`SITE_LOOP_MS`]: the sum of its goto times (ms) over the run's length.
fn at_once(gotos: &[f64]) -> f64 {
    gotos.iter().sum::<f64>() / SITE_LOOP_MS as f64
}

/// What each session of [`site_loop`] does a loop.
#[derive(Clone, Copy, PartialEq)]
enum Loop {
    /// goto `index` -> snapshot -> click the link "Glossary" by the ref the snapshot gave.
    Full,
    /// The goto alone.
    Goto,
    /// [`Loop::Full`], reading after each goto (untimed) the page's own Navigation Timing, for
    /// [`GotoParts`].
    Timeline,
}

/// Where one goto's time went, ms: `before` its navigation started in the browser (the client's
/// request until the document's `performance.timeOrigin`), `page` the document's own time from
/// there to the end of the event the goto waits for (`domContentLoadedEventEnd` for ours,
/// `loadEventEnd` for Playwright's `waitUntil: 'load'`), `after` from that end until the client had
/// the answer. Both clocks are the machine's wall clock.
type GotoParts = [f64; 3];

/// A run of [`site_loop`]: the goto times and every action's time, ms, and with
/// [`Loop::Timeline`] each goto's [`GotoParts`].
#[derive(Default)]
struct SiteRun {
    gotos: Vec<f64>,
    all: Vec<f64>,
    parts: Vec<GotoParts>,
}

/// Milliseconds since the Unix epoch, as `performance.timeOrigin` counts them.
fn epoch_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_secs_f64() * 1e3
}

/// `n` sessions looping as `mode` says on `index` for [`SITE_LOOP_MS`]; with `pace`, a session whose
/// loop took less than that waits out the rest before its next (each session's loops at most one a
/// `pace`: the action rate of a slower driver, to compare a goto at the same load).
async fn site_loop(sup: &Supervisor, n: usize, index: &str, mode: Loop, pace: Option<Duration>) -> SiteRun {
    let sessions = ready_sessions(sup, n, index).await;
    let end = Instant::now() + Duration::from_millis(SITE_LOOP_MS);
    let mut tasks = Vec::new();
    for (i, (c, sid)) in sessions.into_iter().enumerate() {
        let index = index.to_string();
        tasks.push(tokio::spawn(async move {
            let mut run = SiteRun::default();
            // Paced sessions start spread over one pace, not all at once (else they stay in step).
            let mut next = Instant::now() + pace.unwrap_or_default() * i as u32 / n as u32;
            while Instant::now() < end {
                if let Some(pace) = pace {
                    tokio::time::sleep_until(next.into()).await;
                    next = Instant::now() + pace;
                }
                let (t, sent) = (Instant::now(), epoch_ms());
                c.goto(&sid, &index, Some(60_000)).await.unwrap();
                let (took, answered) = (t.elapsed().as_secs_f64() * 1e3, epoch_ms());
                run.gotos.push(took);
                run.all.push(took);
                if mode == Loop::Goto {
                    continue;
                }
                if mode == Loop::Timeline {
                    let read = "(() => { const n = performance.getEntriesByType('navigation')[0]; \
                                return [performance.timeOrigin, n.domContentLoadedEventEnd]; })()";
                    let v = c.evaluate(&sid, read, Some(60_000)).await.unwrap().into_inner().value;
                    let v: Vec<f64> = v.and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default();
                    if let [origin, dcl] = v[..] {
                        run.parts.push([origin - sent, dcl, answered - (origin + dcl)]);
                    }
                }
                let t = Instant::now();
                let r = c.call("page.snapshot", Some(&sid), json!({}), Some(60_000)).await.unwrap();
                run.all.push(t.elapsed().as_secs_f64() * 1e3);
                let text = r.result.unwrap()["snapshot"].as_str().unwrap_or_default().to_string();
                let line = text.lines().find(|l| l.contains("link \"Glossary\"")).expect("a Glossary link");
                let reference = line.split("[ref=").nth(1).and_then(|r| r.split(']').next()).unwrap();
                let t = Instant::now();
                let r =
                    c.call("page.click", Some(&sid), json!({"ref": reference}), Some(60_000)).await.unwrap();
                run.all.push(t.elapsed().as_secs_f64() * 1e3);
                assert!(r.ok, "{r:?}");
            }
            (c, sid, run)
        }));
    }
    let mut merged = SiteRun::default();
    for t in tasks {
        let (c, sid, run) = t.await.unwrap();
        c.session_close(&sid).await.unwrap();
        merged.gotos.extend(run.gotos);
        merged.all.extend(run.all);
        merged.parts.extend(run.parts);
    }
    merged
}

/// One row of the goto-parts table: actions a second, gotos at once ([`at_once`]), the goto p50 and
/// each part's p50 (see [`GotoParts`]), ms.
fn print_parts_row(n: usize, side: &str, gotos: &[f64], all: &[f64], parts: &[GotoParts]) {
    let part = |i: usize| pct(&parts.iter().map(|p| p[i]).collect::<Vec<_>>(), 0.5);
    println!(
        "{n:<3} {side:<12} {:>9.1} {:>7.1} {:>7.0}ms {:>8.1}ms {:>8.0}ms {:>8.1}ms {:>8}",
        all.len() as f64 / SITE_LOOP_SECS,
        at_once(gotos),
        pct(gotos, 0.5),
        part(0),
        part(1),
        part(2),
        parts.len()
    );
}

/// Samples the RSS and PSS (KiB) of a process and its descendants once a second, on a thread of its
/// own (the process table read once a sample), until asked for the peak; and the CPU time each kind
/// of process in the tree used meanwhile (see [`Peaks`]).
struct MemorySampler {
    stop: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<Peaks>,
}

/// What [`MemorySampler`] found: peak RSS and PSS (KiB) of the whole tree, and CPU seconds by kind of
/// process (`browser`, `renderer`, `gpu`, `utility` for Chromium's; the first argument's file name
/// and subcommand otherwise, e.g. `sandbox-browser serve`), counted from the first sample (a process
/// that ends between two samples loses at most its last second).
#[derive(Default)]
struct Peaks {
    rss: u64,
    pss: u64,
    cpu: std::collections::BTreeMap<String, f64>,
}

impl MemorySampler {
    fn start(root: u32) -> MemorySampler {
        let (stop, stopped) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let mut peaks = Peaks::default();
            // Each process's kind, CPU ticks at its first sample and at its last.
            let mut ticks: std::collections::HashMap<u32, (String, u64, u64)> = Default::default();
            let mut first = true;
            loop {
                let pids: Vec<u32> = std::iter::once(root).chain(descendants(root)).collect();
                let (r, p) =
                    pids.iter().map(|&pid| rss_pss_kib(pid)).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
                (peaks.rss, peaks.pss) = (peaks.rss.max(r), peaks.pss.max(p));
                for &pid in &pids {
                    let Some(now) = cpu_ticks(pid) else { continue };
                    let entry = ticks
                        .entry(pid)
                        .or_insert_with(|| (process_kind(pid), if first { now } else { 0 }, now));
                    entry.2 = now;
                }
                first = false;
                if stopped.recv_timeout(Duration::from_secs(1))
                    != Err(std::sync::mpsc::RecvTimeoutError::Timeout)
                {
                    // /proc counts in USER_HZ, 100 a second on Linux.
                    let hz = 100.0;
                    for (kind, start, end) in ticks.into_values() {
                        *peaks.cpu.entry(kind).or_default() += end.saturating_sub(start) as f64 / hz;
                    }
                    return peaks;
                }
            }
        });
        MemorySampler { stop, thread }
    }

    async fn peak(self) -> Peaks {
        let _ = self.stop.send(());
        tokio::task::spawn_blocking(move || self.thread.join().unwrap_or_default()).await.unwrap_or_default()
    }
}

/// A process's user + system CPU time, clock ticks (`/proc/<pid>/stat` fields 14 and 15); `None` when
/// it is gone.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let fields = sb_tests::stat_fields(pid)?;
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// A process's kind for [`Peaks::cpu`], from its command line.
fn process_kind(pid: u32) -> String {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let mut args: Vec<String> = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    // Chromium's children rewrite their command line as one string (their process title).
    if args.len() == 1 {
        args = args[0].split_whitespace().map(str::to_string).collect();
    }
    if args.is_empty() {
        return "gone".into();
    }
    let program = args.first().map(|a| a.rsplit('/').next().unwrap_or(a).to_string()).unwrap_or_default();
    if program.contains("chrom") {
        return match args.iter().find_map(|a| a.strip_prefix("--type=")) {
            None => "browser".into(),
            Some("renderer") => "renderer".into(),
            Some("gpu-process") => "gpu".into(),
            Some(_) => "utility".into(),
        };
    }
    match args.get(1).filter(|a| !a.starts_with('-')) {
        Some(sub) => format!("{program} {sub}"),
        None => program,
    }
}

/// The CPU line under a row of the real-site table: seconds by kind of process, and ms of CPU per
/// action in all.
fn print_cpu(peaks: &Peaks, actions: usize) {
    let total: f64 = peaks.cpu.values().sum();
    let kinds: Vec<String> = peaks.cpu.iter().map(|(k, v)| format!("{k} {v:.1}")).collect();
    println!("    cpu s: {} | {:.1} ms/action", kinds.join(", "), total * 1e3 / actions.max(1) as f64);
}

/// A process's RSS and PSS, KiB (`/proc/<pid>/smaps_rollup`); zeros when it is gone.
fn rss_pss_kib(pid: u32) -> (u64, u64) {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0)
    };
    (field("Rss:"), field("Pss:"))
}
