//! Time per corpus group, to find where extraction spends its time:
//! `cargo run --release -p passrate-extract --example profile`.

use std::collections::BTreeMap;
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let entries = passrate_extract::corpus::real_answers()?;
    let mut groups: BTreeMap<String, (usize, f64)> = BTreeMap::new();
    for _ in 0..3 {
        for e in &entries {
            let group = e.id.split('/').take(2).collect::<Vec<_>>().join("/");
            let req = e.request();
            let start = Instant::now();
            std::hint::black_box(passrate_extract::extract(&req, e.answer.as_bytes()));
            let g = groups.entry(group).or_default();
            g.0 += 1;
            g.1 += start.elapsed().as_secs_f64();
        }
    }
    for (g, (n, secs)) in groups {
        println!("{g:50} {n:5} {:8.1} µs/answer", secs * 1e6 / n as f64);
    }
    Ok(())
}
