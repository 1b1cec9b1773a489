//! Operators (issue 6): `sandbox-browser doctor` (table, `--json`, `--probe`) and the container
//! entrypoint, run directly on the host with environment variables (no Docker engine needed).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use sb_tests::{bin_path, temp_dir, Supervisor};
use serde_json::Value;

fn doctor(args: &[&str]) -> Output {
    Command::new(bin_path("sandbox-browser"))
        .arg("doctor")
        .args(args)
        .env_remove("SANDBOX_BROWSER_CONFIG")
        .env_remove("SANDBOX_BROWSER_CHROMIUM")
        .env_remove("SANDBOX_BROWSER_SOCKET")
        .env_remove("SANDBOX_BROWSER_RUNTIME_DIR")
        .env_remove("SANDBOX_BROWSER_ARTIFACTS")
        .output()
        .expect("run doctor")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A config file that keeps every path of the doctor inside `dir`.
fn local_config(dir: &tempfile::TempDir, extra: &str) -> String {
    let path = dir.path().join("doctor.toml");
    let toml = format!("{extra}\n[paths]\nsocket = \"{}/sock/browser.sock\"\n", dir.path().display());
    std::fs::write(&path, toml).unwrap();
    path.display().to_string()
}

fn checks(o: &Output) -> Vec<Value> {
    let report: Value = serde_json::from_str(stdout(o).trim()).expect("doctor --json prints one JSON object");
    report["checks"].as_array().expect("checks").clone()
}

fn check<'a>(checks: &'a [Value], name: &str) -> &'a Value {
    checks.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no check {name}: {checks:?}"))
}

