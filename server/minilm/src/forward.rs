//! BERT's encoder, forward only, in f32: embeddings (word + position + token type 0) and their
//! LayerNorm; per layer, multi-head self-attention with a residual LayerNorm, then the
//! feed-forward (exact GELU) with a residual LayerNorm; finally the mean of every token's output
//! (sentence-transformers' pooling; no padding, so every token counts), L2-normalised.

use crate::weights::{Tensor, Weights};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub vocab: usize,
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub intermediate: usize,
    pub positions: usize,
}

/// all-MiniLM-L6-v2's `config.json`.
pub const MINILM_L6: Config = Config {
    vocab: 30522,
    hidden: 384,
    layers: 6,
    heads: 12,
    intermediate: 1536,
    positions: 512,
};

const LAYER_NORM_EPS: f32 = 1e-12;

struct Layer {
    q: (Tensor, Tensor),
    k: (Tensor, Tensor),
    v: (Tensor, Tensor),
    out: (Tensor, Tensor),
    norm1: (Tensor, Tensor),
    up: (Tensor, Tensor),
    down: (Tensor, Tensor),
    norm2: (Tensor, Tensor),
}

pub(crate) struct Net {
    pub(crate) config: Config,
    word: Tensor,
    position: Tensor,
    token_type: Tensor,
    norm: (Tensor, Tensor),
    layers: Vec<Layer>,
}

