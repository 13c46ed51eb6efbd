//! The outline parser on any text: parse → serialize → parse gives the same document, and the
//! serializer's output is canonical (serializing what it parses back reproduces it).

#![no_main]

use libfuzzer_sys::fuzz_target;
use outl_format::{parse, serialize};

fuzz_target!(|data: &[u8]| {
    let Ok(markdown) = std::str::from_utf8(data) else {
        return;
    };
    let document = parse(markdown);
    assert_eq!(
        document,
        document.normalized(),
        "parse returns a normalized document"
    );
    let canonical = serialize(&document);
    let reparsed = parse(&canonical);
    assert_eq!(
        reparsed, document,
        "parse(serialize(parse(md))) == parse(md)"
    );
    assert_eq!(
        serialize(&reparsed),
        canonical,
        "canonical markdown is reproduced byte for byte"
    );
});
