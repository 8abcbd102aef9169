//! SV-7 over HTTP: who am I, signing in and out of the browser session, and the judge's first
//! action — stopping a running debate (the judge's name goes into the log).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Json;
use serde::{Deserialize, Serialize};

use super::error::AppError;
use super::extract::{not_found, path_error, DebateId};
use crate::access::{session, token, Caller, Judge, Principal, SharedAccess};
use crate::engine::{Engine, RuleError, Stopped};
use app::api::ErrorBody;
use app::protocol::escalation::RulingError;

#[derive(Serialize, utoipa::ToSchema)]
pub struct Me {
    pub name: String,
    pub role: &'static str,
}

/// `GET /api/judge/me`: 401 without credentials; the name and role of a judge's token or session.
#[utoipa::path(
    get,
    path = "/judge/me",
    tag = "judges",
    security(("bearer" = []), ("session" = [])),
    responses(
        (status = 200, description = "The judge or viewer the credentials belong to", body = Me),
        (status = 401, description = "Not signed in, or a token that matches nobody", body = ErrorBody),
        (status = 403, description = "The operator's start token, which is no judge's", body = ErrorBody),
    )
)]
pub async fn me(Caller(who): Caller) -> Result<Json<Me>, AppError> {
    match who {
        Principal::Person { name, role, .. } => Ok(Json(Me {
            name,
            role: role.as_str(),
        })),
        Principal::Operator => Err(AppError::Forbidden(
            "the start token belongs to the operator, not to a judge".into(),
        )),
        Principal::Anonymous => Err(AppError::Unauthorized(
            "not signed in: send 'Authorization: Bearer <token>' or sign in at /judge/sign-in"
                .into(),
        )),
    }
}

#[derive(Deserialize, utoipa::ToSchema)]
struct SignIn {
    /// A judge's or viewer's token (`cj_…`).
    token: String,
}

/// `POST /api/judge/sign-in` with the token as a form field (the sign-in page) or JSON
/// `{"token": …}`: a session cookie. The form is answered with a redirect back to the page (with
/// `?error=` when the token is wrong), JSON with the judge or a 401.
#[utoipa::path(
    post,
    path = "/judge/sign-in",
    tag = "judges",
    request_body(content(
        (SignIn = "application/json"),
        (SignIn = "application/x-www-form-urlencoded"),
    )),
    responses(
        (status = 200, description = "JSON: signed in; the session cookie is set", body = Me,
            headers(("Set-Cookie" = String, description = "`consilium_session=…; HttpOnly; SameSite=Strict` (`__Host-consilium_session` over HTTPS)"))),
        (status = 303, description = "A form: back to the sign-in page (with `?error=token` when the token is wrong); signed in, the session cookie is set",
            headers(("Location" = String, description = "`/judge/sign-in`"))),
        (status = 400, description = "No `token` field", body = ErrorBody),
        (status = 401, description = "JSON: an unknown, rotated or removed token", body = ErrorBody),
        (status = 507, description = "The database is full", body = ErrorBody),
    )
)]
pub async fn sign_in(
    State(access): State<SharedAccess>,
    peer: crate::access::client::Peer,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, AppError> {
    let is_form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|c| c.to_str().ok())
        .is_some_and(|c| c.starts_with("application/x-www-form-urlencoded"));
    // A sign-in from another site (login CSRF) is refused by `guard::origin`, like every
    // cross-site POST.
    let token = if is_form {
        serde_urlencoded::from_bytes::<SignIn>(&body)
            .ok()
            .map(|s| s.token)
    } else {
        serde_json::from_slice::<SignIn>(&body)
            .ok()
            .map(|s| s.token)
    }
    .ok_or_else(|| AppError::BadRequest("expected a 'token' field".into()))?;
    let (name, role) = match access.by_token(token.trim()).await {
        Ok(Principal::Person { name, role, .. }) => (name, role),
        Ok(_) | Err(AppError::Unauthorized(_)) => {
            return Ok(if is_form {
                Redirect::to("/judge/sign-in?error=token").into_response()
            } else {
                AppError::Unauthorized("unknown, rotated or removed token".into()).into_response()
            });
        }
        Err(e) => return Err(e),
    };
    let id = token::new_secret(token::SESSION_PREFIX)
        .map_err(|e| AppError::Internal(format!("no randomness for a session id: {e}")))?;
    access
        .store
        .create_session(
            &token::hash(&id),
            &name,
            &session::expiry(access.session_ttl),
        )
        .await?;
    tracing::info!(judge = %name, "judge signed in");
    let cookie = session::set_cookie(&id, access.session_ttl, secure(&access, &peer, &headers));
    let mut response = if is_form {
        Redirect::to("/judge/sign-in").into_response()
    } else {
        Json(Me {
            name,
            role: role.as_str(),
        })
        .into_response()
    };
    if let Ok(v) = header::HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, v);
    }
    Ok(response)
}

