//! The crate in layers, as its doc (`src/lib.rs`) draws them: every module
//! imports only from the layers above it in that table, so no module
//! imports one that imports it; and the modules are private, the crate's API
//! being `lib.rs`'s `pub use`. Read from the sources, tests included.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layers of the crate doc's table, lowest first: the modules named
/// (in backquotes) in the second column of each row.
fn layers(lib: &str) -> Vec<Vec<String>> {
    lib.lines()
        .filter_map(|l| l.strip_prefix("//! |"))
        .filter_map(|row| {
            let cells: Vec<&str> = row.split('|').collect();
            cells[0].trim().parse::<u32>().ok()?;
            let modules = cells[1].split('`').skip(1).step_by(2).map(str::to_string).collect();
            Some(modules)
        })
        .collect()
}

/// The code of a file, its comment lines left out.
fn code(text: &str) -> String {
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The first path segment of each item of `crate::…` in `code`:
/// `crate::feed::X` and `crate::{feed::X, wire::{Y, Z}}` name `feed` (and `wire`).
fn imported(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Up to the matching brace; items split at the commas outside inner braces.
            let (mut depth, mut item) = (0, String::new());
            for c in group.chars() {
                match c {
                    '}' if depth == 0 => break,
                    ',' if depth == 0 => {
                        names.push(first_segment(&std::mem::take(&mut item)));
                        continue;
                    }
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                item.push(c);
            }
            names.push(first_segment(&item));
        } else {
            names.push(first_segment(rest));
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

fn first_segment(path: &str) -> String {
    path.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// What `lib.rs` re-exports, by name: the module it comes from.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for statement in code(lib).split(';') {
        let Some(rest) = statement.trim().strip_prefix("pub use ") else { continue };
        let (module, items) = rest.split_once("::").expect("pub use module::…");
        for name in items.trim().trim_matches(['{', '}']).split(',').map(str::trim).filter(|n| !n.is_empty()) {
            out.insert(name.to_string(), module.to_string());
        }
    }
    out
}

/// Every source file but `lib.rs`, with the module it belongs to.
fn files() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(src()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            let module = path.file_name().unwrap().to_string_lossy().into_owned();
            for inner in std::fs::read_dir(&path).unwrap() {
                out.push((module.clone(), inner.unwrap().path()));
            }
        } else if path.file_name().is_some_and(|n| n != "lib.rs") {
            out.push((path.file_stem().unwrap().to_string_lossy().into_owned(), path));
        }
    }
    out.sort();
    out
}

#[test]
fn every_module_imports_only_from_the_layers_below_it() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let layers = layers(&lib);
    assert!(layers.len() >= 2, "the crate doc draws its layers in a table: {layers:?}");
    let rank: BTreeMap<&str, usize> =
        layers.iter().enumerate().flat_map(|(i, layer)| layer.iter().map(move |m| (m.as_str(), i))).collect();
    let reexported = reexports(&lib);
    let files = files();
    for module in rank.keys() {
        assert!(files.iter().any(|(m, _)| m == module), "the layers name {module:?}, which has no file");
    }
    let mut wrong = Vec::new();
    for (module, path) in &files {
        let Some(&own) = rank.get(module.as_str()) else {
            panic!("{}: module {module:?} is in no layer of the crate doc", path.display());
        };
        let text = std::fs::read_to_string(path).unwrap();
        for name in imported(&code(&text)) {
            let target = match rank.get(name.as_str()) {
                Some(_) => name.clone(),
                None => match reexported.get(&name) {
                    Some(m) => m.clone(),
                    None => panic!("{}: crate::{name} is neither a module nor re-exported by lib.rs", path.display()),
                },
            };
            if target != *module && rank[target.as_str()] >= own {
                wrong.push(format!(
                    "{} (layer {}) imports {target} (layer {})",
                    path.display(),
                    own + 1,
                    rank[target.as_str()] + 1
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "imports that do not go down the layers:\n{}", wrong.join("\n"));
}

#[test]
fn the_modules_are_private_behind_the_curated_api() {
    let lib = code(&std::fs::read_to_string(src().join("lib.rs")).unwrap());
    let public: Vec<&str> = lib.lines().filter(|l| l.trim_start().starts_with("pub mod ")).collect();
    assert!(public.is_empty(), "public modules beside the curated `pub use`: {public:?}");
}

#[test]
fn imports_are_read_whole() {
    let names = imported("use crate::{feed::{A, B}, wire::C};\nlet x = crate::auth::random_id();");
    assert_eq!(names, ["feed", "wire", "auth"]);
}
