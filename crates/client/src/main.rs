//! `browserctl`: one request to the sandbox-browser runtime from the command line.
//!
//! Prints the whole response as one JSON line on stdout. Exit status: 0 when `ok`, 1 when the runtime
//! answered with an error, 2 when it could not connect or the usage was wrong.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use serde_json::{Map, Value};

#[derive(Parser)]
#[command(name = "browserctl", version, about = "Send one request to the sandbox-browser runtime")]
struct Cli {
    /// Supervisor socket [default: $XDG_RUNTIME_DIR/sandbox-browser/browser.sock, else
    /// /tmp/sandbox-browser-$UID/browser.sock].
    #[arg(long, env = "SANDBOX_BROWSER_SOCKET")]
    socket: Option<PathBuf>,
    /// The method, e.g. `page.goto`.
    method: String,
    /// The session the method acts on.
    #[arg(long)]
    session: Option<String>,
    /// The request's budget in ms (clamped to 1000..=120000 by the runtime).
    #[arg(long)]
    timeout_ms: Option<u64>,
    /// Params as a JSON object; `key=value` pairs are merged into it.
    #[arg(long)]
    params: Option<String>,
    /// `key=value` params; a value is parsed as JSON when it parses, else taken as a string.
    #[arg(value_name = "KEY=VALUE")]
    pairs: Vec<String>,
}

fn params(cli: &Cli) -> Result<Value, String> {
    let mut map = match &cli.params {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return Err("--params must be a JSON object".into()),
            Err(e) => return Err(format!("--params is not JSON: {e}")),
        },
    };
    for pair in &cli.pairs {
        let (key, raw) = pair.split_once('=').ok_or_else(|| format!("expected key=value, got '{pair}'"))?;
        let value = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()));
        map.insert(key.to_string(), value);
    }
    Ok(if map.is_empty() { Value::Null } else { Value::Object(map) })
}

fn fail(message: &str) -> ExitCode {
    eprintln!("browserctl: {message}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let params = match params(&cli) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let socket = cli.socket.clone().unwrap_or_else(sb_protocol::api::default_socket_path);
    let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return fail(&e.to_string()),
    };
    let response = rt.block_on(async {
        let client = sb_client::Client::connect(&socket).await?;
        client.call(&cli.method, cli.session.as_deref(), params, cli.timeout_ms).await
    });
    match response {
        Ok(response) => {
            println!("{}", serde_json::to_string(&response).unwrap_or_default());
            if response.ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => fail(&e.to_string()),
    }
}
