//! The tab and what the worker keeps of it: the connection and the page's session (`page`), its load states (`lifecycle`), its frames (`frames`) and out-of-process iframes (`oopifs`), what it emulates (`emulate`) and intercepts (`intercept`), what it said and fetched (`journal`), its dialogs (`dialogs`), settled pages (`settle`), and the worker's browser connections (`conns`).

pub(crate) mod conns;
pub(crate) mod dialogs;
pub(crate) mod emulate;
pub(crate) mod frames;
pub(crate) mod intercept;
pub(crate) mod journal;
pub(crate) mod lifecycle;
pub(crate) mod oopifs;
pub(crate) mod page;
pub(crate) mod settle;
