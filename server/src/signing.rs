//! This server's Ed25519 key. Created on first start (256 random bits from the OS) and kept in a
//! file under the data directory (`--signing-key`, `--data-dir`; mode 0600, and a key file that
//! group or others may read is refused); its public half is served at `GET /api/keys`. Every log that ends is signed over its last hash
//! ([`app::audit::signature`]), so a log edited and re-hashed by hand no longer verifies.

use std::path::{Path, PathBuf};

use app::audit::signature::{key_id, message, to_hex, LogSignature};
use ed25519_dalek::{Signer as _, SigningKey};

#[derive(Debug, thiserror::Error)]
pub enum SigningError {
    #[error("cannot read the signing key {path}: {error}")]
    Read { path: PathBuf, error: String },
    #[error("cannot create the signing key {path}: {error}")]
    Create { path: PathBuf, error: String },
    #[error(
        "the signing key {0} is not 64 hex digits (an Ed25519 secret key); restore it from a \
         backup, or move it away to make a new one"
    )]
    Malformed(PathBuf),
    #[error(
        "the signing key {path} may be read by group or others (mode {mode:o}): anyone who can read \
         it can sign logs as this server; run `chmod 600 {path}` (and make a new key if others may \
         have read it)"
    )]
    Exposed { path: PathBuf, mode: u32 },
    #[error("cannot make {path} an absolute path: {error}")]
    Path { path: PathBuf, error: String },
}

pub struct Signer {
    key: SigningKey,
    pub key_id: String,
    /// The public key, hex.
    pub public_key: String,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secret half.
        write!(f, "Signer({})", self.key_id)
    }
}

impl Signer {
    /// The key in `path`, made (and written, readable only by this user) if the file is missing.
    pub fn load_or_create(path: &Path) -> Result<Signer, SigningError> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                refuse_exposed(path)?;
                let bytes = app::audit::signature::hex_bytes(text.trim())
                    .and_then(|b| <[u8; 32]>::try_from(b).ok())
                    .ok_or_else(|| SigningError::Malformed(path.to_owned()))?;
                Ok(Signer::from_seed(bytes))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let create = |error: String| SigningError::Create {
                    path: path.to_owned(),
                    error,
                };
                let seed = fresh_seed().map_err(create)?;
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|e| create(e.to_string()))?;
                }
                match write_private(path, &to_hex(&seed)) {
                    Ok(()) => {}
                    // Another process of this installation (PostgreSQL) made it first: use theirs.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        return Signer::load_or_create(path)
                    }
                    Err(e) => return Err(create(e.to_string())),
                }
                let signer = Signer::from_seed(seed);
                tracing::info!(
                    "made a signing key {} in {} (back it up: logs signed by it verify only \
                     against it)",
                    signer.key_id,
                    path.display()
                );
                Ok(signer)
            }
            Err(e) => Err(SigningError::Read {
                path: path.to_owned(),
                error: e.to_string(),
            }),
        }
    }

    /// This server's key: `signing_key`, else `DATA_DIR/consilium.signing-key` (see
    /// [`key_path`]), made on first start; for an in-memory database without either, one kept in
    /// memory only.
    pub fn for_server(
        signing_key: Option<&Path>,
        data_dir: Option<&Path>,
        database_url: &str,
    ) -> Result<Signer, SigningError> {
        let signer = match key_path(signing_key, data_dir, database_url)? {
            Some(path) => {
                let signer = Signer::load_or_create(&path)?;
                tracing::info!(
                    "signing ended logs with key {} ({})",
                    signer.key_id,
                    path.display()
                );
                signer
            }
            None => {
                let signer = Signer::ephemeral()?;
                tracing::info!(
                    "signing ended logs with key {}, kept in memory only",
                    signer.key_id
                );
                signer
            }
        };
        Ok(signer)
    }

    /// A key that lives only in memory (an in-memory database's server; tests).
    pub fn ephemeral() -> Result<Signer, SigningError> {
        let seed = fresh_seed().map_err(|error| SigningError::Create {
            path: PathBuf::from("(memory)"),
            error,
        })?;
        Ok(Signer::from_seed(seed))
    }

    fn from_seed(seed: [u8; 32]) -> Signer {
        let key = SigningKey::from_bytes(&seed);
        let public = key.verifying_key().to_bytes();
        Signer {
            key,
            key_id: key_id(&public),
            public_key: to_hex(&public),
        }
    }

    /// The signature over a log that ends at event `seq` with `hash`.
    pub fn sign(&self, debate_id: &str, seq: u64, hash: &str) -> LogSignature {
        let signature = self.key.sign(&message(debate_id, seq, hash));
        LogSignature {
            algorithm: "ed25519".into(),
            key_id: self.key_id.clone(),
            public_key: self.public_key.clone(),
            seq,
            hash: hash.to_owned(),
            signature: to_hex(&signature.to_bytes()),
        }
    }
}

fn fresh_seed() -> Result<[u8; 32], String> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| format!("no randomness: {e}"))?;
    Ok(seed)
}

