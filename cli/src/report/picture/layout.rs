//! Where each node of a machine is drawn: a grid of cells, one per node id.
//!
//! * **2D mesh** `W × H`: node `(x, y)` in column `x`, row `y` (row 0 at the bottom, as the papers
//!   draw a mesh), so a submesh is a rectangle.
//! * **k-D mesh / torus**: dimensions 0 and 1 make a slice (`d₀ × d₁`, a 1-D torus is one row); the
//!   slices along the other dimensions (`d₂ · d₃ ⋯`, dimension 2 fastest) are tiled left to right,
//!   then upwards, `⌈√slices⌉` to a row, one empty cell between slices.
//! * **hypercube** `D`: a Gray-code grid, the low `⌈D/2⌉` address bits giving the column and the
//!   high ones the row, each through its Gray-code position, so neighbours in the grid differ in one
//!   bit and many subcubes are rectangles.
//! * **flat** `N`: one row of `N` slots (a bar).

use pwa_replay::machine::{MachineSpec, gray_position};

/// The cell of every node.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Columns of the grid.
    pub cols: u32,
    /// Rows of the grid.
    pub rows: u32,
    /// A single row (flat machine): drawn as a bar, not as square cells.
    pub bar: bool,
    /// `cells[id]` = (column, row from the bottom) of node `id`.
    cells: Vec<(u32, u32)>,
}

impl Layout {
    /// The layout of `machine` (see the module doc).
    pub fn of(machine: MachineSpec) -> Layout {
        match machine {
            MachineSpec::Flat { nodes } => Layout {
                cols: nodes.max(1),
                rows: 1,
                bar: true,
                cells: (0..nodes).map(|i| (i, 0)).collect(),
            },
            MachineSpec::Mesh { size } => Layout {
                cols: size.w,
                rows: size.h,
                bar: false,
                cells: (0..size.area()).map(|i| (i % size.w, i / size.w)).collect(),
            },
            MachineSpec::Grid { dims, .. } => grid(&dims.iter().collect::<Vec<_>>()),
            MachineSpec::Hypercube { dim } => cube(dim),
        }
    }

    /// The cell of node `id` (column, row from the bottom).
    pub fn cell(&self, id: u32) -> (u32, u32) {
        self.cells[id as usize]
    }

    /// Node count.
    #[cfg(test)]
    pub fn nodes(&self) -> usize {
        self.cells.len()
    }
}

/// Slices of dimensions 0 and 1, tiled (module doc).
fn grid(dims: &[u32]) -> Layout {
    let (d0, d1) = (dims[0], dims.get(1).copied().unwrap_or(1));
    let slices: u32 = dims.iter().skip(2).product();
    let across = (f64::from(slices).sqrt().ceil() as u32).max(1);
    let down = slices.div_ceil(across);
    let total = d0 * d1 * slices;
    let cells = (0..total)
        .map(|id| {
            let (x, y, s) = (id % d0, id / d0 % d1, id / (d0 * d1));
            ((s % across) * (d0 + 1) + x, (s / across) * (d1 + 1) + y)
        })
        .collect();
    Layout {
        cols: across * (d0 + 1) - 1,
        rows: down * (d1 + 1) - 1,
        bar: false,
        cells,
    }
}

/// The Gray-code grid of a `dim`-cube (module doc).
fn cube(dim: u8) -> Layout {
    let low = u32::from(dim).div_ceil(2);
    let high = u32::from(dim) - low;
    let mask = (1u32 << low) - 1;
    let cells = (0..1u32 << dim)
        .map(|a| (gray_position(a & mask), gray_position(a >> low)))
        .collect();
    Layout {
        cols: 1 << low,
        rows: 1 << high,
        bar: false,
        cells,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(label: &str) -> Layout {
        Layout::of(label.parse().expect("machine"))
    }

    /// Every node has its own cell inside the grid.
    fn cells_are_distinct(l: &Layout) {
        let mut seen = std::collections::BTreeSet::new();
        for id in 0..l.nodes() as u32 {
            let (c, r) = l.cell(id);
            assert!(c < l.cols && r < l.rows, "{id} at {c},{r}");
            assert!(seen.insert((c, r)), "{id} shares a cell");
        }
    }

    #[test]
    fn mesh_nodes_sit_at_their_coordinates() {
        let l = layout("mesh:4x3");
        assert_eq!((l.cols, l.rows, l.bar), (4, 3, false));
        assert_eq!(l.cell(6), (2, 1));
        cells_are_distinct(&l);
    }

    #[test]
    fn grid_slices_are_tiled_with_gaps() {
        // 3×2 slices, 4 of them: 2 across, 2 down, one empty cell between.
        let l = layout("torus:3x2x4");
        assert_eq!((l.cols, l.rows), (7, 5));
        assert_eq!(l.cell(6), (4, 0), "first node of slice 1");
        assert_eq!(l.cell(12), (0, 3), "first node of slice 2");
        cells_are_distinct(&l);
        cells_are_distinct(&layout("torus:5"));
        cells_are_distinct(&layout("mesh:2x3x4"));
    }

    #[test]
    fn hypercube_neighbours_in_a_row_differ_in_one_bit() {
        let l = layout("hypercube:5");
        assert_eq!((l.cols, l.rows), (8, 4));
        cells_are_distinct(&l);
        let at = |c, r| (0..32u32).find(|&a| l.cell(a) == (c, r)).unwrap();
        for r in 0..4 {
            for c in 0..7 {
                assert_eq!((at(c, r) ^ at(c + 1, r)).count_ones(), 1);
            }
        }
    }

    #[test]
    fn flat_is_a_bar() {
        let l = layout("flat:10");
        assert_eq!((l.cols, l.rows, l.bar), (10, 1, true));
        cells_are_distinct(&l);
    }
}
