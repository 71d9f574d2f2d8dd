//! Every task the daemon and the relay start is owned (`docs/design.md`,
//! "Start-up and shutdown"): spawned on its owner's tracker (a
//! `TaskTracker`), or held and awaited where it is made — never a bare
//! `tokio::spawn`, whose end nobody can wait for and whose work the
//! shutdown cannot bound; and stopped by a child of the daemon's one
//! token. Read from every crate's source, tests left out.

use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The `.rs` files under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file that is not a test: its unit tests (`#[cfg(test)]`
/// and what follows) and comment lines left out.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

#[test]
fn every_token_of_the_daemon_is_a_child_of_its_one_root() {
    let root = workspace();
    let mut files = Vec::new();
    sources(&root.join("crates/tactus/src/daemon"), &mut files);
    assert!(files.len() > 20, "the daemon's sources were found: {}", files.len());
    let mut roots = Vec::new();
    for file in &files {
        let name = file.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        // The one root, that Ctrl-C and SIGTERM cancel.
        if name.ends_with("daemon/running.rs") || name.ends_with("/tests.rs") {
            continue;
        }
        let code = code(&std::fs::read_to_string(file).unwrap());
        roots.extend(
            code.lines().filter(|l| l.contains("CancellationToken::new()")).map(|l| format!("{name}: {}", l.trim())),
        );
    }
    assert!(roots.is_empty(), "a token of its own, that the daemon's stop does not cancel:\n{}", roots.join("\n"));
}

#[test]
fn no_task_is_spawned_bare() {
    let root = workspace();
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root.join("crates")).unwrap() {
        let src = krate.unwrap().path().join("src");
        if src.is_dir() {
            sources(&src, &mut files);
        }
    }
    assert!(files.len() > 100, "the sources were found: {}", files.len());
    let mut bare = Vec::new();
    for file in &files {
        let name = file.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let is_test = name.ends_with("/tests.rs") || name.contains("/tests/");
        if is_test {
            continue;
        }
        let code = code(&std::fs::read_to_string(file).unwrap());
        for needle in ["tokio::spawn(", "task::spawn(", "tokio::task::spawn_local("] {
            bare.extend(code.lines().filter(|l| l.contains(needle)).map(|l| format!("{name}: {}", l.trim())));
        }
    }
    assert!(bare.is_empty(), "spawned on no tracker, held by no one:\n{}", bare.join("\n"));
}
