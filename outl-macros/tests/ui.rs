//! Compile-time refusals of `#[tool]`, `registry!` and `ToolFields`, one case per rule, and
//! the accepted forms. Each folder's `tools.toml` is the contract of the cases beside it.
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite cargo test -p outl-macros --test ui`
//! and read them: they are what a tool author sees.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.pass("tests/ui/pass_foreign_context/*.rs");
    cases.compile_fail("tests/ui/*.rs");
    cases.compile_fail("tests/ui/registry_duplicate/*.rs");
    cases.compile_fail("tests/ui/registry_orphan/*.rs");
    cases.compile_fail("tests/ui/registry_other_server/*.rs");
    cases.compile_fail("tests/ui/registry_shared_args/*.rs");
}
