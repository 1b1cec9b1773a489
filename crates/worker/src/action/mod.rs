//! The actions: the table from an action to its handler (`act`), the worker methods that come as a call of their own params (`calls`), navigation and reads (`actions`, `history`), evaluate and the worlds it runs in (`evaluate`, `worlds`), waits (`wait`), checks (`verify`) and HAR recording (`har`).

pub(crate) mod act;
pub(crate) mod actions;
pub(crate) mod calls;
pub(crate) mod evaluate;
pub(crate) mod har;
pub(crate) mod history;
pub(crate) mod verify;
pub(crate) mod wait;
pub(crate) mod worlds;
