//! The daemon's page as Debian's Chromium renders it, read by the page's
//! own test scripts (web/test/*.mjs).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::root;

/// Fails loudly unless the page is built and Chromium is installed.
pub fn require_browser() {
    assert!(root().join("web/dist/index.html").exists(), "the page is built by ./setup (npm run build in web/)");
    assert!(Path::new("/usr/bin/chromium").exists(), "Chromium is installed by ./setup (apt-get install chromium)");
}

/// Runs one of web/test/*.mjs and returns its standard output; fails the
/// test with everything it said when it fails.
pub fn node(script: &str, args: &[&str]) -> String {
    let out = Command::new("node")
        .arg(root().join("web/test").join(script))
        .args(args)
        .output()
        .expect("node runs (./setup installs it)");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{script}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

/// What `web/test/read.mjs` read on the page at `path` (with `more` of its
/// options): the page reported no errors and shows nothing broken.
pub fn read_page(port: u16, path: &str, more: &[&str]) -> Value {
    let url = format!("http://127.0.0.1:{port}");
    let args: Vec<&str> = [url.as_str(), path].into_iter().chain(more.iter().copied()).collect();
    let out = node("read.mjs", &args);
    let page: Value = out.lines().rev().find_map(|l| serde_json::from_str(l).ok()).expect("a JSON line");
    assert_eq!(page["errors"], serde_json::json!([]), "no page errors: {page}");
    let text = page.to_string();
    for broken in ["NaN", "undefined", "[object Object]"] {
        assert!(!text.contains(broken), "{path} shows {broken:?}: {page}");
    }
    page
}