/// Writes the key whole before it appears under its name: into a file of its own beside it, then
/// linked to `path`, which fails with `AlreadyExists` if another process of this installation
/// made the key first — no process ever reads a half-written key.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let staging = PathBuf::from(format!("{}.{}.new", path.display(), std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let written = (|| {
        let mut file = options.open(&staging)?;
        file.write_all(text.as_bytes())?;
        file.write_all(b"\n")?;
        file.sync_all()?;
        std::fs::hard_link(&staging, path)
    })();
    let _ = std::fs::remove_file(&staging);
    written
}

/// A key file must be this user's alone.
fn refuse_exposed(path: &Path) -> Result<(), SigningError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map_err(|e| SigningError::Read {
                path: path.to_owned(),
                error: e.to_string(),
            })?
            .permissions()
            .mode()
            & 0o777;
        if mode & 0o077 != 0 {
            return Err(SigningError::Exposed {
                path: path.to_owned(),
                mode,
            });
        }
    }
    Ok(())
}

/// The key's file, absolute whatever the working directory: `signing_key`, else
/// `DATA_DIR/consilium.signing-key` where the data directory is `data_dir`, else the SQLite
/// file's folder, else (PostgreSQL) `data/` of this checkout; `None` for an in-memory database
/// without either.
pub fn key_path(
    signing_key: Option<&Path>,
    data_dir: Option<&Path>,
    database_url: &str,
) -> Result<Option<PathBuf>, SigningError> {
    let absolute = |path: &Path| {
        std::path::absolute(path).map_err(|e| SigningError::Path {
            path: path.to_owned(),
            error: e.to_string(),
        })
    };
    if let Some(key) = signing_key {
        return absolute(key).map(Some);
    }
    let sqlite = sqlite_file(database_url);
    let data_dir = match (data_dir, &sqlite) {
        (Some(dir), _) => dir.to_path_buf(),
        (None, Some(db)) => db
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        (None, None) if database_url.to_ascii_lowercase().starts_with("sqlite:") => {
            return Ok(None)
        }
        (None, None) => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../data")),
    };
    let data_dir = absolute(&data_dir)?;
    let sqlite = sqlite.map(|db| absolute(&db)).transpose()?;
    let url = sqlite.map_or_else(
        || database_url.to_owned(),
        |db| format!("sqlite:{}", db.display()),
    );
    Ok(Some(default_path(&data_dir, &url)))
}

/// The key's file name under the data directory.
pub const KEY_FILE: &str = "consilium.signing-key";

/// Where the key lives by default: `DATA_DIR/consilium.signing-key`. A key an earlier version made
/// beside a SQLite file (`consilium.db.signing-key`) is kept in use while the new file is absent,
/// so logs go on being signed by the key judges already pinned.
pub fn default_path(data_dir: &Path, database_url: &str) -> PathBuf {
    let path = data_dir.join(KEY_FILE);
    if !path.exists() {
        if let Some(db) = sqlite_file(database_url) {
            let beside = PathBuf::from(format!("{}.signing-key", db.display()));
            if beside.is_file() {
                return beside;
            }
        }
    }
    path
}

/// The file of a `sqlite:` URL; `None` for an in-memory database or another kind of URL.
pub fn sqlite_file(database_url: &str) -> Option<PathBuf> {
    let lower = database_url.to_ascii_lowercase();
    if !lower.starts_with("sqlite:") {
        return None;
    }
    let path = database_url
        .strip_prefix("sqlite://")
        .or_else(|| database_url.strip_prefix("sqlite:"))
        .unwrap_or(database_url);
    let path = path.split('?').next().unwrap_or(path);
    (path != ":memory:" && !path.is_empty()).then(|| PathBuf::from(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::audit::signature::{check_signature, SignatureCheck};

    #[test]
    fn a_key_is_made_once_kept_private_and_signs_what_verifies() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("k");
        let a = Signer::load_or_create(&path).expect("create");
        let b = Signer::load_or_create(&path).expect("load");
        assert_eq!(a.public_key, b.public_key, "the same key after a restart");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(!format!("{a:?}").contains(&std::fs::read_to_string(&path).expect("read")[..20]));
        std::fs::write(dir.path().join("bad"), "nope").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let private = std::fs::Permissions::from_mode(0o600);
            std::fs::set_permissions(dir.path().join("bad"), private).expect("chmod");
        }
        assert!(matches!(
            Signer::load_or_create(&dir.path().join("bad")),
            Err(SigningError::Malformed(_))
        ));
        let data = dir.path().join("data");
        assert_eq!(
            default_path(&data, "sqlite:x/consilium.db"),
            data.join(KEY_FILE)
        );
        assert_eq!(sqlite_file("sqlite::memory:"), None);
        assert_eq!(
            sqlite_file("sqlite://d/c.db?mode=rwc"),
            Some(PathBuf::from("d/c.db"))
        );
        assert_eq!(sqlite_file("postgres://u@h/db"), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let shared = dir.path().join("shared");
            Signer::load_or_create(&shared).expect("create");
            std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o640))
                .expect("chmod");
            let error = Signer::load_or_create(&shared).expect_err("a key others may read");
            assert!(matches!(error, SigningError::Exposed { mode: 0o640, .. }));
            assert!(error.to_string().contains("chmod 600"), "{error}");
        }
        let _ = check_signature;
        let _ = SignatureCheck::Unsigned;
    }
}
