//! A communication model, off by default: a job's run time stretched by how dispersed its nodes
//! are, so that non-contiguous allocation pays for the locality it gives up.
//!
//! `linear:α`: a job asking `req` and granted placement `p` runs
//! `run × (1 + α · max(0, hops(p) / hops*(req) − 1))`, with `hops(p)` its mean pairwise hop distance
//! ([`locality`](super::locality())) and `hops*(req)` the contiguous reference: the mean pairwise
//! hops of the request's own submesh or box ([`contiguous_hops`](super::contiguous_hops)). A job
//! granted its request contiguously is never stretched (factor 1), nor is a single node; only what
//! an allocator adds to the request's own dispersal is charged. `α` is the share of the
//! run time that scales with the distance messages travel: 0 is no communication cost, 1 a job whose
//! whole run time grows in proportion to its mean distance.
//!
//! This is a **model, not a measurement**. Its measure of dispersal is the one of Bender, Bunde,
//! Demaine, Fekete, Leung, Meijer & Phillips, "Communication-aware processor allocation for
//! supercomputers: finding point sets of small average distance", Algorithmica 50(2):279–298, 2008
//! (allocate to minimise the average number of communication hops, the average pairwise L1
//! distance), who cite measurements on Cplant relating running times to it; the linear form and `α`
//! are choices here, not fitted to any measurement (docs/ALGORITHMS.md, "Dilation").

use std::fmt;
use std::str::FromStr;

use super::{contiguous_hops, locality};
use crate::resource::{MachineSpec, Placement, Request};

/// A dilation model (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Dilation {
    /// `run × (1 + α · max(0, hops / optimum − 1))`.
    Linear {
        /// Weight of the relative extra distance, `α ≥ 0`.
        alpha: f64,
    },
}

/// A dilation label that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("dilation `{0}` is not linear:α with a finite α ≥ 0 (e.g. linear:0.5)")]
pub struct DilationParseError(pub String);

impl Dilation {
    /// The factor (≥ 1) by which a job asking `req` and granted `p` on `machine` runs longer.
    pub fn factor(&self, machine: MachineSpec, req: &Request, p: &Placement) -> f64 {
        let Dilation::Linear { alpha } = *self;
        let optimum = contiguous_hops(req);
        if optimum <= 0.0 {
            return 1.0;
        }
        let hops = locality(machine, p).mean_pairwise_hops;
        1.0 + alpha * (hops / optimum - 1.0).max(0.0)
    }
}

impl fmt::Display for Dilation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Dilation::Linear { alpha } = self;
        write!(f, "linear:{alpha}")
    }
}

impl FromStr for Dilation {
    type Err = DilationParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || DilationParseError(s.to_string());
        let (kind, arg) = s.trim().split_once(':').ok_or_else(bad)?;
        match kind {
            "linear" => {
                let alpha: f64 = arg.trim().parse().map_err(|_| bad())?;
                if alpha.is_finite() && alpha >= 0.0 {
                    Ok(Dilation::Linear { alpha })
                } else {
                    Err(bad())
                }
            }
            _ => Err(bad()),
        }
    }
}

impl serde::Serialize for Dilation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Dilation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{Block, Dims, Pieces, Shape, Submesh};

    #[test]
    fn labels_round_trip_and_bad_ones_are_refused() {
        let d: Dilation = "linear:0.5".parse().unwrap();
        assert_eq!(d, Dilation::Linear { alpha: 0.5 });
        assert_eq!(d.to_string(), "linear:0.5");
        for bad in ["linear:-1", "linear:inf", "linear:", "quadratic:1", "0.5"] {
            assert!(bad.parse::<Dilation>().is_err(), "{bad}");
        }
    }

    #[test]
    fn compact_jobs_run_as_long_and_dispersed_ones_longer() {
        let m: MachineSpec = "mesh:8x8".parse().unwrap();
        let d = Dilation::Linear { alpha: 0.5 };
        let square = Placement::Submesh {
            at: Submesh {
                base: crate::resource::Coord { x: 0, y: 0 },
                shape: Shape::new(2, 2),
            },
            rotated: false,
        };
        let req = Request::Submesh(Shape::new(2, 2));
        assert_eq!(d.factor(m, &req, &square), 1.0);
        // Two nodes of a 1x2 request at opposite corners: 14 hops against 1 for two neighbours.
        let one = |base| Block {
            base,
            extent: Dims::new(&[1, 1]).unwrap(),
        };
        let far = Placement::Pieces(Pieces::new(vec![one(0), one(63)]));
        let pair = Request::Submesh(Shape::new(1, 2));
        assert_eq!(d.factor(m, &pair, &far), 1.0 + 0.5 * 13.0);
        assert_eq!(d.factor(m, &Request::Nodes(1), &Placement::Nodes(1)), 1.0);
    }
}
