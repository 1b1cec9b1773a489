//! The request's budget from its `timeout_ms`: the configuration's `[timeouts]` (per-method defaults
//! and the clamp), applied in the pipeline's first step.

use sb_protocol::api::Method;
use sb_protocol::budget::{MAX_TIMEOUT_MS, MIN_TIMEOUT_MS};
use serde::Deserialize;

/// `[timeouts]`, ms: the budget of a request that gives no `timeout_ms`, and the clamp of one that does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Timeouts {
    /// Budget of a method without its own default, ms (8000).
    pub default_ms: u64,
    /// Budget of `page.goto`, ms (15000).
    pub goto_ms: u64,
    /// Budget of `page.wait_for`, ms (20000).
    pub wait_for_ms: u64,
    /// The smallest `timeout_ms` honoured, ms (1000).
    pub min_ms: u64,
    /// The largest `timeout_ms` honoured, ms (120000).
    pub max_ms: u64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            default_ms: Method::PageEvaluate.default_timeout_ms(),
            goto_ms: Method::PageGoto.default_timeout_ms(),
            wait_for_ms: Method::PageWaitFor.default_timeout_ms(),
            min_ms: MIN_TIMEOUT_MS,
            max_ms: MAX_TIMEOUT_MS,
        }
    }
}

impl Timeouts {
    /// The default budget of `method`, ms: `goto_ms` and `wait_for_ms` for theirs, the declared default
    /// of a method that declares its own (`methods!`'s `timeout_ms`: 15000 for `page.back`,
    /// `page.pdf`, `tabs.open`, ...), else `default_ms`.
    pub fn for_method(&self, method: Method) -> u64 {
        let generic = Method::PageEvaluate.default_timeout_ms();
        match method {
            Method::PageGoto => self.goto_ms,
            Method::PageWaitFor => self.wait_for_ms,
            m if m.default_timeout_ms() != generic => m.default_timeout_ms(),
            _ => self.default_ms,
        }
    }

    /// A request's budget, ms: `requested` (or the method's default) clamped to `min_ms..=max_ms`.
    pub fn budget_ms(&self, method: Method, requested: Option<u64>) -> u64 {
        requested.unwrap_or_else(|| self.for_method(method)).clamp(self.min_ms, self.max_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 55 §1: every method's default budget is the one its declaration gives (eight methods
    /// declared 15000 ms and ran on 8000).
    #[test]
    fn every_method_runs_on_its_declared_default_budget() {
        let t = Timeouts::default();
        for m in Method::ALL {
            assert_eq!(t.for_method(m), m.default_timeout_ms(), "{}", m.name());
            assert_eq!(t.budget_ms(m, None), m.default_timeout_ms(), "{}", m.name());
        }
        // The configured ones still rule their methods.
        let set = Timeouts { default_ms: 5_000, goto_ms: 30_000, ..Timeouts::default() };
        assert_eq!((set.for_method(Method::PageEvaluate), set.for_method(Method::PageGoto)), (5_000, 30_000));
        assert_eq!(set.for_method(Method::PagePdf), 15_000);
    }
}
