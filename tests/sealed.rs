//! A sealed runtime (issue 15), on a real runtime: its directories are 0700 and its files 0600, a
//! runtime directory another uid owns or may write to is refused, a file planted at a name the runtime
//! writes is never written through, and credentials in URLs stay out of the session store, the
//! answers and the log; the browser has no DevTools port, and a killed worker leaves no CDP session.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use sb_tests::{bin_path, temp_dir, ws_server, PageServer, Supervisor};
use serde_json::json;

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).mode() & 0o777
}

/// `serve` on `socket` with the runtime dir `runtime`: its exit code and stderr (it must not start).
fn refused(socket: &Path, runtime: &Path) -> (Option<i32>, String) {
    let out = Command::new(bin_path("sandbox-browser"))
        .arg("serve")
        .arg("--socket")
        .arg(socket)
        .arg("--runtime-dir")
        .arg(runtime)
        .env_remove("SANDBOX_BROWSER_CONFIG")
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runtimes_directories_are_0700_its_files_0600_and_credentials_stay_out() {
    let pages = PageServer::start(None).await;
    let dir = temp_dir();
    let run = dir.path().join("run");
    let state = dir.path().join("state");
    let shots = dir.path().join("shots");
    let args = ["--runtime-dir", state.to_str().unwrap(), "--artifacts", shots.to_str().unwrap()];
    let sup = Supervisor::start_at(dir, run.join("browser.sock"), &args);
    let c = sup.client().await;
    c.session_start(Some("s")).await.unwrap();
    let secret_url = format!("{}?q=rust&access_token=s3cr3t", pages.url("/test/index.html"));
    c.goto("s", &secret_url, None).await.unwrap();
    // Issue 53 §10: page.goto's answer names the page without the `user:password@` it was given.
    let with_userinfo = pages.url("/test/index.html").replace("http://", "http://ann:hunter2@");
    let went = c.goto("s", &with_userinfo, None).await.unwrap();
    assert!(!went.url.contains("hunter2") && went.url.ends_with("/test/index.html"), "{}", went.url);
    c.goto("s", &secret_url, None).await.unwrap();
    let shot = c.call("page.screenshot", Some("s"), json!({}), None).await.unwrap().result.unwrap();
    let shot = shot["path"].as_str().unwrap().to_string();

    for d in [&run, &state, &shots] {
        assert_eq!(mode(d), 0o700, "{}", d.display());
    }
    assert_eq!(mode(&run.join("browser.sock")), 0o600);
    assert_eq!(mode(&state.join("sessions.jsonl")), 0o600);
    assert_eq!(mode(Path::new(&shot)), 0o600);

    // The store keeps the URL without its credential; a failed navigation's message and the log
    // quote none.
    let store = std::fs::read_to_string(state.join("sessions.jsonl")).unwrap();
    assert!(store.contains("access_token=redacted") && !store.contains("s3cr3t"), "{store}");
    let r = c
        .call("page.goto", Some("s"), json!({"url": "http://ann:hunter2@127.0.0.1:1/?apikey=s3cr3t"}), None)
        .await;
    let e = r.unwrap().error.expect("nothing listens on port 1");
    assert!(!e.message.contains("s3cr3t") && !e.message.contains("hunter2"), "{}", e.message);
    sup.settle_log(&c).await;
    let log = sup.log_events().iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
    assert!(!log.contains("s3cr3t") && !log.contains("hunter2"), "{log}");
}

#[test]
fn a_runtime_dir_other_users_can_write_to_or_own_is_refused() {
    let base = temp_dir();
    // Pre-created 0777, as another uid would leave /tmp/sandbox-browser-$UID for the runtime to use.
    let open = base.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let (code, stderr) = refused(&open.join("browser.sock"), &open);
    assert_ne!(code, Some(0));
    assert!(stderr.contains("writable by other users"), "{stderr}");
    assert!(!open.join("browser.sock").exists(), "no socket was made there");

    // Owned by another uid (as root only: chown needs it).
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: a directory of another uid needs root to make");
        return;
    }
    let theirs = base.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o700)).unwrap();
    nix::unistd::chown(&theirs, Some(nix::unistd::Uid::from_raw(65534)), None).unwrap();
    let mine = base.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    let (code, stderr) = refused(&mine.join("browser.sock"), &theirs);
    assert_ne!(code, Some(0));
    assert!(stderr.contains("belongs to uid 65534"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_planted_at_the_stores_temp_file_truncates_nothing() {
    let dir = temp_dir();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    std::os::unix::fs::symlink(&victim, dir.path().join("sessions.jsonl.tmp")).unwrap();
    let sup = Supervisor::start_in(dir, &[]);
    let c = sup.client().await;
    c.session_start(Some("kept")).await.unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    let store = sup.dir.path().join("sessions.jsonl");
    assert!(std::fs::symlink_metadata(&store).unwrap().is_file());
    assert!(std::fs::read_to_string(&store).unwrap().contains("\"kept\""));
}

/// Each session has a browser context of its own: an HttpOnly cookie, local storage set in one
/// session are not in another's; a session's new tab is in its context; a closed session's context
/// is gone with its data.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_share_no_cookies_or_storage() {
    let sb_tests::Fixture { pages, sup: _sup, c } = sb_tests::Fixture::start().await;
    let cookie_seen = |sid: &'static str| {
        let (c, url) = (&c, pages.url("/test/cookie"));
        async move {
            c.goto(sid, &url, None).await.unwrap();
            c.evaluate(sid, "document.querySelector('#cookie').textContent", None)
                .await
                .unwrap()
                .into_inner()
                .value
                .unwrap()
        }
    };
    c.session_start(Some("a")).await.unwrap();
    c.session_start(Some("b")).await.unwrap();
    c.goto("a", &pages.url("/test/set-cookie/secret-a"), None).await.unwrap();
    c.evaluate("a", "localStorage.setItem('k', 'from a'), 1", None).await.unwrap();
    assert_eq!(cookie_seen("a").await, json!("sid=secret-a"), "the session's own requests carry it");
    assert_eq!(cookie_seen("b").await, json!(""), "another session's requests do not");
    let storage = c.evaluate("b", "localStorage.getItem('k')", None).await.unwrap();
    assert_eq!(storage.value, Some(json!(null)));

    // A tab the session opens is in its context.
    let r = c.call("tabs.open", Some("a"), json!({"url": pages.url("/test/cookie")}), None).await.unwrap();
    assert!(r.ok, "{r:?}");
    let seen = c.evaluate("a", "document.querySelector('#cookie').textContent", None).await.unwrap();
    assert_eq!(seen.value, Some(json!("sid=secret-a")));

    // Closed, then started again under the same id: a new context, without the cookie.
    c.session_close("a").await.unwrap();
    c.session_start(Some("a")).await.unwrap();
    assert_eq!(cookie_seen("a").await, json!(""));
}

/// The URL policy refuses what an agent must not load (`url_blocked`, naming the rule) for `page.goto`
/// and `tabs.open`: local files, the browser's own pages, script URLs, the cloud metadata address, and
/// (configured) the loopback in any notation; pages on the web still load.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_url_policy_refuses_local_files_browser_pages_and_blocked_networks() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config("evaluate_enabled = false\n");
    let c = sup.client().await;
    c.session_start(Some("p")).await.unwrap();
    let go = |method: &'static str, url: String| {
        let c = &c;
        async move { c.call(method, Some("p"), json!({"url": url}), None).await.unwrap() }
    };
    let port = pages.base.rsplit(':').next().unwrap().to_string();
    for (method, url, says) in [
        ("page.goto", "file:///etc/passwd".to_string(), "scheme file:"),
        ("page.goto", format!("file://{}", sup.dir.path().display()), "scheme file:"),
        ("page.goto", "chrome://version".into(), "scheme chrome:"),
        ("page.goto", "view-source:http://example.com/".into(), "scheme view-source:"),
        ("page.goto", "javascript:document.title='x'".into(), "evaluate_enabled is false"),
        ("page.goto", "data:text/html,<script>document.title='x'</script>".into(), "scheme data:"),
        ("tabs.open", "file:///etc/passwd".into(), "scheme file:"),
        ("page.goto", "http://169.254.169.254/latest/meta-data/".into(), "169.254.0.0/16"),
        ("page.goto", format!("http://0.0.0.0:{port}/test/index.html"), "0.0.0.0/8"),
    ] {
        let r = go(method, url.clone()).await;
        let e = r.error.unwrap_or_else(|| panic!("{method} {url} loaded"));
        assert_eq!(e.code, sb_protocol::ErrorCode::UrlBlocked, "{url}: {}", e.message);
        assert!(!e.retryable && e.message.contains(says), "{url}: {}", e.message);
    }
    let r = go("page.goto", pages.url("/test/index.html")).await;
    assert!(r.ok, "{r:?}");

    // Loopback blocked by configuration: every notation of 127.0.0.1 is refused.
    let strict = Supervisor::with_config("[policy]\nblock_loopback = true\n");
    let c = strict.client().await;
    c.session_start(Some("s")).await.unwrap();
    for url in [
        pages.url("/test/index.html"),
        format!("http://2130706433:{port}/test/index.html"),
        format!("http://[::ffff:127.0.0.1]:{port}/test/index.html"),
        format!("http://localhost:{port}/test/index.html"),
        // Issue 28 §3: Chromium resolves `*.localhost` and `localhost.` to the loopback itself.
        format!("http://evil.localhost:{port}/test/index.html"),
        format!("http://localhost.:{port}/test/index.html"),
        // Issue 28 §4: an IPv6 address carrying 127.0.0.1 (IPv4-compatible).
        format!("http://[::127.0.0.1]:{port}/test/index.html"),
    ] {
        let r = c.call("page.goto", Some("s"), json!({"url": url}), None).await.unwrap();
        assert_eq!(r.error.map(|e| e.code), Some(sb_protocol::ErrorCode::UrlBlocked), "{url}");
    }
    // A name that does not resolve cannot be checked: refused, saying so.
    let r =
        c.call("page.goto", Some("s"), json!({"url": "http://no-such-host.invalid/"}), None).await.unwrap();
    let e = r.error.expect("an unresolved name is refused");
    assert!(e.message.contains("could not be resolved"), "{}", e.message);

    // Issue 53 §4: `blocked_origins` holds whatever the host's case or final dot, for page.goto and
    // for a page's own request through the connection gate.
    let dotted =
        Supervisor::with_config(&format!("[policy]\nblocked_origins = [\"http://localhost:{port}\"]\n"));
    let c = dotted.client().await;
    c.session_start(Some("d")).await.unwrap();
    for host in ["localhost.", "LOCALHOST.", "LocalHost"] {
        let url = format!("http://{host}:{port}/test/index.html");
        let r = c.call("page.goto", Some("d"), json!({"url": url}), None).await.unwrap();
        assert_eq!(r.error.map(|e| e.code), Some(sb_protocol::ErrorCode::UrlBlocked), "{url}");
    }
    c.goto("d", &pages.url("/test/index.html"), None).await.unwrap();
    let script = format!(
        "Promise.all(['localhost.', 'LOCALHOST.', '127.0.0.1'].map(h => fetch('http://' + h + ':{port}/test/pixel.png', {{ mode: 'no-cors' }}).then(() => 'loaded', () => 'failed')))"
    );
    let got = c.call("page.evaluate", Some("d"), json!({"expression": script}), None).await.unwrap();
    assert_eq!(got.result.unwrap()["value"], json!(["failed", "failed", "loaded"]));
}

