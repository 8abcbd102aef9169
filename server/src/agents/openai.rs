//! AG-1 `openai`: any OpenAI-compatible `/v1/chat/completions` endpoint (OpenAI, Ollama, vLLM,
//! llama.cpp's server). One chat completion per request, with the role's prompts; the model's
//! text goes through the strict reply parser, and anything it cannot read is a logged failure.

use std::sync::Arc;

use app::protocol::parse::parse_reply;
use app::protocol::AgentRequest;
use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::remote::{estimate_tokens, excerpt, post_json, reported_usage, CallPolicy};
use super::{prompt, Agent, AgentError, Answer, Usage};

/// Where the model is and how to ask it.
#[derive(Clone, Debug)]
pub struct OpenAiConfig {
    /// Up to and including `/v1`, e.g. `http://127.0.0.1:11434/v1` for Ollama.
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
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
}

impl OpenAiAgents {
    async fn call(&self, req: &AgentRequest) -> Answer {
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
        if self.config.json_mode && !matches!(req.task, app::protocol::Task::Reconcile { .. }) {
            payload["response_format"] = json!({"type": "json_object"});
        }
        let call = post_json(
            &self.client,
            &self.policy,
            &self.config.endpoint(),
            self.config.api_key.as_deref(),
            &payload,
        )
        .await;
        let mut usage = Usage {
            attempts: call.attempts,
            latency_ms: call.latency_ms,
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
            app::protocol::Task::Embed { texts, .. } => Box::pin(self.embed(texts)),
            _ => Box::pin(self.call(req)),
        }
    }

    fn backend(&self) -> &'static str {
        "openai"
    }
}
