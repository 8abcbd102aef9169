//! AG-1 `http`: a remote agent service, one JSON request and one JSON reply per turn (as in seed
//! 004). The request says the protocol, the round, the role, the query and exactly what the agent
//! may see at this step; the reply is the same object a model is asked for, checked by the same
//! strict parser. The schema is in the README ("Remote agents over HTTP").

use app::protocol::parse::reply_from_object;
use app::protocol::AgentRequest;
use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::remote::{estimate_tokens, post, CallPolicy, Streaming};
use super::secrets::excerpt;
use super::stream::{Dialect, Sink};
use super::{Agent, AgentError, Answer, Usage};

#[derive(Clone, Debug)]
pub struct HttpConfig {
    pub url: String,
    /// Sent as `Authorization: Bearer …` when set.
    pub token: Option<String>,
}

pub struct HttpAgents {
    pub config: HttpConfig,
    pub policy: CallPolicy,
    pub client: reqwest::Client,
    pub protocol: &'static str,
    pub seed: u64,
    /// LM-2: the service's places for calls in flight, shared by every debate.
    pub endpoint: std::sync::Arc<super::endpoint::Endpoint>,
}

/// The request body for one turn.
pub fn request_body(protocol: &str, seed: u64, req: &AgentRequest) -> Value {
    json!({
        "protocol": protocol,
        "seed": seed,
        "request_id": req.id,
        "agent": req.agent,
        "role": req.role,
        "question": req.role.question(),
        "round": req.round,
        "query": req.task.query(),
        "expects": req.task.expects(),
        "task": req.task,
    })
}

impl HttpAgents {
    /// One turn. With `sink`, the service may answer a stream (LM-3): SSE or NDJSON of
    /// `{"text": "<piece>"}` objects, then the reply object a plain answer would be.
    async fn call(&self, req: &AgentRequest, sink: Option<Sink<'_>>) -> Answer {
        let payload = request_body(self.protocol, self.seed, req);
        let _place = self.endpoint.place().await;
        let streaming = sink.map(|sink| Streaming {
            dialect: Dialect::Service,
            sink,
        });
        let call = post(
            &self.client,
            &self.policy,
            &self.config.url,
            self.config.token.as_deref(),
            &payload,
            streaming,
        )
        .await;
        let mut usage = Usage {
            attempts: call.attempts,
            latency_ms: call.latency_ms,
            retry_after_ms: call.retry_after_ms,
            streamed: call.streamed,
            ..Usage::default()
        };
        let reply = call.body.map_err(AgentError::Failed).and_then(|body| {
            let reported = body.get("usage").and_then(|u| {
                let p = u.get("prompt_tokens").and_then(Value::as_u64);
                let c = u.get("completion_tokens").and_then(Value::as_u64);
                (p.is_some() || c.is_some()).then(|| (p.unwrap_or(0), c.unwrap_or(0)))
            });
            match reported {
                Some((p, c)) => {
                    usage.prompt_tokens = p;
                    usage.completion_tokens = c;
                }
                // AG-2: a service that reports no usage is charged an estimate (4 characters a
                // token) of what was sent and what came back, marked as estimated.
                None => {
                    usage.prompt_tokens = estimate_tokens(&payload.to_string());
                    usage.completion_tokens = estimate_tokens(&body.to_string());
                    usage.estimated = true;
                }
            }
            let obj = body
                .get("reply")
                .unwrap_or(&body)
                .as_object()
                .ok_or_else(|| {
                    AgentError::Failed(format!(
                        "the agent service's reply is not a JSON object: {}",
                        excerpt(&body.to_string(), 200)
                    ))
                })?;
            reply_from_object(&req.task, &req.agent, obj).map_err(|e| {
                AgentError::Failed(format!(
                    "unparseable reply: {e}; the service sent {}",
                    excerpt(&body.to_string(), 240)
                ))
            })
        });
        Answer {
            reply,
            usage: Some(usage),
        }
    }
}

impl Agent for HttpAgents {
    fn respond<'a>(&'a self, req: &'a AgentRequest) -> BoxFuture<'a, Answer> {
        Box::pin(self.call(req, None))
    }

    fn respond_streaming<'a>(
        &'a self,
        req: &'a AgentRequest,
        sink: Sink<'a>,
    ) -> BoxFuture<'a, Answer> {
        Box::pin(self.call(req, Some(sink)))
    }

    fn parallel(&self) -> usize {
        self.endpoint.limit()
    }

    fn backend(&self) -> &'static str {
        "http"
    }
}