/// One request on `s` (`method`, no params), its answer (or what came instead).
fn request(s: &mut std::os::unix::net::UnixStream, method: &str) -> serde_json::Value {
    use std::io::{BufRead, BufReader, Write};
    // A refused connection may be closed before the request is written: its one line is read all the
    // same.
    let _ = s.write_all(format!("{{\"id\":1,\"method\":\"{method}\"}}\n").as_bytes());
    let mut line = String::new();
    let _ = BufReader::new(s.try_clone().unwrap()).read_line(&mut line);
    serde_json::from_str(&line).unwrap_or(json!({"ok": false, "line": line}))
}

/// The socket holds at most `max_connections`: one more gets a `too_many_connections` line and is
/// closed (the runtime still answers its open connections, and a new one once a slot is free); a
/// connection that parks half a line is closed after `partial_line_timeout_ms`. (No open connection
/// is idle long enough to be closed for a newcomer here: `evict_idle_after_ms` is a minute.)
#[test]
fn connections_are_capped_and_parked_partial_lines_closed() {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;
    let sup = Supervisor::with_config(
        "[limits]\nmax_connections = 3\npartial_line_timeout_ms = 1000\nevict_idle_after_ms = 60000\n",
    );
    let health = |s: &mut UnixStream| request(s, "runtime.health");
    let mut open: Vec<UnixStream> = (0..3).map(|_| UnixStream::connect(&sup.socket).unwrap()).collect();
    for s in &mut open {
        assert_eq!(health(s)["ok"], json!(true));
    }
    // The fourth: one line, then the end.
    let mut extra = UnixStream::connect(&sup.socket).unwrap();
    let mut text = String::new();
    extra.read_to_string(&mut text).unwrap();
    let refused: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(refused["error"]["code"], "too_many_connections", "{text}");
    assert_eq!(refused["error"]["retryable"], true);
    assert_eq!(health(&mut open[0])["ok"], json!(true), "the open ones still work");

    // Half a line, then nothing: closed after the timeout (the read sees the end), freeing a slot.
    open[1].write_all(b"{\"id\":2,\"method\":\"runtime.heal").unwrap();
    open[1].set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    let mut rest = Vec::new();
    let n = open[1].read_to_end(&mut rest).expect("closed by the runtime, not by the read timeout");
    assert_eq!(n, 0, "{}", String::from_utf8_lossy(&rest));
    // Its slot is free again: a new connection is served (the runtime frees it as it closes); asked
    // for something else than runtime.health, which the reserved slot would answer anyway.
    let served = (0..50).find_map(|_| {
        let mut s = UnixStream::connect(&sup.socket).unwrap();
        let v = request(&mut s, "session.list");
        if v["ok"] == json!(true) {
            Some(v)
        } else {
            std::thread::sleep(std::time::Duration::from_millis(20));
            None
        }
    });
    assert!(served.is_some(), "a slot came free");
}

/// The inodes of the TCP sockets in LISTEN state (`/proc/net/tcp` and `tcp6`, state `0A`).
fn listening_inodes() -> Vec<String> {
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .flat_map(|text| {
            text.lines()
                .skip(1)
                .filter_map(|l| {
                    let cols: Vec<&str> = l.split_whitespace().collect();
                    (cols.get(3) == Some(&"0A")).then(|| cols.get(9).map(|s| s.to_string())).flatten()
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The socket inodes process `pid` holds open.
fn socket_inodes(pid: u32) -> Vec<String> {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let link = std::fs::read_link(e.path()).ok()?;
            let link = link.to_str()?;
            Some(link.strip_prefix("socket:[")?.strip_suffix(']')?.to_string())
        })
        .collect()
}

/// Issue 15 §1: another uid found Chromium's DevTools port by scanning and drove the browser through
/// it. The browser now speaks CDP on its pipe only: none of the browser's processes (browser,
/// renderers) nor the workers listens on a TCP port, no `DevToolsActivePort` is written, and pages
/// still work. The one TCP listener is the supervisor's connection gate on 127.0.0.1 (issue 28 §2),
/// which answers the runtime's own uid only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_listens_on_no_port_and_its_pages_still_work() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::start(&[]);
    let c = sup.client().await;
    let sid = c.session_start(Some("p")).await.unwrap().into_inner().session_id;
    c.goto(&sid, &pages.url("/test/index.html"), None).await.unwrap();
    let value = c.evaluate(&sid, "document.title", None).await.unwrap().into_inner().value;
    assert_eq!(value, Some(json!("Test Index")));
    let health = c.health().await.unwrap();
    assert_eq!(health.cdp_transport, "pipe");

    let runtime = sb_tests::descendants(sup.pid());
    assert!(runtime.contains(&health.browser_pid), "{runtime:?}");
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", health.browser_pid)).unwrap();
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    assert!(cmdline.contains("--remote-debugging-pipe"), "{cmdline}");
    // Which sandbox is in force, and the launch agrees.
    let root = nix::unistd::geteuid().is_root();
    assert_eq!(health.browser_sandbox, if root { "off: running as root" } else { "chromium" });
    assert_eq!(cmdline.contains("--no-sandbox"), root, "{cmdline}");
    assert!(!cmdline.contains("--remote-debugging-port"), "{cmdline}");
    let listening = listening_inodes();
    for pid in runtime.iter().copied() {
        let open: Vec<String> = socket_inodes(pid).into_iter().filter(|i| listening.contains(i)).collect();
        assert!(open.is_empty(), "process {pid} listens on TCP (socket inodes {open:?})");
    }
    let gate: Vec<String> = socket_inodes(sup.pid()).into_iter().filter(|i| listening.contains(i)).collect();
    assert_eq!(gate.len(), 1, "the supervisor listens on the gate only: {gate:?}");
    let port: u16 = cmdline
        .split("--proxy-server=http://127.0.0.1:")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let row = std::fs::read_to_string("/proc/net/tcp").unwrap();
    assert!(
        row.lines().any(|l| l.contains(&format!("0100007F:{port:04X} 00000000:0000 0A"))),
        "the gate is on 127.0.0.1"
    );
    // The gate answers the runtime's uid, and closes another uid's connection unanswered.
    let ask = |uid: Option<u32>| {
        use std::os::unix::process::CommandExt;
        let script = format!("exec 3<>/dev/tcp/127.0.0.1/{port}; printf 'CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n' >&3; timeout 5 head -c 12 <&3");
        let mut cmd = Command::new("bash");
        cmd.args(["-c", &script]);
        if let Some(uid) = uid {
            cmd.uid(uid).gid(uid);
        }
        String::from_utf8_lossy(&cmd.output().unwrap().stdout).to_string()
    };
    assert!(ask(None).starts_with("HTTP/1.1 "), "the runtime's own uid is answered");
    if root {
        assert_eq!(ask(Some(65534)), "", "another uid gets nothing");
    }
    let written = walk(sup.dir.path()).into_iter().find(|p| p.ends_with("DevToolsActivePort"));
    assert!(written.is_none(), "{written:?}");
}

/// Every path under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(walk(&path));
        }
        found.push(path);
    }
    found
}

/// A worker killed from outside leaves no CDP session on its page: the supervisor's relay detaches
/// the sessions of its routes, and the session's next action gets a fresh worker. What stays is the
/// supervisor's own standby session on the tab (for freeing it should no worker attach): Chromium's
/// `Target.getTargets` (read through a port opened for the test) shows the page attached throughout,
/// and the relay's count of sessions (`runtime.stats` `cdp_sessions`) drops to that one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_workers_sessions_are_detached() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config(sb_tests::DEVTOOLS_PORT);
    let c = sup.client().await;
    let sid = c.session_start(Some("k")).await.unwrap().into_inner().session_id;
    c.goto(&sid, &pages.url("/test/index.html"), None).await.unwrap();
    let target = c.session_list().await.unwrap().sessions[0].target_id.clone();
    let cdp = sb_cdp::CdpClient::connect(&sb_tests::devtools_ws_url(sup.dir.path()), T).await.unwrap();
    let attached = || async {
        let targets = cdp.call_raw("Target.getTargets", None, json!({}), T).await.unwrap();
        targets["targetInfos"].as_array().unwrap().iter().find(|t| t["targetId"] == json!(target)).unwrap()
            ["attached"]
            .clone()
    };
    // The worker's page session and the standby (attached in the background after the goto).
    sb_tests::cdp_sessions_until(&c, "the worker's and the standby", |n| n == 2).await;
    assert_eq!(attached().await, json!(true));
    let worker = sb_tests::descendant_naming(sup.pid(), "\0worker\0").expect("the session's worker");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(worker as i32), nix::sys::signal::Signal::SIGKILL)
        .unwrap();
    // The detach follows the worker's end at once.
    sb_tests::cdp_sessions_until(&c, "the killed worker's session is still routed", |n| n == 1).await;
    assert_eq!(attached().await, json!(true), "the standby stays");
    let value = c.evaluate(&sid, "document.title", None).await.map(|r| r.into_inner().value);
    assert_eq!(value.unwrap(), Some(json!("Test Index")));
    assert_eq!(c.stats().await.unwrap().cdp_sessions, 2, "the fresh worker's session and the standby");
}

const T: std::time::Duration = std::time::Duration::from_secs(10);

