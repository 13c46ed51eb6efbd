//! The inline tokenizer on any text: it never panics, and its tokens' sources rejoin into the
//! text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use outl_format::{source, tokenize};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    assert_eq!(
        source(&tokenize(text)),
        text,
        "the tokens' sources rejoin into the text"
    );
});
