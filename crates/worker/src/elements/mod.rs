//! Elements: refs and selectors to nodes (`resolve`), Playwright's actionability checks and the one retry loop every element action uses (`actionability`), and the page scripts more than one module runs (`scripts`).

pub(crate) mod actionability;
pub(crate) mod resolve;
pub(crate) mod scripts;
