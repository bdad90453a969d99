//! The plan's tests: files planned, labels and keys refused with their lines, templates filled.

use super::*;
use crate::sched::SchedKind;

const FILE: &str = r#"
title = "t"

[defaults]
replicate = { count = 3 }
shake = { submit_s = 10 }

[[panel]]
name = "kth"
workload = "kth-sp2"
sched = ["easy", "conservative"]
alloc = ["flat"]
estimate = ["user"]
x = { values = "0.5:1.5:0.5", quick = [1.0] }

[[panel]]
name = "k"
workload = "synth:uniform,mesh=32x32,jobs={jobs},rate=2.5"
jobs = 100
seed_key = "uniform/rate=2.5"
x = { name = "window", values = [1, 10, 240], log = true }
[[panel.series]]
sched = "window:{x}"
alloc = "mpl"
label = "window:K+mpl"
[[panel.series]]
sched = "oo"
alloc = "mpl"

[[figure]]
name = "turnaround"
panel = "kth"
y = "mean_turnaround_s"

[[claim]]
figure = "turnaround"
statement = "EASY is not worse."
predicate = "lowest"
series = "easy+flat+user"
"#;

#[test]
fn a_step_in_x_picks_a_value_below_and_from_its_threshold() {
    let t = "largest-first:{x<0.7?16:64}";
    assert_eq!(fill(t, 0.6, None).unwrap(), "largest-first:16");
    assert_eq!(fill(t, 0.7, None).unwrap(), "largest-first:64");
    assert_eq!(fill("a{x<1?b:c}{x}", 2.0, None).unwrap(), "ac2");
    assert!(
        fill("{x<high?1:2}", 0.5, None)
            .unwrap_err()
            .contains("not a number")
    );
    assert!(fill("{y}", 0.5, None).unwrap_err().contains("{x<T?A:B}"));
}

#[test]
fn a_file_becomes_panels_series_cells_figures_and_claims() {
    let p = Plan::new("e.toml", FILE, false).unwrap();
    assert_eq!(p.panels.len(), 2);
    let kth = &p.panels[0];
    let labels: Vec<&str> = kth.series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["easy+flat+user", "conservative+flat+user"]);
    assert_eq!(kth.xs(), vec![0.5, 1.0, 1.5]);
    assert_eq!(kth.rule.max, 3);
    let c = kth.cell(1, 1.5).unwrap();
    assert_eq!(c.sched, Policy::Builtin(SchedKind::Conservative));
    assert_eq!(c.load_factor, Some(1.5));
    assert_eq!(c.seed_key, "kth-sp2|lf=1.5");
    assert_eq!(
        c.seed_key,
        kth.cell(0, 1.5).unwrap().seed_key,
        "common random numbers"
    );
    let k = &p.panels[1];
    let c = k.cell(0, 240.0).unwrap();
    assert_eq!(c.sched, Policy::Builtin(SchedKind::Window(240)));
    assert_eq!(c.workload, "synth:uniform,mesh=32x32,jobs=100,rate=2.5");
    assert_eq!(c.load_factor, None);
    assert_eq!(c.seed_key, "uniform/rate=2.5");
    assert_eq!(k.cell(1, 1.0).unwrap().id(), k.cell(1, 240.0).unwrap().id());
    assert_ne!(k.cell(0, 1.0).unwrap().id(), k.cell(0, 240.0).unwrap().id());
    assert_eq!(p.figures[0].series, vec![0, 1]);
    assert_eq!(p.figures[0].y_label, "mean turnaround (s)");
    assert_eq!(p.claims[0].checks[0].line, 38);
    let q = Plan::new("e.toml", FILE, true).unwrap();
    assert_eq!(q.panels[0].xs(), vec![1.0]);
}

#[test]
fn a_fixed_load_factor_applies_to_every_cell_of_another_axis() {
    let text = FILE.replace("seed_key = \"uniform/rate=2.5\"\n", "load_factor = 0.8\n");
    let p = Plan::new("e.toml", &text, false).unwrap();
    let c = p.panels[1].cell(0, 10.0).unwrap();
    assert_eq!(c.load_factor, Some(0.8));
    assert!(c.seed_key.ends_with("|lf=0.8"), "{}", c.seed_key);
    let e = refused(
        "x = { values = \"0.5:1.5:0.5\"",
        "load_factor = 2\nx = { values = \"0.5:1.5:0.5\"",
    );
    assert_eq!(e.key, "load_factor", "{e}");
}

