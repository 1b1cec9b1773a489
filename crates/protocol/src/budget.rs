//! The one end-to-end deadline of a request.
//!
//! The supervisor clamps the caller's `timeout_ms` to its configured range (`[timeouts] min_ms` and
//! `max_ms`, by default [`MIN_TIMEOUT_MS`]..=[`MAX_TIMEOUT_MS`]) and turns it into one absolute
//! [`Budget`] when it reads the request. Every inner layer (worker, CDP call,
//! in-page wait) takes a [`Budget::child`] with a little headroom and derives its own timeout from
//! [`Budget::remaining`]; none re-reads a configured timeout.
//!
//! ```
//! use std::time::Duration;
//! use sb_protocol::Budget;
//! let budget = Budget::new(Duration::from_millis(1_000));
//! assert!(budget.remaining() <= Duration::from_millis(1000));
//! let inner = budget.child(Duration::from_millis(100));
//! assert!(inner.remaining() <= budget.remaining());
//! ```

use std::time::{Duration, Instant};

/// Smallest budget a caller can ask for, in ms.
pub const MIN_TIMEOUT_MS: u64 = 1_000;
/// Largest budget a caller can ask for, in ms.
pub const MAX_TIMEOUT_MS: u64 = 120_000;

/// An absolute deadline, passed down by value (it is `Copy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    deadline: Instant,
}

impl Budget {
    /// A budget that ends `timeout` from now (not clamped).
    pub fn new(timeout: Duration) -> Self {
        Budget { deadline: Instant::now() + timeout }
    }

    /// A budget that ends at `deadline`.
    pub fn until(deadline: Instant) -> Self {
        Budget { deadline }
    }

    /// The absolute deadline.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Time left; zero once the deadline has passed.
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// Time left in whole ms (rounded down).
    pub fn remaining_ms(&self) -> u64 {
        self.remaining().as_millis() as u64
    }

    /// An inner budget that ends `headroom` before this one (never before now), so that the inner
    /// layer answers while its caller still has time to pass the answer on.
    pub fn child(&self, headroom: Duration) -> Budget {
        let now = Instant::now();
        let deadline = self.deadline.checked_sub(headroom).unwrap_or(now).max(now.min(self.deadline));
        Budget { deadline }
    }

    /// The smaller of what remains and `cap`: the timeout for one step that should not use it all.
    pub fn capped(&self, cap: Duration) -> Duration {
        self.remaining().min(cap)
    }

    /// Whether the deadline has passed.
    pub fn expired(&self) -> bool {
        Instant::now() >= self.deadline
    }

    /// The first value `check` gives, checked now and again each time `news` is notified, until the
    /// deadline (`None` then). The notification is registered before each check, so news that comes
    /// between a check and the wait is not missed (`Notify::notify_waiters` keeps no permit).
    pub async fn wait_notified<T>(
        &self,
        news: &tokio::sync::Notify,
        mut check: impl FnMut() -> Option<T>,
    ) -> Option<T> {
        loop {
            let notified = news.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            if let Some(found) = check() {
                return Some(found);
            }
            if tokio::time::timeout_at(self.deadline.into(), notified).await.is_err() {
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_takes_headroom_and_never_goes_before_now() {
        let start = Instant::now();
        let parent = Budget::until(start + Duration::from_millis(1_000));
        let child = parent.child(Duration::from_millis(200));
        assert_eq!(child.deadline(), start + Duration::from_millis(800));
        let tight = Budget::until(start + Duration::from_millis(50)).child(Duration::from_millis(200));
        assert!(tight.deadline() >= start && tight.deadline() <= start + Duration::from_millis(50));
        assert!(tight.remaining() <= Duration::from_millis(50));
    }

    /// Found at once; found once the news comes (a value set before the notification); `None` at the
    /// deadline when nothing comes.
    #[tokio::test(flavor = "current_thread")]
    async fn wait_notified_checks_on_each_news_until_the_deadline() {
        let news = std::sync::Arc::new(tokio::sync::Notify::new());
        let budget = Budget::new(Duration::from_secs(5));
        assert_eq!(budget.wait_notified(&news, || Some(1)).await, Some(1));
        let value = std::sync::Arc::new(std::sync::Mutex::new(None));
        let (n, v) = (news.clone(), value.clone());
        tokio::spawn(async move {
            *v.lock().unwrap() = Some(2);
            n.notify_waiters();
        });
        assert_eq!(budget.wait_notified(&news, || *value.lock().unwrap()).await, Some(2));
        let short = Budget::new(Duration::from_millis(100));
        assert_eq!(short.wait_notified(&news, || None::<u8>).await, None);
    }

    #[test]
    fn expired_budget_has_nothing_left() {
        let b = Budget::until(Instant::now() - Duration::from_millis(5));
        assert!(b.expired());
        assert_eq!(b.remaining(), Duration::ZERO);
        assert_eq!(b.remaining_ms(), 0);
        assert_eq!(b.capped(Duration::from_secs(1)), Duration::ZERO);
    }
}
