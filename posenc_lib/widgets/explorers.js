// The course's explorers, drawn in the browser: the closed-form ones (chapters 00, 02, 04, 05)
// and those whose numbers come from the kernel (chapters 01, 03, 06).
//
// One ES module, two hosts: in JupyterLab and Colab it is the front end of an anywidget
// (posenc_lib/widgets/_front.py); on the website a small loader (docs/_static/posenc-live.js)
// gives it a local model with the same get/set/on/save_changes and no kernel. Either way the
// reader's key press or drag redraws the canvas at once, in this page, at the size it is shown
// and at the screen's pixel density.
//
// The math mirrors posenc_lib (sinusoidal.py, rope.py, alibi.py, attention.py) line for line;
// tests/test_live_parity.py evaluates the `frame` function below in Chromium at many control
// settings and compares every number and status line with the library's. Chapters 01, 03 and 06
// compute in the kernel (attention over typed sentences, a trained table, a trained model) and
// send the numbers of every state the page can reach without it (`data`, merged into the spec):
// here they are only coloured and drawn, with matplotlib's colormap (`heatmapColors`); `painted`
// gives each heatmap's cells and colorbar as the canvas paints them, which the same test holds to
// the matplotlib figure's colours. Hand-written: no npm package, nothing loaded from
// another host.

// -- house style (posenc_lib/plots.py) ----------------------------------------------------------

export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442"];
const BLUE = PALETTE[0], ORANGE = PALETTE[1], VERMILLION = PALETTE[5];
// matplotlib's RdBu, its 11 anchors (ColorBrewer), interpolated linearly as matplotlib does.
const RDBU = [[103, 0, 31], [177, 24, 43], [214, 96, 77], [243, 164, 129], [253, 219, 199],
  [246, 247, 247], [209, 229, 240], [144, 196, 221], [67, 147, 195], [32, 101, 171], [5, 48, 97]];
const FONT = "system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif";

// -- the math --------------------------------------------------------------------------------------

/** Angular speed of each (sin, cos) pair: base ** (-2 i / d), i = 0 .. ceil(d / 2) - 1. */
export function frequencies(d, base) {
  const out = [];
  for (let i = 0; i < Math.floor((d + 1) / 2); i++) out.push(base ** ((-2.0 * i) / d));
  return out;
}

export function wavelengths(d, base) {
  return frequencies(d, base).map((w) => (2 * Math.PI) / w);
}

/** SinusoidalExplorer.positions_needed: a quarter of the slowest wavelength, 100 .. cap. */
export function positionsNeeded(d, base, cap = 10000) {
  const slowest = wavelengths(d, base)[d / 2 - 1];
  return Math.trunc(Math.min(cap, Math.max(100, Math.ceil(slowest / 4))));
}

