//! Tensor decoding on `TensorProto`s built here: every data field, `raw_data`, and what is
//! refused.

use super::proto::{data_type as dt, TensorProto};
use super::{decode_tensor, tensor::to_data};
use crate::ir::DType;
use prost::Message;

fn t(data_type: i32, dims: &[i64]) -> TensorProto {
    TensorProto {
        dims: dims.to_vec(),
        data_type: Some(data_type),
        ..Default::default()
    }
}

#[test]
fn typed_fields_decode_to_little_endian_elements() {
    let mut f = t(dt::FLOAT, &[2]);
    f.float_data = vec![1.5, -2.0];
    let d = to_data(&f).unwrap();
    assert_eq!((d.dtype, d.to_f64_vec()), (DType::FLOAT32, vec![1.5, -2.0]));

    let mut i = t(dt::INT64, &[3]);
    i.int64_data = vec![-1, 0, 1 << 40];
    assert_eq!(to_data(&i).unwrap().to_i64_vec(), vec![-1, 0, 1 << 40]);

    let mut b = t(dt::BOOL, &[3]);
    b.int32_data = vec![0, 1, 7];
    let d = to_data(&b).unwrap();
    assert_eq!((d.dtype, d.bytes.to_vec()), (DType::BOOL, vec![0, 1, 1]));

    // 16-bit floats travel as their bit patterns in int32_data.
    let mut h = t(dt::FLOAT16, &[1]);
    h.int32_data = vec![i32::from(half::f16::from_f32(0.25).to_bits())];
    assert_eq!(to_data(&h).unwrap().to_f64_vec(), vec![0.25]);

    let mut u = t(dt::UINT32, &[1]);
    u.uint64_data = vec![4_000_000_000];
    assert_eq!(to_data(&u).unwrap().to_i64_vec(), vec![4_000_000_000]);

    let mut g = t(dt::DOUBLE, &[]);
    g.double_data = vec![0.1];
    let d = to_data(&g).unwrap();
    assert_eq!((d.shape.len(), d.to_f64_vec()), (0, vec![0.1]));

    let mut i8t = t(dt::INT8, &[2]);
    i8t.int32_data = vec![-128, 127];
    assert_eq!(to_data(&i8t).unwrap().to_i64_vec(), vec![-128, 127]);
}

#[test]
fn raw_data_is_taken_as_is_and_must_match_the_shape() {
    let mut r = t(dt::INT32, &[2]);
    r.raw_data = Some([7i32.to_le_bytes(), (-3i32).to_le_bytes()].concat());
    assert_eq!(to_data(&r).unwrap().to_i64_vec(), vec![7, -3]);
    r.raw_data = Some(vec![0; 7]);
    assert_eq!(
        to_data(&r).unwrap_err(),
        "shape [2] needs 2 elements, the tensor holds 1"
    );
}

#[test]
fn what_passlab_cannot_hold_is_refused_with_a_reason() {
    let s = t(dt::STRING, &[1]);
    assert_eq!(to_data(&s).unwrap_err(), "STRING tensors are not supported");
    let mut ext = t(dt::FLOAT, &[1]);
    ext.data_location = Some(1);
    assert!(to_data(&ext).unwrap_err().contains("external file"));
    let neg = t(dt::FLOAT, &[-1]);
    assert_eq!(to_data(&neg).unwrap_err(), "a negative dimension (-1)");
    let deep = t(dt::FLOAT, &[1; 65]);
    assert_eq!(to_data(&deep).unwrap_err(), "65 dimensions (at most 64)");
    let huge = t(dt::FLOAT, &[1 << 20, 1 << 20]);
    assert!(to_data(&huge)
        .unwrap_err()
        .contains("more than 4294967296 elements"));
    let mut short = t(dt::FLOAT, &[3]);
    short.float_data = vec![1.0];
    assert_eq!(
        to_data(&short).unwrap_err(),
        "shape [3] needs 3 elements, the tensor holds 1"
    );
}

#[test]
fn decode_tensor_reads_the_encoded_message() {
    let mut f = t(dt::FLOAT, &[1, 2]);
    f.float_data = vec![3.0, 4.0];
    f.name = Some("x".into());
    let d = decode_tensor(&f.encode_to_vec()).unwrap();
    assert_eq!(
        (d.shape.clone(), d.to_f64_vec()),
        (vec![1, 2], vec![3.0, 4.0])
    );
    let e = decode_tensor(b"\x0a\xff\xff").unwrap_err();
    assert!(
        e.message.starts_with("not an ONNX tensor:"),
        "{}",
        e.message
    );
    let mut bad = t(dt::FLOAT, &[2]);
    bad.name = Some("w".into());
    assert_eq!(
        decode_tensor(&bad.encode_to_vec()).unwrap_err().message,
        "tensor `w`: shape [2] needs 2 elements, the tensor holds 0"
    );
}