/// `POST /api/judge/sign-out`: ends the session (in the database and the browser).
#[utoipa::path(
    post,
    path = "/judge/sign-out",
    tag = "judges",
    responses(
        (status = 303, description = "Signed out (with or without a session); the cookie is cleared",
            headers(("Location" = String, description = "`/judge/sign-in`"))),
    )
)]
pub async fn sign_out(
    State(access): State<SharedAccess>,
    peer: crate::access::client::Peer,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    if let Some(id) = session::cookie(&headers)? {
        access.store.end_session(&token::hash(id)).await?;
    }
    let mut response = Redirect::to("/judge/sign-in").into_response();
    if let Ok(v) =
        header::HeaderValue::from_str(&session::clear_cookie(secure(&access, &peer, &headers)))
    {
        response.headers_mut().insert(header::SET_COOKIE, v);
    }
    Ok(response)
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct StopReply {
    pub id: String,
    pub stopped_by: String,
}

/// `POST /api/debates/{id}/stop` (judges only): ends a running debate with an `interrupted` event
/// that names the judge. 409 when it already ended or runs in another server process.
#[utoipa::path(
    post,
    path = "/debates/{id}/stop",
    tag = "judges",
    params(("id" = String, Path, description = "The debate's id")),
    security(("bearer" = []), ("session" = [])),
    responses(
        (status = 200, description = "Stopped; its log ends with `interrupted` naming the judge", body = StopReply),
        (status = 400, description = "The id is not valid UTF-8", body = ErrorBody),
        (status = 401, description = "No judge's credentials", body = ErrorBody),
        (status = 403, description = "A viewer or the operator, or a signed-in request without this site's Origin", body = ErrorBody),
        (status = 404, description = "No debate with this id", body = ErrorBody),
        (status = 409, description = "It already ended, or runs in another server process", body = ErrorBody),
        (status = 507, description = "The database is full", body = ErrorBody),
    )
)]
pub async fn stop(
    State(engine): State<Engine>,
    judge: Judge,
    DebateId(id): DebateId,
) -> Result<impl IntoResponse, AppError> {
    stop_as(&engine, &judge, &id).await?;
    Ok((
        StatusCode::OK,
        Json(StopReply {
            id,
            stopped_by: judge.name,
        }),
    ))
}

/// The stop itself, for the API and the live page's button.
pub async fn stop_as(engine: &Engine, judge: &Judge, id: &str) -> Result<(), AppError> {
    if !app::api::is_debate_id(id) {
        return Err(not_found(id));
    }
    match engine.stop(id, &judge.name).await? {
        Stopped::Now => Ok(()),
        Stopped::AlreadyOver if engine.store.exists(id).await? => {
            Err(AppError::Conflict(format!("debate {id} already ended")))
        }
        Stopped::AlreadyOver => Err(not_found(id)),
        Stopped::Elsewhere => Err(AppError::Conflict(format!(
            "debate {id} runs in another server process; stop it through that one"
        ))),
    }
}

/// Cookies are `Secure` when the operator says the site is served over HTTPS, or a trusted proxy
/// (SV-12) says this request came over it.
fn secure(
    access: &crate::access::Access,
    peer: &crate::access::client::Peer,
    headers: &HeaderMap,
) -> bool {
    access.secure_cookies
        || (peer.0.is_some_and(|ip| access.trust_proxy.contains(ip))
            && headers
                .get("x-forwarded-proto")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|p| p.eq_ignore_ascii_case("https")))
}

/// `GET /api/judge/queue` (judges only, ES-5): the judges' desk — each judge's load against the
/// capacity, and the challenges held, in priority order.
#[utoipa::path(
    get,
    path = "/judge/queue",
    tag = "judges",
    security(("bearer" = []), ("session" = [])),
    responses(
        (status = 200, description = "The judges' load and the challenges held", body = crate::drive::desk::Queue),
        (status = 401, description = "No judge's credentials", body = ErrorBody),
        (status = 403, description = "A viewer, or the operator's start token", body = ErrorBody),
    )
)]
pub async fn queue(State(engine): State<Engine>, _judge: Judge) -> Json<crate::drive::desk::Queue> {
    Json(engine.desk.queue_now().await)
}

