//! Page scripts shared by several parts of the worker: sources that run in a page's isolated world.
//! (A script only one module runs lives beside it.)

/// The in-page walker of the snapshot (`snapshot/walker.js`; an expression: a function of the
/// options), which follows Playwright's `generateAriaTree` and `roleUtils`. Selectors and waits call
/// it for roles and accessible names (`role=`, `getByRole`, `getByLabel`), so that they name an
/// element as the snapshot does.
pub(crate) const WALKER: &str = include_str!("../snapshot/walker.js");
