//! Fixed colours and markers keyed by policy label, so a policy looks the same in every figure of
//! every sweep.
//!
//! * Colour follows the **scheduler** label: the policies of window-k-mesh.md have fixed colours
//!   (FCFS red, OO blue, OOCB-8 orange, Window-10 purple, Window-120 brown, Window-240 green, Delay
//!   pink, bypass queue cyan); any other label gets a colour from a hash of the label (FNV-1a) into
//!   the same ten-colour palette. When a sweep has a single scheduler, colour follows the
//!   **allocator** instead (MPL blue, FF orange, BF green, FO red, AS purple, flat grey).
//!   Within one sweep's figures ([`scheduler_colour_among`]) two labels never share a colour while
//!   the palette has one free: a hashed label whose colour an earlier label of the sweep (or a
//!   fixed one) holds takes the next free one, the same in every figure of that sweep.
//! * Marker follows the **allocator**: MPL circle, FF square, BF triangle, FO diamond, AS cross,
//!   flat ring; other labels hash into those shapes.
//! * A **job** (pictures of the machine) gets a colour from a hash of its number: hue, saturation
//!   and lightness from separate bits, never near white, the same in every snapshot, chart and
//!   frame of every run.

use plotters::style::{Color, HSLColor, RGBColor};

/// The Tableau-10 palette (darker olive and grey for contrast on white).
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x1f, 0x77, 0xb4), // blue
    RGBColor(0xff, 0x7f, 0x0e), // orange
    RGBColor(0x2c, 0xa0, 0x2c), // green
    RGBColor(0xd6, 0x27, 0x28), // red
    RGBColor(0x94, 0x67, 0xbd), // purple
    RGBColor(0x8c, 0x56, 0x4b), // brown
    RGBColor(0xe3, 0x77, 0xc2), // pink
    RGBColor(0x5f, 0x5f, 0x5f), // grey
    RGBColor(0x9a, 0x9b, 0x1a), // olive
    RGBColor(0x17, 0xbe, 0xcf), // cyan
];

/// A marker shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// Filled circle.
    Circle,
    /// Filled square.
    Square,
    /// Filled triangle.
    Triangle,
    /// Filled diamond.
    Diamond,
    /// Diagonal cross.
    Cross,
    /// Hollow circle.
    Ring,
}

impl Marker {
    /// Its name in `index.html`'s charts.
    pub fn name(self) -> &'static str {
        match self {
            Marker::Circle => "circle",
            Marker::Square => "square",
            Marker::Triangle => "triangle",
            Marker::Diamond => "diamond",
            Marker::Cross => "cross",
            Marker::Ring => "ring",
        }
    }
}

const MARKERS: [Marker; 6] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::Cross,
    Marker::Ring,
];

/// The colour of a scheduler label.
pub fn scheduler_colour(label: &str) -> RGBColor {
    PALETTE[fixed_scheduler_slot(label).unwrap_or_else(|| fnv(label) % PALETTE.len())]
}

/// The palette slot of a scheduler label with a fixed colour.
fn fixed_scheduler_slot(label: &str) -> Option<usize> {
    Some(match label {
        "oo" => 0,
        "oocb:8" => 1,
        "window:240" => 2,
        "fcfs" => 3,
        "window:10" => 4,
        "window:120" => 5,
        "delay" => 6,
        l if l.starts_with("bq:") => 9,
        _ => return None,
    })
}

/// The colour of scheduler `label` among `labels` (every scheduler of one sweep): its own
/// colour, unless a label of a fixed colour or an earlier hashed label of `labels` holds it; then
/// the next palette colour none of them holds (its own again when all are held).
pub fn scheduler_colour_among(label: &str, labels: &[&str]) -> RGBColor {
    let mut held: Vec<usize> = labels
        .iter()
        .filter_map(|l| fixed_scheduler_slot(l))
        .collect();
    for &l in labels {
        if fixed_scheduler_slot(l).is_some() {
            continue;
        }
        let own = fnv(l) % PALETTE.len();
        let slot = (0..PALETTE.len())
            .map(|k| (own + k) % PALETTE.len())
            .find(|s| !held.contains(s))
            .unwrap_or(own);
        if l == label {
            return PALETTE[slot];
        }
        held.push(slot);
    }
    scheduler_colour(label)
}

/// The colour of an allocator label (used when a sweep has one scheduler).
pub fn allocator_colour(label: &str) -> RGBColor {
    PALETTE[allocator_slot(label)]
}

/// The marker of an allocator label.
pub fn allocator_marker(label: &str) -> Marker {
    MARKERS[allocator_slot(label) % MARKERS.len()]
}

fn allocator_slot(label: &str) -> usize {
    match label {
        "mpl" => 0,
        "ff" => 1,
        "bf" => 2,
        "fo" => 3,
        "as" => 4,
        "flat" => 7,
        l => fnv(l) % PALETTE.len(),
    }
}

