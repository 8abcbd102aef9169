//! A linear reading of the whole exemplar set: ridge regression of hazard (+1) against harmless
//! look-alike (−1) on the exemplars' sentence vectors, fitted when the taxonomy is built. Where
//! the nearest exemplars see one question at a time, the head sees which directions of meaning
//! separate every hazard from every look-alike: a harmless question whose single nearest exemplar
//! is a hazard can still fall on the harmless side of the line.

/// The ridge penalty on the weights (not the bias), chosen on questions by writers outside the
/// exemplars and the evaluation (see `server/data/hazards.tsv`, seventh batch).
pub const RIDGE: f64 = 1.0;

/// `w · [q, 1]`: about +1 on the hazard side, −1 on the look-alike side.
#[derive(Clone, Debug, PartialEq)]
pub struct Head {
    weights: Vec<f32>,
    bias: f32,
}

impl Head {
    /// A head that reads nothing: every query scores 0.
    pub fn none() -> Head {
        Head {
            weights: Vec::new(),
            bias: 0.0,
        }
    }

    /// The ridge fit over whole rows at once (see [`Fit`]).
    #[cfg(test)]
    pub fn fit(vectors: &[Vec<f32>], hazard: &[bool], ridge: f64) -> Head {
        let Some(dim) = vectors.first().map(Vec::len) else {
            return Head::none();
        };
        let mut fit = Fit::new(dim);
        let rows: Vec<f32> = vectors.iter().flatten().copied().collect();
        fit.add(&rows, hazard);
        fit.head(ridge)
    }

    /// The head's score of a query vector; 0 when it has no weights or the width differs.
    pub fn score(&self, q: &[f32]) -> f32 {
        if self.weights.len() != q.len() {
            return 0.0;
        }
        self.weights.iter().zip(q).map(|(w, x)| w * x).sum::<f32>() + self.bias
    }
}

/// The ridge fit, `w = (XᵀX + ridge·I′)⁻¹ Xᵀy` over the rows `[v, 1]`, `y` = +1 for a hazard and
/// −1 for a look-alike, the bias not penalised; fed a block of rows at a time, so that fitting
/// never holds every vector as floats.
pub struct Fit {
    dim: usize,
    /// `XᵀX` of the rows `[v, 1]`, `(dim + 1)²`, row-major, summed in f64 over the blocks.
    xtx: Vec<f64>,
    xty: Vec<f64>,
}

impl Fit {
    pub fn new(dim: usize) -> Fit {
        let d = dim + 1;
        Fit {
            dim,
            xtx: vec![0.0; d * d],
            xty: vec![0.0; d],
        }
    }

    /// Adds the rows of `block` (row-major, `dim` floats each) with their labels; a short last
    /// row, or rows beyond the labels, are left out.
    pub fn add(&mut self, block: &[f32], hazard: &[bool]) {
        let (dim, d) = (self.dim, self.dim + 1);
        if dim == 0 {
            return;
        }
        let n = (block.len() / dim).min(hazard.len());
        let block = &block[..n * dim];
        // The vectors' part of XᵀX through the model's SGEMM; the bias row and column by hand.
        let gram = minilm::gram(block, n, dim);
        for i in 0..dim {
            for j in 0..dim {
                self.xtx[i * d + j] += f64::from(gram[i * dim + j]);
            }
        }
        for (v, &h) in block.chunks_exact(dim).zip(hazard) {
            let y = if h { 1.0 } else { -1.0 };
            for (i, &x) in v.iter().enumerate() {
                let x = f64::from(x);
                self.xtx[i * d + dim] += x;
                self.xtx[dim * d + i] += x;
                self.xty[i] += y * x;
            }
            self.xtx[dim * d + dim] += 1.0;
            self.xty[dim] += y;
        }
    }

    /// The fitted head; [`Head::none`] with no rows or a system that cannot be solved.
    pub fn head(mut self, ridge: f64) -> Head {
        let (dim, d) = (self.dim, self.dim + 1);
        if dim == 0 || self.xtx[dim * d + dim] == 0.0 {
            return Head::none();
        }
        for i in 0..dim {
            self.xtx[i * d + i] += ridge;
        }
        match solve_symmetric(&mut self.xtx, &self.xty, d) {
            Some(w) => Head {
                // The fit is in f64 for stability; the weights are read in f32 like the vectors.
                weights: w[..dim].iter().map(|&x| x as f32).collect(),
                bias: w[dim] as f32,
            },
            None => Head::none(),
        }
    }
}