/// Issue 15 §3: the policy holds on every load, not only on the URLs an agent asks for. With
/// `localhost` a blocked origin (the test pages are on 127.0.0.1): a redirect to it answers
/// `url_blocked` naming the rule and the refused URL; an image from it does not load (one from the
/// page's own origin does); a link the page follows to it and a popup the page opens to it end on
/// Chromium's error page, never on its content; each refusal is in the log with the rule and without
/// the URL's credentials. (Until session 12 the guard paused each request at the browser; the
/// connection gate holds all of this now, and this test holds the gate to it.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_url_policy_holds_for_redirects_subresources_links_and_popups() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config("[policy]\nblocked_origins = [\"localhost\"]\n");
    let c = sup.client().await;
    c.session_start(Some("g")).await.unwrap();
    let port = pages.base.rsplit(':').next().unwrap().to_string();
    let blocked = format!("http://localhost:{port}/test/index.html?token=s3cret");
    let call = |method: &'static str, params: serde_json::Value| {
        let c = &c;
        async move { c.call(method, Some("g"), params, None).await.unwrap() }
    };
    let value =
        |r: sb_protocol::api::Response| r.result.unwrap_or_else(|| panic!("{:?}", r.error))["value"].clone();

    // A redirect to the blocked origin, and the same redirect to an allowed URL.
    let to =
        |url: &str| pages.url(&format!("/test/redirect?to={}", url.replace('&', "%26").replace('?', "%3F")));
    let r = call("page.goto", json!({"url": to(&blocked)})).await;
    let e = r.error.unwrap_or_else(|| panic!("the redirect loaded: {:?}", r.result));
    assert_eq!(e.code, sb_protocol::ErrorCode::UrlBlocked, "{}", e.message);
    assert!(e.message.contains("blocked_origins") && e.message.contains("localhost"), "{}", e.message);
    assert!(!e.message.contains("s3cret"), "{}", e.message);
    let r = call("page.goto", json!({"url": to(&pages.url("/test/index.html"))})).await;
    assert!(r.ok, "{r:?}");

    // Subresources: an image from the blocked origin does not load, one from the page's own does.
    let images = format!(
        "Promise.all(['{}', 'http://localhost:{port}/test/pixel.png'].map(src => new Promise(done => {{ \
         const i = new Image(); i.onload = () => done(true); i.onerror = () => done(false); i.src = src; }})))",
        pages.url("/test/pixel.png")
    );
    assert_eq!(value(call("page.evaluate", json!({"expression": images})).await), json!([true, false]));
    // `page.network` says which the policy refused, and by which rule (issue 29).
    let listed = call("page.network", json!({"filter": "**/pixel.png", "include_static": true})).await;
    let listed = listed.result.unwrap_or_else(|| panic!("{:?}", listed.error));
    let requests = listed["requests"].as_array().unwrap();
    assert_eq!(requests.len(), 2, "{listed}");
    assert!(requests[0]["blocked"].is_null() && requests[0]["status"] == 200, "{listed}");
    assert!(requests[1]["blocked"].as_str().unwrap_or_default().contains("blocked_origins"), "{listed}");

    // A link the page follows: the click lands on the error page, not on the blocked page.
    let link = format!(
        "document.body.insertAdjacentHTML('beforeend', '<a id=\"away\" href=\"{blocked}\">away</a>'), 1"
    );
    assert!(call("page.evaluate", json!({"expression": link})).await.ok);
    let r = call("page.click", json!({"selector": "#away"})).await;
    assert!(r.ok, "{r:?}");
    let errored = json!({"function": "location.href.startsWith('chrome-error:')"});
    assert!(call("page.wait_for", errored.clone()).await.ok, "the link's page was not refused");
    let text = value(call("page.evaluate", json!({"expression": "document.body.innerText"})).await);
    assert!(!text.as_str().unwrap_or_default().contains("Hello from the test server"), "{text}");

    // A popup the page opens: it joins the session, and shows the error page too.
    call("page.goto", json!({"url": pages.url("/test/index.html")})).await;
    let open = format!("window.open('{blocked}'), 1");
    assert!(call("page.evaluate", json!({"expression": open})).await.ok);
    let popup = loop {
        let listed = call("tabs.list", json!({})).await.result.unwrap();
        let tabs = listed["tabs"].as_array().unwrap();
        if let Some(t) = tabs.iter().find(|t| t["active"] == json!(false)) {
            break t["target_id"].clone();
        }
    };
    assert!(call("tabs.focus", json!({"target_id": popup})).await.ok);
    assert!(call("page.wait_for", errored).await.ok, "the popup's page was not refused");
    let text = value(call("page.evaluate", json!({"expression": "document.body.innerText"})).await);
    assert!(!text.as_str().unwrap_or_default().contains("Hello from the test server"), "{text}");

    sup.settle_log(&c).await;
    let refusals: Vec<serde_json::Value> =
        sup.log_events().into_iter().filter(|e| e["message"] == "url_blocked").collect();
    assert!(refusals.len() >= 4, "{}", sup.log_text());
    for r in &refusals {
        assert!(r["rule"].as_str().unwrap_or_default().contains("blocked_origins"), "{r}");
        assert!(!r.to_string().contains("s3cret"), "{r}");
    }
}

/// The `downloads` that `session`'s results report, from `result` (an action's) on, until one of them
/// ended (each result carries what is new; an end comes within a few actions: 20 ms page waits, at
/// most 250 of them).
async fn downloads_until_ended(
    c: &sb_client::Client,
    session: &str,
    mut result: serde_json::Value,
) -> Vec<serde_json::Value> {
    let mut seen: Vec<serde_json::Value> = Vec::new();
    for _ in 0..250 {
        seen.extend(result["downloads"].as_array().cloned().unwrap_or_default());
        if seen.iter().any(|d| d["state"] != "started") {
            return seen;
        }
        let wait = json!({"expression": "new Promise(r => setTimeout(() => r(1), 20))"});
        result = c.call("page.evaluate", Some(session), wait, None).await.unwrap().result.unwrap();
    }
    panic!("the download did not end: {seen:?}");
}

/// Issue 15 §5: a page's downloads landed in the runtime's `~/Downloads`, unbounded and kept forever.
/// Now one goes into the session's own directory under the artifacts dir (0700), named by its guid;
/// the session's next result reports it (started, then completed with its path and size: one entry a
/// result, in its latest state); one past
/// `downloads.max_bytes` is cancelled, its file removed, and reported `too_large`; `session.close`
/// removes the directory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_land_in_the_sessions_directory_are_capped_reported_and_removed_with_it() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config("[downloads]\nmax_bytes = 100000\n");
    let c = sup.client().await;
    c.session_start(Some("d")).await.unwrap();
    c.goto("d", &pages.url("/test/index.html"), None).await.unwrap();
    let links = "document.body.insertAdjacentHTML('beforeend', '<a id=\"small\" href=\"/test/download/5000\" download=\"report.csv\">s</a> <a id=\"big\" href=\"/test/download/1000000\">b</a>'), 1";
    assert!(c.call("page.evaluate", Some("d"), json!({"expression": links}), None).await.unwrap().ok);
    let until_ended = |link: &'static str| {
        let c = &c;
        async move {
            let r = c.call("page.click", Some("d"), json!({"selector": link}), None).await.unwrap();
            downloads_until_ended(c, "d", r.result.unwrap()).await
        }
    };
    let small = until_ended("#small").await;
    // Started, then ended: in the results in turn, or (ended within the click) once, ended.
    assert!(small.len() <= 2 && small.iter().all(|d| d["url"] == small[0]["url"]), "{small:?}");
    assert_eq!(small[0]["suggested_filename"], "data.bin", "the server's name");
    let done = small.last().unwrap();
    assert_eq!(
        (done["state"].as_str(), done["bytes"].as_u64()),
        (Some("completed"), Some(5000)),
        "{small:?}"
    );
    let path = std::path::PathBuf::from(done["path"].as_str().unwrap());
    assert!(path.starts_with(sup.dir.path()), "{}", path.display());
    // Issue 56 §8: saved under the suggested name (it was the download's guid, without extension).
    assert_eq!(path.file_name().unwrap(), "data.bin", "{}", path.display());
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 5000);
    let dir = path.parent().unwrap().to_path_buf();
    assert!(dir.ends_with("downloads/d"), "{}", dir.display());
    assert_eq!(mode(&dir), 0o700);
    // Issue 28 §4: the finished file is the runtime's only, whatever the umask (it was 0644).
    assert_eq!(mode(&path), 0o600, "{}", path.display());

    let big = until_ended("#big").await;
    let ended = big.last().unwrap();
    assert_eq!(ended["state"], "too_large", "{big:?}");
    assert!(ended.get("path").is_none(), "{big:?}");
    // Removed now, or (when Chromium was still renaming it) a moment later: polled, at most 10 s.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
        if files == vec![path.clone()] {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "more than the small download is left: {files:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await; // a poll's interval
    }

    // The same name again: a name of its own, the first file untouched.
    let again = until_ended("#small").await;
    let second = std::path::PathBuf::from(again.last().unwrap()["path"].as_str().unwrap());
    assert_eq!(second.file_name().unwrap(), "data (1).bin", "{again:?}");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 5000);

    // Issue 29: page.downloads lists them all, oldest first, each in its latest state.
    let listed = c.downloads("d").await.unwrap().into_inner().entries;
    let states: Vec<(&str, &str)> =
        listed.iter().map(|d| (d.suggested_filename.as_str(), d.state.as_str())).collect();
    assert_eq!(
        states,
        [("data.bin", "completed"), ("data.bin", "too_large"), ("data.bin", "completed")],
        "{listed:?}"
    );
    assert_eq!(listed[0].path.as_deref(), Some(path.to_str().unwrap()));
    assert_eq!(listed[0].bytes, 5000);
    c.call("session.close", Some("d"), json!({}), None).await.unwrap();
    assert!(!dir.exists(), "the session's downloads went with it");
}

/// Issue 15 §5: a download a subframe starts (an `<iframe>` whose document is an attachment) is the
/// session's too: capped at `max_bytes`, reported, its file removed. (It used to land in the session's
/// directory unfollowed: `Browser.downloadWillBegin` names the subframe, which is no tab.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_a_subframe_starts_is_capped_and_reported_too() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config("[downloads]\nmax_bytes = 100000\n");
    let c = sup.client().await;
    c.session_start(Some("f")).await.unwrap();
    c.goto("f", &pages.url("/test/index.html"), None).await.unwrap();
    let frame = "document.body.insertAdjacentHTML('beforeend', '<iframe src=\"/test/download/1000000\"></iframe>'), 1";
    let result = c.call("page.evaluate", Some("f"), json!({"expression": frame}), None).await.unwrap();
    let seen = downloads_until_ended(&c, "f", result.result.unwrap()).await;
    assert!(seen.len() <= 2, "one entry a result, in its latest state: {seen:?}");
    assert_eq!(seen.last().unwrap()["state"], "too_large", "{seen:?}");
    let dir = sup.dir.path().join("artifacts/downloads/f");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::fs::read_dir(&dir).unwrap().next().is_some() {
        assert!(std::time::Instant::now() < deadline, "the cancelled download's file was left");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await; // a poll's interval
    }
}

/// Issue 15 §5: screenshots were kept forever (359 MB in 20 s on a noisy page). With `[artifacts]
/// max_bytes`, each screenshot prunes the oldest files until the rest fit; the one just taken stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screenshots_are_pruned_oldest_first_past_the_artifacts_quota() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config("[artifacts]\nmax_bytes = 60000\n");
    let c = sup.client().await;
    c.session_start(Some("q")).await.unwrap();
    c.goto("q", &pages.url("/test/long.html"), None).await.unwrap();
    let mut taken = Vec::new();
    for _ in 0..6 {
        let r = c.call("page.screenshot", Some("q"), json!({}), None).await.unwrap();
        let path = std::path::PathBuf::from(r.result.unwrap()["path"].as_str().unwrap());
        assert!(path.exists(), "the screenshot just taken stays");
        assert_eq!(mode(&path), 0o600);
        taken.push(path);
        let dir = taken[0].parent().unwrap();
        let files: Vec<std::fs::Metadata> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .filter(|m| m.is_file())
            .collect();
        let total: u64 = files.iter().map(|m| m.len()).sum();
        let newest = std::fs::metadata(taken.last().unwrap()).unwrap().len();
        assert!(total <= 60000.max(newest), "{total} bytes kept");
    }
    let size = std::fs::metadata(taken.last().unwrap()).unwrap().len();
    assert!(size * 6 > 60000, "the screenshots ({size} bytes each) must pass the quota for this test");
    assert!(!taken[0].exists(), "the oldest went first");
}

