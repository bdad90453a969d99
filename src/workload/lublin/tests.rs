//! The generated workload against the model's own shares and moments (20,000 jobs per check, 50,000
//! for the daily cycle; the tolerances are several standard errors wide), the special functions against closed forms, and
//! the label.

use super::*;

fn batch(nodes: u32, jobs: usize, seed: u64) -> (Workload, ClassParams) {
    let spec = LublinSpec {
        nodes,
        jobs,
        classes: Classes::Batch,
    };
    (spec.generate(seed).unwrap(), spec.params().0)
}

fn sizes(w: &Workload) -> Vec<u32> {
    w.jobs.iter().map(|j| j.request.nodes()).collect()
}

/// `E[X | X ≤ m]` for X ~ gamma(a, b).
fn truncated_mean(a: f64, b: f64, m: f64) -> f64 {
    a * b * gamma_cdf(m, a + 1.0, b) / gamma_cdf(m, a, b)
}

/// `E[e^X | X ≤ m]` for X ~ gamma(a, b), b < 1.
fn truncated_mgf(a: f64, b: f64, m: f64) -> f64 {
    (1.0 - b).powf(-a) * gamma_cdf(m, a, b / (1.0 - b)) / gamma_cdf(m, a, b)
}

#[test]
fn special_functions_match_closed_forms() {
    assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
    assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    for x in [0.3f64, 1.0, 2.5, 3.0, 8.0] {
        assert!(
            (gamma_cdf(x, 1.0, 1.0) - (1.0 - (-x).exp())).abs() < 1e-12,
            "{x}"
        );
        let two = 1.0 - (-x).exp() * (1.0 + x);
        assert!((gamma_cdf(x, 2.0, 1.0) - two).abs() < 1e-12, "{x}");
        assert!(
            (gamma_cdf(2.0 * x, 2.0, 2.0) - two).abs() < 1e-12,
            "scale {x}"
        );
    }
}

#[test]
fn the_daily_cycle_has_48_buckets_of_mean_one_busiest_by_day() {
    let w = ClassParams::BATCH.bucket_weights();
    assert!((w.iter().sum::<f64>() / 48.0 - 1.0).abs() < 1e-12);
    let busiest = (0..48).max_by(|&a, &b| w[a].total_cmp(&w[b])).unwrap();
    // gamma(6.1271, 5.274) peaks near 27 half-hours past bucket 11 − 1: early afternoon.
    assert!((20..36).contains(&busiest), "busiest bucket {busiest}");
    assert!(w[busiest] > 3.0 * w[(busiest + 24) % 48], "{w:?}");
}

#[test]
fn batch_sizes_match_the_models_shares() {
    let (w, p) = batch(128, 20_000, 3);
    let s = sizes(&w);
    let n = s.len() as f64;
    let serial = s.iter().filter(|&&x| x == 1).count() as f64 / n;
    assert!((serial - 0.2927).abs() < 0.015, "serial share {serial}");
    let parallel: Vec<u32> = s.iter().copied().filter(|&x| x > 1).collect();
    let pow2 = parallel.iter().filter(|x| x.is_power_of_two()).count() as f64;
    // Every job of the power-of-two share is one; the others only by chance.
    let least = p.pow2 / (1.0 - p.serial);
    assert!(pow2 / parallel.len() as f64 >= least - 0.015, "{pow2}");
    assert!(s.iter().all(|&x| (1..=128).contains(&x)));
    let mean_log2 =
        parallel.iter().map(|&x| f64::from(x).log2()).sum::<f64>() / parallel.len() as f64;
    // Rounding moves log₂ sizes by less than half a unit either way and the serial jobs' draws
    // that land on size 1 are excluded: the mean stays within 0.15 of the two-stage uniform's.
    assert!(
        (mean_log2 - p.mean_log2_parallel()).abs() < 0.15,
        "{mean_log2} vs {}",
        p.mean_log2_parallel()
    );
}