function roundHalfEven(x) {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** SinusoidalExplorer.shown_pairs: n pairs evenly spaced from the fastest to the slowest. */
export function shownPairs(d, n = 8) {
  const last = d / 2 - 1, pairs = new Set();
  for (let k = 0; k < n; k++) pairs.add(roundHalfEven(n === 1 ? 0 : (k * last) / (n - 1)));
  return [...pairs].sort((a, b) => a - b);
}

function band(d, name) {
  const n = d / 2, quarter = Math.max(1, Math.floor(n / 4));
  if (name === "fastest quarter") return [0, quarter];
  if (name === "slowest quarter") return [n - quarter, n];
  return [0, n];
}

/** similarity_by_distance: PE[p] . PE[p + k] = sum over the band's pairs of cos(k w_i). */
export function similarity(k, d, base, bandName = "all pairs") {
  const omega = frequencies(d, base), [lo, hi] = band(d, bandName);
  let sum = 0;
  for (let i = lo; i < hi; i++) sum += Math.cos(k * omega[i]);
  return sum;
}

/** distance_by_shift: |PE[p + k] - PE[p]| = 2 sqrt(sum of sin^2(k w_i / 2)). */
export function distance(k, d, base, bandName = "all pairs") {
  const omega = frequencies(d, base), [lo, hi] = band(d, bandName);
  let sum = 0;
  for (let i = lo; i < hi; i++) sum += Math.sin((k * omega[i]) / 2.0) ** 2;
  return 2.0 * Math.sqrt(sum);
}

/** apply_rope for one vector (interleaved pairs): pair (a, b) turns by position * theta_i. */
export function ropeRotate(x, position, base) {
  const theta = frequencies(x.length, base), out = new Array(x.length);
  for (let i = 0; i < x.length / 2; i++) {
    const angle = position * theta[i], c = Math.cos(angle), s = Math.sin(angle);
    const a = x[2 * i], b = x[2 * i + 1];
    out[2 * i] = a * c + -b * s;
    out[2 * i + 1] = b * c + a * s;
  }
  return out;
}

function dot(a, b) {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

export function ropeScore(q, k, m, n, base) {
  return dot(ropeRotate(q, m, base), ropeRotate(k, n, base));
}

/** alibi_slopes: the official implementation's geometric slopes, interleaved for 2^k < n. */
export function alibiSlopes(nHeads) {
  const geometric = (n) => {
    const start = 2.0 ** (-8.0 / n), out = [];
    for (let j = 1; j <= n; j++) out.push(start ** j);
    return out;
  };
  const closest = 2 ** Math.floor(Math.log2(nHeads));
  const slopes = geometric(closest);
  if (closest === nHeads) return slopes;
  const extra = geometric(2 * closest).filter((_, j) => j % 2 === 0).slice(0, nHeads - closest);
  return slopes.concat(extra);
}

/** Row i of causal self-attention over fixed q, k, with ALiBi's bias -m |i - j| or without. */
export function attentionRow(q, k, i, slope) {
  const scale = Math.sqrt(q[0].length), scores = [];
  for (let j = 0; j <= i; j++) {
    let s = dot(q[i], k[j]) / scale;
    if (slope !== null) s = s + (0.0 - slope * Math.abs(i - j));
    scores.push(s);
  }
  const top = Math.max(...scores), e = scores.map((s) => Math.exp(s - top));
  const total = e.reduce((a, b) => a + b, 0);
  const row = new Array(k.length).fill(NaN);
  e.forEach((v, j) => { row[j] = v / total; });
  return row;
}

// -- number formats as Python prints them ------------------------------------------------------

// Python rounds an exact tie (0.015625 to 4 significant digits) to even; toFixed rounds it away
// from zero. toFixed(100) is the double's exact decimal expansion, so ties are seen exactly.
function fixed(x, digits) {
  const away = x.toFixed(digits);
  const [whole, fraction = ""] = Math.abs(x).toFixed(100).split(".");
  if (!/^50*$/.test(fraction.slice(digits))) return away;
  const last = Number(digits ? fraction[digits - 1] : whole[whole.length - 1]);
  if (last % 2 !== 0) return away;
  const kept = digits ? `${whole}.${fraction.slice(0, digits)}` : whole;
  return (x < 0 ? "-" : "") + kept;
}
const signed = (x, digits) => (x < 0 || Object.is(x, -0) ? "-" : "+") + fixed(Math.abs(x), digits);
function grouped(x, digits) {
  const [whole, fraction] = fixed(x, digits).split(".");
  const withCommas = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === undefined ? withCommas : `${withCommas}.${fraction}`;
}
function general(x, digits) {
  // Python's format(x, ".4g") for 1e-4 <= |x| < 10 ** digits: fixed point, trailing zeros dropped.
  const exponent = Math.floor(Math.log10(Math.abs(x)));
  const text = fixed(x, Math.max(0, digits - 1 - exponent));
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}
const percent = (x) => `${fixed(x * 100, 0)}%`;

// -- the explorers: state -> numbers, status line and text alternative -------------------------

const KINDS = {};

KINDS.hello = {
  controls: () => [{ name: "position", label: "position", min: 0, max: 20 }],
  normalize: (spec, v) => v,
  frame(spec, v) {
    const angle = v.position * frequencies(2, 10000.0)[0];
    const degrees = (angle * 180) / Math.PI;
    const turns = Math.floor(degrees / 360), rest = degrees - 360 * turns;
    const status =
      `position ${v.position}: ${fixed(angle, 2)} rad = ${fixed(degrees, 0)} degrees ` +
      `= ${fixed(turns, 0)} full turn${turns !== 1 ? "s" : ""} + ${fixed(rest, 0)} degrees`;
    const alt =
      `A clock face with one hand, at position ${v.position}: the hand has turned ${fixed(angle, 2)} ` +
      `radians, ${fixed(turns, 0)} full turn${turns !== 1 ? "s" : ""} and ${fixed(rest, 0)} degrees, ` +
      `so it points ${fixed(rest, 0)} degrees clockwise from 12 o'clock.`;
    return { status, alt, angles: [angle] };
  },
};

KINDS.sinusoidal = {
  controls(spec, v) {
    const seqLen = spec.seq_len ?? positionsNeeded(v.d_model, v.base);
    return [
      { name: "position", label: "position p", min: 0, max: seqLen - 1, wide: true },
      { name: "pair", label: "pair i", min: 0, max: v.d_model / 2 - 1 },
      { name: "d_model", label: "d_model", options: spec.d_models },
      { name: "base", label: "base", options: spec.bases, format: (b) => grouped(b, 0) },
    ];
  },
  normalize(spec, v) {
    const seqLen = spec.seq_len ?? positionsNeeded(v.d_model, v.base);
    return { ...v, pair: Math.min(v.pair, v.d_model / 2 - 1), position: Math.min(v.position, seqLen - 1) };
  },
  frame(spec, v) {
    const { position: p, pair: i, d_model: d, base } = v;
    const seqLen = spec.seq_len ?? positionsNeeded(d, base);
    const omega = frequencies(d, base), lambda = wavelengths(d, base), shown = shownPairs(d);
    const angles = [i, ...shown].map((pair) => p * omega[pair]);
    // The waves at fractions 1/fine of a position (the sinusoid between the table's entries),
    // offsets -window .. window from p; NaN outside the table.
    const offsets = [], sin = [], cos = [];
    for (let n = -spec.window * spec.fine; n <= spec.window * spec.fine; n++) {
      const o = n / spec.fine, where = p + o, inside = where >= 0 && where <= seqLen - 1;
      offsets.push(o);
      sin.push(inside ? Math.sin(where * omega[i]) : NaN);
      cos.push(inside ? Math.cos(where * omega[i]) : NaN);
    }
    const angle = p * omega[i];
    const status =
      `p=${p}, pair i=${i} (columns ${2 * i}, ${2 * i + 1}; wavelength ` +
      `${grouped(lambda[i], 1)} positions): angle p·ω_i = ${fixed(angle, 3)} rad, ` +
      `sin = ${signed(Math.sin(angle), 4)}, cos = ${signed(Math.cos(angle), 4)}`;
    const clock = (a) => `${fixed((((a * 180) / Math.PI) % 360 + 360) % 360, 0)}°`;
    const alt =
      `The explorer at p = ${p}, pair ${i}, d_model = ${d}, base ${grouped(base, 0)}. Top: the ` +
      `selected pair's clock (i=${i}, wavelength ${grouped(lambda[i], 1)}) with its hand at ` +
      `${clock(angles[0])} clockwise from 12 o'clock, then ${shown.length} clocks for pairs ` +
      `${shown.join(", ")} with hands at ${angles.slice(1).map(clock).join(", ")}. Bottom left: ` +
      `the pair's sine and cosine from offset -${spec.window} to +${spec.window} around p; at p, ` +
      `sin = ${signed(Math.sin(angle), 4)} and cos = ${signed(Math.cos(angle), 4)}. Bottom right: ` +
      `the table's rows ${p - spec.window} to ${p + spec.window} (of positions 0 to ` +
      `${grouped(seqLen - 1, 0)}; rows outside them grey) by ${d} dimensions, red -1 to blue +1, ` +
      `with a black line at row ${p} and columns ${2 * i} and ${2 * i + 1} framed in gold.`;
    return { status, alt, angles, offsets, sin, cos, seq_len: seqLen, selected_wavelength: lambda[i] };
  },
};

KINDS.similarity = {
  controls: (spec) => [
    { name: "shift", label: "shift k", min: 0, max: spec.max_shift, wide: true },
    { name: "band", label: "pairs", options: spec.bands },
    { name: "d_model", label: "d_model", options: spec.d_models },
    { name: "base", label: "base", options: spec.bases, format: (b) => grouped(b, 0) },
  ],
  normalize: (spec, v) => v,
  curve(spec, v) {
    const out = [];
    for (let k = 0; k <= spec.max_shift; k++) out.push(similarity(k, v.d_model, v.base, v.band));
    return out;
  },
  frame(spec, v, cache = {}) {
    const key = `${v.d_model} ${v.base} ${v.band}`;
    if (cache.key !== key) Object.assign(cache, { key, curve: this.curve(spec, v) });
    const { shift: k } = v, curve = cache.curve;
    const dist = distance(k, v.d_model, v.base, v.band);
    const status =
      `k = ${k}: similarity ${fixed(curve[k], 2)} of at most ${fixed(curve[0], 0)}; ` +
      `distance |PE[p+k] - PE[p]| = ${fixed(dist, 3)}`;
    let low = 0;
    curve.forEach((c, j) => { if (c < curve[low]) low = j; });
    const alt =
      `Similarity PE[p]·PE[p+k] against the shift k from 0 to ${grouped(spec.max_shift, 0)}, ` +
      `${v.band} of d_model = ${v.d_model}, base ${grouped(v.base, 0)}: it starts at ` +
      `${fixed(curve[0], 0)} and is lowest, ${fixed(curve[low], 2)}, at k = ${grouped(low, 0)}; ` +
      `the red-orange dot at k = ${grouped(k, 0)} marks ${fixed(curve[k], 2)}, where the distance ` +
      `between the two positions' vectors is ${fixed(dist, 3)}.`;
    return { status, alt, curve, marker: [k, curve[k]], distance: dist };
  },
};

KINDS.rope = {
  controls: (spec) => [
    { name: "m", label: "query position m", min: 0, max: 120 },
    { name: "n", label: "key position n", min: 0, max: 120 },
    { name: "pair", label: "pair i", min: 0, max: spec.q.length / 2 - 1 },
  ],
  normalize: (spec, v) => v,
  frame(spec, v, cache = {}) {
    const { q, k, base, max_offset: most } = spec, { m, n, pair: i } = v;
    if (!cache.curve) {
      cache.offsets = [];
      cache.curve = [];
      for (let o = -most; o <= most; o++) {
        cache.offsets.push(o);
        cache.curve.push(ropeScore(q, k, 0, o, base));
      }
    }
    const theta = frequencies(q.length, base), lambda = wavelengths(q.length, base);
    const qm = ropeRotate(q, m, base), kn = ropeRotate(k, n, base), score = dot(qm, kn);
    const pick = (x) => [x[2 * i], x[2 * i + 1]];
    const norm = (x) => Math.hypot(x[0], x[1]);
    const limit = 1.25 * Math.max(norm(pick(q)), norm(pick(k)));
    const title = `pair i=${i} (wavelength ${grouped(lambda[i], 1)}) of q and k`;
    const status =
      `m=${m}, n=${n}, offset n-m=${n - m}: score = ${signed(score, 6)}  ` +
      `(pair ${i} turns ${fixed(theta[i], 4)} rad per position)`;
    const deg = (x) => `${fixed((((Math.atan2(x[1], x[0]) * 180) / Math.PI) + 360) % 360, 0)}°`;
    const alt =
      `Left: ${title}, before rotation (faint) and after: q turned by m = ${m} to ` +
      `${deg(pick(qm))}, k turned by n = ${n} to ${deg(pick(kn))} (angles counterclockwise from ` +
      `dimension 2i). Right: the score q_m · k_n against the offset n - m from -${most} to ` +
      `+${most}, a fixed curve; the black marker sits at offset ${n - m}, score ${signed(score, 6)}.`;
    return {
      status, alt, title, limit, score, offsets: cache.offsets, curve: cache.curve,
      arrows: [pick(q), pick(k), pick(qm), pick(kn)], marker: [n - m, score],
    };
  },
};

KINDS.alibi = {
  controls: (spec) => [
    { name: "head", label: "head", min: 0, max: spec.n_heads - 1 },
    { name: "query", label: "query position i", min: 0, max: spec.q.length - 1 },
  ],
  normalize: (spec, v) => v,
  frame(spec, v) {
    const { q, k, n_heads: heads } = spec, { head: h, query: i } = v;
    const slope = alibiSlopes(heads)[h];
    const bias = k.map((_, j) => (j > i ? NaN : 0.0 - slope * Math.abs(i - j)));
    const plain = attentionRow(q, k, i, null), biased = attentionRow(q, k, i, slope);
    const near = (row) => row.slice(Math.max(i - 3, 0), i + 1).reduce((a, b) => a + b, 0);
    const status =
      `head ${h}: slope m = ${general(slope, 4)}; query ${i}: the 4 nearest keys get ` +
      `${percent(near(biased))} of the weight with ALiBi, ${percent(near(plain))} without`;
    let top = 0;
    biased.forEach((w, j) => { if (w > biased[top]) top = j; });
    const alt =
      `Head ${h} (slope m = ${general(slope, 4)}), query position ${i}. Top: the bias -m·(i - j) ` +
      `on keys 0 to ${i}, from ${fixed(bias[0], 2)} at key 0 up to 0 at key ${i}. Bottom: the ` +
      `attention weights over those keys with ALiBi (blue circles, solid) and without (grey ` +
      `squares, dashed); the 4 nearest keys get ${percent(near(biased))} of the weight with ALiBi, ` +
      `${percent(near(plain))} without, and the largest weight with ALiBi, ${fixed(biased[top], 2)}, ` +
      `is on key ${top}.`;
    return { status, alt, slope, bias, plain, biased };
  },
};

// -- chapters 01, 03 and 06: numbers from the kernel, drawn here ------------------------------

const NUMBERS = new WeakMap();

/** A list of numbers (null: NaN) or the bytes of little-endian float64s -> a Float64Array. */
export function numbers(x) {
  if (x === null || x === undefined) return null;
  if (x instanceof Float64Array) return x;
  if (Array.isArray(x)) return Float64Array.from(x.flat(Infinity), (v) => (v === null ? NaN : v));
  if (ArrayBuffer.isView(x) || x instanceof ArrayBuffer) {
    if (NUMBERS.has(x)) return NUMBERS.get(x);
    const bytes = x instanceof ArrayBuffer ? new Uint8Array(x) : new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
    const out = new Float64Array(bytes.slice().buffer); // a copy: 8-byte aligned (x86 and ARM are little-endian)
    NUMBERS.set(x, out);
    return out;
  }
  throw new Error(`posenc explorers: numbers expected, got ${typeof x}`);
}

/** matplotlib's colour index of a value: Normalize(vmin, vmax), then Colormap.__call__. */
export function colorIndex(value, vmin, vmax, n) {
  if (Number.isNaN(value)) return -1; // "bad": transparent, the white canvas shows
  const t = vmax === vmin ? 0 : (value - vmin) / (vmax - vmin);
  let x = t * n;
  if (x === n) x = n - 1; // 1.0 is the last colour, not "over"
  if (x < 0) return 0; // "under": the first colour
  if (x >= n) return n - 1; // "over": the last colour
  return Math.trunc(x);
}

/** RGBA bytes of ``values`` coloured as matplotlib's imshow(cmap, vmin, vmax) colours them. */
export function heatmapColors(colors, vmin, vmax, values) {
  const out = new Uint8ClampedArray(4 * values.length);
  for (let k = 0; k < values.length; k++) {
    const index = colorIndex(values[k], vmin, vmax, colors.length);
    if (index < 0) continue;
    const [r, g, b] = colors[index];
    out[4 * k] = r;
    out[4 * k + 1] = g;
    out[4 * k + 2] = b;
    out[4 * k + 3] = 255;
  }
  return out;
}

/** A heatmap as the canvas paints it: ``height`` rows by ``width`` columns of RGBA bytes, row 0
 * at the top (imshow's origin "upper"), and the colormap and limits its colorbar shows. */
function paintHeatmap(values, rows, cols, colors, vmin, vmax) {
  return { width: cols, height: rows, rgba: heatmapColors(colors, vmin, vmax, values), colors, vmin, vmax };
}

/** The colorbar's colours, top to bottom, in ``strips`` strips: vmax at the top, as matplotlib. */
export function colorbarColors(colors, vmin, vmax, strips) {
  const out = [];
  for (let y = 0; y < strips; y++) {
    const value = vmax - ((y + 0.5) / strips) * (vmax - vmin);
    out.push(colors[Math.max(0, colorIndex(value, vmin, vmax, colors.length))]);
  }
  return out;
}

KINDS.order = {
  // The heatmaps of a frame, painted: what DRAW draws, and what the parity test compares.
  heatmaps: (spec, f) => (f.weights_a ? [[f.weights_a, f.words_a], [f.weights_b, f.words_b]].map(([m, words]) =>
    paintHeatmap(numbers(m), words.length, words.length, spec.colors, spec.vmin, spec.vmax)) : []),
  controls: () => [
    { name: "positions", label: "add sinusoidal positions", checkbox: true },
    { name: "causal", label: "causal mask", checkbox: true },
  ],
  normalize: (spec, v) => v,
  frame(spec, v) {
    const state = spec.states?.[`${v.positions ? 1 : 0}${v.causal ? 1 : 0}`];
    if (!state) return { status: "", alt: "Two sentences through one attention layer: waiting for the kernel." };
    // The bars' scale holds for all four settings, so a tick moves bars, not the axis.
    let reach = 0;
    for (const s of Object.values(spec.states)) for (const x of [...s.pooled_a, ...s.pooled_b]) reach = Math.max(reach, Math.abs(x));
    return { ...state, words_a: spec.words_a, words_b: spec.words_b, reach };
  },
};

KINDS.frames = {
  heatmaps: (spec, f) => [paintHeatmap(f.matrix, f.rows, f.cols, spec.colors, spec.vmin, spec.vmax)],
  controls: (spec) => [{ name: "frame", label: spec.label, min: 0, max: spec.count - 1, number: true }],
  normalize: (spec, v) => ({ ...v, frame: Math.min(spec.count - 1, Math.max(0, v.frame)) }),
  frame(spec, v) {
    const n = v.frame, size = spec.rows * spec.cols, all = numbers(spec.frames);
    return {
      status: "", alt: spec.texts[n], title: spec.titles[n], rows: spec.rows, cols: spec.cols,
      matrix: all ? all.subarray(n * size, (n + 1) * size) : new Float64Array(size).fill(NaN),
    };
  },
};

KINDS.attention = {
  heatmaps: (spec, f) => (f.rows ? [paintHeatmap(f.matrix, f.rows, f.cols, spec.colors, spec.vmin, spec.vmax)] : []),
  controls: (spec) => [{ name: "head", label: "head", min: 0, max: spec.n_heads - 1, number: true }],
  normalize: (spec, v) => ({ ...v, head: Math.min(spec.n_heads - 1, Math.max(0, v.head)) }),
  frame(spec, v) {
    const n = spec.n ?? 0, h = v.head, size = n * n, maps = numbers(spec.maps);
    if (!n) return { status: "", alt: "Attention weights: waiting for the kernel.", rows: 0, cols: 0, matrix: new Float64Array(0) };
    return {
      status: spec.status, alt: spec.texts[h], title: spec.title, rows: n, cols: n,
      matrix: maps ? maps.subarray(h * size, (h + 1) * size) : new Float64Array(size).fill(NaN),
    };
  },
};

/** What the explorer of ``kind`` shows at ``values``: numbers, status line, text alternative. */
export function frame(kind, spec, values) {
  const explorer = KINDS[kind];
  if (!explorer) throw new Error(`posenc explorers: unknown kind ${JSON.stringify(kind)}`);
  const f = explorer.frame(spec, explorer.normalize(spec, values), {});
  // plain arrays for a caller outside the page (the parity test): typed arrays do not travel
  return Object.fromEntries(Object.entries(f).map(([k, x]) => [k, x instanceof Float64Array ? Array.from(x) : x]));
}

/** The heatmaps the explorer of ``kind`` paints at ``values`` (chapters 01, 03, 06; none for the
 * others): for each,
 * its canvas's width and height, the RGBA bytes of its cells row by row from the top, the colours
 * and limits it was painted with, and its colorbar's colours top to bottom in ``strips`` strips. */
export function painted(kind, spec, values, strips = 256) {
  const explorer = KINDS[kind];
  const f = explorer.frame(spec, explorer.normalize(spec, values), {});
  return (explorer.heatmaps?.(spec, f) ?? []).map((h) => ({
    ...h, rgba: Array.from(h.rgba), colorbar: colorbarColors(h.colors, h.vmin, h.vmax, strips),
  }));
}

// -- drawing: a small axes on a 2-D canvas --------------------------------------------------------

function niceTicks(lo, hi, most = 6) {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / most, power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * power).find((s) => span / s <= most) ?? 10 * power;
  const ticks = [];
  for (let t = Math.ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step) {
    ticks.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  }
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9) + (step / power === 2.5 ? 1 : 0));
  return ticks.map((t) => ({ value: t, label: t.toFixed(decimals).replace("-", "−") }));
}

