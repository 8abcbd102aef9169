//! QL-2: does debating beat one agent, or a plain vote? The evaluation harness's pure core: the
//! task sets ([`tasks`]), the grader ([`grade`]), the prompts of Du et al.'s debate ([`prompts`]),
//! the saved run and its report with a binomial confidence interval per cell ([`report`]). The
//! server's `consilium eval` asks the model; the `/eval` page shows a saved run.

pub mod grade;
pub mod prompts;
pub mod report;
pub mod tasks;
#[cfg(test)]
mod tests;

pub use grade::{extract_number, grade, majority};
pub use report::{Cell, EvalConfig, EvalRun, ItemResult, Report, Sample};
pub use tasks::{arithmetic, parse_jsonl, Task};