#[test]
fn doctor_passes_on_a_healthy_machine() {
    let dir = temp_dir();
    let config = local_config(&dir, "");
    let out = doctor(&["--config", &config, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let checks = checks(&out);
    for name in [
        "config",
        "browser_binary",
        "sandbox",
        "dev_shm",
        "fonts",
        "runtime_dir",
        "socket_dir",
        "artifacts_dir",
        "browser_launch",
        "worker",
    ] {
        let c = check(&checks, name);
        assert!(c["status"] == "pass" || c["status"] == "warn", "{c}");
        assert!(c["duration_ms"].is_u64());
        if c["status"] == "warn" {
            assert!(!c["fix"].as_str().unwrap_or_default().is_empty(), "a warning says how to fix it: {c}");
        }
    }
    assert!(check(&checks, "browser_binary")["detail"].as_str().unwrap().contains("Chromium"));
    let launch = check(&checks, "browser_launch")["detail"].as_str().unwrap().to_string();
    assert!(launch.contains("ready in") && launch.contains("no DevTools port"), "{launch}");
    assert_eq!(check(&checks, "browser_launch")["status"], "pass");
    assert_eq!(check(&checks, "worker")["status"], "pass");
    assert!(checks.iter().all(|c| c["name"] != "supervisor"), "no --socket: no supervisor is asked");
    // The table form of the same run.
    let table = doctor(&["--config", &config]);
    let text = stdout(&table);
    assert_eq!(table.status.code(), Some(0), "{text}");
    assert!(text.starts_with("CHECK"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("browser_launch") && l.contains("pass")), "{text}");
    assert!(text.trim_end().lines().last().unwrap().starts_with("ok ("), "{text}");
}

#[test]
fn doctor_with_a_missing_browser_fails_with_the_fix() {
    let dir = temp_dir();
    let config = local_config(&dir, "");
    let out = doctor(&["--config", &config, "--browser", "/nonexistent/chromium"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let row = text.lines().find(|l| l.starts_with("browser_binary")).expect("a browser_binary row");
    assert!(row.contains("fail") && row.contains("/nonexistent/chromium"), "{text}");
    assert!(text.contains("fix: apt-get install chromium"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("browser_launch") && l.contains("skip")), "{text}");
    assert!(text.trim_end().lines().last().unwrap().starts_with("1 failed"), "{text}");

    let json = doctor(&["--config", &config, "--browser", "/nonexistent/chromium", "--json"]);
    assert_eq!(json.status.code(), Some(1));
    let report: Value = serde_json::from_str(stdout(&json).trim()).unwrap();
    assert_eq!(report["ok"], false);
}

#[test]
fn doctor_names_the_bad_key_of_a_config_file() {
    let dir = temp_dir();
    let config = local_config(&dir, "[browser]\nheadles = true\n");
    let out = doctor(&["--config", &config, "--json", "--quick"]);
    assert_eq!(out.status.code(), Some(1));
    let checks = checks(&out);
    let c = check(&checks, "config");
    assert_eq!(c["status"], "fail");
    let detail = c["detail"].as_str().unwrap();
    assert!(detail.contains("headles") && detail.contains("doctor.toml"), "{detail}");
    assert!(checks.iter().all(|c| c["name"] != "browser_launch"), "--quick launches nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_probe_against_a_supervisor_and_against_none() {
    let sup = Supervisor::start(&[]);
    let socket = sup.socket.display().to_string();
    let out = doctor(&["--probe", "--socket", &socket]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let line = stdout(&out);
    assert!(line.starts_with("ok: ") && line.contains("Chrome/") && line.contains("0 sessions"), "{line}");
    let json = doctor(&["--probe", "--socket", &socket, "--json"]);
    assert_eq!(check(&checks(&json), "supervisor")["status"], "pass");

    // The full doctor with --socket asks the supervisor too.
    let dir = temp_dir();
    let config = local_config(&dir, "");
    let full = doctor(&["--config", &config, "--socket", &socket, "--json"]);
    assert_eq!(full.status.code(), Some(0), "{}", stdout(&full));
    let supervisor = check(&checks(&full), "supervisor").clone();
    assert_eq!(supervisor["status"], "pass", "{supervisor}");
    assert!(supervisor["detail"].as_str().unwrap().contains(&socket));

    // No supervisor at all.
    let none = dir.path().join("none.sock").display().to_string();
    let out = doctor(&["--probe", "--socket", &none]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).starts_with("fail: no supervisor answers on"), "{}", stdout(&out));

    // A socket that accepts and never answers: the probe gives up by itself.
    let silent = dir.path().join("silent.sock");
    let listener = std::os::unix::net::UnixListener::bind(&silent).unwrap();
    let out = doctor(&["--probe", "--socket", &silent.display().to_string()]);
    drop(listener);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("did not answer within 900 ms"), "{}", stdout(&out));
}

fn entrypoint() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/sandbox-browser-entrypoint.sh")
}

fn entrypoint_command(dir: &tempfile::TempDir) -> Command {
    let mut cmd = Command::new(entrypoint());
    entrypoint_env(&mut cmd, dir);
    cmd
}

/// The entrypoint's environment for a test in `dir`: the real binary, a socket under `dir`, and none of
/// the caller's own settings.
fn entrypoint_env<'a>(cmd: &'a mut Command, dir: &tempfile::TempDir) -> &'a mut Command {
    cmd.env("SANDBOX_BROWSER_BIN", bin_path("sandbox-browser"))
        .env("SANDBOX_BROWSER_SOCKET", dir.path().join("run/browser.sock"))
        .env_remove("SANDBOX_BROWSER_CONFIG")
        .env_remove("SANDBOX_BROWSER_CHROMIUM")
        .env_remove("SANDBOX_BROWSER_NO_SANDBOX")
        .env_remove("SANDBOX_BROWSER_DOCTOR")
        .env_remove("SANDBOX_BROWSER_LOG_FORMAT")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_entrypoint_prints_the_summary_and_execs_serve() {
    let dir = temp_dir();
    let mut child = entrypoint_command(&dir).spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let listening = line.contains("\"listening\"");
        seen.push(line);
        if listening {
            break;
        }
    }
    let summary: Value = serde_json::from_str(&seen[0]).unwrap_or_else(|_| panic!("{seen:?}"));
    assert_eq!(summary["ok"], true, "the doctor's summary comes first, as one JSON line: {summary}");
    assert!(seen.last().unwrap().contains("\"listening\""), "{seen:?}");
    // exec: the process we started *is* the supervisor now (so it gets the container's signals).
    let exe = std::fs::read_link(format!("/proc/{}/exe", child.id())).unwrap();
    assert_eq!(exe.file_name().unwrap(), "sandbox-browser", "{exe:?}");

    let client = sb_client::Client::connect(dir.path().join("run/browser.sock")).await.unwrap();
    assert!(client.health().await.unwrap().browser_version.contains("Chrome/"));
    drop(client);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGTERM)
        .unwrap();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{rest:?}");
    assert!(rest.iter().any(|l| l.contains("\"stopped\"")), "{rest:?}");
}

