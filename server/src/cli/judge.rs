//! `consilium judge add|list|remove|rotate` (SV-7): the people who may rule. A token is printed
//! once, when it is made; the database keeps only its hash.

use clap::{Args, Subcommand, ValueEnum};

use super::error::CliError;
use crate::access::token;
use crate::db::{JudgeRow, Store};

#[derive(Args, Debug)]
pub struct JudgeArgs {
    /// The database the server uses (judges live beside the debates).
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite:data/consilium.db")]
    pub database_url: String,
    #[command(subcommand)]
    pub command: JudgeCommand,
}

#[derive(Subcommand, Debug)]
pub enum JudgeCommand {
    /// Adds a judge and prints their token once.
    Add {
        name: String,
        /// `viewer`: may sign in, but not rule.
        #[arg(long, value_enum, default_value_t = RoleArg::Judge)]
        role: RoleArg,
    },
    /// Lists judges (names, roles, when added; never tokens).
    List,
    /// Removes a judge and ends their sessions.
    Remove { name: String },
    /// Gives a judge a new token (printed once) and ends their sessions; the old token stops
    /// working at once.
    Rotate { name: String },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum RoleArg {
    Judge,
    Viewer,
}

pub async fn run(args: JudgeArgs) -> Result<(), CliError> {
    let store = Store::connect(&args.database_url).await?;
    match args.command {
        JudgeCommand::Add { name, role } => {
            let name = valid_name(&name)?;
            let secret = new_token()?;
            let row = JudgeRow {
                name: name.clone(),
                role: match role {
                    RoleArg::Judge => "judge",
                    RoleArg::Viewer => "viewer",
                }
                .into(),
                token_hash: token::hash(&secret),
                created_at: crate::drive::now_rfc3339(),
            };
            if !store.add_judge(&row).await? {
                return Err(CliError::Judge(format!(
                    "a judge named '{name}' exists already (rotate their token with \
                     `consilium judge rotate {name}`)"
                )));
            }
            print_token(&name, &row.role, &secret);
        }
        JudgeCommand::List => {
            let judges = store.judges().await?;
            if judges.is_empty() {
                outln!("no judges yet: add one with `consilium judge add NAME`");
            }
            for j in judges {
                outln!("{}\t{}\tadded {}", j.name, j.role, j.created_at);
            }
        }
        JudgeCommand::Remove { name } => {
            if !store.remove_judge(&name).await? {
                return Err(no_such(&name));
            }
            outln!("removed judge '{name}'; their token and sessions no longer work");
        }
        JudgeCommand::Rotate { name } => {
            let secret = new_token()?;
            if !store.rotate_judge(&name, &token::hash(&secret)).await? {
                return Err(no_such(&name));
            }
            let role = store
                .judges()
                .await?
                .into_iter()
                .find(|j| j.name == name)
                .map_or_else(|| "judge".to_owned(), |j| j.role);
            print_token(&name, &role, &secret);
        }
    }
    Ok(())
}

fn print_token(name: &str, role: &str, secret: &str) {
    outln!("{role} '{name}' — token (shown once; keep it somewhere safe):");
    outln!("{secret}");
}

fn new_token() -> Result<String, CliError> {
    token::new_secret(token::JUDGE_PREFIX)
        .map_err(|e| CliError::Judge(format!("no randomness for a token: {e}")))
}

fn no_such(name: &str) -> CliError {
    let shown: String = name.chars().take(64).collect();
    CliError::Judge(format!(
        "no judge named '{shown}' (see `consilium judge list`)"
    ))
}

/// 1–64 characters: letters, digits, space, `.`, `_`, `-`, starting with a letter or digit. The
/// name is written into logs, so nothing that could pass for markup or a control character.
fn valid_name(name: &str) -> Result<String, CliError> {
    let name = name.trim();
    let ok = (1..=64).contains(&name.chars().count())
        && name.chars().next().is_some_and(char::is_alphanumeric)
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '.' | '_' | '-'));
    if ok {
        Ok(name.to_owned())
    } else {
        Err(CliError::Judge(format!(
            "a judge's name is 1 to 64 letters, digits, spaces, '.', '_' or '-', starting with a \
             letter or digit; got '{}'",
            name.chars().take(64).collect::<String>().escape_debug()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judge_names_are_plain_sv_7() {
        for ok in ["ada", "Ada Lovelace", "j.doe-2", "Zoë"] {
            assert!(valid_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", " ", "-x", "<script>", "a\nb", &"x".repeat(65)] {
            assert!(valid_name(bad).is_err(), "{bad:?}");
        }
    }
}