/// Issue 15 §5: a page allocated 4 GB in one renderer with nothing to stop it. Every renderer's
/// JavaScript heap is bounded (`browser.js_heap_mb`, V8's `--max-old-space-size`): a page past it loses
/// its renderer, the action answers `page_reset`, and the session goes on on a reopened page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_past_its_heap_bound_loses_its_renderer_not_the_machines_memory() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config("[browser]\njs_heap_mb = 64\n");
    let c = sup.client().await;
    c.session_start(Some("m")).await.unwrap();
    c.goto("m", &pages.url("/test/index.html"), None).await.unwrap();
    let hog = "(() => { const kept = []; for (let i = 0; i < 8e6; i++) kept.push({ i, s: 'x' + i }); return kept.length; })()";
    let r = c.call("page.evaluate", Some("m"), json!({"expression": hog}), Some(30_000)).await.unwrap();
    let e = r.error.unwrap_or_else(|| panic!("the page kept its {:?} objects", r.result));
    assert_eq!(e.code, sb_protocol::ErrorCode::PageReset, "{}", e.message);
    let r = c.call("page.evaluate", Some("m"), json!({"expression": "document.title"}), None).await.unwrap();
    assert_eq!(r.result.unwrap()["value"], json!("Test Index"), "the session goes on, on its page reopened");
}

/// `cmd args` run as uid/gid 65534 (no groups) through `setpriv`: its exit status and stderr.
fn as_other_uid(cmd: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--", cmd])
        .args(args)
        .output()
        .expect("setpriv");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The attacks of issue 15 made by another local uid (65534, through `setpriv`; the test needs root to
/// switch, and says so when skipped): it cannot connect to the socket (so not drive a session or read
/// what an agent types), read the session store (URLs with tokens), list the runtime's directories or
/// read a screenshot, even with the runtime dir left 0755 before start (the runtime tightens its own
/// to 0700). The runtime's own uid does all of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_uid_reaches_nothing_of_the_runtime() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: switching to another uid needs root (CI runs the suite as root)");
        return;
    }
    let pages = PageServer::start(None).await;
    let dir = temp_dir();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let sup = Supervisor::start_in(dir, &[]);
    let c = sup.client().await;
    c.session_start(Some("u")).await.unwrap();
    c.goto("u", &format!("{}?token=s3cret", pages.url("/test/index.html")), None).await.unwrap();
    let shot = c.call("page.screenshot", Some("u"), json!({}), None).await.unwrap();
    let shot = shot.result.unwrap()["path"].as_str().unwrap().to_string();
    let root = sup.dir.path();
    assert_eq!(mode(root), 0o700, "the runtime tightened its directory");
    let store = root.join("sessions.jsonl").display().to_string();
    let socket = sup.socket.display().to_string();
    let artifacts = Path::new(&shot).parent().unwrap().display().to_string();

    let (ok, stderr) =
        as_other_uid(bin_path("browserctl").to_str().unwrap(), &["--socket", &socket, "runtime.health"]);
    assert!(!ok, "another uid reached the socket");
    assert!(stderr.to_lowercase().contains("permission denied"), "{stderr}");
    for (what, cmd, arg) in [
        ("the session store", "cat", store.as_str()),
        ("a screenshot", "cat", shot.as_str()),
        ("the runtime dir", "ls", root.to_str().unwrap()),
        ("the artifacts dir", "ls", artifacts.as_str()),
    ] {
        let (ok, stderr) = as_other_uid(cmd, &[arg]);
        assert!(!ok && stderr.contains("Permission denied"), "another uid read {what}: {stderr}");
    }
    // The runtime's own uid: all of it.
    assert!(std::fs::read_to_string(&store).unwrap().contains("session_started"));
    assert!(std::fs::metadata(&shot).unwrap().len() > 0);
    assert!(c.health().await.is_ok());
}

/// The uid the seccomp tests run the runtime as (any unused one; its files are in a directory it owns).
const SANDBOX_UID: u32 = 10_001;

/// `names` denied with `errno`, compiled for this machine's arch (names this arch does not have are
/// left out, as Docker leaves them out); `rules` adds seccompiler JSON rules to the same filter.
fn deny(names: &[&str], rules: &[serde_json::Value], errno: u32) -> seccompiler::BpfProgram {
    let arch: seccompiler::TargetArch = std::env::consts::ARCH.try_into().expect("a seccompiler arch");
    let compile = |filter: Vec<serde_json::Value>| {
        let program =
            json!({"f": {"mismatch_action": "allow", "match_action": {"errno": errno}, "filter": filter}});
        seccompiler::compile_from_json(program.to_string().as_bytes(), arch)
            .map(|mut m| m.remove("f").unwrap())
    };
    let mut filter: Vec<serde_json::Value> = names
        .iter()
        .map(|n| json!({"syscall": n}))
        .filter(|rule| compile(vec![rule.clone()]).is_ok())
        .collect();
    filter.extend(rules.iter().cloned());
    compile(filter).expect("the filter compiles")
}

/// `sandbox-browser serve` as [`SANDBOX_UID`] (its own directory, no `--no-sandbox`) under `filters`
/// (each installed in the child before `setpriv` execs, so the runtime, its workers and Chromium all
/// run under them): whether it became ready (its log said `listening`), the process and its log.
fn serve_filtered(dir: &Path, filters: Vec<seccompiler::BpfProgram>) -> (bool, std::process::Child, String) {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    nix::unistd::chown(dir, Some(SANDBOX_UID.into()), Some(SANDBOX_UID.into())).unwrap();
    let uid = format!("--reuid={SANDBOX_UID}");
    let gid = format!("--regid={SANDBOX_UID}");
    let mut command = Command::new("setpriv");
    command
        .args([uid.as_str(), gid.as_str(), "--clear-groups", "--"])
        .arg(bin_path("sandbox-browser"))
        .args(["serve", "--socket"])
        .arg(dir.join("browser.sock"))
        .args(
            std::env::var_os("SB_TEST_CHROMIUM")
                .map(|b| [std::ffi::OsString::from("--browser"), b])
                .into_iter()
                .flatten(),
        )
        .env("HOME", dir)
        .env_remove("SANDBOX_BROWSER_CONFIG")
        .env_remove("SANDBOX_BROWSER_CHROMIUM")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    // SAFETY: apply_filter makes two system calls (prctl, seccomp) on memory the parent built; it
    // allocates nothing.
    unsafe {
        command.pre_exec(move || {
            for filter in &filters {
                seccompiler::apply_filter(filter).map_err(std::io::Error::other)?;
            }
            Ok(())
        });
    }
    let mut child = command.spawn().expect("spawn setpriv");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut log = String::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let ready = loop {
        match rx.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())) {
            Ok(line) => {
                log.push_str(&line);
                log.push('\n');
                if line.contains("\"listening\"") {
                    break true;
                }
            }
            Err(_) => break false,
        }
    };
    (ready, child, log)
}

/// One `browserctl` request as [`SANDBOX_UID`] (the socket admits its own uid only): the JSON answer.
fn ctl_as_sandbox_uid(socket: &Path, args: &[&str]) -> serde_json::Value {
    let uid = format!("--reuid={SANDBOX_UID}");
    let gid = format!("--regid={SANDBOX_UID}");
    let out = Command::new("setpriv")
        .args([uid.as_str(), gid.as_str(), "--clear-groups", "--"])
        .arg(bin_path("browserctl"))
        .arg("--socket")
        .arg(socket)
        .args(args)
        .output()
        .expect("browserctl");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("browserctl {args:?}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// Issue 15 §6: under the shipped seccomp profile (`sandbox-browser.seccomp.json`, what
/// `docker run --security-opt seccomp=...` installs), a non-root runtime runs Chromium with its own
/// sandbox (`browser_sandbox: "chromium"`) and serves pages. Under Docker's default refusal of new user
/// namespaces (`unshare`, and `clone` with `CLONE_NEWUSER`; `clone3` answered ENOSYS as Docker does),
/// the same start cannot get that sandbox: the profile is what makes the difference. (Needs root to
/// switch uid: skipped, with a message, otherwise.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromiums_own_sandbox_runs_under_the_shipped_seccomp_profile() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: running the runtime as another uid needs root (CI runs the suite as root)");
        return;
    }
    let profile: serde_json::Value =
        serde_json::from_str(include_str!("../sandbox-browser.seccomp.json")).expect("the profile is JSON");
    assert_eq!(profile["defaultAction"], "SCMP_ACT_ALLOW");
    let denied: Vec<&str> = profile["syscalls"]
        .as_array()
        .unwrap()
        .iter()
        .inspect(|group| assert_eq!(group["action"], "SCMP_ACT_ERRNO"))
        .flat_map(|group| group["names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()))
        .collect();
    for name in ["bpf", "keyctl", "mount", "perf_event_open", "userfaultfd", "kexec_load"] {
        assert!(denied.contains(&name), "the profile denies {name}");
    }
    for name in ["unshare", "clone", "clone3", "chroot", "setns"] {
        assert!(!denied.contains(&name), "Chromium's sandbox needs {name}");
    }

    let pages = PageServer::start(None).await;
    let dir = temp_dir();
    let (ready, mut child, log) =
        serve_filtered(dir.path(), vec![deny(&denied, &[], nix::libc::EPERM as u32)]);
    assert!(ready, "the runtime did not start under the profile:\n{log}");
    let socket = dir.path().join("browser.sock");
    let health = ctl_as_sandbox_uid(&socket, &["runtime.health"]);
    assert_eq!(health["result"]["browser_sandbox"], "chromium", "{health}");
    ctl_as_sandbox_uid(&socket, &["session.start", "session_id=s"]);
    let url = format!("url={}", pages.url("/test/index.html"));
    let page = ctl_as_sandbox_uid(&socket, &["page.goto", "--session", "s", &url]);
    assert_eq!(page["result"]["title"], "Test Index", "{page}");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGTERM)
        .unwrap();
    child.wait().unwrap();

    // Docker's default: no new user namespaces.
    let dir = temp_dir();
    let newuser = nix::libc::CLONE_NEWUSER as u64;
    let clone_newuser = json!({"syscall": "clone", "args": [{"index": 0, "type": "qword", "op": {"masked_eq": newuser}, "val": newuser}]});
    let filters = vec![
        deny(&denied, &[json!({"syscall": "unshare"}), clone_newuser], nix::libc::EPERM as u32),
        deny(&["clone3"], &[], nix::libc::ENOSYS as u32),
    ];
    let (ready, mut child, log) = serve_filtered(dir.path(), filters);
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        !ready,
        "without user namespaces Chromium's sandbox cannot start, yet the runtime served:\n{log}"
    );
    assert!(log.contains("sandbox"), "the runtime's log says why the browser failed:\n{log}");
}

/// Issue 28 §1: a session id of `..` was accepted, and its `session.close` removed the whole artifacts
/// directory (every session's downloads and screenshots; with `--artifacts` the runtime dir, the socket
/// and the store). Ids that are not plain names are refused now, naming the rule, and nothing is
/// removed; a plain id's close removes its own directory only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_ids_that_look_like_paths_are_refused_and_remove_nothing() {
    let sup = Supervisor::start(&[]);
    let c = sup.client().await;
    let artifacts = sup.dir.path().join("artifacts");
    c.session_start(Some("keep")).await.unwrap();
    c.session_start(Some("gone")).await.unwrap();
    let marker = artifacts.join("marker.png");
    std::fs::write(&marker, b"another session's screenshot").unwrap();
    for bad in [".", "..", ".hidden", "-rf", "a/b", "../x", "/abs", ""] {
        let r = c.call("session.start", None, json!({"session_id": bad}), None).await.unwrap();
        let e = r.error.unwrap_or_else(|| panic!("{bad:?} was accepted"));
        assert_eq!(e.code, sb_protocol::ErrorCode::BadRequest, "{bad:?}: {e:?}");
        assert!(e.message.contains("never . or .."), "{bad:?}: {}", e.message);
    }
    c.session_close("gone").await.unwrap();
    assert!(marker.exists(), "the artifacts dir is intact");
    assert!(artifacts.join("downloads/keep").is_dir(), "the other session's downloads directory stays");
    assert!(!artifacts.join("downloads/gone").exists(), "the closed session's own directory went");
    assert_eq!(c.session_list().await.unwrap().sessions.len(), 1);
}

