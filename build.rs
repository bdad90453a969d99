//! `PWA_SKIP_TRACE_TESTS=1` turns the tests that read the real logs into ignored tests (the
//! `skip_trace_tests` cfg; see `tests/it/real_logs.rs`). Nothing else is built differently.

fn main() {
    println!("cargo:rerun-if-env-changed=PWA_SKIP_TRACE_TESTS");
    println!("cargo:rustc-check-cfg=cfg(skip_trace_tests)");
    if std::env::var_os("PWA_SKIP_TRACE_TESTS").is_some_and(|v| v == "1") {
        println!("cargo:rustc-cfg=skip_trace_tests");
    }
}
