//! Issue 30 §1, the transport: a browser the runtime did not launch, reached over TLS with Basic
//! auth through a reverse proxy that reports the browser's own loopback `webSocketDebuggerUrl`
//! (`tests/support/remote.rs`). DevTools discovery (`https:`) and the CDP WebSocket (`wss:`) both go
//! through it; a wrong password and an untrusted certificate are clear errors that never show the
//! password.

use std::time::Duration;

use sb_cdp::{discovery, CdpClient, CdpError, Remote};
use sb_tests::remote::{RemoteChromium, TlsProxy};
use serde_json::{json, Value};

const T: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_browser_is_reached_through_tls_and_basic_auth() {
    let browser = RemoteChromium::launch();
    let proxy = TlsProxy::start(browser.port, "agent", "s3cret").await;
    let trusted = Remote { ca_file: Some(proxy.ca_file.clone()), headers: Vec::new() };
    let endpoint = url::Url::parse(&proxy.url("agent", "s3cret")).unwrap();

    // Discovery: the browser's loopback address becomes the proxy's, over wss, with the credentials.
    let version = discovery::version_with(&endpoint, T, &trusted).await.unwrap();
    assert!(version.browser.contains("Chrome"), "{version:?}");
    let ws = url::Url::parse(&version.web_socket_debugger_url).unwrap();
    assert_eq!((ws.scheme(), ws.port()), ("wss", Some(proxy.addr.port())), "{ws}");

    // The CDP connection drives a page.
    let client = CdpClient::connect_with(ws.as_str(), T, &trusted).await.unwrap();
    let target = client.create_target("about:blank", false, None, T).await.unwrap();
    let page = client.attach(&target, T).await.unwrap();
    let html = "data:text/html,<title>remote</title>";
    page.call_raw("Page.navigate", json!({"url": html}), T).await.unwrap();
    let title = json!({"expression": "new Promise(r => document.readyState === 'complete' ? r(document.title) : onload = () => r(document.title))", "awaitPromise": true, "returnByValue": true});
    let answer: Value = page.call_raw("Runtime.evaluate", title, T).await.unwrap();
    assert_eq!(answer["result"]["value"], json!("remote"), "{answer}");

    // A wrong password: discovery and the WebSocket both say 401, never the password.
    let wrong = url::Url::parse(&proxy.url("agent", "guess")).unwrap();
    let e = discovery::version_with(&wrong, T, &trusted).await.unwrap_err();
    assert!(matches!(&e, CdpError::Http { reason, .. } if reason.contains("401")), "{e}");
    assert!(!e.to_string().contains("guess"), "{e}");
    let mut wrong_ws = ws.clone();
    wrong_ws.set_password(Some("guess")).unwrap();
    let e = CdpClient::connect_with(wrong_ws.as_str(), T, &trusted).await.unwrap_err();
    assert!(matches!(&e, CdpError::Connect { .. }) && e.to_string().contains("401 Unauthorized"), "{e}");
    assert!(!e.to_string().contains("guess"), "{e}");

    // A certificate nobody vouched for: the TLS handshake fails, saying why.
    let untrusted = Remote::default();
    let e = discovery::version_with(&endpoint, T, &untrusted).await.unwrap_err();
    assert!(e.to_string().contains("TLS") && e.to_string().contains("certificate"), "{e}");
    let e = CdpClient::connect_with(ws.as_str(), T, &untrusted).await.unwrap_err();
    assert!(e.to_string().to_lowercase().contains("certificate"), "{e}");
    assert!(!e.to_string().contains("s3cret"), "{e}");
    // A CA file that is not one.
    let bogus = Remote { ca_file: Some(browser_dir_file()), headers: Vec::new() };
    assert!(matches!(bogus.tls_config(), Err(CdpError::Tls { .. })));
}

/// A file that holds no certificate.
fn browser_dir_file() -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("sb-not-a-ca-{}.pem", std::process::id()));
    std::fs::write(&path, "not a certificate").unwrap();
    path
}

