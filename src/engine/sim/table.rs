//! Per-job state of a replay or of a fork of it: [`PerJob`].

use rustc_hash::FxHashMap;

/// One value per job of the log: a vector in a replay; in a fork ([`super::fork`]) only the jobs
/// it can change — those waiting or running when it was made — with every other job's value
/// given by which side of a cut its index falls, so that a fork costs what is live, not the log.
#[derive(Debug, Clone)]
pub(super) enum PerJob<T> {
    /// Every job's value, by index.
    Dense(Vec<T>),
    /// The live jobs' values, and the others': `before` up to `cut` (inclusive), `after` beyond.
    Sparse {
        live: FxHashMap<usize, T>,
        cut: usize,
        before: T,
        after: T,
    },
}

impl<T: Clone> PerJob<T> {
    /// The value of job `i`.
    pub(super) fn get(&self, i: usize) -> &T {
        match self {
            PerJob::Dense(v) => &v[i],
            PerJob::Sparse {
                live,
                cut,
                before,
                after,
            } => live
                .get(&i)
                .unwrap_or(if i <= *cut { before } else { after }),
        }
    }

    /// The value of job `i`, to change.
    pub(super) fn get_mut(&mut self, i: usize) -> &mut T {
        match self {
            PerJob::Dense(v) => &mut v[i],
            PerJob::Sparse {
                live,
                cut,
                before,
                after,
            } => live
                .entry(i)
                .or_insert_with(|| if i <= *cut { before } else { after }.clone()),
        }
    }

    /// A sparse copy holding the values of the jobs `live`, `before` and `after` for the others.
    pub(super) fn fork(
        &self,
        live: impl Iterator<Item = usize>,
        cut: usize,
        before: T,
        after: T,
    ) -> Self {
        PerJob::Sparse {
            live: live.map(|i| (i, self.get(i).clone())).collect(),
            cut,
            before,
            after,
        }
    }

    /// Every job's value (a replay's table; a fork's is never read whole).
    pub(super) fn into_dense(self) -> Vec<T> {
        match self {
            PerJob::Dense(v) => v,
            PerJob::Sparse { .. } => unreachable!("a fork's table is never read whole"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fork_copies_the_live_values_and_reads_the_others_by_side_of_the_cut() {
        let dense = PerJob::Dense(vec![1, 2, 3, 4, 5]);
        let mut fork = dense.fork([1, 3].into_iter(), 2, 0, -1);
        assert_eq!(
            (0..5).map(|i| *fork.get(i)).collect::<Vec<_>>(),
            [0, 2, 0, 4, -1]
        );
        *fork.get_mut(4) = 9;
        *fork.get_mut(1) += 10;
        assert_eq!((*fork.get(4), *fork.get(1)), (9, 12));
        assert_eq!(*dense.get(4), 5, "the replay's table is untouched");
    }
}
