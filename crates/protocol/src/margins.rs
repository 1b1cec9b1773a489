//! The timing margins of the one budget, in one place, with their invariants checked at compile time.
//!
//! A request's budget `T` runs from the moment the supervisor reads it, and it belongs to the action:
//! like Playwright's `timeout`, it means "wait this long". An action that cannot finish answers
//! `timeout` inside the answer window `[T -` [`EARLY`]`, T +` [`LATE`]`]`:
//!
//! ```text
//! 0 ───────────────── the action: the worker's budget, T - HEADROOM ─────────────────┤ HEADROOM ┤ GRACE ┤
//!                                                                     answer window: ├ EARLY ───┼ LATE ─┤
//! after the answer: the tab is freed (probe, terminate, page reset), within RECOVERY_MAX;
//! the session's next action waits for that inside its own budget (`waited_for_recovery_ms`).
//! ```
//!
//! - The supervisor gives the worker `T -` [`HEADROOM`], so the worker's answer (serialization, IPC)
//!   arrives before `T`.
//! - The action gets all of the worker's budget. Freeing a stuck tab (the escalation ladder) runs
//!   *after* the answer, bounded by [`RECOVERY_MAX`].
//! - The supervisor kills a worker that has not answered by `T +` [`GRACE`]: the last resort; one that
//!   is stopped at `T` (it cannot run, so it cannot answer in the grace) is killed at `T`, which leaves
//!   the answer all of [`LATE`] for its way back on a loaded machine.
//!
//! Invariants: the worker's answer and the last resort both land in the answer window, and the
//! answer window leaves most of the smallest budget to the action.
//!
//! ```
//! use sb_protocol::margins::{EARLY, GRACE, HEADROOM, LATE};
//! assert!(HEADROOM < EARLY && GRACE < LATE);
//! ```

use std::time::Duration;

use crate::budget::MIN_TIMEOUT_MS;

/// How early before `T` an action that cannot finish may answer (100 ms).
pub const EARLY: Duration = Duration::from_millis(EARLY_MS);
/// How late after `T` any answer may come (100 ms).
pub const LATE: Duration = Duration::from_millis(LATE_MS);
/// What the worker's budget leaves for the answer to travel back to the supervisor (20 ms: a local
/// socketpair and a postcard frame take well under 1 ms; the rest is slack for a loaded machine).
pub const HEADROOM: Duration = Duration::from_millis(HEADROOM_MS);
/// How long past the request's deadline the supervisor waits for a worker before killing its process
/// group (80 ms: the whole of the window's lateness less the kill's own trip; a worker starved of a
/// core on a loaded machine answered later than 60 ms past it, session 12's load runs).
pub const GRACE: Duration = Duration::from_millis(GRACE_MS);
/// The longest the worker spends freeing a tab after an answer (probe, terminate, page reset and the
/// reopened page's `DOMContentLoaded`): 8 s. The session's next action waits for it within its own
/// budget.
pub const RECOVERY_MAX: Duration = Duration::from_millis(RECOVERY_MAX_MS);
/// Time the ladder keeps for the page reset: its earlier steps never use it (400 ms).
pub const RESET_TIME: Duration = Duration::from_millis(RESET_TIME_MS);

const EARLY_MS: u64 = 100;
const LATE_MS: u64 = 100;
const HEADROOM_MS: u64 = 20;
const GRACE_MS: u64 = 80;
const RECOVERY_MAX_MS: u64 = 8_000;
const RESET_TIME_MS: u64 = 400;

// The worker's answer at its own deadline (T - HEADROOM) is inside the window, with room to be late.
const _: () = assert!(HEADROOM_MS < EARLY_MS);
// The last resort answers inside the window too, with room for the kill and the answer's trip.
const _: () = assert!(GRACE_MS + 20 <= LATE_MS);
// The window is a small part of the smallest budget.
const _: () = assert!(EARLY_MS * 5 <= MIN_TIMEOUT_MS);
// The reset fits in the recovery.
const _: () = assert!(RESET_TIME_MS * 4 <= RECOVERY_MAX_MS);