impl Net {
    /// Finds every tensor the encoder reads, with its shape checked.
    pub(crate) fn locate(w: &Weights, c: Config) -> Result<Net, String> {
        let h = c.hidden;
        let linear = |name: &str, out: usize, inp: usize| -> Result<(Tensor, Tensor), String> {
            Ok((
                w.tensor(&format!("{name}.weight"), &[out, inp])?,
                w.tensor(&format!("{name}.bias"), &[out])?,
            ))
        };
        let norm = |name: &str| -> Result<(Tensor, Tensor), String> {
            Ok((
                w.tensor(&format!("{name}.weight"), &[h])?,
                w.tensor(&format!("{name}.bias"), &[h])?,
            ))
        };
        let layers = (0..c.layers)
            .map(|i| {
                let p = format!("encoder.layer.{i}");
                Ok(Layer {
                    q: linear(&format!("{p}.attention.self.query"), h, h)?,
                    k: linear(&format!("{p}.attention.self.key"), h, h)?,
                    v: linear(&format!("{p}.attention.self.value"), h, h)?,
                    out: linear(&format!("{p}.attention.output.dense"), h, h)?,
                    norm1: norm(&format!("{p}.attention.output.LayerNorm"))?,
                    up: linear(&format!("{p}.intermediate.dense"), c.intermediate, h)?,
                    down: linear(&format!("{p}.output.dense"), h, c.intermediate)?,
                    norm2: norm(&format!("{p}.output.LayerNorm"))?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Net {
            config: c,
            word: w.tensor("embeddings.word_embeddings.weight", &[c.vocab, h])?,
            position: w.tensor("embeddings.position_embeddings.weight", &[c.positions, h])?,
            token_type: w.tensor("embeddings.token_type_embeddings.weight", &[2, h])?,
            norm: norm("embeddings.LayerNorm")?,
            layers,
        })
    }

    /// The sentence embeddings of token sequences (each with `[CLS]` … `[SEP]`, at most the
    /// model's positions long).
    pub(crate) fn run(&self, w: &Weights, seqs: &[Vec<u32>]) -> Vec<Vec<f32>> {
        let c = self.config;
        let h = c.hidden;
        let seqs: Vec<&[u32]> = seqs
            .iter()
            .map(|s| &s[..s.len().min(c.positions)])
            .collect();
        let t: usize = seqs.iter().map(|s| s.len()).sum();
        if t == 0 {
            return seqs.iter().map(|_| vec![0.0; h]).collect();
        }
        // Embeddings, every sentence's tokens stacked as rows.
        let (word, position, token_type) = (
            w.get(self.word),
            w.get(self.position),
            w.get(self.token_type),
        );
        let mut x = vec![0f32; t * h];
        let mut row = 0;
        for s in &seqs {
            for (p, &id) in s.iter().enumerate() {
                let id = (id as usize).min(c.vocab - 1);
                let dst = &mut x[row * h..(row + 1) * h];
                let we = &word[id * h..(id + 1) * h];
                let pe = &position[p * h..(p + 1) * h];
                for j in 0..h {
                    dst[j] = we[j] + pe[j] + token_type[j];
                }
                row += 1;
            }
        }
        layer_norm(&mut x, h, w.get(self.norm.0), w.get(self.norm.1));

        let mut q = vec![0f32; t * h];
        let mut k = vec![0f32; t * h];
        let mut v = vec![0f32; t * h];
        let mut ctx = vec![0f32; t * h];
        let mut tmp = vec![0f32; t * h];
        let mut up = vec![0f32; t * c.intermediate];
        let longest = seqs.iter().map(|s| s.len()).max().unwrap_or(0);
        let mut scores = vec![0f32; longest * longest];
        for l in &self.layers {
            linear(w, &x, t, h, l.q, h, &mut q);
            linear(w, &x, t, h, l.k, h, &mut k);
            linear(w, &x, t, h, l.v, h, &mut v);
            let mut at = 0;
            for s in &seqs {
                attend(&c, &q, &k, &v, at, s.len(), &mut scores, &mut ctx);
                at += s.len();
            }
            linear(w, &ctx, t, h, l.out, h, &mut tmp);
            add(&mut x, &tmp);
            layer_norm(&mut x, h, w.get(l.norm1.0), w.get(l.norm1.1));
            linear(w, &x, t, h, l.up, c.intermediate, &mut up);
            up.iter_mut().for_each(|u| *u = gelu(*u));
            linear(w, &up, t, c.intermediate, l.down, h, &mut tmp);
            add(&mut x, &tmp);
            layer_norm(&mut x, h, w.get(l.norm2.0), w.get(l.norm2.1));
        }

        let mut out = Vec::with_capacity(seqs.len());
        let mut at = 0;
        for s in &seqs {
            let mut mean = vec![0f32; h];
            for r in at..at + s.len() {
                add(&mut mean, &x[r * h..(r + 1) * h]);
            }
            at += s.len();
            let norm = mean.iter().map(|m| m * m).sum::<f32>().sqrt();
            if norm > 0.0 {
                mean.iter_mut().for_each(|m| *m /= norm);
            }
            out.push(mean);
        }
        out
    }
}

/// `out[t×n] = x[t×k] · Wᵀ + b`, with `W` stored `n×k` (PyTorch's `Linear`).
fn linear(
    w: &Weights,
    x: &[f32],
    t: usize,
    k: usize,
    (weight, bias): (Tensor, Tensor),
    n: usize,
    out: &mut [f32],
) {
    let (weight, bias) = (w.get(weight), w.get(bias));
    for r in out.chunks_exact_mut(n).take(t) {
        r.copy_from_slice(bias);
    }
    // Wᵀ is W read with its strides swapped.
    gemm(t, k, n, x, (k, 1), weight, (1, k), 1.0, out, n);
}

/// `xᵀx` of a row-major `n × d` matrix, `d × d` row-major: the Gram matrix, through the same
/// SGEMM as the model (the builtin agents fit a linear reading of their exemplars with it).
pub fn gram(x: &[f32], n: usize, d: usize) -> Vec<f32> {
    let mut out = vec![0.0; d * d];
    if n == 0 || d == 0 || x.len() < n * d {
        return out;
    }
    // xᵀ is x read with its strides swapped.
    gemm(d, n, d, x, (1, d), x, (d, 1), 1.0, &mut out, d);
    out
}

/// `c[m×n] = alpha · a[m×k] · b[k×n] + c`, each matrix given with its (row, column) strides; `c`
/// is row-major with `ldc` floats per row.
#[allow(clippy::too_many_arguments)]
#[allow(unsafe_code)] // matrixmultiply's SGEMM takes raw pointers; see SAFETY
fn gemm(
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    (rsa, csa): (usize, usize),
    b: &[f32],
    (rsb, csb): (usize, usize),
    alpha: f32,
    c: &mut [f32],
    ldc: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    let last = |rows: usize, cols: usize, rs: usize, cs: usize| (rows - 1) * rs + (cols - 1) * cs;
    // The checks that make the raw-pointer call sound: every element the product reads or
    // writes lies inside its slice.
    assert!(
        k == 0 || last(m, k, rsa, csa) < a.len(),
        "gemm: a too short"
    );
    assert!(
        k == 0 || last(k, n, rsb, csb) < b.len(),
        "gemm: b too short"
    );
    assert!(last(m, n, ldc, 1) < c.len(), "gemm: c too short");
    // SAFETY: the asserts above bound every index the product touches by the slices' lengths;
    // `c` is borrowed mutably and so overlaps neither `a` nor `b`.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            alpha,
            a.as_ptr(),
            rsa as isize,
            csa as isize,
            b.as_ptr(),
            rsb as isize,
            csb as isize,
            1.0,
            c.as_mut_ptr(),
            ldc as isize,
            1,
        );
    }
}

/// Self-attention of one sentence (rows `at..at+len`), every head: `ctx = softmax(QKᵀ/√d)·V`.
#[allow(clippy::too_many_arguments)]
fn attend(
    c: &Config,
    q: &[f32],
    k: &[f32],
    v: &[f32],
    at: usize,
    len: usize,
    scores: &mut [f32],
    ctx: &mut [f32],
) {
    let h = c.hidden;
    let d = h / c.heads;
    let scale = 1.0 / (d as f32).sqrt();
    let scores = &mut scores[..len * len];
    for head in 0..c.heads {
        let off = at * h + head * d;
        scores.iter_mut().for_each(|s| *s = 0.0);
        // scores = scale · Q_h · K_hᵀ: Q_h is len×d with row stride h, K_hᵀ is K_h read transposed.
        gemm(
            len,
            d,
            len,
            &q[off..],
            (h, 1),
            &k[off..],
            (1, h),
            scale,
            scores,
            len,
        );
        for row in scores.chunks_exact_mut(len) {
            let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let mut sum = 0.0;
            for s in row.iter_mut() {
                *s = (*s - max).exp();
                sum += *s;
            }
            row.iter_mut().for_each(|s| *s /= sum);
        }
        // ctx_h = P · V_h, written into the head's columns of ctx.
        for r in 0..len {
            ctx[off + r * h..off + r * h + d]
                .iter_mut()
                .for_each(|x| *x = 0.0);
        }
        gemm(
            len,
            len,
            d,
            scores,
            (len, 1),
            &v[off..],
            (h, 1),
            1.0,
            &mut ctx[off..],
            h,
        );
    }
}

fn add(x: &mut [f32], y: &[f32]) {
    x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
}

fn layer_norm(x: &mut [f32], h: usize, weight: &[f32], bias: &[f32]) {
    for row in x.chunks_exact_mut(h) {
        let mean = row.iter().sum::<f32>() / h as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
        let inv = 1.0 / (var + LAYER_NORM_EPS).sqrt();
        for ((v, g), b) in row.iter_mut().zip(weight).zip(bias) {
            *v = (*v - mean) * inv * g + b;
        }
    }
}

/// The exact GELU, `x·Φ(x)`, as BERT's `hidden_act: gelu`.
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// erf by Abramowitz and Stegun 7.1.26: absolute error below 1.5e-7, under f32's resolution
/// of GELU's output.
fn erf(x: f32) -> f32 {
    let s = x.signum();
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let y = 1.0
        - (((((1.061_405_4 * t - 1.453_152_1) * t) + 1.421_413_8) * t - 0.284_496_74) * t
            + 0.254_829_6)
            * t
            * (-a * a).exp();
    s * y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_its_table() {
        // erf values from Abramowitz and Stegun's Table 7.1.
        let table = [
            (0.0, 0.0),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (2.0, 0.995_322_3),
            (-1.0, -0.842_700_8),
        ];
        for (x, want) in table {
            assert!(
                (erf(x) - want).abs() < 1e-6,
                "erf({x}) = {} ≠ {want}",
                erf(x)
            );
        }
    }

    /// The strided product against a plain triple loop, with a transposed operand.
    #[test]
    fn gemm_with_strides_is_the_plain_product() {
        let (m, k, n) = (3, 4, 5);
        let a: Vec<f32> = (0..m * k).map(|i| i as f32 * 0.5 - 2.0).collect();
        // b stored transposed: n×k row-major.
        let bt: Vec<f32> = (0..n * k).map(|i| (i % 7) as f32 - 3.0).collect();
        let mut c = vec![1.0f32; m * n];
        gemm(m, k, n, &a, (k, 1), &bt, (1, k), 2.0, &mut c, n);
        for i in 0..m {
            for j in 0..n {
                let want: f32 =
                    1.0 + 2.0 * (0..k).map(|p| a[i * k + p] * bt[j * k + p]).sum::<f32>();
                assert!((c[i * n + j] - want).abs() < 1e-4, "c[{i}][{j}]");
            }
        }
    }

    /// The Gram matrix against a plain double sum; a short or empty matrix gives zeros.
    #[test]
    fn gram_is_x_transposed_times_x() {
        let (n, d) = (5, 3);
        let x: Vec<f32> = (0..n * d).map(|i| (i % 4) as f32 - 1.5).collect();
        let g = gram(&x, n, d);
        for i in 0..d {
            for j in 0..d {
                let want: f32 = (0..n).map(|r| x[r * d + i] * x[r * d + j]).sum();
                assert!((g[i * d + j] - want).abs() < 1e-4, "g[{i}][{j}]");
            }
        }
        assert_eq!(gram(&x[..4], n, d), vec![0.0; d * d]);
        assert_eq!(gram(&[], 0, 2), vec![0.0; 4]);
    }
}
