//! `compress PKG`: writes each `.js`, `.wasm`, `.css` and `.bin` file of PKG precompressed beside
//! it — `F.br` (brotli, quality 11) and `F.gz` (gzip, level 9, no name or time in the header, so
//! a rebuild writes the same bytes) — which the server sends as the browser accepts. One file per
//! core, the largest first: brotli's top quality is the slowest step of the site's build after
//! the compiles and `wasm-opt`.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::files::{names_in, read, write};

pub fn run(args: &[String]) -> Result<(), String> {
    let [pkg] = args else {
        return Err("usage: compress PKG".into());
    };
    compress_dir(Path::new(pkg), Level::Best)
}

/// How hard to compress: `Best` for what is deployed and measured (brotli 11, gzip 9), `Quick`
/// for a site served on this machine (`site quick`: brotli 5, gzip 6, a few seconds in all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Best,
    Quick,
}

impl Level {
    fn brotli(self) -> u32 {
        match self {
            Level::Best => 11,
            Level::Quick => 5,
        }
    }

    fn gzip(self) -> flate2::Compression {
        match self {
            Level::Best => flate2::Compression::best(),
            Level::Quick => flate2::Compression::default(),
        }
    }
}

pub fn compress_dir(pkg: &Path, level: Level) -> Result<(), String> {
    let files: Vec<PathBuf> = names_in(pkg)?
        .into_iter()
        .filter(|n| {
            [".js", ".wasm", ".css", ".bin"]
                .iter()
                .any(|e| n.ends_with(e))
        })
        .map(|n| pkg.join(n))
        .collect();
    crate::files::each_biggest_first(&files, |f| compress_file(f, level))
}

/// Brotli's window for `len` bytes: the smallest that holds the whole file (as the `brotli`
/// command chooses it), from 1 KiB to 16 MiB.
fn window_bits(len: usize) -> u32 {
    let mut bits = 10;
    while bits < 24 && (1usize << bits) - 16 < len {
        bits += 1;
    }
    bits
}

fn compress_file(path: &Path, level: Level) -> Result<(), String> {
    let data = read(path)?;
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut gz = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), level.gzip());
    gz.write_all(&data).map_err(err)?;
    write(&with_ext(path, "gz"), &gz.finish().map_err(err)?)?;
    let mut br = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(
            &mut br,
            1 << 16,
            level.brotli(),
            window_bits(data.len()),
        );
        writer.write_all(&data).map_err(err)?;
        writer.flush().map_err(err)?;
    }
    write(&with_ext(path, "br"), &br)
}

fn with_ext(path: &Path, ext: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(ext);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::window_bits;

    #[test]
    fn the_window_holds_the_file() {
        let table = [
            (0, 10),
            (1000, 10),
            (1009, 11),
            (100_000, 17),
            (3_000_000, 22),
            (1 << 30, 24),
        ];
        for (len, bits) in table {
            assert_eq!(window_bits(len), bits, "{len} bytes");
        }
    }
}
