//! What viewers see live: the in-process fan-out of appended events, and the SSE stream that
//! joins the stored backlog to it with no gap and no duplicate (SV-3), and the shutdown that ends
//! them.

pub mod closing;
pub mod hub;
pub mod sse;
pub mod trim;