#[test]
fn a_claim_of_several_checks_holds_when_all_do_and_is_refused_when_malformed() {
    let checks = "predicate = \"lowest\"\nseries = \"easy+flat+user\"\n";
    let two = format!(
        "note = \"why\"\n[[claim.check]]\n{checks}[[claim.check]]\npredicate = \"highest\"\nseries = \"conservative+flat+user\"\nat = 1\n"
    );
    let text = FILE.replace(checks, &two);
    let p = Plan::new("e.toml", &text, false).unwrap();
    let c = &p.claims[0];
    assert_eq!(c.checks.len(), 2);
    assert_eq!((c.checks[0].line, c.checks[1].line), (40, 43));
    assert_eq!(c.note.as_deref(), Some("why"));
    let e = refused(checks, &format!("{checks}[[claim.check]]\n{checks}"));
    assert!(e.to_string().contains("not both"), "{e}");
    let e = refused(checks, "");
    assert!(e.to_string().contains("needs a `predicate`"), "{e}");
    let e = refused(
        checks,
        &format!("tolerance = 0.1\n[[claim.check]]\n{checks}"),
    );
    assert_eq!(e.key, "tolerance", "{e}");
    let e = refused(
        checks,
        "[[claim.check]]\npredicate = \"lowest\"\nseries = \"easy\"\n",
    );
    assert_eq!((e.line, e.key.as_str()), (39, "predicate"), "{e}");
}

fn refused(from: &str, to: &str) -> ExperimentError {
    let text = FILE.replace(from, to);
    assert_ne!(text, FILE, "`{from}` is in the file");
    Plan::new("e.toml", &text, false).unwrap_err()
}

#[test]
fn bad_labels_and_names_are_refused_with_their_line_and_the_valid_ones() {
    let e = refused("\"easy\", \"conservative\"", "\"easy\", \"backfill\"");
    assert_eq!(
        (e.line, e.key.as_str()),
        (11, "sched"),
        "the label's own line: {e}"
    );
    assert!(
        e.to_string().contains("conservative") && e.to_string().contains("fcfs"),
        "{e}"
    );
    let e = refused("y = \"mean_turnaround_s\"", "y = \"turnaround\"");
    assert_eq!(e.line, 33, "{e}");
    assert!(e.to_string().contains("mean_turnaround_s"), "{e}");
    let e = refused("panel = \"kth\"", "panel = \"ctc\"");
    assert!(e.to_string().contains("`kth`"), "{e}");
    let e = refused("predicate = \"lowest\"", "predicate = \"best\"");
    assert_eq!(e.line, 38, "{e}");
    assert!(e.to_string().contains("lowest"), "{e}");
    let e = refused("series = \"easy+flat+user\"", "series = \"easy+flat\"");
    assert!(e.to_string().contains("easy+flat+user"), "{e}");
    let e = refused("sched = \"window:{x}\"", "sched = \"window:{x}{k}\"");
    assert!(e.to_string().contains("{k}"), "{e}");
    let e = refused("values = [1, 10, 240]", "values = [0, 10, 240]");
    assert!(e.to_string().contains("window:0"), "{e}");
    let e = refused(
        "x = { values = \"0.5:1.5:0.5\", quick = [1.0] }",
        "x = { name = \"rate\", values = [1] }",
    );
    assert!(
        e.to_string().contains("no template of the panel uses {x}"),
        "{e}"
    );
    let e = refused(
        "x = { values = \"0.5:1.5:0.5\", quick = [1.0] }",
        "x = { values = \"auto\" }\nstop = { above = 5 }",
    );
    assert!(e.to_string().contains("knee"), "{e}");
    let e = refused(
        "replicate = { count = 3 }",
        "replicate = { count = 3, min = 2 }",
    );
    assert_eq!(e.line, 5, "{e}");
}

#[test]
fn replay_options_layer_the_command_line_defaults_and_the_panel_key_by_key() {
    use crate::engine::Dilation;
    let text = FILE
        .replace(
            "shake = { submit_s = 10 }\n",
            "shake = { submit_s = 10 }\nkill_at_estimate = true\n",
        )
        .replace(
            "seed_key = \"uniform/rate=2.5\"\n",
            "seed_key = \"uniform/rate=2.5\"\nkill_at_estimate = false\ndilation = \"linear:0.5\"\n",
        );
    let base = ReplayOptions {
        dilation: Some(Dilation::Linear { alpha: 1.0 }),
        ..ReplayOptions::default()
    };
    let p = Plan::with_params("e.toml", &text, false, &[], &base).unwrap();
    let inherited = &p.panels[0].options;
    assert!(
        inherited.kill_at_estimate,
        "[defaults] over the command line"
    );
    assert_eq!(
        inherited.dilation, base.dilation,
        "the command line where the file is silent"
    );
    let own = &p.panels[1].options;
    assert!(!own.kill_at_estimate, "the panel over [defaults]");
    assert_eq!(own.dilation, Some(Dilation::Linear { alpha: 0.5 }));
    let c = p.panels[0].cell(0, 1.0).unwrap();
    assert!(
        c.id().ends_with("|dilation=linear:1|kill_at_estimate=true"),
        "{}",
        c.id()
    );
    let plain = Plan::new("e.toml", FILE, false).unwrap();
    let id = plain.panels[0].cell(0, 1.0).unwrap().id();
    assert!(!id.contains("kill") && !id.contains("dilation"), "{id}");
}

