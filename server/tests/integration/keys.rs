//! The server's signing key on disk: made under the data directory whatever the working
//! directory, private to its user, and refused at start when group or others may read it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `consilium serve` in `cwd` with `flags`: `None` once it listens (it is then stopped), or
/// `Some(what it printed)` if it exits first.
fn serve_in(cwd: &Path, flags: &[&str]) -> Option<String> {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_consilium"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(flags)
        .current_dir(cwd)
        .env_remove("CONSILIUM_SIGNING_KEY")
        .env_remove("CONSILIUM_DATA_DIR")
        .env_remove("DATABASE_URL")
        .env("NO_COLOR", "1")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start consilium");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let listening = line.contains("listening on");
            if tx.send((line, listening)).is_err() || listening {
                return;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut printed = String::new();
    while Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok((_, true)) => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok((line, false)) => printed.push_str(&line),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    if child.try_wait().ok().flatten().is_none() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().expect("output");
    Some(format!("{printed}{}", String::from_utf8_lossy(&out.stderr)))
}

#[cfg(unix)]
#[test]
fn a_key_others_may_read_is_refused_at_start_naming_the_chmod() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let key = dir.path().join("shared.signing-key");
    std::fs::write(&key, format!("{}\n", "ab".repeat(32))).expect("write");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let db = format!("sqlite:{}", dir.path().join("c.db").display());
    let key_flag = key.to_str().expect("utf-8");
    let out = serve_in(
        dir.path(),
        &["--database-url", &db, "--signing-key", key_flag],
    )
    .expect("the server must refuse to start, not serve");
    assert!(out.contains("chmod 600"), "{out}");
    assert!(out.contains(key_flag), "the error names the file: {out}");
    // Made private, the same key is taken.
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    assert!(
        serve_in(
            dir.path(),
            &["--database-url", &db, "--signing-key", key_flag]
        )
        .is_none(),
        "a private key starts the server"
    );
}

#[cfg(unix)]
#[test]
fn the_default_key_is_made_private_under_the_data_directory_not_the_working_directory() {
    use std::os::unix::fs::PermissionsExt;
    let data = tempfile::tempdir().expect("tempdir");
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let db = format!("sqlite:{}", data.path().join("consilium.db").display());
    assert!(serve_in(elsewhere.path(), &["--database-url", &db]).is_none());
    let key = data.path().join("consilium.signing-key");
    let mode = std::fs::metadata(&key)
        .expect("the key is under the database's folder")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    assert!(
        std::fs::read_dir(elsewhere.path())
            .expect("read")
            .next()
            .is_none(),
        "nothing is written in the working directory"
    );
    // --data-dir puts it there instead, made absolute.
    let chosen = data.path().join("keys");
    let chosen_flag = chosen.to_str().expect("utf-8");
    assert!(serve_in(
        elsewhere.path(),
        &["--database-url", &db, "--data-dir", chosen_flag]
    )
    .is_none());
    assert!(chosen.join("consilium.signing-key").is_file());
}
