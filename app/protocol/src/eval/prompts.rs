//! The prompts of Du et al.'s debate (ICML 2024), in our words: each agent first answers alone;
//! in each later round it sees the other agents' latest answers and updates its own.

/// Round 1, and the single agent and every self-consistency sample.
pub fn first(question: &str) -> String {
    format!(
        "Answer the following question as accurately as you can.\n\n{question}\n\n\
         Explain briefly, then state your final answer at the end of your response."
    )
}

/// A later round: the other agents' latest answers, then the question again.
pub fn update(question: &str, others: &[String]) -> String {
    let mut text = String::from("Here are answers to the question from other agents:\n");
    for o in others {
        text.push_str("\nOne agent's answer:\n```\n");
        text.push_str(o.trim());
        text.push_str("\n```\n");
    }
    text.push_str(&format!(
        "\nUsing their reasoning as additional information, give your own answer. The question \
         was: {question}\n\nState your final answer at the end of your response."
    ));
    text
}