/// Issue 28 §4: whatever the umask the runtime starts with (022 here, as a shell's), its browser's
/// profile is 0700 (it was 0755) and its files 0600; the browser's temporary files go into the profile
/// (every launch left an `org.chromium.Chromium.*` directory in /tmp), and crash dumps are pointed
/// there too (they went under `$HOME/.config/chromium/Crash Reports`). On Debian's full Chromium
/// whatever `SB_TEST_CHROMIUM` says: the headless shell writes no `Local State`, makes no temporary
/// directories here and starts no crash handler.
#[test]
fn the_browsers_files_are_the_runtimes_only_and_stay_in_its_profile() {
    let old = nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o022));
    let sup = Supervisor::start(&["--browser", sb_supervisor::lifecycle::browser::DEBIAN_CHROMIUM]);
    nix::sys::stat::umask(old);
    let profile = std::fs::read_dir(sup.dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("chromium-profile-"))
        .expect("the browser's profile");
    assert_eq!(mode(&profile), 0o700, "{}", profile.display());
    assert_eq!(mode(&profile.join("Local State")), 0o600);
    let tmp: Vec<String> = std::fs::read_dir(profile.join("tmp"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(tmp.iter().any(|n| n.starts_with("org.chromium.Chromium.")), "{tmp:?}");
    let browser = sb_tests::descendant_naming(sup.pid(), "--crash-dumps-dir=").expect("the browser");
    let cmdline = std::fs::read_to_string(format!("/proc/{browser}/cmdline")).unwrap();
    assert!(cmdline.contains(&format!("--crash-dumps-dir={}", profile.join("crash").display())), "{cmdline}");
    // The crash handler's database (where a renderer's dump lands) is in the profile as well: it took
    // `$HOME/.config/chromium/Crash Reports` whatever the flags said.
    let handler = sb_tests::descendant_naming(sup.pid(), "--database=").expect("the crash handler");
    let cmdline = std::fs::read_to_string(format!("/proc/{handler}/cmdline")).unwrap().replace('\0', " ");
    let database = cmdline.split("--database=").nth(1).unwrap().split(" --").next().unwrap();
    assert!(Path::new(database).starts_with(&profile), "{database}");
}

/// Issue 28 §5: a runtime crowded with idle connections stays reachable. With every slot held,
/// `runtime.health` from a new connection is answered (a reserved slot: the container's health check
/// must not restart a runtime that is merely crowded) while anything else is refused; with
/// connections idle past `evict_idle_after_ms`, a newcomer closes the one idle longest (oldest first)
/// and is served; and an idle connection is closed after `idle_timeout_ms`. Each close is logged once.
#[test]
fn a_crowded_socket_answers_health_and_closes_idle_connections_oldest_first() {
    use std::io::Read;
    use std::os::unix::net::UnixStream;
    // Held, not idle long enough to be closed for a newcomer.
    let (held, _open) = crowded();
    let mut probe = UnixStream::connect(&held.socket).unwrap();
    let answer = request(&mut probe, "runtime.health");
    assert_eq!(answer["ok"], json!(true), "health is answered past the limit: {answer}");
    let mut other = UnixStream::connect(&held.socket).unwrap();
    let answer = request(&mut other, "session.list");
    assert_eq!(answer["error"]["code"], json!("too_many_connections"), "{answer}");

    // Idle connections: the oldest goes for a newcomer, the rest after the idle timeout.
    let idle = Supervisor::with_config(
        "[limits]\nmax_connections = 2\nevict_idle_after_ms = 0\nidle_timeout_ms = 2000\n",
    );
    let mut oldest = UnixStream::connect(&idle.socket).unwrap();
    assert_eq!(request(&mut oldest, "session.list")["ok"], json!(true));
    let mut newer = UnixStream::connect(&idle.socket).unwrap();
    assert_eq!(request(&mut newer, "session.list")["ok"], json!(true));
    let mut newcomer = UnixStream::connect(&idle.socket).unwrap();
    assert_eq!(request(&mut newcomer, "session.list")["ok"], json!(true), "the newcomer is served");
    let closed = |s: &mut UnixStream, what: &str| {
        s.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
        let mut rest = Vec::new();
        let n = s.read_to_end(&mut rest).unwrap_or_else(|e| panic!("{what} was not closed: {e}"));
        assert_eq!(n, 0, "{what}: {}", String::from_utf8_lossy(&rest));
    };
    closed(&mut oldest, "the oldest idle connection");
    assert_eq!(request(&mut newer, "session.list")["ok"], json!(true), "the newer one stays");
    closed(&mut newer, "an idle connection past idle_timeout_ms");
    idle.wait_for_log("both closes", |events| {
        events.iter().filter(|e| e["message"] == "connection_closed").count() >= 2
    });
    let reasons: Vec<String> = idle
        .log_events()
        .into_iter()
        .filter(|e| e["message"] == "connection_closed")
        .map(|e| e["reason"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        reasons.contains(&"idle_at_limit".to_string()) && reasons.contains(&"idle_timeout".to_string()),
        "{reasons:?}"
    );
}

/// Issue 28 §6: with `[limits] session_tokens`, a session belongs to the token it was started with: a
/// call without it or with another caller's answers `unknown_session` exactly as an unknown id does
/// (no oracle), `session.list` shows only the caller's sessions, and the clients carry the token by
/// themselves (the first `session.start`'s, adopted).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_session_tokens_a_session_belongs_to_its_caller() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config("[limits]\nsession_tokens = true\n");
    let alice = sup.client().await;
    let bob = sup.client().await;
    let started = alice.session_start(Some("a")).await.unwrap();
    assert_eq!(started.session_token.len(), 32, "{started:?}");
    assert_eq!(alice.token().as_deref(), Some(started.session_token.as_str()));
    bob.session_start(Some("b")).await.unwrap();
    assert_ne!(alice.token(), bob.token());
    let index = pages.url("/test/index.html");
    alice.goto("a", &index, None).await.unwrap();

    let unknown = |r: sb_protocol::api::Response| {
        let e = r.error.expect("refused");
        assert_eq!(e.code, sb_protocol::ErrorCode::UnknownSession);
        e.message
    };
    let nobody = unknown(bob.call("page.extract", Some("nobody"), json!({}), None).await.unwrap());
    let theirs = unknown(bob.call("page.extract", Some("a"), json!({}), None).await.unwrap());
    assert_eq!(theirs, nobody.replace("nobody", "a"), "the same answer as for an id that is not open");
    let anonymous = sup.client().await;
    unknown(anonymous.call("page.goto", Some("a"), json!({"url": index}), None).await.unwrap());
    unknown(anonymous.call("session.close", Some("a"), json!({}), None).await.unwrap());
    assert!(alice.extract("a", Default::default()).await.unwrap().content.contains("Hello"));

    let ids = |c: &sb_client::Client| {
        let c = c.clone();
        async move {
            let list = c.session_list().await.unwrap();
            list.sessions.iter().map(|s| s.session_id.clone()).collect::<Vec<_>>()
        }
    };
    assert_eq!(ids(&alice).await, ["a"]);
    assert_eq!(ids(&bob).await, ["b"]);
    assert!(ids(&anonymous).await.is_empty());
    // One agent, one token: alice's next session shares hers, and another client given it is alice.
    alice.session_start(Some("a2")).await.unwrap();
    let alice_again = sup.client().await.with_token(alice.token().unwrap());
    assert_eq!(ids(&alice_again).await, ["a", "a2"]);
    alice_again.session_close("a").await.unwrap();

    // Issue 56 §4: the browser's clipboard is one for all its sessions: with sessions kept apart, no
    // session is granted reading it (bob would read what alice's page copied).
    let grant = json!({"permissions": ["clipboard-write", "clipboard-read"]});
    let e =
        alice.call("page.emulate", Some("a2"), grant.clone(), None).await.unwrap().error.expect("refused");
    assert_eq!(e.code, sb_protocol::ErrorCode::BadRequest, "{e:?}");
    assert!(e.message.contains("clipboard-read"), "{}", e.message);
    let mut start = grant;
    start["session_id"] = json!("b2");
    let e = bob.call("session.start", None, start, None).await.unwrap().error.expect("refused");
    assert_eq!(e.code, sb_protocol::ErrorCode::BadRequest, "{e:?}");
    let allowed = json!({"permissions": ["clipboard-write"]});
    assert!(alice.call("page.emulate", Some("a2"), allowed, None).await.unwrap().ok);
}

/// Issue 53 §11: with `[limits] session_tokens`, each token's session ids are its own: bob starting
/// `main` while alice has a `main` starts bob's own (it answered `session_exists` before: an oracle of
/// alice's ids), each drives and lists only its own, each closes only its own, and the ids come back
/// as the agents gave them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_session_tokens_each_agent_has_its_own_session_ids() {
    let pages = PageServer::start(None).await;
    let sup = Supervisor::with_config("[limits]\nsession_tokens = true\n");
    let alice = sup.client().await;
    let bob = sup.client().await;
    assert_eq!(alice.session_start(Some("main")).await.unwrap().session_id, "main");
    let started = bob.session_start(Some("main")).await.unwrap();
    assert_eq!(started.session_id, "main", "bob's own main: {started:?}");
    let again = alice.call("session.start", None, json!({"session_id": "main"}), None).await.unwrap();
    assert_eq!(
        again.error.map(|e| e.code),
        Some(sb_protocol::ErrorCode::SessionExists),
        "alice's own is open"
    );
    alice.goto("main", &pages.url("/test/index.html"), None).await.unwrap();
    bob.goto("main", &pages.url("/test/form.html"), None).await.unwrap();
    let title = |c: &sb_client::Client| {
        let c = c.clone();
        async move { c.evaluate("main", "document.title", None).await.unwrap().into_inner().value }
    };
    assert_eq!(title(&alice).await, Some(json!("Test Index")));
    assert_ne!(title(&bob).await, Some(json!("Test Index")));
    let listed = bob.session_list().await.unwrap();
    let ids: Vec<&str> = listed.sessions.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, ["main"]);
    let closed = bob.call("session.close", Some("main"), json!({}), None).await.unwrap();
    assert_eq!(closed.result.unwrap()["session_id"], json!("main"));
    assert_eq!(title(&alice).await, Some(json!("Test Index")), "alice's main is still open");
    let gone = bob.call("page.extract", Some("main"), json!({}), None).await.unwrap();
    assert_eq!(gone.error.unwrap().message, "no open session 'main'; start one with session.start");
}

/// The supervisor's resident memory, bytes (`VmRSS`).
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap().split_whitespace().nth(1).unwrap();
    kb.parse::<u64>().unwrap() * 1024
}

