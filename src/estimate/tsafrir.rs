//! User run-time estimates as Tsafrir, Etsion & Feitelson model them ("Modeling user runtime
//! estimates", JSSPP 2005): estimates are *modal* — about twenty round values (the site's maximum
//! first, then 5 min, 15 min, 1 h, …) hold 89% of the jobs, a long tail of other values the rest —
//! and every job gets one of them no shorter than its run time (up to the maximum), at random among
//! those, so that
//! longer jobs get longer estimates and short jobs often very long ones.
//!
//! The model follows the authors' reference code (`est_model.cc` / `est_model.hh`, read through the
//! code search; docs/ALGORITHMS.md, "Modeled user estimates"), without user-supplied bins:
//!
//! 1. **Number of estimate values** from the number of jobs, linear between (0, 0), (20, 10),
//!    (200, 20), (1000, 35), (10⁴, 90), (7·10⁴, 340), (2.5·10⁵, 565), constant beyond.
//! 2. **Head**: the maximum, the fifteen values all four of the paper's logs share below it
//!    (5, 10, 15, 20, 30 min, 1, 2, 3, 4, 5, 6, 8, 10, 12, 18 h), then round values (multiples of
//!    200 h, 100 h, 50 h, 10 h, 5 h, 2 h, 1 h, 20 min, 10 min, 5 min counted down from the maximum)
//!    up to twenty. Popularity of rank x = 2…20: `14.0491·e^(−0.177531·x) + 0.462513` % of the
//!    jobs, rank 1 the rest of 89%. The maximum is rank 1; the other values get ranks by the
//!    paper's time-rank → popularity-rank table of four logs (a rank that is due — no later time
//!    rank had it in any log — first; otherwise the smaller of two draws from the ranks the logs had
//!    at this or earlier time ranks).
//! 3. **Tail**: the other values at times `max · (a−1)x / (a−x)`, `x` = i / tail size, `a = 1 +
//!    12.1039 · values^−0.6026`, rounded to minutes (moved by ±30, ±20, ±10 s to avoid taken
//!    values); popularity `795.6 · rank^−2.267` for ranks 21…, scaled to 11%, matched to the times
//!    at random.
//! 4. **Jobs per value**: `max(1, round(share · jobs))`, then evened out to the number of jobs as the
//!    reference does (proportionally from the largest values, then one by one).
//! 5. **Assignment**: jobs by decreasing run time take, in turn, a uniformly drawn estimate among
//!    the remaining ones from their position up to the last one still no shorter than their run
//!    time (the reference's `shuffle`).
//!
//! The maximum (the site's limit, the model's one input besides the job count) is the largest
//! requested time (SWF field 9) that at least one job in a thousand asks for — a limit is a popular
//! value, a typo is not — else the largest run time; rounded up to a minute, at least one hour (the
//! reference requires an hour). A job longer than the maximum gets the maximum, and overruns it.
//! Where the reference gives up (more long jobs than long estimates), the fewest shortest estimates
//! are raised to the maximum so that every job has one.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::SimTime;
use crate::packed::PackedTime;
use crate::workload::Job;

