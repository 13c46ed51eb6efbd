//! A server whose tools borrow a type of another crate, `std`'s `str`, unsized: the server
//! names it, so no trait of the runtime is implemented on the context itself.

#[path = "../../support/mod.rs"]
mod support;

use outl_macros::{ToolFields, registry, tool};
use outl_registry::{Registry, Server};
use schemars::JsonSchema;
use serde::Deserialize;
use support::Error;

/// A greeter: its tools borrow the greeting it was started with.
struct Greeter;

impl Server for Greeter {
    type Context = str;
    type Error = Error;
}

#[derive(Deserialize, JsonSchema, ToolFields)]
struct Whom {
    /// Who to greet.
    name: String,
}

/// Greet someone with the server's greeting.
#[tool(read_only, payload = json)]
fn greeting(greeting: &str, args: Whom) -> Result<String, Error> {
    Ok(format!("{greeting}, {}", args.name))
}

registry! {
    static TOOLS: Registry<Greeter> = [greeting];
}

fn main() {
    let reply = TOOLS.call("Hello", "greeting", serde_json::json!({"name": "Ada"}));
    let data = reply.expect("registered").and_then(|reply| reply.data());
    assert_eq!(data, Ok(serde_json::json!("Hello, Ada")));
}
