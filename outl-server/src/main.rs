fn main() -> std::process::ExitCode {
    outl_server::cli::main()
}
