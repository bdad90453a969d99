//! One occupancy snapshot: the machine drawn as its topology ([`Layout`]) with every node in the
//! colour of the job holding it (free nodes white) and the job's number on it where it fits, the
//! waiting queue beside it (the head first, its request's shape drawn), the time and the load in
//! the title. Generic over the plotters backend: the same picture is a PNG or a GIF frame.

use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use pwa_replay::SimTime;
use pwa_replay::workload::{JobId, Request, Workload};

use super::layout::Layout;
use crate::report::human;
use crate::report::palette::job_colour;
use crate::report::plots::FONT;

/// What a snapshot shows.
#[derive(Debug, Clone)]
pub struct Scene<'a> {
    /// First title line (trace, machine, policies).
    pub title: &'a str,
    /// The instant.
    pub t: SimTime,
    /// The job holding each node (by node id or slot), `None` when free.
    pub owners: Vec<Option<JobId>>,
    /// The waiting jobs, head first.
    pub waiting: Vec<JobId>,
    /// The replayed workload (job numbers and requests).
    pub workload: &'a Workload,
    /// Where each node is drawn.
    pub layout: &'a Layout,
}

/// Light grey of cell borders.
const GRID: RGBColor = RGBColor(0xc8, 0xc8, 0xc8);

/// Paints `scene` on `area` (white background included).
pub fn paint<DB>(area: &DrawingArea<DB, Shift>, scene: &Scene<'_>) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    area.fill(&WHITE).map_err(err)?;
    let (w, h) = area.dim_in_pixel();
    let font = (h / 40).clamp(11, 20) as i32;
    let (head, body) = area.split_vertically(font * 4);
    title(&head, scene, font)?;
    let panel_w = (w / 4).clamp(200, 340);
    let (machine, queue) = body.split_horizontally(w - panel_w);
    draw_machine(&machine.margin(10, 20, 20, 10), scene, font)?;
    draw_queue(&queue.margin(0, 10, 10, 10), scene, font)
}

fn err<E: std::error::Error + Send + Sync + 'static>(e: DrawingAreaErrorKind<E>) -> anyhow::Error {
    anyhow!("drawing: {e}")
}

fn text_style(size: i32, colour: &RGBColor) -> TextStyle<'static> {
    (FONT, size).into_font().color(colour)
}

fn title<DB>(area: &DrawingArea<DB, Shift>, s: &Scene<'_>, font: i32) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let busy = s.owners.iter().filter(|o| o.is_some()).count();
    let line2 = format!(
        "t = {} s ({}) · {busy} of {} nodes busy · {} waiting",
        human::count(s.t.max(0.0).round() as u64),
        human::duration(s.t),
        s.owners.len(),
        s.waiting.len()
    );
    // Shrink a long title (a `synth:` label) to the canvas: DejaVu Sans averages ~0.55 em a glyph.
    let width = f64::from(area.dim_in_pixel().0 - 24);
    let fit = (width / (s.title.chars().count() as f64 * 0.55)) as i32;
    let big = text_style((font + 4).min(fit).max(8), &BLACK);
    area.draw(&Text::new(s.title.to_string(), (12, font / 2), big))
        .map_err(err)?;
    let small = text_style(font, &BLACK);
    area.draw(&Text::new(line2, (12, font * 2 + 2), small))
        .map_err(err)?;
    Ok(())
}

/// Cell geometry in pixels: origin of the top-left cell and cell width and height.
#[derive(Debug, Clone, Copy)]
struct Grid {
    x0: f64,
    y0: f64,
    cw: f64,
    ch: f64,
    rows: u32,
}

impl Grid {
    fn fit(l: &Layout, (w, h): (u32, u32)) -> Grid {
        let (w, h) = (f64::from(w), f64::from(h));
        let cw = w / f64::from(l.cols);
        let ch = if l.bar {
            h.min(120.0)
        } else {
            cw.min(h / f64::from(l.rows))
        };
        let cw = if l.bar { cw } else { ch };
        Grid {
            x0: (w - cw * f64::from(l.cols)) / 2.0,
            y0: (h - ch * f64::from(l.rows)) / 2.0,
            cw,
            ch,
            rows: l.rows,
        }
    }

