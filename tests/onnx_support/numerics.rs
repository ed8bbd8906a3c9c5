//! Runs an ONNX test case (a `model.onnx` beside `test_data_set_N/{input,output}_J.pb`) as a
//! user would check it: `allclose(evaluate(m, inputs), outputs, rtol=1e-3, atol=1e-4)` on the
//! imported module and again after the standard pipeline at opt_level 3.

use passlab::eval::{compare, evaluate, Output};
use passlab::ir::{Module, TensorData};
use passlab::onnx::proto::{decode_model, TensorProto};
use passlab::onnx::{decode_tensor, import_bytes, import_file, ImportOptions};
use passlab::pass::{sequential, Pass, PassContext, PassManager};
use prost::Message;
use std::path::Path;

pub const RTOL: f64 = 1e-3;
pub const ATOL: f64 = 1e-4;

/// The passes every case also runs through, in order.
pub const PIPELINE: [&str; 6] = [
    "InferType",
    "SimplifyInference",
    "FoldConstant",
    "FoldScaleAxis",
    "EliminateCommonSubexpr",
    "FuseOps",
];

/// Where a case failed: the stage (`import`, `inputs`, `evaluate`, `numbers`, `pipeline`,
/// `pipeline evaluate`, `pipeline numbers`) and the message.
#[derive(Debug)]
pub struct Failure {
    pub stage: &'static str,
    pub message: String,
}

fn fail<T>(stage: &'static str, message: impl Into<String>) -> Result<T, Failure> {
    Err(Failure {
        stage,
        message: message.into(),
    })
}

/// `SequenceProto` (onnx.proto): the test data of a sequence input or output.
#[derive(Clone, PartialEq, Message)]
struct SequenceProto {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(int32, optional, tag = "2")]
    elem_type: Option<i32>,
    #[prost(message, repeated, tag = "3")]
    tensor_values: Vec<TensorProto>,
}

/// The pipeline and its context, made once per test.
pub struct Runner {
    pm: PassManager,
    pipeline: Pass,
    ctx: PassContext,
}

impl Default for Runner {
    fn default() -> Self {
        let pm = PassManager::new(passlab::passes::registry());
        let pipeline = sequential(
            PIPELINE
                .iter()
                .map(|n| pm.pass(n).expect("a pass"))
                .collect(),
        );
        let ctx = PassContext::builder()
            .opt_level(3)
            .build()
            .expect("a context");
        Runner { pm, pipeline, ctx }
    }
}

fn read_output(path: &Path, sequence: bool) -> Result<Output, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if sequence {
        let s = SequenceProto::decode(&bytes[..]).map_err(|e| e.to_string())?;
        let mut items = Vec::new();
        for t in &s.tensor_values {
            let data = decode_tensor(&t.encode_to_vec()).map_err(|e| e.message)?;
            items.push(Output::Tensor(data));
        }
        return Ok(Output::Tuple(items));
    }
    decode_tensor(&bytes)
        .map(Output::Tensor)
        .map_err(|e| e.message)
}

