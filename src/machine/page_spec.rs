//! The paging allocators' label (`paging:K[:order]`): the page order `K` (pages of `2^K` nodes
//! along every dimension) and the order pages are tried in. Paging on a 2D mesh (paging.rs) and on a
//! k-D grid (paging_kd.rs) read the same label, and [`AllocKind::Paging`](super::AllocKind::Paging)
//! carries it.

use std::fmt;

/// Largest page order `K` a label may name (pages of up to 256 × 256 nodes).
pub const MAX_PAGE_ORDER: u8 = 8;

/// The order in which pages are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PageOrder {
    /// Row by row, left to right (lowest `y` first).
    RowMajor,
    /// Row by row, every other row of pages right to left (boustrophedon).
    Snake,
    /// Shuffled row-major: pages in Z order (column and row bits interleaved, column bit lowest).
    Shuffled,
}

/// A paging allocator's parameters: the page order `K` (pages `2^K × 2^K`) and the page order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PageSpec {
    /// Pages are `2^k × 2^k` nodes.
    pub k: u8,
    /// The order pages are tried in.
    pub order: PageOrder,
}

impl PageSpec {
    /// `paging:0`: one node per page, row-major.
    pub const DEFAULT: PageSpec = PageSpec {
        k: 0,
        order: PageOrder::RowMajor,
    };

    /// Reads the part of a label after `paging:` (`K`, `K:snake`, `K:shuffled`, `K:row`).
    pub fn parse(arg: &str) -> Option<PageSpec> {
        let (k, order) = match arg.split_once(':') {
            Some((k, o)) => (k, o),
            None => (arg, "row"),
        };
        let k: u8 = k.trim().parse().ok().filter(|&k| k <= MAX_PAGE_ORDER)?;
        let order = match order.trim() {
            "row" => PageOrder::RowMajor,
            "snake" => PageOrder::Snake,
            "shuffled" => PageOrder::Shuffled,
            _ => return None,
        };
        Some(PageSpec { k, order })
    }
}

impl fmt::Display for PageSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "paging:{}", self.k)?;
        match self.order {
            PageOrder::RowMajor => Ok(()),
            PageOrder::Snake => f.write_str(":snake"),
            PageOrder::Shuffled => f.write_str(":shuffled"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip() {
        for label in ["0", "2", "3:snake", "1:shuffled"] {
            let spec = PageSpec::parse(label).expect(label);
            assert_eq!(spec.to_string(), format!("paging:{label}"));
        }
        assert_eq!(
            PageSpec::parse("1:row").map(|s| s.to_string()),
            Some("paging:1".into())
        );
        for bad in ["", "x", "9", "1:zigzag", "-1"] {
            assert_eq!(PageSpec::parse(bad), None, "{bad}");
        }
    }
}
