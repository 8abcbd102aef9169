//! SV-2 / UI-3: the Markdown report of a debate, over real HTTP from the real binary.

use crate::common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn export_md_is_a_readable_report_of_the_logged_debate() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let query = "Should I put all my savings into bitcoin? <script>alert(1)</script>";
    let id = create(&server, json!({"query": query, "seed": 11})).await;
    read_sse(&server, &id, None, "", usize::MAX).await;
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    let n = detail["events"].as_array().expect("events").len();
    let decision = detail["decision"].as_str().expect("decided").to_owned();

    let resp = client()
        .get(server.url(&format!("/api/debates/{id}/export.md")))
        .send()
        .await
        .expect("GET export.md");
    assert_eq!(resp.status(), 200);
    let header = |name: &str| resp.headers()[name].to_str().expect("header").to_owned();
    assert!(header("content-type").starts_with("text/markdown"));
    assert!(header("content-disposition").contains(&format!("consilium-{id}.md")));
    let md = resp.text().await.expect("text");
    for want in [
        "# Consilium debate report".to_owned(),
        // Query text is shown, and cannot inject HTML into a rendered report.
        "**Query:** Should I put all my savings into bitcoin? &lt;script&gt;alert(1)&lt;/script&gt;"
            .to_owned(),
        format!("## Decision: {decision}"),
        "### Utility Agent".to_owned(),
        "### Accuracy Agent".to_owned(),
        "### Safety Agent".to_owned(),
        "**Round 1, independent:**".to_owned(),
        "**Round 3, revision".to_owned(),
        "**Round 4, vote:**".to_owned(),
        "## Round 2: cross-challenges".to_owned(),
        "## Timeline".to_owned(),
        format!("verified: {n} events, decision {decision} recomputed"),
    ] {
        assert!(md.contains(&want), "missing {want:?} in\n{md}");
    }
    assert!(!md.contains("<script>"));
    let challenge_rows = md
        .lines()
        .skip_while(|l| !l.starts_with("## Round 2"))
        .take_while(|l| !l.starts_with("## Timeline"))
        .filter(|l| l.starts_with("| ") && !l.starts_with("| #"))
        .count();
    assert_eq!(challenge_rows, 6, "N·(N−1) challenges for 3 agents");

    let resp = client()
        .get(server.url("/api/debates/nope/export.md"))
        .send()
        .await
        .expect("GET");
    assert_eq!(resp.status(), 404);
    let body: Value = resp.json().await.expect("JSON error");
    assert!(body["error"].as_str().expect("error").contains("nope"));
}