/// Colour and marker of the series `label` (`sched+alloc`, or `a+b+c` split at its last `+`) of
/// a study's figure, among `family` (every series of its panel, in order) so that a series looks
/// the same in every figure of the panel: colour by the part before the last `+` when those
/// parts have distinct colours, else by the part after it when those are distinct, else by
/// position; marker by the part after it.
pub fn series_style(label: &str, family: &[String]) -> (RGBColor, Marker) {
    let split = |l: &str| -> (String, String) {
        let (s, a) = l.rsplit_once('+').unwrap_or((l, ""));
        (s.to_string(), a.to_string())
    };
    let (heads, tails): (Vec<String>, Vec<String>) = family.iter().map(|l| split(l)).unzip();
    let distinct = |v: &[String]| v.iter().enumerate().all(|(i, a)| !v[..i].contains(a));
    let colours: Vec<RGBColor> = heads.iter().map(|h| scheduler_colour(h)).collect();
    let distinct_colours = colours
        .iter()
        .enumerate()
        .all(|(i, c)| !colours[..i].contains(c));
    let (head, tail) = split(label);
    let colour = if distinct(&heads) && distinct_colours {
        scheduler_colour(&head)
    } else if distinct(&tails) {
        allocator_colour(&tail)
    } else {
        let i = family
            .iter()
            .position(|l| l == label)
            .unwrap_or(family.len());
        scheduler_colour(&format!("#{i}"))
    };
    (colour, allocator_marker(&tail))
}

/// The colour of job number `id` (SWF job number): hue from a hash, saturation 0.45…0.85 and
/// lightness 0.38…0.63 from other bits of it, so neighbouring numbers look unlike.
pub fn job_colour(id: u64) -> RGBColor {
    let h = fnv_bytes(&id.to_le_bytes());
    let hue = (h % 3600) as f64 / 3600.0;
    let sat = 0.45 + ((h >> 16) % 5) as f64 * 0.1;
    let light = 0.38 + ((h >> 24) % 6) as f64 * 0.05;
    let c = HSLColor(hue, sat, light).to_backend_color().rgb;
    RGBColor(c.0, c.1, c.2)
}

/// FNV-1a of bytes (64 bits).
fn fnv_bytes(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// FNV-1a: a stable hash (not `DefaultHasher`, whose output may change between Rust releases).
fn fnv(s: &str) -> usize {
    (fnv_bytes(s.as_bytes()) % 1_000_003) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_policies_have_distinct_fixed_colours() {
        let labels = [
            "fcfs",
            "oo",
            "oocb:8",
            "window:10",
            "window:120",
            "window:240",
            "delay",
        ];
        let colours: Vec<RGBColor> = labels.iter().map(|l| scheduler_colour(l)).collect();
        for (i, a) in colours.iter().enumerate() {
            for b in &colours[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(scheduler_colour("fcfs"), RGBColor(0xd6, 0x27, 0x28));
    }

    #[test]
    fn job_colours_are_stable_distinct_and_never_white() {
        assert_eq!(job_colour(42), job_colour(42));
        let colours: Vec<RGBColor> = (1..=50).map(job_colour).collect();
        let distinct: std::collections::BTreeSet<(u8, u8, u8)> =
            colours.iter().map(|c| (c.0, c.1, c.2)).collect();
        assert!(distinct.len() >= 45, "{} distinct of 50", distinct.len());
        for c in colours {
            let sum = u32::from(c.0) + u32::from(c.1) + u32::from(c.2);
            assert!(sum < 3 * 230, "{c:?} is too light to tell from a free node");
        }
    }

    #[test]
    fn a_series_keeps_its_style_across_its_family() {
        let family: Vec<String> = ["fcfs+mpl", "oo+mpl"].map(String::from).to_vec();
        assert_eq!(
            series_style("oo+mpl", &family),
            (scheduler_colour("oo"), allocator_marker("mpl"))
        );
        // Repeated heads: colour by the tail.
        let family: Vec<String> = ["easy+flat+user", "easy+flat+exact"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            series_style("easy+flat+user", &family).0,
            allocator_colour("user")
        );
    }

    #[test]
    fn the_schedulers_of_one_sweep_take_distinct_colours() {
        // The two hashed labels of the sweep that showed it share their own colour.
        let (a, b) = ("easy:order=sjf", "py:experiments/policies/sjf.py:Sjf");
        assert_eq!(scheduler_colour(a), scheduler_colour(b));
        let labels = [
            a,
            b,
            "fcfs",
            "easy:order=py:experiments/policies/sjf_score.py:score",
        ];
        let colours: Vec<RGBColor> = labels
            .iter()
            .map(|l| scheduler_colour_among(l, &labels))
            .collect();
        for (i, c) in colours.iter().enumerate() {
            assert!(!colours[..i].contains(c), "{} repeats a colour", labels[i]);
        }
        // The first keeps its own; fixed colours stay fixed.
        assert_eq!(colours[0], scheduler_colour(a));
        assert_eq!(colours[2], scheduler_colour("fcfs"));
        // A hashed label never takes a fixed label's colour.
        let oo = ["oo", "window:60"];
        assert_ne!(
            scheduler_colour_among("window:60", &oo),
            scheduler_colour("oo")
        );
    }

    #[test]
    fn other_labels_are_stable() {
        assert_eq!(scheduler_colour("window:60"), scheduler_colour("window:60"));
        assert_eq!(scheduler_colour("bq:100"), scheduler_colour("bq:inf"));
        assert_eq!(allocator_marker("mpl"), Marker::Circle);
        assert_eq!(allocator_marker("as"), Marker::Cross);
        assert_ne!(allocator_colour("ff"), allocator_colour("bf"));
    }
}
