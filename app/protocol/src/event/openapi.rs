//! DX-3: an event in the OpenAPI document.

use super::Event;

/// An event's payload differs by `type` (dozens of kinds across the protocols,
/// docs/PROTOCOLS.md), so the schema states exactly what every event carries —
/// the envelope the hash chain covers — and leaves the payload's members open.
impl utoipa::PartialSchema for Event {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
        let field = |ty: Type, about: &str| {
            ObjectBuilder::new()
                .schema_type(ty)
                .description(Some(about))
                .build()
        };
        let envelope = ObjectBuilder::new()
            .description(Some(
                "One event of the hash-chained log; its `type` names it (`debate_started`, \
                 `position`, `decision`, …) and decides the other members — see \
                 docs/PROTOCOLS.md.",
            ))
            .property(
                "seq",
                field(
                    Type::Integer,
                    "1-based, gap-free within a debate; `Last-Event-ID: n` resumes after `n`.",
                ),
            )
            .property(
                "ts",
                field(Type::String, "RFC 3339 UTC time the server appended it."),
            )
            .property("type", field(Type::String, "The event's kind."))
            .property(
                "prev_hash",
                field(
                    Type::String,
                    "SV-2: the previous event's `hash` (64 zeros for the first), hex.",
                ),
            )
            .property(
                "hash",
                field(
                    Type::String,
                    "SV-2: SHA-256 of `prev_hash` and the event's canonical JSON, hex.",
                ),
            )
            .required("seq")
            .required("ts")
            .required("type")
            .required("prev_hash")
            .required("hash")
            .build();
        utoipa::openapi::RefOr::T(Schema::Object(envelope))
    }
}

impl utoipa::ToSchema for Event {}
