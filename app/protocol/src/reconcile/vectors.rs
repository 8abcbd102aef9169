//! RC-1's arithmetic on logged embeddings: quantising a model's vector to the integers the log
//! keeps, cosine similarity on them (integer dot products, so the server, `verify` and the
//! browser get the same bits), and the lexical fallback used only when the embedder failed.

use super::types::{MAX_DIM, SCALE};

/// The model name the lexical fallback logs; the UI and README name it as not meaning.
pub const LEXICAL: &str = "lexical-fallback";
/// The lexical fallback's dimensions (hashed words).
pub const LEXICAL_DIM: usize = 256;

/// A model's vector as the log keeps it: L2-normalised, times [`SCALE`], rounded. `None` for an
/// empty, over-long, non-finite or all-zero vector.
pub fn quantise(v: &[f32]) -> Option<Vec<i16>> {
    if v.is_empty() || v.len() > MAX_DIM || v.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let norm = v
        .iter()
        .map(|x| f64::from(*x) * f64::from(*x))
        .sum::<f64>()
        .sqrt();
    if norm == 0.0 {
        return None;
    }
    Some(
        v.iter()
            .map(|x| (f64::from(*x) / norm * f64::from(SCALE)).round() as i16)
            .collect(),
    )
}

/// A sum of logged vectors (a topic's centroid, unnormalised): exact in `i64`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sum(pub Vec<i64>);

impl Sum {
    pub fn of(v: &[i16]) -> Sum {
        Sum(v.iter().map(|x| i64::from(*x)).collect())
    }

    pub fn add(&mut self, other: &Sum) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a += b;
        }
    }

    fn norm(&self) -> f64 {
        (self.0.iter().map(|x| (x * x) as f64).sum::<f64>()).sqrt()
    }

    /// Cosine similarity with `other`, rounded to three decimals (as logged and compared).
    pub fn cosine(&self, other: &Sum) -> f64 {
        let dot: i64 = self.0.iter().zip(&other.0).map(|(a, b)| a * b).sum();
        let n = self.norm() * other.norm();
        if n == 0.0 {
            return 0.0;
        }
        round3(dot as f64 / n)
    }
}

pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The fallback when no embedder answered: hashed word counts (FNV-1a of each lowercased word
/// of three letters or more, and of each number), normalised. It groups by shared words, not
/// by meaning, and is logged as [`LEXICAL`].
pub fn lexical(text: &str) -> Vec<i16> {
    let mut v = vec![0f32; LEXICAL_DIM];
    let lower = text.to_lowercase();
    for word in lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3 || w.chars().any(|c| c.is_ascii_digit()))
    {
        let mut h: u32 = 0x811c_9dc5;
        for b in word.bytes() {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
        v[(h as usize) % LEXICAL_DIM] += 1.0;
    }
    quantise(&v).unwrap_or_else(|| vec![0; LEXICAL_DIM])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RC-1: logged vectors are unit length times SCALE; cosine is symmetric and exact for
    /// equal vectors; bad vectors are refused.
    #[test]
    fn quantised_vectors_compare_by_cosine() {
        let a = quantise(&[3.0, 4.0]).expect("a vector");
        assert_eq!(a, vec![600, 800]);
        let b = quantise(&[4.0, 3.0]).expect("a vector");
        let (sa, sb) = (Sum::of(&a), Sum::of(&b));
        assert_eq!(sa.cosine(&sa), 1.0);
        assert_eq!(sa.cosine(&sb), sb.cosine(&sa));
        assert_eq!(sa.cosine(&sb), 0.96);
        for bad in [&[][..], &[0.0, 0.0], &[f32::NAN, 1.0], &[f32::INFINITY]] {
            assert_eq!(quantise(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_lexical_fallback_groups_by_shared_words() {
        let a = Sum::of(&lexical("The meeting is at 3pm in Room A"));
        let b = Sum::of(&lexical("The meeting is at 4pm in Room B"));
        let c = Sum::of(&lexical("Quarterly revenue rose ten percent"));
        assert!(
            a.cosine(&b) > a.cosine(&c),
            "{} vs {}",
            a.cosine(&b),
            a.cosine(&c)
        );
        assert_eq!(lexical("").len(), LEXICAL_DIM);
    }
}
