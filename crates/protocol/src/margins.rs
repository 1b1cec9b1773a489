//! The timing margins of the one budget, in one place, with their invariants checked at compile time.
//!
//! A request's budget `T` runs from the moment the supervisor reads it. Inside it:
//!
//! ```text
//! 0 ─────────────── worker's budget: T - HEADROOM ───────────────┤ HEADROOM ├ GRACE ┤
//!   action: worker's budget - ladder_reserve ─┤ ladder (page reset ≤ RESET_TIME) ├ RESET_OVERRUN
//! ```
//!
//! - The supervisor gives the worker `T -` [`HEADROOM`], so the worker's answer (serialization, IPC)
//!   arrives before `T`.
//! - The worker keeps [`ladder_reserve`] of its budget back for the escalation ladder, which frees a
//!   stuck tab before the answer; the page reset, its last step, may run [`RESET_OVERRUN`] past the
//!   worker's budget.
//! - The supervisor kills a worker that has not answered by `T +` [`GRACE`]: the last resort.
//!
//! Invariant: a page reset that overruns still answers before the kill
//! (`RESET_OVERRUN < HEADROOM + GRACE`), and every margin fits in the smallest budget.
//!
//! ```
//! use std::time::Duration;
//! use sb_protocol::margins::{ladder_reserve, GRACE, HEADROOM};
//! assert_eq!(ladder_reserve(Duration::from_millis(3_000)), Duration::from_millis(1_000));
//! assert!(HEADROOM < GRACE);
//! ```

use std::time::Duration;

use crate::budget::MIN_TIMEOUT_MS;

/// What the worker's budget leaves for the answer to travel back to the supervisor (50 ms).
pub const HEADROOM: Duration = Duration::from_millis(HEADROOM_MS);
/// How long past the request's deadline the supervisor waits for a worker before killing its process
/// group (200 ms).
pub const GRACE: Duration = Duration::from_millis(GRACE_MS);
/// How far past the worker's budget a page reset (the ladder's last step) may run (150 ms).
pub const RESET_OVERRUN: Duration = Duration::from_millis(RESET_OVERRUN_MS);
/// Time the ladder keeps for the page reset: its earlier steps never use it (400 ms).
pub const RESET_TIME: Duration = Duration::from_millis(RESET_TIME_MS);
/// The smallest ladder reserve: two probes, a terminate and a page reset fit (800 ms).
pub const LADDER_MIN: Duration = Duration::from_millis(LADDER_MIN_MS);
/// The largest ladder reserve (3 s).
pub const LADDER_MAX: Duration = Duration::from_millis(LADDER_MAX_MS);

const HEADROOM_MS: u64 = 50;
const GRACE_MS: u64 = 200;
const RESET_OVERRUN_MS: u64 = 150;
const RESET_TIME_MS: u64 = 400;
const LADDER_MIN_MS: u64 = 800;
const LADDER_MAX_MS: u64 = 3_000;

// A reset that overruns the worker's budget still reaches the supervisor before it kills the worker.
const _: () = assert!(RESET_OVERRUN_MS < HEADROOM_MS + GRACE_MS);
// The reset fits in the smallest reserve, and the reserve leaves the action time in the smallest budget.
const _: () = assert!(RESET_TIME_MS < LADDER_MIN_MS);
const _: () = assert!(LADDER_MIN_MS + HEADROOM_MS < MIN_TIMEOUT_MS);
const _: () = assert!(LADDER_MIN_MS <= LADDER_MAX_MS);

/// How much of a worker budget of `total` the escalation ladder keeps back: a third, within
/// [`LADDER_MIN`]..=[`LADDER_MAX`], never more than `total`.
pub fn ladder_reserve(total: Duration) -> Duration {
    (total / 3).clamp(LADDER_MIN, LADDER_MAX).min(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reserve_is_a_third_within_bounds() {
        assert_eq!(ladder_reserve(Duration::from_millis(1_000)), LADDER_MIN);
        assert_eq!(ladder_reserve(Duration::from_millis(6_000)), Duration::from_millis(2_000));
        assert_eq!(ladder_reserve(Duration::from_secs(60)), LADDER_MAX);
        assert_eq!(ladder_reserve(Duration::from_millis(300)), Duration::from_millis(300));
    }
}
