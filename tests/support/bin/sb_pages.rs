//! `sb-pages [DIR]`: serves DIR (and the test pages under `/test/`) on 127.0.0.1 at a free port, and
//! prints its base URL as the first line on stdout. Used by scripts/demo.sh and scripts/bench.sh.

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let root = std::env::args_os().nth(1).map(std::path::PathBuf::from);
    let server = sb_tests::PageServer::start(root.as_deref()).await;
    println!("{}", server.base);
    let _ = tokio::signal::ctrl_c().await;
}
