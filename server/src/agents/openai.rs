//! AG-1 `openai`: any OpenAI-compatible `/v1/chat/completions` endpoint (OpenAI, Ollama, vLLM,
//! llama.cpp's server). One chat completion per request, with the role's prompts; the model's
//! text goes through the strict reply parser, and anything it cannot read is a logged failure.

use std::sync::Arc;

use app::protocol::parse::parse_reply;
use app::protocol::reconcile::RcTask;
use app::protocol::AgentRequest;
use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::endpoint::Endpoint;
use super::remote::{
    estimate_tokens, post, post_json, reported_usage, Call, CallPolicy, Streaming,
};
use super::secrets::excerpt;
use super::stream::{Dialect, Sink};
use super::{prompt, Agent, AgentError, Answer, Usage};

/// Where the model is and how to ask it.
#[derive(Clone, Debug)]
pub struct OpenAiConfig {
    /// Up to and including `/v1`, e.g. `http://127.0.0.1:11434/v1` for Ollama.
    pub base_url: String,
    pub model: String,
    pub api_key: Option<super::secrets::Secret>,
    /// The most tokens one reply may use.
    pub max_tokens: u32,
    pub temperature: f32,
    /// Ask for `response_format: {"type": "json_object"}` (OpenAI, Ollama, vLLM and llama.cpp
    /// support it; turn it off for an endpoint that refuses it).
    pub json_mode: bool,
    /// RC-1: the model the embeddings endpoint is asked for (`OPENAI_EMBEDDINGS_MODEL`);
    /// `None`: the builtin embedder.
    pub embeddings_model: Option<String>,
    /// Where the embeddings endpoint is, when not at `base_url` (up to `/v1`).
    pub embeddings_base_url: Option<String>,
    /// LM-3: ask for `"stream": true` so viewers see replies as they are written.
    pub stream: bool,
}

impl OpenAiConfig {
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

pub struct OpenAiAgents {
    pub config: Arc<OpenAiConfig>,
    pub policy: CallPolicy,
    pub client: reqwest::Client,
    /// The debate's seed: with the request id it seeds the model, so a rerun asks alike.
    pub seed: u64,
    /// LM-2: the chat endpoint's places for calls in flight, shared by every debate.
    pub endpoint: Arc<Endpoint>,
}

impl OpenAiAgents {
    async fn call(&self, req: &AgentRequest, sink: Option<Sink<'_>>) -> Answer {
        let system = prompt::system(req);
        let user = prompt::user(req);
        let mut payload = json!({
            "model": self.config.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
            "seed": self.seed.wrapping_mul(1000).wrapping_add(u64::from(req.id)) % (1 << 31),
            "stream": false,
        });
        // RC-3's reply is XML, not a JSON object.
        if self.config.json_mode
            && !matches!(
                req.task,
                app::protocol::Task::Reconcile(RcTask::Reconcile { .. })
            )
        {
            payload["response_format"] = json!({"type": "json_object"});
        }
        let _place = self.endpoint.place().await;
        let streaming = sink.filter(|_| self.config.stream && self.endpoint.streams());
        let call = self.post(&payload, streaming).await;
        let mut usage = Usage {
            attempts: call.attempts,
            latency_ms: call.latency_ms,
            retry_after_ms: call.retry_after_ms,
            streamed: call.streamed,
            ..Usage::default()
        };
        let reply = match call.body {
            Err(e) => Err(AgentError::Failed(e)),
            Ok(body) => {
                let content = completion_text(&body);
                match reported_usage(&body) {
                    Some((p, c)) => {
                        usage.prompt_tokens = p;
                        usage.completion_tokens = c;
                    }
                    None => {
                        usage.prompt_tokens = estimate_tokens(&system) + estimate_tokens(&user);
                        usage.completion_tokens = content.as_deref().map_or(0, estimate_tokens);
                        usage.estimated = true;
                    }
                }
                match content {
                    None => Err(AgentError::Failed(format!(
                        "the endpoint's reply has no choices[0].message.content: {}",
                        excerpt(&body.to_string(), 200)
                    ))),
                    Some(text) => parse_reply(&req.task, &req.agent, &text).map_err(|e| {
                        let cut = if finish_reason(&body) == Some("length") {
                            format!(" (cut off at max_tokens = {})", self.config.max_tokens)
                        } else {
                            String::new()
                        };
                        AgentError::Failed(format!(
                            "unparseable reply{cut}: {e}; the model wrote {}",
                            excerpt(&text, 240)
                        ))
                    }),
                }
            }
        };
        Answer {
            reply,
            usage: Some(usage),
        }
    }

    /// One chat completion, streamed when `sink` is given (LM-3). An endpoint that refuses the
    /// streamed request with a client error (400, 415, 422…) is asked once more without
    /// `stream`; when that answers, it is asked plainly from then on.
    async fn post(&self, payload: &Value, sink: Option<Sink<'_>>) -> Call {
        let url = self.config.endpoint();
        let key = self
            .config
            .api_key
            .as_ref()
            .map(super::secrets::Secret::expose);
        let Some(sink) = sink else {
            return post_json(&self.client, &self.policy, &url, key, payload).await;
        };
        let mut streamed = payload.clone();
        streamed["stream"] = json!(true);
        streamed["stream_options"] = json!({"include_usage": true});
        let streaming = Streaming {
            dialect: Dialect::OpenAi,
            sink,
        };
        let call = post(
            &self.client,
            &self.policy,
            &url,
            key,
            &streamed,
            Some(streaming),
        )
        .await;
        let refused = match &call.body {
            Err(e) if !call.streamed => refusal(e),
            _ => None,
        };
        let Some(why) = refused else { return call };
        let plain = post_json(&self.client, &self.policy, &url, key, payload).await;
        if plain.body.is_ok() {
            self.endpoint.refused_streaming(&why);
        }
        Call {
            attempts: call.attempts + plain.attempts,
            latency_ms: call.latency_ms + plain.latency_ms,
            retry_after_ms: call.retry_after_ms + plain.retry_after_ms,
            ..plain
        }
    }
}

/// A client error that may be the endpoint refusing `stream` (not auth, not a missing model
/// route, not a rate limit): its status line, to say so in the server's log.
fn refusal(error: &str) -> Option<String> {
    let status = error.strip_prefix("HTTP ")?.get(..3)?;
    matches!(status, "400" | "405" | "415" | "422" | "501").then(|| format!("HTTP {status}"))
}

pub(crate) fn completion_text(body: &Value) -> Option<String> {
    body.pointer("/choices/0/message/content")?
        .as_str()
        .map(str::to_owned)
}

fn finish_reason(body: &Value) -> Option<&str> {
    body.pointer("/choices/0/finish_reason")?.as_str()
}

impl Agent for OpenAiAgents {
    fn respond<'a>(&'a self, req: &'a AgentRequest) -> BoxFuture<'a, Answer> {
        match &req.task {
            app::protocol::Task::Reconcile(RcTask::Embed { texts, .. }) => {
                Box::pin(self.embed(texts))
            }
            _ => Box::pin(self.call(req, None)),
        }
    }

    fn respond_streaming<'a>(
        &'a self,
        req: &'a AgentRequest,
        sink: Sink<'a>,
    ) -> BoxFuture<'a, Answer> {
        match &req.task {
            app::protocol::Task::Reconcile(RcTask::Embed { texts, .. }) => {
                Box::pin(self.embed(texts))
            }
            _ => Box::pin(self.call(req, Some(sink))),
        }
    }

    fn parallel(&self) -> usize {
        self.endpoint.limit()
    }

    fn backend(&self) -> &'static str {
        "openai"
    }
}
