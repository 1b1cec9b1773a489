//! Workers: the supervisor's handle on a worker process, with its hard deadline (`worker`).

pub mod worker;
