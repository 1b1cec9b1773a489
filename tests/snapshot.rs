//! The snapshot as Playwright's aria snapshot (issue 14), on real pages: YAML any parser reads, the
//! same text from the accessibility-tree path and the in-page walker.

use sb_protocol::api::SnapshotParams;
use sb_tests::Fixture;
use serde_json::json;

/// Replaces the page's body with `html` (and `pad` empty elements, which show nothing: past 2500
/// elements the snapshot is taken by the in-page walker).
async fn body(c: &sb_client::Client, sid: &str, html: &str, pad: usize) {
    let script = format!(
        "document.body.innerHTML = {} + '<i></i>'.repeat({pad}), document.getElementsByTagName('*').length",
        json!(html)
    );
    c.evaluate(sid, &script, None).await.unwrap();
}

/// The text without its refs (they number on).
fn without_refs(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(" [ref=e") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        rest = &rest[rest.find(']').map_or(rest.len(), |e| e + 1)..];
    }
    out.push_str(rest);
    out
}

/// Text, names and URLs that YAML would read as something else are quoted as Playwright's serializer
/// quotes them; the accessibility-tree path and the walker write the same text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshots_are_yaml_quoted_as_playwright_quotes_them_on_both_paths() {
    let Fixture { pages, sup: _sup, c } = Fixture::start().await;
    c.session_start(Some("y")).await.unwrap();
    c.goto("y", &pages.url("/test/index.html"), None).await.unwrap();
    let html = "<p>&gt; quoted</p><a href='#x'>#x</a><button>a: b</button><p>42</p><p>yes</p>\
                <h2>- dash</h2><p>plain text</p>";
    let mut texts = Vec::new();
    for pad in [0, 2_600] {
        body(&c, "y", html, pad).await;
        let snap = sb_tests::snapshot(&c, "y", SnapshotParams::default()).await.unwrap().snapshot;
        texts.push(without_refs(&snap));
    }
    let expected = [
        "- paragraph: \"> quoted\"",
        "- link \"#x\":",
        "  - /url: \"#x\"",
        "- 'button \"a: b\"'",
        "- paragraph: \"42\"",
        "- paragraph: \"yes\"",
        "- heading \"- dash\" [level=2]",
        "- paragraph: plain text",
    ]
    .join("\n");
    assert_eq!(texts[0], expected, "the accessibility-tree path");
    assert_eq!(texts[1], expected, "the walker");
}