    /// Top-left and bottom-right pixel of cell `(c, r)` (row 0 at the bottom).
    fn rect(&self, (c, r): (u32, u32)) -> ((i32, i32), (i32, i32)) {
        let x = self.x0 + f64::from(c) * self.cw;
        let y = self.y0 + f64::from(self.rows - 1 - r) * self.ch;
        let px = |v: f64| v.round() as i32;
        ((px(x), px(y)), (px(x + self.cw), px(y + self.ch)))
    }
}

fn draw_machine<DB>(area: &DrawingArea<DB, Shift>, s: &Scene<'_>, font: i32) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let g = Grid::fit(s.layout, area.dim_in_pixel());
    let borders = g.cw >= 5.0 && g.ch >= 5.0;
    for (id, owner) in s.owners.iter().enumerate() {
        let (a, b) = g.rect(s.layout.cell(id as u32));
        let fill = owner.map_or(WHITE, |j| job_colour(number(s, j)));
        area.draw(&Rectangle::new([a, b], fill.filled()))
            .map_err(err)?;
        if borders {
            area.draw(&Rectangle::new([a, b], GRID.stroke_width(1)))
                .map_err(err)?;
        }
    }
    let outline = g.rect((0, g.rows - 1)).0;
    let corner = g.rect((s.layout.cols - 1, 0)).1;
    area.draw(&Rectangle::new([outline, corner], BLACK.stroke_width(1)))
        .map_err(err)?;
    label_jobs(area, s, &g, font)
}

/// The job's number on it, centred on its cells, where they fill a rectangle that holds the text.
fn label_jobs<DB>(
    area: &DrawingArea<DB, Shift>,
    s: &Scene<'_>,
    g: &Grid,
    font: i32,
) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    // Per job: (min col, max col, min row, max row, Σ col, Σ row, cells), by first node id.
    let mut boxes: Vec<(JobId, [u64; 7])> = Vec::new();
    for (id, owner) in s.owners.iter().enumerate() {
        let Some(j) = *owner else { continue };
        let (c, r) = s.layout.cell(id as u32);
        let (c, r) = (u64::from(c), u64::from(r));
        match boxes.iter_mut().find(|(k, _)| *k == j) {
            Some((_, b)) => {
                *b = [
                    b[0].min(c),
                    b[1].max(c),
                    b[2].min(r),
                    b[3].max(r),
                    b[4] + c,
                    b[5] + r,
                    b[6] + 1,
                ];
            }
            None => boxes.push((j, [c, c, r, r, c, r, 1])),
        }
    }
    let size = ((g.ch * 0.6) as i32).clamp(9, font);
    for (j, b) in boxes {
        let (cols, rows) = (b[1] - b[0] + 1, b[3] - b[2] + 1);
        if b[6] != cols * rows {
            continue; // scattered cells (a box across slices): a label could land on another job
        }
        let text = number(s, j).to_string();
        let width = cols as f64 * g.cw;
        let height = rows as f64 * g.ch;
        if width < text.len() as f64 * f64::from(size) * 0.62 + 4.0
            || height < f64::from(size) + 2.0
        {
            continue;
        }
        let (cx, cy) = (b[4] as f64 / b[6] as f64, b[5] as f64 / b[6] as f64);
        let x = g.x0 + (cx + 0.5) * g.cw;
        let y = g.y0 + (f64::from(g.rows) - 0.5 - cy) * g.ch;
        let bg = job_colour(number(s, j));
        let ink = if luminance(bg) > 150.0 { BLACK } else { WHITE };
        let style = text_style(size, &ink).pos(Pos::new(HPos::Center, VPos::Center));
        area.draw(&Text::new(
            text,
            (x.round() as i32, y.round() as i32),
            style,
        ))
        .map_err(err)?;
    }
    Ok(())
}

fn luminance(c: RGBColor) -> f64 {
    0.299 * f64::from(c.0) + 0.587 * f64::from(c.1) + 0.114 * f64::from(c.2)
}

/// A job's number in the source (what the pictures print).
fn number(s: &Scene<'_>, j: JobId) -> u64 {
    s.workload.jobs[j.index()].source_id
}

