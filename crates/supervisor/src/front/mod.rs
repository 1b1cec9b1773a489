//! The front doors: the Unix-socket server, the command-line entry points, the doctor, the logs, and the live view.

pub mod commands;
pub mod config;
pub mod doctor;
pub mod logging;
pub mod server;
pub mod view;