#[test]
fn the_entrypoint_refuses_a_bad_environment_naming_the_variable() {
    let dir = temp_dir();
    for (var, value) in [
        ("SANDBOX_BROWSER_LOG_FORMAT", "xml"),
        ("SANDBOX_BROWSER_NO_SANDBOX", "maybe"),
        ("SANDBOX_BROWSER_SOCKET", "relative/browser.sock"),
        ("SANDBOX_BROWSER_BIN", "/nonexistent/sandbox-browser"),
        ("SANDBOX_BROWSER_CONFIG", "/nonexistent/config.toml"),
    ] {
        let out = entrypoint_command(&dir).env(var, value).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(64), "{var}={value}: {stderr}");
        assert!(stderr.contains(var), "{var}={value}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    }
    // A config file with a bad key: the doctor's summary says which, and serve is never started.
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[limits]\nmax_sesions = 3\n").unwrap();
    let out = entrypoint_command(&dir).env("SANDBOX_BROWSER_CONFIG", &bad).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(64), "{stderr}");
    assert!(stderr.contains("max_sesions") && stderr.contains("the doctor found a failed check"), "{stderr}");
    assert!(!dir.path().join("run/browser.sock").exists());
}

/// `docker exec <c> sandbox-browser doctor --probe` finds the supervisor the way `serve` was told where
/// to listen: `SANDBOX_BROWSER_SOCKET` (the image sets it), with no `--socket`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_reads_the_socket_from_the_environment_as_serve_does() {
    let sup = Supervisor::start(&[]);
    let _c = sup.client().await;
    let out = Command::new(bin_path("sandbox-browser"))
        .args(["doctor", "--probe", "--json"])
        .env("SANDBOX_BROWSER_SOCKET", &sup.socket)
        .env_remove("SANDBOX_BROWSER_CONFIG")
        .output()
        .unwrap();
    let checks = checks(&out);
    let probe = check(&checks, "supervisor");
    assert_eq!(probe["status"], "pass", "{probe}");
}

/// Text logs carry no terminal colour codes when stderr is not a terminal (`docker logs`, a file).
#[test]
fn text_logs_are_plain_off_a_terminal() {
    let dir = temp_dir();
    let out = Command::new(bin_path("sandbox-browser"))
        .args(["serve", "--log-format", "text", "--socket"])
        .arg(dir.path().join("x/../../nonexistent-parent-is-fine/browser.sock"))
        .args(["--browser", "/nonexistent/chromium"])
        .env_remove("SANDBOX_BROWSER_CONFIG")
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.is_empty());
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
}

