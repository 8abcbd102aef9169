//! CR-1: one stable identity per agent across debates, so its record follows it.
//!
//! - builtin agents by role: `builtin:safety`;
//! - model agents by backend, model and role: `openai:qwen2.5-7b:safety`;
//! - remote agent services by service (host and port of its URL) and role:
//!   `http:agents.example.com:8443:safety`.

/// The longest identity accepted (imports, URLs).
pub const MAX_IDENTITY_CHARS: usize = 200;

/// The identity of agent `agent` answered by `backend` (`builtin`, `openai`, `http`) with
/// `model_or_service` (the model for `openai`, the service for `http`).
pub fn identity(backend: &str, model_or_service: Option<&str>, agent: &str) -> String {
    match model_or_service.filter(|m| !m.is_empty()) {
        Some(m) if backend != "builtin" => format!("{backend}:{m}:{agent}"),
        _ => format!("{backend}:{agent}"),
    }
}

/// Whether `s` may name an agent: 1–200 printable characters without spaces.
pub fn check_identity(s: &str) -> Result<(), String> {
    let n = s.chars().count();
    if n == 0 {
        return Err("identity: must not be empty".into());
    }
    if n > MAX_IDENTITY_CHARS {
        return Err(format!(
            "identity: {n} characters; the limit is {MAX_IDENTITY_CHARS}"
        ));
    }
    if let Some(c) = s.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "identity: must not contain spaces or control characters (found U+{:04X})",
            u32::from(c)
        ));
    }
    Ok(())
}