/// `4x3`, `2x2x8`, `2^3 cube`, `12 nodes`.
pub fn request_label(r: &Request) -> String {
    match r {
        Request::Nodes(n) => format!("{n} nodes"),
        Request::Submesh(s) => s.to_string(),
        Request::Block(d) => d.to_string(),
        Request::Subcube(d) => format!("2^{d} cube"),
    }
}

/// Columns and rows the request's shape is drawn with.
pub fn request_grid(r: &Request) -> (u32, u32) {
    match *r {
        Request::Nodes(n) => (n.max(1), 1),
        Request::Submesh(s) => (s.w, s.h),
        Request::Block(d) => (d.get(0), if d.len() > 1 { d.get(1) } else { 1 }),
        Request::Subcube(d) => (1 << u32::from(d).div_ceil(2), 1 << (u32::from(d) / 2)),
    }
}

fn draw_queue<DB>(area: &DrawingArea<DB, Shift>, s: &Scene<'_>, font: i32) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (w, h) = area.dim_in_pixel();
    let heading = format!(
        "Waiting queue: {} job{}",
        s.waiting.len(),
        plural(s.waiting.len())
    );
    area.draw(&Text::new(heading, (0, 0), text_style(font + 2, &BLACK)))
        .map_err(err)?;
    let Some(&head) = s.waiting.first() else {
        return Ok(());
    };
    let req = s.workload.jobs[head.index()].request;
    let colour = job_colour(number(s, head));
    let line = format!("head: job {} asks {}", number(s, head), request_label(&req));
    area.draw(&Text::new(line, (0, font * 2), text_style(font, &BLACK)))
        .map_err(err)?;
    let shape_h = (h / 5).min(w / 2) as i32;
    let top = font * 3 + 6;
    draw_shape(
        area,
        request_grid(&req),
        colour,
        (0, top),
        (w as i32 - 10, shape_h),
    )?;
    let mut y = top + shape_h + font;
    let row = font + 6;
    let fits = ((h as i32 - y) / row - 1).max(0) as usize;
    for (k, &j) in s.waiting.iter().enumerate().take(fits) {
        let c = job_colour(number(s, j));
        area.draw(&Rectangle::new([(0, y), (font, y + font)], c.filled()))
            .map_err(err)?;
        let mark = if k == 0 { "▶ " } else { "" };
        let text = format!(
            "{mark}{}. job {}: {}",
            k + 1,
            number(s, j),
            request_label(&s.workload.jobs[j.index()].request)
        );
        area.draw(&Text::new(text, (font + 8, y), text_style(font, &BLACK)))
            .map_err(err)?;
        y += row;
    }
    if s.waiting.len() > fits {
        let more = format!("… and {} more", s.waiting.len() - fits);
        area.draw(&Text::new(more, (font + 8, y), text_style(font, &BLACK)))
            .map_err(err)?;
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The head's request as a `cols × rows` grid of cells in its colour, at most `(w, h)` pixels
/// from `(x, y)`; a shape too fine to draw cell by cell is one filled box of its proportions.
fn draw_shape<DB>(
    area: &DrawingArea<DB, Shift>,
    (cols, rows): (u32, u32),
    colour: RGBColor,
    (x, y): (i32, i32),
    (w, h): (i32, i32),
) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let cell = (f64::from(w) / f64::from(cols))
        .min(f64::from(h) / f64::from(rows))
        .min(24.0);
    let (bw, bh) = (
        (cell * f64::from(cols)) as i32,
        (cell * f64::from(rows)) as i32,
    );
    area.draw(&Rectangle::new(
        [(x, y), (x + bw.max(2), y + bh.max(2))],
        colour.mix(0.35).filled(),
    ))
    .map_err(err)?;
    if cell >= 4.0 {
        for c in 0..cols {
            for r in 0..rows {
                let (cx, cy) = (
                    x + (f64::from(c) * cell) as i32,
                    y + (f64::from(r) * cell) as i32,
                );
                let cell_px = cell as i32;
                area.draw(&Rectangle::new(
                    [(cx, cy), (cx + cell_px, cy + cell_px)],
                    colour.stroke_width(1),
                ))
                .map_err(err)?;
            }
        }
    }
    area.draw(&Rectangle::new(
        [(x, y), (x + bw.max(2), y + bh.max(2))],
        colour.stroke_width(2),
    ))
    .map_err(err)?;
    Ok(())
}
