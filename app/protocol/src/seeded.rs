//! SplitMix64: a tiny, well-known seeded generator — the only randomness the pure core has, and
//! always from a passed-in seed, so the same seed gives the same numbers everywhere. And FNV-1a,
//! the hash that turns inputs into such a seed (and keys the S4-8 scan's word table).

#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n` (`n` > 0; the modulo bias is below 2⁻⁵⁸ for small `n`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// FNV-1a (64-bit) over the bytes written to it: stable across runs and platforms, and cheap.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod fnv_tests {
    use std::hash::Hasher;

    use super::Fnv1a;

    /// The published FNV-1a 64-bit test vectors; bytes written in pieces hash as written at once.
    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        let cases: &[(&[u8], u64)] = &[
            (b"", 0xcbf2_9ce4_8422_2325),
            (b"a", 0xaf63_dc4c_8601_ec8c),
            (b"foobar", 0x8594_4171_f739_67e8),
        ];
        for &(bytes, want) in cases {
            let mut h = Fnv1a::default();
            h.write(bytes);
            assert_eq!(h.finish(), want, "{bytes:?}");
            let mut pieces = Fnv1a::default();
            for b in bytes {
                pieces.write(std::slice::from_ref(b));
            }
            assert_eq!(pieces.finish(), want, "{bytes:?} a byte at a time");
        }
    }
}
