//! The URL policy and the connection gate: the policy (`policy`), the guard that asks it for every navigation and connection (`guard`), the forward proxy every load goes through (`proxy`) and who owns a connection (`sock_diag`).

pub mod guard;
pub mod policy;
pub mod proxy;
pub mod sock_diag;
