//! What a session can do beside its page actions: routes (`routes`), traces (`trace`), what sessions did for the view (`activity`), and the artifacts directory's retention (`artifacts`).

pub mod activity;
pub mod artifacts;
pub mod routes;
pub mod trace;
