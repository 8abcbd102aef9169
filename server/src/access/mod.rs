//! Who may do what (SV-7). Three kinds of caller:
//!
//! - **anonymous** viewers read everything and, unless the operator set a start token, start
//!   debates;
//! - the **operator**, holding the start token (`--start-token`), starts debates;
//! - **judges** (and read-only **viewers** with an account), made by `consilium judge add`, who
//!   present their token as `Authorization: Bearer …` or sign in once for a session cookie.
//!
//! Judge-only actions answer 401 without valid credentials and 403 for a caller who is known but
//! not a judge. A state change authenticated by cookie must come from this site's own pages
//! (`Origin`, the CSRF check). Tokens and session ids are stored only as hashes ([`token`]).

pub mod client;
pub mod guard;
pub mod limits;
pub mod session;
pub mod token;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::FromRef;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Method};

use crate::db::Store;
use crate::http::error::AppError;
pub use limits::{LimitConfig, Limits};

/// The access policy of one server, shared by every request.
pub struct Access {
    pub store: Store,
    /// The hash of the operator's start token; `None`: anyone who can reach the server starts.
    pub start_token: Option<String>,
    /// How long a browser session lasts.
    pub session_ttl: Duration,
    /// Mark session cookies `Secure` (the site is served over HTTPS, e.g. behind a proxy).
    pub secure_cookies: bool,
    /// The reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed (SV-12).
    pub trust_proxy: client::TrustedProxies,
    pub limits: Arc<Limits>,
}

pub type SharedAccess = Arc<Access>;

/// Who is asking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Principal {
    Anonymous,
    /// Holds the operator's start token.
    Operator,
    /// A judge or viewer account.
    Person {
        name: String,
        role: Role,
        /// Authenticated by the session cookie (so a state change needs the CSRF check).
        via_cookie: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Judge,
    Viewer,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Judge => "judge",
            Role::Viewer => "viewer",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "judge" => Some(Role::Judge),
            "viewer" => Some(Role::Viewer),
            _ => None,
        }
    }
}

impl Access {
    /// Who `headers` say the caller is. A bearer token that matches nothing is a 401, never a
    /// silent fall-back to anonymous; a stale or unknown session cookie is just no session.
    pub async fn authenticate(&self, headers: &HeaderMap) -> Result<Principal, AppError> {
        if let Some(value) = headers.get(header::AUTHORIZATION) {
            let token = value
                .to_str()
                .ok()
                .and_then(|v| {
                    v.strip_prefix("Bearer ")
                        .or_else(|| v.strip_prefix("bearer "))
                })
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .ok_or_else(|| {
                    AppError::Unauthorized(
                        "the Authorization header must be 'Bearer <token>'".into(),
                    )
                })?;
            return self.by_token(token).await;
        }
        let Some(session) = session::cookie(headers)? else {
            return Ok(Principal::Anonymous);
        };
        let now = crate::drive::now_rfc3339();
        Ok(
            match self.store.session(&token::hash(session), &now).await? {
                Some((name, role)) => person(name, &role, true),
                None => Principal::Anonymous,
            },
        )
    }

    /// The operator or the judge a token belongs to; 401 for a token that matches nobody.
    pub async fn by_token(&self, token: &str) -> Result<Principal, AppError> {
        if self
            .start_token
            .as_deref()
            .is_some_and(|stored| token::matches(token, stored))
        {
            return Ok(Principal::Operator);
        }
        // Every judge's hash is compared (there are few): no early exit tells which one was near.
        let mut found = None;
        for judge in self.store.judges().await? {
            if token::matches(token, &judge.token_hash) {
                found = Some(judge);
            }
        }
        match found {
            Some(judge) => Ok(person(judge.name, &judge.role, false)),
            None => Err(AppError::Unauthorized(
                "unknown, rotated or removed token".into(),
            )),
        }
    }

    /// Who is asking, for a request that may change state: [`Access::authenticate`], then the
    /// CSRF check (the JSON API's extractors and the form's server functions alike).
    pub async fn caller(&self, parts: &Parts) -> Result<Principal, AppError> {
        let who = self.authenticate(&parts.headers).await?;
        csrf(&who, parts)?;
        Ok(who)
    }

    /// A running place for a debate `who` starts (or forks) from `ip`, counted toward an
    /// anonymous caller's daily starts: the same steps for the JSON API and the form.
    pub fn start_place(
        &self,
        who: &Principal,
        ip: std::net::IpAddr,
    ) -> Result<limits::Slot, AppError> {
        let place = self.limits.debate(ip)?;
        if matches!(who, Principal::Anonymous) {
            self.limits.start_today(ip, limits::unix_now_s())?;
        }
        Ok(place)
    }

    /// Whether `who` may start debates: anyone without a start token; with one, the operator and
    /// judges.
    pub fn may_start(&self, who: &Principal) -> Result<(), AppError> {
        if self.start_token.is_none() {
            return Ok(());
        }
        match who {
            Principal::Operator
            | Principal::Person {
                role: Role::Judge, ..
            } => Ok(()),
            Principal::Person { name, .. } => Err(AppError::Forbidden(format!(
                "'{name}' is a viewer; starting debates needs the operator's start token or a judge"
            ))),
            Principal::Anonymous => Err(AppError::Unauthorized(
                "this server requires the operator's start token to start debates \
                 (Authorization: Bearer <token>) or a signed-in judge"
                    .into(),
            )),
        }
    }
}

fn person(name: String, role: &str, via_cookie: bool) -> Principal {
    Principal::Person {
        name,
        role: Role::parse(role).unwrap_or(Role::Viewer),
        via_cookie,
    }
}

/// The caller, for handlers open to everyone.
pub struct Caller(pub Principal);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Caller
where
    SharedAccess: FromRef<S>,
{
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        Ok(Caller(SharedAccess::from_ref(state).caller(parts).await?))
    }
}

/// A judge (SV-7): 401 without valid credentials, 403 for the operator or a viewer.
pub struct Judge {
    pub name: String,
}

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Judge
where
    SharedAccess: FromRef<S>,
{
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        let Caller(who) = Caller::from_request_parts(parts, state).await?;
        judge_of(who)
    }
}

/// The judge `who` is, or the 401/403 that says why not.
pub fn judge_of(who: Principal) -> Result<Judge, AppError> {
    match who {
        Principal::Person {
            name,
            role: Role::Judge,
            ..
        } => Ok(Judge { name }),
        Principal::Person { name, .. } => Err(AppError::Forbidden(format!(
            "'{name}' is a viewer; only judges may do this"
        ))),
        Principal::Operator => Err(AppError::Forbidden(
            "the start token starts debates; only judges may do this".into(),
        )),
        Principal::Anonymous => Err(AppError::Unauthorized(
            "only judges may do this: send 'Authorization: Bearer <token>' or sign in at \
             /judge/sign-in"
                .into(),
        )),
    }
}

/// CSRF: a state change authenticated by the session cookie must name this site as its `Origin`
/// (browsers send it with every cross-site and same-site POST). A mismatching `Origin` is refused
/// for every caller by [`guard::origin`]; here its absence is refused too.
fn csrf(who: &Principal, parts: &Parts) -> Result<(), AppError> {
    let by_cookie = matches!(
        who,
        Principal::Person {
            via_cookie: true,
            ..
        }
    );
    let safe = matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS);
    if by_cookie && !safe && !guard::same_origin(&parts.headers) {
        return Err(AppError::Forbidden(
            "a signed-in change must come from this site's own pages (Origin check)".into(),
        ));
    }
    Ok(())
}