class Axes {
  constructor(ctx, box, xlim, ylim) {
    Object.assign(this, { ctx, box, xlim, ylim });
  }

  x(v) {
    return this.box.x + ((v - this.xlim[0]) / (this.xlim[1] - this.xlim[0])) * this.box.w;
  }

  y(v) {
    return this.box.y + this.box.h - ((v - this.ylim[0]) / (this.ylim[1] - this.ylim[0])) * this.box.h;
  }

  text(s, x, y, { align = "center", base = "middle", size = 12, color = "#000", rotate = 0, weight = "" } = {}) {
    const ctx = this.ctx;
    ctx.save();
    ctx.font = `${weight} ${size}px ${FONT}`;
    ctx.fillStyle = color;
    ctx.textAlign = align;
    ctx.textBaseline = base;
    ctx.translate(x, y);
    if (rotate) ctx.rotate(rotate);
    String(s).split("\n").forEach((line, n) => ctx.fillText(line, 0, n * size * 1.2));
    ctx.restore();
  }

  frame({ xlabel, ylabel, title, xticks = true, yticks = true, invertY = false } = {}) {
    const { ctx, box } = this;
    ctx.save();
    ctx.strokeStyle = "#000";
    ctx.lineWidth = 0.8;
    ctx.strokeRect(box.x, box.y, box.w, box.h);
    ctx.restore();
    if (xticks) {
      for (const t of niceTicks(...this.xlim)) {
        const x = this.x(t.value);
        this.segment(x, box.y + box.h, x, box.y + box.h + 4, "#000", 0.8);
        this.text(t.label, x, box.y + box.h + 6, { base: "top", size: 11 });
      }
    }
    if (yticks) {
      const [lo, hi] = this.ylim;
      for (const t of niceTicks(Math.min(lo, hi), Math.max(lo, hi))) {
        const y = invertY ? box.y + ((t.value - lo) / (hi - lo)) * box.h : this.y(t.value);
        this.segment(box.x - 4, y, box.x, y, "#000", 0.8);
        this.text(t.label, box.x - 6, y, { align: "right", size: 11 });
      }
    }
    if (xlabel) this.text(xlabel, box.x + box.w / 2, box.y + box.h + 22, { base: "top" });
    if (ylabel) this.text(ylabel, box.x - 40, box.y + box.h / 2, { rotate: -Math.PI / 2 });
    if (title) {
      const lines = String(title).split("\n").length;
      this.text(title, box.x + box.w / 2, box.y - 8 - (lines - 1) * 15, { base: "bottom", size: 12.5 });
    }
  }

