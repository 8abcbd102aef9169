//! The model's `model.safetensors`, mapped read-only: the float data stays in the kernel's page
//! cache, shared by every process that maps the file and reclaimable under memory pressure; it
//! enters this process's resident set only while a forward pass reads it, and
//! [`Weights::release`] hands it back after a burst of work.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

use memmap2::{Advice, Mmap};

/// Where one tensor lies among the file's floats, and its shape.
#[derive(Clone, Copy, Debug)]
pub struct Tensor {
    at: usize,
    len: usize,
}

enum Bytes {
    Mapped(Mmap),
    /// Tests: a file built in memory.
    Owned(Vec<u8>),
}

pub struct Weights {
    bytes: Bytes,
    /// Where the tensors' data begins in `bytes` (after the 8-byte length and the JSON header).
    data_at: usize,
    /// Float data copied to the heap, only when the data is not 4-byte aligned in the file (no
    /// safetensors file written by the usual tools is; the model's is not).
    copied: Option<Vec<f32>>,
    tensors: HashMap<String, (Tensor, Vec<usize>)>,
}

impl Weights {
    #[allow(unsafe_code)] // mapping a file; see SAFETY
    pub fn open(path: &Path) -> Result<Weights, String> {
        let file = File::open(path).map_err(|e| e.to_string())?;
        // SAFETY: the mapping is read-only, and the setup replaces the model by renaming a new
        // file over it, never by rewriting it in place, so the mapped bytes do not change while
        // a process uses them.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| e.to_string())?;
        // A forward pass reads every weight once, in order.
        let _ = map.advise(Advice::Sequential);
        Weights::parse(Bytes::Mapped(map))
    }

    /// A safetensors file held in memory (tests).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Weights, String> {
        Weights::parse(Bytes::Owned(bytes))
    }

    fn parse(bytes: Bytes) -> Result<Weights, String> {
        let all: &[u8] = match &bytes {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        };
        let len = all.get(..8).ok_or("shorter than a safetensors header")?;
        let n = u64::from_le_bytes(len.try_into().map_err(|_| "bad length")?) as usize;
        let header = all
            .get(8..8usize.saturating_add(n))
            .ok_or_else(|| format!("its header of {n} bytes runs past the end of the file"))?;
        let header: HashMap<String, serde_json::Value> =
            serde_json::from_slice(header).map_err(|e| format!("its header is not JSON: {e}"))?;
        let data_at = 8 + n;
        let data_len = all.len() - data_at;
        let mut tensors = HashMap::new();
        for (name, meta) in header {
            if name == "__metadata__" {
                continue;
            }
            let dtype = meta["dtype"].as_str().unwrap_or("");
            if dtype != "F32" {
                // The model's one integer tensor (position ids) is not needed.
                continue;
            }
            let shape: Vec<usize> = meta["shape"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|d| d.as_u64().map(|d| d as usize))
                        .collect()
                })
                .unwrap_or_default();
            let (Some(a), Some(b)) = (
                meta["data_offsets"][0].as_u64(),
                meta["data_offsets"][1].as_u64(),
            ) else {
                return Err(format!("tensor {name} has no data offsets"));
            };
            let (a, b) = (a as usize, b as usize);
            let count: usize = shape.iter().product();
            if b < a || b > data_len || !a.is_multiple_of(4) || (b - a) != count * 4 {
                return Err(format!(
                    "tensor {name} ({shape:?}) does not fit its offsets {a}..{b} in {data_len} bytes"
                ));
            }
            tensors.insert(
                name,
                (
                    Tensor {
                        at: a / 4,
                        len: count,
                    },
                    shape,
                ),
            );
        }
        let copied = if data_at.is_multiple_of(4) {
            None
        } else {
            Some(
                all[data_at..]
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            )
        };
        Ok(Weights {
            bytes,
            data_at,
            copied,
            tensors,
        })
    }

    /// The named tensor, checked against the shape the model needs.
    pub fn tensor(&self, name: &str, shape: &[usize]) -> Result<Tensor, String> {
        let (t, have) = self
            .tensors
            .get(name)
            .ok_or_else(|| format!("it has no tensor {name}"))?;
        if have != shape {
            return Err(format!("tensor {name} is {have:?}, expected {shape:?}"));
        }
        Ok(*t)
    }

    /// A tensor's floats (little-endian in the file; the hosts we build for are little-endian).
    pub fn get(&self, t: Tensor) -> &[f32] {
        &self.floats()[t.at..t.at + t.len]
    }

    fn floats(&self) -> &[f32] {
        if let Some(v) = &self.copied {
            return v;
        }
        let all: &[u8] = match &self.bytes {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        };
        let data = &all[self.data_at..];
        let whole = data.len() / 4 * 4;
        // Aligned (checked in `parse`: `copied` is None only when `data_at` is a multiple of
        // 4, and mappings and allocations are at least 4-aligned), so the cast cannot fail.
        bytemuck::try_cast_slice(&data[..whole]).unwrap_or(&[])
    }

    /// Takes the mapped pages out of this process's resident set; they stay in the page cache,
    /// and the next forward pass maps them back (minor faults, no disk read while cached).
    #[allow(unsafe_code)] // madvise(MADV_DONTNEED); see SAFETY
    pub fn release(&self) {
        if let Bytes::Mapped(map) = &self.bytes {
            // SAFETY: on a read-only file mapping DONTNEED only drops this process's page-table
            // entries; the next read faults the page back in from the unchanged file, so every
            // slice into the mapping keeps seeing the same bytes.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str, data: &[f32]) -> Vec<u8> {
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(header.as_bytes());
        for f in data {
            out.extend_from_slice(&f.to_le_bytes());
        }
        out
    }

    #[test]
    fn tensors_read_in_place_and_misaligned_data_is_copied() {
        for pad in ["", " ", "  ", "   "] {
            let header =
                format!(r#"{{"w":{{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}}}{pad}"#);
            let w = Weights::from_bytes(file(&header, &[1.0, 2.0, 3.0, 4.0])).expect("parses");
            let t = w.tensor("w", &[2, 2]).expect("w");
            assert_eq!(w.get(t), &[1.0, 2.0, 3.0, 4.0], "padding {}", pad.len());
            assert!(w.tensor("w", &[4]).is_err(), "shape checked");
        }
    }

    /// Each malformed file names its problem.
    #[test]
    fn a_file_that_is_not_the_model_is_refused_by_name() {
        let table: [(Vec<u8>, &str); 4] = [
            (vec![1, 2], "shorter"),
            (vec![100, 0, 0, 0, 0, 0, 0, 0, b'{'], "runs past"),
            (file("{}x", &[]), "not JSON"),
            (
                file(
                    r#"{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}}"#,
                    &[0.0; 4],
                ),
                "does not fit",
            ),
        ];
        for (bytes, want) in table {
            let err = Weights::from_bytes(bytes).err().expect("refused");
            assert!(err.contains(want), "{err} ∌ {want}");
        }
        let w = Weights::from_bytes(file("{}", &[])).expect("empty is a file");
        assert!(w
            .tensor("missing", &[1])
            .unwrap_err()
            .contains("no tensor missing"));
    }
}
