#!/usr/bin/python3
"""Plots clustersim sweep and plan output (PNG or SVG, chosen by the output's extension).

Needs Debian's python3-matplotlib. Input: a sweep file (CSV or JSON Lines written by `clustersim sweep`)
or plan JSON (`clustersim plan --format json`).

  tools/plot.py scaling SWEEP --x /cluster/nodes --y tokens_per_s [--group /parallelism/tp] -o scaling.png
  tools/plot.py heatmap SWEEP --x /parallelism/tp --y /parallelism/pp --z mfu -o tp_pp.png
  tools/plot.py heatmap PLAN.json --z mfu -o tp_pp.png        (best value per TP x PP of the plan's top list)
  tools/plot.py pareto PLAN.json -o pareto.png                (all top strategies, front highlighted)
  tools/plot.py memory SWEEP_OR_PLAN [--label /parallelism/tp] -o memory.png

Only rows with status "ok" are plotted (sweeps). Column names are the sweep's: varied pointers as given to
--vary, metrics as dotted report keys (step_time_s, mfu, memory.activations_bytes, ...).
"""
import argparse
import csv
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GIB = 1073741824.0
MEMORY_PARTS = ["weights", "gradients", "optimizer", "activations", "other"]


def to_number(text):
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)
    try:
        return float(text)
    except (TypeError, ValueError):
        return text


def read_sweep(path):
    """Rows of a sweep file as dicts; numbers converted."""
    rows = []
    with open(path, newline="") as f:
        if path.endswith(".jsonl") or path.endswith(".ndjson"):
            for line in f:
                if line.endswith("\n"):
                    rows.append(json.loads(line))
        else:
            rows = list(csv.DictReader(f))
    out = []
    for r in rows:
        if r.get("status", "ok") != "ok":
            continue
        out.append({k: to_number(v) for k, v in r.items()})
    return out


def plan_rows(path):
    """The top strategies of plan JSON as flat dicts (strategy fields under /parallelism/... names)."""
    with open(path) as f:
        plan = json.load(f)
    rows = []
    for entry in plan.get("top", []):
        row = dict(entry)
        st = entry["strategy"]
        row.update({"/parallelism/" + k: v for k, v in st.items() if k in ("tp", "pp", "dp", "cp", "vp")})
        row["devices"] = st["devices"]
        row["memory.total_bytes"] = entry["memory_total_bytes"]
        row["label"] = "TP{tp} PP{pp} DP{dp} mb{micro_batch} {recompute}".format(**st)
        rows.append(row)
    return plan, rows


def is_plan(path):
    if not path.endswith(".json"):
        return False
    with open(path) as f:
        try:
            return "top" in json.load(f)
        except json.JSONDecodeError:
            return False


def scaling(args):
    rows = read_sweep(args.input)
    groups = {}
    for r in rows:
        groups.setdefault(r.get(args.group) if args.group else "", []).append(r)
    fig, ax = plt.subplots(figsize=(6, 4))
    for g in sorted(groups, key=str):
        pts = sorted((r[args.x], r[args.y]) for r in groups[g] if isinstance(r.get(args.y), float))
        if pts:
            label = f"{args.group.rsplit('/', 1)[-1]}={g:g}" if args.group and isinstance(g, float) else str(g)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label or None)
    ax.set_xscale("log", base=2)
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.y)
    ax.grid(True, alpha=0.3)
    if args.group:
        ax.legend()
    ax.set_title(args.title or f"{args.y} vs {args.x}")
    return fig


def heatmap(args):
    if is_plan(args.input):
        _, rows = plan_rows(args.input)
        xkey, ykey = args.x or "/parallelism/tp", args.y or "/parallelism/pp"
    else:
        rows = read_sweep(args.input)
        xkey, ykey = args.x, args.y
    best = {}
    for r in rows:
        z = r.get(args.z)
        if not isinstance(z, float):
            continue
        key = (r[xkey], r[ykey])
        best[key] = max(best.get(key, -math.inf), z)
    xs = sorted({k[0] for k in best})
    ys = sorted({k[1] for k in best})
    grid = [[best.get((x, y), math.nan) for x in xs] for y in ys]
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * len(xs), 1.0 + 0.6 * len(ys)))
    im = ax.imshow(grid, origin="lower", cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
    ax.set_yticks(range(len(ys)), [f"{y:g}" for y in ys])
    ax.set_xlabel(xkey)
    ax.set_ylabel(ykey)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if not math.isnan(v):
                ax.text(j, i, f"{v:.3g}", ha="center", va="center", color="w", fontsize=8)
    fig.colorbar(im, ax=ax, label=f"best {args.z}")
    ax.set_title(args.title or f"best {args.z} per {xkey.rsplit('/', 1)[-1]} x {ykey.rsplit('/', 1)[-1]}")
    return fig


def pareto(args):
    plan, rows = plan_rows(args.input)
    other = "energy_j" if plan.get("objective") == "energy" else ("cost_usd" if any("cost_usd" in r for r in rows) else "device_hours")
    tkey = "run_time_s" if all("run_time_s" in r for r in rows) else "step_time_s"
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.scatter([r[tkey] for r in rows], [r[other] for r in rows], s=12, alpha=0.5, label="top strategies")
    front = sorted(plan.get("pareto", []), key=lambda r: r[tkey])
    if front:
        ax.plot([r[tkey] for r in front], [r[other] for r in front], "r-o", ms=4, label="Pareto front")
    ax.set_xlabel(tkey)
    ax.set_ylabel(other)
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title(args.title or f"time vs {other}")
    return fig


def memory(args):
    if is_plan(args.input):
        sys.exit("memory: plan JSON has totals only; plot a sweep file (it has memory.*_bytes columns)")
    rows = read_sweep(args.input)[: args.limit]
    labels = [str(r.get(args.label, r.get("index"))) for r in rows]
    fig, ax = plt.subplots(figsize=(max(5, 0.5 * len(rows)), 4))
    bottom = [0.0] * len(rows)
    for part in MEMORY_PARTS:
        vals = [r.get(f"memory.{part}_bytes", 0.0) / GIB for r in rows]
        ax.bar(labels, vals, bottom=bottom, label=part)
        bottom = [b + v for b, v in zip(bottom, vals)]
    if rows and isinstance(rows[0].get("memory.capacity_bytes"), float):
        ax.axhline(rows[0]["memory.capacity_bytes"] / GIB, color="k", ls="--", lw=1, label="capacity")
    ax.set_ylabel("GiB per device")
    ax.set_xlabel(args.label or "index")
    ax.legend(fontsize=8)
    ax.set_title(args.title or "memory per device")
    return fig


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=["scaling", "heatmap", "pareto", "memory"])
    p.add_argument("input")
    p.add_argument("-o", "--output", required=True, help="PNG or SVG file")
    p.add_argument("--x")
    p.add_argument("--y")
    p.add_argument("--z", default="mfu")
    p.add_argument("--group")
    p.add_argument("--label")
    p.add_argument("--limit", type=int, default=40)
    p.add_argument("--title")
    p.add_argument("--dpi", type=int, default=80)
    args = p.parse_args()
    if args.kind == "scaling" and not (args.x and args.y):
        p.error("scaling needs --x and --y")
    if args.kind == "heatmap" and not is_plan(args.input) and not (args.x and args.y):
        p.error("heatmap of a sweep needs --x and --y")
    fig = {"scaling": scaling, "heatmap": heatmap, "pareto": pareto, "memory": memory}[args.kind](args)
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)


if __name__ == "__main__":
    main()