  segment(x0, y0, x1, y1, color, width, dash = []) {
    const ctx = this.ctx;
    ctx.save();
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.setLineDash(dash);
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.lineTo(x1, y1);
    ctx.stroke();
    ctx.restore();
  }

  clip(draw) {
    const { ctx, box } = this;
    ctx.save();
    ctx.beginPath();
    ctx.rect(box.x, box.y, box.w, box.h);
    ctx.clip();
    draw();
    ctx.restore();
  }

  hline(v, color, width) {
    this.clip(() => this.segment(this.box.x, this.y(v), this.box.x + this.box.w, this.y(v), color, width));
  }

  vline(v, color, width) {
    this.clip(() => this.segment(this.x(v), this.box.y, this.x(v), this.box.y + this.box.h, color, width));
  }

  line(xs, ys, { color = BLUE, width = 1.5, dash = [], alpha = 1, marker = null, size = 4, every = 1, clip = true } = {}) {
    const ctx = this.ctx, draw = () => {
      ctx.save();
      ctx.globalAlpha = alpha;
      ctx.strokeStyle = color;
      ctx.lineWidth = width;
      ctx.setLineDash(dash);
      ctx.lineJoin = "round";
      ctx.beginPath();
      let pen = false;
      xs.forEach((x, n) => {
        if (!Number.isFinite(ys[n])) { pen = false; return; }
        const px = this.x(x), py = this.y(ys[n]);
        if (pen) ctx.lineTo(px, py); else ctx.moveTo(px, py);
        pen = true;
      });
      if (width > 0) ctx.stroke();
      ctx.setLineDash([]);
      if (marker) {
        const points = typeof every === "function" ? every(xs.length) : xs.map((_, n) => n).filter((n) => n % every === 0);
        for (const n of points) {
          if (Number.isFinite(ys[n])) markerAt(ctx, marker, this.x(xs[n]), this.y(ys[n]), size, color);
        }
      }
      ctx.restore();
    };
    if (clip) this.clip(draw); else draw();
  }
}

function markerAt(ctx, marker, x, y, size, color) {
  const r = size * 0.75; // matplotlib's marker size is in points: a 4 pt marker is about 5 px wide
  ctx.fillStyle = color;
  ctx.beginPath();
  if (marker === "s") ctx.rect(x - r * 0.9, y - r * 0.9, 1.8 * r, 1.8 * r);
  else ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.fill();
}

function rdbu(value) {
  const t = Math.min(1, Math.max(0, (value + 1) / 2)) * 10, n = Math.min(9, Math.floor(t)), f = t - n;
  return RDBU[n].map((c, j) => c + (RDBU[n + 1][j] - c) * f);
}

function legend(ax, entries, x, y, { columns = 1 } = {}) {
  // entries: [label, {color, dash, marker}]; drawn in a white box from (x, y), left-top.
  const ctx = ax.ctx, size = 11, rowH = 16, colW = Math.max(...entries.map(([label]) => label.length)) * 6.2 + 40;
  const rows = Math.ceil(entries.length / columns), w = colW * Math.min(columns, entries.length) + 6, h = rows * rowH + 6;
  ctx.save();
  ctx.fillStyle = "rgba(255,255,255,0.9)";
  ctx.strokeStyle = "#ccc";
  ctx.fillRect(x, y, w, h);
  ctx.strokeRect(x, y, w, h);
  ctx.restore();
  entries.forEach(([label, style], n) => {
    const cx = x + 6 + (n % columns) * colW, cy = y + 3 + Math.floor(n / columns) * rowH + rowH / 2;
    ax.segment(cx, cy, cx + 24, cy, style.color, 1.5, style.dash ?? []);
    if (style.marker) markerAt(ctx, style.marker, cx + 12, cy, 4, style.color);
    ax.text(label, cx + 30, cy, { align: "left", size });
  });
  return { w, h };
}

// -- the figures ---------------------------------------------------------------------------------