/// Issue 30 §1, the runtime: `[browser] cdp_url` attaches to the browser behind the proxy instead of
/// launching one (`runtime.health` says `websocket`), drives a page in a session of its own browser
/// context, holds the URL policy on the remote browser's requests (request interception: the gate
/// does not front it), keeps the credentials out of its log; when the remote browser dies the next
/// action answers `browser_unavailable` naming the endpoint's host, and once it is back the session
/// works again, reset.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runtime_attaches_to_a_remote_browser_and_reconnects() {
    use sb_tests::{api_error, error_of, result_of, PageServer, Supervisor};
    let pages = PageServer::start(None).await;
    let mut browser = RemoteChromium::launch();
    let port = browser.port;
    let proxy = TlsProxy::start(port, "agent", "s3cret").await;
    let toml = format!(
        "[browser]\ncdp_url = {:?}\nca_file = {:?}\n\n[browser.sandbox]\nruntime_recovery_cooldown_seconds = 0\n\n[policy]\nblocked_origins = [\"localhost\"]\n",
        proxy.url("agent", "s3cret"),
        proxy.ca_file.display().to_string()
    );
    let sup = Supervisor::with_config(&toml);
    let c = sup.client().await;
    let health = c.health().await.unwrap().into_inner();
    assert_eq!((health.cdp_transport.as_str(), health.browser_pid), ("websocket", 0), "{health:?}");
    c.session_start(Some("r")).await.unwrap();
    c.goto("r", &pages.url("/test/index.html"), None).await.unwrap();
    let title = result_of(&c, "r", "page.evaluate", json!({"expression": "document.title"})).await;
    assert_eq!(title["value"], json!("Test Index"));

    // The policy on the remote browser's own requests: an image from the blocked origin fails.
    let local = pages.base.rsplit(':').next().unwrap();
    let images = format!(
        "Promise.all(['/test/pixel.png', 'http://localhost:{local}/test/pixel.png'].map(src => new Promise(done => {{ \
         const i = new Image(); i.onload = () => done(true); i.onerror = () => done(false); i.src = src; }})))"
    );
    let loaded = result_of(&c, "r", "page.evaluate", json!({"expression": images})).await;
    assert_eq!(loaded["value"], json!([true, false]));
    let listed =
        result_of(&c, "r", "page.network", json!({"filter": "**/pixel.png", "include_static": true})).await;
    let blocked = listed["requests"].as_array().unwrap().iter().filter(|r| r["blocked"].is_string()).count();
    assert_eq!(blocked, 1, "{listed}");
    let e = error_of(&c, "r", "page.goto", json!({"url": format!("http://localhost:{local}/")})).await;
    assert_eq!(e.code, sb_protocol::ErrorCode::UrlBlocked);
    // Issue 56 §4: a session whose pages answer HTTP authentication intercepts their requests on its
    // own (`Fetch` on the page): the policy's interception of the whole browser still holds them.
    let start =
        json!({"session_id": "cred", "http_credentials": {"username": "ada", "password": "lovelace"}});
    assert!(c.call("session.start", None, start, None).await.unwrap().result.is_some());
    c.goto("cred", &pages.url("/test/auth"), None).await.unwrap();
    let loaded = result_of(&c, "cred", "page.evaluate", json!({"expression": images})).await;
    assert_eq!(loaded["value"], json!([true, false]));
    let e = error_of(&c, "cred", "page.goto", json!({"url": format!("http://localhost:{local}/")})).await;
    assert_eq!(e.code, sb_protocol::ErrorCode::UrlBlocked);
    let title = result_of(&c, "cred", "page.evaluate", json!({"expression": "document.title"})).await;
    assert_eq!(title["value"], json!("Signed in"));
    c.session_close("cred").await.unwrap();

    // The remote browser dies: an action says so, naming the endpoint, not its credentials. One that
    // reached the worker before the supervisor saw the connection close answers `page_reset` (the
    // browser went away during it, as for a local browser); the one after it finds the browser down.
    browser.kill();
    let evaluate = || c.call("page.evaluate", Some("r"), json!({"expression": "1"}), None);
    let mut e = api_error(&evaluate().await.unwrap());
    if e.code == sb_protocol::ErrorCode::PageReset {
        assert!(e.message.contains("the browser went away"), "{}", e.message);
        e = api_error(&evaluate().await.unwrap());
    }
    assert_eq!(e.code, sb_protocol::ErrorCode::BrowserUnavailable, "{e:?}");
    assert!(
        e.message.contains("remote browser") && e.message.contains(&proxy.addr.to_string()),
        "{}",
        e.message
    );
    assert!(!e.message.contains("s3cret"), "{}", e.message);
    let hint = e.hint.clone().unwrap_or_default();
    assert!(hint.contains(&proxy.addr.to_string()) && hint.contains("doctor"), "{hint}");
    // Back on the same port: the session works again, its page reset.
    let _back = RemoteChromium::launch_on(port);
    let r = c.call("page.evaluate", Some("r"), json!({"expression": "1 + 1"}), None).await.unwrap();
    let v = r.result.unwrap_or_else(|| panic!("{:?}", r.error));
    assert_eq!((v["value"].clone(), v["session_reset"].clone()), (json!(2), json!(true)), "{v}");
    sup.settle_log(&c).await;
    assert!(!sup.log_text().contains("s3cret"), "the log keeps credentials out");
}