/// `GET /api/judge/desk` (judges only, UI-4): every case a judge may act on across the latest
/// escalation pipelines — held, provisional, awaiting review at the gate — in the desk's order,
/// with both positions, credibility, time left, the impact of the other position and precedents.
#[utoipa::path(
    get,
    path = "/judge/desk",
    tag = "judges",
    security(("bearer" = []), ("session" = [])),
    responses(
        (status = 200, description = "Every case a judge may act on, in the desk's order", body = app::protocol::escalation::DeskView),
        (status = 401, description = "No judge's credentials", body = ErrorBody),
        (status = 403, description = "A viewer, or the operator's start token", body = ErrorBody),
    )
)]
pub async fn desk(
    State(engine): State<Engine>,
    _judge: Judge,
) -> Result<Json<app::protocol::escalation::DeskView>, AppError> {
    Ok(Json(engine.desk_view().await?))
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct RulingReply {
    pub id: String,
    pub challenge: String,
    pub judge: String,
}

/// `POST /api/debates/{id}/challenges/{challenge}/ruling` (judges only, ES-5/ES-7) with
/// `{"action": "override", "value": 0.26, "rationale": "…"}`, `{"action": "confirm"}` or
/// `{"action": "redebate", "context": "…"}`: the ruling is logged as `judge_ruling` naming the
/// judge and applied. 400 for a bad action or value, 409 when the challenge is not at a judge's
/// level or the debate is not running here, 404 for an unknown debate.
#[utoipa::path(
    post,
    path = "/debates/{id}/challenges/{challenge}/ruling",
    tag = "judges",
    params(
        ("id" = String, Path, description = "The debate's id"),
        ("challenge" = String, Path, description = "The challenge's id (`CH-001`, …)"),
    ),
    request_body = app::protocol::escalation::JudgeAction,
    security(("bearer" = []), ("session" = [])),
    responses(
        (status = 200, description = "Logged as `judge_ruling` and applied", body = RulingReply),
        (status = 400, description = "A bad action or value, named", body = ErrorBody),
        (status = 401, description = "No judge's credentials", body = ErrorBody),
        (status = 403, description = "A viewer or the operator, or a signed-in request without this site's Origin", body = ErrorBody),
        (status = 404, description = "No debate with this id", body = ErrorBody),
        (status = 409, description = "The challenge is not at a judge's level, or the debate is not running here", body = ErrorBody),
        (status = 415, description = "The body is not sent as `application/json`", body = ErrorBody),
        (status = 507, description = "The database is full", body = ErrorBody),
    )
)]
pub async fn rule(
    State(engine): State<Engine>,
    judge: Judge,
    path: Result<axum::extract::Path<(String, String)>, axum::extract::rejection::PathRejection>,
    body: Result<Json<serde_json::Value>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<RulingReply>, AppError> {
    let axum::extract::Path((id, challenge)) = path.map_err(path_error)?;
    if !app::api::is_debate_id(&id) {
        return Err(not_found(&id));
    }
    let action: app::protocol::escalation::JudgeAction = super::extract::json_object(body?.0)?;
    rule_as(&engine, &judge, &id, &challenge, action).await?;
    Ok(Json(RulingReply {
        id,
        challenge,
        judge: judge.name,
    }))
}

/// The ruling itself, for the API and the live page's form.
pub async fn rule_as(
    engine: &Engine,
    judge: &Judge,
    id: &str,
    challenge: &str,
    action: app::protocol::escalation::JudgeAction,
) -> Result<(), AppError> {
    if !app::api::is_debate_id(id) {
        return Err(not_found(id));
    }
    engine
        .rule(id, &judge.name, challenge, action)
        .await
        .map_err(|e| refused(id, e))
}

/// 404 for an unknown debate, 400 for bad input, 409 for the wrong moment.
fn refused(id: &str, e: RuleError) -> AppError {
    match e {
        RuleError::NoDebate => not_found(id),
        RuleError::NotRunning(why) | RuleError::Refused(RulingError::Conflict(why)) => {
            AppError::Conflict(why)
        }
        RuleError::Refused(RulingError::Invalid(why)) => AppError::BadRequest(why),
        RuleError::Store(e) => e.into(),
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct BudgetReply {
    pub id: String,
    pub judge: String,
    #[serde(flatten)]
    pub action: app::protocol::run::BudgetAction,
}

/// `POST /api/debates/{id}/budget` (judges only, ES-11) with `{"action": "grant", "tokens":
/// 50000}` or `{"action": "close"}`: a debate paused on its spent budget resumes with more
/// tokens, or ends now with the cautious decision. 400 for a bad grant, 409 when the debate is
/// not paused (or not running here), 404 unknown.
#[utoipa::path(
    post,
    path = "/debates/{id}/budget",
    tag = "judges",
    params(("id" = String, Path, description = "The debate's id")),
    request_body = app::protocol::run::BudgetAction,
    security(("bearer" = []), ("session" = [])),
    responses(
        (status = 200, description = "Granted (the debate resumes) or closed", body = BudgetReply),
        (status = 400, description = "A bad action or grant, named", body = ErrorBody),
        (status = 401, description = "No judge's credentials", body = ErrorBody),
        (status = 403, description = "A viewer or the operator, or a signed-in request without this site's Origin", body = ErrorBody),
        (status = 404, description = "No debate with this id", body = ErrorBody),
        (status = 409, description = "The debate is not paused on its budget, or not running here", body = ErrorBody),
        (status = 415, description = "The body is not sent as `application/json`", body = ErrorBody),
        (status = 507, description = "The database is full", body = ErrorBody),
    )
)]
pub async fn budget(
    State(engine): State<Engine>,
    judge: Judge,
    path: Result<axum::extract::Path<String>, axum::extract::rejection::PathRejection>,
    body: Result<Json<serde_json::Value>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<BudgetReply>, AppError> {
    let axum::extract::Path(id) = path.map_err(path_error)?;
    let action: app::protocol::run::BudgetAction = super::extract::json_object(body?.0)?;
    budget_as(&engine, &judge, &id, action.clone()).await?;
    Ok(Json(BudgetReply {
        id,
        judge: judge.name,
        action,
    }))
}

/// The grant or close itself, for the API and the live page's form.
pub async fn budget_as(
    engine: &Engine,
    judge: &Judge,
    id: &str,
    action: app::protocol::run::BudgetAction,
) -> Result<(), AppError> {
    if !app::api::is_debate_id(id) {
        return Err(not_found(id));
    }
    engine
        .budget(id, &judge.name, action)
        .await
        .map_err(|e| refused(id, e))
}

/// `POST /api/debates/{id}/decision`: a judge's choice for a debate escalated to a human.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionBody {
    pub chosen: String,
    pub rationale: String,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct DecisionReply {
    pub id: String,
    pub chosen: String,
    pub judge: String,
}

/// `POST /api/debates/{id}/decision` (judges only, ES-12) with `{"chosen": "P2", "rationale":
/// "…"}`: a collapse debate that ended ESCALATED_TO_HUMAN gets the judge's decision, appended
/// to its log as `human_decision` and a new `decision`. 400 for an unknown position or an empty
/// rationale, 409 when the debate was not escalated to a human (or is running), 404 unknown.
#[utoipa::path(
    post,
    path = "/debates/{id}/decision",
    tag = "judges",
    params(("id" = String, Path, description = "The debate's id")),
    request_body = DecisionBody,
    security(("bearer" = []), ("session" = [])),
    responses(
        (status = 200, description = "Logged as `human_decision` and a new `decision`", body = DecisionReply),
        (status = 400, description = "An unknown position or an empty rationale, named", body = ErrorBody),
        (status = 401, description = "No judge's credentials", body = ErrorBody),
        (status = 403, description = "A viewer or the operator, or a signed-in request without this site's Origin", body = ErrorBody),
        (status = 404, description = "No debate with this id", body = ErrorBody),
        (status = 409, description = "The debate was not escalated to a human, or it runs", body = ErrorBody),
        (status = 415, description = "The body is not sent as `application/json`", body = ErrorBody),
        (status = 507, description = "The database is full", body = ErrorBody),
    )
)]
pub async fn decide(
    State(engine): State<Engine>,
    judge: Judge,
    path: Result<axum::extract::Path<String>, axum::extract::rejection::PathRejection>,
    body: Result<Json<serde_json::Value>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<DecisionReply>, AppError> {
    let axum::extract::Path(id) = path.map_err(path_error)?;
    if !app::api::is_debate_id(&id) {
        return Err(not_found(&id));
    }
    let b: DecisionBody = super::extract::json_object(body?.0)?;
    decide_as(&engine, &judge, &id, &b.chosen, &b.rationale).await?;
    Ok(Json(DecisionReply {
        id,
        chosen: b.chosen,
        judge: judge.name,
    }))
}

/// The decision itself, for the API and the live page's form.
pub async fn decide_as(
    engine: &Engine,
    judge: &Judge,
    id: &str,
    chosen: &str,
    rationale: &str,
) -> Result<(), AppError> {
    if !app::api::is_debate_id(id) {
        return Err(not_found(id));
    }
    engine
        .decide(id, &judge.name, chosen, rationale)
        .await
        .map_err(|e| refused(id, e))
}
