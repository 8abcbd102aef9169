//! The schema's migrations, embedded in the binary from `server/migrations/`. Built at run time
//! from the files' text rather than by sqlx's `migrate!` macro: that macro needs sqlx's `macros`
//! feature, which compiles a second copy of sqlx's database drivers (and SQLite's C source) for
//! the compiler itself. The version, description, checksum (SHA-384 of the text) and transaction
//! rule are those `migrate!` derives from the same files, so databases it migrated carry on.

use std::borrow::Cow;

use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::SqlStr;

/// `(file name, text)` of every migration of both database kinds, which share their file names:
/// `server/migrations/sqlite/` and `server/migrations/postgres/`.
macro_rules! embedded {
    ($($file:literal),+ $(,)?) => {
        (
            &[$(($file, include_str!(concat!("../../migrations/sqlite/", $file)))),+],
            &[$(($file, include_str!(concat!("../../migrations/postgres/", $file)))),+],
        )
    };
}

type Files = &'static [(&'static str, &'static str)];

const EMBEDDED: (Files, Files) = embedded!(
    "0001_debates.sql",
    "0002_owner.sql",
    "0003_budget_status.sql",
    "0004_access.sql",
    "0005_signatures.sql",
    "0006_track_record.sql",
    "0007_vote_baseline.sql",
    "0008_log_signatures.sql",
);
const SQLITE: Files = EMBEDDED.0;
const POSTGRES: Files = EMBEDDED.1;

pub fn sqlite() -> Migrator {
    migrator(SQLITE)
}

pub fn postgres() -> Migrator {
    migrator(POSTGRES)
}

/// As `migrate!` reads a folder: `VERSION_DESCRIPTION.sql`, underscores in the description read
/// as spaces, and a file that opens with `-- no-transaction` runs outside a transaction.
fn migrator(files: &'static [(&'static str, &'static str)]) -> Migrator {
    let migrations = files
        .iter()
        .map(|&(name, sql)| {
            let (version, rest) = name.split_once('_').unwrap_or((name, ""));
            Migration::new(
                version.parse().unwrap_or_default(),
                Cow::Owned(rest.trim_end_matches(".sql").replace('_', " ")),
                MigrationType::Simple,
                SqlStr::from_static(sql),
                sql.starts_with("-- no-transaction"),
            )
        })
        .collect();
    Migrator::with_migrations(migrations)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A migration file added to the folder but not to the lists above would never run.
    #[test]
    fn every_migration_file_is_embedded_in_order() {
        for (dir, files) in [("sqlite", SQLITE), ("postgres", POSTGRES)] {
            let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("migrations")
                .join(dir);
            let mut on_disk: Vec<String> = std::fs::read_dir(&folder)
                .expect("the migrations folder")
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.ends_with(".sql"))
                .collect();
            on_disk.sort();
            let embedded: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
            assert_eq!(on_disk, embedded, "server/migrations/{dir}");
            for (i, (name, sql)) in files.iter().enumerate() {
                let text = std::fs::read_to_string(folder.join(name)).expect("read");
                assert_eq!(&text, sql, "{name}");
                let m = &migrator(files).migrations[i];
                assert_eq!(m.version, i64::try_from(i + 1).expect("small"), "{name}");
                assert!(!m.description.is_empty(), "{name}");
            }
        }
    }
}
