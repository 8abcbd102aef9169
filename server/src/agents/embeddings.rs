//! RC-1 with the `openai` kind: an OpenAI-compatible `/v1/embeddings` endpoint
//! (`OPENAI_EMBEDDINGS_MODEL`, at `OPENAI_EMBEDDINGS_BASE_URL` or the chat endpoint's base URL),
//! asked in batches of [`BATCH`] texts with the same timeouts and retries as chat calls; the
//! usage of every batch is summed into the one `agent_call` the request logs. Without an
//! embeddings model the builtin embedder answers (its model name says so).

use serde_json::{json, Value};

use super::openai::OpenAiAgents;
use super::remote::{estimate_tokens, post_json};
use super::secrets::excerpt;
use super::{AgentError, Answer, Usage};
use app::protocol::reconcile::RcReply;
use app::protocol::AgentReply;

/// Texts per request to the endpoint.
pub const BATCH: usize = 64;

impl OpenAiAgents {
    pub(super) async fn embed(&self, texts: &[String]) -> Answer {
        let Some(model) = self.config.embeddings_model.clone() else {
            return Answer {
                reply: super::builtin::reconcile::embed(texts).map_err(AgentError::Failed),
                usage: None,
            };
        };
        let base = self
            .config
            .embeddings_base_url
            .as_deref()
            .unwrap_or(&self.config.base_url);
        let url = format!("{}/embeddings", base.trim_end_matches('/'));
        let mut usage = Usage::default();
        let mut vectors: Vec<Vec<f32>> = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            let payload = json!({"model": model, "input": batch});
            let call = post_json(
                &self.client,
                &self.policy,
                &url,
                self.config
                    .api_key
                    .as_ref()
                    .map(super::secrets::Secret::expose),
                &payload,
            )
            .await;
            usage.attempts += call.attempts;
            usage.latency_ms += call.latency_ms;
            let body = match call.body {
                Ok(b) => b,
                Err(e) => {
                    return Answer {
                        reply: Err(AgentError::Failed(format!("embeddings: {e}"))),
                        usage: Some(usage),
                    }
                }
            };
            match body.pointer("/usage/prompt_tokens").and_then(Value::as_u64) {
                Some(p) => usage.prompt_tokens += p,
                None => {
                    usage.prompt_tokens += batch.iter().map(|t| estimate_tokens(t)).sum::<u64>();
                    usage.estimated = true;
                }
            }
            match read_batch(&body, batch.len()) {
                Ok(mut v) => vectors.append(&mut v),
                Err(e) => {
                    return Answer {
                        reply: Err(AgentError::Failed(format!(
                            "embeddings: {e}; the endpoint sent {}",
                            excerpt(&body.to_string(), 200)
                        ))),
                        usage: Some(usage),
                    }
                }
            }
        }
        Answer {
            reply: Ok(AgentReply::Reconcile(RcReply::Embeddings {
                model,
                vectors,
            })),
            usage: Some(usage),
        }
    }
}

/// `{"data": [{"index": i, "embedding": [...]}, …]}`, in index order.
fn read_batch(body: &Value, expected: usize) -> Result<Vec<Vec<f32>>, String> {
    let data = body
        .get("data")
        .and_then(Value::as_array)
        .ok_or("the reply has no data list")?;
    if data.len() != expected {
        return Err(format!("{} embeddings for {expected} texts", data.len()));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (k, item) in data.iter().enumerate() {
        let i = item
            .get("index")
            .and_then(Value::as_u64)
            .map_or(k, |i| i as usize);
        let slot = out
            .get_mut(i)
            .ok_or_else(|| format!("data[{k}].index {i} is out of range"))?;
        let v = item
            .get("embedding")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("data[{k}].embedding is not a list of numbers"))?
            .iter()
            .map(|x| x.as_f64().map(|f| f as f32))
            .collect::<Option<Vec<f32>>>()
            .ok_or_else(|| format!("data[{k}].embedding holds something other than numbers"))?;
        *slot = Some(v);
    }
    out.into_iter()
        .enumerate()
        .map(|(i, v)| v.ok_or_else(|| format!("no embedding for text {i}")))
        .collect()
}
