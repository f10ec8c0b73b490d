//! Inline SVG charts: the board's score bars with CI whiskers, and a model's history line with
//! its CI band. Each chart has a `<title>` and `<desc>`, every mark its own `<title>`, and
//! ties are marked by a label as well as a shade (colour is never the only signal).

use std::fmt::Write as _;

use crate::views::{BoardRow, StoredRecord};

/// Escapes text for XML content and attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

pub fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

const WIDTH: f64 = 480.0;
const LABEL: f64 = 130.0;
const ROW: f64 = 28.0;

/// Horizontal bars (score) with whiskers (95% interval), one row per model; rows of one tie
/// group sit on a shaded band labelled with the group.
pub fn board_bars(title: &str, rows: &[BoardRow]) -> String {
    let plot = WIDTH - LABEL - 70.0;
    let height = ROW * rows.len() as f64 + 24.0;
    let x = |v: f64| LABEL + v.clamp(0.0, 1.0) * plot;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"board-chart\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" \
         aria-labelledby=\"t-{id} d-{id}\" preserveAspectRatio=\"xMinYMin meet\">\
         <title id=\"t-{id}\">{t}</title>\
         <desc id=\"d-{id}\">Pass rate of each model with its 95% confidence interval; \
         models in one tie group cannot be ordered by what the data shows.</desc>",
        id = esc(&slug(title)),
        t = esc(title),
    );
    // Axis ticks every 20 points.
    for tick in 0..=5 {
        let v = f64::from(tick) * 0.2;
        let _ = write!(
            s,
            "<line class=\"grid\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"0\" y2=\"{y:.1}\"/>\
             <text class=\"tick\" x=\"{x:.1}\" y=\"{ty:.1}\" text-anchor=\"middle\">{p}%</text>",
            x = x(v),
            y = height - 16.0,
            ty = height - 4.0,
            p = tick * 20,
        );
    }
    for (i, row) in rows.iter().enumerate() {
        let y = ROW * i as f64;
        let mid = y + ROW / 2.0;
        if let Some(group) = row.tie_group {
            // Alternate shading by group parity; the label carries the same information.
            let class = if group % 2 == 0 {
                "tie even"
            } else {
                "tie odd"
            };
            let _ = write!(
                s,
                "<rect class=\"{class}\" data-tie-group=\"{group}\" x=\"0\" y=\"{y:.1}\" \
                 width=\"{WIDTH}\" height=\"{ROW}\"><title>tie group {group}</title></rect>"
            );
        }
        let model = esc(&row.record.model);
        let e = &row.shown;
        let _ = write!(
            s,
            "<text class=\"label\" x=\"{lx:.1}\" y=\"{ty:.1}\" text-anchor=\"end\">{model}</text>\
             <rect class=\"bar\" x=\"{LABEL}\" y=\"{by:.1}\" width=\"{bw:.1}\" height=\"{bh:.1}\">\
             <title>{model}: {score}%</title></rect>\
             <g class=\"whisker\" data-model=\"{model}\"><title>{model}: {score}% \
             (95% CI {lo}–{hi}%, {passes} of {total})</title>\
             <line x1=\"{x1:.1}\" x2=\"{x2:.1}\" y1=\"{mid:.1}\" y2=\"{mid:.1}\"/>\
             <line x1=\"{x1:.1}\" x2=\"{x1:.1}\" y1=\"{c1:.1}\" y2=\"{c2:.1}\"/>\
             <line x1=\"{x2:.1}\" x2=\"{x2:.1}\" y1=\"{c1:.1}\" y2=\"{c2:.1}\"/></g>\
             <text class=\"value\" x=\"{vx:.1}\" y=\"{ty:.1}\">{score}{tie}</text>",
            lx = LABEL - 6.0,
            ty = mid + 4.0,
            by = y + 7.0,
            bw = x(e.score) - LABEL,
            bh = ROW - 14.0,
            score = pct(e.score),
            lo = pct(e.ci_low),
            hi = pct(e.ci_high),
            passes = e.passes,
            total = e.total,
            x1 = x(e.ci_low),
            x2 = x(e.ci_high),
            c1 = mid - 6.0,
            c2 = mid + 6.0,
            vx = x(e.ci_high) + 4.0,
            tie = row
                .tie_group
                .map(|g| format!(" · T{g}"))
                .unwrap_or_default(),
        );
    }
    s.push_str("</svg>");
    s
}

