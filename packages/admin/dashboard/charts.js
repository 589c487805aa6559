// Small live charts on canvas, no library: a fixed window of samples drawn as an area line with
// a light grid, the current value and the window's maximum. Colours come from the CSS variables
// so the charts follow the light and dark themes.

import { num } from './format.js';

export function createChart(canvas, { samples = 120, label, integer = true } = {}) {
  const values = new Array(samples).fill(null);
  const ctx = canvas.getContext('2d');

  function css(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
  }

  function draw() {
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth;
    const hgt = canvas.clientHeight;
    if (!w || !hgt) return;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(hgt * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(hgt * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, hgt);

    const known = values.filter((v) => v !== null);
    const max = niceMax(Math.max(integer ? 2 : 1, ...known), integer);
    ctx.font = `10px ${css('--sans') || 'sans-serif'}`;
    const fmt = (frac) => num(integer ? Math.round(max * frac) : Number((max * frac).toFixed(1)));
    // The axis makes room for its widest label.
    const padL = Math.ceil(ctx.measureText(fmt(1)).width) + 10;
    const padR = 4;
    const padT = 6;
    const padB = 16;
    const plotW = w - padL - padR;
    const plotH = hgt - padT - padB;

    ctx.fillStyle = css('--muted');
    ctx.strokeStyle = css('--chart-grid');
    ctx.lineWidth = 1;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (const frac of [0, 0.5, 1]) {
      const y = Math.round(padT + plotH * (1 - frac)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(padL, y);
      ctx.lineTo(w - padR, y);
      ctx.stroke();
      ctx.fillText(fmt(frac), padL - 6, y);
    }
    ctx.textAlign = 'left';
    ctx.textBaseline = 'alphabetic';
    ctx.fillText(`−${Math.round(samples)} s`, padL, hgt - 3);
    ctx.textAlign = 'right';
    ctx.fillText('now', w - padR, hgt - 3);

    const step = plotW / (samples - 1);
    const xy = (i) => [padL + i * step, padT + plotH * (1 - (values[i] ?? 0) / max)];
    let first = values.findIndex((v) => v !== null);
    if (first < 0) return;
    ctx.beginPath();
    ctx.moveTo(xy(first)[0], padT + plotH);
    for (let i = first; i < samples; i++) ctx.lineTo(...xy(i));
    ctx.lineTo(xy(samples - 1)[0], padT + plotH);
    ctx.closePath();
    ctx.fillStyle = css('--chart-fill');
    ctx.fill();
    ctx.beginPath();
    for (let i = first; i < samples; i++) {
      const [x, y] = xy(i);
      if (i === first) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
    }
    ctx.strokeStyle = css('--chart-line');
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }

  return {
    /** Appends one sample (the oldest falls off) and redraws. */
    push(v) {
      values.shift();
      values.push(typeof v === 'number' && Number.isFinite(v) ? v : null);
      const last = values[values.length - 1];
      canvas.setAttribute('aria-label', `${label}: ${last === null ? 'no data' : num(last)} now, ${num(Math.max(0, ...values.filter((x) => x !== null)))} at most in the last ${samples} s`);
      draw();
    },
    draw,
    get last() {
      return values[values.length - 1];
    },
  };
}

/** A round axis maximum at or above v (2, 4, 10 × 10^n for integers, so the half mark is whole too). */
function niceMax(v, integer) {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of integer ? [1, 2, 4, 10] : [1, 2, 5, 10]) if (m * p >= v && (!integer || (m * p) % 2 === 0)) return m * p;
  return 10 * p;
}
