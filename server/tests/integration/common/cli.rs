//! The `consilium` command line run by tests: against a test database (`judge …`), or `verify`.

use std::process::Command;

use super::TestDb;

/// `consilium verify <source>`: whether it succeeded, and what it printed.
pub fn verify(source: &str) -> (bool, String) {
    verify_with(&[source])
}

/// `consilium <args…>` with `DATABASE_URL` set to `db`.
pub fn cli_on(db: &TestDb, args: &[&str]) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_consilium"));
    cmd.args(args).env("DATABASE_URL", &db.url);
    printed(cmd)
}

/// `consilium-bench ARGS`: whether it succeeded, and what it printed.
pub fn bench(args: &[&str]) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_consilium-bench"));
    cmd.args(args);
    printed(cmd)
}

/// Runs `cmd` without colours: whether it succeeded, and its standard output then error.
fn printed(mut cmd: Command) -> (bool, String) {
    let out = cmd.env("NO_COLOR", "1").output().expect("run the command");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// `consilium judge add NAME [--role viewer]`: the token it printed once.
pub fn add_judge(db: &TestDb, name: &str, role: &str) -> String {
    let (ok, out) = cli_on(db, &["judge", "add", name, "--role", role]);
    assert!(ok, "judge add: {out}");
    out.lines()
        .find(|l| l.starts_with("cj_"))
        .unwrap_or_else(|| panic!("no token in: {out}"))
        .trim()
        .to_owned()
}

/// `consilium verify <args…>` (a source and options such as `--ca-cert FILE`).
pub fn verify_with(args: &[&str]) -> (bool, String) {
    if let Ok(dir) = std::env::var("CONSILIUM_WRITE_FIXTURES") {
        for a in args
            .iter()
            .filter(|a| a.starts_with("http") && a.ends_with("export.json"))
        {
            let name = std::thread::current()
                .name()
                .unwrap_or("t")
                .replace("::", "-");
            let n = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
            let _ = std::process::Command::new("curl")
                .args(["-s", "-o", &format!("{dir}/{name}-{n}.json"), a])
                .status();
        }
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_consilium"))
        .arg("verify")
        .args(args)
        .env_remove("CONSILIUM_CA_CERT")
        .output()
        .expect("run verify");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}
