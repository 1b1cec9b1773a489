//! The browser's lifecycle: launching, probing and attaching (`browser`), the current browser and its recovery (`health`), the link workers ride (`link`), how processes are forked and reaped (`spawner`, `reaper`), and file descriptors against the limit (`fds`).

pub mod browser;
pub mod fds;
pub mod health;
pub mod link;
pub mod reaper;
pub mod spawner;
