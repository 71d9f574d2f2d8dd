//! Lever press on the serial line to new times written back and parsed by
//! the (simulated) clock, for both devices. Prints figures; target ≤ 20 ms.

use tactus_clockdev::bench::lever_to_display;
use tactus_clockdev::{ClockSide, DeviceKind};

fn main() -> std::io::Result<()> {
    let dir = std::env::temp_dir().join(format!("tactus-clockdev-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    for (name, kind) in
        [("open protocol", DeviceKind::Open), ("DGT 3000", DeviceKind::Dgt3000 { white: ClockSide::Left })]
    {
        let latency = lever_to_display(kind, &dir.join("clock"), 500)?;
        println!("lever to display, {name}: {latency}");
    }
    std::fs::remove_dir_all(&dir)
}
