//! Placeholder until WC validation lands.

use super::{PositionCard, WcParams};

pub fn parse_cards(_v: &serde_json::Value) -> Result<Vec<PositionCard>, String> {
    Err("cards: not supported yet".into())
}

pub fn parse_params(_v: &serde_json::Value) -> Result<WcParams, String> {
    Ok(WcParams::default())
}