function drawClocks(ctx, box, angles, { labels = [], highlight = null, spacing = 2.6, title = "" }) {
  // clock_faces: clock n at (n * spacing, 0), hand to (sin a, cos a); limits as in plots.py.
  const xlim = [-1.3, (angles.length - 1) * spacing + 1.3], ylim = [-1.9, 1.3];
  const scale = Math.min(box.w / (xlim[1] - xlim[0]), box.h / (ylim[1] - ylim[0]));
  const w = scale * (xlim[1] - xlim[0]), h = scale * (ylim[1] - ylim[0]);
  const ax = new Axes(ctx, { x: box.x + (box.w - w) / 2, y: box.y + (box.h - h) / 2, w, h }, xlim, ylim);
  angles.forEach((angle, n) => {
    const cx = n * spacing;
    ctx.save();
    ctx.strokeStyle = "#bfbfbf";
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.arc(ax.x(cx), ax.y(0), scale, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.restore();
    ax.segment(ax.x(cx), ax.y(0.85), ax.x(cx), ax.y(1.0), "#999", 1);
    const color = n === highlight ? VERMILLION : BLUE;
    const tip = [cx + Math.sin(angle), Math.cos(angle)];
    ax.segment(ax.x(cx), ax.y(0), ax.x(tip[0]), ax.y(tip[1]), color, Math.max(2, scale / 14));
    markerAt(ctx, "o", ax.x(tip[0]), ax.y(tip[1]), Math.max(4, scale / 7), color);
    if (labels[n]) {
      const color2 = n === highlight ? VERMILLION : "#000";
      ax.text(labels[n], ax.x(cx), ax.y(-1.3), { base: "top", size: Math.min(11, Math.max(9, scale / 3)), color: color2 });
    }
  });
  if (title) ax.text(title, box.x + box.w / 2, box.y + 2 - 16 * (title.split("\n").length - 1), { base: "top", size: 12.5 });
}

const DRAW = {};

DRAW.hello = {
  height: (W) => Math.round(W * 1.05),
  maxWidth: 360,
  draw(ctx, W, H, spec, v, f) {
    drawClocks(ctx, { x: 8, y: 24, w: W - 16, h: H - 30 }, f.angles, {});
    new Axes(ctx, { x: 0, y: 0, w: W, h: H }, [0, 1], [0, 1]).text("the fastest hand", W / 2, 6, { base: "top", size: 12.5 });
  },
};

DRAW.sinusoidal = {
  height: (W) => (W < 560 ? Math.round(W / 3.2 + 60 + 2 * 250) : Math.round((W * 5.2) / 9)),
  draw(ctx, W, H, spec, v, f, cache) {
    const narrow = W < 560, top = narrow ? W / 3.2 + 60 : H / 2.6, { pair: i, position: p, d_model: d } = v;
    const lambda = wavelengths(d, v.base), shown = shownPairs(d);
    // On a phone the eight clocks' labels keep their pair only (a wavelength would not fit).
    const labels = [`selected\ni=${i}\nλ=${grouped(lambda[i], 0)}`, ...shown.map((s) => (narrow ? `i=${s}` : `i=${s}\nλ=${grouped(lambda[s], 0)}`))];
    drawClocks(ctx, { x: 10, y: narrow ? 36 : 20, w: W - 20, h: top - (narrow ? 36 : 20) }, f.angles, {
      labels, highlight: 0, title: `one clock per pair i:${narrow ? "\n" : " "}the hand points at (sin pω_i, cos pω_i)`,
    });
    // bottom left: the waves around p
    const half = narrow ? 0 : W / 2, panelH = narrow ? 250 - 72 : H - top - 72;
    const waves = new Axes(ctx, { x: 52, y: top + 26, w: (narrow ? W : half) - 70, h: panelH }, [-spec.window, spec.window], [-1.15, 1.8]);
    waves.frame({ xlabel: "offset from the current position p", ylabel: "value", title: "the selected pair's two columns, around p" });
    waves.vline(0, VERMILLION, 1.5);
    // a marker on every 8th whole position: the table's own entries
    waves.line(f.offsets, f.sin, { color: BLUE, marker: "o", every: 8 * spec.fine });
    waves.line(f.offsets, f.cos, { color: ORANGE, dash: [6, 3], marker: "s", every: 8 * spec.fine });
    const entries = [["sin: column 2i", { color: BLUE, marker: "o" }], ["cos: column 2i+1", { color: ORANGE, marker: "s", dash: [6, 3] }]];
    const lw = 2 * (16 * 6.2 + 40) + 6;
    legend(waves, entries, waves.box.x + Math.max(0, (waves.box.w - lw) / 2), waves.box.y + 4, { columns: 2 });
    // bottom right: the table's rows p - window .. p + window, one image row each (a few device
    // pixels per row, so even the fastest pair is drawn wave by wave), offsets down
    const box = narrow
      ? { x: 56, y: top + 250 + 26, w: W - 56 - 78, h: panelH }
      : { x: half + 56, y: top + 26, w: W - half - 56 - 78, h: panelH };
    const map = new Axes(ctx, box, [-0.5, d - 0.5], [spec.window + 0.5, -spec.window - 0.5]);
    const key = `${d} ${v.base} ${f.seq_len} ${p}`;
    if (cache.tableKey !== key) {
      cache.tableKey = key;
      cache.table = windowImage(d, v.base, f.seq_len, p, spec.window);
    }
    ctx.save();
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(cache.table, box.x, box.y, box.w, box.h);
    ctx.restore();
    map.frame({ xlabel: "dimension index", ylabel: "offset from p (row p at 0)", title: `the table's rows p - ${spec.window} to p + ${spec.window}` });
    map.hline(0, "#000", 1.5);
    map.clip(() => {
      ctx.save();
      ctx.strokeStyle = "gold";
      ctx.lineWidth = 2;
      ctx.strokeRect(map.x(2 * i - 0.5), box.y, map.x(2 * i + 1.5) - map.x(2 * i - 0.5), box.h);
      ctx.restore();
    });
    colorbar(ctx, { x: box.x + box.w + 14, y: box.y + box.h * 0.1, w: 12, h: box.h * 0.8 }, "value");
  },
};

function windowImage(d, base, seqLen, p, window) {
  // One image row per table row p - window .. p + window, drawn as plots.heatmap draws the
  // explorer's table; rows before position 0 or past the table's end are grey (0.8), as the
  // Python figure's "bad" colour.
  const omega = frequencies(d, base), canvas = document.createElement("canvas"), rows = 2 * window + 1;
  canvas.width = d;
  canvas.height = rows;
  const ctx = canvas.getContext("2d"), image = ctx.createImageData(d, rows);
  for (let r = 0; r < rows; r++) {
    const row = p - window + r, inside = row >= 0 && row < seqLen;
    for (let c = 0; c < d; c++) {
      const w = omega[c >> 1];
      const rgb = inside ? rdbu(c % 2 === 0 ? Math.sin(row * w) : Math.cos(row * w)) : [204, 204, 204];
      const at = 4 * (r * d + c);
      image.data[at] = Math.round(rgb[0]);
      image.data[at + 1] = Math.round(rgb[1]);
      image.data[at + 2] = Math.round(rgb[2]);
      image.data[at + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
  return canvas;
}

function colorbar(ctx, box, label) {
  for (let y = 0; y < box.h; y++) {
    const [R, G, B] = rdbu(1 - (2 * y) / box.h).map(Math.round);
    ctx.fillStyle = `rgb(${R},${G},${B})`;
    ctx.fillRect(box.x, box.y + y, box.w, 1.5);
  }
  const ax = new Axes(ctx, box, [0, 1], [-1, 1]);
  ctx.save();
  ctx.strokeStyle = "#000";
  ctx.lineWidth = 0.8;
  ctx.strokeRect(box.x, box.y, box.w, box.h);
  ctx.restore();
  for (const t of [-1, -0.5, 0, 0.5, 1]) {
    ax.segment(box.x + box.w, ax.y(t), box.x + box.w + 4, ax.y(t), "#000", 0.8);
    ax.text(t.toFixed(1).replace("-", "−"), box.x + box.w + 6, ax.y(t), { align: "left", size: 11 });
  }
  ax.text(label, box.x + box.w + 44, box.y + box.h / 2, { rotate: -Math.PI / 2 });
}

DRAW.similarity = {
  height: (W) => Math.max(Math.round((W * 3.4) / 8), 280),
  draw(ctx, W, H, spec, v, f) {
    const narrow = W < 560, top = narrow ? 46 : 30;
    const lo = Math.min(0, ...f.curve), hi = Math.max(...f.curve), pad = 0.05 * (hi - lo || 1);
    const ax = new Axes(ctx, { x: 58, y: top, w: W - 76, h: H - top - 48 }, [-0.05 * spec.max_shift, 1.05 * spec.max_shift], [lo - pad, hi + pad]);
    ax.frame({
      xlabel: "shift k (positions)", ylabel: "PE[p] · PE[p+k]",
      title: `similarity against shift,${narrow ? "\n" : " "}${v.band} of d_model = ${v.d_model}, base ${grouped(v.base, 0)}`,
    });
    ax.hline(0, "#999", 0.8);
    const ks = f.curve.map((_, k) => k);
    ax.line(ks, f.curve, { color: BLUE, width: 1.2 });
    ax.line([f.marker[0]], [f.marker[1]], { color: VERMILLION, width: 0, marker: "o", size: 8 });
  },
};

DRAW.rope = {
  height: (W) => (W < 560 ? Math.round(Math.min(W - 80, 300) + 330) : Math.round((W * 3.8) / 9)),
  draw(ctx, W, H, spec, v, f) {
    const narrow = W < 560;
    const side = narrow ? Math.min(W - 80, 300) : Math.min(H - 76, (W - 150) / 2.6);
    const plane = new Axes(ctx, { x: narrow ? (W - side) / 2 + 20 : 58, y: 30, w: side, h: side }, [-f.limit, f.limit], [-f.limit, f.limit]);
    plane.hline(0, "#ccc", 0.8);
    plane.vline(0, "#ccc", 0.8);
    plane.frame({ xlabel: "dimension 2i", ylabel: "dimension 2i+1", title: f.title });
    const styles = [[BLUE, 0.3], [ORANGE, 0.3], [BLUE, 1], [ORANGE, 1]];
    f.arrows.forEach(([x, y], n) => {
      const [color, alpha] = styles[n];
      plane.line([0, x], [0, y], { color, alpha, width: 2.5, marker: "o", every: () => [1] });
    });
    const left = narrow ? 58 : 58 + side + 70, offsets = f.offsets, lo = Math.min(...f.curve), hi = Math.max(...f.curve);
    const pad = 0.05 * (hi - lo || 1), most = offsets[offsets.length - 1];
    const scoreBox = narrow ? { x: left, y: side + 110, w: W - left - 14, h: H - side - 156 } : { x: left, y: 30, w: W - left - 14, h: H - 76 };
    const score = new Axes(ctx, scoreBox, [-1.05 * most, 1.05 * most], [lo - pad, hi + pad]);
    score.frame({ xlabel: "offset n - m", ylabel: "score q_m · k_n", title: "the score depends on n - m only" });
    score.line(offsets, f.curve, { color: "#4d4d4d", width: 1.5 });
    score.line([f.marker[0]], [f.marker[1]], { color: "#000", width: 0, marker: "o", size: 9 });
  },
};

DRAW.alibi = {
  height: (W) => (W < 560 ? 470 : Math.max(Math.round((W * 4.4) / 8), 330)),
  draw(ctx, W, H, spec, v, f) {
    const narrow = W < 560, L = spec.q.length, right = narrow ? 14 : 150;
    const panelH = (H - (narrow ? 150 : 110)) / 2, keys = f.bias.map((_, j) => j);
    const xlim = [-0.05 * (L - 1) - 0.5, 1.05 * (L - 1) + 0.5];
    const top = new Axes(ctx, { x: 58, y: 30, w: W - 58 - right, h: panelH }, xlim, [-0.5 * (L - 1) - 0.5, 0.5]);
    top.frame({ ylabel: "bias", title: "ALiBi bias −m·(i − j) on each key", xticks: false });
    top.line(keys, f.bias, { color: VERMILLION, marker: "o", size: 3 });
    const bottom = new Axes(ctx, { x: 58, y: 30 + panelH + 14, w: W - 58 - right, h: panelH }, xlim, [0, 1.02]);
    bottom.frame({ xlabel: "key position j", ylabel: "attention weight" });
    bottom.line(keys, f.plain, { color: "#808080", dash: [6, 3], marker: "s", size: 3 });
    bottom.line(keys, f.biased, { color: BLUE, marker: "o", size: 3 });
    const entries = [["without ALiBi", { color: "#808080", dash: [6, 3], marker: "s" }], ["with ALiBi", { color: BLUE, marker: "o" }]];
    if (narrow) legend(bottom, entries, bottom.box.x, bottom.box.y + bottom.box.h + 44, { columns: 2 });
    else legend(bottom, entries, bottom.box.x + bottom.box.w + 8, bottom.box.y);
  },
};

// -- heatmaps (chapters 01, 03, 06): plots.heatmap's look, coloured as matplotlib colours ------

function heatmapCanvas(heatmap) {
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, heatmap.width);
  canvas.height = Math.max(1, heatmap.height);
  const c = canvas.getContext("2d"), image = c.createImageData(canvas.width, canvas.height);
  if (heatmap.rgba.length) image.data.set(heatmap.rgba);
  c.putImageData(image, 0, 0);
  return canvas;
}

function textWidth(ctx, words, size = 11) {
  ctx.save();
  ctx.font = ` ${size}px ${FONT}`;
  const width = Math.max(0, ...words.map((w) => ctx.measureText(String(w)).width));
  ctx.restore();
  return width;
}

/** Where a rows x cols image with square cells fits in ``area``: its box, left-top aligned. */
function fitBox(area, rows, cols) {
  const scale = Math.max(0.1, Math.min(area.w / Math.max(cols, 1), area.h / Math.max(rows, 1)));
  return { x: area.x, y: area.y, w: scale * Math.max(cols, 1), h: scale * Math.max(rows, 1) };
}

/** plots.heatmap: the image (antialiased when its cells are smaller than a device pixel), its
 * frame, ticks (the tokens, when given: x rotated, as set_token_ticks), labels and title. */
function drawHeatmap(ctx, box, heatmap, o) {
  const image = heatmapCanvas(heatmap), rows = heatmap.height, cols = heatmap.width;
  const dpr = ctx.getTransform().a;
  ctx.save();
  ctx.imageSmoothingEnabled = box.w * dpr < cols || box.h * dpr < rows;
  ctx.imageSmoothingQuality = "high";
  ctx.drawImage(image, box.x, box.y, box.w, box.h);
  ctx.restore();
  const ax = new Axes(ctx, box, [-0.5, cols - 0.5], [rows - 0.5, -0.5]);
  if (!o.tokens) {
    ax.frame({ title: o.title, xlabel: o.xlabel, ylabel: o.ylabel });
    return ax;
  }
  ax.frame({ title: o.title, xticks: false, yticks: false });
  const width = textWidth(ctx, o.tokens);
  o.tokens.forEach((word, j) => {
    ax.segment(ax.x(j), box.y + box.h, ax.x(j), box.y + box.h + 4, "#000", 0.8);
    ax.text(word, ax.x(j), box.y + box.h + 6, { align: "right", size: 11, rotate: -Math.PI / 2 });
    ax.segment(box.x - 4, ax.y(j), box.x, ax.y(j), "#000", 0.8);
    ax.text(word, box.x - 6, ax.y(j), { align: "right", size: 11 });
  });
  if (o.xlabel) ax.text(o.xlabel, box.x + box.w / 2, box.y + box.h + width + 12, { base: "top" });
  if (o.ylabel) ax.text(o.ylabel, box.x - width - 20, box.y + box.h / 2, { rotate: -Math.PI / 2 });
  return ax;
}

/** matplotlib's colorbar beside a heatmap: the colormap from vmin (bottom) to vmax, ticks, label. */
function colorbarOf(ctx, box, heatmap, label) {
  const { vmin, vmax } = heatmap, strips = Math.ceil(box.h);
  colorbarColors(heatmap.colors, vmin, vmax, strips).forEach(([R, G, B], y) => {
    ctx.fillStyle = `rgb(${R},${G},${B})`;
    ctx.fillRect(box.x, box.y + y, box.w, Math.min(1.5, box.h - y));
  });
  const ax = new Axes(ctx, box, [0, 1], [vmin, vmax]);
  ctx.save();
  ctx.strokeStyle = "#000";
  ctx.lineWidth = 0.8;
  ctx.strokeRect(box.x, box.y, box.w, box.h);
  ctx.restore();
  const ticks = niceTicks(Math.min(vmin, vmax), Math.max(vmin, vmax), 5);
  for (const t of ticks) {
    ax.segment(box.x + box.w, ax.y(t.value), box.x + box.w + 4, ax.y(t.value), "#000", 0.8);
    ax.text(t.label, box.x + box.w + 6, ax.y(t.value), { align: "left", size: 11 });
  }
  const width = textWidth(ctx, ticks.map((t) => t.label));
  if (label) ax.text(label, box.x + box.w + width + 18, box.y + box.h / 2, { rotate: -Math.PI / 2 });
}

const COLORBAR_ROOM = 96; // bar, ticks and label to the right of a heatmap

function drawOneHeatmap(ctx, W, H, o, f, heatmap) {
  const tokens = o.tokens ?? null, room = tokens ? textWidth(ctx, tokens) : 0;
  const left = tokens ? room + 34 : 64, bottom = tokens ? room + 34 : 50, top = 34;
  const right = o.colorbar ? COLORBAR_ROOM : 16;
  const box = fitBox({ x: left, y: top, w: W - left - right, h: H - top - bottom }, f.rows, f.cols);
  drawHeatmap(ctx, box, heatmap, { ...o, tokens, title: f.title });
  if (o.colorbar) {
    const label = typeof o.colorbar === "string" ? o.colorbar : "";
    colorbarOf(ctx, { x: box.x + box.w + 14, y: box.y + box.h * 0.1, w: 12, h: box.h * 0.8 }, heatmap, label);
  }
}

DRAW.frames = {
  height: (W) => Math.round(W * 0.88),
  maxWidth: 520,
  draw(ctx, W, H, spec, v, f) {
    drawOneHeatmap(ctx, W, H, spec, f, KINDS.frames.heatmaps(spec, f)[0]);
  },
};

DRAW.attention = {
  height: (W) => Math.round(W * 0.88),
  maxWidth: 520,
  draw(ctx, W, H, spec, v, f) {
    const [heatmap] = KINDS.attention.heatmaps(spec, f);
    if (heatmap) drawOneHeatmap(ctx, W, H, { ...spec, xlabel: "key position j", ylabel: "query position i" }, f, heatmap);
  },
};

function hatch(ctx, x, y, w, h) {
  // "///" as grouped_bars draws sentence B: white diagonals inside the bar
  ctx.save();
  ctx.beginPath();
  ctx.rect(x, y, w, h);
  ctx.clip();
  ctx.strokeStyle = "#fff";
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let d = -h; d < w + h; d += 5) {
    ctx.moveTo(x + d, y + h);
    ctx.lineTo(x + d + h, y);
  }
  ctx.stroke();
  ctx.restore();
}

DRAW.order = {
  height: (W) => (W < 560 ? Math.round(W * 0.62 + 330) : Math.max(320, Math.round(W * 0.4))),
  maxWidth: 1000,
  draw(ctx, W, H, spec, v, f) {
    if (!f.weights_a) return;
    const narrow = W < 560, room = textWidth(ctx, [...f.words_a, ...f.words_b]);
    const heatH = narrow ? W * 0.62 : H, heatW = narrow ? W : W * 0.6;
    // sentence A | sentence B | one colorbar, as the figure's width ratios 1 : 1 (: 1.4 the bars)
    const cell = (heatW - COLORBAR_ROOM) / 2, top = 34, bottom = room + 34;
    const heatmaps = KINDS.order.heatmaps(spec, f);
    let last = null;
    [[heatmaps[0], f.words_a, "sentence A", "query position i"], [heatmaps[1], f.words_b, "sentence B", ""]].forEach(([heatmap, words, title, ylabel], n) => {
      const left = n * cell + room + (n === 0 ? 34 : 16);
      const box = fitBox({ x: left, y: top, w: cell - (left - n * cell) - 6, h: heatH - top - bottom }, words.length, words.length);
      drawHeatmap(ctx, box, heatmap, {
        title, xlabel: "key position j", ylabel, tokens: words,
      });
      last = box;
    });
    colorbarOf(ctx, { x: last.x + last.w + 14, y: last.y + last.h * 0.1, w: 12, h: last.h * 0.8 }, heatmaps[1], "attention weight");
    // the sentence vectors: grouped bars, A solid blue, B hatched orange, a zero line, legend outside
    const d = f.pooled_a.length, reach = 1.3 * f.reach + 1e-3;
    const box = narrow
      ? { x: 62, y: heatH + 34, w: W - 62 - 64, h: H - heatH - 34 - 50 }
      : { x: heatW + 62, y: 34, w: W - heatW - 62 - 64, h: H - 34 - 50 };
    const ax = new Axes(ctx, box, [-0.5 - 0.05 * d, d - 0.5 + 0.05 * d], [-reach, reach]);
    ax.frame({ title: "sentence vectors (mean over tokens)", xlabel: "dimension", ylabel: "mean of the token outputs", xticks: false });
    const every = Math.max(1, Math.ceil(d / 16));
    for (let j = 0; j < d; j += every) {
      ax.segment(ax.x(j), box.y + box.h, ax.x(j), box.y + box.h + 4, "#000", 0.8);
      ax.text(String(j), ax.x(j), box.y + box.h + 6, { base: "top", size: 11 });
    }
    ax.clip(() => {
      [[f.pooled_a, PALETTE[0], false, -0.2], [f.pooled_b, PALETTE[1], true, 0.2]].forEach(([values, color, hatched, shift]) => {
        values.forEach((value, j) => {
          const x0 = ax.x(j + shift - 0.2), x1 = ax.x(j + shift + 0.2), y0 = ax.y(0), y1 = ax.y(value);
          const y = Math.min(y0, y1), h = Math.abs(y1 - y0);
          ctx.fillStyle = color;
          ctx.fillRect(x0, y, x1 - x0, h);
          if (hatched) hatch(ctx, x0, y, x1 - x0, h);
          ctx.strokeStyle = "#fff";
          ctx.lineWidth = 1;
          ctx.strokeRect(x0, y, x1 - x0, h);
        });
      });
    });
    ax.hline(0, "#808080", 0.8);
    // legend off the data, right of the axes: a swatch per sentence
    const lx = box.x + box.w + 8, ly = box.y;
    ctx.save();
    ctx.fillStyle = "rgba(255,255,255,0.9)";
    ctx.strokeStyle = "#ccc";
    ctx.fillRect(lx, ly, 50, 42);
    ctx.strokeRect(lx, ly, 50, 42);
    ctx.restore();
    [["A", PALETTE[0], false], ["B", PALETTE[1], true]].forEach(([name, color, hatched], n) => {
      const y = ly + 6 + n * 18;
      ctx.fillStyle = color;
      ctx.fillRect(lx + 6, y, 20, 12);
      if (hatched) hatch(ctx, lx + 6, y, 20, 12);
      ax.text(name, lx + 32, y + 6, { align: "left", size: 11 });
    });
  },
};

// -- the view: controls, canvas, status line --------------------------------------------------

const STYLE = `
.posenc-explorer { font-family: ${FONT}; font-size: 14px; max-width: 100%; }
.posenc-explorer .posenc-controls { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center; margin: 4px 0 8px; }
.posenc-explorer .posenc-control { display: flex; align-items: center; gap: 6px; }
.posenc-explorer .posenc-control.posenc-wide { flex: 1 1 100%; flex-wrap: wrap; }
.posenc-explorer .posenc-control.posenc-wide input[type=range] { flex: 1 1 100%; order: 9; width: 100%; margin: 0; }
.posenc-explorer input[type=range] { width: 180px; min-height: 24px; }
.posenc-explorer input[type=number] { width: 6em; font: inherit; }
.posenc-explorer select, .posenc-explorer button { font: inherit; min-height: 28px; }
.posenc-explorer button { padding: 0 8px; cursor: pointer; }
.posenc-explorer :focus-visible { outline: 3px solid #D55E00; outline-offset: 2px; }
.posenc-explorer canvas { display: block; background: #fff; touch-action: pan-y; }
.posenc-explorer .posenc-announce { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.posenc-explorer .posenc-status { font-family: ui-monospace, 'DejaVu Sans Mono', monospace; font-size: 13px; margin: 6px 0 0; overflow-wrap: anywhere; }
`;

let uid = 0;

function injectStyle(el) {
  const root = el.getRootNode?.() ?? document;
  const host = root.head ?? root;
  if (!host.querySelector?.("style[data-posenc-explorer]")) {
    const style = document.createElement("style");
    style.dataset.posencExplorer = "";
    style.textContent = STYLE;
    host.appendChild(style);
  }
}

function coarseStep(span) {
  return Math.max(1, 10 ** Math.ceil(Math.log10(span / 100)));
}

function controlFrame(def, id, className = "posenc-control") {
  // Every control: a wrapper and the label that names its input (for= the input's id).
  const wrap = document.createElement("div");
  wrap.className = className;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = def.label;
  return { wrap, label };
}

function rangeControl(def, id, onValue) {
  const { wrap, label } = controlFrame(
    def, id, "posenc-control" + (def.wide ? " posenc-wide" : ""));
  const input = document.createElement("input");
  Object.assign(input, { type: "range", id, step: 1 });
  const field = document.createElement("input");
  Object.assign(field, { type: "number", step: 1, id: `${id}-field` });
  field.setAttribute("aria-label", `${def.label}, exact value`);
  wrap.append(label, input, field);
  const buttons = [];
  const set = (value) => {
    const v = Math.min(Number(input.max), Math.max(Number(input.min), Math.round(value)));
    if (Number.isFinite(v)) onValue(v);
  };
  // PageUp and PageDown: a coarse step (about 1/100 of the range, a power of ten); arrows: 1.
  input.addEventListener("keydown", (event) => {
    const coarse = coarseStep(Number(input.max) - Number(input.min));
    const by = { PageUp: coarse, PageDown: -coarse }[event.key];
    if (by !== undefined) {
      event.preventDefault();
      set(Number(input.value) + by);
    }
  });
  input.addEventListener("input", () => set(Number(input.value)));
  field.addEventListener("change", () => set(Number(field.value)));
  field.addEventListener("keydown", (event) => { if (event.key === "Enter") set(Number(field.value)); });
  if (def.wide) {
    for (const sign of [-1, 1]) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "posenc-coarse";
      button.addEventListener("click", () => set(Number(input.value) + sign * coarseStep(Number(input.max) - Number(input.min))));
      buttons.push([sign, button]);
    }
    wrap.insertBefore(buttons[0][1], input);
    wrap.append(buttons[1][1]);
  }
  const update = (d, value) => {
    input.min = field.min = d.min;
    input.max = field.max = d.max;
    input.value = value;
    if (document.activeElement !== field) field.value = value;
    input.setAttribute("aria-valuetext", `${d.label} ${value} of ${d.max}`);
    const coarse = coarseStep(d.max - d.min);
    for (const [sign, button] of buttons) {
      button.textContent = `${sign < 0 ? "−" : "+"}${coarse}`;
      button.setAttribute("aria-label", `${d.label} ${sign < 0 ? "minus" : "plus"} ${coarse}`);
    }
  };
  return { wrap, update, input };
}

function selectControl(def, id, onValue) {
  const { wrap, label } = controlFrame(def, id);
  const select = document.createElement("select");
  select.id = id;
  def.options.forEach((option, n) => {
    const o = document.createElement("option");
    o.value = String(n);
    o.textContent = def.format ? def.format(option) : String(option);
    select.append(o);
  });
  select.addEventListener("change", () => onValue(def.options[Number(select.value)]));
  wrap.append(label, select);
  const update = (d, value) => { select.value = String(d.options.indexOf(value)); };
  return { wrap, update, input: select };
}

function checkboxControl(def, id, onValue) {
  const { wrap, label } = controlFrame(def, id);
  const input = document.createElement("input");
  Object.assign(input, { type: "checkbox", id });
  input.addEventListener("change", () => onValue(input.checked));
  wrap.append(input, label);
  const update = (d, value) => { input.checked = Boolean(value); };
  return { wrap, update, input };
}

function numberControl(def, id, onValue) {
  // A number field (chapters 03 and 06): its label names it, its arrow keys step it.
  const { wrap, label } = controlFrame(def, id);
  const input = document.createElement("input");
  Object.assign(input, { type: "number", id, step: 1 });
  const set = () => {
    if (input.value === "") return;
    const v = Math.min(Number(input.max), Math.max(Number(input.min), Math.round(Number(input.value))));
    if (Number.isFinite(v)) onValue(v);
  };
  input.addEventListener("input", set);
  input.addEventListener("keydown", (event) => { if (event.key === "Enter") set(); });
  wrap.append(label, input);
  const update = (d, value) => {
    input.min = d.min;
    input.max = d.max;
    if (Number(input.value) !== value || input.value === "") input.value = value;
  };
  return { wrap, update, input };
}

function firstSentence(text) {
  // Up to the first full stop or colon that ends a clause (not a decimal point), at most 200 characters.
  const m = /^(.*?[.:])(\s|$)/.exec(text);
  return (m ? m[1] : text).slice(0, 200);
}

function stateKey(values) {
  // One string per state, the same for equal states whatever the order of their keys.
  return JSON.stringify(Object.keys(values).sort().map((k) => [k, values[k]]));
}

function render({ model, el }) {
  injectStyle(el);
  const kind = model.get("kind"), fixed = model.get("spec"), explorer = KINDS[kind], drawer = DRAW[kind];
  // What the kernel computed for its current inputs (chapters 01, 03, 06) joins the fixed spec.
  const withData = () => ({ ...fixed, ...(model.get("data") ?? {}) });
  let spec = withData();
  const root = document.createElement("div");
  root.className = `posenc-explorer posenc-${kind}`;
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", model.get("description") || `${kind} explorer`);
  root.dataset.frame = "0";
  const controlsBox = document.createElement("div");
  controlsBox.className = "posenc-controls";
  const canvas = document.createElement("canvas");
  canvas.setAttribute("role", "img");
  const status = document.createElement("p");
  status.className = "posenc-status";
  status.setAttribute("aria-live", "polite");
  // Where a step changes the drawing but not the status line (chapter 03's frame, chapter 06's
  // head), a screen reader hears the first sentence of the new text alternative from here.
  const announcer = document.createElement("p");
  announcer.className = "posenc-announce";
  announcer.setAttribute("aria-live", "polite");
  root.append(controlsBox, canvas, status, announcer);
  el.append(root);
  // The explorer's keys are the explorer's: JupyterLab's shortcuts (which take the arrow keys in a
  // notebook) handle keydown as it bubbles to the document, so it stops here.
  root.addEventListener("keydown", (event) => event.stopPropagation());

  let values = explorer.normalize(spec, { ...model.get("values") });
  const cache = {}, frameCache = {}, base = `posenc-${kind}-${++uid}`;
  let frames = 0, lastWidth = 0, lastAlt = null;
  // Every press lands: the view draws each new value at once and sends it at once (ipywidgets
  // sends one update at a time and merges the ones that wait, so the kernel is never flooded).
  // ipywidgets 8 echoes each update back to the page; an echo of a state this view has already
  // left must never be drawn over the newer one. `sent` keeps the states sent since the kernel
  // last confirmed the one shown (see fromModel).
  const sent = new Set();
  const controls = {};
  const onValue = (name) => (value) => {
    if (values[name] === value) return update();
    values = explorer.normalize(spec, { ...values, [name]: value });
    update();
    sent.add(stateKey(values));
    model.set("values", { ...values });
    model.save_changes();
  };
  for (const def of explorer.controls(spec, values)) {
    const make = def.options ? selectControl : def.checkbox ? checkboxControl : def.number ? numberControl : rangeControl;
    controls[def.name] = make(def, `${base}-${def.name}`, onValue(def.name));
    controlsBox.append(controls[def.name].wrap);
  }

  function update() {
    for (const def of explorer.controls(spec, values)) controls[def.name].update(def, values[def.name]);
    const f = explorer.frame(spec, values, frameCache);
    const width = Math.min(drawer.maxWidth ?? 900, Math.max(200, Math.floor(root.clientWidth || el.clientWidth || 700)));
    lastWidth = root.clientWidth;
    const height = drawer.height(width), dpr = window.devicePixelRatio || 1;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    if (canvas.width !== Math.round(width * dpr)) canvas.width = Math.round(width * dpr);
    if (canvas.height !== Math.round(height * dpr)) canvas.height = Math.round(height * dpr);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, width, height);
    drawer.draw(ctx, width, height, spec, values, f, cache);
    if (lastAlt !== null && f.alt !== lastAlt && f.status === status.textContent) {
      announcer.textContent = firstSentence(f.alt);
    }
    lastAlt = f.alt;
    canvas.setAttribute("aria-label", f.alt);
    status.textContent = f.status;
    status.hidden = !f.status;
    root.dataset.frame = String(++frames);
    root.dispatchEvent(new CustomEvent("posenc:frame", { detail: { frame: frames } }));
  }

  const fromModel = () => {
    const incoming = explorer.normalize(spec, { ...model.get("values") });
    const key = stateKey(incoming);
    if (key === stateKey(values)) {
      sent.clear(); // the kernel holds what the view shows: nothing of ours is in flight
      return;
    }
    if (sent.has(key)) return; // the echo of a state this view has since left
    sent.clear(); // the kernel set a new state (a cell, or the kernel's own reply): draw it
    values = incoming;
    update();
  };
  model.on("change:values", fromModel);
  const fromData = () => {
    spec = withData();
    values = explorer.normalize(spec, values);
    update();
  };
  model.on("change:data", fromData);
  const resize = new ResizeObserver(() => { if (root.clientWidth !== lastWidth) update(); });
  resize.observe(root);
  update();
  return () => {
    resize.disconnect();
    model.off?.("change:values", fromModel);
    model.off?.("change:data", fromData);
  };
}

export default { render };
