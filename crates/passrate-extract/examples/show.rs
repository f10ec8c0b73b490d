//! Shows the extraction of bundled corpus answers whose id contains the argument:
//! `cargo run -p passrate-extract --example show -- ClassEval_14`.

fn main() -> anyhow::Result<()> {
    let needle = std::env::args().nth(1).unwrap_or_default();
    for entry in passrate_extract::corpus::builtin()? {
        if !entry.id.contains(&needle) {
            continue;
        }
        let e = passrate_extract::extract(&entry.request(), entry.answer.as_bytes());
        println!(
            "=== {} -> {:?} {:?} {:?} {:?}",
            entry.id, e.reason, e.detail, e.origin, e.notes
        );
        println!("{}", e.code);
    }
    Ok(())
}