const MIN: u32 = 60;
const HOUR: u32 = 3600;
/// Estimate values in the head of the distribution.
const TOP: usize = 20;
/// Share of the jobs, %, using the head values.
const HEAD_SHARE: f64 = 89.0;
/// The values found among the twenty most popular in all four logs of the paper.
const JOINT: [u32; 15] = [
    5 * MIN,
    15 * MIN,
    10 * MIN,
    20 * MIN,
    30 * MIN,
    HOUR,
    2 * HOUR,
    3 * HOUR,
    4 * HOUR,
    5 * HOUR,
    6 * HOUR,
    8 * HOUR,
    10 * HOUR,
    12 * HOUR,
    18 * HOUR,
];
/// Round values that complete the head, multiples counted down from the maximum.
const ROUND: [u32; 10] = [
    200 * HOUR,
    100 * HOUR,
    50 * HOUR,
    10 * HOUR,
    5 * HOUR,
    2 * HOUR,
    HOUR,
    20 * MIN,
    10 * MIN,
    5 * MIN,
];
/// (jobs, estimate values): the linear model of the number of values.
const VALUES: [(f64, f64); 7] = [
    (0.0, 0.0),
    (20.0, 10.0),
    (200.0, 20.0),
    (1000.0, 35.0),
    (10_000.0, 90.0),
    (70_000.0, 340.0),
    (250_000.0, 565.0),
];
/// Popularity rank of time rank r (0: the maximum) in the paper's logs SDSC SP2, CTC, KTH, Blue.
const RANKS: [[usize; 4]; TOP] = [
    [3, 1, 1, 1],
    [1, 3, 4, 6],
    [4, 4, 10, 5],
    [17, 2, 14, 3],
    [13, 12, 20, 7],
    [7, 9, 2, 2],
    [8, 8, 3, 18],
    [18, 18, 7, 19],
    [2, 6, 12, 4],
    [6, 7, 6, 11],
    [16, 11, 19, 20],
    [10, 20, 5, 9],
    [5, 16, 18, 10],
    [15, 5, 16, 14],
    [14, 14, 9, 13],
    [19, 13, 17, 16],
    [11, 10, 15, 15],
    [12, 15, 13, 17],
    [9, 17, 8, 8],
    [20, 19, 11, 12],
];

/// One value of the estimate distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bin {
    /// The estimate, seconds.
    pub time: u32,
    /// Jobs that get it.
    pub jobs: usize,
}

/// The number of estimate values for `jobs` jobs (step 1).
pub fn value_count(jobs: usize) -> usize {
    let n = jobs as f64;
    let Some(k) = VALUES.iter().position(|&(j, _)| n <= j) else {
        return VALUES[VALUES.len() - 1].1 as usize;
    };
    if k == 0 {
        return 0;
    }
    let ((x0, y0), (x1, y1)) = (VALUES[k - 1], VALUES[k]);
    (y0 + ((n - x0) * (y1 - y0) / (x1 - x0)).round()) as usize
}

/// The head values (step 2): the maximum first, then the others in increasing order.
pub fn head_times(max: u32) -> Vec<u32> {
    let mut v = vec![max];
    v.extend(JOINT.iter().copied().filter(|&t| t < max));
    for mul in ROUND {
        let start = max / mul * mul;
        let mut t = start;
        while t > 0 && v.len() < TOP {
            if !v.contains(&t) {
                v.push(t);
            }
            t -= mul;
        }
    }
    v[1..].sort_unstable();
    v
}

/// The head shares, %, by popularity rank 1…n (step 2).
pub fn head_shares(n: usize) -> Vec<f64> {
    let rest: Vec<f64> = (2..=n)
        .map(|x| 14.0491 * (-0.177531 * x as f64).exp() + 0.462513)
        .collect();
    let mut v = vec![HEAD_SHARE - rest.iter().sum::<f64>()];
    v.extend(rest);
    v.sort_by(|a, b| b.total_cmp(a));
    v
}

/// The popularity rank (1-based) of each of the `n` head values by time rank (step 2).
fn head_ranks<R: Rng>(n: usize, rng: &mut R) -> Vec<usize> {
    let in_range = |r: usize| (1..=n).contains(&r);
    // The last time rank at which each popularity rank appears in some log.
    let mut bound = vec![usize::MAX; n + 1];
    for (ttr, row) in RANKS.iter().enumerate().take(n) {
        for &r in row.iter().filter(|&&r| in_range(r)) {
            bound[r] = ttr;
        }
    }
    let mut chosen = vec![false; n + 1];
    let mut pool: Vec<usize> = Vec::new();
    let mut ranks = Vec::with_capacity(n);
    for (ttr, row) in RANKS.iter().enumerate().take(n) {
        pool.extend(row.iter().copied().filter(|&r| in_range(r) && !chosen[r]));
        let due = || (1..=n).find(|&r| bound[r] <= ttr && !chosen[r]);
        let mut drawn = || {
            let a = pool[rng.random_range(0..pool.len())];
            let b = pool[rng.random_range(0..pool.len())];
            a.min(b)
        };
        let rank = if ttr == 0 {
            1
        } else if let Some(r) = due() {
            r
        } else if !pool.is_empty() {
            drawn()
        } else {
            (1..=n).find(|&r| !chosen[r]).unwrap_or(1)
        };
        chosen[rank] = true;
        pool.retain(|&r| r != rank);
        ranks.push(rank);
    }
    ranks
}