#[test]
fn batch_run_times_follow_the_hyper_gamma_of_their_size() {
    let (w, p) = batch(128, 20_000, 5);
    let logs: Vec<f64> = w
        .jobs
        .iter()
        .filter(|j| j.request.nodes() == 1)
        .map(|j| j.runtime.ln())
        .collect();
    let got = logs.iter().sum::<f64>() / logs.len() as f64;
    let q = p.p_first(1);
    let want =
        q * truncated_mean(p.g1.0, p.g1.1, 12.0) + (1.0 - q) * truncated_mean(p.g2.0, p.g2.1, 12.0);
    assert!(
        (got - want).abs() < 0.1,
        "serial mean log run time {got} vs {want}"
    );
    assert!(
        w.jobs
            .iter()
            .all(|j| j.runtime >= 1.0 && j.runtime <= 12f64.exp())
    );
    // Larger jobs run longer (pa < 0 lowers the short gamma's share).
    let mean_log = |lo: u32, hi: u32| {
        let v: Vec<f64> = w
            .jobs
            .iter()
            .filter(|j| (lo..=hi).contains(&j.request.nodes()))
            .map(|j| j.runtime.ln())
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!(mean_log(32, 128) > mean_log(1, 1) + 0.3);
}

#[test]
fn batch_arrivals_match_the_mean_gap_and_the_daily_cycle() {
    // Arrivals come in bursts: 50,000 jobs keep the noise of the half-hour shares near 0.02.
    let (w, p) = batch(128, 50_000, 7);
    let last = w.jobs.last().unwrap().submit;
    let gap = last / w.jobs.len() as f64;
    let want = truncated_mgf(p.arrival.0, p.arrival.1, 13.0);
    assert!((gap / want - 1.0).abs() < 0.1, "mean gap {gap} vs {want}");
    let weights = p.bucket_weights();
    let mut counts = [0.0; 48];
    for j in &w.jobs {
        counts[(j.submit / 1800.0) as usize % 48] += 1.0;
    }
    let n = w.jobs.len() as f64;
    let tv: f64 = (0..48)
        .map(|b| (counts[b] / n - weights[b] / 48.0).abs())
        .sum::<f64>()
        / 2.0;
    assert!(
        tv < 0.05,
        "arrivals per half hour differ from the cycle by {tv}"
    );
}

#[test]
fn both_classes_mix_and_interactive_jobs_are_smaller() {
    let spec = LublinSpec {
        nodes: 128,
        jobs: 20_000,
        classes: Classes::Both,
    };
    let (w, classes) = spec.generate_classes(11).unwrap();
    assert!(w.jobs.windows(2).all(|p| p[0].submit <= p[1].submit));
    let inter: Vec<u32> = w
        .jobs
        .iter()
        .zip(&classes)
        .filter(|(_, c)| **c == Class::Interactive)
        .map(|(j, _)| j.request.nodes())
        .collect();
    assert!(!inter.is_empty() && inter.len() < w.jobs.len());
    let serial = inter.iter().filter(|&&x| x == 1).count() as f64 / inter.len() as f64;
    assert!(
        (serial - 0.1541).abs() < 0.03,
        "interactive serial share {serial}"
    );
    assert!(
        inter
            .iter()
            .all(|&x| f64::from(x) <= 5.5f64.exp2().round() + 0.5)
    );
}

#[test]
fn a_machine_of_another_size_moves_the_size_range_and_caps_sizes() {
    let (w, p) = batch(100, 5_000, 1);
    assert!(sizes(&w).iter().all(|&x| (1..=100).contains(&x)));
    assert!((p.u_hi - 100f64.log2()).abs() < 1e-12 && (p.u_hi - p.u_med - 2.0).abs() < 1e-12);
    let small = LublinSpec {
        nodes: 4,
        jobs: 10,
        classes: Classes::Both,
    }
    .params();
    assert!(small.0.u_med >= small.0.u_low && small.0.u_hi <= 2.0);
}

#[test]
fn same_seed_same_workload() {
    let (a, _) = batch(64, 500, 9);
    assert_eq!(a.jobs, batch(64, 500, 9).0.jobs);
    assert_ne!(a.jobs, batch(64, 500, 10).0.jobs);
}

#[test]
fn labels_read_with_defaults_and_name_the_bad_key() {
    let (s, seed) = LublinSpec::from_label("synth:lublin").unwrap();
    assert_eq!(
        (s.nodes, s.jobs, s.classes, seed),
        (128, 10_000, Classes::Both, 1)
    );
    let (s, seed) =
        LublinSpec::from_label("synth:lublin,nodes=256,jobs=50,seed=4,class=batch").unwrap();
    assert_eq!(
        (s.nodes, s.jobs, s.classes, seed),
        (256, 50, Classes::Batch, 4)
    );
    for (label, key) in [
        ("synth:lublin,nodes=x", "`nodes`"),
        ("synth:lublin,nodes=1", "nodes = 1"),
        ("synth:lublin,size=3", "`size`"),
        ("synth:lublin,class=cron", "`class`"),
        ("synth:lublin,jobs", "`jobs`"),
    ] {
        let e = LublinSpec::from_label(label).unwrap_err().to_string();
        assert!(e.contains(label) && e.contains(key), "{e}");
    }
}
