//! The workspace's tests that need a real Chromium, the runtime's binaries or the whole workspace, one
//! module a topic, built as one test binary: one link instead of one a file (a clean build of the
//! suite spent most of a minute linking sixteen binaries of 40 MB each). `scripts/test.sh` runs it
//! with cargo-nextest, each test in a process of its own, as when each file was a binary; one file's
//! tests: `cargo nextest run -E 'test(/^wedge::/)'`, or `cargo test --test suite wedge::`.

mod budget;
mod cdp_chromium;
mod e2e;
mod faults;
mod hangs;
mod interaction;
mod layering;
mod operators;
mod playwright;
mod recovery;
mod remote;
mod sealed;
mod settled;
mod snapshot;
mod view;
mod wedge;
