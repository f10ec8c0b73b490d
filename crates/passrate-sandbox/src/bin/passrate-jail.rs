//! The jail launcher as its own small binary, for library users and tests; the `passrate`
//! binary serves the same role as `passrate __jail`.

fn main() {
    passrate_sandbox::jail_main()
}
