//! Seeded inputs for a function's parameters, for numeric checks (`Verify(numerics=true)`,
//! `break numerics`): one tensor per parameter, of its annotated tensor type, which must be
//! static. Floats are uniform in [-1, 1), integers in [0, 8) (small enough to be valid
//! indices of most axes), booleans 0 or 1; the same seed gives the same tensors.

use crate::ir::{Expr, TensorData, Type};

/// SplitMix64: a small, good 64-bit generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// One tensor per parameter of the function `f`, or why there cannot be.
pub fn inputs_for(f: &Expr, seed: u64) -> Result<Vec<TensorData>, String> {
    let fun = f.as_function().ok_or("not a function")?;
    let mut rng = Rng(seed);
    fun.params
        .iter()
        .map(|p| {
            let ty = p.ann.as_ref().and_then(Type::as_tensor).ok_or_else(|| {
                format!(
                    "the parameter %{} has no tensor type to make an input of",
                    p.name
                )
            })?;
            let shape = ty
                .static_shape()
                .ok_or_else(|| format!("the parameter %{} has a dynamic shape", p.name))?;
            let n = shape
                .iter()
                .try_fold(1u64, |n, &d| n.checked_mul(d as u64))
                .filter(|&n| n <= crate::limits::MAX_TENSOR_ELEMENTS)
                .ok_or_else(|| format!("the parameter %{} is too large", p.name))?;
            let dt = ty.dtype;
            Ok(if dt.is_float() {
                let v: Vec<f64> = (0..n)
                    .map(|_| (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
                    .collect();
                TensorData::from_f64(dt, shape, &v)
            } else {
                let m = if dt.is_bool() { 2 } else { 8 };
                let v: Vec<i64> = (0..n).map(|_| (rng.next() % m) as i64).collect();
                TensorData::from_i64(dt, shape, &v)
            })
        })
        .collect()
}
