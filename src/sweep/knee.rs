//! The knee of a mean-turnaround curve: the largest load factor before saturation.
//!
//! window-k-mesh.md §5.5 sweeps the load factor "to a maximum value that is past the knee of the
//! corresponding turnaround time curve" without defining the knee. Here a point of a series is
//! **saturated** when its mean turnaround exceeds `factor` × the mean turnaround at the series'
//! lightest load (its first point). The **knee** is the last point before the first saturated one.
//! With the default factor 2, the knee is the heaviest load at which jobs still spend, on average,
//! no more extra time waiting than the whole turnaround they had on a nearly idle machine.

/// The saturation test used for knees and for `--loads auto`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KneeRule {
    /// A point is saturated when its mean turnaround is above `factor` × the first point's.
    pub factor: f64,
}

impl Default for KneeRule {
    /// `factor = 2`.
    fn default() -> Self {
        KneeRule { factor: 2.0 }
    }
}

/// Where a series saturates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Knee {
    /// The largest load factor before the first saturated point; the last point when none is
    /// saturated; `None` for an empty series.
    pub knee: Option<f64>,
    /// The first saturated load factor (`None`: the series never saturates in the loads visited).
    pub saturated_at: Option<f64>,
}

impl KneeRule {
    /// Index of the first saturated point of a curve of `(load factor, mean turnaround)` sorted by
    /// load factor, or `None`. The baseline is the first point; a non-positive or non-finite
    /// baseline makes every later finite point count as not saturated.
    pub fn first_saturated(&self, curve: &[(f64, f64)]) -> Option<usize> {
        let &(_, base) = curve.first()?;
        if !(base.is_finite() && base > 0.0) {
            return None;
        }
        curve
            .iter()
            .position(|&(_, t)| t.is_nan() || t > self.factor * base)
    }

    /// The knee of a curve of `(load factor, mean turnaround)` sorted by load factor.
    pub fn knee(&self, curve: &[(f64, f64)]) -> Knee {
        match self.first_saturated(curve) {
            Some(i) => Knee {
                knee: i.checked_sub(1).map(|k| curve[k].0),
                saturated_at: Some(curve[i].0),
            },
            None => Knee {
                knee: curve.last().map(|p| p.0),
                saturated_at: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knee_is_last_point_within_factor_of_the_baseline() {
        let curve = [
            (0.1, 100.0),
            (0.2, 120.0),
            (0.3, 200.0),
            (0.4, 201.0),
            (0.5, 900.0),
        ];
        let rule = KneeRule::default();
        assert_eq!(rule.first_saturated(&curve), Some(3));
        assert_eq!(
            rule.knee(&curve),
            Knee {
                knee: Some(0.3),
                saturated_at: Some(0.4)
            }
        );
    }

    #[test]
    fn a_curve_that_never_saturates_has_its_last_point_as_knee() {
        let curve = [(0.1, 100.0), (0.2, 150.0), (0.3, 190.0)];
        let k = KneeRule::default().knee(&curve);
        assert_eq!(k.knee, Some(0.3));
        assert_eq!(k.saturated_at, None);
    }

    #[test]
    fn factor_changes_the_knee() {
        let curve = [(0.1, 10.0), (0.2, 25.0), (0.3, 35.0)];
        assert_eq!(KneeRule { factor: 2.0 }.knee(&curve).knee, Some(0.1));
        assert_eq!(KneeRule { factor: 3.0 }.knee(&curve).knee, Some(0.2));
        assert_eq!(KneeRule { factor: 4.0 }.knee(&curve).saturated_at, None);
    }

    #[test]
    fn degenerate_curves_do_not_panic() {
        let rule = KneeRule::default();
        assert_eq!(rule.knee(&[]).knee, None);
        assert_eq!(rule.first_saturated(&[(0.1, 0.0), (0.2, 5.0)]), None);
        assert_eq!(
            rule.first_saturated(&[(0.1, 1.0), (0.2, f64::NAN)]),
            Some(1)
        );
    }
}
