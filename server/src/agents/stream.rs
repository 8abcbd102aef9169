//! LM-3: replies read as they are written. An `openai` endpoint asked with `"stream": true`
//! answers Server-Sent Events of chat-completion chunks (`data: {...}`, then `data: [DONE]`); an
//! `http` agent service may answer SSE or NDJSON of `{"text": "<piece>"}` objects followed by its
//! reply object. Each piece goes to the sink as it arrives; what the stream adds up to is the
//! same JSON body a plain request returns, so the parser, the injection scan and the usage count
//! work on the whole reply exactly as they do without streaming.

use serde_json::{json, Value};

/// Where the pieces of a reply go as they arrive (the debate's viewers, as ephemeral deltas).
pub type Sink<'a> = &'a (dyn Fn(&str) + Send + Sync);

/// The two streaming dialects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// OpenAI chat-completion chunks.
    OpenAi,
    /// An agent service: `{"text": …}` pieces, then the reply object.
    Service,
}

/// Whether a response's content type is a stream this reader understands.
pub fn is_stream(content_type: &str) -> bool {
    let ct = content_type.to_ascii_lowercase();
    ct.starts_with("text/event-stream") || ct.starts_with("application/x-ndjson")
}

/// Reads one streamed reply line by line.
pub struct Collector {
    dialect: Dialect,
    /// Bytes received and not yet ended by a line break.
    partial: Vec<u8>,
    text: String,
    usage: Option<Value>,
    finish: Option<String>,
    /// The service's reply object, or `[DONE]` seen (OpenAI).
    ended: Option<Value>,
    /// Pieces sent to the sink so far.
    pub pieces: usize,
}

impl Collector {
    pub fn new(dialect: Dialect) -> Self {
        Collector {
            dialect,
            partial: Vec::new(),
            text: String::new(),
            usage: None,
            finish: None,
            ended: None,
            pieces: 0,
        }
    }