fn check(
    m: &Module,
    inputs: &[TensorData],
    want: &[Output],
    at: [&'static str; 2],
) -> Result<(), Failure> {
    let args: Vec<&TensorData> = inputs.iter().collect();
    let got = match evaluate(m, "main", &args) {
        Ok(o) => o,
        Err(e) => return fail(at[0], e.message),
    };
    let got = match (got, want.len()) {
        (o, 1) => vec![o],
        (Output::Tuple(items), _) => items,
        (o, _) => vec![o],
    };
    if got.len() != want.len() {
        return fail(
            at[1],
            format!("{} results, {} expected", got.len(), want.len()),
        );
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if let Some(d) = compare::outputs(g, w, RTOL, ATOL, true) {
            return fail(at[1], format!("output {i}: {d}"));
        }
    }
    Ok(())
}

impl Runner {
    /// Runs every test data set of the case whose model is `model`.
    pub fn run(&mut self, model: &Path) -> Result<(), Failure> {
        self.run_bound(model, false)
    }

    /// [`Runner::run`]; with `bind`, the graph inputs whose test data is small (rank 0 or
    /// 1, at most 16 elements: shapes, axes, scales, sizes, pads) are first made
    /// initializers with the values of the first data set, so they import as constants (a
    /// model specialized to them, as passlab has no dynamic ops).
    pub fn run_bound(&mut self, model: &Path, bind: bool) -> Result<(), Failure> {
        let bytes = std::fs::read(model).expect("read the model");
        let mut proto = decode_model(&bytes).expect("a model");
        let dir = model.parent().expect("a case directory");
        let mut bound = Vec::new();
        if bind {
            let g = proto.graph.as_mut().expect("a graph");
            for (j, info) in g.input.clone().iter().enumerate() {
                let p = dir.join("test_data_set_0").join(format!("input_{j}.pb"));
                let Ok(data) = std::fs::read(&p) else { break };
                let Ok(mut t) = TensorProto::decode(&data[..]) else {
                    continue;
                };
                let n: i64 = t.dims.iter().product();
                if t.dims.len() <= 1
                    && n <= 16
                    && info
                        .r#type
                        .as_ref()
                        .is_some_and(|t| t.tensor_type.is_some())
                {
                    t.name = info.name.clone();
                    g.initializer.push(t);
                    bound.push(j);
                }
            }
        }
        let imported = if bind {
            import_bytes(
                &proto.encode_to_vec(),
                &model.display().to_string(),
                &ImportOptions::default(),
            )
        } else {
            import_file(model, &ImportOptions::default())
        };
        let m = match imported {
            Ok(m) => m,
            Err(e) => return fail("import", e.message),
        };
        let g = proto.graph.expect("a graph");
        let is_seq = |infos: &[passlab::onnx::proto::ValueInfoProto], i: usize| {
            infos
                .get(i)
                .and_then(|v| v.r#type.as_ref())
                .is_some_and(|t| t.sequence_type.is_some())
        };
        let mut sets: Vec<_> = std::fs::read_dir(dir)
            .expect("read the case")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        sets.sort();
        let mut optimized = None;
        for set in sets {
            let mut inputs = Vec::new();
            for j in 0.. {
                let p = set.join(format!("input_{j}.pb"));
                if !p.is_file() {
                    break;
                }
                if bound.contains(&j) {
                    continue;
                }
                if is_seq(&g.input, j) {
                    return fail(
                        "inputs",
                        format!("input {j} is a sequence: evaluate takes tensors"),
                    );
                }
                match decode_tensor(&std::fs::read(&p).expect("read an input")) {
                    Ok(t) => inputs.push(t),
                    Err(e) => return fail("inputs", format!("input {j}: {}", e.message)),
                }
            }
            let mut want = Vec::new();
            for j in 0.. {
                let p = set.join(format!("output_{j}.pb"));
                if !p.is_file() {
                    break;
                }
                match read_output(&p, is_seq(&g.output, j)) {
                    Ok(o) => want.push(o),
                    Err(e) => return fail("inputs", format!("output {j}: {e}")),
                }
            }
            check(&m, &inputs, &want, ["evaluate", "numbers"])?;
            if optimized.is_none() {
                let pipeline = &self.pipeline;
                let out = self.pm.with_context(&self.ctx, |pm| pm.run(pipeline, &m));
                match out {
                    Ok(o) => optimized = Some(o),
                    Err(e) => return fail("pipeline", e.to_string()),
                }
            }
            let o = optimized.as_ref().expect("optimized");
            check(o, &inputs, &want, ["pipeline evaluate", "pipeline numbers"])?;
        }
        Ok(())
    }

    /// [`Runner::run`], a panic reported as a failure (a bug, but one case's bug).
    pub fn run_caught(&mut self, model: &Path, bind: bool) -> Result<(), Failure> {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run_bound(model, bind)))
        {
            Ok(r) => r,
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                fail("panic", msg)
            }
        }
    }
}