/// Issue 28 §5, issue 57 §1: memory comes back after hostile input. Two thousand malformed frames
/// (pipelined batches of 500 over four connections at once, every other batch's clients closing
/// without reading their answers; then 48 unfinished lines of 1000 KiB: 100k-deep nesting, lines past the 1 MiB cap, 900 KB strings, wrong
/// types, hostile paths) raise the supervisor's RSS; within 5 s of the connections closing it is back
/// within 2x of its idle figure. `.ci/run` runs it on the release build too (`SB_TEST_BIN_DIR`). (The review's run that stayed at 108 MB did not reproduce on
/// this build: 10,000 such frames peaked at 29 MB from 20 MB idle; this holds the contract.)
#[test]
fn memory_comes_back_after_hostile_input() {
    use std::io::{Read, Write};
    let sup = Supervisor::start(&[]);
    let pid = sup.pid();
    let mut probe = std::os::unix::net::UnixStream::connect(&sup.socket).unwrap();
    request(&mut probe, "runtime.stats");
    let idle = rss(pid);
    let deep_object = format!(
        r#"{{"id":1,"method":"page.goto","params":{}1{}}}"#,
        r#"{"a":"#.repeat(50_000),
        "}".repeat(50_000)
    );
    let long_url =
        serde_json::json!({"id": 4, "method": "page.goto", "params": {"url": "x".repeat(900_000)}});
    let frames: Vec<Vec<u8>> = vec![
        "[".repeat(100_000).into_bytes(),
        deep_object.into_bytes(),
        vec![b'x'; 1100 * 1024],
        br#"{"id":"a","method":"session.start","params":{"session_id":"../../etc"}}"#.to_vec(),
        br#"{"id":2,"method":7}"#.to_vec(),
        br#"{"id":3,"method":"page.extract","session_id":"../x","params":{"max_chars":1e999}}"#.to_vec(),
        long_url.to_string().into_bytes(),
    ];
    let mut peak = idle;
    for batch in 0..4 {
        let senders: Vec<_> = (0..4)
            .map(|c| {
                let mut s = std::os::unix::net::UnixStream::connect(&sup.socket).unwrap();
                s.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
                let lines: Vec<u8> = (0..125)
                    .flat_map(|i| {
                        let mut f = frames[(batch * 7 + c * 3 + i) % frames.len()].clone();
                        f.push(b'\n');
                        f
                    })
                    .collect();
                std::thread::spawn(move || {
                    if batch % 2 == 1 {
                        // Closed without reading: the handlers finish after the connection ends.
                        let _ = s.write_all(&lines);
                        return;
                    }
                    let mut reader = s.try_clone().unwrap();
                    let drain = std::thread::spawn(move || {
                        let mut sink = [0u8; 1 << 16];
                        while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
                    });
                    let _ = s.write_all(&lines);
                    let _ = s.shutdown(std::net::Shutdown::Write);
                    drain.join().unwrap();
                })
            })
            .collect();
        for t in senders {
            t.join().unwrap();
        }
        peak = peak.max(rss(pid));
    }
    // And 48 lines of 1000 KiB left unfinished on connections of their own, then closed.
    let parked: Vec<_> = (0..48)
        .map(|_| {
            let mut s = std::os::unix::net::UnixStream::connect(&sup.socket).unwrap();
            let mut line = br#"{"id":1,"method":""#.to_vec();
            line.resize(1000 * 1024, b'y');
            let _ = s.write_all(&line);
            s
        })
        .collect();
    request(&mut probe, "runtime.stats");
    peak = peak.max(rss(pid));
    drop(parked);
    drop(probe);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let mut now = rss(pid);
    while now > 2 * idle && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
        now = rss(pid);
    }
    let mb = |b: u64| b as f64 / (1024.0 * 1024.0);
    eprintln!("rss: idle {:.1} MB, peak {:.1} MB, after {:.1} MB", mb(idle), mb(peak), mb(now));
    assert!(
        now <= 2 * idle,
        "idle {:.1} MB, peak {:.1} MB, 5 s after the connections closed {:.1} MB",
        mb(idle),
        mb(peak),
        mb(now)
    );
    // And it still answers.
    let mut s = std::os::unix::net::UnixStream::connect(&sup.socket).unwrap();
    assert_eq!(request(&mut s, "runtime.stats")["ok"], serde_json::json!(true));
}

/// Issue 28 §2: a page's WebSocket is held to the URL policy (the Fetch domain never sees its
/// handshake): one to a blocked network and one to a blocked origin never reach their servers, one to
/// an allowed origin opens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websockets_are_held_to_the_url_policy() {
    let pages = PageServer::start(None).await;
    let (open_port, open_seen) = ws_server("127.0.0.1").await;
    let (network_port, network_seen) = ws_server("127.0.0.2").await;
    let (origin_port, origin_seen) = ws_server("127.0.0.1").await;
    let sup = Supervisor::with_config(&format!(
        "[policy]\nblocked_networks = [\"127.0.0.2/32\"]\nblocked_origins = [\"http://127.0.0.1:{origin_port}\"]\n"
    ));
    let c = sup.client().await;
    c.session_start(Some("w")).await.unwrap();
    c.goto("w", &pages.url("/test/index.html"), None).await.unwrap();
    let socket = |url: String| {
        let c = c.clone();
        async move {
            let script = format!(
                "new Promise((r) => {{ const w = new WebSocket({url:?}); w.onopen = () => r('open'); w.onerror = () => r('error'); }})"
            );
            c.evaluate("w", &script, None).await.unwrap().into_inner().value.unwrap()
        }
    };
    assert_eq!(socket(format!("ws://127.0.0.2:{network_port}/")).await, json!("error"));
    assert_eq!(socket(format!("ws://127.0.0.1:{origin_port}/")).await, json!("error"));
    assert_eq!(socket(format!("ws://127.0.0.1:{open_port}/")).await, json!("open"));
    use std::sync::atomic::Ordering::SeqCst;
    assert_eq!((network_seen.load(SeqCst), origin_seen.load(SeqCst)), (0, 0), "blocked servers saw nothing");
    assert_eq!(open_seen.load(SeqCst), 1);
    sup.settle_log(&c).await;
    let log = sup.log_text();
    assert!(log.contains("url_blocked") && log.contains("127.0.0.2 is in the blocked network"), "{log}");
}

/// A DNS server on `127.0.0.1:53` (UDP) for the rebinding test: a name's first A query (and the AAAA
/// queries beside it) answers NXDOMAIN, its later A queries the address `answer` gives for the name,
/// its later AAAA queries no address.
fn rebinding_dns(answer: fn(&str) -> Option<std::net::Ipv4Addr>) {
    let socket = std::net::UdpSocket::bind("127.0.0.1:53").expect("bind 127.0.0.1:53 in the namespace");
    std::thread::spawn(move || {
        let mut asked: std::collections::HashMap<String, usize> = Default::default();
        let mut buf = [0u8; 512];
        while let Ok((n, from)) = socket.recv_from(&mut buf) {
            let q = &buf[..n];
            // The question: labels from byte 12, then QTYPE and QCLASS.
            let (mut at, mut labels) = (12, Vec::new());
            while at < n && q[at] != 0 {
                let len = q[at] as usize;
                labels.push(String::from_utf8_lossy(&q[at + 1..(at + 1 + len).min(n)]).to_lowercase());
                at += 1 + len;
            }
            let end = at + 5;
            if end > n {
                continue;
            }
            let qtype = u16::from_be_bytes([q[at + 1], q[at + 2]]);
            let a_queries = asked.entry(labels.join(".")).or_default();
            *a_queries += usize::from(qtype == 1);
            let address = if *a_queries <= 1 { None } else { answer(&labels.join(".")) };
            let mut r = q[..end].to_vec();
            r[2] = 0x80 | (q[2] & 0x01); // a response; RD as asked
            let nxdomain = *a_queries <= 1 || (qtype == 1 && address.is_none());
            r[3] = 0x80 | if nxdomain { 3 } else { 0 };
            r[6..12].copy_from_slice(&[0; 6]);
            if let (1, Some(ip)) = (qtype, address) {
                r[7] = 1;
                r.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4]);
                r.extend_from_slice(&ip.octets());
            }
            let _ = socket.send_to(&r, from);
        }
    });
}

/// An HTTP server at `addr` that answers every request `secret` (readable cross-origin): its port and
/// the count of connections it accepted.
async fn counting_server(addr: &str) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap_or_else(|e| panic!("bind {addr}: {e}"));
    let port = listener.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
                let head = "HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: 6\r\nConnection: close\r\n\r\n";
                let _ = stream.write_all(format!("{head}secret").as_bytes()).await;
            });
        }
    });
    (port, seen)
}

/// Issue 53 §1: a name whose first DNS answer is NXDOMAIN and whose later answers are the metadata
/// address (or `0.0.0.0`, which reaches the loopback) reaches neither under the default policy: the
/// connection gate connects only to addresses its own check saw, and a name that resolved to nothing
/// fails as `net::ERR_NAME_NOT_RESOLVED` without a second, unchecked lookup. Runs in a network and
/// mount namespace of its own (`unshare -nm`: `lo` up with `169.254.169.254/32` on it, a DNS server of
/// the test's on 127.0.0.1:53, `/etc/resolv.conf` bind-mounted there only).
#[test]
fn a_name_that_failed_to_resolve_reaches_no_address_nobody_checked() {
    const INSIDE: &str = "SB_TEST_IN_NAMESPACE";
    if std::env::var_os(INSIDE).is_some() {
        let events =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        return events.block_on(rebinding_inside_the_namespace());
    }
    let dir = temp_dir();
    let resolv = dir.path().join("resolv.conf");
    std::fs::write(&resolv, "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n").unwrap();
    let me = std::env::current_exe().unwrap();
    // This test's name in its binary (`sealed::a_name_...`): the test harness names its thread so.
    let name = std::thread::current().name().unwrap().to_string();
    let script = format!(
        "ip link set lo up && ip addr add 169.254.169.254/32 dev lo && mount --bind '{}' /etc/resolv.conf && exec '{}' --exact '{name}' --nocapture",
        resolv.display(),
        me.display()
    );
    let mut unshare = Command::new("unshare");
    if !nix::unistd::geteuid().is_root() {
        // A user namespace of its own maps the test's uid to root there, for `ip` and `mount`.
        unshare.arg("-r");
    }
    let out = unshare.args(["-n", "-m", "--", "sh", "-c", &script]).env(INSIDE, "1").output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "in the namespace:\n{text}");
}