/// Solves `a·x = b` for a symmetric positive definite `a` (`d × d`, row-major) by Cholesky
/// factorisation, in place; `None` when `a` is not positive definite.
fn solve_symmetric(a: &mut [f64], b: &[f64], d: usize) -> Option<Vec<f64>> {
    // a = L·Lᵀ, L kept in the lower triangle.
    for j in 0..d {
        let mut diag = a[j * d + j];
        for k in 0..j {
            diag -= a[j * d + k] * a[j * d + k];
        }
        if diag <= 1e-12 || !diag.is_finite() {
            return None;
        }
        let diag = diag.sqrt();
        a[j * d + j] = diag;
        for i in j + 1..d {
            let mut s = a[i * d + j];
            for k in 0..j {
                s -= a[i * d + k] * a[j * d + k];
            }
            a[i * d + j] = s / diag;
        }
    }
    // L·z = b, then Lᵀ·x = z.
    let mut z = b.to_vec();
    for i in 0..d {
        for k in 0..i {
            z[i] -= a[i * d + k] * z[k];
        }
        z[i] /= a[i * d + i];
    }
    for i in (0..d).rev() {
        for k in i + 1..d {
            z[i] -= a[k * d + i] * z[k];
        }
        z[i] /= a[i * d + i];
    }
    Some(z)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cholesky's answer against systems solved by hand; a matrix that is not positive definite
    /// has none.
    #[test]
    fn a_symmetric_system_is_solved() {
        // (a, b, x)
        type Row = (Vec<f64>, Vec<f64>, Option<Vec<f64>>);
        let table: [Row; 3] = [
            (
                vec![4.0, 2.0, 2.0, 3.0],
                vec![2.0, 1.0],
                Some(vec![0.5, 0.0]),
            ),
            (
                vec![2.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 4.0],
                vec![2.0, 3.0, 8.0],
                Some(vec![1.0, 1.0, 2.0]),
            ),
            (vec![1.0, 2.0, 2.0, 1.0], vec![1.0, 1.0], None),
        ];
        for (mut a, b, want) in table {
            let got = solve_symmetric(&mut a, &b, b.len());
            match (got, want) {
                (Some(g), Some(w)) => {
                    for (x, y) in g.iter().zip(&w) {
                        assert!((x - y).abs() < 1e-9, "{g:?} vs {w:?}");
                    }
                }
                (g, w) => assert_eq!(g, w),
            }
        }
    }

    /// Two hazards on one side of the plane and two look-alikes on the other: the head scores
    /// each on its own side and a point between them near zero. Without a penalty a point set
    /// that fits exactly is fitted exactly; nothing to fit gives the empty head.
    #[test]
    fn the_head_separates_hazards_from_look_alikes() {
        let vectors = vec![
            vec![1.0, 0.2],
            vec![0.9, -0.1],
            vec![-1.0, 0.1],
            vec![-0.8, -0.2],
        ];
        let hazard = [true, true, false, false];
        let head = Head::fit(&vectors, &hazard, 0.1);
        for (v, &h) in vectors.iter().zip(&hazard) {
            let s = head.score(v);
            assert!(if h { s > 0.5 } else { s < -0.5 }, "{v:?}: {s}");
        }
        assert!(head.score(&[0.05, 0.0]).abs() < 0.2);
        // y = x₀ exactly on these rows: with no penalty the fit is w = (1, 0), bias 0.
        let exact = Head::fit(
            &[
                vec![1.0, 0.0],
                vec![-1.0, 0.0],
                vec![1.0, 1.0],
                vec![-1.0, 1.0],
            ],
            &[true, false, true, false],
            0.0,
        );
        assert!((exact.score(&[0.5, 7.0]) - 0.5).abs() < 1e-5);
        assert_eq!(Head::fit(&[], &[], 1.0), Head::none());
        // Fed a block at a time, the fit is the same.
        let mut blocks = Fit::new(2);
        for (v, h) in vectors.chunks(3).zip(hazard.chunks(3)) {
            blocks.add(&v.concat(), h);
        }
        let blockwise = blocks.head(0.1);
        for v in &vectors {
            assert!((blockwise.score(v) - head.score(v)).abs() < 1e-5);
        }
        assert_eq!(Head::none().score(&[1.0, 2.0]), 0.0);
        assert_eq!(head.score(&[1.0]), 0.0);
    }
}