    /// Feeds received bytes; every complete line is read, its piece (if any) sent to `sink`.
    pub fn feed(&mut self, bytes: &[u8], sink: Sink<'_>) -> Result<(), String> {
        self.partial.extend_from_slice(bytes);
        while let Some(at) = self.partial.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=at).collect();
            let line = String::from_utf8_lossy(&line);
            self.line(line.trim_end_matches(['\r', '\n']), sink)?;
        }
        Ok(())
    }

    fn line(&mut self, line: &str, sink: Sink<'_>) -> Result<(), String> {
        // SSE: `data:` lines carry the JSON; comments, `event:`, `id:` and blank lines do not.
        let data = match line.strip_prefix("data:") {
            Some(d) => d.trim_start(),
            None if line.starts_with('{') => line,
            None => return Ok(()),
        };
        if data.is_empty() {
            return Ok(());
        }
        if data == "[DONE]" {
            if self.dialect == Dialect::OpenAi {
                self.ended = Some(Value::Null);
            }
            return Ok(());
        }
        if self.ended.is_some() && self.dialect == Dialect::Service {
            return Ok(());
        }
        let v: Value = serde_json::from_str(data).map_err(|e| {
            format!(
                "a streamed line is not JSON ({e}): {}",
                super::secrets::excerpt(data, 120)
            )
        })?;
        if let Some(err) = v.get("error") {
            return Err(format!(
                "the endpoint reported an error mid-stream: {}",
                super::secrets::excerpt(&err.to_string(), 200)
            ));
        }
        match self.dialect {
            Dialect::OpenAi => {
                if let Some(piece) = v
                    .pointer("/choices/0/delta/content")
                    .and_then(Value::as_str)
                {
                    self.piece(piece, sink);
                }
                if let Some(f) = v
                    .pointer("/choices/0/finish_reason")
                    .and_then(Value::as_str)
                {
                    self.finish = Some(f.to_owned());
                }
                if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
                    self.usage = Some(u.clone());
                }
            }
            Dialect::Service => match v.as_object() {
                Some(o) if o.len() == 1 && o.get("text").is_some_and(Value::is_string) => {
                    self.piece(o["text"].as_str().unwrap_or_default(), sink);
                }
                _ => self.ended = Some(v),
            },
        }
        Ok(())
    }

    fn piece(&mut self, piece: &str, sink: Sink<'_>) {
        if piece.is_empty() {
            return;
        }
        self.text.push_str(piece);
        self.pieces += 1;
        sink(piece);
    }

    /// Characters received so far (for the size cap and error messages).
    pub fn received(&self) -> usize {
        self.text.len()
    }

    /// The body the stream adds up to — shaped as a plain request's reply — or why it is
    /// incomplete (cut off before its end).
    pub fn finish(mut self, sink: Sink<'_>) -> Result<Value, String> {
        // A last line without its line break.
        if !self.partial.is_empty() {
            let rest = std::mem::take(&mut self.partial);
            let line = String::from_utf8_lossy(&rest).into_owned();
            self.line(line.trim_end(), sink)?;
        }
        match self.dialect {
            Dialect::OpenAi => {
                if self.ended.is_none() && self.finish.is_none() {
                    return Err(format!(
                        "the stream ended before the reply was complete (cut off after {} \
                         characters)",
                        self.text.chars().count()
                    ));
                }
                let mut body = json!({
                    "choices": [{
                        "message": {"role": "assistant", "content": self.text},
                        "finish_reason": self.finish,
                    }],
                });
                if let Some(u) = self.usage {
                    body["usage"] = u;
                }
                Ok(body)
            }
            Dialect::Service => self.ended.ok_or_else(|| {
                format!(
                    "the stream ended before the service's reply object (cut off after {} \
                     characters of text)",
                    self.text.chars().count()
                )
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn run(dialect: Dialect, chunks: &[&str]) -> (Vec<String>, Result<Value, String>) {
        let seen = Mutex::new(Vec::new());
        let sink = |p: &str| seen.lock().unwrap().push(p.to_owned());
        let mut c = Collector::new(dialect);
        let mut result = Ok(());
        for ch in chunks {
            result = result.and_then(|()| c.feed(ch.as_bytes(), &sink));
        }
        let body = result.and_then(|()| c.finish(&sink));
        (seen.into_inner().unwrap(), body)
    }

    /// LM-3: OpenAI chunks split anywhere (even inside a line) give the pieces in order and a
    /// body the plain parser reads, with the usage chunk's counts.
    #[test]
    fn openai_chunks_add_up_to_the_plain_body_lm_3() {
        let stream = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n\
             data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"decision\\\"\"}}]}\n\n\
             : keep-alive\n\n\
             data: {\"choices\":[{\"delta\":{\"content\":\": \\\"ACT\\\"}\"},\"finish_reason\":\"stop\"}]}\n\n\
             data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}\n\n\
             data: [DONE]\n\n";
        let (a, b) = stream.split_at(37);
        let (pieces, body) = run(Dialect::OpenAi, &[a, b]);
        assert_eq!(pieces, vec!["{\"decision\"", ": \"ACT\"}"]);
        let body = body.expect("complete");
        assert_eq!(
            body.pointer("/choices/0/message/content")
                .and_then(Value::as_str),
            Some("{\"decision\": \"ACT\"}")
        );
        assert_eq!(body["usage"]["completion_tokens"], 3);
    }

    /// LM-3: a stream cut off before `[DONE]` or a finish reason is a failure with its reason.
    #[test]
    fn a_stream_cut_off_mid_reply_is_a_failure_lm_3() {
        let (pieces, body) = run(
            Dialect::OpenAi,
            &["data: {\"choices\":[{\"delta\":{\"content\":\"half a rep\"}}]}\n\n"],
        );
        assert_eq!(pieces.len(), 1);
        let e = body.expect_err("incomplete");
        assert!(e.contains("cut off after 10 characters"), "{e}");
        let (_, body) = run(
            Dialect::OpenAi,
            &["data: {\"error\":{\"message\":\"overloaded\"}}\n"],
        );
        assert!(body.expect_err("error").contains("overloaded"));
    }

    /// LM-3: an agent service's NDJSON (or SSE) pieces, then its reply object.
    #[test]
    fn a_service_streams_pieces_then_its_reply_lm_3() {
        let ndjson = "{\"text\":\"I would \"}\n{\"text\":\"act.\"}\n\
                      {\"reply\":{\"decision\":\"ACT\"},\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}\n";
        let (pieces, body) = run(Dialect::Service, &[ndjson]);
        assert_eq!(pieces, vec!["I would ", "act."]);
        assert_eq!(body.expect("complete")["reply"]["decision"], "ACT");
        let sse = "data: {\"text\":\"x\"}\n\ndata: {\"decision\":\"HOLD\"}";
        let (pieces, body) = run(Dialect::Service, &[sse]);
        assert_eq!(pieces, vec!["x"]);
        assert_eq!(body.expect("complete")["decision"], "HOLD");
        let (_, body) = run(Dialect::Service, &["{\"text\":\"x\"}\n"]);
        assert!(body
            .expect_err("cut")
            .contains("before the service's reply"));
    }
}