async fn rebinding_inside_the_namespace() {
    rebinding_dns(|name| match name {
        n if n.starts_with("rebind") => Some(std::net::Ipv4Addr::new(169, 254, 169, 254)),
        n if n.starts_with("zero") => Some(std::net::Ipv4Addr::UNSPECIFIED),
        _ => None,
    });
    let (_, metadata) = counting_server("169.254.169.254:80").await;
    let (loopback_port, zero_seen) = counting_server("127.0.0.1:0").await;
    let pages = PageServer::start(None).await;
    let sup = Supervisor::start(&[]);
    let c = sup.client().await;
    c.session_start(Some("r")).await.unwrap();
    c.goto("r", &pages.url("/test/index.html"), None).await.unwrap();
    let run = |script: String| {
        let c = c.clone();
        async move { c.evaluate("r", &script, None).await.unwrap().into_inner().value.unwrap() }
    };
    let fetch =
        |url: String| run(format!("fetch({url:?}).then((r) => r.text(), (e) => 'failed: ' + e.message)"));
    let socket = |url: &str| {
        run(format!(
            "new Promise((r) => {{ const w = new WebSocket({url:?}); w.onopen = () => r('open'); w.onerror = () => r('error'); }})"
        ))
    };
    // First lookups answer NXDOMAIN: a plain request, a tunnel (a WebSocket), and a name whose next
    // answer is 0.0.0.0. Then each name again, now answering the blocked address itself.
    for round in 0..2 {
        let got = fetch("http://rebind.test/secret".into()).await;
        assert!(got.as_str().is_some_and(|t| t.starts_with("failed")), "round {round}: the page read {got}");
        assert_eq!(socket("ws://rebind-ws.test/").await, json!("error"), "round {round}");
        let got = fetch(format!("http://zero.test:{loopback_port}/secret")).await;
        assert!(got.as_str().is_some_and(|t| t.starts_with("failed")), "round {round}: the page read {got}");
    }
    use std::sync::atomic::Ordering::SeqCst;
    assert_eq!(metadata.load(SeqCst), 0, "the metadata address was reached");
    assert_eq!(zero_seen.load(SeqCst), 0, "0.0.0.0 reached the loopback");
    // A navigation to a name that never resolves answers as the browser's own resolver would; one to
    // a rebinding name is refused by the rule its next answer meets (page.goto's own check took the
    // NXDOMAIN, the gate's the metadata address).
    let goto = |url: &'static str| {
        let c = c.clone();
        async move { c.call("page.goto", Some("r"), json!({"url": url}), None).await.unwrap().error.expect(url) }
    };
    let e = goto("http://gone.test/").await;
    assert!(e.message.contains("ERR_NAME_NOT_RESOLVED"), "{e:?}");
    let e = goto("http://rebind-nav.test/").await;
    assert!(e.code == sb_protocol::ErrorCode::UrlBlocked && e.message.contains("169.254.0.0/16"), "{e:?}");
}

/// Issue 53 §2 and §5: with `[limits] session_tokens`, one agent's files are out of another's reach:
/// agent B cannot load the state agent A saved (and its HttpOnly cookie), B's save under A's name
/// replaces nothing of A's, and B cannot load A's screenshot as a state; each kind of file has its own
/// directory, so with the artifacts dir at the runtime dir a save named like the socket or the session
/// store touches neither, and a name holding a control character is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_agents_files_are_out_of_anothers_reach() {
    let pages = PageServer::start(None).await;
    let dir = temp_dir();
    let state = dir.path().join("state");
    let mut args = Supervisor::config_args(&dir, "[limits]\nsession_tokens = true\n");
    args.extend(["--runtime-dir".into(), state.display().to_string()]);
    args.extend(["--artifacts".into(), state.display().to_string()]);
    let sup = Supervisor::start_in(dir, &args.iter().map(String::as_str).collect::<Vec<_>>());
    let (alice, bob) = (sup.client().await, sup.client().await);
    alice.session_start(Some("a")).await.unwrap();
    bob.session_start(Some("b")).await.unwrap();
    alice.goto("a", &pages.url("/test/set-cookie/alices"), None).await.unwrap();
    let call = |c: &sb_client::Client, sid: &'static str, method: &'static str, params: serde_json::Value| {
        let c = c.clone();
        async move { c.call(method, Some(sid), params, None).await.unwrap() }
    };
    let saved =
        call(&alice, "a", "session.storage_state", json!({"action": "save", "name": "login.json"})).await;
    let alices_file = saved.result.expect("alice saves")["path"].as_str().unwrap().to_string();
    let shot = call(&alice, "a", "page.screenshot", json!({})).await.result.unwrap();
    let shot_name =
        Path::new(shot["path"].as_str().unwrap()).file_name().unwrap().to_str().unwrap().to_string();

    // Bob loads neither alice's state nor her screenshot, by name or at session.start.
    for name in ["login.json", shot_name.as_str()] {
        let r = call(&bob, "b", "session.storage_state", json!({"action": "load", "name": name})).await;
        let e = r.error.unwrap_or_else(|| panic!("bob loaded alice's {name}"));
        assert!(e.message.contains("no file"), "{e:?}");
    }
    let r = bob.call("session.start", None, json!({"session_id": "b2", "storage_state": "login.json"}), None);
    assert!(r.await.unwrap().error.is_some(), "bob started from alice's state");
    // Bob's save under alice's name is his own file; alice's is as she wrote it.
    let before = std::fs::read(&alices_file).unwrap();
    let r = call(&bob, "b", "session.storage_state", json!({"action": "save", "name": "login.json"})).await;
    let bobs_file = r.result.expect("bob saves")["path"].as_str().unwrap().to_string();
    assert_ne!(bobs_file, alices_file);
    assert_eq!(std::fs::read(&alices_file).unwrap(), before, "bob's save replaced alice's file");
    assert!(String::from_utf8_lossy(&before).contains("alices"), "alice's HttpOnly cookie is in her file");
    assert!(!std::fs::read_to_string(&bobs_file).unwrap().contains("alices"));

    // Names of the runtime's own files, and control characters.
    let socket_inode = std::fs::metadata(&sup.socket).unwrap().ino();
    let store_before = std::fs::read(state.join("sessions.jsonl")).unwrap();
    for name in ["browser.sock", "sessions.jsonl"] {
        let r = call(&alice, "a", "session.storage_state", json!({"action": "save", "name": name})).await;
        let path = r.result.expect("a save under any plain name")["path"].as_str().unwrap().to_string();
        assert!(path.contains("/owners/") && path.contains("/states/"), "{path}");
    }
    assert_eq!(std::fs::metadata(&sup.socket).unwrap().ino(), socket_inode, "the socket was replaced");
    let store = std::fs::read(state.join("sessions.jsonl")).unwrap();
    assert!(store.starts_with(&store_before), "the session store was replaced");
    let r = call(&alice, "a", "session.storage_state", json!({"action": "save", "name": "a\nb.json"})).await;
    assert!(r.error.expect("a newline in a name").message.contains("control characters"));
    // And the socket still serves.
    assert!(sup.client().await.session_list().await.is_ok());
}

/// Issue 53 §6: an uploads dir another uid can write to, or owns, is refused (`serve` exits naming
/// it), as the runtime dir is; a file `page.upload` gave a page is the file that was checked: one
/// swapped for another (a symlink to the session store) after the upload is not what the page reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uploads_dir_others_can_write_is_refused_and_an_uploaded_file_cannot_be_swapped() {
    let base = temp_dir();
    let uploads = base.path().join("uploads");
    std::fs::create_dir(&uploads).unwrap();
    let serve_with = |dir: &Path| {
        let config = base.path().join("uploads.toml");
        std::fs::write(&config, format!("[files]\nuploads_dir = {:?}\n", dir.display().to_string())).unwrap();
        let mut serve = Command::new(bin_path("sandbox-browser"))
            .args(["serve", "--socket"])
            .arg(base.path().join("refused.sock"))
            .arg("--runtime-dir")
            .arg(base.path().join("refused-run"))
            .arg("--config")
            .arg(&config)
            .env_remove("SANDBOX_BROWSER_CONFIG")
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // It must exit before it serves; one that serves is stopped and the test fails.
        let (tx, rx) = std::sync::mpsc::channel();
        let mut pipe = serve.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut pipe, &mut text);
            let _ = tx.send(text);
        });
        let Ok(stderr) = rx.recv_timeout(std::time::Duration::from_secs(30)) else {
            let _ = serve.kill();
            let _ = serve.wait();
            panic!("serve started with the uploads dir {}", dir.display());
        };
        (serve.wait().unwrap(), stderr)
    };
    std::fs::set_permissions(&uploads, std::fs::Permissions::from_mode(0o777)).unwrap();
    let (status, stderr) = serve_with(&uploads);
    assert!(!status.success() && stderr.contains("writable by other users"), "{stderr}");
    assert!(stderr.contains(uploads.to_str().unwrap()), "names the directory: {stderr}");
    if nix::unistd::geteuid().is_root() {
        let theirs = base.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        nix::unistd::chown(&theirs, Some(nix::unistd::Uid::from_raw(65534)), None).unwrap();
        let (status, stderr) = serve_with(&theirs);
        assert!(!status.success() && stderr.contains("belongs to uid 65534"), "{stderr}");
    }

    std::fs::set_permissions(&uploads, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::write(uploads.join("cv.txt"), "the agent's own file").unwrap();
    let pages = PageServer::start(None).await;
    let sup =
        Supervisor::with_config(&format!("[files]\nuploads_dir = {:?}\n", uploads.display().to_string()));
    let c = sup.client().await;
    c.session_start(Some("u")).await.unwrap();
    c.goto("u", &pages.url("/test/upload.html"), None).await.unwrap();
    let set = c.call("page.upload", Some("u"), json!({"selector": "#resume", "files": ["cv.txt"]}), None);
    assert!(set.await.unwrap().ok);
    // Swapped after the check: a symlink to the runtime's own session store now has the name.
    std::fs::remove_file(uploads.join("cv.txt")).unwrap();
    std::os::unix::fs::symlink(sup.dir.path().join("sessions.jsonl"), uploads.join("cv.txt")).unwrap();
    let read = "document.getElementById('resume').files[0].text()";
    let got = c.call("page.evaluate", Some("u"), json!({"expression": read}), None).await.unwrap();
    assert_eq!(got.result.expect("the page reads its file")["value"], json!("the agent's own file"));
}

/// Issue 53 §7: a page's WebRTC sends no UDP past the URL policy: an `RTCPeerConnection` whose ICE
/// server is `stun:127.0.0.1:PORT` (a UDP listener of the test's) reaches the listener with no packet.
/// The browser's processes can open no UDP socket over IP (a seccomp filter, in force in the browser's
/// process: `Seccomp: 2` in its status); the full browser also has
/// `--webrtc-ip-handling-policy=disable_non_proxied_udp`, which the headless shell does not read.
/// Without them the 20-byte STUN request arrives within about 100 ms of the offer (measured); the page
/// gives it 3 s (or until its gathering ends, as it does at once in the full browser).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webrtc_sends_no_udp_past_the_policy() {
    let listener = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let pages = PageServer::start(None).await;
    for toml in
        ["", &*format!("[browser]\npath = {:?}\n", sb_supervisor::lifecycle::browser::DEBIAN_CHROMIUM)]
    {
        let sup = Supervisor::with_config(toml);
        let c = sup.client().await;
        let pid = c.health().await.unwrap().browser_pid;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        assert!(status.lines().any(|l| l == "Seccomp:\t2"), "the browser runs under its filter: {status}");
        c.session_start(Some("rtc")).await.unwrap();
        c.goto("rtc", &pages.url("/test/index.html"), None).await.unwrap();
        let script = format!(
            "new Promise((done) => {{ \
               const pc = new RTCPeerConnection({{ iceServers: [{{ urls: 'stun:127.0.0.1:{port}' }}] }}); \
               pc.createDataChannel('x'); \
               pc.onicegatheringstatechange = () => {{ if (pc.iceGatheringState === 'complete') done('complete'); }}; \
               setTimeout(() => done(pc.iceGatheringState), 3000); \
               pc.createOffer().then((o) => pc.setLocalDescription(o)); }})"
        );
        let mut buf = [0u8; 1500];
        tokio::select! {
            got = listener.recv_from(&mut buf) => panic!("{toml}: a STUN packet reached the listener: {got:?}"),
            r = c.call("page.evaluate", Some("rtc"), json!({"expression": script}), Some(30_000)) => {
                assert!(r.unwrap().ok, "{toml}");
            }
        }
        assert!(listener.try_recv_from(&mut buf).is_err(), "{toml}: a STUN packet reached the listener");
    }
}

