//! Matrix products for `nn.dense`, `nn.batch_matmul`, `nn.matmul` and `nn.conv2d` (as an
//! im2col product), in blocks that keep a slice of the output row in the first-level cache.
//!
//! Every output element is accumulated in ascending `k`, one multiply-add at a time, in the
//! element type, with the same rounding as a naive `for k` loop (`acc = acc + a * b`, starting
//! from 0): the loops are ordered `i, k, j` so that the inner loop runs over a contiguous
//! block of `j` (vectorised by the compiler, since nothing is reassociated) while each
//! element still sees its terms in order. So the products give bit for bit the numbers of
//! the textbook loop, whatever the blocking.

/// How one term is accumulated: `acc + a * b` in the element type (with the dtype's rounding
/// for float16 / bfloat16, wrapping for integers).
pub(crate) trait Mac: Copy + Send + Sync {
    type T: Copy + Default;
    fn mac(self, acc: Self::T, a: Self::T, b: Self::T) -> Self::T;
}

/// float32 (exact IEEE single arithmetic).
#[derive(Clone, Copy)]
pub(crate) struct F32Mac;
impl Mac for F32Mac {
    type T = f32;
    #[inline(always)]
    fn mac(self, acc: f32, a: f32, b: f32) -> f32 {
        acc + a * b
    }
}

/// float16 / bfloat16 stored in `f32`, rounded after the product and after the sum.
#[derive(Clone, Copy)]
pub(crate) struct RoundedMac(pub fn(f32) -> f32);
impl Mac for RoundedMac {
    type T = f32;
    #[inline(always)]
    fn mac(self, acc: f32, a: f32, b: f32) -> f32 {
        (self.0)(acc + (self.0)(a * b))
    }
}

#[derive(Clone, Copy)]
pub(crate) struct F64Mac;
impl Mac for F64Mac {
    type T = f64;
    #[inline(always)]
    fn mac(self, acc: f64, a: f64, b: f64) -> f64 {
        acc + a * b
    }
}

/// Integers computed in `i64` (wrapped to the dtype by the caller afterwards; wrapping
/// arithmetic modulo 2^64 commutes with that).
#[derive(Clone, Copy)]
pub(crate) struct IntMac;
impl Mac for IntMac {
    type T = i64;
    #[inline(always)]
    fn mac(self, acc: i64, a: i64, b: i64) -> i64 {
        acc.wrapping_add(a.wrapping_mul(b))
    }
}

/// Columns of the output processed together: 512 `f32` (2 KiB) of one output row, which
/// stays in the first-level cache while a block of `k` is added into it.
const BLOCK_J: usize = 512;
/// Rows of `b` per block: 128 x 2 KiB, kept in the second-level cache across the rows of `a`.
const BLOCK_K: usize = 128;

/// `out (m x n) = a (m x k) * b (k x n)`, all row-major, `out` overwritten. The `k` blocks
/// are taken in ascending order, so each element still adds its terms in order.
pub(crate) fn matmul<M: Mac>(
    mac: M,
    a: &[M::T],
    b: &[M::T],
    out: &mut [M::T],
    m: usize,
    k: usize,
    n: usize,
) {
    debug_assert!(a.len() >= m * k && b.len() >= k * n && out.len() >= m * n);
    out[..m * n].fill(M::T::default());
    for j0 in (0..n).step_by(BLOCK_J) {
        let j1 = (j0 + BLOCK_J).min(n);
        for k0 in (0..k).step_by(BLOCK_K) {
            let k1 = (k0 + BLOCK_K).min(k);
            for i in 0..m {
                let row = &mut out[i * n + j0..i * n + j1];
                for kk in k0..k1 {
                    let av = a[i * k + kk];
                    let brow = &b[kk * n + j0..kk * n + j1];
                    for (o, &bv) in row.iter_mut().zip(brow) {
                        *o = mac.mac(*o, av, bv);
                    }
                }
            }
        }
    }
}

/// The transpose of a row-major `rows x cols` matrix.
pub(crate) fn transpose<T: Copy + Default>(a: &[T], rows: usize, cols: usize) -> Vec<T> {
    let mut out = vec![T::default(); rows * cols];
    const B: usize = 32;
    for r0 in (0..rows).step_by(B) {
        for c0 in (0..cols).step_by(B) {
            for r in r0..(r0 + B).min(rows) {
                for c in c0..(c0 + B).min(cols) {
                    out[c * rows + r] = a[r * cols + c];
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_product_is_the_textbook_loop_bit_for_bit() {
        let (m, k, n) = (3, 37, 2500);
        let gen = |len: usize, seed: u32| -> Vec<f32> {
            let mut s = seed;
            (0..len)
                .map(|_| {
                    s = s.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    (s >> 8) as f32 / (1u32 << 24) as f32 * 4.0 - 2.0
                })
                .collect()
        };
        let (a, b) = (gen(m * k, 1), gen(k * n, 2));
        let mut out = vec![0f32; m * n];
        matmul(F32Mac, &a, &b, &mut out, m, k, n);
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0f32;
                for t in 0..k {
                    acc += a[i * k + t] * b[t * n + j];
                }
                assert_eq!(out[i * n + j].to_bits(), acc.to_bits(), "({i}, {j})");
            }
        }
        let t = transpose(&a, m, k);
        assert_eq!(t[5 * m + 2], a[2 * k + 5]);
    }
}