/// The tail values (step 3), increasing, none equal to a head value.
fn tail_times(max: u32, count: usize, values: usize, head: &[u32]) -> Vec<u32> {
    let a = 1.0 + 12.1039 * (values as f64).powf(-0.6026);
    let mut v: Vec<u32> = Vec::with_capacity(count);
    for i in 1..=count {
        let x = i as f64 / count as f64;
        let y = (a - 1.0) * x / (a - x);
        let sec = ((y * f64::from(max) / 60.0).round() * 60.0) as i64;
        let free = |s: i64| {
            s > 0 && s < i64::from(max) && !v.contains(&(s as u32)) && !head.contains(&(s as u32))
        };
        if let Some(s) = [0, 30, -30, 20, -20, 10, -10]
            .iter()
            .map(|o| sec + o)
            .find(|&s| free(s))
        {
            v.push(s as u32);
        }
    }
    v.sort_unstable();
    v
}

/// The tail shares, %, decreasing, summing to the 11% the head leaves (step 3).
fn tail_shares(count: usize) -> Vec<f64> {
    let raw: Vec<f64> = (0..count)
        .map(|i| 795.6 * ((TOP + 1 + i) as f64).powf(-2.267))
        .collect();
    let sum: f64 = raw.iter().sum();
    raw.iter().map(|x| x * (100.0 - HEAD_SHARE) / sum).collect()
}

/// Fisher–Yates shuffle.
fn shuffle<T, R: Rng>(v: &mut [T], rng: &mut R) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.random_range(0..=i));
    }
}

/// The estimate distribution for `jobs` jobs and maximum `max` seconds (steps 1–4), by time.
pub fn distribution<R: Rng>(jobs: usize, max: u32, rng: &mut R) -> Vec<Bin> {
    let values = value_count(jobs);
    let head = head_times(max);
    let shares = head_shares(head.len());
    let ranks = head_ranks(head.len(), rng);
    let mut share: Vec<(u32, f64)> = head
        .iter()
        .zip(&ranks)
        .map(|(&t, &r)| (t, shares[r - 1]))
        .collect();
    let mut tail = tail_times(max, values.saturating_sub(head.len()), values, &head);
    let mut tail_share = tail_shares(tail.len());
    shuffle(&mut tail, rng);
    shuffle(&mut tail_share, rng);
    share.extend(tail.into_iter().zip(tail_share));
    share.sort_by_key(|&(t, _)| t);
    let counts: Vec<usize> = share
        .iter()
        .map(|&(_, p)| ((p * jobs as f64 / 100.0).round() as usize).max(1))
        .collect();
    let counts = even_out(counts, jobs);
    share
        .iter()
        .zip(counts)
        .filter(|&(_, n)| n > 0)
        .map(|(&(time, _), jobs)| Bin { time, jobs })
        .collect()
}

/// Moves the job counts (by time) to sum to `jobs` as the reference's `adjust_njobs`: in rounds
/// over the values from the most to the least used (ties by time), proportionally, then one each,
/// then down to one, then to zero.
fn even_out(mut counts: Vec<usize>, jobs: usize) -> Vec<usize> {
    let total: usize = counts.iter().sum();
    let adding = jobs > total;
    let mut diff = jobs.abs_diff(total);
    let mut order: Vec<usize> = (0..counts.len()).collect();
    for attempt in 0..4 {
        if diff == 0 {
            break;
        }
        order.sort_by(|&a, &b| counts[b].cmp(&counts[a]).then(a.cmp(&b)));
        let f = diff as f64 / total.max(1) as f64;
        for &i in &order {
            let n = counts[i];
            if n == 0 {
                continue;
            }
            let mut step = match attempt {
                0 => (f * n as f64).ceil() as usize,
                1 => 1,
                2 => n - 1,
                _ => n,
            };
            if !adding {
                step = step.min(n);
                if step == n && attempt != 3 {
                    step -= 1;
                }
            }
            step = step.min(diff);
            if adding {
                counts[i] += step;
            } else {
                counts[i] -= step;
            }
            diff -= step;
            if diff == 0 {
                break;
            }
        }
    }
    counts
}

