//! `compress PKG`: writes each `.js`, `.wasm`, `.css` and `.bin` file of PKG precompressed beside
//! it — `F.br` (brotli, quality 11) and `F.gz` (gzip, level 9, no name or time in the header, so
//! a rebuild writes the same bytes) — which the server sends as the browser accepts. Two files at
//! a time: brotli's top quality is the slowest step of the site's build after the compiles.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::files::{names_in, read, write};

pub fn run(args: &[String]) -> Result<(), String> {
    let [pkg] = args else {
        return Err("usage: compress PKG".into());
    };
    compress_dir(Path::new(pkg))
}

pub fn compress_dir(pkg: &Path) -> Result<(), String> {
    let files: Vec<PathBuf> = names_in(pkg)?
        .into_iter()
        .filter(|n| {
            [".js", ".wasm", ".css", ".bin"]
                .iter()
                .any(|e| n.ends_with(e))
        })
        .map(|n| pkg.join(n))
        .collect();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let mine: Vec<&PathBuf> = files.iter().skip(w).step_by(workers).collect();
                scope.spawn(move || mine.into_iter().try_for_each(|f| compress_file(f)))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a compressing thread panicked".into()))
            })
            .collect()
    });
    results.into_iter().collect()
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

fn compress_file(path: &Path) -> Result<(), String> {
    let data = read(path)?;
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut gz = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    gz.write_all(&data).map_err(err)?;
    write(&with_ext(path, "gz"), &gz.finish().map_err(err)?)?;
    let mut br = Vec::new();
    {
        let mut writer =
            brotli::CompressorWriter::new(&mut br, 1 << 16, 11, window_bits(data.len()));
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
