//! The model's steps against hand-worked values and its own parameters.

use super::*;

const H: u32 = HOUR;
const M: u32 = MIN;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

#[test]
fn the_number_of_values_follows_the_linear_model() {
    assert_eq!(value_count(0), 0);
    assert_eq!(value_count(20), 10);
    assert_eq!(value_count(100), 14, "10 + 80·10/180 rounded");
    assert_eq!(value_count(28_475), 167, "90 + 18,475·250/60,000 rounded");
    assert_eq!(value_count(1_000_000), 565);
}

#[test]
fn the_head_of_an_18_hour_maximum_is_worked_by_hand() {
    // 18 h, the fourteen shared values below it, then 15 h (multiples of 5 h), 14 h and 16 h (of
    // 2 h), 13 h and 17 h (of 1 h).
    let mut want = vec![18 * H];
    want.extend([5 * M, 10 * M, 15 * M, 20 * M, 30 * M]);
    want.extend([1, 2, 3, 4, 5, 6, 8, 10, 12, 13, 14, 15, 16, 17].map(|h| h * H));
    assert_eq!(head_times(18 * H), want);
    assert_eq!(
        head_times(H).len(),
        12,
        "a one-hour maximum has only twelve round values"
    );
}

#[test]
fn head_shares_sum_to_89_percent_the_maximum_first() {
    let s = head_shares(20);
    assert!((s.iter().sum::<f64>() - 89.0).abs() < 1e-9);
    assert!(s.windows(2).all(|w| w[0] >= w[1]));
    let rank2 = 14.0491 * (-0.177531f64 * 2.0).exp() + 0.462513;
    assert!((s[1] - rank2).abs() < 1e-12 && s[0] > s[1], "{s:?}");
}

#[test]
fn head_ranks_are_a_permutation_with_the_maximum_most_popular() {
    for seed in 0..20 {
        let r = head_ranks(20, &mut rng(seed));
        assert_eq!(r[0], 1);
        let mut sorted = r.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (1..=20).collect::<Vec<_>>());
        // Rank 20 appears at time ranks 4, 10, 11, 19 in the logs: due by time rank 19 at the latest.
        assert!(r.iter().position(|&x| x == 20).unwrap() <= 19);
    }
    let short = head_ranks(12, &mut rng(1));
    let mut sorted = short.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (1..=12).collect::<Vec<_>>());
}

#[test]
fn the_distribution_has_the_models_counts_and_shares() {
    let jobs = 28_475;
    let bins = distribution(jobs, 60 * H, &mut rng(3));
    assert_eq!(bins.iter().map(|b| b.jobs).sum::<usize>(), jobs);
    assert!(bins.windows(2).all(|w| w[0].time < w[1].time));
    assert!((160..=167).contains(&bins.len()), "{} values", bins.len());
    let head = head_times(60 * H);
    let in_head: usize = bins
        .iter()
        .filter(|b| head.contains(&b.time))
        .map(|b| b.jobs)
        .sum();
    let share = in_head as f64 / jobs as f64;
    assert!((share - 0.89).abs() < 0.01, "head share {share}");
    let top = bins.iter().max_by_key(|b| b.jobs).unwrap();
    assert_eq!(top.time, 60 * H, "the maximum is the most popular estimate");
    assert!(bins.iter().all(|b| b.time <= 60 * H && b.jobs >= 1));
}

#[test]
fn job_counts_even_out_to_the_total() {
    assert_eq!(even_out(vec![5, 3, 1], 12), vec![7, 4, 1]);
    assert_eq!(even_out(vec![5, 3, 1], 6), vec![3, 2, 1]);
    assert_eq!(even_out(vec![1, 1, 1], 1).iter().sum::<usize>(), 1);
}

#[test]
fn assignment_gives_each_job_an_estimate_no_shorter_than_its_run() {
    // Estimates 100, 50, 50. The 60 s job can only take 100; the others take the 50s.
    let bins = [Bin { time: 50, jobs: 2 }, Bin { time: 100, jobs: 1 }];
    for seed in 0..10 {
        assert_eq!(
            assign(&bins, &[10.0, 60.0, 40.0], &mut rng(seed)),
            vec![50.0, 100.0, 50.0]
        );
    }
    // Two jobs longer than 50 s: the shortest estimate is raised to the maximum.
    assert_eq!(
        assign(&bins, &[60.0, 70.0, 10.0], &mut rng(1)),
        vec![100.0, 100.0, 50.0]
    );
}

#[test]
fn modeled_estimates_cover_every_run_and_keep_the_modes() {
    let mut r = rng(9);
    let jobs: Vec<Job> = (0..5_000)
        .map(|i| {
            let runtime = (r.random::<f64>() * 10.0).exp().floor();
            crate::workload::Job {
                id: crate::workload::JobId(i),
                source_id: u64::from(i) + 1,
                submit: f64::from(i),
                runtime,
                estimate: runtime,
                requested: crate::packed::PackedTime::new(36.0 * 3600.0),
                request: crate::workload::Request::Nodes(1),
                asked_procs: 1,
                user: None,
                group: None,
                queue: None,
                partition: None,
            }
        })
        .collect();
    let est = estimates(&jobs);
    assert_eq!(est, estimates(&jobs), "a pure function of the jobs");
    assert!(est.iter().zip(&jobs).all(|(e, j)| *e >= j.runtime));
    let max = f64::from(max_estimate(&jobs));
    assert_eq!(max, 36.0 * 3600.0);
    let at_max = est.iter().filter(|&&e| e == max).count() as f64 / est.len() as f64;
    // Rank 1 holds 89% less the other nineteen head shares: about 22% of the jobs.
    let want = head_shares(20)[0] / 100.0;
    assert!((at_max - want).abs() < 0.03, "{at_max} vs {want}");
}

#[test]
fn the_maximum_is_the_largest_popular_requested_time() {
    let job = |i: u32, runtime: f64, requested: Option<f64>| crate::workload::Job {
        id: crate::workload::JobId(i),
        source_id: u64::from(i),
        submit: 0.0,
        runtime,
        estimate: runtime,
        requested: requested.and_then(crate::packed::PackedTime::new),
        request: crate::workload::Request::Nodes(1),
        asked_procs: 1,
        user: None,
        group: None,
        queue: None,
        partition: None,
    };
    // 2,000 jobs ask for 18 h, one for 23 years (a typo): the limit is 18 h (two in a thousand
    // needed). A 20 h job gets 18 h and overruns it.
    let mut jobs: Vec<_> = (0..2000)
        .map(|i| job(i, 60.0, Some(18.0 * 3600.0)))
        .collect();
    jobs.push(job(2000, 72_000.0, Some(738_738_720.0)));
    assert_eq!(max_estimate(&jobs), 18 * H);
    let est = estimates(&jobs);
    assert_eq!(est[2000], f64::from(18 * H));
    // No requested times: the longest run, rounded up to a minute, at least an hour.
    let none = [job(0, 4000.5, None), job(1, 10.0, None)];
    assert_eq!(max_estimate(&none), 4020);
    assert_eq!(max_estimate(&[job(0, 10.0, None)]), H);
}