/// A model's score over time: one point per record (every version), the 95% band, drift
/// markers.
pub fn history_line(model: &str, records: &[StoredRecord]) -> String {
    let (w, h, left, bottom, top) = (WIDTH, 220.0, 40.0, 36.0, 12.0);
    // Room on the right for the last week's label, centred on the last point.
    let plot_w = w - left - 36.0;
    let plot_h = h - bottom - top;
    let n = records.len();
    let x = |i: usize| {
        if n <= 1 {
            left + plot_w / 2.0
        } else {
            left + plot_w * i as f64 / (n - 1) as f64
        }
    };
    let y = |v: f64| top + (1.0 - v.clamp(0.0, 1.0)) * plot_h;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"history-chart\" viewBox=\"0 0 {w} {h}\" role=\"img\" \
         aria-labelledby=\"t-history d-history\" preserveAspectRatio=\"xMinYMin meet\">\
         <title id=\"t-history\">Score history of {m}</title>\
         <desc id=\"d-history\">One point per record version, oldest first, with the 95% \
         confidence band; a ring marks a record whose drift signals fired.</desc>",
        m = esc(model)
    );
    for tick in 0..=5 {
        let v = f64::from(tick) * 0.2;
        let _ = write!(
            s,
            "<line class=\"grid\" x1=\"{left}\" x2=\"{x2}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\"/>\
             <text class=\"tick\" x=\"{tx}\" y=\"{ty:.1}\" text-anchor=\"end\">{p}%</text>",
            x2 = w - 36.0,
            yy = y(v),
            tx = left - 4.0,
            ty = y(v) + 4.0,
            p = tick * 20
        );
    }
    if n > 0 {
        let upper: Vec<String> = records
            .iter()
            .enumerate()
            .map(|(i, r)| format!("{:.1},{:.1}", x(i), y(r.record.overall.ci_high)))
            .collect();
        let lower: Vec<String> = records
            .iter()
            .enumerate()
            .rev()
            .map(|(i, r)| format!("{:.1},{:.1}", x(i), y(r.record.overall.ci_low)))
            .collect();
        let _ = write!(
            s,
            "<polygon class=\"band\" points=\"{} {}\"><title>95% confidence band</title></polygon>",
            upper.join(" "),
            lower.join(" ")
        );
        let line: Vec<String> = records
            .iter()
            .enumerate()
            .map(|(i, r)| format!("{:.1},{:.1}", x(i), y(r.record.overall.score)))
            .collect();
        let _ = write!(
            s,
            "<polyline class=\"line\" points=\"{}\"/>",
            line.join(" ")
        );
    }
    for (i, r) in records.iter().enumerate() {
        let e = &r.record.overall;
        let drifted = r.record.drift.as_ref().is_some_and(|d| !d.flags.is_empty());
        let _ = write!(
            s,
            "<g class=\"point\" data-week=\"{week}\" data-version=\"{v}\"><title>{week} v{v}: \
             {score}% (95% CI {lo}–{hi}%){drift}</title>\
             <circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"4\"/>{ring}</g>",
            week = esc(&r.record.week),
            v = r.record.record_version,
            score = pct(e.score),
            lo = pct(e.ci_low),
            hi = pct(e.ci_high),
            drift = if drifted { ", drift flagged" } else { "" },
            cx = x(i),
            cy = y(e.score),
            ring = if drifted {
                format!(
                    "<circle class=\"drift\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"8\"/>",
                    x(i),
                    y(e.score)
                )
            } else {
                String::new()
            },
        );
        if n <= 6 || i % n.div_ceil(6) == 0 {
            let _ = write!(
                s,
                "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                x(i),
                h - bottom + 16.0,
                esc(&r.record.week)
            );
        }
    }
    s.push_str("</svg>");
    s
}

fn slug(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}
