//! Two more views of a timing instrument's records: the flat list (MLIR's
//! `--mlir-timing-display=list`: one row per pass name, self times summed over its runs,
//! sorted by self time) and Chrome's trace-event format (a JSON file Perfetto and
//! `chrome://tracing` open). The records hold durations, not start times, so the trace lays
//! each pass out from its parent's start, its earlier siblings' durations after one another:
//! what is left out are the gaps between passes (instrument callbacks and the pass manager's
//! own time), so a trace's passes sit closer together than they ran.

use super::timing::TimingRecord;
use comfy_table::{presets, CellAlignment, Table};
use std::time::Duration;

/// One row of the flat list.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatRow {
    pub name: String,
    /// Runs of passes of this name.
    pub count: usize,
    /// Their self times (total minus nested passes), summed.
    pub self_time: Duration,
    /// Their total times, summed.
    pub total: Duration,
}

/// The flat list: rows by pass name, the largest self time first (ties by name).
pub fn flat(roots: &[TimingRecord]) -> Vec<FlatRow> {
    let mut rows: Vec<FlatRow> = Vec::new();
    let mut index = std::collections::HashMap::new();
    let mut stack: Vec<&TimingRecord> = roots.iter().collect();
    while let Some(r) = stack.pop() {
        let k = *index.entry(r.name.to_string()).or_insert_with(|| {
            rows.push(FlatRow {
                name: r.name.to_string(),
                count: 0,
                self_time: Duration::ZERO,
                total: Duration::ZERO,
            });
            rows.len() - 1
        });
        rows[k].count += 1;
        rows[k].self_time += r.self_time();
        rows[k].total += r.total;
        stack.extend(r.children.iter());
    }
    rows.sort_by(|a, b| b.self_time.cmp(&a.self_time).then(a.name.cmp(&b.name)));
    rows
}

/// The flat list as a table: self time, its share of all self time, total, runs, pass.
pub fn render_flat(roots: &[TimingRecord], width: Option<usize>) -> String {
    let rows = flat(roots);
    let all: f64 = rows.iter().map(|r| r.self_time.as_secs_f64()).sum();
    let mut table = Table::new();
    table.load_style(presets::UTF8_FULL_CONDENSED);
    super::timing::fit_table(&mut table, width);
    table.set_header(vec!["self", "% self", "total", "runs", "pass"]);
    for r in &rows {
        let share = if all > 0.0 {
            100.0 * r.self_time.as_secs_f64() / all
        } else {
            0.0
        };
        table.add_row(vec![
            format!("{}us", r.self_time.as_micros()),
            format!("{share:.1}%"),
            format!("{}us", r.total.as_micros()),
            r.count.to_string(),
            r.name.clone(),
        ]);
    }
    for col in 0..4 {
        if let Some(c) = table.column_mut(col) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    format!("{table}\n")
}

/// The records in Chrome's trace-event format: one complete event (`"ph": "X"`) per pass run,
/// times in microseconds.
pub fn chrome_trace(roots: &[TimingRecord]) -> serde_json::Value {
    let mut events = Vec::new();
    // (record, start in microseconds, depth)
    let mut stack: Vec<(&TimingRecord, f64, usize)> = Vec::new();
    let mut t = 0.0;
    for r in roots {
        stack.push((r, t, 0));
        t += micros(r.total);
    }
    stack.reverse();
    while let Some((r, start, depth)) = stack.pop() {
        events.push(serde_json::json!({
            "name": &*r.name,
            "cat": "pass",
            "ph": "X",
            "ts": start,
            "dur": micros(r.total),
            "pid": 1,
            "tid": 1,
            "args": {
                "depth": depth,
                "self_us": micros(r.self_time()),
                "status": format!("{:?}", r.status).to_lowercase(),
            },
        }));
        let mut t = start;
        let mut kids = Vec::with_capacity(r.children.len());
        for c in &r.children {
            kids.push((c, t, depth + 1));
            t += micros(c.total);
        }
        stack.extend(kids.into_iter().rev());
    }
    serde_json::json!({ "traceEvents": events, "displayTimeUnit": "ms" })
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn rec(name: &str, us: u64, children: Vec<TimingRecord>) -> TimingRecord {
        TimingRecord {
            name: Arc::from(name),
            total: Duration::from_micros(us),
            children,
            status: Default::default(),
        }
    }

    #[test]
    fn the_flat_list_sums_self_times_by_name() {
        let roots = vec![rec(
            "seq",
            100,
            vec![
                rec("A", 30, vec![]),
                rec("B", 50, vec![rec("A", 20, vec![])]),
            ],
        )];
        let rows = flat(&roots);
        let got: Vec<(String, usize, u128)> = rows
            .iter()
            .map(|r| (r.name.clone(), r.count, r.self_time.as_micros()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("A".into(), 2, 50),
                ("B".into(), 1, 30),
                ("seq".into(), 1, 20)
            ]
        );
    }

    #[test]
    fn the_trace_lays_children_out_in_order() {
        let roots = vec![rec(
            "seq",
            100,
            vec![rec("A", 30, vec![]), rec("B", 50, vec![])],
        )];
        let v = chrome_trace(&roots);
        let ev = v["traceEvents"].as_array().unwrap();
        let got: Vec<(String, f64, f64)> = ev
            .iter()
            .map(|e| {
                (
                    e["name"].as_str().unwrap().to_string(),
                    e["ts"].as_f64().unwrap(),
                    e["dur"].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("seq".into(), 0.0, 100.0),
                ("A".into(), 0.0, 30.0),
                ("B".into(), 30.0, 50.0)
            ]
        );
    }
}