/// Issue 15 §7: a `docker stop` in the first moments was lost: until it execs `serve`, the entrypoint's
/// bash is PID 1, and PID 1 ignores a signal it has no handler for. Run as PID 1 of a PID namespace of
/// its own (`unshare --pid --fork`, as root; skipped with a message otherwise) while a stand-in
/// doctor runs, the entrypoint ends on SIGTERM (143) instead of going on to `serve`.
#[test]
fn the_entrypoint_as_pid_1_ends_on_sigterm_during_the_doctors_pass() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: a PID namespace of its own needs root (CI runs the suite as root)");
        return;
    }
    let dir = temp_dir();
    let mark = dir.path().join("doctor-started");
    let fake = dir.path().join("fake-sandbox-browser");
    // The doctor takes a moment (as the real one's quick pass does); serve would run for long.
    let script = format!(
        "#!/bin/sh\ncase \"$1\" in\n  doctor) : > '{}'; sleep 2; echo ok ;;\n  serve) exec sleep 60 ;;\nesac\n",
        mark.display()
    );
    std::fs::write(&fake, script).unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut unshare = Command::new("unshare");
    unshare.args(["--pid", "--fork", "--kill-child"]).arg(entrypoint());
    let mut child = entrypoint_env(&mut unshare, &dir)
        .env("SANDBOX_BROWSER_BIN", &fake)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !mark.exists() {
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "the doctor never started");
        std::thread::sleep(std::time::Duration::from_millis(10)); // a poll's interval
    }
    // The entrypoint is the namespace's PID 1: unshare's child.
    let init = sb_tests::descendant_naming(child.id(), "sandbox-browser-entrypoint")
        .expect("the entrypoint's shell");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(init as i32), nix::sys::signal::Signal::SIGTERM)
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the entrypoint went on to serve: SIGTERM was lost");
        }
        std::thread::sleep(std::time::Duration::from_millis(10)); // a poll's interval
    };
    assert_eq!(status.code(), Some(143), "{status:?}");
}

/// The runtime's binary replaced under a running supervisor (a package upgrade writes the new file
/// and renames it over the old one) does not stop its sessions: workers run the supervisor's own
/// image (`/proc/self/exe`), still named as the binary in `ps`. Before: a new session's worker ran
/// whatever the path held by then, and every `session.start` answered `timeout` "worker did not
/// attach within the budget" (retryable) until the supervisor was restarted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_binary_replaced_under_the_runtime_keeps_its_workers_running() {
    use std::os::unix::fs::PermissionsExt;
    let bin = temp_dir();
    let program = bin.path().join("sandbox-browser");
    std::fs::copy(bin_path("sandbox-browser"), &program).unwrap();
    let dir = temp_dir();
    let socket = dir.path().join("browser.sock");
    let sup = Supervisor::start_program(&program, dir, socket, &[]);
    let c = sup.client().await;
    c.session_start(Some("before")).await.unwrap();
    // Another build at the same path: one whose worker never answers.
    let next = bin.path().join("sandbox-browser.new");
    std::fs::write(&next, "#!/bin/sh\nexit 1\n").unwrap();
    std::fs::set_permissions(&next, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::rename(&next, &program).unwrap();
    c.session_start(Some("after")).await.expect("a worker of the running build");
    let r = c.evaluate("after", "1 + 1", None).await.unwrap();
    assert_eq!(r.value, Some(serde_json::json!(2)));
    let worker = sb_tests::descendant_naming(sup.pid(), "\0worker\0").expect("a worker");
    let name = std::fs::read_to_string(format!("/proc/{worker}/comm")).unwrap();
    assert_eq!(name.trim(), "sandbox-browser");
}

/// Issue 54: with Debian's headless shell and full browser both installed, the shell is the default
/// (as Playwright runs its headless shell for headless Chromium) and `[browser] path` still chooses the
/// full browser; `runtime.health`, `doctor` and the `browser_runtime_ready` line say which runs and why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_headless_shell_is_the_default_browser_and_the_full_one_can_be_chosen() {
    use sb_supervisor::lifecycle::browser::{DEBIAN_CHROMIUM, DEBIAN_HEADLESS_SHELL};
    assert!(
        std::path::Path::new(DEBIAN_HEADLESS_SHELL).is_file()
            && std::path::Path::new(DEBIAN_CHROMIUM).is_file(),
        "scripts/lib.sh installs both chromium-headless-shell and chromium"
    );
    for (toml, binary, why) in [
        ("", DEBIAN_HEADLESS_SHELL, "default: headless shell installed"),
        (&*format!("[browser]\npath = {DEBIAN_CHROMIUM:?}\n"), DEBIAN_CHROMIUM, "configured"),
    ] {
        let sup = Supervisor::with_config(toml);
        let c = sup.client().await;
        let health = c.health().await.unwrap().into_inner();
        assert_eq!(
            (health.browser_binary.as_str(), health.browser_choice.as_str()),
            (binary, why),
            "{health:?}"
        );
        sup.settle_log(&c).await;
        let ready = sup.log_events().into_iter().find(|e| e["message"] == "browser_runtime_ready").unwrap();
        assert_eq!(
            (ready["browser.binary"].as_str(), ready["browser.choice"].as_str()),
            (Some(binary), Some(why))
        );
        let dir = temp_dir();
        let config = local_config(&dir, toml);
        let out = doctor(&["--config", &config, "--json", "--quick"]);
        let detail = check(&checks(&out), "browser_binary")["detail"].as_str().unwrap().to_string();
        assert!(detail.contains(binary) && detail.contains(why), "{detail}");
    }
}