/// Issue 30 §1: `doctor` checks a configured `cdp_url` (reached through TLS and Basic auth, its
/// version) and prints the fix for each failure: a wrong password, a certificate nobody vouched for,
/// an endpoint that is not there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_checks_a_remote_endpoint_and_says_how_to_fix_it() {
    let browser = RemoteChromium::launch();
    let proxy = TlsProxy::start(browser.port, "agent", "s3cret").await;
    let dir = sb_tests::temp_dir();
    let doctor = |cdp_url: String, ca: bool| {
        let path = dir.path().join("doctor.toml");
        let ca_line =
            if ca { format!("ca_file = {:?}\n", proxy.ca_file.display().to_string()) } else { String::new() };
        let toml = format!(
            "[browser]\ncdp_url = {cdp_url:?}\n{ca_line}\n[paths]\nsocket = \"{0}/sock/browser.sock\"\nruntime_dir = \"{0}/run\"\nartifacts = \"{0}/art\"\n",
            dir.path().display()
        );
        std::fs::write(&path, toml).unwrap();
        async move {
            let out = tokio::process::Command::new(sb_tests::bin_path("sandbox-browser"))
                .args(["doctor", "--quick", "--json", "--config"])
                .arg(&path)
                .env_remove("SANDBOX_BROWSER_CONFIG")
                .output()
                .await
                .unwrap();
            let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                panic!(
                    "{e}: {}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                )
            });
            let checks = report["checks"].as_array().unwrap().clone();
            checks.into_iter().find(|c| c["name"] == "remote_browser").expect("a remote_browser check")
        }
    };
    let good = doctor(proxy.url("agent", "s3cret"), true).await;
    assert_eq!(good["status"], "pass", "{good}");
    assert!(good["detail"].as_str().unwrap().contains("Chrome/"), "{good}");
    let wrong = doctor(proxy.url("agent", "guess"), true).await;
    assert_eq!(wrong["status"], "fail", "{wrong}");
    assert!(wrong["fix"].as_str().unwrap().contains("password"), "{wrong}");
    assert!(!wrong.to_string().contains("guess"), "{wrong}");
    let untrusted = doctor(proxy.url("agent", "s3cret"), false).await;
    assert!(untrusted["fix"].as_str().unwrap().contains("ca_file"), "{untrusted}");
    let gone = doctor("https://agent:s3cret@127.0.0.1:9/".into(), true).await;
    assert!(gone["fix"].as_str().unwrap().contains("reachable"), "{gone}");
    assert!(!gone.to_string().contains("s3cret"), "{gone}");
    // Issue 53 §8: a token in the query of a ws(s) cdp_url is kept out too.
    for url in [
        "ws://127.0.0.1:9/devtools/browser/x?token=s3cret",
        "wss://127.0.0.1:9/devtools/browser/x?apikey=s3cret",
    ] {
        let gone = doctor(url.into(), true).await;
        assert_eq!(gone["status"], "fail", "{gone}");
        assert!(!gone.to_string().contains("s3cret"), "{gone}");
    }
}

/// Issue 53 §3: a remote browser's pages open no WebSocket by default. Its request interception
/// never sees a WebSocket's handshake, so the policy cannot be held on one; every session's browser
/// context sends `ws`/`wss` to a proxy that refuses, so none reaches its server (one the policy
/// allows included), while pages, images and fetches still load. `[browser] remote_websockets = true`
/// lets them through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_browsers_pages_open_no_websocket_unless_allowed() {
    use sb_tests::{result_of, ws_server, PageServer, Supervisor};
    let pages = PageServer::start(None).await;
    let browser = RemoteChromium::launch();
    let proxy = TlsProxy::start(browser.port, "agent", "s3cret").await;
    let (port, seen) = ws_server("127.0.0.1").await;
    let config = |allow: bool| {
        format!(
            "[browser]\ncdp_url = {:?}\nca_file = {:?}\nremote_websockets = {allow}\n",
            proxy.url("agent", "s3cret"),
            proxy.ca_file.display().to_string()
        )
    };
    let socket = |c: sb_client::Client, url: String| async move {
        let script = format!(
            "new Promise((r) => {{ const w = new WebSocket({url:?}); w.onopen = () => r('open'); w.onerror = () => r('error'); }})"
        );
        result_of(&c, "w", "page.evaluate", json!({"expression": script})).await["value"].clone()
    };
    use std::sync::atomic::Ordering::SeqCst;
    {
        let sup = Supervisor::with_config(&config(false));
        let c = sup.client().await;
        c.session_start(Some("w")).await.unwrap();
        c.goto("w", &pages.url("/test/index.html"), None).await.unwrap();
        for url in [
            format!("ws://127.0.0.1:{port}/"),
            format!("wss://127.0.0.1:{port}/"),
            format!("ws://localhost:{port}/"),
        ] {
            assert_eq!(socket(c.clone(), url.clone()).await, json!("error"), "{url}");
        }
        assert_eq!(seen.load(SeqCst), 0, "a WebSocket reached its server");
        let fetched = result_of(
            &c,
            "w",
            "page.evaluate",
            json!({"expression": "fetch('/test/pixel.png').then(r => r.status)"}),
        )
        .await;
        assert_eq!(fetched["value"], json!(200), "plain requests still go");
    }
    let sup = Supervisor::with_config(&config(true));
    let c = sup.client().await;
    c.session_start(Some("w")).await.unwrap();
    c.goto("w", &pages.url("/test/index.html"), None).await.unwrap();
    assert_eq!(socket(c.clone(), format!("ws://127.0.0.1:{port}/")).await, json!("open"));
    assert_eq!(seen.load(SeqCst), 1);
}