/// Assigns the distribution's estimates to jobs of the given run times (step 5): the estimate of
/// each job, in the order of `runtimes`; every estimate is at least its job's run time.
pub fn assign<R: Rng>(bins: &[Bin], runtimes: &[SimTime], rng: &mut R) -> Vec<SimTime> {
    let mut ests: Vec<SimTime> = bins
        .iter()
        .flat_map(|b| std::iter::repeat_n(f64::from(b.time), b.jobs))
        .collect();
    let max = ests.iter().copied().fold(0.0, f64::max);
    ests.sort_by(|a, b| b.total_cmp(a));
    let mut by_run: Vec<usize> = (0..runtimes.len()).collect();
    by_run.sort_by(|&a, &b| runtimes[b].total_cmp(&runtimes[a]).then(a.cmp(&b)));
    let n = by_run.len().min(ests.len());
    raise_shortest(&mut ests[..n], |k| runtimes[by_run[k]], max);
    let mut out = vec![0.0; runtimes.len()];
    let mut hi = 0;
    for j in 0..n {
        let run = runtimes[by_run[j]];
        hi = hi.max(j);
        while hi + 1 < n && run <= ests[hi + 1] {
            hi += 1;
        }
        let k = rng.random_range(j..=hi);
        out[by_run[j]] = ests[k].max(run);
        ests.swap(j, k);
    }
    out
}

/// Where the reference gives up (a job longer than every estimate left for it): the fewest
/// shortest estimates of `ests` (decreasing) become `max` so that the `k`-th longest job has an
/// estimate no shorter than `run(k)` at position `k`.
fn raise_shortest(ests: &mut [SimTime], run: impl Fn(usize) -> SimTime, max: SimTime) {
    let n = ests.len();
    // With the m shortest raised, position k holds max for k < m, else the (k − m)-th estimate.
    let fits = |m: usize| (0..n).all(|k| run(k) <= if k < m { max } else { ests[k - m] });
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if fits(mid) { hi = mid } else { lo = mid + 1 }
    }
    ests.copy_within(0..n - lo, lo);
    ests[..lo].fill(max);
}

/// The model's maximum for `jobs` (the site's limit): the largest requested time that at least one
/// job in a thousand of those with one asks for (a limit is a popular value, a typo is not), else
/// the largest run time; rounded up to a minute, at least an hour.
pub fn max_estimate(jobs: &[Job]) -> u32 {
    let mut asked: Vec<f64> = jobs
        .iter()
        .filter_map(|j| j.requested.map(PackedTime::get))
        .collect();
    asked.sort_by(f64::total_cmp);
    let enough = asked.len().div_ceil(1000).max(1);
    let limit = asked
        .chunk_by(|a, b| a == b)
        .rev()
        .find(|same| same.len() >= enough)
        .map(|same| same[0]);
    let top = limit.unwrap_or_else(|| jobs.iter().map(|j| j.runtime).fold(0.0, f64::max));
    let minutes = (top / 60.0).ceil().min(f64::from(u32::MAX / 60));
    (minutes as u32 * 60).max(HOUR)
}

/// Modeled user estimates for `jobs`, drawn from one ChaCha8 stream seeded by the jobs' numbers
/// and run times (the same log, shaken or not, gets the same estimates).
pub fn estimates(jobs: &[Job]) -> Vec<SimTime> {
    let seed = jobs.iter().fold(0x7473_6166_7269_7205u64, |h, j| {
        mix(h ^ mix(j.source_id ^ j.runtime.to_bits().rotate_left(17)))
    });
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let max = max_estimate(jobs);
    let bins = distribution(jobs.len(), max, &mut rng);
    // A job longer than the maximum gets the maximum (the reference truncates its run time).
    let runtimes: Vec<SimTime> = jobs.iter().map(|j| j.runtime.min(f64::from(max))).collect();
    assign(&bins, &runtimes, &mut rng)
}

/// SplitMix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests;