/// A supervisor at its limit of two connections, both taken (in use, not idle long enough to be
/// closed for a newcomer), and those connections.
fn crowded() -> (Supervisor, Vec<std::os::unix::net::UnixStream>) {
    let sup = Supervisor::with_config("[limits]\nmax_connections = 2\nevict_idle_after_ms = 60000\n");
    let mut open: Vec<_> =
        (0..2).map(|_| std::os::unix::net::UnixStream::connect(&sup.socket).unwrap()).collect();
    for s in &mut open {
        assert_eq!(request(s, "session.list")["ok"], json!(true));
    }
    (sup, open)
}

/// Issue 53 §9: the container's health check always gets its answer: with every connection taken
/// and clients re-taking the reserved slots as fast as they are closed (four connections that send
/// nothing, each made again once closed; one locked the single reserved slot before), 21
/// `runtime.health` probes in a row are each answered.
#[test]
fn a_client_re_taking_the_reserved_slots_never_locks_the_health_check_out() {
    use std::io::Read;
    use std::os::unix::net::UnixStream;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (sup, _busy) = crowded();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let hoarders: Vec<_> = (0..4)
        .map(|_| {
            let (socket, stop) = (sup.socket.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    // Connect, send nothing, hold it until the runtime closes it; again.
                    if let Ok(mut s) = UnixStream::connect(&socket) {
                        let _ = s.read_to_end(&mut Vec::new());
                    }
                }
            })
        })
        .collect();
    let mut answered = 0;
    for _ in 0..21 {
        let mut probe = UnixStream::connect(&sup.socket).unwrap();
        probe.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
        if request(&mut probe, "runtime.health")["ok"] == json!(true) {
            answered += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for h in hoarders {
        h.join().unwrap();
    }
    assert_eq!(answered, 21, "runtime.health probes answered past the limit");
}

/// Session `e`'s page loads an image from `url`, which must fail to load; its `page.network` entry,
/// which must have no status (the gate answered nothing of its own).
async fn failed_image(c: &sb_client::Client, url: &str) -> serde_json::Value {
    let image = format!(
        "new Promise((done) => {{ const i = new Image(); i.onload = () => done('loaded'); i.onerror = () => done('failed'); i.src = '{url}'; }})"
    );
    let got = c.call("page.evaluate", Some("e"), json!({"expression": image}), None).await.unwrap();
    assert_eq!(got.result.unwrap()["value"], json!("failed"));
    let listed = c.call("page.network", Some("e"), json!({"include_static": true}), None).await.unwrap();
    let listed = listed.result.unwrap();
    let request = listed["requests"].as_array().unwrap().iter().find(|r| r["url"] == url);
    let request = request.unwrap_or_else(|| panic!("{listed}")).clone();
    assert!(request["status"].is_null(), "{listed}");
    request
}

/// Issue 54: an upstream that fails looks to the page as it would without the gate: a server that
/// closes each connection without answering gives a navigation `net::ERR_EMPTY_RESPONSE` (no page of
/// the gate's own: it answered 502, a response the page loaded) and `page.network` a failed request
/// with no status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_closes_unanswered_fails_as_without_the_gate() {
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            // Reads the request, then closes: no status line, nothing.
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
            });
        }
    });
    let pages = PageServer::start(None).await;
    let sup = Supervisor::start(&[]);
    let c = sup.client().await;
    c.session_start(Some("e")).await.unwrap();
    let url = format!("http://127.0.0.1:{port}/closes");
    let r = c.call("page.goto", Some("e"), json!({"url": url}), None).await.unwrap();
    let e = r.error.unwrap_or_else(|| panic!("the navigation loaded: {:?}", r.result));
    assert!(e.message.contains("ERR_EMPTY_RESPONSE"), "{e:?}");
    c.goto("e", &pages.url("/test/index.html"), None).await.unwrap();
    let request = failed_image(&c, &format!("http://127.0.0.1:{port}/closes.png")).await;
    assert!(request["failure"].as_str().unwrap_or_default().contains("ERR_EMPTY_RESPONSE"), "{request}");
}

/// Issue 54: a refused connection and a reset one fail through the gate as without it: a navigation
/// answers `net::ERR_CONNECTION_REFUSED` / `net::ERR_CONNECTION_RESET` (not the `ERR_EMPTY_RESPONSE`
/// the browser sees when the gate closes its connection), and `page.network` lists the failed
/// request with that error and no status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_and_reset_upstreams_fail_as_without_the_gate() {
    use tokio::io::AsyncReadExt;
    let refused = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let reset = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            // Reads the request, then resets the connection (SO_LINGER 0: an RST, not a FIN).
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
                let stream = stream.into_std().unwrap();
                socket2::SockRef::from(&stream).set_linger(Some(std::time::Duration::ZERO)).unwrap();
            });
        }
    });
    let pages = PageServer::start(None).await;
    let sup = Supervisor::start(&[]);
    let c = sup.client().await;
    c.session_start(Some("e")).await.unwrap();
    for (port, wanted) in [(refused, "net::ERR_CONNECTION_REFUSED"), (reset, "net::ERR_CONNECTION_RESET")] {
        let url = format!("http://127.0.0.1:{port}/page");
        let r = c.call("page.goto", Some("e"), json!({"url": url}), None).await.unwrap();
        let e = r.error.unwrap_or_else(|| panic!("{url} loaded: {:?}", r.result));
        assert!(e.message.contains(wanted), "{url}: {e:?}");
        c.goto("e", &pages.url("/test/index.html"), None).await.unwrap();
        let request = failed_image(&c, &format!("http://127.0.0.1:{port}/x.png")).await;
        assert_eq!(request["failure"], json!(wanted), "{request}");
    }
}

/// Issue 54: an upstream whose connect times out fails through the gate as without it: the navigation
/// answers `net::ERR_CONNECTION_TIMED_OUT` (not `ERR_EMPTY_RESPONSE`, what the browser sees when the
/// gate closes its connection) once the gate's connect time is up, and `page.network` lists the failed
/// document request with that error and no status. The black hole is a listener of backlog 0 whose
/// one queued connection is never accepted: the kernel drops every later SYN, as a firewall's DROP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_whose_connect_times_out_fails_as_without_the_gate() {
    let hole = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    hole.bind(&"127.0.0.1:0".parse::<std::net::SocketAddr>().unwrap().into()).unwrap();
    hole.listen(0).unwrap();
    let addr = hole.local_addr().unwrap().as_socket().unwrap();
    let _queued = std::net::TcpStream::connect(addr).unwrap();
    // The queue is full: a second connect is not answered.
    let second = std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_millis(300));
    assert!(second.is_err(), "the listener still takes connections");
    let sup = Supervisor::start(&[]);
    let c = sup.client().await;
    c.session_start(Some("e")).await.unwrap();
    let url = format!("http://{addr}/page");
    let r = c.call("page.goto", Some("e"), json!({"url": url}), Some(30_000)).await.unwrap();
    let e = r.error.unwrap_or_else(|| panic!("{url} loaded: {:?}", r.result));
    assert!(e.message.contains("net::ERR_CONNECTION_TIMED_OUT"), "{e:?}");
    let listed = c.call("page.network", Some("e"), json!({"include_static": true}), None).await.unwrap();
    let listed = listed.result.unwrap();
    let request = listed["requests"].as_array().unwrap().iter().find(|r| r["url"] == url);
    let request = request.unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(request["failure"], json!("net::ERR_CONNECTION_TIMED_OUT"), "{request}");
    assert!(request["status"].is_null(), "{request}");
}

/// A tmpfs of `kib` KiB mounted at `dir` for the test's life (root only), unmounted when dropped.
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(dir: &Path, kib: u32) -> SmallDisk {
        std::fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k,mode=0700"), "tmpfs"])
            .arg(dir)
            .status()
            .unwrap()
            .success();
        assert!(ok, "mount a tmpfs at {}", dir.display());
        SmallDisk(dir.to_path_buf())
    }

    /// Fills it: a file that takes every free block.
    fn fill(&self) {
        use std::io::Write;
        let mut f = std::fs::File::create(self.0.join("filler")).unwrap();
        while f.write_all(&[0u8; 4096]).is_ok() {}
    }

    fn free(&self) {
        std::fs::remove_file(self.0.join("filler")).unwrap();
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Issue 57 §6: with the artifacts dir full (a small tmpfs of the test's own), a screenshot, a PDF, a
/// storage state and a trace report answer `disk_full` (not retryable, naming the file; no partial file
/// left), the session goes on, and once there is room again the same calls work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_artifacts_disk_answers_disk_full_and_the_session_goes_on() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: mounting a small tmpfs needs root");
        return;
    }
    let pages = PageServer::start(None).await;
    let dir = temp_dir();
    let artifacts = dir.path().join("artifacts");
    let disk = SmallDisk::mount(&artifacts, 1024);
    let args = ["--artifacts", artifacts.to_str().unwrap()];
    let sup = Supervisor::start_in(dir, &args);
    let c = sup.client().await;
    c.session_start(Some("full")).await.unwrap();
    c.goto("full", &pages.url("/test/index.html"), None).await.unwrap();
    let trace = json!({"action": "start"});
    assert!(c.call("session.trace", Some("full"), trace, None).await.unwrap().ok);
    disk.fill();
    for (method, params) in [
        ("page.screenshot", json!({"full_page": true})),
        ("page.pdf", json!({})),
        ("session.storage_state", json!({"action": "save", "name": "login.json"})),
        ("session.trace", json!({"action": "stop", "name": "run"})),
    ] {
        let r = c.call(method, Some("full"), params, None).await.unwrap();
        let e = r.error.unwrap_or_else(|| panic!("{method} wrote on a full disk: {:?}", r.result));
        assert_eq!(e.code, sb_protocol::ErrorCode::DiskFull, "{method}: {e:?}");
        assert!(!e.retryable && e.message.contains("No space left"), "{method}: {e:?}");
    }
    let partial: Vec<_> = walk(&artifacts)
        .into_iter()
        .filter(|p| !p.ends_with("filler"))
        .filter(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && p.extension().is_none_or(|e| e != "jsonl"))
        })
        .collect();
    assert!(partial.is_empty(), "no partial file is left: {partial:?}");
    // The session goes on; with room again, the same calls work.
    assert!(c.extract("full", Default::default()).await.unwrap().content.contains("Hello"));
    disk.free();
    for (method, params) in [
        ("page.screenshot", json!({})),
        ("page.pdf", json!({})),
        ("session.storage_state", json!({"action": "save", "name": "login.json"})),
    ] {
        let r = c.call(method, Some("full"), params, None).await.unwrap();
        assert!(r.ok, "{method}: {:?}", r.error);
    }
}