#[test]
fn a_bad_replay_option_is_refused_at_its_line_and_an_unknown_key_lists_the_options() {
    let e = refused(
        "seed_key = \"uniform/rate=2.5\"\n",
        "seed_key = \"uniform/rate=2.5\"\ndilation = \"linear:-1\"\n",
    );
    assert_eq!((e.line, e.key.as_str()), (21, "dilation"), "{e}");
    assert!(e.message.contains("linear:α"), "{e}");
    let e = refused("jobs = 100\n", "jobs = 100\nkill_at_estimate = 1\n");
    assert_eq!((e.line, e.key.as_str()), (20, "kill_at_estimate"), "{e}");
    let e = refused("jobs = 100\n", "jobs = 100\ndilatation = \"linear:1\"\n");
    assert_eq!(e.line, 20, "{e}");
    assert!(
        e.message.contains("workload") && e.message.contains("`dilation`"),
        "{e}"
    );
}

#[test]
fn templates_substitute_x_and_jobs_only() {
    assert_eq!(
        fill("rate={x},jobs={jobs}", 2.5, Some(10)).unwrap(),
        "rate=2.5,jobs=10"
    );
    assert_eq!(fill("mesh={x}x{x}", 16.0, None).unwrap(), "mesh=16x16");
    assert!(fill("{jobs}", 1.0, None).is_err());
    assert!(fill("{y}", 1.0, None).is_err());
    assert!(fill("{x", 1.0, None).is_err());
}

#[test]
fn an_orders_table_defines_orders_for_every_panel_and_enters_the_cell_ids() {
    let with = |orders: &str| {
        let text = FILE
            .replace("title = \"t\"\n", &format!("title = \"t\"\n{orders}"))
            .replace(
                "[\"easy\", \"conservative\"]",
                "[\"easy:order=mine\", \"easy\"]",
            );
        Plan::new("e.toml", &text, false)
    };
    let p = with("[orders]\nmine = \"wait / estimate\"\n").unwrap();
    let options = &p.panels[1].options;
    assert_eq!(options.orders["mine"], "wait / estimate");
    let id = |p: &Plan, s| p.panels[0].cell(s, 1.0).unwrap().id();
    assert!(id(&p, 0).contains("wait / estimate"), "{}", id(&p, 0));
    let other = with("[orders]\nmine = \"wait / nodes\"\n").unwrap();
    assert_ne!(id(&p, 0), id(&other, 0), "another definition, another cell");
    let plain = Plan::new("e.toml", FILE, false).unwrap();
    let plain_id = plain.panels[0].cell(0, 1.0).unwrap().id();
    assert!(!plain_id.contains("orders"), "{plain_id}");
    let e = with("[orders]\nmine = \"wait +\"\n").unwrap_err();
    assert!(e.to_string().contains("column"), "{e}");
    assert_eq!(e.line, 3, "{e}");
}

#[test]
fn an_order_neither_named_nor_defined_is_refused_at_its_series_before_any_cell_runs() {
    let with = |sched: &str| {
        let text = FILE.replace(
            "[\"easy\", \"conservative\"]",
            &format!("[\"easy\", \"{sched}\"]"),
        );
        Plan::new("e.toml", &text, false)
    };
    let e = with("easy:order=wfp").unwrap_err();
    let message = e.to_string();
    assert!(
        message.contains("scheduler `easy:order=wfp`")
            && message.contains("did you mean `wfp3`")
            && !message.contains('\n'),
        "{message}"
    );
    assert_eq!(e.key, "series", "{e}");
    assert!(e.line > 0, "{e}");
    // Defined in the file's `[orders]`, the same name plans.
    let text = FILE
        .replace(
            "title = \"t\"\n",
            "title = \"t\"\n[orders]\nwfp = \"wait\"\n",
        )
        .replace(
            "[\"easy\", \"conservative\"]",
            "[\"easy\", \"easy:order=wfp\"]",
        );
    assert!(Plan::new("e.toml", &text, false).is_ok());
}
