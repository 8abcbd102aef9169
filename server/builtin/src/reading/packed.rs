//! The hazard exemplars' sentence vectors as the taxonomy keeps them: a byte per dimension.

/// Unit vectors in a byte per dimension, each scaled by its largest component, all in one
/// allocation: thirteen thousand exemplars hold 5.0 MB rather than 20, and a cosine moves by
/// less than 0.005.
pub(crate) struct Packed {
    dim: usize,
    scales: Vec<f32>,
    bytes: Vec<i8>,
}

impl Packed {
    pub fn new(dim: usize, rows: usize) -> Packed {
        Packed {
            dim,
            scales: Vec::with_capacity(rows),
            bytes: Vec::with_capacity(rows * dim),
        }
    }

    /// Appends `v` (of [`Packed::dim`] floats).
    pub fn push(&mut self, v: &[f32]) {
        let top = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if top > 0.0 { top / 127.0 } else { 1.0 };
        self.scales.push(scale);
        // In -127..=127 by construction: the cast cannot wrap.
        self.bytes
            .extend(v.iter().map(|x| (x / scale).round() as i8));
    }

    pub fn len(&self) -> usize {
        self.scales.len()
    }

    /// The cosine of a unit vector with row `i`.
    pub fn cosine(&self, i: usize, q: &[f32]) -> f32 {
        let row = &self.bytes[i * self.dim..(i + 1) * self.dim];
        let dot: f32 = q.iter().zip(row).map(|(x, b)| x * f32::from(*b)).sum();
        dot * self.scales[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A packed vector's cosine is the exact one to within 0.005, for unit vectors of every shape; a
    /// zero vector's is 0.
    #[test]
    fn a_packed_vector_keeps_its_cosines() {
        let unit = |v: Vec<f32>| {
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.into_iter().map(|x| x / n).collect::<Vec<f32>>()
        };
        let table: [(Vec<f32>, Vec<f32>); 4] = [
            (vec![1.0, 0.0, 0.0], vec![1.0, 0.0, 0.0]),
            (vec![0.3, -0.5, 0.8], vec![0.3, -0.5, 0.8]),
            (vec![0.3, -0.5, 0.8], vec![-0.9, 0.1, 0.2]),
            (
                (0..384)
                    .map(|i| ((i * 7 % 13) as f32 - 6.0) / 6.0)
                    .collect(),
                (0..384)
                    .map(|i| ((i * 5 % 11) as f32 - 5.0) / 5.0)
                    .collect(),
            ),
        ];
        for (a, b) in table {
            let (a, b) = (unit(a), unit(b));
            let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            // A zero row first: each row is read from its own place in the one allocation.
            let mut packed = Packed::new(a.len(), 2);
            packed.push(&vec![0.0; a.len()]);
            packed.push(&a);
            assert_eq!(packed.cosine(0, &b), 0.0);
            let got = packed.cosine(1, &b);
            assert!((got - exact).abs() < 0.005, "{exact} vs {got}");
        }
    }
}
