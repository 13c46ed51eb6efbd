//! RFC 0276 in a server that is not outl: its violations fail to compile with the messages
//! outl's do. Regenerate with `TRYBUILD=overwrite cargo test -p bookmarks --test ui`.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