/// Issue 54: a supervisor that leads its own session (a container's entrypoint) runs the browser in a
/// session of its own, as Playwright's launcher starts its browser (`detached`: `setsid`), so that
/// where the kernel groups CPU by session (autogroups) supervisor and browser are two groups, as
/// Playwright's driver and browser are; a supervisor started inside another program's session (here
/// the test's) keeps the browser in it. The workers stay in the supervisor's session, each in a
/// process group of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entrypoints_browser_has_a_session_of_its_own() {
    use nix::unistd::{getpgid, getsid, Pid};
    let session = |pid: u32| getsid(Some(Pid::from_raw(pid as i32))).unwrap().as_raw() as u32;
    let group = |pid: u32| getpgid(Some(Pid::from_raw(pid as i32))).unwrap().as_raw() as u32;
    let autogroup = |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/autogroup")).unwrap_or_default();
    let autogroups_on =
        std::fs::read_to_string("/proc/sys/kernel/sched_autogroup_enabled").is_ok_and(|v| v.trim() == "1");
    for entrypoint in [true, false] {
        let sup = if entrypoint { Supervisor::with_config_as_entrypoint("") } else { Supervisor::start(&[]) };
        let c = sup.client().await;
        c.session_start(Some("s")).await.unwrap();
        let browser = c.health().await.unwrap().into_inner().browser_pid;
        let worker = sb_tests::descendant_naming(sup.pid(), "\0worker\0").expect("a worker");
        let renderer = sb_tests::descendant_naming(browser, "--type=renderer").expect("a renderer");
        assert_eq!(group(browser), browser, "the browser leads its process group");
        assert_eq!((session(worker), group(worker)), (session(sup.pid()), worker), "a worker: its own group");
        if entrypoint {
            assert_eq!(session(sup.pid()), sup.pid());
            assert_eq!(session(browser), browser, "the browser leads a session of its own");
            // Its processes (renderers, GPU, network) are in its session, not the supervisor's.
            assert_eq!(session(renderer), browser);
            if autogroups_on {
                assert_ne!(autogroup(renderer), autogroup(sup.pid()), "the browser is a scheduling group");
            }
        } else {
            assert_ne!(session(sup.pid()), sup.pid());
            assert_eq!(session(browser), session(sup.pid()), "the browser stays in its caller's session");
            assert_eq!(session(renderer), session(sup.pid()));
        }
    }
}

/// Issue 57 §7: `doctor` warns about an open-file limit too low for the configured sessions, and says
/// how to raise it; with room for them it passes.
#[test]
fn doctor_warns_about_a_low_open_file_limit() {
    let dir = temp_dir();
    let config = local_config(&dir, "[limits]\nmax_sessions = 16\n");
    let doctor_with = |nofile: &str| {
        Command::new("prlimit")
            .arg(format!("--nofile={nofile}:{nofile}"))
            .arg("--")
            .arg(bin_path("sandbox-browser"))
            .args(["doctor", "--quick", "--json", "--config", &config])
            .env_remove("SANDBOX_BROWSER_CONFIG")
            .output()
            .expect("prlimit (util-linux)")
    };
    let c = check(&checks(&doctor_with("256")), "open_files").clone();
    assert_eq!(c["status"], "warn", "{c}");
    assert!(c["detail"].as_str().unwrap().contains("RLIMIT_NOFILE 256"), "{c}");
    assert!(c["fix"].as_str().unwrap().contains("ulimit -n"), "{c}");
    assert_eq!(check(&checks(&doctor_with("8192")), "open_files")["status"], "pass");
}
