//! `docs/trace-format.md` and the table of inputs (`src/input.rs`) say the
//! same: every kind the table has is documented with an example line, every
//! example reads, and reads as the very line the writer writes.

use std::collections::BTreeSet;

use tactus_trace::{Entry, Input, Record, Request, format_entry, parse_entry};

fn doc() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/trace-format.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The example lines: code spans that hold an entry.
fn examples(doc: &str) -> Vec<&str> {
    doc.split('`').skip(1).step_by(2).filter(|span| span.starts_with(r#"{"t": "#)).collect()
}

#[test]
fn every_input_of_the_table_is_documented_by_an_example_the_writer_writes_as_shown() {
    let doc = doc();
    let mut documented = BTreeSet::new();
    for example in examples(&doc) {
        let entry: Entry = parse_entry(1, example).unwrap_or_else(|e| panic!("{example}: {e}"));
        let mut written = String::new();
        format_entry(&mut written, &entry);
        assert_eq!(written, example, "the writer writes the example otherwise");
        if let Record::Input(input) = entry.record {
            documented.insert(input.as_str());
        }
    }
    let table: BTreeSet<&str> = Input::KINDS.iter().copied().collect();
    let undocumented: Vec<&&str> = table.difference(&documented).collect();
    assert!(undocumented.is_empty(), "inputs without an example line in docs/trace-format.md: {undocumented:?}");
    // The docs name no input the table does not have: each example read.
    assert!(documented.is_subset(&table));
}

#[test]
fn every_question_has_its_row() {
    let doc = doc();
    for what in Request::KINDS {
        assert!(doc.contains(&format!("| `{what}` |")), "docs/trace-format.md has no row for request {what:?}");
    }
}
